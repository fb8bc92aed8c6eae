"""Stepping from one stance to another (issue 19, item 2): the fewest steps that keep the legs within reach.

A search over foot placements, a step at a time (a beam search: the BEAM most promising stances after each
number of steps, vectorised over the candidates): the feet alternate; each step puts its foot, turned up to
MAX_SWING_TURN from the standing foot's heading, at its relaxed place beside the standing foot or on rings
about that place out to the largest stretch (the disk a stance may use, its rim the longest steps in every
direction), or straight toward its own target (part of the way, or onto it). A candidate must leave a stance
the legs reach at standing height (its stretch, the feet's distance from their relaxed places either side of
the centre, within STRIDE_SHARE of twice a leg's reach in plan: the hips sink for the rest while the COM
moves, height.py), soles apart, legs not crossed, the feet splayed at most MAX_SPLAY; and its swing must pass
the standing leg (its sole out of the standing ankle's column, the ankles a foot's width apart). A step that
turns the facing by more than PIVOT_FACING (or would splay the feet more than MAX_SPLAY) pivots the support
foot about its ball toward the swing foot's new heading, or its own target's (WMZ §6: "we do allow the support
foot to rotate"), at most MAX_PIVOT_PER_STEP, and the foot's next footprint is where the pivot left it: turning on
the spot takes pivot steps. The first stance with both feet on their targets ends the search: no fewer steps
reach it among the stances kept (the beam is a heuristic: 2.5 m away in any of eight directions, turned 120
degrees either way, it takes at most one step more than the reach allows). Of equally short ways, the one
whose first foot leads (stance.leading_foot: toward the target, or turning on the spot, into the turn) wins,
then the one that turns the feet least; the beam keeps first the stances with the fewest steps estimated to be
left, each radian the feet have turned on the way counting TURN_COST of a step.

Timing: each swing from the distance its foot moves (vdP97's automatic timing, layout.swing_time), or half the
given step duration; each step's push-off and landing take half its swing (com.py), the COM resting between.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import NonFiniteError, RangeError, SteppingError, TimingError
from ..track import MAX_SECONDS
from .feet import ball_offset
from .layout import PlannedStep, joined, stepping_track, swing_time
from .push import recover_from_push
from .stance import (SOLE_GAP, Stance, forward, hip_height, leading_foot, mean_heading, point_to_rectangle,
                     reach_in_plan, require_biped, right, sole_corners, soles_apart, stance_width, wrap)

STRIDE_SHARE = 1.0  # of the legs' reach at standing height that a planned stance uses
PIVOT_FACING = math.radians(30.0)  # a step turning the facing more than this pivots the support foot
MAX_SWING_TURN = math.radians(90.0)  # the most a swinging foot turns
MAX_PIVOT_PER_STEP = math.radians(60.0)  # the most the planner pivots a support foot in one step (a track
# may turn one as far as steps.MAX_PIVOT_TURN)
MAX_SPLAY = math.radians(45.0)  # the most the feet's headings differ after a step
ANKLE_COLUMN = 0.3  # foot widths: the radius about a standing foot's support point a swinging sole keeps out of
SWEEP = np.linspace(0.0, 1.0, 9)[1:-1]  # the fractions of a swing where it is checked against the standing leg
STRETCH_RINGS = np.array([1.0, 2.0, 3.0]) / 3.0  # of the largest stretch: the rings about a foot's relaxed place
RING_DIRECTIONS = np.radians(np.arange(0.0, 360.0, 22.5))  # on each ring, from straight out from the standing foot
TURNS = np.radians(np.linspace(-90.0, 90.0, 9))  # the placed foot's headings, relative to the support foot's
TOWARD = np.linspace(0.1, 1.0, 10)  # fractions of the way to its target a foot may step straight toward it
BEAM = 32  # stances kept after each number of steps
TURN_COST = 0.05  # steps per radian the feet have turned, in the beam's estimate: of ways as short, the straighter
DISTINCT = (0.1, math.radians(30.0))  # metres and radians: stances closer than this are one to the beam
MAX_STEPS = 64


def stance_stretch(positions, headings, character):
    """How far the feet stand from their relaxed places either side of the centre (plan, metres): |R - L - w x|
    with x the stance's right; a standing body reaches a stretch up to twice one leg's reach in plan.
    positions (..., 2, 3), headings (..., 2)."""
    facing = mean_heading(headings)
    relaxed = stance_width(character) * right(facing)
    return np.linalg.norm(positions[..., 1, :2] - positions[..., 0, :2] - relaxed, axis=-1)


def largest_stretch(character) -> float:
    """The stretch a planned stance may have: twice one leg's reach in plan at standing hip height, times
    STRIDE_SHARE."""
    return 2.0 * STRIDE_SHARE * reach_in_plan(character, hip_height(character))


def step_to_stance(character, start: Stance, target: Stance, start_time: float = 0.0,
                   step_duration: float | None = None, com_velocity=None, terrain=None):
    """The stepping track (marked "motion": "stepping") from standing at `start` to standing at `target`: the
    starting stance's footprints from start_time, then the fewest steps the legs' reach allows (module doc).

    com_velocity (vx, vy) m/s: the body is moving at the start (a push): the steps the capture point asks for
    catch it first (push.recover_from_push), then the plan goes on from where they leave the feet.
    terrain (its heights(xy)): the steps' footprints stand on it (the starting stance's are as given)."""
    require_biped(character)
    start.check(character, "start stance")
    target.check(character, "target stance")
    if not math.isfinite(start_time):
        raise NonFiniteError(f"start time {start_time} is not a finite number")
    if abs(start_time) > MAX_SECONDS:
        raise RangeError(f"start time {start_time:.4g} s is beyond the limit of {MAX_SECONDS:.0e} s")
    if step_duration is not None and not (math.isfinite(step_duration) and step_duration > 0.0):
        raise TimingError(f"step duration must be a positive number of seconds, not {step_duration}")
    limit = largest_stretch(character)
    for what, stance in (("start stance", start), ("target stance", target)):
        stretch = float(stance_stretch(stance.positions, stance.headings, character))
        if stretch > limit:
            raise SteppingError(f"{what}: the feet stand {stretch:.2f} m from their relaxed places, more than the "
                                f"legs reach standing ({limit:.2f} m)")
    if com_velocity is not None and np.any(np.asarray(com_velocity, dtype=float) != 0.0):  # (NaN too: refused there)
        caught = recover_from_push(character, start, com_velocity, start_time, terrain)
        onward = step_to_stance(character, Stance.at_end(caught), target, float(caught.liftoff.max()), step_duration,
                                terrain=terrain)
        return joined(caught, onward)
    moves = _fewest_steps(character, start, target, limit)
    return timed(character, start, moves, start_time, step_duration, terrain)


class _Beam:
    """Stances after some number of steps: feet positions (B, 2, 3) and headings (B, 2), the foot to step
    next (B,), the first foot (B,), how far the feet have turned on the way (B,: radians, both feet's swings
    and pivots), and how each was reached (the index of its parent in the previous beam and the step taken:
    foot, position (3), heading, the support's pivot position (3, NaN without a pivot) and heading)."""

    def __init__(self, positions, headings, next_foot, first, turned, parent, steps):
        self.positions, self.headings, self.next_foot, self.first = positions, headings, next_foot, first
        self.turned, self.parent, self.steps = turned, parent, steps

    def take(self, rows):
        return _Beam(self.positions[rows], self.headings[rows], self.next_foot[rows], self.first[rows],
                     self.turned[rows], self.parent[rows], self.steps[rows])


def _fewest_steps(character, start: Stance, target: Stance, limit):
    """[(foot, position, heading, pivot (position, heading) or None)] of the fewest steps (module doc)."""
    if _at_target(start.positions[None], start.headings[None], target)[0]:
        return []
    lead = leading_foot(start, target)
    beam = _Beam(np.repeat(start.positions[None], 2, axis=0), np.repeat(start.headings[None], 2, axis=0),
                 np.array([lead, 1 - lead]), np.array([lead, 1 - lead]), np.zeros(2), np.full(2, -1),
                 np.zeros((2, 9)))
    history = []
    for _depth in range(MAX_STEPS):
        children = _children(character, beam, target, limit, start.centre)
        if not len(children.next_foot):
            break
        history.append(children)
        done = np.flatnonzero(_at_target(children.positions, children.headings, target))
        if done.size:  # the leading first foot, then the least turning
            best = done[np.lexsort((children.turned[done], children.first[done] != lead))[0]]
            return _path(history, best)
        beam = children.take(_best(children, target, limit, lead))
        history[-1] = beam  # the next stances' parents index the kept ones
    raise SteppingError(f"no way from the start stance to the target stance within {MAX_STEPS} steps")


def _children(character, beam, target, limit, start_centre):
    """Every stance one step from the beam's (candidates that keep the limits), as a _Beam whose parents index
    the given one."""
    parts = []
    for b in range(len(beam.next_foot)):  # the beam's stances: a handful
        parts.append(_steps_from(character, beam.positions[b], beam.headings[b], int(beam.next_foot[b]), target,
                                 limit, b, int(beam.first[b]), float(beam.turned[b]), start_centre))
    parts = [p for p in parts if len(p.next_foot)]
    if not parts:
        return _Beam(np.zeros((0, 2, 3)), np.zeros((0, 2)), np.zeros(0, int), np.zeros(0, int), np.zeros(0),
                     np.zeros(0, int), np.zeros((0, 9)))
    return _Beam(*(np.concatenate([getattr(p, name) for p in parts]) for name in
                   ("positions", "headings", "next_foot", "first", "turned", "parent", "steps")))


def _heights_along(start, end, plan):
    """(C,): heights for places in plan (C, 2): the two stances' centres' heights, interpolated along the line
    between them (the planner knows no terrain: the caller puts the footprints on it)."""
    line = (end - start)[:2]
    length = float(line @ line)
    fraction = np.clip((plan - start[:2]) @ line / length, 0.0, 1.0) if length > 0.0 else np.zeros(len(plan))
    return start[2] + fraction * (end[2] - start[2])


def _steps_from(character, positions, headings, foot, target, limit, parent, first, turned, start_centre):
    """The stances one step of `foot` from (positions (2, 3), headings (2,)): its relaxed place beside the
    support foot and the rings about it, and the way to the foot's own target, those that keep the limits."""
    other = 1 - foot
    side = 1.0 if foot == 1 else -1.0
    h_s = headings[other]
    # The stretch is measured from the relaxed place: rings about it reach the limit in every direction (a grid
    # about the support foot reaches it straight behind only where a turn shifts the relaxed place, and a way
    # straight back, turning at its end, needs those longest steps to take no more than a step over the fewest).
    radius, direction = (a.ravel() for a in np.meshgrid(STRETCH_RINGS * limit, RING_DIRECTIONS, indexing="ij"))
    offsets = np.concatenate([np.zeros((1, 2)), np.column_stack([radius * np.cos(direction),
                                                                 radius * np.sin(direction)])])  # out, ahead
    place, turn = (a.ravel() for a in np.meshgrid(np.arange(len(offsets)), TURNS, indexing="ij"))
    new_facing = h_s + 0.5 * turn  # the stance's after the step, where it does not pivot
    out = side * (stance_width(character) + offsets[place, 0])
    plan = positions[other, :2] + out[:, None] * right(new_facing) + offsets[place, 1:] * forward(new_facing)
    heights = _heights_along(start_centre, target.centre, plan)
    toward = TOWARD[:, None]  # and straight toward its target, turning on the way, up to it
    new_pos = np.concatenate([np.column_stack([plan, heights]),
                              positions[foot] + toward * (target.positions[foot] - positions[foot])])
    new_head = np.concatenate([h_s + turn, headings[foot] + TOWARD * wrap(target.headings[foot] - headings[foot])])
    # Each twice: where the step pivots the support foot, toward the swing foot's heading or its own target's.
    new_pos, new_head = np.concatenate([new_pos, new_pos]), np.concatenate([new_head, new_head])
    count = len(new_pos)
    stance_pos = np.repeat(positions[None], count, axis=0)
    stance_head = np.repeat(headings[None], count, axis=0)
    stance_pos[:, foot], stance_head[:, foot] = new_pos, new_head
    before = mean_heading(headings)
    pivots = (np.abs(wrap(mean_heading(stance_head) - before)) > PIVOT_FACING) | (
        np.abs(wrap(stance_head[:, 1] - stance_head[:, 0])) > MAX_SPLAY)
    wanted = np.where(np.arange(count) < count // 2, new_head, target.headings[other])
    pivot_turn = np.where(pivots, np.clip(wrap(wanted - h_s), -MAX_PIVOT_PER_STEP, MAX_PIVOT_PER_STEP), 0.0)
    pivots &= np.abs(pivot_turn) > 1e-9
    pivot_pos, pivot_head = pivoted(character, positions[other], h_s, pivot_turn)
    stance_pos[:, other], stance_head[:, other] = pivot_pos, pivot_head
    facing = mean_heading(stance_head)
    # A step that does not pivot, or pivots its support as far toward either heading, is one stance twice.
    distinct = np.concatenate([np.ones(count // 2, bool), pivot_turn[count // 2:] != pivot_turn[:count // 2]])
    ok = (distinct & (np.abs(wrap(new_head - headings[foot])) <= MAX_SWING_TURN)
          & (np.abs(wrap(stance_head[:, 1] - stance_head[:, 0])) <= MAX_SPLAY)
          & (stance_stretch(stance_pos, stance_head, character) <= limit)
          & (np.einsum("cd,cd->c", stance_pos[:, 1, :2] - stance_pos[:, 0, :2], right(facing)) > 0.0))
    rows = np.flatnonzero(ok)  # the cheap limits first, then the soles' geometry for those left
    rows = rows[soles_apart(stance_pos[rows], stance_head[rows], character, SOLE_GAP)]
    rows = rows[_swing_clear(character, positions[foot], headings[foot], new_pos[rows], new_head[rows],
                             positions[other])]
    steps = np.column_stack([np.full(len(rows), foot), new_pos[rows], new_head[rows],
                             np.where(pivots[rows, None], pivot_pos[rows], np.nan), pivot_head[rows]])
    turned = turned + np.abs(wrap(stance_head[rows] - headings)).sum(axis=1)
    return _Beam(stance_pos[rows], stance_head[rows], np.full(len(rows), other), np.full(len(rows), first), turned,
                 np.full(len(rows), parent), steps)


def _swing_clear(character, leave, leave_heading, land, land_heading, support):
    """(C,) whether each swing from (leave, leave_heading) to (land (C, 3), land_heading (C,)), carried along its
    straight line and turning as it goes (feet.py), passes the standing leg: its sole out of the standing
    ankle's column (ANKLE_COLUMN foot widths about the support point) and its own ankle a foot's width from
    that one (the shins), all the way; lifted, it may pass over the standing foot's toes or heel."""
    turn = wrap(land_heading - leave_heading)
    s = SWEEP[:, None]
    middles = leave[:2] + s[..., None] * (land[None, :, :2] - leave[:2])  # (K, C, 2)
    ankle = support[:2]
    column = ANKLE_COLUMN * character.foot_width
    distance = np.linalg.norm(middles - ankle, axis=-1)
    blocked = distance < character.foot_width
    # A sole reaches no farther from its middle than its half-diagonal: only nearer ones need the rectangle.
    near = np.flatnonzero((~blocked & (distance < column + np.hypot(max(character.heel, character.toe),
                                                                  0.5 * character.foot_width))).reshape(-1))
    if near.size:
        headings = np.broadcast_to(leave_heading + s * turn, distance.shape).reshape(-1)[near]
        soles = sole_corners(middles.reshape(-1, 2)[near], headings, character)
        blocked.reshape(-1)[near] = point_to_rectangle(np.broadcast_to(ankle, (near.size, 2)), soles) < column
    return ~blocked.any(axis=0)


def pivoted(character, position, heading, turn):
    """(positions (C, 3), headings (C,)) of a foot turned by `turn` (C,) about its ball on the ground."""
    half = ball_offset(character)
    ball = position[:2] + half * forward(heading)
    new_heading = heading + turn
    plan = ball - half * forward(new_heading)
    return np.column_stack([plan, np.full(len(turn), position[2])]), new_heading


def _at_target(positions, headings, target, tolerance=1e-6):
    """(B,) whether both feet stand on their targets."""
    return ((np.linalg.norm(positions - target.positions, axis=-1) < tolerance).all(axis=-1)
            & (np.abs(wrap(headings - target.headings)) < tolerance).all(axis=-1))


def _best(children, target, limit, lead):
    """The BEAM children to keep, one per distinct stance: fewest steps still needed by an estimate (each foot's
    way to its target, its distance over the farthest a foot moves in a step or its turn over the most it
    turns, the feet alternating) plus TURN_COST for each radian the feet have turned, then the leading first
    foot."""
    reach = 2.0 * limit  # the farthest a foot moves in a step: from a stretch behind to one ahead
    distance = np.linalg.norm(children.positions[..., :2] - target.positions[:, :2], axis=-1)  # (C, 2)
    turns = np.abs(wrap(children.headings - target.headings))
    needed = np.maximum(distance / reach, turns / MAX_SWING_TURN)
    rows = np.arange(len(children.next_foot))
    mover = children.next_foot
    estimate = np.maximum(2.0 * needed[rows, mover] - 1.0, 2.0 * needed[rows, 1 - mover])
    estimate += 0.1 * needed.sum(axis=1)  # of two as far, the one with less left for the other foot
    # Turning on the way costs a little: a foot turned (and turned back) where no turn was needed is a plan
    # whose steps look wrong (a straight walk's feet splayed), and it may crowd a straighter way out of the beam.
    estimate += TURN_COST * children.turned
    order = np.lexsort((children.first != lead, estimate))
    keys = np.column_stack([np.round(children.positions[..., :2].reshape(-1, 4) / DISTINCT[0]),
                            np.round(children.headings / DISTINCT[1]), children.next_foot])
    _unique, first_of = np.unique(keys[order], axis=0, return_index=True)
    return order[np.sort(first_of)][:BEAM]


def _path(history, index):
    """The steps from the start to children `index` of the last beam in history."""
    moves = []
    for children in reversed(history):
        step = children.steps[index]
        pivot = None if np.isnan(step[5]) else (step[5:8].copy(), float(step[8]))
        moves.append((int(step[0]), step[1:4].copy(), float(step[4]), pivot))
        index = children.parent[index]
    return moves[::-1]


def timed(character, start, moves, start_time, step_duration, terrain):
    """The moves as a stepping track: each swing from its distance (or half the step duration), push-off and
    landing each half a swing."""
    positions = start.positions.copy()
    steps, previous, t = [], 0.0, start_time
    for foot, position, heading, pivot in moves:
        swing = 0.5 * step_duration if step_duration is not None else swing_time(
            character, float(np.linalg.norm(position[:2] - positions[foot, :2])))
        lift = t + 0.5 * previous + 0.5 * swing
        steps.append(PlannedStep(foot, np.asarray(position, dtype=float), heading, lift, lift + swing, pivot))
        positions[foot] = position
        if pivot is not None:
            positions[1 - foot] = pivot[0]
        previous, t = swing, lift + swing
    end = t + 0.5 * previous if steps else start_time + (step_duration or swing_time(character, 0.0))
    return stepping_track(character, start, steps, start_time, end, terrain=terrain)
