"""Where a linearisation's products go in the block-tridiagonal normal equations.

A linearisation (Problem.linearize) makes, per segment, J^T J (D, D, n_seg, 4, 4) and J^T r (D, n_seg, 4) in
the segment's Hermite controls [P0, V0, P1, V1] of D components each (a biped's COM: 3; a quadruped's COM
and spine vector: 6), and per steady-ends pair its residual r_e. An Assembly maps each of those values, in
that order, to the flat output [diagonal blocks (n, 2D, 2D) | upper blocks (n - 1, 2D, 2D) | gradient
(n, 2D) | energy per track] with a coefficient; each sample's r^2 and each pair's
r_e^2 go to its track's energy (Assembly.energies, which the optimiser's energies alone use too). One
gather, one product and a few bincounts assemble the normal equations, whatever the layout
(flights, where a segment's controls are a fixed map G of one free state: G^T (J^T J) G, windows, whose
held states drop out, batches of tracks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

@dataclass(frozen=True)
class Assembly:
    """The part of the problem one linearisation covers: segments and their samples (slices), how many free
    states it solves for (from a first one on, the others held), and its scatter map."""

    segments: slice
    samples: slice
    n_free: int
    state: int  # a free state's size: knot position and tangent, 2D
    end_pair_rows: np.ndarray  # indices of the problem's steady-ends pairs (end_pairs) touching its states
    source: np.ndarray  # per output term: the value it takes...
    target: np.ndarray  # ...the flat output entry it adds to...
    coefficient: np.ndarray  # ...times this
    constant: np.ndarray  # the output's part that does not depend on the solution (steady ends' J^T J)
    starts: tuple  # where the upper blocks, the gradient and the energies start in the output
    sample_track: np.ndarray  # the track of each of its samples
    end_track: np.ndarray  # the track of each of its steady-ends pairs

    def energies(self, squares, r_end):
        """Per track, the energy: squares (S,), each sample's r^2, and the steady-ends residuals (E, 3)."""
        n_tracks = len(self.constant) - self.starts[2]
        return (np.bincount(self.sample_track, squares, n_tracks)
                + np.bincount(self.end_track, np.add.reduce(r_end * r_end, 1), n_tracks))

    def assemble(self, values, squares, r_end):
        """values (the linearisation's products, concatenated in the module's order), squares (S,), each
        sample's r^2, and the steady-ends residuals -> energies per track, diagonal blocks, upper blocks,
        gradient."""
        out = np.bincount(self.target, values[self.source] * self.coefficient, len(self.constant))
        out += self.constant
        upper_start, grad_start, energy_start = self.starts
        out[energy_start:] += self.energies(squares, r_end)
        n, size = self.n_free, self.state
        return (out[energy_start:], out[:upper_start].reshape(n, size, size),
                out[upper_start:grad_start].reshape(-1, size, size),
                out[grad_start:energy_start].reshape(n, size))


def _expand(rows, row_start):
    """For entries in CSR rows (rows: each entry's row; row_start: where each row's nonzeros start, one
    more than there are rows): each entry repeated once per nonzero of its row, with that nonzero's index."""
    counts = row_start[rows + 1] - row_start[rows]
    entry = np.repeat(np.arange(len(rows)), counts)
    within = np.arange(len(entry)) - np.repeat(np.cumsum(counts) - counts, counts)
    return entry, row_start[rows][entry] + within


