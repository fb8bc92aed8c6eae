"""RUNNER's upper body on a Rigify rig (Bruderlin & Calvert 1996, §3.3): arms swing with the opposite
hip, elbows flexed, the chest counter-rotating against the pelvis. Written as local rotations of the FK
arm and chest controls, relative to the torso, so they ride on whatever the body does."""

import numpy as np

from ..solver.transforms import quaternion_from_matrix

ARMS = {"L": ("upper_arm_fk.L", "forearm_fk.L"), "R": ("upper_arm_fk.R", "forearm_fk.R")}
CHEST = "chest"
ABDUCTION = np.radians(12.0)  # arms held a little away from the body


def _rotation_between(a, b):
    """(N, 3, 3) rotations taking unit vectors a (3,) onto b (N, 3) along the shortest arc."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    v = np.cross(a, b)
    c = b @ a
    k = np.zeros((len(b), 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    return np.eye(3) + k + (k @ k) / (1.0 + c)[:, None, None]


def _about_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    r = np.zeros((len(angle), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 1, 0], r[:, 1, 1], r[:, 2, 2] = c, -s, s, c, 1.0
    return r


def leg_swing(motion, leg):
    """-1..1 over the cycle: how far the leg reaches forward (foot ahead of its hip), normalised."""
    forward = np.stack([-np.sin(motion.yaw), np.cos(motion.yaw)], axis=1)
    reach = np.einsum("nd,nd->n", (motion.feet[:, leg] - motion.hips[:, leg])[:, :2], forward)
    reach = reach - 0.5 * (reach.max() + reach.min())
    return reach / max(np.abs(reach).max(), 1e-9)


def upper_body_channels(rig, binding, motion, attributes):
    """Local quaternions (N, 4) per bone name; {} when the rig lacks the FK arm and chest controls."""
    bones = rig.data.bones
    if any(name not in bones for pair in ARMS.values() for name in pair) or CHEST not in bones:
        return {}
    facing = binding.measurements["facing"]
    forward = np.array([-np.sin(facing), np.cos(facing), 0.0])  # the rig's forward, armature space
    down = np.array([0.0, 0.0, -1.0])
    amplitude = 0.5 * np.radians(attributes.arm_swing)
    feet = list(binding.feet)
    flexion = np.radians(attributes.elbow_flexion)
    channels = {}
    for side, (upper, fore) in ARMS.items():
        # Each arm swings with the opposite hip: forward as the other leg reaches forward (§3.3).
        angle = amplitude * leg_swing(motion, feet.index("R" if side == "L" else "L"))
        outward = np.array([1.0, 0.0, 0.0]) * np.sign(bones[upper].head_local[0] or 1.0)
        arm = (np.cos(angle)[:, None] * (np.cos(ABDUCTION) * down + np.sin(ABDUCTION) * outward)
               + np.sin(angle)[:, None] * forward)
        rest_u = np.array(bones[upper].matrix_local)[:3, :3]
        rest_f = np.array(bones[fore].matrix_local)[:3, :3]
        turn_u = _rotation_between(rest_u[:, 1], arm)
        # The forearm bends forward from the upper arm by the elbow flexion.
        ahead = forward - (arm @ forward)[:, None] * arm
        ahead /= np.linalg.norm(ahead, axis=1, keepdims=True)
        fore_dir = np.cos(flexion) * arm + np.sin(flexion) * ahead
        turn_f = _rotation_between(rest_f[:, 1], fore_dir)
        local_u = rest_u.T @ turn_u @ rest_u
        local_f = rest_f.T @ np.swapaxes(turn_u, 1, 2) @ turn_f @ rest_f
        channels[upper] = quaternion_from_matrix(local_u)
        channels[fore] = quaternion_from_matrix(local_f)
    # Shoulders turn against the pelvis: the chest undoes the pelvic rotation and turns as far again the
    # other way, scaled by the shoulder-rotation attribute.
    rest_c = np.array(bones[CHEST].matrix_local)[:3, :3]
    counter = -(1.0 + attributes.shoulder_rotation / 20.0) * motion.yaw
    channels[CHEST] = quaternion_from_matrix(rest_c.T @ _about_z(counter) @ rest_c)
    return channels
