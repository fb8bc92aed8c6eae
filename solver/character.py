"""Character model: virtual legs from hips to support points (vdP97 §2.2, Fig. 5) and the presets.

Body frame: +X right, +Y forward, +Z up, origin at the centre of mass. Each virtual leg is a straight,
extensible link from its hip to the footprint's support point, with a comfortable nominal length and a
maximal length, 0 < l_nom < l_max (vdP97 §2.2).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace

import numpy as np

from .errors import CharacterError, UnknownPresetError

GRAVITY = 9.81
BIPED_FEET = ("L", "R")
QUADRUPED_FEET = ("LH", "RH", "LF", "RF")
HIND_FEET, FORE_FEET = QUADRUPED_FEET[:2], QUADRUPED_FEET[2:]  # the legs of a quadruped's hind and fore masses
ALL_FEET = BIPED_FEET + QUADRUPED_FEET


@dataclass(frozen=True)
class Character:
    name: str
    feet: tuple[str, ...]
    hip_offsets: np.ndarray  # (legs, 3) metres, body frame, relative to the COM
    leg_length_nominal: float
    leg_length_max: float
    foot_length: float  # heel to toe, for drawing and for the toe support point
    foot_width: float
    com_clearance: float = 0.4  # the COM stays this many l_nom above the ground (Torkos §4.6.2)
    pitch_amplitude: float = 0.025  # radians, procedural body pitch oscillation (vdP97 §2.6)
    roll_amplitude: float = 0.035  # radians, procedural body roll oscillation (vdP97 §2.6)
    bank_gain: float = 0.5  # fraction of the lateral-acceleration lean angle atan(a_lat / g) (vdP97 §2.6)
    swing_clearance: float = 0.08  # l_nom: how high a swing foot clears the ground between footprints
    ankle_offset: tuple | None = None  # a rig's ankle from the support point, foot frame (+Y toes, +Z up)
    ankle_reach: float = 0.0  # a rig's longest hip-to-ankle distance (thigh + shin); with ankle_offset
    ball_height: float = 0.0  # a rig's ball joint above the sole: the heel lifts about it (0: the sole's toe)
    heel_length: float = 0.0  # the back of the heel behind the support point, along the foot (0: half a foot)
    toe_length: float = 0.0  # the toe tip ahead of the support point, along the foot (0: half a foot)
    heel_strike: float = 0.0  # radians: a walking foot lands heel first with its toes up this much, then rolls
    pelvic_rotation: float = 0.0  # radians: the body's yaw swing, the landing side forward at each heel strike
    pelvic_list: float = 0.0  # radians: the body's roll, the swing side dropped in single support
    fore_share: float = 0.6  # quadrupeds: the fore mass's share of the body's (a dog carries about 60 % of
    # its weight on its forelegs: Lee et al. 1999, J. Exp. Biol. 202, "Legs as springs...": 63 %, a horse 58 %)
    spine_stiffness: float = 400.0  # quadrupeds: Torkos eq. 2's k_s per kilogram of body (N/m/kg = 1/s^2);
    # 400: the spine stretches 1 cm under 0.4 g of load moved along it, the masses' relative motion rings
    # at 6.5 Hz (sqrt(k / (share (1 - share))) / 2 pi), above a gallop's 2-3 Hz stride
    leg_lengths: np.ndarray | None = None  # (legs, 2) nominal and maximal length of each leg, when they
    # differ (a limp, a lopsided gait: Torkos eq. 4, each leg its own l); None: all legs the two above
    leg_ends: np.ndarray | None = None  # (legs, 5) a quadruped rig's: where each leg's bone chain ends on its
    # paw (the ball joint; a hoof's fetlock), along and up the foot frame from the support point, the farthest
    # the chain reaches from the hip to it, the paw's tip ahead of the support point, and how much of
    # legs.PAW_FOLD it folds in swing (0 to 1). The paw rolls onto its tip, or is drawn in, to keep the chain
    # within reach (body/legs.py); None: the leg ends at the support point (or a biped rig's ankle)

    @property
    def nominal_lengths(self) -> np.ndarray:
        """(legs,) each leg's comfortable length (Torkos eq. 4)."""
        return np.full(len(self.feet), self.leg_length_nominal) if self.leg_lengths is None else self.leg_lengths[:, 0]

    @property
    def max_lengths(self) -> np.ndarray:
        """(legs,) each leg's maximal length."""
        return np.full(len(self.feet), self.leg_length_max) if self.leg_lengths is None else self.leg_lengths[:, 1]

    @property
    def standing_reach(self) -> np.ndarray:
        """(legs,) the farthest a hip stands from its support point over a flat foot: l_max, or for a character
        measured from a rig, whose barrier lies past its straight leg (the heel strike and heel-off take that
        up in a walk), no farther than the straight leg over mid-foot (its ankle offset and reach)."""
        if self.ankle_offset is None:
            return self.max_lengths
        along, up = self.ankle_offset[1], self.ankle_offset[2]
        straight = up + math.sqrt(max(self.ankle_reach ** 2 - along ** 2, 0.0))
        return np.minimum(self.max_lengths, straight)

    @property
    def is_quadruped(self) -> bool:
        """Four legs, hind and fore: the two-mass body (Torkos §4.2.1)."""
        return set(self.feet) == set(QUADRUPED_FEET)

    def scaled(self, factor: float) -> "Character":
        """The same character with every length times factor (a rig object scaled in the world)."""
        lengths = {name: getattr(self, name) * factor for name in LENGTHS}
        legs = None if self.leg_lengths is None else self.leg_lengths * factor
        ends = None if self.leg_ends is None else self.leg_ends * np.append(np.full(4, factor), 1.0)
        return replace(self, hip_offsets=self.hip_offsets * factor, **lengths, leg_lengths=legs, leg_ends=ends,
                       ankle_offset=None if self.ankle_offset is None else tuple(factor * np.asarray(self.ankle_offset)))

    @property
    def heel(self) -> float:
        """The back of the heel behind the support point (metres along the foot)."""
        return self.heel_length or 0.5 * self.foot_length

    @property
    def toe(self) -> float:
        """The toe tip ahead of the support point (metres along the foot)."""
        return self.toe_length or 0.5 * self.foot_length

    @property
    def time_unit(self) -> float:
        """sqrt(l_nom / g): the pendulum time scale, so gait timing scales with leg length (Froude)."""
        return math.sqrt(self.leg_length_nominal / GRAVITY)

    def to_json(self) -> dict:
        return {
            "preset": self.name,
            "feet": list(self.feet),
            "hip_offsets": {foot: [float(v) for v in off] for foot, off in zip(self.feet, self.hip_offsets)},
            "leg_length_nominal": self.leg_length_nominal,
            "leg_length_max": self.leg_length_max,
            "foot_length": self.foot_length,
            "foot_width": self.foot_width,
            **{key: getattr(self, key) for key in OPTIONAL_NUMBERS},
            **({"ankle_offset": list(self.ankle_offset), "ankle_reach": self.ankle_reach,
                "ball_height": self.ball_height, "heel_length": self.heel_length, "toe_length": self.toe_length}
               if self.ankle_offset is not None else {}),
            **({"leg_lengths": {foot: [float(v) for v in pair] for foot, pair in zip(self.feet, self.leg_lengths)}}
               if self.leg_lengths is not None else {}),
            **({"leg_ends": {foot: [float(v) for v in end] for foot, end in zip(self.feet, self.leg_ends)}}
               if self.leg_ends is not None else {}),
        }


