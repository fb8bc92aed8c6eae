"""The walking attributes' upper body and toes on a rig: solver angles (solver.body.walking, body frame)
turned into local rotations of the rig's chest, head, FK arm and toe controls (any rig whose binding names
them: Rigify, a rig set up by Set up Leg IK, an explicit mapping). Each is a rotation relative to the
bone's parent at rest, so it rides on whatever the body control does; keyed in each bone's own rotation
mode by the bake, followed through Copy Rotation constraints by the preview."""

import numpy as np
from mathutils import Matrix

from ..solver.body import walking
from ..solver.transforms import quaternion_from_matrix, rodrigues


def rotation_between(a, b):
    """(N, 3, 3) rotations taking unit vector a (3,) onto b (N, 3) along the shortest arc."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    v = np.cross(a, b)
    c = b @ a
    k = np.zeros((len(b), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    return np.eye(3) + k + (k @ k) / np.maximum(1.0 + c, 1e-9)[:, None, None]


def rest_rotation(binding, name):
    """The bone's rest rotation in upright space (the binding's measuring frame)."""
    upright = binding.measurements["upright"]
    return upright @ np.array(binding.rig.data.bones[name].matrix_local, dtype=float)[:3, :3]


def arm_rotations(binding, upper_arm, forearm, arm, forward, elbow):
    """Local rotations (N, 3, 3) of an upper arm pointing along arm (N, 3, upright space) and of its
    forearm bent forward (toward forward (3,)) from it by elbow (N,) radians."""
    ahead = forward - (arm @ forward)[:, None] * arm
    ahead /= np.linalg.norm(ahead, axis=1, keepdims=True)
    fore = np.cos(elbow)[:, None] * arm + np.sin(elbow)[:, None] * ahead
    rest_u, rest_f = rest_rotation(binding, upper_arm), rest_rotation(binding, forearm)
    turn_u = rotation_between(rest_u[:, 1], arm)
    turn_f = rotation_between(rest_f[:, 1], fore)
    return rest_u.T @ turn_u @ rest_u, rest_f.T @ np.swapaxes(turn_u, 1, 2) @ turn_f @ rest_f


def _local(binding, name, turn_up):
    """Local rotations (N, 3, 3) of a bone that turn it by turn_up (N, 3, 3, upright space) about its head."""
    rest = rest_rotation(binding, name)
    return rest.T @ turn_up @ rest


def channels(binding, motion, attributes):
    """Local rotations (N, 3, 3) per bone name: chest, head, arms, toes, for the parts the binding has."""
    align = binding.measurements["align"]  # upright -> body frame
    pose = walking.upper_body(motion, attributes)
    upper = binding.upper_body
    out = {}

    def to_upright(rotations):  # body-frame rotations (N, 3, 3) -> upright space
        return align.T @ rotations @ align

    for part, rotations in (("chest", pose.chest), ("head", pose.head)):
        if part in upper:
            out[upper[part]] = _local(binding, upper[part], to_upright(rotations))
    for side, (upper_arm, forearm) in upper.get("arms", {}).items():
        if side not in pose.shoulder:
            continue
        theta = pose.shoulder[side][:, None]
        outward = np.array([-1.0 if side == "L" else 1.0, 0.0, 0.0])
        hang = np.cos(pose.abduction) * np.array([0.0, 0.0, -1.0]) + np.sin(pose.abduction) * outward
        arm = np.cos(theta) * hang + np.sin(theta) * np.array([0.0, 1.0, 0.0])  # body frame
        out[upper_arm], out[forearm] = arm_rotations(binding, upper_arm, forearm, arm @ align,  # (align.T @ v)
                                                     align.T @ [0.0, 1.0, 0.0], pose.elbow[side])
    bends = walking.toe_bends(motion)
    lateral = np.cross(align.T @ [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])  # toes up: forward turns toward up
    for leg, foot in enumerate(motion.character.feet):
        if foot in binding.toes:
            out[binding.toes[foot]] = _local(binding, binding.toes[foot], rodrigues(np.broadcast_to(lateral, (len(bends), 3)), bends[:, leg]))
    return out


def rotation_channels(rig, rotations):
    """{(data path, index): (N,) values} that key each bone's local rotations (N, 3, 3) in its own rotation
    mode: quaternions, axis and angle, or Euler angles in its order, continuous from frame to frame."""
    out = {}
    for name, matrices in rotations.items():
        pose_bone = rig.pose.bones[name]
        prefix = f'pose.bones["{name}"].'
        if pose_bone.rotation_mode in ("QUATERNION", "AXIS_ANGLE"):
            values = quaternion_from_matrix(matrices)  # sign-continuous, w first
            if pose_bone.rotation_mode == "AXIS_ANGLE":  # (angle, x, y, z)
                half = np.arccos(np.clip(values[:, 0], -1.0, 1.0))
                axis = values[:, 1:] / np.maximum(np.sin(half), 1e-12)[:, None]
                axis[np.sin(half) < 1e-12] = (0.0, 1.0, 0.0)
                values = np.column_stack([2.0 * half, axis])
                out.update({(prefix + "rotation_axis_angle", k): values[:, k] for k in range(4)})
            else:
                out.update({(prefix + "rotation_quaternion", k): values[:, k] for k in range(4)})
            continue
        eulers, previous = np.empty((len(matrices), 3)), None
        for i, matrix in enumerate(matrices):
            euler = Matrix(matrix.tolist()).to_euler(pose_bone.rotation_mode, *([previous] if previous else []))
            eulers[i], previous = euler, euler
        out.update({(prefix + "rotation_euler", k): eulers[:, k] for k in range(3)})
    return out
