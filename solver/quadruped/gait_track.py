"""A quadruped's footprints for a gait at a speed over a distance, straight or along a circular turn, or for
several gaits one after another along one path (walk -> trot -> gallop as speed rises).

The body moves along the path at each section's speed; each footprint lies under its hip at the middle of
its stance (the body's position then, the hip's offset across and along the path), turned with the path:
a foot is planted where its hip passes over, so every foot honours the curve. Stride and period come from
the gait (gaits.py): stride lambda = 2.3 h Fr^0.3, period lambda / v, each foot down for its duty factor.
A new gait's first stride starts when the old one's would have; where a foot of the new gait would touch
down before it has had the quickest swing (motion.SWING_MIN) from its last footprint of the old, the new
gait starts that much later (the body keeping the old speed meanwhile).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import FootprintError
from ..motion import SWING_MIN
from ..track import MAX_FOOTPRINTS, Track, make_track
from . import gaits

MIN_TURN_RADIUS = 0.5  # hip heights: tighter, the inside feet would walk backwards


@dataclass(frozen=True)
class Section:
    gait: str
    speed: float  # m/s
    distance: float  # metres along the path


def gait_track(character, gait_name: str, speed: float, distance: float, turn_radius: float | None = None,
               preset_name: str | None = None) -> Track:
    """Footprints for `distance` metres of `gait_name` at `speed` m/s; turn_radius > 0 turns left, < 0 right."""
    return sections_track(character, [Section(gait_name, speed, distance)], turn_radius, preset_name)


def sections_track(character, sections, turn_radius: float | None = None, preset_name: str | None = None) -> Track:
    """Footprints for the sections one after another along one path (each its gait, speed and distance)."""
    if not sections:
        raise FootprintError("no gait sections given")
    h = character.leg_length_nominal
    if turn_radius is not None and not (np.isfinite(turn_radius) and abs(turn_radius) >= MIN_TURN_RADIUS * h):
        raise FootprintError(f"turn radius {turn_radius} m is tighter than {MIN_TURN_RADIUS * h:.2f} m "
                             f"({MIN_TURN_RADIUS:g} hip heights) or not a number")
    plans = [_plan(character, section) for section in sections]
    if sum(plan["strides"] for plan in plans) * 4 > MAX_FOOTPRINTS:
        raise FootprintError(f"{sum(s.distance for s in sections):g} m of gaits is more than the limit of "
                             f"{MAX_FOOTPRINTS:,} footprints")
    feet, contact, liftoff = [], [], []
    start, last_liftoff = 0.0, {}
    starts, speeds = [0.0], [plans[0]["speed"]]  # the body's speed changes at these times
    for plan in plans:
        phases = np.array([plan["gait"].phases[f] for f in character.feet])
        # Touch down no foot before it has swung from the old gait's last footprint (the quickest swing).
        swing = SWING_MIN * character.time_unit
        late = max((last_liftoff.get(f, -np.inf) + swing - (start + p * plan["period"])
                    for f, p in zip(character.feet, phases)), default=0.0)
        start += max(late, 0.0)
        if contact:
            starts.append(start)
            speeds.append(plan["speed"])
        k = np.arange(plan["strides"])
        down = (start + (k[:, None] + phases[None]) * plan["period"]).ravel()
        feet.append(np.tile(np.array(character.feet, dtype="<U2"), plan["strides"]))
        contact.append(down)
        liftoff.append(down + plan["duty"] * plan["period"])
        for f, t in zip(feet[-1][-4:], liftoff[-1][-4:]):
            last_liftoff[f] = t
        start += plan["strides"] * plan["period"]
    feet, contact, liftoff = np.concatenate(feet), np.concatenate(contact), np.concatenate(liftoff)
    mid_stance = _distance_at(0.5 * (contact + liftoff), np.array(starts), np.array(speeds))
    base, heading = _path(mid_stance, turn_radius)
    hip = np.tile(character.hip_offsets, (len(feet) // len(character.feet), 1))  # feet: character.feet per stride
    right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
    forward = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
    xy = base + hip[:, :1] * right + hip[:, 1:2] * forward
    positions = np.column_stack([xy, np.zeros(len(xy))])
    return make_track(feet, positions, heading, contact, liftoff, character=preset_name or character.name)


def _plan(character, section):
    gait = gaits.choose(section.gait, section.speed, character)
    if not (np.isfinite(section.distance) and section.distance > 0):
        raise FootprintError(f"distance must be a positive number of metres, not {section.distance}")
    h = character.leg_length_nominal
    stride = gaits.stride_length(section.speed, h)
    return {"gait": gait, "speed": section.speed, "period": stride / section.speed,
            "duty": gait.duty_at(gaits.froude(section.speed, h)), "strides": max(math.ceil(section.distance / stride), 1)}


def _distance_at(t, starts, speeds):
    """Metres along the path at times t, the body moving at speeds[i] from starts[i] on."""
    travelled = np.concatenate([[0.0], np.cumsum(np.diff(starts) * speeds[:-1])])
    i = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, len(starts) - 1)
    return travelled[i] + speeds[i] * (t - starts[i])


def _path(s, turn_radius):
    """(points (n, 2), headings (n,)) at arc lengths s: along +Y, or on a circle turning left (radius > 0)
    or right (< 0), heading 0 along +Y and counter-clockwise positive."""
    if turn_radius is None:
        return np.column_stack([np.zeros_like(s), s]), np.zeros_like(s)
    heading = s / turn_radius
    return np.column_stack([turn_radius * (np.cos(heading) - 1.0), turn_radius * np.sin(heading)]), heading
