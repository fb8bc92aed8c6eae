"""'Set up Leg IK' for plain armatures (Mixamo-named or with plain thigh/shin/foot/toe bones): adds one
IK control per foot and a knee pole, IK constraints on the shins (the pole rides with its foot control), and
stores the resulting mapping on the armature so the bake finds it: legs, and the toes and upper body (chest,
neck, head, arms) where the armature has them.

A plain quadruped armature (four leg chains of four or five connected bones reaching the ground, as
Rigify's quadruped metarigs have them: thigh, shin, foot, toe, and a hoof on a horse) gets one IK control
per paw instead: a copy of the paw (hoof) bone on the ground, the chain above it (thigh down to the bone
ending at the ball) an IK chain reaching the control's head with a pole ahead of the knee (behind the
elbow for a fore leg) riding with it, the paw copying the control's rotation; feet LH, RH, LF, RF.

Up and forward are the rig's own, whatever its armature axes: an FBX import (Mixamo) turns a Y-up armature
90 degrees about X on its object, so the armature's up is the world's up taken back through the object's
rotation, and forward is the way the toes point, level."""

from __future__ import annotations

import json
import re

from mathutils import Vector

from .armature import MissingBonesError
from .binding import MAPPING_KEY

CONTROL = "FP-foot_ik.{side}"
POLE = "FP-knee_pole.{side}"
CONSTRAINT = "Footprint IK"
NAMING = (  # (thigh, shin, foot, toe) per side, and the body bone; {p} is a Mixamo prefix such as 'mixamorig:'
    {"L": ("{p}LeftUpLeg", "{p}LeftLeg", "{p}LeftFoot", "{p}LeftToeBase"),
     "R": ("{p}RightUpLeg", "{p}RightLeg", "{p}RightFoot", "{p}RightToeBase"), "body": "{p}Hips",
     "upper_body": {"chest": "{p}Spine2", "neck": "{p}Neck", "head": "{p}Head",
                    "arms": {"L": ["{p}LeftArm", "{p}LeftForeArm"], "R": ["{p}RightArm", "{p}RightForeArm"]}}},
    {"L": ("thigh.L", "shin.L", "foot.L", "toe.L"), "R": ("thigh.R", "shin.R", "foot.R", "toe.R"),
     "body": None, "upper_body": {"chest": "chest", "neck": "neck", "head": "head",
                                  "arms": {"L": ["upper_arm.L", "forearm.L"], "R": ["upper_arm.R", "forearm.R"]}}},
)


def find_legs(arm):
    """(leg chains per side, body bone) from bone names, or MissingBonesError naming what was looked for;
    a quadruped's four paw chains (see quadruped_legs) when the armature has them."""
    quadruped = quadruped_legs(arm)
    if quadruped is not None:
        return quadruped, _body_above(arm, quadruped)
    legs, body, _upper = _find(arm)
    return legs, body


QUADRUPED_CONTROL = "FP-paw_ik.{foot}"
QUADRUPED_POLE = "FP-knee_pole.{foot}"
SIDE_SUFFIX = re.compile(r"[._-]([LlRr])(\.\d+)?$")


