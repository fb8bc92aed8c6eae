"""What every binding reads off an armature, whatever its kind: the error naming the bones it lacks, and the
rig object's upright rotation its rest pose is measured in."""

import numpy as np


class MissingBonesError(ValueError):
    """The armature lacks bones the binding needs; the message lists them."""


def upright_rotation(rig):
    """The rig object's rotation (scale removed): armature space -> upright space, whose +Z is the world's
    up (an FBX import turns Y-up armatures 90 degrees about X; everything is measured after it)."""
    m = np.array(rig.matrix_world, dtype=float)[:3, :3]
    return m / np.linalg.norm(m, axis=0)
