"""One step to a target (issue 19, item 1; WMZ §3: the user gives "the final stepping foot position and step
duration"): from a standing stance, one foot to a position and heading over a swing, the other the support (the
paper's pivot foot), turned on its ball during the swing where the step turns the body's facing by more than
PIVOT_FACING (WMZ §6: "we do allow the support foot to rotate ... to pivot the foot if there is a larger
discrepancy"). Push-off and landing take half a swing each (as plan.py's steps)."""

from __future__ import annotations

import math

import numpy as np

from ..errors import NonFiniteError, TimingError
from .feet import ball_offset
from .layout import PlannedStep, stepping_track, swing_time
from .stance import Stance, forward, mean_heading, require_biped, wrap

PIVOT_FACING = math.radians(30.0)  # a step turning the stance's facing more than this pivots the support foot
FEET = ("L", "R")


def one_step(character, start: Stance, position, heading: float, duration: float | None = None, foot=None,
             start_time: float = 0.0, terrain=None):
    """The stepping track of one step from standing at `start`: `foot` ("L" or "R"; None: the foot nearer the
    target) to `position` ((x, y) or (x, y, z)) facing `heading` (radians, 0 = +Y) over a swing of `duration`
    seconds (None: vdP97's automatic timing from the distance, layout.swing_time). Errors name the culprit: a
    landing on (or across) the other foot, a duration that is not a positive number, numbers not finite."""
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
        stepping = FEET.index(foot)
    support = 1 - stepping
    positions, headings = start.positions.copy(), start.headings.copy()
    positions[stepping], headings[stepping] = target, heading
    pivot = None
    turn = float(wrap(mean_heading(headings) - start.heading))
    if abs(turn) > PIVOT_FACING:  # the support foot turns on its ball to the stepping foot's heading
        ball = start.positions[support, :2] + ball_offset(character) * forward(start.headings[support])
        positions[support, :2] = ball - ball_offset(character) * forward(heading)
        headings[support] = heading
        pivot = (positions[support].copy(), float(heading))
    Stance(positions, headings).check(character, f"the step of foot {FEET[stepping]}'s landing")
    swing = duration if duration is not None else swing_time(
        character, float(np.linalg.norm(target[:2] - start.positions[stepping, :2])))
    lift = start_time + 0.5 * swing
    step = PlannedStep(stepping, target, float(heading), lift, lift + swing, pivot)
    return stepping_track(character, start, [step], start_time, lift + 1.5 * swing, terrain=terrain)
