"""A stepping track read as steps: the feet stand on their first footprints from the start, then step one at
a time with double support between (never a flight) and stand on their last footprints at the end.

A foot's next footprint after a gap is a step (a swing: lift-off t1, touchdown t2); one whose contact is its
previous footprint's lift-off (no gap) is the foot pivoting on the ground about its ball (WMZ §6: "we do allow
the support foot to rotate"), which happens over the other foot's swing under way then."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..character import BIPED_FEET, Character, character_from_json
from ..core.schedule import build_schedule
from ..errors import FootprintError, StanceError, SteppingError
from .feet import ball_offset
from .stance import SOLE_GAP, forward, require_biped, soles_apart, wrap

SAME_TIME = 1e-6  # seconds: a contact this close to the previous lift-off of its foot continues the stance
PIVOT_TIME = 0.2  # seconds a pivot takes when no swing of the other foot is under way at its instant
PIVOT_SLIDE = 0.02  # metres the point a pivot turns about may move: the planner's own turns, by rounding only
MAX_PIVOT_TURN = math.radians(90.0)  # the most a foot turns on its ball at once


@dataclass(frozen=True)
class Swing:
    """One step: `foot` (0 L, 1 R) lifts off footprint `leave` at t1, lands on `land` at t2, while the other
    foot stands on `support` (its footprint at lift-off). Footprint indices are in the plan's time order."""

    foot: int
    leave: int
    land: int
    support: int
    t1: float
    t2: float


@dataclass(frozen=True)
class Pivot:
    """A foot turning on the ground from footprint `before` to `after` from start to end, about the point of its
    sole `offset` metres ahead of its support point (pivot_offset: its ball, for the character it was planned
    for)."""

    foot: int
    before: int
    after: int
    start: float
    end: float
    offset: float


@dataclass(frozen=True)
class StepPlan:
    schedule: object  # solver.schedule.Schedule: the track in time order, each footprint's leg
    swings: tuple  # Swing, in time order
    pivots: tuple  # Pivot

    @property
    def track(self):
        return self.schedule.track

    @property
    def start(self) -> float:
        return self.schedule.start

    @property
    def end(self) -> float:
        return self.schedule.end

    def footprints_of(self, foot: int) -> np.ndarray:
        """The foot's footprints (indices, time order)."""
        return np.flatnonzero(self.schedule.leg_of_footprint == foot)

    def standing_on(self, foot: int, t: float) -> int:
        """The footprint the foot stands on at time t (the last it touched down on by then)."""
        mine = self.footprints_of(foot)
        return int(mine[max(np.searchsorted(self.track.contact[mine], t + SAME_TIME, side="right") - 1, 0)])


def step_plan(track, character: Character) -> StepPlan:
    """The steps and pivots of a stepping track, checked: a biped, both feet standing at the start and the end,
    never both off the ground."""
    require_biped(character)
    schedule = build_schedule(track, character)
    schedule = replace(schedule, track=on_own_ball(schedule.track, schedule.leg_of_footprint, character))
    tr, legs = schedule.track, schedule.leg_of_footprint
    for foot, name in enumerate(BIPED_FEET):
        mine = np.flatnonzero(legs == foot)
        if not mine.size:
            raise SteppingError(f"foot {name} has no footprint: a stepping track starts with both feet standing")
        if tr.contact[mine[0]] > schedule.start + SAME_TIME:
            raise SteppingError(f"footprint {int(mine[0])} (foot {name}): a stepping track starts with both feet "
                                f"standing, but {name} first touches down at {tr.contact[mine[0]]:.4g} s, after the "
                                f"track's start at {schedule.start:.4g} s")
        if tr.liftoff[mine[-1]] < schedule.end - SAME_TIME:
            raise SteppingError(f"footprint {int(mine[-1])} (foot {name}): a stepping track ends with both feet "
                                f"standing, but {name} lifts off at {tr.liftoff[mine[-1]]:.4g} s, before the track's "
                                f"end at {schedule.end:.4g} s")
    if len(schedule.flight_intervals):
        a, b = schedule.flight_intervals[0]
        raise SteppingError(f"both feet are off the ground from {a:.4g} s to {b:.4g} s: a stepping track keeps one "
                            "foot down while the other steps")
    swings, splits = [], []
    for foot in range(2):
        mine = np.flatnonzero(legs == foot)
        for a, b in zip(mine[:-1], mine[1:]):
            if tr.contact[b] - tr.liftoff[a] <= SAME_TIME:
                splits.append((foot, int(a), int(b)))
            else:
                swings.append((foot, int(a), int(b)))
    offsets = _check_pivots(splits, tr, character)
    swings.sort(key=lambda s: tr.liftoff[s[1]])
    plan = StepPlan(schedule, (), ())
    swings = tuple(Swing(foot, a, b, plan.standing_on(1 - foot, tr.liftoff[a]), float(tr.liftoff[a]),
                         float(tr.contact[b])) for foot, a, b in swings)
    pivots = tuple(_pivot(foot, a, b, tr, swings, offset) for (foot, a, b), offset in zip(splits, offsets))
    plan = StepPlan(schedule, swings, pivots)
    _check_landings(plan, character)
    return plan


