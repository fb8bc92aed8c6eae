"""A rig binding: the body control, one IK control per foot, and the rest-pose measurements that turn the
armature into a solver Character (hips, leg lengths, foot size) and map solver frames onto bones."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ...solver import json_input
from ...solver.body.transforms import rotation_z
from ...solver.character import (ALL_FEET, QUADRUPED_FEET, QUADRUPED_NOMINAL, QUADRUPED_REACH, QUADRUPEDS, Character,
                                 preset)
from . import rigify_quadruped
from .armature import MissingBonesError, copied_frame, upright_rotation


# Rigify human rigs, generated from Blender's bundled metarig: IK controls, IK/FK switches, and the ORG
# bones that give the rest proportions.
RIGIFY = {
    "name": "Rigify",
    "body": "torso",
    "feet": {"L": "foot_ik.L", "R": "foot_ik.R"},
    "hips": {"L": "ORG-thigh.L", "R": "ORG-thigh.R"},
    "ankles": {"L": "ORG-foot.L", "R": "ORG-foot.R"},
    "balls": {"L": "ORG-toe.L", "R": "ORG-toe.R"},
    "heels": {"L": "ORG-heel.02.L", "R": "ORG-heel.02.R"},  # across the back of the sole, on the ground
    "toes": {"L": "toe_ik.L", "R": "toe_ik.R"},  # bent at heel-off so the toes stay flat on the ground
    "upper_body": {"chest": "chest", "neck": "neck", "head": "head",
                   "arms": {"L": ["upper_arm_fk.L", "forearm_fk.L"], "R": ["upper_arm_fk.R", "forearm_fk.R"]}},
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
NOMINAL_FRACTION = 0.983  # l_nom / l_max: a biped's stance leg with its knee about 10 degrees bent, the hip over
# mid-foot (0.97 bent it 32 degrees: the crouched walk of issue 28)
BIPED_MAX_FRACTION = 1.015  # l_max / the rest leg (hip to mid-foot): the barrier, Weights.barrier_margin short of
# l_max, starts at the straight rest leg; hip to mid-foot reaches past it only with the hip behind or ahead of the
# foot, which the heel strike and the heel-off take up (the IK never stretches: legs.py turns the foot)
END_FRACTION = 0.99  # of a quadruped chain's reach to its paw (Character.leg_ends): IK keeps a hair of bend
REACH_FRACTION = 0.998  # of thigh + shin: the heel lifts before the IK chain locks straight (knee 7 degrees)
# Quadrupeds (the solver's _quadruped presets' convention): the centre of mass the fore mass's share
# (Character.fore_share) of the way from the hind hips to the fore hips, at their mean height; l_nom that
# height, l_max QUADRUPED_REACH times it. Each leg's own maximal length is QUADRUPED_REACH times its rest
# hip-to-support distance or the farthest its hip stands over the flat paw with the chain within END_FRACTION of
# its reach, the shorter; its nominal one its rest length, at most QUADRUPED_NOMINAL of that maximal.
SOLE_UNDER_BONES = 0.05  # of the hip height: a biped without heel bones whose origin lies this close under its
# lowest foot bone stands on its origin (its soles there, not at the ball joint)
HEEL_BEHIND_ANKLE = 0.5  # of the ankle's height over the sole: where the back of a heel lies behind the ankle on a
# rig without a heel bone (a human's heel bone reaches 4-5 cm behind the ankle joint, 7-8 cm up; Rigify's
# metarig places its heel 3 cm behind a 8.5 cm ankle)
SWING_CLEARANCE = 0.05  # l_nom: the sole's clearance at mid-swing. A rig's l_nom is near its full leg, so the
# presets' 0.08 lifted the foot 8 cm and bent the Rigify human's knee 73 degrees in swing; 0.05 bends it 67
# (gait data: about 60 at initial swing, Perry & Burnfield 2010, ch. 5)


@dataclass
class RigBinding:
    rig: object
    body: str
    feet: dict  # foot name -> IK control bone
    switches: dict = field(default_factory=dict)  # (bone, property) -> value keyed into the bake
    com_offset: tuple = (0.0, 0.0, 0.0)  # COM relative to the body control's head, armature space, metres
    measurements: dict = field(default_factory=dict)
    ankles: dict = field(default_factory=dict)  # foot name -> the bone at the ankle (follows the pose)
    balls: dict = field(default_factory=dict)  # foot name -> the bone at the ball of the foot (tail: toe tip)
    hips: dict = field(default_factory=dict)  # foot name -> the bone at the hip joint (follows the pose)
    heels: dict = field(default_factory=dict)  # foot name -> a bone lying across the back of the heel, if any
    toes: dict = field(default_factory=dict)  # foot name -> the toe control bent at heel-off, if any
    upper_body: dict = field(default_factory=dict)  # chest, neck, head, arms {foot side: [upper, fore]}; the
    # bake turns the chest and the head (steadied against the chest), the neck stays at rest
    missing_parts: tuple = ()  # what this rig lacks for the whole body (said in the reports)
    rolls: dict = field(default_factory=dict)  # quadrupeds: foot name -> [heel roll controls] (Rigify's paws
    # roll them themselves as the leg reaches; recorded, left to the rig)
    spine: dict = field(default_factory=dict)  # quadrupeds: hips, chest, neck, head, tail controls (the
    # tail's: its root bone or Rigify's master)
    tail_controls: tuple = ()  # quadrupeds: the tail's bones turned by the bake, root to tip (Rigify's FK
    # controls; else the tail bone and its connected descendants)
    frames: dict = field(default_factory=dict)  # control -> the bone whose world rotation its parent copies
    # (Rigify's neck, head and tail follow the torso or the root with the follow switches at 0)

    @property
    def is_quadruped(self) -> bool:
        """Four legs, hind and fore (LH, RH, LF, RF)."""
        return set(self.feet) == set(QUADRUPED_FEET)

    def character(self, base: str = "human") -> Character:
        """Hips, leg lengths and foot size from the rest pose, in the solver's body frame (+Y forward)."""
        if self.is_quadruped:
            return self._quadruped_character(base)
        m = self.measurements
        align = m["align"]  # upright armature space -> solver body frame (toes along +Y)
        com = m["com"]
        hips = np.array([align @ (m["hips"][f] - com) for f in self.feet])
        legs = [np.linalg.norm(m["hips"][f] - m["support"][f]) for f in self.feet]
        l_max = BIPED_MAX_FRACTION * min(legs)
        half_foot = min(np.linalg.norm((m["balls"][f] - m["support"][f])[:2]) for f in self.feet)
        width = 0.5 * min(legs) * 0.12
        ankle = np.mean([align @ (m["ankles"][f] - m["support"][f]) for f in self.feet], axis=0)
        heel = np.mean([-(align @ (m["heels"][f] - m["support"][f]))[1] for f in self.feet])
        toe = np.mean([(align @ (m["toe_tips"][f] - m["support"][f]))[1] for f in self.feet])
        reach = REACH_FRACTION * min(m["chains"][f] for f in self.feet)
        template = preset(base)
        return Character(f"{template.name} ({self.rig.name})", tuple(self.feet), hips, NOMINAL_FRACTION * l_max,
                         l_max, 2.0 * half_foot, width, template.com_clearance, template.pitch_amplitude,
                         template.roll_amplitude, template.bank_gain, SWING_CLEARANCE,
                         tuple(float(v) for v in ankle), float(reach),
                         ball_height=float(np.mean([m["balls"][f][2] - m["ground"] for f in self.feet])),
                         heel_length=float(max(heel, half_foot)), toe_length=float(max(toe, half_foot)))

    def _quadruped_character(self, base):
        """A quadruped from its rest pose, as the solver's presets are built (character._quadruped): hips
        relative to the centre of mass (the fore mass's share of the way from the hind hips to the fore hips, at their
        mean height), l_nom the hips' mean height, l_max QUADRUPED_REACH times it; each leg its own nominal
        (its rest hip-to-support distance) and maximal length (see QUADRUPED_REACH); the paw's length from
        the ball to the tip. The solver's legs end at the sole's middle; each bone chain's own end and reach
        (leg_ends) let the paw roll onto its tip where the hip leaves it behind (body/legs.py)."""
        m = self.measurements
        align, com, ground = m["align"], m["com"], m["ground"]
        feet = tuple(self.feet)
        hips = np.array([align @ (m["hips"][f] - com) for f in feet])
        l_nom = float(com[2] - ground)
        rest = np.array([np.linalg.norm(m["hips"][f] - m["support"][f]) for f in feet])
        # Each chain's end (the IK's, where the paw or the pastern starts) from the support point along the paw
        # and up, its reach, the paw's tip ahead of the support point, and whether it folds in swing (a paw; not
        # a hoof, whose second heel control turns the pastern: folded, it stretched the horse's upper arm 6 %).
        ends = np.array([[(align @ (m["leg_ends"][f] - m["support"][f]))[1], m["leg_ends"][f][2] - ground,
                          END_FRACTION * m["end_reach"][f], (align @ (m["toe_tips"][f] - m["support"][f]))[1],
                          float(len(self.rolls.get(f, ())) < 2)] for f in feet])
        # The farthest a hip stands over its flat paw with the chain within reach (as Character.standing_reach);
        # a wolf's and a horse's front legs stand within a few millimetres of it.
        over_paw = ends[:, 1] + np.sqrt(np.maximum(ends[:, 2] ** 2 - ends[:, 0] ** 2, 0.0))
        longest = np.maximum(np.minimum(QUADRUPED_REACH * rest, over_paw), 1.002 * rest)  # (l_max > l_nom)
        nominal = np.minimum(rest, QUADRUPED_NOMINAL * longest)
        l_max = max(QUADRUPED_REACH * l_nom, float(longest.max()))  # the legs' own limits are per leg; the one
        # length's (lifted feet kept within reach, the heel-off) must not cut the longest leg short
        half = min(np.linalg.norm((m["toe_tips"][f] - m["support"][f])[:2]) for f in feet)
        template = preset(base if base in QUADRUPEDS else "dog")  # its optional numbers, two-mass body too
        width = template.foot_width / template.foot_length * 2.0 * half
        return replace(template, name=f"{template.name} ({self.rig.name})", feet=feet, hip_offsets=hips,
                       leg_length_nominal=l_nom, leg_length_max=l_max, foot_length=2.0 * half, foot_width=width,
                       heel_length=float(half), toe_length=float(half), leg_lengths=np.column_stack([nominal, longest]),
                       leg_ends=ends if all(m["rigify_paws"].values()) else None)  # (a plain armature's
        # paws stay flat: Blender's iterative IK, nearly straight, flipped a rolled front paw's chain 4 cm aside)