def quadruped_legs(arm):
    """{foot: chain (thigh .. paw bone names)} of a plain armature's four legs, or None when it has not
    four: chains of four or five connected bones (each bone's head at its parent's tail) whose lowest
    bone's tail is on the armature's ground (within 3 % of its height) and whose top stands above a
    quarter of its height (a paw's digits do not), two on each side (.L/.R, else by
    the hip's side); the pair whose hips stand farther along the paws' direction are the fore legs."""
    bones = arm.bones
    if not len(bones):
        return None
    ground = min(min(b.head_local[2], b.tail_local[2]) for b in bones)
    height = max(max(b.head_local[2], b.tail_local[2]) for b in bones) - ground
    chains = []
    for bone in bones:
        if bone.tail_local[2] - ground > 0.03 * height or bone.name.startswith(("FP-", "ORG-", "DEF-", "MCH-")):
            continue
        chain = [bone]
        while chain[0].parent is not None and len(chain) < 6 and \
                (chain[0].parent.tail_local - chain[0].head_local).length <= 1e-4 * max(chain[0].length, 1e-6):
            chain.insert(0, chain[0].parent)
        if 4 <= len(chain) <= 5 and chain[0].head_local[2] - ground >= 0.25 * height:  # (not a paw's digits)
            chains.append(chain)
    tops = {}
    for chain in chains:  # one chain per hip (toes and digits hang off the same leg)
        if chain[0].name not in tops or len(chain) > len(tops[chain[0].name]):
            tops[chain[0].name] = chain
    if len(tops) != 4:
        return None
    chains = list(tops.values())
    paws = sum(((c[-1].tail_local - c[-1].head_local) for c in chains), Vector((0.0, 0.0, 0.0)))
    forward = Vector((paws.x, paws.y, 0.0)).normalized()
    right = forward.cross(Vector((0.0, 0.0, 1.0)))
    chains.sort(key=lambda c: c[0].head_local.dot(forward))
    centre = sum((c[0].head_local for c in chains), Vector((0.0, 0.0, 0.0))) / 4.0
    legs = {}
    for end, pair in (("H", chains[:2]), ("F", chains[2:])):
        sides = [(SIDE_SUFFIX.search(c[0].name) or [None, ""])[1].upper() for c in pair]
        if sorted(sides) != ["L", "R"]:
            sides = ["L" if (c[0].head_local - centre).dot(right) < 0 else "R" for c in pair]
            if sides[0] == sides[1]:
                return None
        for side, chain in zip(sides, pair):
            legs[side + end] = tuple(b.name for b in chain)
    return {foot: legs[foot] for foot in ("LH", "RH", "LF", "RF")}


def _body_above(arm, legs):
    """The four legs' nearest common ancestor: the body control of a quadruped (the spine bone both the
    pelvis and the shoulders hang from)."""
    def ancestors(name):
        out, bone = [], arm.bones[name].parent
        while bone is not None:
            out.append(bone.name)
            bone = bone.parent
        return out

    lines = [ancestors(chain[0]) for chain in legs.values()]
    common = [name for name in lines[0] if all(name in line for line in lines[1:])]
    if not common:
        raise MissingBonesError(f"armature has four legs but no body bone they all hang from "
                                f"({', '.join(chain[0] for chain in legs.values())})")
    return common[0]


def _find(arm):
    """find_legs, and the upper body the bake animates (chest, neck, head, arms {side: [upper arm, forearm]})
    of the bones the armature has under the naming its legs matched ({} when it has none)."""
    names = set(arm.bones.keys())
    prefixes = {m.group(1) for n in names for m in [re.match(r"^(.*?)Hips$", n)] if m} | {""}
    tried = []
    for scheme in NAMING:
        for p in sorted(prefixes):
            legs = {side: tuple(n.format(p=p) for n in scheme[side]) for side in ("L", "R")}
            wanted = [n for chain in legs.values() for n in chain]
            if all(n in names for n in wanted):
                thigh = arm.bones[legs["L"][0]]
                body = scheme["body"].format(p=p) if scheme["body"] else (thigh.parent.name if thigh.parent else None)
                if body is None or body not in names:
                    raise MissingBonesError(f"armature has legs but no body bone above {thigh.name!r}")
                upper = {part: scheme["upper_body"][part].format(p=p) for part in ("chest", "neck", "head")}
                upper = {part: name for part, name in upper.items() if name in names}
                arms = {side: [n.format(p=p) for n in pair] for side, pair in scheme["upper_body"]["arms"].items()}
                arms = {side: pair for side, pair in arms.items() if all(n in names for n in pair)}
                if arms:
                    upper["arms"] = arms
                return legs, body, upper
            tried.append(", ".join(n for n in wanted if n not in names))
    raise MissingBonesError(f"no leg chains found; missing: {tried[0]}")


def pole_angle(base, tip_head, pole):
    """The IK pole angle that keeps the chain where it is at rest (the pole on the knee's side)."""
    normal = (tip_head - base.head).cross(pole - base.head)
    projected = normal.cross(base.y_axis)
    angle = base.x_axis.angle(projected)
    return -angle if base.x_axis.cross(projected).dot(base.y_axis) > 0 else angle