LENGTHS = ("leg_length_nominal", "leg_length_max", "foot_length", "foot_width", "ankle_reach", "ball_height",
           "heel_length", "toe_length")  # metres (the rest are in l_nom, radians or fractions)
MIN_SIZE, MAX_SIZE = 1e-3, 100.0  # metres: a character's lengths, a beetle's to a giant's; beyond them the
# physics overflows (a leg of 1e10 m) or underflows, and the error should name the field, not a NaN
_ANGLE = (0.0, math.pi / 2)
NUMBER_RANGES = {  # the optional numbers (in to_json's order); their units are l_nom, radians or fractions
    "com_clearance": (0.0, 10.0), "pitch_amplitude": _ANGLE, "roll_amplitude": _ANGLE, "bank_gain": (0.0, 10.0),
    "swing_clearance": (0.0, 10.0), "heel_strike": _ANGLE, "pelvic_rotation": _ANGLE, "pelvic_list": _ANGLE,
    "fore_share": (0.05, 0.95), "spine_stiffness": (1.0, 1e5),
}
OPTIONAL_NUMBERS = tuple(NUMBER_RANGES)


def _biped(name, hip_half_width, hip_drop, l_nom, l_max, foot_length, foot_width):
    hips = np.array([[-hip_half_width, 0.0, -hip_drop], [hip_half_width, 0.0, -hip_drop]])
    return Character(name, BIPED_FEET, hips, l_nom, l_max, foot_length, foot_width)


