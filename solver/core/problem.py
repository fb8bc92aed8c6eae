"""The COM optimisation problem (vdP97 §2.4), for one track or many independent tracks at once.

Several tracks are solved as one problem: their knots, segments and samples are concatenated, so every
numpy operation covers all of them, and the normal equations stay block-tridiagonal (no block couples
two tracks). Energies, damping and acceptance are kept per track.

Energy, unit mass, summed over samples t_i with weight dt (vdP97 §2.4.3), as squared residuals:
- physics: the non-physical force (physics.py), Torkos eq. 3's squared form;
- comfort: k (l - l_nom)^2 for each stance leg (vdP97 §2.4.2, Torkos eq. 4), l from hip to support; k
  STRAIGHT_STANCE times firmer for a leg on a footprint landed heel first (a walk's straight stance knee);
- barrier: k_b max(0, l - (l_max - margin))^2, keeping each stance leg within l_max, at the samples and at
  every lift-off inside a segment (a sample for the barrier alone, with its own margin: see
  _liftoffs_inside);
- clearance: k_c max(0, ground + c - z)^2, the COM above the terrain (Torkos §4.6.2);
- ends: k_e |V_1 - V_0|^2 at each end of a track: the COM velocity at its first contact against the
  next contact's (across a flight, the landing's), and at its last lift-off against the previous knot's
  (next to a flight, the take-off's). A track is a stretch of a longer motion: at its ends the COM keeps
  the pace of the neighbouring stride. Without it the ends are free, and a last stance on one foot is as
  cheap falling back down a slope as going on (the 15 degree walk ended 0.4 m lower, moving backwards).
The point of support is mid-foot, or the toe when the leg would over-extend with the hip ahead of the
foot: the foot is then on its toes (vdP97 §2.4.1; blended, see Problem.evaluate); on a footprint landed heel
first, the heel when it would over-extend with the hip behind the foot (the heel strike's rocker).
"""

from __future__ import annotations

from dataclasses import dataclass, is_dataclass

import numpy as np

from . import assembly, orientation, physics
from .schedule import SAMPLES_PER_SEGMENT, build_schedule, knots_at_liftoffs, walking_landings
from .schedule import clear_cache as clear_schedule_cache
from .spline import GRAVITY_VECTOR, hermite_basis, layout

ENDS_WEIGHT = 0.3  # s: the steady-ends term's weight, a velocity change's squared m/s to energy
STRAIGHT_STANCE = 10.0  # the comfort's weight on a stance leg landed on its heel, times Weights.comfort: people
# walk over a nearly straight knee (5-15 degrees at mid-stance; Perry & Burnfield 2010, ch. 5), a bent one costs
# them the quadriceps' effort. At 1x the physics sank the rig's hip 15 mm below l_nom (knee 23 degrees)
LEVEL_RISE = 0.05  # l_nom: a footprint higher or lower than the one before by more is a stair's step (5 cm)
QUADRUPED_MARGIN = 0.5  # of a quadruped leg's reach past its nominal length: the most its barrier's margin takes
TOE_RAMP = 0.5  # the point of support blends from mid-foot to the toe over this fraction of half a foot


def _unit_interval(x):
    """x clipped to [0, 1], in place (np.clip's own overhead is several times the work here)."""
    return np.minimum(np.maximum(x, 0.0, out=x), 1.0, out=x)


@dataclass(frozen=True)
class Weights:
    physics: float = 1.0
    comfort: float = 150.0
    barrier: float = 1e5
    clearance: float = 1e5
    ends: float = ENDS_WEIGHT
    barrier_margin: float = 0.015  # metres below l_max where the barrier starts
    liftoff_margin: float = 0.005  # ...at a lift-off sample: there the leg is longest only for an instant and
    # nothing is sampled after it. With none, legs came out up to 1.1 mm past l_max (180 random walks), with
    # 0.005 none (270); with the whole 0.015, long-stride walks (1.05-1.1 l_nom) took twice the iterations


@dataclass
class TrackPart:
    """One track's share of the concatenated problem."""

    schedule: object
    layout: object
    character: object
    terrain: object
    free: slice  # its rows in the free-state array
    samples: slice  # its rows in the sample arrays


_TIMING_CACHE = {}  # (what, timing key) -> (arrays that depend on a track's timing alone, their bytes)
_TIMING_CACHE_SIZE = 32  # values: a few kinds per timing
_TIMING_CACHE_BYTES = 128 * 2**20  # a few timings of a 2000-footprint run (its assembly alone is 30 MB)


def _arrays(value):
    """The arrays in a cached value: its items, and the array fields of those that are dataclasses."""
    for item in value:
        if isinstance(item, np.ndarray):
            yield item
        elif is_dataclass(item):
            yield from (member for member in vars(item).values() if isinstance(member, np.ndarray))


def _by_timing(what, key, derive):
    """derive(), remembered for this timing: a re-solve after moving or turning footprints (a live drag)
    reuses everything the footprints' positions do not enter. The arrays are made read-only. The oldest
    are forgotten past _TIMING_CACHE_SIZE values or _TIMING_CACHE_BYTES."""
    key = (what, key)
    if key not in _TIMING_CACHE:
        value = derive()
        size = 0
        for array in _arrays(value):
            array.setflags(write=False)
            size += array.nbytes
        _TIMING_CACHE[key] = (value, size)
        total = sum(kept for _value, kept in _TIMING_CACHE.values())
        while len(_TIMING_CACHE) > _TIMING_CACHE_SIZE or (total > _TIMING_CACHE_BYTES and len(_TIMING_CACHE) > 1):
            total -= _TIMING_CACHE.pop(next(iter(_TIMING_CACHE)))[1]  # the oldest (never the one just made)
    return _TIMING_CACHE[key][0]


