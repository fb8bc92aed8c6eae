"""Rotation conversions, vectorised over frames: matrices to quaternions and Euler angles."""

from __future__ import annotations

import numpy as np


def quaternion_from_matrix(m):
    """(N, 3, 3) rotation matrices -> (N, 4) unit quaternions (w, x, y, z), continuous in sign over N."""
    m = np.asarray(m, dtype=float)
    trace = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    candidates = np.stack([
        np.stack([1 + trace, m[:, 2, 1] - m[:, 1, 2], m[:, 0, 2] - m[:, 2, 0], m[:, 1, 0] - m[:, 0, 1]], axis=1),
        np.stack([m[:, 2, 1] - m[:, 1, 2], 1 + m[:, 0, 0] - m[:, 1, 1] - m[:, 2, 2], m[:, 0, 1] + m[:, 1, 0], m[:, 0, 2] + m[:, 2, 0]], axis=1),
        np.stack([m[:, 0, 2] - m[:, 2, 0], m[:, 0, 1] + m[:, 1, 0], 1 - m[:, 0, 0] + m[:, 1, 1] - m[:, 2, 2], m[:, 1, 2] + m[:, 2, 1]], axis=1),
        np.stack([m[:, 1, 0] - m[:, 0, 1], m[:, 0, 2] + m[:, 2, 0], m[:, 1, 2] + m[:, 2, 1], 1 - m[:, 0, 0] - m[:, 1, 1] + m[:, 2, 2]], axis=1),
    ], axis=1)  # (N, 4 candidates, 4): each is 4 q_k q, best conditioned where |q_k| is largest
    pick = np.argmax(np.stack([trace, m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1), axis=1)
    q = candidates[np.arange(len(m)), pick]
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q[q[:, 0] < 0] *= -1.0
    # Keep neighbouring frames on the same hemisphere so interpolation never takes the long way round.
    flips = np.concatenate([[False], np.einsum("nd,nd->n", q[1:], q[:-1]) < 0])
    sign = np.where(np.logical_xor.accumulate(flips), -1.0, 1.0)
    return q * sign[:, None]


def euler_xyz_from_matrix(m):
    """(N, 3, 3) -> (N, 3) Euler angles for Blender's 'XYZ' order (R = Rz Ry Rx), unwrapped over N."""
    m = np.asarray(m, dtype=float)
    y = np.arcsin(np.clip(-m[:, 2, 0], -1.0, 1.0))
    x = np.arctan2(m[:, 2, 1], m[:, 2, 2])
    z = np.arctan2(m[:, 1, 0], m[:, 0, 0])
    return np.unwrap(np.stack([x, y, z], axis=1), axis=0)


def rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
