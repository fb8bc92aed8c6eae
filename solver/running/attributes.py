"""RUNNER's nineteen style attributes (Bruderlin & Calvert 1996, §3.1.2, Fig. 5) and their couplings.

Five move the arms and shoulders, two the torso, three the pelvis and nine the legs. Defaults give a
natural stride and follow the parameters, as linear functions between each attribute's extremes (§3.1.2):
overstride falls as velocity rises, pelvic rotation grows with step length, bounciness with flight height,
the knee angle at toe-off falls with step length, lateral displacement grows with stride width and both
fall with step frequency, maximal knee flexion and hip extension in swing grow with velocity. Hidden
attributes (not set by the user) follow: ankle and metatarsal angles at toe-off from step length, the
ankle angle at impact from overstride and heel or toe strike. An attribute the user sets keeps its value.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .parameters import RunningError, RunningParameters

# name: (minimum, maximum, unit, group)
RANGES = {
    "arm_swing": (0.0, 70.0, "deg", "arms"),
    "elbow_flexion": (0.0, 120.0, "deg", "arms"),
    "shoulder_rotation": (0.0, 20.0, "deg", "arms"),
    "arm_abduction": (0.0, 40.0, "deg", "arms"),
    "shoulder_height": (-0.05, 0.05, "m", "arms"),
    "torso_tilt": (-10.0, 30.0, "deg", "torso"),
    "torso_sway": (0.0, 10.0, "deg", "torso"),
    "pelvic_rotation": (0.0, 20.0, "deg", "pelvis"),
    "pelvic_list": (0.0, 12.0, "deg", "pelvis"),
    "lateral_displacement": (0.0, 0.06, "m", "pelvis"),
    "toe_strike": (0.0, 1.0, "", "legs"),  # 0: the heel lands first, 1: the toe
    "bounciness": (0.0, 1.0, "", "legs"),
    "overstride": (0.02, 0.3, "m", "legs"),
    "stride_width": (0.0, 0.3, "m", "legs"),
    "knee_flexion_swing": (60.0, 140.0, "deg", "legs"),
    "hip_extension": (5.0, 30.0, "deg", "legs"),
    "knee_bend_heel_strike": (0.0, 30.0, "deg", "legs"),
    "knee_angle_toe_off": (0.0, 30.0, "deg", "legs"),
    "foot_turn_out": (-10.0, 20.0, "deg", "legs"),
}
assert len(RANGES) == 19


def _along(value, low, high):
    """Where a parameter value lies between two reference values, clipped to [0, 1]."""
    return float(np.clip((value - low) / (high - low), 0.0, 1.0))


def _lerp(name, t):
    lo, hi = RANGES[name][:2]
    return lo + (hi - lo) * t


@dataclass(frozen=True)
class Attributes:
    arm_swing: float
    elbow_flexion: float
    shoulder_rotation: float
    arm_abduction: float
    shoulder_height: float
    torso_tilt: float
    torso_sway: float
    pelvic_rotation: float
    pelvic_list: float
    lateral_displacement: float
    toe_strike: float
    bounciness: float
    overstride: float
    stride_width: float
    knee_flexion_swing: float
    hip_extension: float
    knee_bend_heel_strike: float
    knee_angle_toe_off: float
    foot_turn_out: float

    def hidden(self, params: RunningParameters) -> dict:
        """Attributes the user cannot set: ankle and metatarsal angles at toe-off (from step length) and the
        ankle angle at impact (from overstride and heel or toe strike), degrees."""
        stretch = _along(params.step_length, 0.6, 1.8)
        return {
            "ankle_toe_off": 10.0 + 25.0 * stretch,
            "metatarsal_toe_off": 20.0 + 30.0 * stretch,
            "ankle_impact": (1.0 - self.toe_strike) * (5.0 + 60.0 * self.overstride) - self.toe_strike * 15.0,
        }


def natural_attributes(params: RunningParameters, **chosen) -> Attributes:
    """Attributes for a stride: the ones chosen keep their values, the others follow the parameters."""
    unknown = set(chosen) - set(RANGES)
    if unknown:
        raise RunningError(f"unknown running attributes: {', '.join(sorted(unknown))}")
    for name, value in chosen.items():
        lo, hi = RANGES[name][:2]
        if not (np.isfinite(value) and lo <= value <= hi):
            raise RunningError(f"{name} must be within [{lo}, {hi}], not {value}")
    speed = _along(params.velocity, 150.0, 500.0)  # m/min: a jog to a sprint
    length = _along(params.step_length, 0.7, 1.9)
    frequency = _along(params.step_frequency, 160.0, 230.0)
    flight = _along(params.flight_height, 0.0, 0.12)
    stride_width = chosen.get("stride_width", _lerp("stride_width", 0.4 * (1.0 - frequency)))
    width = _along(stride_width, *RANGES["stride_width"][:2])
    values = {
        "arm_swing": _lerp("arm_swing", 0.3 + 0.6 * speed),
        "elbow_flexion": _lerp("elbow_flexion", 0.6 + 0.2 * speed),
        "shoulder_rotation": _lerp("shoulder_rotation", 0.3 + 0.4 * length),
        "arm_abduction": _lerp("arm_abduction", 0.2),
        "shoulder_height": 0.0,
        "torso_tilt": _lerp("torso_tilt", 0.3 + 0.3 * speed),
        "torso_sway": _lerp("torso_sway", 0.3 * (1.0 - frequency)),
        "pelvic_rotation": _lerp("pelvic_rotation", 0.2 + 0.7 * length),  # grows with step length
        "pelvic_list": _lerp("pelvic_list", 0.4),
        # grows with stride width, falls with step frequency
        "lateral_displacement": _lerp("lateral_displacement", (0.2 + 0.8 * width) * (1.0 - 0.7 * frequency)),
        "toe_strike": 0.0 if speed < 0.6 else 1.0,
        "bounciness": _lerp("bounciness", 0.2 + 0.8 * flight),  # grows with flight height
        "overstride": _lerp("overstride", 0.8 - 0.7 * speed),  # falls as velocity rises
        "stride_width": stride_width,
        "knee_flexion_swing": _lerp("knee_flexion_swing", 0.2 + 0.8 * speed),
        "hip_extension": _lerp("hip_extension", 0.3 + 0.6 * speed),
        "knee_bend_heel_strike": _lerp("knee_bend_heel_strike", 0.35),
        "knee_angle_toe_off": _lerp("knee_angle_toe_off", 0.8 - 0.6 * length),  # falls with step length
        "foot_turn_out": _lerp("foot_turn_out", 0.4),
    }
    values.update(chosen)
    return Attributes(**values)


ATTRIBUTE_NAMES = tuple(f.name for f in fields(Attributes))
