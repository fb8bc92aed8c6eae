"""A stepping track read as steps: the feet stand on their first footprints from the start, then step one at
a time with double support between (never a flight) and stand on their last footprints at the end.

A foot's next footprint after a gap is a step (a swing: lift-off t1, touchdown t2); one whose contact is its
previous footprint's lift-off (no gap) is the foot pivoting on the ground about its ball (WMZ §6: "we do allow
the support foot to rotate"), which happens over the other foot's swing under way then."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..character import BIPED_FEET, Character
from ..errors import SteppingError
from ..schedule import build_schedule
from .stance import require_biped

SAME_TIME = 1e-6  # seconds: a contact this close to the previous lift-off of its foot continues the stance
PIVOT_TIME = 0.2  # seconds a pivot takes when no swing of the other foot is under way at its instant


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
    """A foot turning on the ground from footprint `before` to `after` (about its ball) from start to end."""

    foot: int
    before: int
    after: int
    start: float
    end: float


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
    swings.sort(key=lambda s: tr.liftoff[s[1]])
    plan = StepPlan(schedule, (), ())
    swings = tuple(Swing(foot, a, b, plan.standing_on(1 - foot, tr.liftoff[a]), float(tr.liftoff[a]),
                         float(tr.contact[b])) for foot, a, b in swings)
    pivots = tuple(_pivot(foot, a, b, tr, swings) for foot, a, b in splits)
    return StepPlan(schedule, swings, pivots)


def _pivot(foot, before, after, track, swings):
    """The pivot from footprint `before` to `after`: over the other foot's swing under way at the instant, or
    PIVOT_TIME around it, within the two footprints' stance."""
    instant = float(track.liftoff[before])
    for swing in swings:
        if swing.foot != foot and swing.t1 <= instant <= swing.t2:
            return Pivot(foot, before, after, swing.t1, swing.t2)
    start = max(instant - 0.5 * PIVOT_TIME, float(track.contact[before]))
    end = min(instant + 0.5 * PIVOT_TIME, float(track.liftoff[after]))
    return Pivot(foot, before, after, start, end)
