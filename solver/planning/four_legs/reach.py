"""What a gait at a speed can do over gaps, measured by laying it (jumps.py's bounds): the longest gap it flies,
the room it needs to land and take off again, its feet's spread and its longest step."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...character import Character
from ...errors import FootprintError
from ...quadruped import gait_track, gaits, jumps as jumps_module

ROOM_MARGIN = 0.1  # of the room measured, added: a landing and take-off on a face of exactly that length
# sometimes needed one more footfall


@dataclass(frozen=True)
class Capability:
    """What a gait at a speed can do over gaps (metres along the path): the longest gap it flies, the room it
    needs on a face between two gaps, how far its feet stand out from the path, its stride."""

    gait: str
    speed: float
    longest_gap: float
    room: float
    lateral: float
    stride: float
    longest_step: float  # a foot's, from one footprint to its next, over the longest gap


def _key(character):
    return (character.name, character.leg_length_nominal, character.foot_length,
            tuple(np.round(character.hip_offsets, 6).ravel()), character.fore_share)


_CAPABILITIES = {}  # measured once per character, gait and speed (a few dozen lays each)


def capability(character: Character, gait: str, speed: float) -> Capability:
    key = (_key(character), gait, round(float(speed), 6))
    if key not in _CAPABILITIES:
        _CAPABILITIES[key] = _capability(character, gait, key[2])
    return _CAPABILITIES[key]


def _capability(character, gait, speed):
    """Measured by laying the gait (a standing start, jumps.py's bounds): the longest gap (bisection), the
    longest step a foot then takes, and the shortest face between two gaps half that long that it lands and
    takes off on (scanned up from its feet's spread along the body and jumps.margin at each end)."""
    h = character.leg_length_nominal
    stride = gaits.stride_of(gaits.choose(gait, speed, character), speed, character)
    run_up = 4.0 * stride + 2.0  # room for the standing start's ramp before the gap

    def lays(jumps):
        try:
            return gait_track.layout(character, [gait_track.Section(gait, speed, run_up + 6.0 * h + 4.0
                                                                    + sum(j[1] for j in jumps))],
                                     jumps=jumps, stand=True).track
        except FootprintError:
            return None

    low, high = 0.0, 6.0 * h
    for _ in range(14):  # to 6 h / 2^14: a tenth of a millimetre on a horse
        middle = 0.5 * (low + high)
        low, high = (middle, high) if lays([(run_up, middle)]) is not None else (low, middle)
    longest = low
    track = lays([(run_up, longest)])
    step = max(float(np.linalg.norm(np.diff(track.positions[track.feet == foot, :2], axis=0), axis=1).max())
               for foot in character.feet) if track is not None else 0.0
    margin = jumps_module.margin(character)
    spread = float(np.ptp(character.hip_offsets[:, 1]))
    room = math.inf
    gap = max(0.5 * longest, 0.05)
    for x in spread + 2.0 * margin + 0.05 * np.arange(60):  # up to 3 m more: a gallop's strides are long
        if lays([(run_up, gap), (run_up + gap + x, gap)]) is not None:
            room = float(x) * (1.0 + ROOM_MARGIN)
            break
    chosen = gaits.choose(gait, speed, character)
    lateral = float(np.abs(character.hip_offsets[:, 0]).max() * chosen.width_at(gaits.froude(speed, h)))
    return Capability(chosen.name, speed, longest, room, lateral, gaits.stride_of(chosen, speed, character), step)
