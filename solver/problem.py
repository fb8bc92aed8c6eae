"""The COM optimisation problem (vdP97 §2.4), for one track or many independent tracks at once.

Several tracks are solved as one problem: their knots, segments and samples are concatenated, so every
numpy operation covers all of them, and the normal equations stay block-tridiagonal (no block couples
two tracks). Energies, damping and acceptance are kept per track.

Energy, unit mass, summed over samples t_i with weight dt (vdP97 §2.4.3), as squared residuals:
- physics: the non-physical force (physics.py), Torkos eq. 3's squared form;
- comfort: k (l - l_nom)^2 for each stance leg (vdP97 §2.4.2, Torkos eq. 4), l from hip to support;
- barrier: k_b max(0, l - (l_max - margin))^2, keeping each stance leg within l_max;
- clearance: k_c max(0, ground + c - z)^2, the COM above the terrain (Torkos §4.6.2).
The point of support is mid-foot, or the toe when the leg would over-extend with the hip ahead of the
foot: the foot is then on its toes (vdP97 §2.4.1; blended, see Problem.evaluate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import orientation, physics
from .schedule import SAMPLES_PER_SEGMENT, build_schedule
from .schedule import clear_cache as clear_schedule_cache
from .spline import GRAVITY_VECTOR, hermite_basis, layout

TOE_RAMP = 0.5  # the point of support blends from mid-foot to the toe over this fraction of half a foot
_LEFT_COLUMNS = np.r_[0:6, 12]  # a segment's normal-equation rows for its left state: J^T J block, J^T r
_RIGHT_COLUMNS = np.r_[6:12, 12]


@dataclass(frozen=True)
class Weights:
    physics: float = 1.0
    comfort: float = 150.0
    barrier: float = 1e5
    clearance: float = 1e5
    barrier_margin: float = 0.015  # metres below l_max where the barrier starts


@dataclass(frozen=True)
class Assembly:
    """The part of the problem one linearisation covers: segments and their samples (slices), and the
    free states it solves for, with where each segment's normal-equation halves go among them."""

    segments: slice
    samples: slice
    n_free: int
    order: np.ndarray  # segment halves (left halves, then right halves) sorted by the state they add to
    starts: np.ndarray  # where each state's run starts in that order
    upper_segments: np.ndarray  # segments coupling two of the states: their off-diagonal blocks
    upper_index: np.ndarray  # ...and the block row each goes to
    segment_track: np.ndarray  # the track of each segment


@dataclass
class TrackPart:
    """One track's share of the concatenated problem."""

    schedule: object
    layout: object
    character: object
    terrain: object
    free: slice  # its rows in the free-state array
    samples: slice  # its rows in the sample arrays


_TIMING_CACHE = {}  # (what, timing key) -> arrays that depend on a track's timing alone
_TIMING_CACHE_SIZE = 32


def _by_timing(what, key, derive):
    """derive(), remembered for this timing: a re-solve after moving or turning footprints (a live drag)
    reuses everything the footprints' positions do not enter. The arrays are made read-only."""
    key = (what, key)
    if key not in _TIMING_CACHE:
        if len(_TIMING_CACHE) >= _TIMING_CACHE_SIZE:
            _TIMING_CACHE.pop(next(iter(_TIMING_CACHE)))  # the oldest
        value = derive()
        for array in value:
            if isinstance(array, np.ndarray):
                array.setflags(write=False)
        _TIMING_CACHE[key] = value
    return _TIMING_CACHE[key]


def clear_timing_cache():
    """Forget everything derived from timings (benchmarks of cold solves start here)."""
    _TIMING_CACHE.clear()
    clear_schedule_cache()


def _sampling(schedule, per_segment):
    """The spline layout, sample times and weights, Hermite coefficients, the footprint under each leg."""
    return _by_timing("sampling", (schedule.key, per_segment), lambda: _derive_sampling(schedule, per_segment))


def _derive_sampling(schedule, per_segment):
    lay = layout(schedule)
    times, seg, dt, support_times = schedule.sample_times(per_segment)
    h = np.diff(schedule.knot_times)[seg]
    cp, _cv, ca = hermite_basis((times - schedule.knot_times[seg]) / h, h)
    return lay, times, dt, cp, ca, schedule.active_footprints(support_times)


def _forward(headings):
    return np.stack([-np.sin(headings), np.cos(headings), np.zeros_like(headings)], axis=-1)


