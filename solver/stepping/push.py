"""Push recovery (issue 19, item 3): a standing body given a horizontal COM velocity steps where the capture
point asks (Pratt et al. 2006) until it is caught, then stands with its feet side by side.

Between steps the body is a linear inverted pendulum (lipm.py) about the centre of pressure the feet allow
(the point of their support polygon nearest the capture point). After a reaction time the foot on the side the
push goes lifts and swings quickly (RECOVERY_SWING); it lands where the capture point will be at touchdown, as
far toward it as the leg reaches (capture.recovery_reach: the hips may sink) and never across the other foot.
The feet take turns until a touchdown catches the body (capture.is_captured: the capture point inside the
support polygon, both feet within reach of it); a foot whose step would land on the capture point already
inside the polygon (only left too far behind) lands beside the other instead. The body then lands onto the
capture point (com.py) and, unless its feet already stand side by side, brings the foot left behind alongside
(a WMZ step). com.py runs the same pendulum from the track's "com_velocity", so the solved motion is this
one."""

from __future__ import annotations

import math

import numpy as np

from ..errors import NonFiniteError, RangeError, SteppingError
from ..track import MAX_SECONDS, MAX_SPEED
from . import lipm
from .capture import hips_over, is_captured, recovery_reach
from .com import CAPTURE_LANDING_SHARE
from .layout import PlannedStep, stepping_track, swing_time
from .stance import (SOLE_GAP, Stance, inside_polygon, nearest_in_polygon, require_biped, right, stance_width,
                     standing_height, support_polygon)

REACTION = 0.4  # time units (sqrt(l_nom / g)): from the push to the first lift-off
RECOVERY_SWING = 0.8  # time units: a recovery step's swing (a quick step: 0.24 s for the human)
BETWEEN_STEPS = 0.15  # time units: the double support between two recovery steps
MAX_RECOVERY_STEPS = 8
ALONGSIDE = 0.01  # metres: a foot this near its place beside the other needs no step to stand


def recover_from_push(character, stance: Stance, com_velocity, start_time: float = 0.0, terrain=None):
    """The stepping track of a body standing at `stance` whose COM is given com_velocity (vx, vy) m/s at
    start_time: the recovery steps, then standing with the feet side by side. The track records the velocity
    ("com_velocity"); on a terrain (its heights(xy)) the steps' footprints stand on it."""
    require_biped(character)
    stance.check(character, "stance")
    velocity = np.asarray(com_velocity, dtype=float).reshape(-1)
    if velocity.shape != (2,) or not np.isfinite(velocity).all():
        raise NonFiniteError(f"COM velocity {velocity.tolist()} must be two finite numbers (m/s)")
    if np.hypot(*velocity) > MAX_SPEED:
        raise RangeError(f"COM velocity {np.hypot(*velocity):.4g} m/s is beyond the limit of {MAX_SPEED:g} m/s")
    if not (math.isfinite(start_time) and abs(start_time) <= MAX_SECONDS):
        raise RangeError(f"start time {start_time} must be a finite number within {MAX_SECONDS:.0e} s")
    unit = character.time_unit
    omega = lipm.natural_frequency(standing_height(character))
    positions, headings = stance.positions.copy(), stance.headings.copy()
    point, t, heading = stance.centre[:2], start_time, stance.heading
    steps = []
    foot = 1 if velocity @ right(heading) >= 0.0 else 0  # the foot on the side the push goes
    while not is_captured(character, positions, headings, lipm.capture_point(point, velocity, omega)):
        if len(steps) == MAX_RECOVERY_STEPS:
            raise SteppingError(f"a push of {np.hypot(*com_velocity):.2f} m/s is not recovered in {MAX_RECOVERY_STEPS} "
                                "steps: the body falls faster than the legs can step")
        lift = t + (REACTION if not steps else BETWEEN_STEPS) * unit
        point, velocity = _pendulum(point, velocity, support_polygon(positions, headings, character), omega, lift - t)
        support = 1 - foot
        sole = support_polygon(positions[support:support + 1], headings[support:support + 1], character)
        touch = lift + RECOVERY_SWING * unit
        point, velocity = _pendulum(point, velocity, sole, omega, touch - lift)
        landing = _landing(character, positions, headings, foot, point, lipm.capture_point(point, velocity, omega),
                           heading)
        positions[foot], headings[foot] = landing, heading
        steps.append(PlannedStep(foot, landing, heading, lift, touch))
        t, foot = touch, support
    rest = t + lipm.landing_time(omega) / CAPTURE_LANDING_SHARE  # the landing, then a step's push-off
    if steps:
        caught = steps[-1].foot
        behind = 1 - caught
        beside = _beside(character, positions[caught], behind, heading)
        if np.linalg.norm(beside[:2] - positions[behind, :2]) > ALONGSIDE:
            swing = swing_time(character, float(np.linalg.norm(beside[:2] - positions[behind, :2])))
            steps.append(PlannedStep(behind, beside, heading, rest, rest + swing))
            rest = rest + 1.5 * swing  # the step's swing and landing
    return stepping_track(character, stance, steps, start_time, rest,
                          {"com_velocity": [float(v) for v in np.asarray(com_velocity, dtype=float).reshape(2)]},
                          terrain)


def _pendulum(point, velocity, polygon, omega, elapsed):
    """The COM (position, velocity) after `elapsed` seconds pivoting about the polygon's point nearest the
    capture point (as com.py does)."""
    pivot = nearest_in_polygon(polygon, lipm.capture_point(point, velocity, omega))
    x, v, _a = lipm.pendulum(point, velocity, pivot, omega, [elapsed])
    return x[0], v[0]


def _landing(character, positions, headings, foot, point, capture, heading):
    """(3,): where `foot` lands with the COM at point (2,) and its capture point at capture (2,) at touchdown:
    on the capture point, or beside the other foot when the support polygon holds the capture point already
    (this foot only left too far behind), within the leg's reach of its hip and clear of the other foot."""
    other = 1 - foot
    if inside_polygon(support_polygon(positions, headings, character), capture):
        return _beside(character, positions[other], foot, heading)
    hip = hips_over(character, point, heading)[foot]
    reach = recovery_reach(character)
    lead = capture - hip
    place = hip + lead * min(1.0, reach / max(float(np.linalg.norm(lead)), 1e-12))
    side = right(heading) * (1.0 if foot == 1 else -1.0)
    across = float((place - positions[other, :2]) @ side)
    place = place + max(character.foot_width + SOLE_GAP - across, 0.0) * side  # never across the other foot
    return np.array([*place, positions[other, 2]])


def _beside(character, position, foot, heading):
    """(3,): the place of `foot` beside a foot standing at position, at the stance width, facing heading."""
    side = stance_width(character) * right(heading) * (1.0 if foot == 1 else -1.0)
    return np.array([*(position[:2] + side), position[2]])