def mapping_bones(mapping):
    """The bones a mapping cannot do without (the rest are optional: what is there is used)."""
    names = [mapping["body"], *mapping["feet"].values(), *mapping["hips"].values(), *mapping["ankles"].values(),
             *mapping["balls"].values(), *mapping.get("switches", {})]
    return list(dict.fromkeys(names))


QUADRUPED_NOTE = "feet LH, RH, LF, RF: left hind, right hind, left fore, right fore"



def detect(rig):
    """The mapping for an armature: its own explicit one, else the first known naming scheme it matches
    completely, else an error that says what the armature is and what to do."""
    explicit = rig.data.get(MAPPING_KEY)
    if explicit is not None:
        return explicit_mapping(rig.name, explicit)
    chains = rigify_quadruped.limb_chains(rig) if rig.type == "ARMATURE" else []  # one walk over the pose bones
    if rigify_quadruped.is_quadruped(chains):
        return rigify_quadruped.mapping(rig, chains)
    bones = rig.data.bones
    missing = [sum(name not in bones for name in mapping_bones(m)) for m in (RIGIFY, AUTO_RIG_PRO)]
    closest = (RIGIFY, AUTO_RIG_PRO)[int(np.argmin(missing))]
    if min(missing) <= len(mapping_bones(closest)) // 2:  # a known rig, whole or with a few bones lost
        return closest  # (the binding lists what is missing)
    names = set(bones.keys())
    if any(name.endswith("Hips") and "mixamo" in name.lower() for name in names):
        raise MissingBonesError(f"armature {rig.name!r} is a Mixamo rig without foot IK controls: run "
                                f"'Set up Leg IK' on it first")
    if {"thigh.L", "shin.L", "foot.L", "heel.02.L"} <= names:  # the metarig's own names: not generated yet
        raise MissingBonesError(f"armature {rig.name!r} is a Rigify metarig, not a rig: select it and press "
                                f"Generate Rig (Armature properties > Rigify), then bake onto the generated rig")
    raise MissingBonesError(f"armature {rig.name!r} is neither a generated Rigify rig nor an Auto-Rig Pro rig: "
                            f"for an armature with plain leg bones (thigh/shin/foot/toe or Mixamo names) run "
                            f"'Set up Leg IK' on it first; otherwise give it a {MAPPING_KEY!r} mapping "
                            f"(Rigify misses {missing[0]} bones, e.g. {_first_missing(bones, RIGIFY)})")


