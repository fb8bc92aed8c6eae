"""A quadruped's footprints for a gait at a speed over a distance, straight or along a circular turn.

The body moves along the path at the speed; each footprint lies under its hip at the middle of its stance
(the body's position then, the hip's offset across and along the path), turned with the path: a foot is
planted where its hip passes over, so every foot honours the curve. Stride and period come from the gait
(gaits.py): stride lambda = 2.3 h Fr^0.3, period lambda / v, each foot down for its duty factor.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import FootprintError
from ..track import MAX_FOOTPRINTS, Track, make_track
from . import gaits

MIN_TURN_RADIUS = 0.5  # hip heights: tighter, the inside feet would walk backwards


def gait_track(character, gait_name: str, speed: float, distance: float, turn_radius: float | None = None,
               preset_name: str | None = None) -> Track:
    """Footprints for `distance` metres of `gait_name` at `speed` m/s; turn_radius > 0 turns left, < 0 right."""
    gait = gaits.choose(gait_name, speed, character)
    if not (np.isfinite(distance) and distance > 0):
        raise FootprintError(f"distance must be a positive number of metres, not {distance}")
    h = character.leg_length_nominal
    if turn_radius is not None and not (np.isfinite(turn_radius) and abs(turn_radius) >= MIN_TURN_RADIUS * h):
        raise FootprintError(f"turn radius {turn_radius} m is tighter than {MIN_TURN_RADIUS * h:.2f} m "
                             f"({MIN_TURN_RADIUS:g} hip heights) or not a number")
    stride = gaits.stride_length(speed, h)
    period = stride / speed
    duty = gait.duty_at(gaits.froude(speed, h))
    strides = max(math.ceil(distance / stride), 1)
    if strides * 4 > MAX_FOOTPRINTS:
        raise FootprintError(f"{distance:g} m of {gait.name} is {strides * 4:,} footprints, more than the limit "
                             f"of {MAX_FOOTPRINTS:,}")
    feet = np.array(list(gait.phases), dtype="<U2")
    phases = np.array([gait.phases[f] for f in feet])
    k = np.arange(strides)
    contact = ((k[:, None] + phases[None]) * period).ravel()  # (strides * 4,), stride-major
    liftoff = contact + duty * period
    feet = np.tile(feet, strides)
    mid_stance = speed * 0.5 * (contact + liftoff)  # metres along the path
    base, heading = _path(mid_stance, turn_radius)
    hip = character.hip_offsets[[character.feet.index(f) for f in feet]]
    right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
    forward = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
    xy = base + hip[:, :1] * right + hip[:, 1:2] * forward
    positions = np.column_stack([xy, np.zeros(len(xy))])
    return make_track(feet, positions, heading, contact, liftoff, character=preset_name or character.name)


def _path(s, turn_radius):
    """(points (n, 2), headings (n,)) at arc lengths s: along +Y, or on a circle turning left (radius > 0)
    or right (< 0), heading 0 along +Y and counter-clockwise positive."""
    if turn_radius is None:
        return np.column_stack([np.zeros_like(s), s]), np.zeros_like(s)
    heading = s / turn_radius
    return np.column_stack([turn_radius * (np.cos(heading) - 1.0), turn_radius * np.sin(heading)]), heading
