"""One step to a target (issue 19, item 1; WMZ §3: the user gives "the final stepping foot position and step
duration"): from a standing stance, one foot to a position and heading over a swing, the other the support (the
paper's pivot foot), turned on its ball during the swing where the step turns the body's facing by more than
plan.PIVOT_FACING (WMZ §6: "we do allow the support foot to rotate ... to pivot the foot if there is a larger
discrepancy"). Push-off and landing take half a swing each (plan.timed, as the planner's steps)."""

from __future__ import annotations

import math

import numpy as np

from ..character import BIPED_FEET
from ..errors import NonFiniteError, SteppingError, TimingError
from .plan import PIVOT_FACING, pivoted, timed
from .stance import Stance, mean_heading, require_biped, wrap
from .steps import MAX_PIVOT_TURN


def one_step(character, start: Stance, position, heading: float, duration: float | None = None, foot=None,
             start_time: float = 0.0, terrain=None):
    """The stepping track of one step from standing at `start`: `foot` ("L" or "R"; None: the foot nearer the
    target) to `position` ((x, y) or (x, y, z)) facing `heading` (radians, 0 = +Y) over a swing of `duration`
    seconds (None: vdP97's automatic timing from the distance, layout.swing_time). Errors name the culprit: a
    landing on (or across) the other foot, a support foot turned more than steps.MAX_PIVOT_TURN, a duration that
    is not a positive number, numbers not finite."""
    require_biped(character)
    start.check(character, "start stance")
    target = np.asarray(position, dtype=float).ravel()
    if target.size not in (2, 3) or not np.isfinite(target).all() or not math.isfinite(heading):
        raise NonFiniteError(f"the step's target {target.tolist()}, heading {heading}: not finite numbers (x, y[, z])")
    if duration is not None and not (math.isfinite(duration) and duration > 0.0):
        raise TimingError(f"the step's duration must be a positive number of seconds, not {duration}")
    if target.size == 2:
        target = np.append(target, start.positions[:, 2].mean())
    if foot is None:
        stepping = int(np.argmin(np.linalg.norm(start.positions[:, :2] - target[:2], axis=1)))
    else:
        stepping = BIPED_FEET.index(foot)
    support = 1 - stepping
    positions, headings = start.positions.copy(), start.headings.copy()
    positions[stepping], headings[stepping] = target, heading
    pivot = None
    if abs(wrap(mean_heading(headings) - start.heading)) > PIVOT_FACING:  # the support foot turns on its ball
        turn = float(wrap(heading - start.headings[support]))  # to the stepping foot's heading
        if abs(turn) > MAX_PIVOT_TURN:
            raise SteppingError(f"the step of foot {BIPED_FEET[stepping]} would turn the support foot "
                                f"{math.degrees(abs(turn)):.0f} degrees on its ball, more than "
                                f"{math.degrees(MAX_PIVOT_TURN):.0f}: take the turn in two steps")
        (positions[support],), (headings[support],) = pivoted(character, start.positions[support],
                                                               start.headings[support], np.array([turn]))
        pivot = (positions[support].copy(), float(headings[support]))
    Stance(positions, headings).check(character, f"the step of foot {BIPED_FEET[stepping]}'s landing")
    # plan.timed's step duration is a swing's and half a swing either side: twice the swing
    return timed(character, start, [(stepping, target, float(heading), pivot)], start_time,
                 None if duration is None else 2.0 * duration, terrain)