def explicit_mapping(rig_name, text):
    """An armature's own mapping (MAPPING_KEY), checked field by field: whatever a file holds there, the
    error says what is wrong with it instead of a TypeError deep in the bake."""
    def refuse(why):
        raise MissingBonesError(f"armature {rig_name!r} has a {MAPPING_KEY!r} property that {why}: fix it or "
                                f"delete it (Set up Leg IK writes a good one)")

    if not isinstance(text, str):
        refuse(f"is not JSON text but {type(text).__name__}")
    try:
        mapping = json_input.loads(text, MAPPING_KEY)
    except json_input.JsonInputError as exc:
        refuse(f"is not valid JSON ({exc})")
    if not isinstance(mapping, dict):
        refuse("is not a JSON object")
    if not isinstance(mapping.get("body"), str):
        refuse('has no "body" bone name')
    feet = mapping.get("feet")
    if isinstance(feet, dict) and set(feet) & set(QUADRUPED_FEET) and set(feet) != set(QUADRUPED_FEET):
        refuse(f'names some quadruped feet but not all four ({QUADRUPED_NOTE})')
    for part in ("feet", "hips", "ankles", "balls"):
        if not _bone_names(mapping.get(part)) or set(mapping[part]) != set(mapping["feet"]) or \
                not set(mapping[part]) <= set(ALL_FEET):
            refuse(f'has no "{part}" object naming one bone for each foot (of {", ".join(ALL_FEET)})')
    for part in ("heels", "toes"):
        if part in mapping and not _bone_names(mapping[part], empty=True):
            refuse(f'has a "{part}" that is not an object of bone names')
    rolls = mapping.get("rolls", {})
    if not isinstance(rolls, dict) or not all(
            isinstance(names, list) and all(isinstance(b, str) for b in names) for names in rolls.values()):
        refuse('has "rolls" that are not {foot: [bone, ...]}')
    if "spine" in mapping and not _bone_names(mapping["spine"], empty=True):
        refuse('has a "spine" that is not an object of bone names (hips, chest, neck, head, tail)')
    if "tail_controls" in mapping and not (isinstance(mapping["tail_controls"], list)
                                          and all(isinstance(b, str) for b in mapping["tail_controls"])):
        refuse('has "tail_controls" that are not a list of bone names (the tail, root to tip)')
    if "frames" in mapping and not _bone_names(mapping["frames"], empty=True):
        refuse('has "frames" that are not {bone: bone whose world rotation its parent copies}')
    switches = mapping.get("switches", {})
    if not isinstance(switches, dict) or not all(
            isinstance(props, dict) and all(isinstance(v, (int, float)) and math.isfinite(v) for v in props.values())
            for props in switches.values()):
        refuse('has "switches" that are not {bone: {property: number}}')
    offset = mapping.get("com_offset", [0.0, 0.0, 0.0])
    if not (isinstance(offset, list) and len(offset) == 3
            and all(isinstance(v, (int, float)) and abs(v) < 1e6 for v in offset)):
        refuse('has a "com_offset" that is not three finite numbers')
    upper = mapping.get("upper_body", {})
    if not isinstance(upper, dict) or not all(isinstance(upper.get(p, ""), str) for p in ("chest", "neck", "head")) \
            or not isinstance(upper.get("arms", {}), dict) or not all(
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(b, str) for b in pair)
                for pair in upper.get("arms", {}).values()):
        refuse('has an "upper_body" that is not {chest, neck, head: bone, arms: {foot: [upper, fore]}}')
    return mapping


