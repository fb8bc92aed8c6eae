"""A rig binding: the body control, one IK control per foot, and the rest-pose measurements that turn the
armature into a solver Character (hips, leg lengths, foot size) and map solver frames onto bones."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from ...solver.character import Character, preset
from ...solver.transforms import rotation_z


class MissingBonesError(ValueError):
    """The armature lacks bones the binding needs; the message lists them."""


# Rigify human rigs, generated from Blender's bundled metarig: IK controls, IK/FK switches, and the ORG
# bones that give the rest proportions.
RIGIFY = {
    "name": "Rigify",
    "body": "torso",
    "feet": {"L": "foot_ik.L", "R": "foot_ik.R"},
    "hips": {"L": "ORG-thigh.L", "R": "ORG-thigh.R"},
    "ankles": {"L": "ORG-foot.L", "R": "ORG-foot.R"},
    "balls": {"L": "ORG-toe.L", "R": "ORG-toe.R"},
    # Legs on IK (0); arms on FK (1), so they ride with the torso instead of reaching for IK hands at rest.
    "switches": {"thigh_parent.L": {"IK_FK": 0.0}, "thigh_parent.R": {"IK_FK": 0.0},
                 "upper_arm_parent.L": {"IK_FK": 1.0}, "upper_arm_parent.R": {"IK_FK": 1.0}},
}
# Auto-Rig Pro's controller names (IK foot controllers switched to IK, FK controllers for proportions).
AUTO_RIG_PRO = {
    "name": "Auto-Rig Pro",
    "body": "c_root_master.x",
    "feet": {"L": "c_foot_ik.l", "R": "c_foot_ik.r"},
    "hips": {"L": "c_thigh_fk.l", "R": "c_thigh_fk.r"},
    "ankles": {"L": "c_foot_fk.l", "R": "c_foot_fk.r"},
    "balls": {"L": "c_toes_fk.l", "R": "c_toes_fk.r"},
    "switches": {"c_foot_ik.l": {"ik_fk_switch": 0.0}, "c_foot_ik.r": {"ik_fk_switch": 0.0}},
}
MAPPING_KEY = "footprint_mapping"  # JSON on the armature data: an explicit mapping, set by hand or by setup
NOMINAL_FRACTION = 0.92  # l_nom / l_max: a comfortably bent leg
MAX_FRACTION = 0.985  # l_max / the straight rest leg: IK keeps a hair of bend so knees never snap
REACH_FRACTION = 0.995  # of thigh + shin: the heel lifts before the IK chain locks straight


@dataclass
class RigBinding:
    rig: object
    body: str
    feet: dict  # foot name -> IK control bone
    switches: dict = field(default_factory=dict)  # (bone, property) -> value keyed into the bake
    com_offset: tuple = (0.0, 0.0, 0.0)  # COM relative to the body control's head, armature space, metres
    measurements: dict = field(default_factory=dict)
    ankles: dict = field(default_factory=dict)  # foot name -> the bone at the ankle (follows the pose)
    balls: dict = field(default_factory=dict)  # foot name -> the bone at the ball of the foot
    hips: dict = field(default_factory=dict)  # foot name -> the bone at the hip joint (follows the pose)

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
        ankle = np.mean([align @ (m["ankles"][f] - m["support"][f]) for f in self.feet], axis=0)
        reach = REACH_FRACTION * min(m["chains"][f] for f in self.feet)
        template = preset(base)
        return Character(f"{template.name} ({self.rig.name})", tuple(self.feet), hips, NOMINAL_FRACTION * l_max,
                         l_max, 2.0 * half_foot, width, template.com_clearance, template.pitch_amplitude,
                         template.roll_amplitude, template.bank_gain, template.swing_clearance,
                         tuple(float(v) for v in ankle), float(reach))


def mapping_bones(mapping):
    names = [mapping["body"], *mapping["feet"].values(), *mapping["hips"].values(), *mapping["ankles"].values(),
             *mapping["balls"].values(), *mapping.get("switches", {})]
    return list(dict.fromkeys(names))


def detect(rig):
    """The mapping for an armature: its own explicit one, else the first known naming scheme it matches
    completely, else the closest one (the caller reports its missing bones)."""
    explicit = rig.data.get(MAPPING_KEY)
    if explicit:
        return json.loads(explicit)
    bones = rig.data.bones
    missing = [sum(name not in bones for name in mapping_bones(m)) for m in (RIGIFY, AUTO_RIG_PRO)]
    closest = (RIGIFY, AUTO_RIG_PRO)[int(np.argmin(missing))]
    if min(missing) == 0:  # the common case, without scanning every bone
        return closest
    prefix = next((b.name.split("Hips")[0] for b in bones if b.name.endswith("Hips") and "mixamo" in b.name.lower()),
                  None)
    if prefix is not None:
        raise MissingBonesError(f"armature {rig.name!r} is a Mixamo rig without foot IK controls: run "
                                f"'Set up Leg IK' on it first")
    return closest


def _binding(rig, mapping):
    missing = [name for name in mapping_bones(mapping) if name not in rig.data.bones]
    if missing:
        raise MissingBonesError(f"armature {rig.name!r} ({mapping.get('name', 'mapping')}) is missing bones: "
                                f"{', '.join(missing)}")
    switches = {(bone, prop): value for bone, props in mapping.get("switches", {}).items()
                for prop, value in props.items()}
    binding = RigBinding(rig, mapping["body"], dict(mapping["feet"]), switches,
                         tuple(mapping.get("com_offset", (0.0, 0.0, 0.0))),
                         ankles=dict(mapping["ankles"]), balls=dict(mapping["balls"]), hips=dict(mapping["hips"]))
    binding.measurements = _measure(rig, binding, mapping)
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
    align = rotation_z(-facing)
    com = head(binding.body) + np.asarray(binding.com_offset, dtype=float)
    # Thigh + shin: the hip-to-ankle distance with the knee straight.
    chains = {}
    for f in binding.feet:
        ankle_bone = bones[names["ankles"][f]]
        knee = ankle_bone.parent
        chains[f] = (np.linalg.norm(np.array(knee.head_local) - hips[f]) + np.linalg.norm(ankles[f] - np.array(knee.head_local))
                     if knee is not None else np.linalg.norm(ankles[f] - hips[f]))
    return {"hips": hips, "ankles": ankles, "balls": balls, "support": support, "facing": facing,
            "align": align, "com": com, "chains": chains}


def bind(rig) -> RigBinding:
    """The binding for an armature: an explicit mapping, Rigify, Auto-Rig Pro, or a rig set up by
    'Set up Leg IK' (Mixamo-named or plain); otherwise an error listing the bones that are missing."""
    if rig is None or rig.type != "ARMATURE":
        raise MissingBonesError(f"{getattr(rig, 'name', rig)!r} is not an armature object")
    return _binding(rig, detect(rig))