def rig_axes(obj, edit, legs):
    """The rig's up and forward in armature space: the world's up taken back through the object's rotation
    (scale removed; an FBX import turns a Y-up armature 90 degrees about X), and the toes' mean direction
    (ankle to ball) made level; for feet with no level direction, the world's -Y (Blender's front view)."""
    to_armature = obj.matrix_world.to_3x3().normalized().inverted()
    up = (to_armature @ Vector((0.0, 0.0, 1.0))).normalized()
    toes = Vector((0.0, 0.0, 0.0))
    for _thigh, _shin, foot, toe in legs.values():
        toes += (edit[toe].head - edit[foot].head).normalized()
    forward = toes - toes.dot(up) * up
    if forward.length < 1e-6:
        forward = to_armature @ Vector((0.0, -1.0, 0.0))
    return up, forward.normalized()


def set_up(obj):
    """Edit the armature: controls, poles and constraints. Returns the mapping it stored."""
    import bpy

    arm = obj.data
    quadruped = quadruped_legs(arm)
    if quadruped is not None:
        return _set_up_quadruped(obj, quadruped)
    legs, body, upper = _find(arm)
    previous_mode = obj.mode
    pole_angles = {}
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit = arm.edit_bones
        up, forward = rig_axes(obj, edit, legs)
        for side, (thigh, shin, foot, _toe) in legs.items():
            thigh_b, shin_b, foot_b = edit[thigh], edit[shin], edit[foot]
            control = edit.get(CONTROL.format(side=side)) or edit.new(CONTROL.format(side=side))
            control.head, control.tail, control.roll = foot_b.head, foot_b.tail, foot_b.roll
            control.parent, control.use_deform = None, False
            knee = shin_b.head
            leg_length = (thigh_b.head - foot_b.head).length
            # The pole straight ahead of the knee, level with it in the rig's own frame: knees bend forward.
            # (The rest knee's own small offset from the hip-ankle line, often sideways or along the leg,
            # says nothing reliable about where it bends; the pole angle keeps the rest pose exactly.)
            pole = edit.get(POLE.format(side=side)) or edit.new(POLE.format(side=side))
            pole.head = knee + forward * 0.5 * leg_length
            pole.tail = pole.head + up * 0.1 * leg_length
            pole.parent, pole.use_deform = control, False  # the knee points where the foot goes
            pole_angles[side] = pole_angle(thigh_b, foot_b.head, pole.head)
    finally:
        bpy.ops.object.mode_set(mode="POSE")
    for side, (_thigh, shin, foot, _toe) in legs.items():
        shin_p, foot_p = obj.pose.bones[shin], obj.pose.bones[foot]
        ik = shin_p.constraints.get(CONSTRAINT) or shin_p.constraints.new("IK")
        ik.name = CONSTRAINT
        ik.target, ik.subtarget = obj, CONTROL.format(side=side)
        ik.pole_target, ik.pole_subtarget = obj, POLE.format(side=side)
        ik.pole_angle = pole_angles[side]
        ik.chain_count = 2
        rot = foot_p.constraints.get(CONSTRAINT) or foot_p.constraints.new("COPY_ROTATION")
        rot.name = CONSTRAINT
        rot.target, rot.subtarget = obj, CONTROL.format(side=side)
        for name in (CONTROL.format(side=side), POLE.format(side=side)):
            obj.pose.bones[name].rotation_mode = "QUATERNION"
    # The bones the bake turns (body, toes, upper body) take quaternions, as the controls do.
    arms = [bone for pair in upper.get("arms", {}).values() for bone in pair]
    for name in [body, *(chain[3] for chain in legs.values()),
                 *(upper[part] for part in ("chest", "neck", "head") if part in upper), *arms]:
        obj.pose.bones[name].rotation_mode = "QUATERNION"
    bpy.ops.object.mode_set(mode=previous_mode if previous_mode in {"OBJECT", "POSE"} else "OBJECT")
    mapping = _leg_mapping("Leg IK set up by Footprint Locomotion", body,
                           {side: CONTROL.format(side=side) for side in legs}, legs, ball=3)
    mapping["toes"] = {side: chain[3] for side, chain in legs.items()}  # bent at heel-off (the toes stay down)
    if upper:
        mapping["upper_body"] = upper
    arm[MAPPING_KEY] = json.dumps(mapping)
    return mapping