def build(problem, first, stop):
    """The Assembly for the free states [first, stop) of a Problem, over the segments that touch them."""
    left_all, right_all = problem.left, problem.right
    touching = np.flatnonzero(((left_all >= first) & (left_all < stop)) | ((right_all >= first) & (right_all < stop)))
    segments = slice(int(touching[0]), int(touching[-1]) + 1)  # contiguous: free states follow time
    per = problem.samples_per_segment
    samples = slice(segments.start * per, segments.stop * per)
    n, n_seg, n_tracks = stop - first, segments.stop - segments.start, problem.n_tracks
    dim = problem.dim
    state_size, n_controls = 2 * dim, 4 * dim  # a free state's size; a segment's controls [P0, V0, P1, V1]
    upper_start = n * state_size * state_size
    grad_start = upper_start + max(n - 1, 0) * state_size * state_size
    energy_start = grad_start + n * state_size

    # The nonzeros of each segment's map G from its two free states [left; right] to its controls, as CSR
    # rows (segment, control component); a held state's columns drop out.
    left, right = left_all[segments] - first, right_all[segments] - first
    seg, control, column = np.nonzero(problem.segment_map[segments])
    g = problem.segment_map[segments][seg, control, column]
    state = np.where(column < state_size, left[seg], right[seg])
    inside = (state >= 0) & (state < n)
    seg, control, g, state, component = seg[inside], control[inside], g[inside], state[inside], column[inside] % state_size
    row_start = np.concatenate([[0], np.cumsum(np.bincount(seg * n_controls + control, minlength=n_seg * n_controls))])

    sources, targets, coefficients = [], [], []
    # J^T J (D, D, n_seg, 4, 4): entry (i, j, s, k, l) couples controls D k + i and D l + j of segment s; in
    # the free states, G^T (J^T J) G: every pair of nonzeros of their two rows. Upper triangle of blocks only.
    i, j, s, k, l = np.indices((dim, dim, n_seg, 4, 4)).reshape(5, -1)
    e1, nz1 = _expand(s * n_controls + dim * k + i, row_start)
    e2, nz2 = _expand(s[e1] * n_controls + dim * l[e1] + j[e1], row_start)
    entry, nz1 = e1[e2], nz1[e2]
    s1, s2 = state[nz1], state[nz2]
    keep = s1 <= s2  # the lower blocks are the upper ones transposed
    entry, nz1, nz2, s1 = entry[keep], nz1[keep], nz2[keep], s1[keep]
    flat = (s1 * state_size + component[nz1]) * state_size + component[nz2]
    sources.append(entry)
    targets.append(np.where(state[nz2] == s1, flat, upper_start + flat))
    coefficients.append(g[nz1] * g[nz2])
    offset = dim * dim * n_seg * 16
    # J^T r (D, n_seg, 4): entry (i, s, k) is control D k + i's; in the free states G^T (J^T r).
    i, s, k = np.indices((dim, n_seg, 4)).reshape(3, -1)
    entry, nz = _expand(s * n_controls + dim * k + i, row_start)
    sources.append(offset + entry)
    targets.append(grad_start + state[nz] * state_size + component[nz])
    coefficients.append(g[nz])
    offset += dim * n_seg * 4

    # Steady ends, r_e = sqrt(k_e) (V_hi + offset - V_lo) (E, D): J^T r is -+ sqrt(k_e) r_e on the two
    # velocities, J^T J a constant: k_e I on each state's velocity block, -k_e I between the two.
    ends = problem.weights.ends
    pairs = np.flatnonzero(((problem.end_pairs >= first) & (problem.end_pairs < stop)).any(axis=1))
    constant = np.zeros(energy_start + n_tracks)
    eye = np.arange(dim) + dim  # the velocity's components
    for side, sign in enumerate((-1.0, 1.0)):
        pair_state = problem.end_pairs[pairs, side] - first
        ok = (pair_state >= 0) & (pair_state < n)
        e, c = np.nonzero(np.broadcast_to(ok[:, None], (len(pairs), dim)))
        sources.append(offset + dim * e + c)
        targets.append(grad_start + pair_state[e] * state_size + dim + c)
        coefficients.append(np.full(len(e), sign * np.sqrt(ends)))
        np.add.at(constant, (pair_state[ok, None] * state_size + eye) * state_size + eye, ends)
    lo, hi = (problem.end_pairs[pairs] - first).T
    both = (lo >= 0) & (hi < n)
    np.add.at(constant, upper_start + (lo[both, None] * state_size + eye) * state_size + eye, -ends)

    return Assembly(segments, samples, n, state_size, pairs, np.concatenate(sources), np.concatenate(targets),
                    np.concatenate(coefficients), constant, (upper_start, grad_start, energy_start),
                    problem.sample_track[samples], problem.end_track[pairs])