QUADRUPED_REACH = 1.08  # a quadruped's l_max / l_nom: its legs stand flexed, straightened they reach further
QUADRUPED_NOMINAL = 0.985  # the most a quadruped leg's l_nom is of its l_max: a leg that stands nearly straight
# (Rigify's wolf and horse front legs, within 1-2 % of their reach) is comfortable a little flexed, as a biped's is
# (binding.NOMINAL_FRACTION); with l_nom at its rest length the barrier stood 4 mm above it and a pronk's solve
# stalled against it


def _quadruped(name, half_width, hind, fore, fore_share, foot_length, foot_width, reach=(QUADRUPED_REACH,) * 2):
    """A quadruped from its hips' (y, height) in the rest pose, hind and fore (metres, +Y forward, ground at
    0): the centre of mass between them, fore_share of the way to the fore hips (a dog carries about 60 %
    of its weight on its forelegs); l_nom the mean hip height standing, l_max reach times it (the
    standing legs are flexed; straightened, they reach further); each leg's nominal length its own hips'
    height, its maximal reach[0] (hind) or reach[1] (fore) times that (Torkos eq. 4: each leg its own length)."""
    com_y = hind[0] + fore_share * (fore[0] - hind[0])
    com_z = 0.5 * (hind[1] + fore[1])
    hips = np.array([[-half_width, hind[0] - com_y, hind[1] - com_z], [half_width, hind[0] - com_y, hind[1] - com_z],
                     [-half_width, fore[0] - com_y, fore[1] - com_z], [half_width, fore[0] - com_y, fore[1] - com_z]])
    l_nom = com_z
    legs = np.array([[hind[1], reach[0] * hind[1]]] * 2 + [[fore[1], reach[1] * fore[1]]] * 2)  # its hips' height
    legs[:, 0] = np.minimum(legs[:, 0], QUADRUPED_NOMINAL * legs[:, 1])
    return Character(name, QUADRUPED_FEET, hips, l_nom, QUADRUPED_REACH * l_nom, foot_length, foot_width,
                     fore_share=fore_share, leg_lengths=legs)


PRESETS: dict[str, Character] = {
    "human": _biped("human", 0.09, 0.08, 0.86, 0.94, 0.26, 0.10),
    "bird": _biped("bird", 0.05, 0.04, 0.26, 0.31, 0.10, 0.08),
    "dinosaur": _biped("dinosaur", 0.30, 0.15, 1.60, 1.80, 0.55, 0.35),
    # Blender's bundled Rigify metarigs (wolf, cat, horse), measured in their rest pose: hips' (y, height)
    # from the hind and fore leg chains' heads (thigh / front_thigh, upper_arm), half the hips' width.
    # Each pair's reach (hind, fore) is what the generated rig's legs give (binding: the farthest the hip stands
    # over the flat paw with the bone chain within its reach): Rigify's paws stand within 0.2-3 % of it.
    "dog": _quadruped("dog", 0.125, (-0.342, 0.738), (0.316, 0.690), 0.6, 0.08, 0.06, (1.031, 1.012)),
    "cat": _quadruped("cat", 0.030, (-0.115, 0.246), (0.129, 0.202), 0.6, 0.035, 0.03, (1.012, 1.031)),
    "horse": _quadruped("horse", 0.178, (-0.624, 1.409), (0.690, 1.160), 0.6, 0.12, 0.12, (1.002, 1.017)),
}
QUADRUPEDS = tuple(name for name, character in PRESETS.items() if character.is_quadruped)