def clear_timing_cache():
    """Forget everything derived from timings (benchmarks of cold solves start here)."""
    _TIMING_CACHE.clear()
    clear_schedule_cache()


def _liftoffs_inside(schedule):
    """The footprints that lift off inside a segment rather than at a knot, by lift-off time, and their
    segments.

    A walk's trailing foot lifts off during double stance: no knot there (vdP97 §2.3), and between two
    samples, where its leg is longest. Held within l_max at the samples alone, legs reached up to 46 mm
    past it at lift-off on long strides (random auto-timed walks of 0.7-1.15 l_nom: 12-24 of 90); each
    such lift-off gets a sample of its own, for the barrier alone."""
    knots, liftoff = schedule.knot_times, schedule.track.liftoff
    segment = np.searchsorted(knots, liftoff, side="right") - 1
    inside = np.flatnonzero((segment >= 0) & (segment < len(knots) - 1) & (liftoff > knots[np.maximum(segment, 0)]))
    inside = inside[np.argsort(liftoff[inside], kind="stable")]
    return inside, segment[inside]


def liftoff_slots(schedule) -> int:
    """The most lift-offs inside any one segment of the schedule: the extra samples each segment needs."""
    _footprints, segment = _liftoffs_inside(schedule)
    return int(np.bincount(segment).max()) if len(segment) else 0


def _sampling(schedule, per_segment, slots, gravity):
    """The spline layout (of a trajectory falling under gravity across flights), sample times and weights,
    Hermite coefficients, the footprint under each leg."""
    return _by_timing("sampling", (schedule.key, per_segment, slots, tuple(gravity)),
                      lambda: _derive_sampling(schedule, per_segment, slots, gravity))


def _derive_sampling(schedule, per_segment, slots, gravity):
    """Per segment, per_segment + 1 samples for the energy's integral (vdP97 §2.4.3: the same fractions in
    every segment), then `slots` samples at the lift-offs inside it (unused slots weigh nothing).

    Returns the layout; per sample its time, its integral weight dt, its barrier weight (dt, or a regular
    sample's spacing at a lift-off), the Hermite coefficients of p and a; per sample and leg the footprint
    stood on (-1: none) and the footprint the barrier holds the leg to (at a lift-off sample, the one
    the foot is leaving)."""
    lay = layout(schedule, gravity)
    times, _segment, dt, support_times = schedule.sample_times(per_segment)
    active = schedule.active_footprints(support_times)
    n_seg, n_regular = schedule.segments, per_segment + 1
    fraction = np.tile(np.arange(n_regular) / per_segment, n_seg)
    h = np.diff(schedule.knot_times)

    def widened(values, fill):  # (n_seg * n_regular, ...) -> (n_seg * (n_regular + slots), ...)
        values = values.reshape((n_seg, n_regular) + values.shape[1:])
        wide = np.full((n_seg, n_regular + slots) + values.shape[2:], fill, dtype=values.dtype)
        wide[:, :n_regular] = values
        return wide.reshape((-1,) + values.shape[2:])

    # Slot j of a segment holds its j-th lift-off inside; an unused slot sits at the segment's start.
    footprints, segment = _liftoffs_inside(schedule)
    rank = np.arange(len(segment)) - np.searchsorted(segment, segment)  # within its segment (sorted by time)
    column = segment * (n_regular + slots) + n_regular + rank
    times, dt, fraction = widened(times, 0.0), widened(dt, 0.0), widened(fraction, 0.0)
    times[np.arange(len(times)) % (n_regular + slots) >= n_regular] = np.repeat(schedule.knot_times[:-1], slots)
    times[column] = schedule.track.liftoff[footprints]
    fraction[column] = (times[column] - schedule.knot_times[segment]) / h[segment]
    barrier_dt = dt.copy()
    barrier_dt[column] = h[segment] / per_segment  # as much as a sample of the integral
    active = widened(active, -1)
    reaching = active.copy()
    reaching[column, schedule.leg_of_footprint[footprints]] = footprints
    cp, _cv, ca = hermite_basis(fraction, h[np.repeat(np.arange(n_seg), n_regular + slots)])
    return lay, times, dt, barrier_dt, cp, ca, active, reaching


def _forward(headings):
    return np.stack([-np.sin(headings), np.cos(headings), np.zeros_like(headings)], axis=-1)