def _bone_names(value, empty=False):
    return isinstance(value, dict) and (empty or value) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _first_missing(bones, mapping):
    return ", ".join([name for name in mapping_bones(mapping) if name not in bones][:3])


def _binding(rig, mapping):
    missing = [name for name in mapping_bones(mapping) if name not in rig.data.bones]
    if missing:
        raise MissingBonesError(f"armature {rig.name!r} ({mapping.get('name', 'mapping')}) is missing bones: "
                                f"{', '.join(missing)}")
    switches = {(bone, prop): value for bone, props in mapping.get("switches", {}).items()
                for prop, value in props.items()}
    present = set(rig.data.bones.keys())
    heels = {f: b for f, b in mapping.get("heels", {}).items() if b in present}
    toes = {f: b for f, b in mapping.get("toes", {}).items() if b in present}
    upper = mapping.get("upper_body", {})
    upper_body = {part: upper[part] for part in ("chest", "neck", "head") if upper.get(part) in present}
    arms = {f: list(pair) for f, pair in upper.get("arms", {}).items() if all(b in present for b in pair)}
    if arms:
        upper_body["arms"] = arms
    feet = dict(mapping["feet"])
    rolls = {f: [b for b in names if b in present] for f, names in mapping.get("rolls", {}).items() if f in feet}
    spine = {part: name for part, name in mapping.get("spine", {}).items() if name in present}
    tail_controls = tuple(b for b in mapping.get("tail_controls", []) if b in present)
    if not tail_controls and "tail" in spine:  # the tail bone and its connected descendants
        tail_controls = _connected_chain(rig.data.bones[spine["tail"]])
    frames = {b: f for b, f in mapping.get("frames", {}).items() if b in present and f in present}
    if "frames" not in mapping and "head" in upper_body:  # a biped's head whose parent copies another bone's
        # world rotation (Rigify's follows the torso, with head_follow at 0): turned against that bone, the
        # follow switch keyed so the copy stays whole
        frame = copied_frame(rig, upper_body["head"])
        if frame is not None:
            frames[upper_body["head"]] = frame[0]
            if frame[1] is not None:
                switches[frame[1][:2]] = frame[1][2]
    if set(feet) == set(QUADRUPED_FEET):  # the legs, torso, spine, neck, head and tail the rig has are baked
        lacking = [f"{part} control" for part in ("hips", "chest", "neck", "head", "tail") if part not in spine]
    else:
        lacking = [f"heel bone ({', '.join(feet)})" if len(heels) < len(feet) else "",
                   f"toe control ({', '.join(feet)})" if len(toes) < len(feet) else "",
                   *(f"{part} bone" for part in ("chest", "head") if part not in upper_body),  # (neck at rest)
                   "arm bones" if len(arms) < 2 else ""]
    binding = RigBinding(rig, mapping["body"], feet, switches, tuple(mapping.get("com_offset", (0.0, 0.0, 0.0))),
                         ankles=dict(mapping["ankles"]), balls=dict(mapping["balls"]), hips=dict(mapping["hips"]),
                         heels=heels, toes=toes, upper_body=upper_body,
                         missing_parts=tuple(part for part in lacking if part), rolls=rolls, spine=spine,
                         tail_controls=tail_controls, frames=frames)
    binding.measurements = _measure(rig, binding, mapping)
    return binding