def preset(name: str) -> Character:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise UnknownPresetError(
            f"unknown character preset {name!r}; known presets: {', '.join(sorted(PRESETS))}"
        ) from None


def character_from_json(data) -> Character:
    """A preset name, or an object of explicit parameters, optionally starting from "preset"."""
    if isinstance(data, str):
        return preset(data)
    if not isinstance(data, dict):
        raise CharacterError(f"character must be a preset name or an object, not {type(data).__name__}")
    base = preset(data.get("preset", "human"))
    feet = data.get("feet", list(base.feet))
    if (not isinstance(feet, (list, tuple)) or not feet or not all(isinstance(f, str) and f in ALL_FEET for f in feet)
            or len(set(feet)) != len(feet)):
        raise CharacterError(f"character feet {json.dumps(feet, default=str)[:80]} must be a list of distinct "
                             f"names from {list(ALL_FEET)}")
    feet = tuple(feet)
    if base.is_quadruped and set(feet) != set(QUADRUPED_FEET):
        raise CharacterError(f"character preset {base.name!r} is a quadruped: its feet must be the four "
                             f"{list(QUADRUPED_FEET)}, not {list(feet)}")
    hips = data.get("hip_offsets", dict(zip(base.feet, base.hip_offsets.tolist())))
    if not isinstance(hips, dict) or set(hips) != set(feet):
        raise CharacterError(f"character hip_offsets must give one [x, y, z] for each foot of {list(feet)}")
    try:
        hip_offsets = np.array([[float(v) for v in hips[f]] for f in feet], dtype=float)
        numbers = {
            key: float(data.get(key, getattr(base, key)))
            for key in ("leg_length_nominal", "leg_length_max", "foot_length", "foot_width") + OPTIONAL_NUMBERS
        }
    except (TypeError, ValueError, OverflowError) as exc:
        raise CharacterError(f"character parameters must be numbers: {exc}") from None
    if hip_offsets.shape != (len(feet), 3) or not (np.abs(hip_offsets) <= MAX_SIZE).all():
        raise CharacterError(f"character hip_offsets must be finite [x, y, z] triples within {MAX_SIZE:g} m")
    for key, value in numbers.items():
        low, high = NUMBER_RANGES.get(key, (MIN_SIZE, MAX_SIZE))
        if not low <= value <= high:  # also false for NaN
            raise CharacterError(f"character {key} {value:.4g} is outside [{low:g}, {high:g}]")
    if not numbers["leg_length_nominal"] < numbers["leg_length_max"]:
        raise CharacterError("character needs leg_length_nominal < leg_length_max (vdP97 §2.2)")
    leg_lengths = _leg_lengths(data.get("leg_lengths"), feet)
    if (leg_lengths is None and feet == base.feet
            and not {"leg_length_nominal", "leg_length_max"} & set(data)):  # the preset's own, unless resized
        leg_lengths = base.leg_lengths
    return Character(str(data.get("preset", base.name)), feet, hip_offsets, **numbers, leg_lengths=leg_lengths)


def _leg_lengths(data, feet):
    """The optional "leg_lengths": {foot: [nominal, max]} for every foot, as (legs, 2), or None."""
    if data is None:
        return None
    if not isinstance(data, dict) or set(data) != set(feet):
        raise CharacterError(f"character leg_lengths must give [nominal, max] for each foot of {list(feet)}")
    for foot in feet:
        pair = data[foot]
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair)):
            raise CharacterError(f"character leg_lengths {foot!r} must be [nominal, max] in metres, "
                                 f"not {json.dumps(pair, default=str)[:60]}")
        nominal, longest = (float(v) for v in pair)
        if not (MIN_SIZE <= nominal < longest <= MAX_SIZE):  # also false for NaN
            raise CharacterError(f"character leg_lengths {foot!r} [{nominal:.4g}, {longest:.4g}] needs "
                                 f"{MIN_SIZE:g} <= nominal < max <= {MAX_SIZE:g} m")
    return np.array([[float(v) for v in data[foot]] for foot in feet])