def _knot_centres(schedule, character):
    """(K, 3): per knot, the mean of the points under the COM that the footprints stood on then imply, or
    where no foot is down (a flight starts, the motion ends) of those just left. A footprint implies the
    point its hip's forward offset behind (or ahead of) it: nothing for a biped, whose hips are beside the
    COM; for a quadruped the hind feet stand 0.4 m behind a dog's COM, and a bound's hind contacts would
    otherwise start the COM there. Sorted searches: a long track costs O((K + F) log F), never K x F."""
    tr, t = schedule.track, schedule.knot_times
    positions = tr.positions - character.hip_offsets[schedule.leg_of_footprint, 1, None] * _forward(tr.headings)
    active = schedule.active_footprints(t)
    on = active >= 0
    centres = (positions[np.maximum(active, 0)] * on[..., None]).sum(axis=1) / np.maximum(on.sum(axis=1), 1)[:, None]
    by_lift = np.argsort(tr.liftoff, kind="stable")
    summed = np.concatenate([np.zeros((1, 3)), np.cumsum(positions[by_lift], axis=0)])
    first = np.searchsorted(tr.liftoff[by_lift], t - 1e-9, side="left")
    stop = np.searchsorted(tr.liftoff[by_lift], t + 1e-9, side="right")
    left = ~on.any(axis=1)  # every knot is a contact, or a lift-off: someone stands, or has just left
    centres[left] = (summed[stop[left]] - summed[first[left]]) / (stop[left] - first[left])[:, None]
    return centres


def samples_last(array):
    """(S, L, 3) -> (3, L, S), (S, L) -> (L, S), contiguous: every operation then runs along the samples."""
    return np.ascontiguousarray(array.T)


def _level(track, character):
    """(F,) footprints level with the one before (within LEVEL_RISE l_nom): a step up or down a stair bends
    the knee as people's do (its comfort is not made firmer)."""
    z = track.positions[:, 2]
    return np.abs(np.diff(z, prepend=z[:1])) <= LEVEL_RISE * character.leg_length_nominal


def heel_limit(character):
    """How far a hip reaches from the back of the heel, the foot's toes turned up until the ankle lies on the line
    between them: thigh + shin and the heel-to-ankle distance, for a character measured from a rig (its legs end
    at the ankle); inf for the presets, whose legs end at mid-foot."""
    if character.ankle_offset is None:
        return np.inf
    return character.ankle_reach + np.hypot(character.ankle_offset[1] + character.heel, character.ankle_offset[2])


def barrier_margins(character, weights):
    """(legs,) metres below each leg's l_max where its barrier starts: Weights.barrier_margin, or for a
    quadruped at most QUADRUPED_MARGIN of the leg's reach past its nominal length: Rigify's wolf, cat and horse
    stand within 1-3 % of their legs' reach (a wolf's front leg has 10 mm to spare, a cat's 4-7 mm), and the
    whole margin held them shorter than they stand."""
    room = character.max_lengths - character.nominal_lengths
    if not character.is_quadruped:
        return np.full(len(room), weights.barrier_margin)
    return np.minimum(weights.barrier_margin, QUADRUPED_MARGIN * room)


def per_leg(values, legs):
    """(legs,) a character's per-leg values, padded with the last to the problem's legs (the padding's
    legs never stand: their values weigh nothing)."""
    return np.concatenate([values, np.full(legs - len(values), values[-1])])


