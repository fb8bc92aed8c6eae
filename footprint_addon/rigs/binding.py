"""A rig binding: the body control, one IK control per foot, and the rest-pose measurements that turn the
armature into a solver Character (hips, leg lengths, foot size) and map solver frames onto bones."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...solver.character import Character, preset


class MissingBonesError(ValueError):
    """The armature lacks bones the binding needs; the message lists them."""


# Rigify human rigs, generated from Blender's bundled metarig: IK controls, IK/FK switches, and the ORG
# bones that give the rest proportions.
RIGIFY = {
    "body": "torso",
    "feet": {"L": "foot_ik.L", "R": "foot_ik.R"},
    "hips": {"L": "ORG-thigh.L", "R": "ORG-thigh.R"},
    "ankles": {"L": "ORG-foot.L", "R": "ORG-foot.R"},
    "balls": {"L": "ORG-toe.L", "R": "ORG-toe.R"},
    "switches": {("thigh_parent.L", "IK_FK"): 0.0, ("thigh_parent.R", "IK_FK"): 0.0},
}
NOMINAL_FRACTION = 0.92  # l_nom / l_max: a comfortably bent leg
MAX_FRACTION = 0.985  # l_max / the straight rest leg: IK keeps a hair of bend so knees never snap


@dataclass
class RigBinding:
    rig: object
    body: str
    feet: dict  # foot name -> IK control bone
    switches: dict = field(default_factory=dict)  # (bone, property) -> value keyed into the bake
    com_offset: tuple = (0.0, 0.0, 0.0)  # COM relative to the body control's head, armature space, metres
    measurements: dict = field(default_factory=dict)

    def character(self, base: str = "human") -> Character:
        """Hips, leg lengths and foot size from the rest pose, in the solver's body frame (+Y forward)."""
        m = self.measurements
        align = m["align"]  # armature space -> solver body frame (toes along +Y)
        com = m["com"]
        hips = np.array([align @ (m["hips"][f] - com) for f in self.feet])
        legs = [np.linalg.norm(m["hips"][f] - m["support"][f]) for f in self.feet]
        l_max = MAX_FRACTION * min(legs)
        half_foot = min(np.linalg.norm((m["balls"][f] - m["support"][f])[:2]) for f in self.feet)
        width = 0.5 * min(legs) * 0.12
        template = preset(base)
        return Character(f"{template.name} ({self.rig.name})", tuple(self.feet), hips, NOMINAL_FRACTION * l_max,
                         l_max, 2.0 * half_foot, width, template.com_clearance, template.pitch_amplitude,
                         template.roll_amplitude, template.bank_gain, template.swing_clearance)


def _rigify_binding(rig):
    bones = rig.data.bones
    needed = [RIGIFY["body"], *RIGIFY["feet"].values(), *RIGIFY["hips"].values(), *RIGIFY["ankles"].values(),
              *RIGIFY["balls"].values(), *(bone for bone, _prop in RIGIFY["switches"])]
    missing = [name for name in needed if name not in bones]
    if missing:
        raise MissingBonesError(f"armature {rig.name!r} is missing bones: {', '.join(missing)}")
    binding = RigBinding(rig, RIGIFY["body"], dict(RIGIFY["feet"]), dict(RIGIFY["switches"]))
    binding.measurements = _measure(rig, binding, RIGIFY)
    return binding


def _measure(rig, binding, names):
    """Rest-pose points in armature space, and the rotation that takes the rig's facing to +Y."""
    bones = rig.data.bones

    def head(name):
        return np.array(bones[name].head_local, dtype=float)

    hips = {f: head(names["hips"][f]) for f in binding.feet}
    ankles = {f: head(names["ankles"][f]) for f in binding.feet}
    balls = {f: head(names["balls"][f]) for f in binding.feet}
    ground = min(float(bones[names["balls"][f]].tail_local[2]) for f in binding.feet)
    ground = min(ground, min(b[2] for b in balls.values()))
    support = {}
    for f in binding.feet:  # the point a footprint marks: on the ground, midway between ankle and ball
        mid = 0.5 * (ankles[f] + balls[f])
        support[f] = np.array([mid[0], mid[1], ground])
    toes = np.mean([balls[f] - ankles[f] for f in binding.feet], axis=0)
    facing = math.atan2(-toes[0], toes[1])  # the rest heading of the toes in armature space
    c, s = math.cos(-facing), math.sin(-facing)
    align = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    com = head(binding.body) + np.asarray(binding.com_offset, dtype=float)
    return {"hips": hips, "ankles": ankles, "balls": balls, "support": support, "ground": ground,
            "facing": facing, "align": align, "com": com}


def bind(rig) -> RigBinding:
    """The binding for an armature: Rigify human rigs are recognised; others raise naming what is missing."""
    if rig is None or rig.type != "ARMATURE":
        raise MissingBonesError(f"{getattr(rig, 'name', rig)!r} is not an armature object")
    return _rigify_binding(rig)
