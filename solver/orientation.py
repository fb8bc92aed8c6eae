"""Body orientation (vdP97 §2.6): yaw from the feet, procedural pitch and roll, banking into turns.

Rotation of the body frame (+X right, +Y forward, +Z up) is R = Rz(yaw) Rx(pitch) Ry(roll): positive
pitch raises the front, positive roll lowers the right side.
"""

from __future__ import annotations

import numpy as np

from .character import GRAVITY

YAW_WINDOW = 1.0  # seconds: the moving window over which the feet's headings are averaged


def body_yaw(times, contact, liftoff, headings, window: float = YAW_WINDOW):
    """Circular mean of footprint headings weighted by their contact time inside [t - w/2, t + w/2]."""
    t = np.asarray(times, dtype=float)[:, None]
    overlap = np.clip(np.minimum(t + window / 2, liftoff[None, :]) - np.maximum(t - window / 2, contact[None, :]),
                      0.0, None)
    # Far from any contact (a long flight), the nearest footprints in time decide.
    gap = np.maximum(contact[None, :] - t, t - liftoff[None, :]).clip(0.0)
    weights = np.where(overlap.sum(axis=1, keepdims=True) > 0, overlap, np.exp(-(gap - gap.min(axis=1, keepdims=True))))
    return np.arctan2(weights @ np.sin(headings), weights @ np.cos(headings))


def stride_phase(times, contact):
    """Gait phase psi: advances by pi from each footfall to the next (a biped stride is 2 pi)."""
    falls = np.unique(contact)
    if len(falls) < 2:
        return np.zeros(len(times))
    k = np.arange(len(falls)) * np.pi
    rate_start = np.pi / (falls[1] - falls[0])
    rate_end = np.pi / (falls[-1] - falls[-2])
    t = np.asarray(times, dtype=float)
    psi = np.interp(t, falls, k)
    psi = np.where(t < falls[0], (t - falls[0]) * rate_start, psi)
    return np.where(t > falls[-1], k[-1] + (t - falls[-1]) * rate_end, psi)


def oscillation(psi, pitch_amplitude, roll_amplitude):
    """Pitch twice per stride, roll once, towards the stance side (the left foot lands at psi = 0)."""
    return pitch_amplitude * np.sin(2.0 * psi), -roll_amplitude * np.sin(psi)


def bank(acceleration, yaw, gain):
    """Lean into turns: a fraction of the angle whose tangent is lateral acceleration over g."""
    right = np.stack([np.cos(yaw), np.sin(yaw)], axis=-1)
    lateral = np.einsum("sd,sd->s", np.asarray(acceleration)[:, :2], right)
    return gain * np.arctan2(lateral, GRAVITY)


def rotation_matrices(yaw, pitch, roll):
    """(S, 3, 3) = Rz(yaw) Rx(pitch) Ry(roll)."""
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    zeros, ones = np.zeros_like(yaw), np.ones_like(yaw)
    rz = np.stack([cy, -sy, zeros, sy, cy, zeros, zeros, zeros, ones], axis=-1).reshape(-1, 3, 3)
    rx = np.stack([ones, zeros, zeros, zeros, cp, -sp, zeros, sp, cp], axis=-1).reshape(-1, 3, 3)
    ry = np.stack([cr, zeros, sr, zeros, ones, zeros, -sr, zeros, cr], axis=-1).reshape(-1, 3, 3)
    return rz @ rx @ ry
