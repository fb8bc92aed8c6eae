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
foot: the foot is then on its toes (vdP97 §2.4.1; blended, see support_points).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import orientation, physics
from .schedule import SAMPLES_PER_SEGMENT, build_schedule
from .spline import hermite_basis, layout

TOE_RAMP = 0.5  # the point of support blends from mid-foot to the toe over this fraction of half a foot


@dataclass(frozen=True)
class Weights:
    physics: float = 1.0
    comfort: float = 150.0
    barrier: float = 1e5
    clearance: float = 1e5
    barrier_margin: float = 0.015  # metres below l_max where the barrier starts


@dataclass
class TrackPart:
    """One track's share of the concatenated problem."""

    schedule: object
    layout: object
    character: object
    terrain: object
    free: slice  # its rows in the free-state array
    samples: slice  # its rows in the sample arrays


def _smoothstep(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _smoothstep_slope(x):
    inside = (x > 0.0) & (x < 1.0)
    return np.where(inside, 6.0 * x * (1.0 - x), 0.0)


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
            lay = layout(sched)
            tr = sched.track
            times, seg, dt, support_times = sched.sample_times(per_segment)
            s = (times - sched.knot_times[seg]) / np.diff(sched.knot_times)[seg]
            cp, _cv, ca = hermite_basis(s, np.diff(sched.knot_times)[seg])
            active_fp = sched.active_footprints(support_times)
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
        self.samples_per_segment = per_segment + 1
        self.sample_segment = np.repeat(np.arange(len(self.left)), self.samples_per_segment)
        self.free_track = np.concatenate([np.full(p.free.stop - p.free.start, i) for i, p in enumerate(self.parts)])
        self.coupled = self.right != self.left  # segments linking two free states (not a flight)
        # One matrix per segment from [left free state, right free state] to [start state, end state].
        # Across a flight both ends derive from the same free state: its columns move to the left half and
        # the right half is zero, so the flight's contributions land on one diagonal block.
        g_both = np.zeros((len(self.left), 12, 12))
        g_both[:, :6, :6] = self.g_left
        g_both[:, 6:, 6:] = self.g_right
        flight = ~self.coupled
        g_both[flight, 6:, :6] = self.g_right[flight]
        g_both[flight, 6:, 6:] = 0.0
        self.g_both = g_both
        # Per sample, [p; a] = basis @ [left free state; right free state] + basis_offset.
        seg = self.sample_segment
        hermite = np.zeros((len(seg), 6, 12))
        for k in range(4):  # the four Hermite terms P0, V0, P1, V1
            hermite[:, 0:3, 3 * k:3 * k + 3] = self.cp[:, k, None, None] * np.eye(3)
            hermite[:, 3:6, 3 * k:3 * k + 3] = self.ca[:, k, None, None] * np.eye(3)
        offsets = np.concatenate([self.o_left, self.o_right], axis=1)  # (n_seg, 12)
        self.basis = hermite @ g_both[seg]
        self.basis_offset = np.einsum("sij,sj->si", hermite, offsets[seg])
        self.pair = np.stack([self.left[seg], self.right[seg]], axis=1)  # (S, 2) free states per sample
        self.terrain_groups = self._terrain_groups()

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
        ground = self._rows("ground", rows).copy()
        slope = np.zeros((len(p), 2))
        for terrain, group_rows in self.terrain_groups:
            mask = group_rows if rows is None else np.isin(rows, group_rows)
            ground[mask] = terrain.heights(p[mask, :2])
            slope[mask] = terrain.gradient(p[mask, :2])
        return ground, slope

    def support_points(self, p, rows=None, jacobian=False):
        """Points of support (S, L, 3) and hips (S, L, 3) for COM positions p (S, 3); with jacobian,
        also d support / d p (S, L, 3, 3).

        The support moves from mid-foot to the toe as the leg nears full extension with the hip ahead of
        the foot (vdP97 §2.4.1). The move is blended over a distance in proportion to the shift itself
        (TOE_RAMP of half a foot) so the energy stays smooth: a hard switch, or a blend much shorter than
        the shift, leaves the optimiser crawling along a crease.
        """
        hip = p[:, None, :] + self._rows("hip", rows)
        mid, toe, fwd = self._rows("mid", rows), self._rows("toe", rows), self._rows("fwd", rows)
        hip_from_mid = hip - mid
        reach = np.sqrt(np.einsum("sld,sld->sl", hip_from_mid, hip_from_mid))
        ahead = np.einsum("sld,sld->sl", hip_from_mid, fwd)
        ramp = self._rows("toe_ramp", rows)[:, None]
        onset = self._rows("l_max", rows)[:, None] - self.weights.barrier_margin - ramp
        x_reach, x_ahead = (reach - onset) / ramp, ahead / ramp
        s_reach, s_ahead = _smoothstep(x_reach), _smoothstep(x_ahead)
        shift = toe - mid
        support = mid + (s_reach * s_ahead)[..., None] * shift
        if not jacobian:
            return support, hip
        dw = ((_smoothstep_slope(x_reach) * s_ahead / ramp / np.maximum(reach, 1e-9))[..., None] * hip_from_mid
              + (s_reach * _smoothstep_slope(x_ahead) / ramp)[..., None] * fwd)
        return support, hip, (shift, dw)

    def residuals(self, p, a, rows=None, jacobian=False):
        """Weighted residuals (S, 3 + 2L + 1) at COM positions and accelerations (S, 3) of sample rows;
        with jacobian, also their derivatives in p and a, (S, R, 3) each, analytic."""
        w = self.weights
        active = self._rows("active", rows)
        legs = active.shape[1]
        if jacobian:
            support, hip, d_support = self.support_points(p, rows, jacobian=True)
        else:
            support, hip = self.support_points(p, rows)
        to_com = p[:, None, :] - support
        distance = np.maximum(np.sqrt(np.einsum("sld,sld->sl", to_com, to_com)), 1e-9)
        directions = to_com / distance[..., None]
        required = physics.required_force(a)
        phys = physics.nonphysical_force(required, directions, active, jacobian)
        if jacobian:
            phys, d_phys_da, d_phys_dk = phys
        leg = hip - support
        length = np.sqrt(np.einsum("sld,sld->sl", leg, leg))
        comfort = np.where(active, length - self._rows("l_nom", rows)[:, None], 0.0)
        stretch = length - (self._rows("l_max", rows)[:, None] - w.barrier_margin)
        over = np.where(active & (stretch > 0.0), stretch, 0.0)
        ground, slope = self.ground_under(p, rows)
        lack = ground + self._rows("clear", rows) - p[:, 2]
        low = np.maximum(0.0, lack)
        root_dt = np.sqrt(self._rows("dt", rows))[:, None]
        weights = np.sqrt([w.physics, w.comfort, w.barrier, w.clearance])
        r = root_dt * np.concatenate([weights[0] * phys, weights[1] * comfort, weights[2] * over,
                                      weights[3] * low[:, None]], axis=1)
        if not jacobian:
            return r
        n = len(p)
        shift, dw = d_support  # d support / d p = shift dw^T, so d (p - support) / d p = I - shift dw^T
        unit_leg = leg / np.maximum(length, 1e-9)[..., None]
        d_length = unit_leg - np.einsum("sld,sld->sl", unit_leg, shift)[..., None] * dw  # (S, L, 3)
        # d K / d p = (I - K K^T) / |p - s| (I - shift dw^T), written without 3 x 3 products
        k_shift = np.einsum("sld,sld->sl", directions, shift)[..., None]
        projector = np.eye(3) - directions[..., :, None] * directions[..., None, :]
        d_dir = (projector - (shift - k_shift * directions)[..., :, None] * dw[..., None, :]) / distance[..., None, None]
        dr_dp = np.zeros((n, 3 + 2 * legs + 1, 3))
        dr_da = np.zeros_like(dr_dp)
        # sum over legs of (d r / d K_l)(d K_l / d p), as one (3 x 3L) (3L x 3) product per sample
        dk = np.swapaxes(d_phys_dk, 1, 2).reshape(n, 3, 3 * legs)
        dr_dp[:, :3] = weights[0] * (dk @ d_dir.reshape(n, 3 * legs, 3))
        dr_da[:, :3] = weights[0] * d_phys_da
        dr_dp[:, 3:3 + legs] = weights[1] * np.where(active[..., None], d_length, 0.0)
        dr_dp[:, 3 + legs:3 + 2 * legs] = weights[2] * np.where((over > 0.0)[..., None], d_length, 0.0)
        d_low = np.concatenate([slope, -np.ones((n, 1))], axis=1)
        dr_dp[:, -1] = weights[3] * np.where((lack > 0.0)[:, None], d_low, 0.0)
        return r, root_dt[..., None] * dr_dp, root_dt[..., None] * dr_da

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

    def track_energies(self, free):
        p, a = self.sample_states(free)
        r = self.residuals(p, a)
        return np.bincount(self.sample_track, (r**2).sum(axis=1), self.n_tracks)

    # --- Gauss-Newton normal equations --------------------------------------------------------

    def linearize(self, free):
        """Residuals and the block-tridiagonal normal equations J^T J, J^T r per free state.

        Each sample's residual depends on its COM position and acceleration only; their analytic
        derivatives map exactly (the spline is linear in its states) onto the segment's two free states.
        """
        p, a = self.sample_states(free)
        r, dr_dp, dr_da = self.residuals(p, a, jacobian=True)
        jac = np.concatenate([dr_dp, dr_da], axis=2) @ self.basis  # (S, R, 12) in [left, right] states
        # Sum over a segment's samples inside one product per segment: rows of all its samples stacked.
        n_seg = len(self.left)
        jac_seg = jac.reshape(n_seg, -1, 12)
        normal = np.swapaxes(jac_seg, 1, 2) @ jac_seg
        rhs = (np.swapaxes(jac_seg, 1, 2) @ r.reshape(n_seg, -1, 1))[..., 0]
        diag = np.zeros((self.n_free, 6, 6))
        upper = np.zeros((max(self.n_free - 1, 0), 6, 6))
        grad = np.zeros((self.n_free, 6))
        np.add.at(diag, self.left, normal[:, :6, :6])
        np.add.at(diag, self.right, normal[:, 6:, 6:])
        np.add.at(upper, self.left[self.coupled], normal[self.coupled, :6, 6:])
        np.add.at(grad, self.left, rhs[:, :6])
        np.add.at(grad, self.right, rhs[:, 6:])
        energies = np.bincount(self.sample_track, (r**2).sum(axis=1), self.n_tracks)
        return energies, diag, upper, grad