def _connected_chain(bone, longest=64):
    """The bone and its descendants while each has exactly one connected child."""
    chain = [bone.name]
    while len(chain) < longest:
        children = [c for c in bone.children if c.use_connect]
        if len(children) != 1:
            break
        bone = children[0]
        chain.append(bone.name)
    return tuple(chain)


def _measure(rig, binding, names):
    """Rest-pose points in upright armature space (armature units, turned by the object's rotation so +Z is
    up), and the rotation that takes the rig's facing to +Y."""
    bones = rig.data.bones
    upright = upright_rotation(rig)

    def head(name):
        return upright @ np.array(bones[name].head_local, dtype=float)

    def tail(name):
        return upright @ np.array(bones[name].tail_local, dtype=float)

    hips = {f: head(names["hips"][f]) for f in binding.feet}
    ankles = {f: head(names["ankles"][f]) for f in binding.feet}
    balls = {f: head(names["balls"][f]) for f in binding.feet}
    tips = {f: tail(names["balls"][f]) for f in binding.feet}
    # The sole at rest: the lowest of the heel bones, the balls and the toe tips (a Rigify toe's tail is its
    # middle, 17 mm above the sole; the heel bone lies on the ground).
    lowest = [p[2] for p in (*balls.values(), *tips.values())]
    lowest += [point[2] for b in binding.heels.values() for point in (head(b), tail(b))]
    ground = min(lowest)
    quadruped = binding.is_quadruped
    hip_height = np.mean([hips[f][2] for f in binding.feet]) - ground
    if not quadruped and not binding.heels and 0.0 <= ground <= SOLE_UNDER_BONES * hip_height:
        # No bone on the sole (a Mixamo foot ends in the toe base, 25 mm up): the floor the armature stands
        # on, its origin, when that lies just under the feet' lowest bone.
        ground = 0.0
    # The rest heading of the toes in upright space: ankle to ball; a quadruped's paw, ball to tip (its hock
    # stands behind the ball, and a horse's pastern slopes from the fetlock to the hoof).
    toes = np.mean([(tips[f] - balls[f]) if quadruped else (balls[f] - ankles[f]) for f in binding.feet], axis=0)
    facing = math.atan2(-toes[0], toes[1])
    align = rotation_z(-facing)
    forward = align.T @ np.array([0.0, 1.0, 0.0])
    support, heels = {}, {}
    for f in binding.feet:  # the point a footprint marks: on the ground, midway between ankle and ball (a
        mid = 0.5 * ((balls[f] + tips[f]) if quadruped else (ankles[f] + balls[f]))  # paw: ball and tip)
        support[f] = np.array([mid[0], mid[1], ground])
        if f in binding.heels:  # the heel's back on the sole, on the foot's line (the bone lies across it)
            back = min(head(binding.heels[f]) @ forward, tail(binding.heels[f]) @ forward)
            heels[f] = support[f] + (back - support[f] @ forward) * forward
        elif quadruped:  # no bone named for it: the paw's back, at the ball, is the sole's back
            heels[f] = support[f] + ((balls[f] - support[f]) @ forward) * forward
        else:  # no heel bone (said in the rig report): the sole behind the ankle, as a heel reaches
            behind = HEEL_BEHIND_ANKLE * (ankles[f][2] - ground)
            heels[f] = np.array([ankles[f][0], ankles[f][1], ground]) - behind * forward
    com = head(binding.body) + upright @ np.asarray(binding.com_offset, dtype=float)
    leg_ends, end_reach = {}, {}
    if quadruped:  # the centre of mass between the hips (character._quadruped), and where each leg's chain ends
        hind = 0.5 * (hips["LH"] + hips["RH"])
        fore = 0.5 * (hips["LF"] + hips["RF"])
        com = hind + Character.fore_share * (fore - hind)  # the default body's share
        com[2] = 0.5 * (hind[2] + fore[2])
        for f in binding.feet:  # Rigify's paws turn the metatarsus (metacarpus) with a second IK chain of the
            # thigh and a bone from the shin's head to the metatarsus's tail, kept at its rest length
            # (limbs.front_paw, rear_paw): the leg reaches that far to the paw (a hoof's pastern) before its bones
            # stretch, short of the straight chain (the wolf's front leg by 13 mm; taken as the chain plus the paw
            # in one line, IK stretched the wolf's front leg bones by 7-15 %, the horse's by 19-35 %). Without
            # that chain (a plain armature given Set up Leg IK) one IK chain straightens from the hip to the paw.
            ankle = bones[names["ankles"][f]]
            leg_ends[f] = tail(ankle.name)
            if rigify_quadruped.turns_its_paw(bones, names["hips"][f]):
                end_reach[f] = bones[names["hips"][f]].length + np.linalg.norm(leg_ends[f] - head(ankle.parent.name))
            else:
                end_reach[f] = sum(bone.length for bone in _bones_down(bones[names["hips"][f]], ankle))
    # Thigh + shin: the hip-to-ankle distance with the knee straight.
    chains = {}
    for f in binding.feet:
        ankle_bone = bones[names["ankles"][f]]
        knee = ankle_bone.parent
        knee_head = upright @ np.array(knee.head_local) if knee is not None else None
        chains[f] = (np.linalg.norm(knee_head - hips[f]) + np.linalg.norm(ankles[f] - knee_head)
                     if knee is not None else np.linalg.norm(ankles[f] - hips[f]))
    return {"hips": hips, "ankles": ankles, "balls": balls, "toe_tips": tips, "heels": heels, "support": support,
            "ground": ground, "facing": facing, "align": align, "com": com, "chains": chains, "upright": upright,
            "leg_ends": leg_ends, "end_reach": end_reach,
            "rigify_paws": {f: rigify_quadruped.turns_its_paw(bones, names["hips"][f]) for f in binding.feet}}


def _bones_down(top, bottom):
    """The bones from top down its descendants to bottom, both included."""
    chain = [bottom]
    while chain[-1] != top:
        if chain[-1].parent is None:
            raise MissingBonesError(f"bone {bottom.name!r} does not hang from {top.name!r}")
        chain.append(chain[-1].parent)
    return chain


def bind(rig) -> RigBinding:
    """The binding for an armature: an explicit mapping, Rigify, Auto-Rig Pro, or a rig set up by
    'Set up Leg IK' (Mixamo-named or plain); otherwise an error saying what the armature is and what to do."""
    if rig is None or rig.type != "ARMATURE":
        raise MissingBonesError(f"{getattr(rig, 'name', rig)!r} is not an armature object")
    return _binding(rig, detect(rig))