def _set_up_quadruped(obj, legs):
    """Set up Leg IK for four paw legs: per leg a control on the ground (a copy of the paw bone, unparented),
    an IK chain from the thigh to the bone ending at the ball reaching the control's head, a pole ahead of
    the knee for hind legs and behind the elbow for fore legs (riding with the control), the paw copying
    the control's rotation; the mapping stored with feet LH, RH, LF, RF."""
    import bpy

    arm = obj.data
    body = _body_above(arm, legs)
    previous_mode = obj.mode
    pole_angles = {}
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit = arm.edit_bones
        up = (obj.matrix_world.to_3x3().normalized().inverted() @ Vector((0.0, 0.0, 1.0))).normalized()
        for foot, chain in legs.items():
            paw, ball_bone = edit[chain[-1]], edit[chain[-2]]
            forward = paw.tail - paw.head
            forward = (forward - forward.dot(up) * up).normalized()
            control = edit.get(QUADRUPED_CONTROL.format(foot=foot)) or edit.new(QUADRUPED_CONTROL.format(foot=foot))
            control.head, control.tail, control.roll = paw.head, paw.tail, paw.roll
            control.parent, control.use_deform = None, False
            thigh, knee = edit[chain[0]], edit[chain[1]].head
            length = (thigh.head - paw.head).length
            ahead = 1.0 if foot.endswith("H") else -1.0  # stifles bend forward, elbows back
            pole = edit.get(QUADRUPED_POLE.format(foot=foot)) or edit.new(QUADRUPED_POLE.format(foot=foot))
            pole.head = knee + forward * ahead * 0.5 * length
            pole.tail = pole.head + up * 0.1 * length
            pole.parent, pole.use_deform = control, False
            pole_angles[foot] = pole_angle(thigh, ball_bone.tail, pole.head)
    finally:
        bpy.ops.object.mode_set(mode="POSE")
    for foot, chain in legs.items():
        end, paw = obj.pose.bones[chain[-2]], obj.pose.bones[chain[-1]]
        ik = end.constraints.get(CONSTRAINT) or end.constraints.new("IK")
        ik.name = CONSTRAINT
        ik.target, ik.subtarget = obj, QUADRUPED_CONTROL.format(foot=foot)
        ik.pole_target, ik.pole_subtarget = obj, QUADRUPED_POLE.format(foot=foot)
        ik.pole_angle = pole_angles[foot]
        ik.chain_count = len(chain) - 1
        ik.iterations = 5000
        for name in chain[:-1]:  # a little stretch, as Rigify's paws have: the IK reaches the control exactly
            obj.pose.bones[name].ik_stretch = 0.1  # where three bones would converge short of it
        rot = paw.constraints.get(CONSTRAINT) or paw.constraints.new("COPY_ROTATION")
        rot.name = CONSTRAINT
        rot.target, rot.subtarget = obj, QUADRUPED_CONTROL.format(foot=foot)
        for name in (QUADRUPED_CONTROL.format(foot=foot), QUADRUPED_POLE.format(foot=foot)):
            obj.pose.bones[name].rotation_mode = "QUATERNION"
    obj.pose.bones[body].rotation_mode = "QUATERNION"
    bpy.ops.object.mode_set(mode=previous_mode if previous_mode in {"OBJECT", "POSE"} else "OBJECT")
    # The ankle is the hock (wrist); the ball the paw (hoof), ball to tip.
    mapping = _leg_mapping("Leg IK set up by Footprint Locomotion (quadruped)", body,
                           {foot: QUADRUPED_CONTROL.format(foot=foot) for foot in legs}, legs, ball=-1)
    arm[MAPPING_KEY] = json.dumps(mapping)
    return mapping


def _leg_mapping(name, body, controls, legs, ball):
    """The mapping Set up Leg IK stores: the body bone, each foot's control, and from each leg's chain its hip
    (first bone), ankle (third) and ball (the bone at index `ball`)."""
    return {"name": name, "body": body, "feet": controls,
            "hips": {foot: chain[0] for foot, chain in legs.items()},
            "ankles": {foot: chain[2] for foot, chain in legs.items()},
            "balls": {foot: chain[ball] for foot, chain in legs.items()},
            "com_offset": [0.0, 0.0, 0.0]}