class Problem:
    def __init__(self, items, weights: Weights = Weights(), per_segment: int = SAMPLES_PER_SEGMENT):
        """items: (track, character, terrain or None) triples."""
        self.weights = weights
        self.per_segment = per_segment
        self.parts = []
        legs = max(len(character.feet) for _track, character, _terrain in items)
        self.legs = legs
        cols = {k: [] for k in ("left", "right", "g_left", "o_left", "g_right", "o_right", "h",
                                "times", "dt", "cp", "ca", "active", "mid", "toe", "fwd", "hip", "l_nom",
                                "l_max", "toe_ramp", "clear", "ground", "sample_track")}
        nf = nsmp = 0
        for index, (track, character, terrain) in enumerate(items):
            sched = build_schedule(track, character)
            tr = sched.track
            lay, times, dt, cp, ca, active_fp = _sampling(sched, per_segment)
            if active_fp.shape[1] < legs:
                active_fp = np.pad(active_fp, ((0, 0), (0, legs - active_fp.shape[1])), constant_values=-1)
            on = active_fp >= 0
            safe = np.where(on, active_fp, 0)
            mid = tr.positions[safe]
            fwd = _forward(tr.headings)[safe]
            toe = mid + 0.5 * character.foot_length * fwd
            yaw = orientation.body_yaw(times, tr.contact, tr.liftoff, tr.headings)
            pitch, roll = orientation.oscillation(orientation.stride_phase(times, tr.contact),
                                                  character.pitch_amplitude, character.roll_amplitude)
            rot = orientation.rotation_matrices(yaw, pitch, roll)
            offsets = np.zeros((legs, 3))
            offsets[: len(character.feet)] = character.hip_offsets
            hip = np.einsum("sij,lj->sli", rot, offsets)
            # Ground under the COM without a terrain: the supporting footprints' mean height, interpolated in
            # time across flights.
            z_on = np.where(on, mid[..., 2], 0.0).sum(axis=1) / np.maximum(on.sum(axis=1), 1)
            supported = on.any(axis=1)
            ground = np.interp(times, times[supported], z_on[supported])
            n_free, n_smp = lay.n_free, len(times)
            cols["left"].append(lay.left + nf)
            cols["right"].append(lay.right + nf)
            for key in ("g_left", "o_left", "g_right", "o_right"):
                cols[key].append(getattr(lay, key))
            cols["h"].append(np.diff(sched.knot_times))
            cols["times"].append(times)
            cols["dt"].append(dt)
            cols["cp"].append(cp)
            cols["ca"].append(ca)
            cols["active"].append(on)
            cols["mid"].append(mid)
            cols["toe"].append(toe)
            cols["fwd"].append(fwd)
            cols["hip"].append(hip)
            cols["l_nom"].append(np.full(n_smp, character.leg_length_nominal))
            cols["l_max"].append(np.full(n_smp, character.leg_length_max))
            cols["toe_ramp"].append(np.full(n_smp, TOE_RAMP * 0.5 * character.foot_length))
            cols["clear"].append(np.full(n_smp, character.com_clearance * character.leg_length_nominal))
            cols["ground"].append(ground)
            cols["sample_track"].append(np.full(n_smp, index))
            self.parts.append(TrackPart(sched, lay, character, terrain, slice(nf, nf + n_free),
                                        slice(nsmp, nsmp + n_smp)))
            nf, nsmp = nf + n_free, nsmp + n_smp
        for key, values in cols.items():
            setattr(self, key, np.concatenate(values))
        self.n_free, self.n_tracks = nf, len(items)
        # Per-sample constants of the residuals, in the shapes evaluate() uses them.
        margin = weights.barrier_margin
        self.hip_minus_mid = self.hip - self.mid
        self.shift = self.toe - self.mid  # where the support goes when the foot is on its toes
        self.inv_ramp = 1.0 / self.toe_ramp[:, None]
        self.onset = (self.l_max - margin - self.toe_ramp)[:, None]
        self.limit = (self.l_max - margin)[:, None]
        self.l_nom = self.l_nom[:, None]
        # Residual rows: physics (3), comfort and barrier per leg, clearance.
        row_weight = np.repeat([weights.physics, weights.comfort, weights.barrier, weights.clearance],
                               [3, legs, legs, 1])
        self.root_weight = np.sqrt(self.dt[:, None] * row_weight[None, :])
        self.samples_per_segment = per_segment + 1
        self.sample_segment = np.repeat(np.arange(len(self.left)), self.samples_per_segment)
        self.free_track = np.concatenate([np.full(p.free.stop - p.free.start, i) for i, p in enumerate(self.parts)])
        self.coupled = self.right != self.left  # segments linking two free states (not a flight)
        timing = (tuple(part.schedule.key for part in self.parts), per_segment)
        self.basis, self.basis_offset, self.pair = _by_timing("basis", timing, self._sample_basis)
        self.terrain_groups = self._terrain_groups()
        self.assembly = self.assembly_for(0, self.n_free)

    def _sample_basis(self):
        """Per sample, [p; a] = basis @ [left free state; right free state] + basis_offset: basis (S, 6, 12),
        basis_offset (S, 6), and the two free states (S, 2)."""
        # One matrix per segment from [left free state, right free state] to [start state, end state].
        # Across a flight both ends derive from the same free state: its columns move to the left half and
        # the right half is zero, so the flight's contributions land on one diagonal block.
        g_both = np.zeros((len(self.left), 12, 12))
        g_both[:, :6, :6] = self.g_left
        g_both[:, 6:, 6:] = self.g_right
        flight = ~self.coupled
        g_both[flight, 6:, :6] = self.g_right[flight]
        g_both[flight, 6:, 6:] = 0.0
        seg = self.sample_segment
        hermite = np.zeros((len(seg), 6, 12))
        for k in range(4):  # the four Hermite terms P0, V0, P1, V1
            hermite[:, 0:3, 3 * k:3 * k + 3] = self.cp[:, k, None, None] * np.eye(3)
            hermite[:, 3:6, 3 * k:3 * k + 3] = self.ca[:, k, None, None] * np.eye(3)
        offsets = np.concatenate([self.o_left, self.o_right], axis=1)  # (n_seg, 12)
        pair = np.stack([self.left[seg], self.right[seg]], axis=1)
        return hermite @ g_both[seg], np.einsum("sij,sj->si", hermite, offsets[seg]), pair

    def assembly_for(self, first, stop):
        """How to linearise for the free states [first, stop) with the others held: over the segments
        that touch them, each segment's normal-equation halves sorted onto those states."""
        touching = np.flatnonzero(((self.left >= first) & (self.left < stop)) | ((self.right >= first) & (self.right < stop)))
        segments = slice(int(touching[0]), int(touching[-1]) + 1)  # contiguous: free states follow time
        per = self.samples_per_segment
        samples = slice(segments.start * per, segments.stop * per)
        left, right = self.left[segments] - first, self.right[segments] - first
        keys = np.concatenate([left, right])
        inside = np.flatnonzero((keys >= 0) & (keys < stop - first))
        order = inside[np.argsort(keys[inside], kind="stable")]
        starts = np.searchsorted(keys[order], np.arange(stop - first))
        upper_segments = np.flatnonzero(self.coupled[segments] & (left >= 0) & (right < stop - first))
        return Assembly(segments, samples, stop - first, order, starts, upper_segments, left[upper_segments],
                        self.sample_track[samples][::per])

    def _terrain_groups(self):
        """Sample rows per distinct terrain object: a handful of groups, each queried in one call."""
        groups = {}
        for part in self.parts:
            if part.terrain is not None:
                groups.setdefault(id(part.terrain), (part.terrain, []))[1].append(
                    np.arange(part.samples.start, part.samples.stop))
        return [(terrain, np.concatenate(rows)) for terrain, rows in groups.values()]

    # --- the trajectory -------------------------------------------------------------------------

    def initial_free(self):
        """vdP97 §2.4.3, Fig. 9: each knot above its footprints at nominal leg height, zero tangents."""
        free = np.zeros((self.n_free, 6))
        for part in self.parts:
            sched, char = part.schedule, part.character
            tr = sched.track
            knot_times = sched.knot_times
            active = sched.active_footprints(knot_times)
            on = active >= 0
            # A knot where no foot is down (a flight starts) sits above the footprints just left.
            just_left = np.abs(tr.liftoff[None, :] - knot_times[:, None]) < 1e-9
            weights = np.zeros((len(knot_times), len(tr)))
            rows, legs_ = np.nonzero(on)
            weights[rows, active[rows, legs_]] = 1.0
            weights[~on.any(axis=1)] = just_left[~on.any(axis=1)]
            empty = weights.sum(axis=1) == 0
            nearest = np.argmin(np.abs(tr.contact[None, :] - knot_times[:, None]), axis=1)
            weights[empty, nearest[empty]] = 1.0
            centre = weights @ tr.positions / weights.sum(axis=1, keepdims=True)
            height = char.leg_length_nominal - char.hip_offsets[:, 2].mean()
            states = np.zeros((len(knot_times), 6))
            states[:, :3] = centre + [0.0, 0.0, height]
            keep = np.concatenate([[True], ~sched.flight])  # knots that are free states
            free[part.free] = states[keep]
        return free

    def sample_states(self, free, rows=None):
        """COM positions and accelerations (S, 3) at the samples (or the given sample rows)."""
        pair = self.pair if rows is None else self.pair[rows]
        basis = self.basis if rows is None else self.basis[rows]
        offset = self.basis_offset if rows is None else self.basis_offset[rows]
        y = np.einsum("sij,sj->si", basis, free[pair].reshape(len(pair), 12)) + offset
        return y[:, :3], y[:, 3:]

    # --- residuals ------------------------------------------------------------------------------

    def _rows(self, name, rows):
        values = getattr(self, name)
        return values if rows is None else values[rows]

    def ground_under(self, p, rows=None):
        """Terrain height (S,) and its slope (S, 2) under COM positions p (S, 3)."""
        ground = self._rows("ground", rows)
        slope = np.zeros((len(p), 2))
        if self.terrain_groups:
            ground = ground.copy()
        if isinstance(rows, slice):
            rows = np.arange(len(self.times))[rows]
        for terrain, group_rows in self.terrain_groups:
            mask = group_rows if rows is None else np.isin(rows, group_rows)
            ground[mask] = terrain.heights(p[mask, :2])
            slope[mask] = terrain.gradient(p[mask, :2])
        return ground, slope

    def residuals(self, p, a, rows=None, jacobian=False):
        """Weighted residuals (S, 3 + 2L + 1) at COM positions and accelerations (S, 3) of sample rows;
        with jacobian, also their derivatives in p and a, (S, R, 3) each, analytic."""
        y = np.concatenate([p, a], axis=1)
        if not jacobian:
            return self.evaluate(y, rows)
        r, jac = self.evaluate(y, rows, jacobian=True)
        return r, jac[..., :3], jac[..., 3:]

    def evaluate(self, y, rows=None, jacobian=False):
        """Weighted residuals (S, R) at sample states y = [p, a] (S, 6); with jacobian also d r / d y
        (S, R, 6), analytic.

        The point of support moves from mid-foot to the toe as the leg nears full extension with the hip
        ahead of the foot (vdP97 §2.4.1). The move is blended over a distance in proportion to the shift
        itself (TOE_RAMP of half a foot) so the energy stays smooth: a hard switch, or a blend much shorter
        than the shift, leaves the optimiser crawling along a crease.
        """
        w = self.weights
        p, a = y[:, :3], y[:, 3:]
        active, shift, fwd = self._rows("active", rows), self._rows("shift", rows), self._rows("fwd", rows)
        inv_ramp = self._rows("inv_ramp", rows)
        hip_from_mid = p[:, None, :] + self._rows("hip_minus_mid", rows)
        reach = np.sqrt(np.einsum("sld,sld->sl", hip_from_mid, hip_from_mid))
        x_reach = np.clip((reach - self._rows("onset", rows)) * inv_ramp, 0.0, 1.0)
        x_ahead = np.clip(np.einsum("sld,sld->sl", hip_from_mid, fwd) * inv_ramp, 0.0, 1.0)
        s_reach, s_ahead = x_reach * x_reach * (3.0 - 2.0 * x_reach), x_ahead * x_ahead * (3.0 - 2.0 * x_ahead)
        leg = hip_from_mid - (s_reach * s_ahead)[..., None] * shift  # hip - support
        to_com = leg - self._rows("hip", rows)  # p - support
        distance = np.maximum(np.sqrt(np.einsum("sld,sld->sl", to_com, to_com)), 1e-9)
        directions = to_com / distance[..., None]
        physical = physics.project(a - GRAVITY_VECTOR, directions, active, jacobian)
        phys = physical[0] if jacobian else physical
        length = np.sqrt(np.einsum("sld,sld->sl", leg, leg))
        stretch = length - self._rows("limit", rows)
        over = active & (stretch > 0.0)
        ground, slope = self.ground_under(p, rows)
        lack = ground + self._rows("clear", rows) - p[:, 2]
        low = lack > 0.0
        r = np.concatenate([phys, (length - self._rows("l_nom", rows)) * active, stretch * over,
                            (lack * low)[:, None]], axis=1)
        r *= self._rows("root_weight", rows)
        if not jacobian:
            return r
        _phys, lam, b, complement = physical
        legs = active.shape[1]
        # d support / d p = shift dw^T: the toe blend's weight s_reach s_ahead moves with the hip.
        ds_reach, ds_ahead = 6.0 * x_reach * (1.0 - x_reach), 6.0 * x_ahead * (1.0 - x_ahead)
        dw = (((ds_reach * s_ahead * inv_ramp) / np.maximum(reach, 1e-9))[..., None] * hip_from_mid
              + (s_reach * ds_ahead * inv_ramp)[..., None] * fwd)
        # d r / d p = sum_l d r / d D_l (I - shift_l dw_l^T), D_l = p - support_l, d r / d D_l from physics.py
        inv_d = 1.0 / distance
        lam_d = lam * inv_d
        v = -(lam_d[..., None] * (shift @ complement)  # complement is symmetric
              + (np.einsum("sd,sld->sl", phys, shift) * inv_d)[..., None] * b)
        beta = np.einsum("sl,sld->sd", inv_d, b)
        dphys_dp = (-lam_d.sum(axis=1)[:, None, None] * complement - beta[:, :, None] * phys[:, None, :]
                    - np.swapaxes(v, 1, 2) @ dw)
        unit_leg = leg / np.maximum(length, 1e-9)[..., None]
        d_length = unit_leg - np.einsum("sld,sld->sl", unit_leg, shift)[..., None] * dw
        jac = np.zeros((len(p), 3 + 2 * legs + 1, 6))
        jac[:, :3, :3] = dphys_dp
        jac[:, :3, 3:] = complement
        jac[:, 3:3 + legs, :3] = d_length * active[..., None]
        jac[:, 3 + legs:3 + 2 * legs, :3] = d_length * over[..., None]
        jac[:, -1, :2] = slope * low[:, None]
        jac[:, -1, 2] = -1.0 * low
        jac *= self._rows("root_weight", rows)[..., None]
        return r, jac

    def energy_terms(self, free):
        """Per track: total energy, and its physics / comfort / barrier / clearance parts."""
        p, a = self.sample_states(free)
        r = self.residuals(p, a)
        legs = self.legs
        parts = {"physics": r[:, :3], "comfort": r[:, 3:3 + legs], "barrier": r[:, 3 + legs:3 + 2 * legs],
                 "clearance": r[:, 3 + 2 * legs:]}
        out = {k: np.bincount(self.sample_track, (v**2).sum(axis=1), self.n_tracks) for k, v in parts.items()}
        out["total"] = sum(out.values())
        return out


    # --- Gauss-Newton normal equations --------------------------------------------------------

    def linearize(self, free, assembly=None):
        """Residual energies per track and the block-tridiagonal normal equations J^T J, J^T r per free
        state (of the assembly's segments and states: by default all of them).

        Each sample's residual depends on its COM position and acceleration only; their analytic
        derivatives map exactly (the spline is linear in its states) onto the segment's two free states.
        One product per segment, over the rows of all its samples, gives [J r]^T [J r]: J^T J, J^T r and
        r^T r at once.
        """
        a = self.assembly if assembly is None else assembly
        rows = None if a is self.assembly else a.samples
        basis, pair = self.basis[a.samples], self.pair[a.samples]
        y = np.einsum("sij,sj->si", basis, free[pair].reshape(len(pair), 12)) + self.basis_offset[a.samples]
        r, jac = self.evaluate(y, rows, jacobian=True)
        stacked = np.concatenate([jac @ basis, r[..., None]], axis=2)  # (S, R, 13)
        by_segment = stacked.reshape(len(a.segment_track), -1, 13)
        product = np.swapaxes(by_segment, 1, 2) @ by_segment  # (n_seg, 13, 13)
        # Each segment adds its [left | right] halves to its two free states, in the assembly's order.
        halves = np.concatenate([product[:, :6][:, :, _LEFT_COLUMNS], product[:, 6:12][:, :, _RIGHT_COLUMNS]])
        summed = np.add.reduceat(halves[a.order], a.starts, axis=0)  # (n_free, 6, 7)
        upper = np.zeros((max(a.n_free - 1, 0), 6, 6))
        upper[a.upper_index] = product[a.upper_segments, :6, 6:12]
        energies = np.bincount(a.segment_track, product[:, 12, 12], self.n_tracks)
        return energies, summed[..., :6], upper, summed[..., 6]


class Window:
    """A stretch of one track's free states re-optimised with all the others held (the neighbourhood of
    a live edit): the same energy terms, evaluated over only the segments those states touch. It offers
    what the optimiser needs from a Problem."""

    def __init__(self, problem: Problem, free, first: int, stop: int):
        self.problem, self.held = problem, np.array(free, dtype=float)
        self.first, self.stop = first, stop
        self.assembly = problem.assembly_for(first, stop)
        self.n_tracks = problem.n_tracks
        self.free_track = problem.free_track[first:stop]

    def full(self, movable):
        """The whole track's free states with this window's replaced."""
        free = self.held.copy()
        free[self.first:self.stop] = movable
        return free

    def linearize(self, movable):
        return self.problem.linearize(self.full(movable), self.assembly)
