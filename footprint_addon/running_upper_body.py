"""RUNNER's upper body on a rig whose binding names FK arms and a chest (Bruderlin & Calvert 1996, §3.3): arms swing with the opposite
hip, elbows flexed, the chest counter-rotating against the pelvis. Written as local rotations of the FK
arm and chest controls, relative to the torso, so they ride on whatever the body does; directions in the
binding's upright space (the rig object's rotation applied), as the bones' rest rotations."""

import numpy as np

from .body_pose import arm_rotations, rest_rotation, toe_channels

ABDUCTION = np.radians(12.0)  # arms held a little away from the body


def _rest_point(binding, name):
    """A bone's rest head in upright space (the binding's measuring frame)."""
    return binding.measurements["upright"] @ np.array(binding.rig.data.bones[name].head_local, dtype=float)


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


def upper_body_channels(binding, motion, attributes):
    """Local rotations (N, 3, 3) of the FK arms and the chest by bone name (the binding's upper body; none when the
    rig lacks them), and of the toe controls."""
    upper = binding.upper_body
    toes = toe_channels(binding, motion)  # the toes on the ground as the heel rises to push off
    if len(upper.get("arms", {})) < 2 or "chest" not in upper:
        return toes
    facing = binding.measurements["facing"]
    forward = np.array([-np.sin(facing), np.cos(facing), 0.0])  # the rig's forward, upright space
    down = np.array([0.0, 0.0, -1.0])
    right = np.cross(forward, [0.0, 0.0, 1.0])
    amplitude = 0.5 * np.radians(attributes.arm_swing)
    feet = list(binding.feet)
    flexion = np.full(len(motion.times), np.radians(attributes.elbow_flexion))
    channels = {}
    for side, (upper_arm, forearm) in upper["arms"].items():
        # Each arm swings with the opposite hip: forward as the other leg reaches forward (§3.3).
        angle = amplitude * leg_swing(motion, feet.index("R" if side == "L" else "L"))
        outward = right * np.sign((_rest_point(binding, upper_arm) @ right) or 1.0)
        arm = (np.cos(angle)[:, None] * (np.cos(ABDUCTION) * down + np.sin(ABDUCTION) * outward)
               + np.sin(angle)[:, None] * forward)
        channels[upper_arm], channels[forearm] = arm_rotations(binding, upper_arm, forearm, arm, forward, flexion)
    # Shoulders turn against the pelvis: the chest undoes the pelvic rotation and turns as far again the
    # other way, scaled by the shoulder-rotation attribute.
    rest_c = rest_rotation(binding, upper["chest"])
    counter = -(1.0 + attributes.shoulder_rotation / 20.0) * motion.yaw
    channels[upper["chest"]] = rest_c.T @ _about_z(counter) @ rest_c
    channels.update(toes)
    return channels
