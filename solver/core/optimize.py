"""Optimisers for the COM problem: Levenberg-Marquardt (fast) and vdP97's greedy descent (reference).

Levenberg-Marquardt works on the residual vector. Its normal equations are block-tridiagonal (a sample
touches the two free states of its segment), solved in O(n) by cyclic reduction; damping (Nielsen's
gain-ratio update, each variable scaled by the largest curvature it has shown) and step acceptance are per
track, so a batch of tracks converges as each would alone.

The greedy descent is vdP97 Fig. 10: one free variable at a time, +delta then -delta, keep what lowers the
energy and keep going in that direction, at two scales (6 cm, then 2 cm, vdP97 §2.4.3), re-evaluating only
the segments that the variable touches. It is the baseline for tests and benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import blocktridiag
from .problem import Problem

GREEDY_SCALES = (0.06, 0.02)  # metres (vdP97 §2.4.3); tangents move by scale / mean segment duration
BACKTRACK = (0.5, 0.25)  # fractions of a rejected step tried before damping more (see _shorter_steps)
WARM_TOLERANCE = 1e-4  # relative energy gain at which a warm-started solve stops: it starts near the optimum


@dataclass
class OptimizeResult:
    free: np.ndarray
    energies: np.ndarray  # per track
    iterations: int
    evaluations: int
    converged: np.ndarray  # per track


def _select(keep, new, old):
    """Rows of new where keep, else of old (most iterations keep all or nothing: no copy then)."""
    if keep.all():
        return new
    if not keep.any():
        return old
    return np.where(keep.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)


def levenberg_marquardt(problem: Problem, free=None, max_iterations: int = 100, tolerance: float = 1e-6):
    """Minimise every track's energy; damping follows Nielsen's gain-ratio rule, per track. Started from a
    given solution (a warm start, close to the optimum) the first steps are trusted more."""
    damping0 = 0.1 if free is None else 1e-3
    if free is not None:  # a warm start sits next to the optimum: stop once a step gains under 1e-4
        tolerance = max(tolerance, WARM_TOLERANCE)
    free = problem.initial_free() if free is None else free.copy()
    n_tracks = problem.n_tracks
    track = problem.free_track
    sizes = tuple(np.unique(track, return_counts=True)[1].tolist())  # each track's equations are its own
    energies, diag, upper, grad = problem.linearize(free)
    energies = np.maximum(energies, 1e-30)  # a track at zero energy stops at once (tolerance relative to it)
    damping = np.full(n_tracks, damping0)
    growth = np.full(n_tracks, 2.0)
    done = np.zeros(n_tracks, dtype=bool)
    evaluations = 1
    iteration = 0
    curvature = np.diagonal(diag, axis1=1, axis2=2) + 1e-9
    for iteration in range(1, max_iterations + 1):
        # Damp each variable by the largest curvature it has shown so far (Moré 1978, "The Levenberg-
        # Marquardt algorithm: implementation and theory", §6, as MINPACK's lmder): scaled by the current
        # curvature alone (Marquardt's), a variable whose curvature drops as a barrier
        # or a toe support switches off is left almost undamped, the next step overshoots into the
        # barrier, is rejected, and the damping swings (a two-footed hop took 180 iterations, now 51).
        curvature = np.maximum(curvature, np.diagonal(diag, axis1=1, axis2=2))
        shift = damping[track][:, None] * curvature
        step = blocktridiag.solve(diag, upper, -grad, shift, sizes)
        # The Gauss-Newton model's decrease: with (A + D) s = -g, -(2 g.s + s.A s) = -g.s + s.D s.
        predicted = np.bincount(track, np.add.reduce(step * (shift * step - grad), 1), n_tracks)
        # A step the model says gains under the tolerance is not worth evaluating: converged.
        done |= predicted <= tolerance * energies
        if done.all():
            break
        if done.any():
            step[done[track]] = 0.0
        trial = free + step
        new_energies, new_diag, new_upper, new_grad = problem.linearize(trial)
        evaluations += 1
        better = (new_energies < energies) & ~done
        fraction, tried = _shorter_steps(problem, free, step, energies, ~better & ~done)
        evaluations += tried
        shortened = fraction > 0.0
        if shortened.any():  # the tracks that gain along their step, at the full length or a fraction
            trial = free + np.where(shortened, fraction, 1.0)[track][:, None] * step
            new_energies, new_diag, new_upper, new_grad = problem.linearize(trial)
            evaluations += 1
            better = (new_energies < energies) & ~done
        keep = better[track]
        free = _select(keep, trial, free)
        diag = _select(keep, new_diag, diag)
        grad = _select(keep, new_grad, grad)
        if len(upper):
            upper = _select(keep[:-1] & keep[1:], new_upper, upper)
        gained = energies - new_energies
        # Nielsen 1999 ("Damping parameter in Marquardt's method", IMM-REP-1999-05): on a gain, damping
        # times max(1/3, 1 - (2 rho - 1)^3), rho the gain against the model's;
        # on a loss, times 2, 4, 8... A finished track's damping stays (it would grow without bound).
        # A step that gained only when shortened keeps its damping (the model held over a fraction of it),
        # and its gain, a fraction of what the model offered, does not say the track has converged.
        rho = np.where(better, gained / np.maximum(predicted, 1e-300), 0.0)
        factor = np.where(shortened, 1.0, np.maximum(1.0 / 3.0, 1.0 - (2.0 * rho - 1.0) ** 3))
        damping = np.where(better, damping * factor, np.where(done, damping, damping * growth))
        growth = np.where(better, 2.0, np.where(done, growth, growth * 2.0))
        done |= np.where(better, (gained <= tolerance * new_energies) & ~shortened, damping > 1e12)
        energies = np.where(better, new_energies, energies)
        if done.all():
            break
    return OptimizeResult(free, energies, iteration, evaluations, done)


def _shorter_steps(problem, free, step, energies, failed):
    """Per track, the first of the BACKTRACK fractions of its step that lowers the energy of a failed track
    (energies alone, cheaper than a linearisation), 0 where none does or the track did not fail; and how
    many evaluations that took.

    Most rejected steps fail a few centimetres out, where a sample's force leaves the face of its support
    cone the model was built on: the wedge of two nearly parallel legs (a two-footed hop's) spans a few
    degrees, not the plane the model sees. A shorter step along the same direction mostly gains, where
    doubling the damping would cost an iteration per try (hops: 30 % fewer iterations)."""
    fraction = np.zeros(len(failed))
    tried = 0
    for part in BACKTRACK:
        trying = failed & (fraction == 0.0)
        if not trying.any():
            break
        fraction[trying & (problem.energies(free + part * step) < energies)] = part
        tried += 1
    return fraction, tried


def local_energies(problem: Problem):
    """local_energy(free, k): the part of the energy that free state k enters (the samples of the segments it
    touches, the steady-ends pairs it is in): its changes are the whole energy's when only k moves."""
    per = problem.samples_per_segment
    touching = [np.flatnonzero((problem.left == k) | (problem.right == k)) for k in range(problem.n_free)]
    rows_of = [(s[:, None] * per + np.arange(per)[None, :]).ravel() for s in touching]
    ends_of = [np.flatnonzero((problem.end_pairs == k).any(axis=1)) for k in range(problem.n_free)]

    def local_energy(x, k):
        rows = rows_of[k]
        p, a = problem.sample_states(x, rows)
        r = problem.residuals(p, a, rows)
        return float((r**2).sum() + (problem.end_residuals(x, ends_of[k]) ** 2).sum())

    return local_energy


def greedy_descent(problem: Problem, free=None, scales=GREEDY_SCALES, max_sweeps: int = 1000):
    """vdP97 Fig. 10 with its multi-scale steps and local re-evaluation."""
    free = problem.initial_free() if free is None else free.copy()
    local_energy = local_energies(problem)
    mean_duration = float(np.mean(problem.h))

    evaluations = 0
    sweeps = 0
    converged = True  # every scale ended on a sweep that changed nothing (one flag: sweeps cover all tracks)
    for scale in scales:
        deltas = np.array([scale] * problem.dim + [scale / mean_duration] * problem.dim)
        improved = True
        for _ in range(max_sweeps):
            sweeps += 1
            improved = False
            for k in range(problem.n_free):
                best = local_energy(free, k)
                evaluations += 1
                for c in range(len(deltas)):
                    for direction in (1.0, -1.0):
                        moved = False
                        while True:
                            free[k, c] += direction * deltas[c]
                            e = local_energy(free, k)
                            evaluations += 1
                            if e < best:
                                best, moved, improved = e, True, True
                            else:
                                free[k, c] -= direction * deltas[c]
                                break
                        if moved:
                            break
            if not improved:
                break
        converged &= not improved
    return OptimizeResult(free, problem.energy_terms(free)["total"], sweeps, evaluations,
                          np.full(problem.n_tracks, converged))
