"""Rotations, vectorised over frames: matrices to quaternions and back, axis and angle between two, about an axis,
slerp and its ease-in/ease-out weight."""

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


def ease_in_out(u):
    """WMZ §6's 'simple ease-in/ease-out (EIEO) time-based weighting': (1 - cos(pi u)) / 2 of u clipped to [0, 1],
    0 at u = 0, 1 at u = 1, flat at both."""
    return 0.5 - 0.5 * np.cos(np.pi * np.clip(np.asarray(u, dtype=float), 0.0, 1.0))


def slerp(q0, q1, w):
    """Quaternions (..., 4) a fraction w (...) of the shortest way from unit q0 to unit q1 (WMZ §6's 'slerp').
    The angle between them is computed once for each pair, however many weights they are blended at."""
    q0, q1 = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    dot = np.sum(q0 * q1, axis=-1, keepdims=True)
    q1 = np.where(dot < 0.0, -q1, q1)
    angle = np.arccos(np.minimum(np.abs(dot), 1.0))
    sin = np.sin(angle)
    # sin(w angle) / sin(angle) -> w as the angle -> 0 (the same rotation twice): the lerp there
    inverse = np.where(sin > 1e-9, 1.0, 0.0) / np.where(sin > 1e-9, sin, 1.0)
    w = np.asarray(w, dtype=float)[..., None]
    same = inverse == 0.0
    q = np.where(same, 1.0 - w, np.sin((1.0 - w) * angle) * inverse) * q0
    q += np.where(same, w, np.sin(w * angle) * inverse) * q1
    return q


def quaternion_matrices(q):
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) (w, x, y, z)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
    ], axis=-2)


def wrap_angle(angle):
    """Angles into [-pi, pi): the short way round."""
    return (np.asarray(angle, dtype=float) + np.pi) % (2.0 * np.pi) - np.pi


def smoothstep(x):
    """3x^2 - 2x^3 of x clipped to [0, 1]: 0 and flat at 0, 1 and flat at 1."""
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)
