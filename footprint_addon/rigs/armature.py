"""What every binding reads off an armature, whatever its kind: the error naming the bones it lacks, the rig
object's upright rotation its rest pose is measured in, and the bone whose world rotation a control's parent
copies (Rigify's neck, head and tail follow the torso, not the chain they hang from)."""

import re

import numpy as np


class MissingBonesError(ValueError):
    """The armature lacks bones the binding needs; the message lists them."""


def upright_rotation(rig):
    """The rig object's rotation (scale removed): armature space -> upright space, whose +Z is the world's
    up (an FBX import turns Y-up armatures 90 degrees about X; everything is measured after it)."""
    m = np.array(rig.matrix_world, dtype=float)[:3, :3]
    return m / np.linalg.norm(m, axis=0)


def copied_frame(rig, control):
    """(bone, switch) when the control's parent takes its world rotation from another bone (Rigify's
    MCH-ROT-neck, -head and -tail copy the torso's or the root's, blended by a follow property through a
    driver): that bone, and (bone, property, value) of the follow switch that makes the copy whole (None
    when it is whole undriven); None when the parent copies no rotation or only part of one."""
    parent = rig.data.bones[control].parent
    if parent is None:
        return None
    for constraint in rig.pose.bones[parent.name].constraints:
        if not (constraint.type == "COPY_ROTATION" and constraint.target == rig and constraint.subtarget
                and constraint.mix_mode == "REPLACE" and constraint.owner_space == "WORLD"
                and constraint.target_space == "WORLD" and constraint.use_x and constraint.use_y
                and constraint.use_z and not constraint.mute):
            continue
        path = f'pose.bones["{parent.name}"].constraints["{constraint.name}"].influence'
        driver = rig.animation_data.drivers.find(path) if rig.animation_data else None
        if driver is None:
            return (constraint.subtarget, None) if constraint.influence == 1.0 else None
        variables = driver.driver.variables
        if len(variables) != 1 or variables[0].type != "SINGLE_PROP":
            return None
        target = variables[0].targets[0]
        match = re.fullmatch(r'pose\.bones\["([^"]+)"\]\["([^"]+)"\]', target.data_path or "")
        if target.id != rig or match is None:
            return None
        for value in (0.0, 1.0):  # the follow value at which the copy is whole (Rigify's: 0, influence 1 - follow)
            if abs(driver.evaluate(value) - 1.0) < 1e-6:
                return constraint.subtarget, (match[1], match[2], value)
        return None
    return None
