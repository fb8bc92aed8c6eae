"""Rotations, vectorised over frames: matrices to quaternions, axis and angle between two, about an axis."""

from __future__ import annotations

import numpy as np


def _candidate_weights():
    """(10, 16): [1, m00, m01, ..., m22] to the four candidates 4 q_k q (rows w, x, y, z of each)."""
    terms = [  # per candidate, per component: {entry: coefficient}; entry "1" is the constant
        [{"1": 1, "00": 1, "11": 1, "22": 1}, {"21": 1, "12": -1}, {"02": 1, "20": -1}, {"10": 1, "01": -1}],
        [{"21": 1, "12": -1}, {"1": 1, "00": 1, "11": -1, "22": -1}, {"01": 1, "10": 1}, {"02": 1, "20": 1}],
        [{"02": 1, "20": -1}, {"01": 1, "10": 1}, {"1": 1, "00": -1, "11": 1, "22": -1}, {"12": 1, "21": 1}],
        [{"10": 1, "01": -1}, {"02": 1, "20": 1}, {"12": 1, "21": 1}, {"1": 1, "00": -1, "11": -1, "22": 1}],
    ]
    weights = np.zeros((10, 16))
    for k, candidate in enumerate(terms):
        for c, component in enumerate(candidate):
            for entry, coefficient in component.items():
                row = 0 if entry == "1" else 1 + 3 * int(entry[0]) + int(entry[1])
                weights[row, 4 * k + c] = coefficient
    return weights


_CANDIDATES = _candidate_weights()


def quaternion_from_matrix(m):
    """(N, 3, 3) rotation matrices -> (N, 4) unit quaternions (w, x, y, z), continuous in sign over N."""
    m = np.asarray(m, dtype=float)
    n = len(m)
    entries = np.empty((n, 10))
    entries[:, 0] = 1.0
    entries[:, 1:] = m.reshape(n, 9)
    # Each candidate is 4 q_k q, best conditioned where |q_k| is largest: trace, m00, m11 or m22 decides.
    candidates = (entries @ _CANDIDATES).reshape(n, 4, 4)
    score = entries[:, [1, 1, 5, 9]]  # trace (completed below), m00, m11, m22
    score[:, 0] += entries[:, 5] + entries[:, 9]
    pick = np.argmax(score, axis=1)
    q = candidates[np.arange(n), pick]
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q[q[:, 0] < 0] *= -1.0
    # Keep neighbouring frames on the same hemisphere so interpolation never takes the long way round.
    flips = np.concatenate([[False], np.einsum("nd,nd->n", q[1:], q[:-1]) < 0])
    sign = np.where(np.logical_xor.accumulate(flips), -1.0, 1.0)
    return q * sign[:, None]


def rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def axis_angle_between(r0, r1):
    """Axis (n, 3) and angle (n,) of the rotation r0^T r1."""
    rel = np.swapaxes(r0, 1, 2) @ r1
    cos = np.clip((np.trace(rel, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0)
    angle = np.arccos(cos)
    axis = np.stack([rel[:, 2, 1] - rel[:, 1, 2], rel[:, 0, 2] - rel[:, 2, 0], rel[:, 1, 0] - rel[:, 0, 1]], axis=1)
    norm = np.linalg.norm(axis, axis=1, keepdims=True)
    axis = np.where(norm > 1e-12, axis / np.maximum(norm, 1e-12), [0.0, 0.0, 1.0])
    return axis, angle


def rodrigues(axis, angle):
    """(n, 3, 3) rotations by angle (n,) about unit axis (n, 3): c I + s [a]x + (1 - c) a a^T, elementwise
    (the stacked matrix products of I + s K + (1 - c) K^2 cost more than all the rest)."""
    s, c = np.sin(angle), np.cos(angle)
    out = (1.0 - c)[:, None, None] * (axis[:, :, None] * axis[:, None, :])
    out[:, [0, 1, 2], [0, 1, 2]] += c[:, None]
    x, y, z = (s[:, None] * axis).T
    out[:, 0, 1] -= z
    out[:, 1, 0] += z
    out[:, 0, 2] += y
    out[:, 2, 0] -= y
    out[:, 1, 2] -= x
    out[:, 2, 1] += x
    return out