class Problem:
    """A biped's (or any single-mass character's) COM problem. The trajectory has `dim` components, which
    fall under `gravity` across flights; the first `physics_rows` residual rows are the physics, the only
    ones that depend on the acceleration. The quadruped's two-mass body (quadruped/two_mass.py) is the
    same problem with a trajectory of six components and its own residuals."""

    dim = 3  # the COM
    gravity = GRAVITY_VECTOR
    physics_rows = 3
    default_weights = Weights()
    firmer_weights = None  # the weights a solve continues with where a stance leg ends past l_max (None: none)

    def __init__(self, items, weights: Weights | None = None, per_segment: int = SAMPLES_PER_SEGMENT):
        """items: (track, character, terrain or None) triples; weights: by default the model's own."""
        self.weights = weights = self.default_weights if weights is None else weights
        self.per_segment = per_segment
        self.parts = []
        legs = max(len(character.feet) for _track, character, _terrain in items)
        self.legs = legs
        cols = {}
        nf = nsmp = 0
        schedules = [build_schedule(track, character) for track, character, _terrain in items]
        self.slots = max(liftoff_slots(sched) for sched in schedules)  # lift-off samples per segment
        for index, ((_track, character, terrain), sched) in enumerate(zip(items, schedules)):
            tr = sched.track
            lay, times, dt, barrier_dt, cp, ca, active_fp, reaching_fp = _sampling(sched, per_segment, self.slots,
                                                                                   self.gravity)
            if active_fp.shape[1] < legs:
                active_fp, reaching_fp = (np.pad(fp, ((0, 0), (0, legs - fp.shape[1])), constant_values=-1)
                                          for fp in (active_fp, reaching_fp))
            on = active_fp >= 0
            safe = np.maximum(reaching_fp, 0)  # the footprint of each leg that stands or lifts off there
            # Ground under the body without a terrain: the supporting footprints' mean height, interpolated
            # in time across flights.
            z_on = np.where(on, tr.positions[safe][..., 2], 0.0).sum(axis=1) / np.maximum(on.sum(axis=1), 1)
            supported = on.any(axis=1)  # never a lift-off slot (no foot stands there): times in order
            n_free, n_smp = lay.n_free, len(times)
            columns = {"left": lay.left + nf, "right": lay.right + nf, "g_left": lay.g_left, "o_left": lay.o_left,
                       "g_right": lay.g_right, "o_right": lay.o_right, "h": np.diff(sched.knot_times),
                       "times": times, "dt": dt, "barrier_dt": barrier_dt, "cp": cp, "ca": ca, "active": on,
                       "reaching": reaching_fp >= 0, "sample_track": np.full(n_smp, index),
                       "ground": np.interp(times, times[supported], z_on[supported]),
                       "l_nom": np.tile(per_leg(character.nominal_lengths, legs), (n_smp, 1)),
                       "l_max": np.tile(per_leg(character.max_lengths, legs), (n_smp, 1)),
                       "margin": np.tile(per_leg(barrier_margins(character, self.weights), legs), (n_smp, 1)),
                       "clear": np.full(n_smp, character.com_clearance * character.leg_length_nominal)}
            columns.update(self._leg_columns(tr, character, times, safe))
            for key, value in columns.items():
                cols.setdefault(key, []).append(value)
            self.parts.append(TrackPart(sched, lay, character, terrain, slice(nf, nf + n_free),
                                        slice(nsmp, nsmp + n_smp)))
            nf, nsmp = nf + n_free, nsmp + n_smp
        for key, values in cols.items():
            setattr(self, key, np.concatenate(values))
        self.n_free, self.n_tracks = nf, len(items)
        self.samples_per_segment = per_segment + 1 + self.slots
        self.regular = np.arange(len(self.times)) % self.samples_per_segment <= per_segment  # not a lift-off's
        self.active = samples_last(self.active)
        self.reaching = samples_last(self.reaching)  # the legs the barrier holds: in stance, or lifting off
        self.l_nom, self.l_max, self.margin = (samples_last(self.l_nom), samples_last(self.l_max),
                                               samples_last(self.margin))
        self.limit = self.l_max - np.where(self.regular, self.margin, np.minimum(weights.liftoff_margin, self.margin))
        self._residual_constants()
        self.sample_segment = np.repeat(np.arange(len(self.left)), self.samples_per_segment)
        self.free_track = np.concatenate([np.full(p.free.stop - p.free.start, i) for i, p in enumerate(self.parts)])
        self.coupled = self.right != self.left  # segments linking two free states (not a flight)
        timing = self._timing = (tuple(part.schedule.key for part in self.parts), per_segment, self.dim)
        (self.segment_map, self.segment_offset, self.hermite, self.sample_weights, self.pair_weights,
         self.control_scale, self.pair_scale, self.slot_weights, self.slot_pairs) = _by_timing(
            "controls", timing, self._control_maps)
        self.terrain_groups = self._terrain_groups()
        self.end_pairs, self.end_track, self.end_offset = _by_timing("ends", timing, self._end_pairs)
        self._assembly = None

    def _leg_columns(self, track, character, times, footprint):
        """Per sample and leg (S, L, ...), what the residuals need of the footprint each leg stands on or
        leaves (footprint (S, L), any where the leg is in the air): the mid-foot support point, the toe it
        moves to when the foot rises on it, the foot's forward direction, the hip's offset from the COM in
        the world (the body's orientation at that time), and per sample the toe blend's length."""
        legs = footprint.shape[1]
        mid = track.positions[footprint]
        fwd = _forward(track.headings)[footprint]
        offsets = np.zeros((legs, 3))
        offsets[: len(character.feet)] = character.hip_offsets
        hip = orientation.hip_offsets_in_world(*orientation.body_angles(times, track, character), offsets)
        # The heel is a support only for a foot landed on it (a walking step); one landed from a flight or
        # beside another (a hop) comes down flat or on its toes.
        landed_on_heel = (walking_landings(track)[footprint] if character.heel_strike
                          else np.zeros(footprint.shape, dtype=bool))
        heel = character.heel * landed_on_heel[..., None]
        # On its heel the leg reaches no farther than the rig's straight leg from the heel to its ankle allows.
        margins = self.weights.barrier_margin - self.weights.liftoff_margin  # the barrier's, less what it overshoots by
        heel_reach = np.minimum(heel_limit(character) + margins - per_leg(character.max_lengths, legs), 0.0)
        return {"mid": mid, "toe": mid + 0.5 * character.foot_length * fwd, "heel": mid - heel * fwd, "fwd": fwd,
                "hip": hip, "toe_ramp": np.full(len(times), TOE_RAMP * 0.5 * character.foot_length),
                "comfort_scale": np.where(landed_on_heel & _level(track, character)[footprint], STRAIGHT_STANCE, 1.0),
                "heel_reach": np.where(landed_on_heel, heel_reach, 0.0)}

    def _residual_constants(self):
        """Per-sample constants of the residuals, in the shapes evaluate() uses them: samples last, so that
        every operation runs along them: vectors (3, S), per leg (3, L, S) or (L, S); and each residual
        row's weight."""
        weights, legs = self.weights, self.legs
        self.hip_minus_mid = samples_last(self.hip - self.mid)
        self.shift = samples_last(self.toe - self.mid)  # where the support goes when the foot is on its toes
        self.heel_shift = samples_last(self.heel - self.mid)  # ...and on its heel
        self.comfort_scale = np.sqrt(samples_last(self.comfort_scale))
        self.heel_reach = samples_last(self.heel_reach)
        self.hip, self.fwd = samples_last(self.hip), samples_last(self.fwd)
        self.inv_ramp = 1.0 / self.toe_ramp
        self.onset = self.l_max - self.margin - self.toe_ramp
        # Residual rows: physics (3), comfort and barrier per leg, clearance.
        row_weight = np.repeat([weights.physics, weights.comfort, weights.barrier, weights.clearance],
                               [3, legs, legs, 1])
        barrier_rows = np.repeat([False, False, True, False], [3, legs, legs, 1])
        self.root_weight = np.sqrt(row_weight[:, None] * np.where(barrier_rows[:, None], self.barrier_dt, self.dt))
        self.standing = physics.standing_faces(self.active)

    @property
    def assembly(self):
        """The assembly of all free states: it depends on the timing alone, so a re-solve after moving
        footprints reuses it (a 300-step track's takes 4 ms to build), and a windowed one never builds it."""
        if self._assembly is None:
            self._assembly = self.assembly_for(0, self.n_free)
        return self._assembly

    def _end_pairs(self):
        """(E, 2) free states whose velocities the steady-ends term ties, the track of each pair, and a
        constant (E, D) added to their difference: each track's first two knots and last two, where a
        segment joins them (not a flight). A stride on, the same event: the first contact against the next
        landing, which across a flight is the take-off's velocity plus g times its duration (the constant);
        the last lift-off against the previous knot, which next to a flight is its take-off."""
        segment_track = self.sample_track[::self.samples_per_segment]
        tracks = np.arange(self.n_tracks)
        first = np.searchsorted(segment_track, tracks)
        last = np.searchsorted(segment_track, tracks, side="right") - 1
        is_first, is_last = np.zeros((2, len(segment_track)), dtype=bool)
        is_first[first], is_last[last] = True, True
        ends = np.flatnonzero((is_first | is_last) & self.coupled)  # one segment when a track has only one
        offset = np.zeros((len(ends), self.dim))
        following = np.minimum(ends + 1, len(self.h) - 1)
        takes_off = (is_first[ends] & ~is_last[ends] & ~self.coupled[following]
                     & (segment_track[following] == segment_track[ends]))
        offset[takes_off] = self.gravity * self.h[following[takes_off], None]
        return np.stack([self.left[ends], self.right[ends]], axis=1), segment_track[ends], offset

    def _control_maps(self):
        """The linear maps from free states to samples, which depend on timing alone.

        Per segment, its Hermite controls [P0, V0, P1, V1] = segment_map @ [left free state; right free
        state] + segment_offset (not the identity next to a flight). Per sample, [p; a] = hermite (2, 4) @
        controls (4, D), the Hermite coefficients cp and ca, in segment order, so a segment's samples are
        consecutive rows.

        Every segment has its samples at the same fractions of its duration h, so its coefficients are
        fixed weights (sample_weights (2, per, 4), those of h = 1) times a scale per control
        (control_scale (2, n_seg, 4): 1, h, 1, h for p; 1/h^2, 1/h, 1/h^2, 1/h for a). pair_weights
        (2, 2, per, 16) and pair_scale (2, 2, n_seg, 4, 4) are their products for two controls k, l. The
        lift-off samples after them (only the barrier, only p) have their own: slot_weights (n_seg, slots,
        4), the coefficients of p, and slot_pairs (n_seg, slots, 16) their products.
        """
        # Across a flight both ends derive from the same free state: its columns move to the left half and
        # the right half is zero, so the flight's contributions land on one diagonal block.
        n_seg, per, state = len(self.left), self.per_segment + 1, 2 * self.dim
        g_both = np.zeros((n_seg, 2 * state, 2 * state))
        g_both[:, :state, :state] = self.g_left
        g_both[:, state:, state:] = self.g_right
        flight = ~self.coupled
        g_both[flight, state:, :state] = self.g_right[flight]
        g_both[flight, state:, state:] = 0.0
        offset = np.concatenate([self.o_left, self.o_right], axis=1)
        hermite = np.stack([self.cp, self.ca], axis=1)  # (S, 2, 4)
        cp, _cv, ca = hermite_basis(np.arange(per) / (per - 1), 1.0)
        weights = np.stack([cp, ca])  # (2, per, 4)
        h = self.h[:, None]
        one = np.ones_like(h)
        scale = np.stack([np.hstack([one, h, one, h]), np.hstack([h ** -2, 1.0 / h, h ** -2, 1.0 / h])])
        pair_weights = (weights[:, None, :, :, None] * weights[None, :, :, None, :]).reshape(2, 2, per, 16)
        pair_scale = scale[:, None, :, :, None] * scale[None, :, :, None, :]
        slot_weights = hermite[:, 0].reshape(n_seg, -1, 4)[:, per:]
        slot_pairs = (slot_weights[..., :, None] * slot_weights[..., None, :]).reshape(n_seg, self.slots, 16)
        return g_both, offset, hermite, weights, pair_weights, scale, pair_scale, slot_weights, slot_pairs

    def sample_basis(self):
        """The dense map per sample: [p; a] (2D) = basis (2D, 4D) @ [free state pair[0]; free state pair[1]] +
        offset, with pair (S, 2). For checks and for other optimisers; linearize() works per segment."""
        seg = self.sample_segment
        hermite = np.kron(self.hermite, np.eye(self.dim)[None])  # (S, 2D, 4D)
        pair = np.stack([self.left[seg], self.right[seg]], axis=1)
        return hermite @ self.segment_map[seg], np.einsum("sij,sj->si", hermite, self.segment_offset[seg]), pair

    def assembly_for(self, first, stop):
        """How to linearise for the free states [first, stop) with the others held (assembly.py); built once
        per timing (a drag moves the same footprints again and again: the same window)."""
        return _by_timing("assembly", (self._timing, self.weights.ends, first, stop),
                          lambda: (assembly.build(self, first, stop),))[0]

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
        """vdP97 §2.4.3, Fig. 9: each knot above its footprints at nominal leg height, zero tangents (a heel-to-toe
        walker's: the pace from knot to knot)."""
        free = np.zeros((self.n_free, 2 * self.dim))
        for part in self.parts:
            sched, char = part.schedule, part.character
            states = np.zeros((len(sched.knot_times), 2 * self.dim))
            states[:, :self.dim] = self._initial_positions(sched, char)
            if knots_at_liftoffs(char) and len(sched.knot_times) > 1:
                # Knots a double support apart: zero tangents would start the COM halting at every one (LM took
                # 34 iterations on Fig. 1 from there, 22 from the knots' own pace).
                states[:, self.dim:] = np.gradient(states[:, :self.dim], sched.knot_times, axis=0)
            keep = np.concatenate([[True], ~sched.flight])  # knots that are free states
            free[part.free] = states[keep]
        return free

    def _initial_positions(self, schedule, character):
        """(K, D) each knot's starting position: the COM at nominal leg height above its footprints."""
        height = character.leg_length_nominal - character.hip_offsets[:, 2].mean()
        return _knot_centres(schedule, character) + [0.0, 0.0, height]

    def body_pose(self, part, positions, accelerations, yaw, pitch, roll):
        """Per time, from the trajectory's positions and accelerations (n, D) and the body's angles: the COM
        (n, 3), the body's pitch, the hips (n, L, 3), and the body's mass points and their accelerations
        (n, P, 3): none for a single mass (a quadruped's are its hind and fore masses)."""
        hips = positions[:, None] + orientation.hip_offsets_in_world(yaw, pitch, roll, part.character.hip_offsets)
        none = np.zeros((len(positions), 0, 3))
        return positions, pitch, hips, none, none

    def controls(self, free, segments=slice(None)):
        """The Hermite controls [P0, V0, P1, V1] (n, 4, D) of the segments from the free states (n_free, 2D)."""
        states = np.concatenate([free[self.left[segments]], free[self.right[segments]]], axis=1)
        controls = (self.segment_map[segments] @ states[..., None])[..., 0] + self.segment_offset[segments]
        return controls.reshape(-1, 4, self.dim)

    def sample_states(self, free, rows=None):
        """Positions and accelerations (S, D) at the samples (or the given sample rows)."""
        if rows is None:
            p, a = self._states_of(free, slice(None), slice(None))
            return p.T, a.T
        # Only the rows' segments: the greedy descent asks for a few.
        y = self.hermite[rows] @ self.controls(free, self.sample_segment[rows])
        return y[:, 0], y[:, 1]

    # --- residuals ------------------------------------------------------------------------------

    def _rows(self, name, rows):
        values = getattr(self, name)
        return values if rows is None else values[..., rows]

    def ground_under(self, p, rows=None):
        """Terrain height (S,) and its slope (2, S) under points p (3, S): the COM, or a mass point."""
        ground = self._rows("ground", rows)
        slope = np.zeros((2, p.shape[1]))
        if self.terrain_groups:
            ground = ground.copy()
        if isinstance(rows, slice):
            rows = np.arange(len(self.times))[rows]
        for terrain, group_rows in self.terrain_groups:
            mask = group_rows if rows is None else np.isin(rows, group_rows)
            where = p[:2, mask].T
            ground[mask] = terrain.heights(where)
            slope[:, mask] = terrain.gradient(where).T
        return ground, slope

    def residuals(self, p, a, rows=None, jacobian=False):
        """Weighted residuals (S, R) at positions and accelerations (S, D) of sample rows; with jacobian,
        also their derivatives in p and a, (S, R, D) each, analytic. (evaluate() with the samples first.)"""
        if not jacobian:
            return self.evaluate(p.T, a.T, rows).T
        r, dp, da_physics = self.evaluate(p.T, a.T, rows, jacobian=True)
        da = np.zeros_like(dp)
        da[:self.physics_rows] = da_physics
        return r.T, np.moveaxis(dp, -1, 0), np.moveaxis(da, -1, 0)

    def evaluate(self, p, a, rows=None, jacobian=False):
        """Weighted residuals (R, S) at COM positions and accelerations p, a (3, S); with jacobian also,
        analytic, d r / d p (R, 3, S) and d r / d a of the physics rows (3, 3, S): the other rows do not
        depend on a. Samples come last throughout, so every operation runs along them.

        The point of support moves from mid-foot to the toe as the leg nears full extension with the hip
        ahead of the foot (vdP97 §2.4.1). The move is blended over a distance in proportion to the shift
        itself (TOE_RAMP of half a foot) so the energy stays smooth: a hard switch, or a blend much shorter
        than the shift, leaves the optimiser crawling along a crease.
        """
        active, fwd = self._rows("active", rows), self._rows("fwd", rows)
        comfort_scale = self._rows("comfort_scale", rows)
        inv_ramp, root_weight = self._rows("inv_ramp", rows), self._rows("root_weight", rows)
        hip_from_mid = p[:, None] + self._rows("hip_minus_mid", rows)  # (3, L, S)
        reach = np.sqrt(np.add.reduce(hip_from_mid * hip_from_mid, 0))  # (L, S)
        # The blend's inputs (2, L, S), over the ramp's length, clipped to [0, 1]: how far the leg is into
        # the last ramp of its reach, how far the hip is ahead of the foot (toe) or behind it (heel, a foot
        # landed on it: vdP97 §2.4.1's toe support mirrored); smoothstepped, their product is the support's
        # weight on the toe or the heel.
        ahead = np.add.reduce(hip_from_mid * fwd, 0)
        side = np.sign(ahead)
        on_toe = ahead > 0.0
        shift = np.where(on_toe, self._rows("shift", rows), self._rows("heel_shift", rows))
        x = _unit_interval(np.stack([reach - self._rows("onset", rows), np.abs(ahead)]) * inv_ramp)
        smooth = x * x * (3.0 - 2.0 * x)
        leg = hip_from_mid - (smooth[0] * smooth[1]) * shift  # hip - support
        to_com = leg - self._rows("hip", rows)  # p - support
        distance = np.maximum(np.sqrt(np.add.reduce(to_com * to_com, 0)), 1e-9)
        directions = to_com / distance
        physical = physics.project(a - GRAVITY_VECTOR[:, None], directions, self._rows("standing", rows), jacobian)
        phys = physical[0] if jacobian else physical
        length = np.sqrt(np.add.reduce(leg * leg, 0))
        # A leg on its heel: its limit shorter by as much as the heel's weight (heel_limit).
        shorter = np.where(on_toe, 0.0, self._rows("heel_reach", rows))
        stretch = length - self._rows("limit", rows) - (smooth[0] * smooth[1]) * shorter
        over = self._rows("reaching", rows) & (stretch > 0.0)
        ground, slope = self.ground_under(p, rows)
        lack = ground + self._rows("clear", rows) - p[2]
        low = lack > 0.0
        r = np.concatenate([phys, (length - self._rows("l_nom", rows)) * (active * comfort_scale), stretch * over,
                            (lack * low)[None]], axis=0)
        r *= root_weight
        if not jacobian:
            return r
        _phys, lam, b, complement = physical
        # d support / d p = shift dw^T: the toe blend's weight moves with the hip. Per input, its
        # smoothstep's slope times the other's value.
        rate = 6.0 * x * (1.0 - x) * smooth[::-1] * inv_ramp
        dw = rate[0] / np.maximum(reach, 1e-9) * hip_from_mid + (rate[1] * side) * fwd
        # d r / d p = sum_l d r / d D_l (I - shift_l dw_l^T), D_l = p - support_l, d r / d D_l from physics.py
        inv_d = 1.0 / distance
        lam_d = lam * inv_d
        shift_m = np.add.reduce(shift[:, None] * complement[:, :, None], 0)  # (3, L, S): shift_l^T M
        v = -(lam_d * shift_m + (np.add.reduce(phys[:, None] * shift, 0) * inv_d) * b)
        beta = np.add.reduce(inv_d * b, 1)
        dphys_dp = (-np.add.reduce(lam_d, 0) * complement - beta[:, None] * phys[None]
                    - np.add.reduce(v[:, None] * dw[None], 2))
        unit_leg = leg / np.maximum(length, 1e-9)
        d_length = unit_leg - np.add.reduce(unit_leg * shift, 0) * dw  # (3, L, S)
        ground_row = np.concatenate([slope, -np.ones((1, len(low)))]) * low
        dp = np.concatenate([dphys_dp, (d_length * (active * comfort_scale)).swapaxes(0, 1),
                             ((d_length - shorter * dw) * over).swapaxes(0, 1),
                             ground_row[None]], axis=0)
        dp *= root_weight[:, None]
        return r, dp, complement * root_weight[0]

    def row_groups(self):
        """The residual rows of each energy term: physics, comfort and barrier per leg, clearance."""
        legs, physical = self.legs, self.physics_rows
        return {"physics": slice(0, physical), "comfort": slice(physical, physical + legs),
                "barrier": slice(physical + legs, physical + 2 * legs), "clearance": slice(physical + 2 * legs, None)}

    def energy_terms(self, free):
        """Per track: total energy, and its physics / comfort / barrier / clearance / ends parts."""
        r = self.evaluate(*self._states_of(free, slice(None), slice(None)))
        out = {k: np.bincount(self.sample_track, (r[rows] ** 2).sum(axis=0), self.n_tracks)
               for k, rows in self.row_groups().items()}
        out["ends"] = np.bincount(self.end_track, (self.end_residuals(free) ** 2).sum(axis=1), self.n_tracks)
        out["total"] = sum(out.values())
        return out


    # --- Gauss-Newton normal equations --------------------------------------------------------

    def linearize(self, free, assembly=None):
        """Residual energies per track and the block-tridiagonal normal equations J^T J, J^T r per free
        state (of the assembly's segments and states: by default all of them).

        Each sample's residual depends on its COM position and acceleration only, and those are fixed
        Hermite combinations of its segment's controls: the analytic derivatives carry over exactly. Per
        sample, J^T J and J^T r in its own position and acceleration; summed onto the segment's controls
        with the Hermite weights, which are the same for every segment up to a scale per control, in one
        product for all segments; the controls are the segment's two free states (or a fixed map of them,
        next to a flight), where the assembly's scatter map puts each product (assembly.py).
        """
        a = self.assembly if assembly is None else assembly
        rows = None if assembly is None else a.samples  # (a window's: reading self.assembly would build it)
        r, dp, da = self.evaluate(*self._states_of(free, a.segments, a.samples), rows, jacobian=True)
        # Per sample, J^T J in its own [p, a] (blocks (u, v)) and J^T r: only the physics rows depend on a.
        n, dim, physical = r.shape[1], self.dim, self.physics_rows
        # Batched per sample (samples first: matmul over the residual rows is several times quicker than a
        # broadcast product summed), then samples last again for the sums over segments below.
        jp, ja = (np.ascontiguousarray(j.transpose(2, 0, 1)) for j in (dp, da))  # (S, R, D), (S, P, D)
        jp_t, ja_t = jp.transpose(0, 2, 1), ja.transpose(0, 2, 1)
        blocks = np.empty((2, 2, dim, dim, n))
        blocks[0, 0] = (jp_t @ jp).transpose(1, 2, 0)
        blocks[0, 1] = (jp_t[..., :physical] @ ja).transpose(1, 2, 0)
        blocks[1, 0] = blocks[0, 1].swapaxes(0, 1)
        blocks[1, 1] = (ja_t @ ja).transpose(1, 2, 0)
        gradient = np.empty((2, dim, n))
        gradient[0] = (jp_t @ r.T[..., None])[..., 0].T
        gradient[1] = (ja_t @ r[:physical].T[..., None])[..., 0].T
        # Onto each segment's controls: control k moves sample i's p by cp_k and its a by ca_k, fixed weights
        # times the segment's scale, so each sum over a segment's samples is one product for all segments.
        per, seg, n_seg = self.samples_per_segment, a.segments, a.segments.stop - a.segments.start
        n_regular = self.per_segment + 1
        jtj = (blocks.reshape(2, 2, dim * dim * n_seg, per)[..., :n_regular] @ self.pair_weights).reshape(
            2, 2, dim, dim, n_seg, 4, 4)
        jtj = np.einsum("abijskl,abskl->ijskl", jtj, self.pair_scale[:, :, seg])  # (x, y, segment, k, l)
        jtr = (gradient.reshape(2, dim * n_seg, per)[..., :n_regular] @ self.sample_weights).reshape(2, dim, n_seg, 4)
        jtr = np.einsum("aisk,ask->isk", jtr, self.control_scale[:, seg])  # (x, segment, k)
        if self.slots:  # the lift-off samples: only their barrier rows weigh, and those depend on p alone
            lifting = blocks[0, 0].reshape(dim * dim, n_seg, 1, per)[..., n_regular:]
            jtj += (lifting @ self.slot_pairs[seg]).reshape(dim, dim, n_seg, 4, 4)
            jtr += (gradient[0].reshape(dim, n_seg, 1, per)[..., n_regular:] @ self.slot_weights[seg]).reshape(
                dim, n_seg, 4)
        r_end = self.end_residuals(free, a.end_pair_rows)
        return a.assemble(np.concatenate([jtj.ravel(), jtr.ravel(), r_end.ravel()]), np.add.reduce(r * r, 0), r_end)

    def energies(self, free, assembly=None):
        """Per track, the energy linearize() gives (over the assembly's samples and steady-ends pairs), alone:
        the optimiser tries shorter steps with it."""
        a = self.assembly if assembly is None else assembly
        r = self.evaluate(*self._states_of(free, a.segments, a.samples), None if assembly is None else a.samples)
        return a.energies(np.add.reduce(r * r, 0), self.end_residuals(free, a.end_pair_rows))

    def _states_of(self, free, segments, samples):
        """Positions and accelerations (D, S) at the samples (a slice) of the segments (a slice)."""
        controls = self.controls(free, segments)
        y = (self.hermite[samples].reshape(len(controls), -1, 4) @ controls).reshape(-1, 2, self.dim)
        return np.ascontiguousarray(y[:, 0].T), np.ascontiguousarray(y[:, 1].T)

    def end_residuals(self, free, pairs=slice(None)):
        """The steady-ends residuals (E, D) of the end pairs: sqrt(k_e) (V_hi + offset - V_lo)."""
        lo, hi = self.end_pairs[pairs].T
        dim = self.dim
        return np.sqrt(self.weights.ends) * (free[hi, dim:] + self.end_offset[pairs] - free[lo, dim:])

    def end_jacobian(self):
        """The steady-ends residuals' Jacobian, dense (D E, 2D n_free), for checks and other optimisers."""
        dim = self.dim
        jac = np.zeros((len(self.end_pairs), dim, self.n_free, 2 * dim))
        rows = np.arange(len(self.end_pairs))
        for column, sign in enumerate((-1.0, 1.0)):
            jac[rows, :, self.end_pairs[:, column], dim:] += sign * np.sqrt(self.weights.ends) * np.eye(dim)
        return jac.reshape(dim * len(rows), 2 * dim * self.n_free)


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

    def energies(self, movable):
        return self.problem.energies(self.full(movable), self.assembly)