def _check_landings(plan, character):
    """StanceError naming the first step that lands on (or within SOLE_GAP of) the sole of the other foot (where
    that foot stands at the touchdown, after any pivot)."""
    if not plan.swings:
        return
    standing = [plan.standing_on(1 - swing.foot, swing.t2) for swing in plan.swings]  # steps of the plan
    pairs = np.array([[swing.land, other] if swing.foot == 0 else [other, swing.land]
                      for swing, other in zip(plan.swings, standing)])  # (S, 2): left, right
    tr = plan.track
    apart = soles_apart(tr.positions[pairs], tr.headings[pairs], character, SOLE_GAP)
    if not apart.all():
        k = int(np.flatnonzero(~apart)[0])
        swing = plan.swings[k]
        raise StanceError(f"footprint {swing.land} (foot {BIPED_FEET[swing.foot]}) lands on the other foot's sole "
                          f"(footprint {standing[k]}): the soles must stay {SOLE_GAP * 100:.0f} cm apart")


def on_own_ball(track, legs, character):
    """The track (in time order, legs its footprints' feet) with each pivot planned about the ball of the
    character it was planned for (track.character: the preset `step` plans with) turned about this
    character's own ball instead: the footprint it turns to re-placed so that the ball stays still and the heel
    swings about it (a Rigify human's ball lies 5.5 cm ahead of its support point, the preset's 13 cm: turned
    about the preset's, the rig's ball slid 7 cm). A pivot planned about another point stays as placed."""
    try:
        planned = character_from_json(track.character)
    except FootprintError:  # a character the track names wrongly: nothing planned for it to re-place
        return track
    mine, theirs = ball_offset(character), ball_offset(planned)
    if abs(mine - theirs) < 1e-9:
        return track
    positions = track.positions.copy()
    for foot in range(2):
        steps = np.flatnonzero(legs == foot)
        for a, b in zip(steps[:-1], steps[1:]):  # in time order: a pivot after a pivot turns from the new place
            if track.contact[b] - track.liftoff[a] > SAME_TIME:
                continue
            apart = forward(track.headings[a]) - forward(track.headings[b])
            moved = track.positions[b, :2] - track.positions[a, :2] - theirs * apart  # from about their ball
            if np.linalg.norm(moved) <= 1e-3:
                positions[b, :2] = positions[a, :2] + mine * apart
    return track.replace(positions=positions)


def pivot_offset(track, before, after, character):
    """(offset, slide): the point of the foot's long axis, `offset` metres ahead of its support point (within the
    sole), that the turn from footprint `before` to `after` leaves most still, and how far it still moves. A track
    planned for this character, or re-placed for it (on_own_ball), turns about the ball (ball_offset, slide 0);
    one placed by hand about another point of the sole, about that; a turn with no still point on the sole
    slides."""
    f_before, f_after = forward(track.headings[before]), forward(track.headings[after])
    apart = f_before - f_after  # a point s ahead stays still where the support points moved by s times this
    moved = track.positions[after, :2] - track.positions[before, :2]
    spread = float(apart @ apart)
    offset = ball_offset(character) if spread < 1e-12 else float(np.clip(moved @ apart / spread, -character.heel,
                                                                             character.toe))
    return offset, float(np.linalg.norm(moved - offset * apart))


def _check_pivots(splits, track, character):
    """Each pivot's offset (pivot_offset): a footprint that takes over the instant its foot's previous one ends is
    that foot turning on its sole: SteppingError naming it where the point it turns about moves more than
    PIVOT_SLIDE (a step with no time to swing: the foot would slide along the ground) or it turns more than
    MAX_PIVOT_TURN."""
    offsets = []
    for foot, before, after in splits:  # the track's pivots: a handful
        offset, moved = pivot_offset(track, before, after, character)
        offsets.append(offset)
        turn = abs(float(wrap(track.headings[after] - track.headings[before])))
        if moved > PIVOT_SLIDE or turn > MAX_PIVOT_TURN + 1e-9:
            raise SteppingError(f"footprint {after} (foot {BIPED_FEET[foot]}) lands the instant footprint {before} "
                                f"lifts, {moved * 100:.1f} cm and {math.degrees(turn):.0f} degrees from it: a step needs "
                                "time to swing (a pivot turns about a point of its sole, at most "
                                f"{math.degrees(MAX_PIVOT_TURN):.0f} degrees, without moving it)")
    return offsets


def _pivot(foot, before, after, track, swings, offset):
    """The pivot from footprint `before` to `after` about the point `offset` ahead of the support point: over the
    other foot's swing under way at the instant, or PIVOT_TIME around it, within the two footprints' stance."""
    instant = float(track.liftoff[before])
    for swing in swings:
        if swing.foot != foot and swing.t1 <= instant <= swing.t2:
            return Pivot(foot, before, after, swing.t1, swing.t2, offset)
    start = max(instant - 0.5 * PIVOT_TIME, float(track.contact[before]))
    end = min(instant + 0.5 * PIVOT_TIME, float(track.liftoff[after]))
    return Pivot(foot, before, after, start, end, offset)
