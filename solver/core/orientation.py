"""Body orientation (vdP97 §2.6): yaw from the feet, procedural pitch and roll, banking into turns.

Rotation of the body frame (+X right, +Y forward, +Z up) is R = Rz(yaw) Rx(pitch) Ry(roll): positive
pitch raises the front, positive roll lowers the right side.
"""

from __future__ import annotations

import numpy as np

from ..character import GRAVITY

BODY_WINDOW = 1.0  # seconds: the moving window (vdP97 §2.6) over which the feet's headings are averaged, and
# the COM's acceleration for banking


def _time_on_ground_until(tau, contact, liftoff, values):
    """For each time tau (N,): sum over footprints of values (F, V) * (time the footprint was stood on
    before tau), (N, V).

    Piecewise linear in tau with breaks at contacts and lift-offs: prefix sums over the sorted break times
    and one searchsorted make it O((N + F) log F) instead of an N x F table.
    """
    total = np.zeros((len(tau), values.shape[1]))
    for times, sign in ((contact, 1.0), (liftoff, -1.0)):  # + (tau - c) after contact, - (tau - l) after lift-off
        order = np.argsort(times, kind="stable")
        t_sorted, v_sorted = times[order], values[order]
        cum_v = np.concatenate([np.zeros((1, values.shape[1])), np.cumsum(v_sorted, axis=0)])
        cum_vt = np.concatenate([np.zeros((1, values.shape[1])), np.cumsum(v_sorted * t_sorted[:, None], axis=0)])
        k = np.searchsorted(t_sorted, tau, side="right")
        total += sign * (tau[:, None] * cum_v[k] - cum_vt[k])
    return total


def body_yaw(times, contact, liftoff, headings, window: float = BODY_WINDOW):
    """Circular mean of footprint headings weighted by their contact time inside [t - w/2, t + w/2].

    vdP97 §2.6: the body follows the mean orientation of the feet over a moving window. Where no footprint
    is stood on inside the window (a long flight), the last footprint left and the next one reached decide.
    """
    t = np.asarray(times, dtype=float)
    both_ends = _time_on_ground_until(np.concatenate([t + window / 2, t - window / 2]), contact, liftoff,
                                      np.column_stack([np.sin(headings), np.cos(headings)]))
    sin_w, cos_w = (both_ends[:len(t)] - both_ends[len(t):]).T
    empty = np.hypot(sin_w, cos_w) < 1e-12
    if empty.any():
        by_lift = np.argsort(liftoff, kind="stable")
        by_contact = np.argsort(contact, kind="stable")
        before = by_lift[np.clip(np.searchsorted(liftoff[by_lift], t[empty], side="right") - 1, 0, len(liftoff) - 1)]
        after = by_contact[np.clip(np.searchsorted(contact[by_contact], t[empty]), 0, len(contact) - 1)]
        sin_w[empty] = np.sin(headings[before]) + np.sin(headings[after])
        cos_w[empty] = np.cos(headings[before]) + np.cos(headings[after])
    return np.arctan2(sin_w, cos_w)


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


def left_phase(times, track, psi=None):
    """The stride phase with the left foot landing at psi = 0 (mod 2 pi) whichever foot lands first; psi:
    the track's stride_phase at times, when the caller has it already."""
    psi = stride_phase(times, track.contact) if psi is None else psi
    first = np.argmin(track.contact) if len(track.contact) else 0
    return psi + (np.pi if len(track.feet) and track.feet[first] == "R" else 0.0)


def pelvis_oscillation(psi, rotation, pelvic_list):
    """The pelvis's yaw and roll (walking, psi from left_phase): the landing side forward at each heel
    strike (transverse rotation) and the swing side dropped in single support (list; Perry & Burnfield
    2010, ch. 8: about 4 degrees each way at free speed)."""
    return -rotation * np.cos(psi), pelvic_list * np.sin(psi)


def window_ends(times, start, end):
    """(before, after) (N,) each: the body's moving window around each time, clipped to the motion's
    [start, end]."""
    t = np.asarray(times, dtype=float)
    return np.maximum(t - BODY_WINDOW / 2, start), np.minimum(t + BODY_WINDOW / 2, end)


def mean_acceleration(before, after, velocity_before, velocity_after):
    """The COM's mean acceleration (N, 3) over the windows [before, after] (window_ends): the velocity's
    change across each over its length.

    Banking leans into a turn, a sustained lateral acceleration. The instantaneous one swings from side
    to side with every step (the procedural roll's part) and jumps at every knot (the spline is C1): banked
    to directly, the body snapped by up to 6 degrees in a frame at each footfall."""
    span = after - before
    mean = (velocity_after - velocity_before) / np.maximum(span, 1e-9)[:, None]
    return np.where(span[:, None] > 1e-9, mean, 0.0)


def bank(acceleration, yaw, gain):
    """Lean into turns: a fraction of the angle whose tangent is lateral acceleration over g (the mean
    acceleration over the moving window, mean_acceleration)."""
    right = np.stack([np.cos(yaw), np.sin(yaw)], axis=-1)
    lateral = np.einsum("sd,sd->s", np.asarray(acceleration)[:, :2], right)
    return gain * np.arctan2(lateral, GRAVITY)


def body_angles(times, track, character, acceleration=None):
    """Yaw, pitch and roll (each (N,)) of the body at the given times: yaw from the feet, the gait's
    oscillation, and, given the COM's mean acceleration over the moving window (N, 3), banking into
    turns (vdP97 §2.6)."""
    yaw = body_yaw(times, track.contact, track.liftoff, track.headings)
    psi = stride_phase(times, track.contact)
    pitch, roll = oscillation(psi, character.pitch_amplitude, character.roll_amplitude)
    if character.pelvic_rotation or character.pelvic_list:
        turn, tilt = pelvis_oscillation(left_phase(times, track, psi), character.pelvic_rotation,
                                        character.pelvic_list)
        yaw, roll = yaw + turn, roll + tilt
    if acceleration is not None:
        roll = roll + bank(acceleration, yaw, character.bank_gain)
    return yaw, pitch, roll


def rotation_matrices(yaw, pitch, roll):
    """(S, 3, 3) = Rz(yaw) Rx(pitch) Ry(roll), multiplied out."""
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    spsr, spcr = sp * sr, sp * cr
    out = np.empty(np.broadcast(yaw, pitch, roll).shape + (3, 3))
    out[..., 0, 0], out[..., 0, 1], out[..., 0, 2] = cy * cr - sy * spsr, -sy * cp, cy * sr + sy * spcr
    out[..., 1, 0], out[..., 1, 1], out[..., 1, 2] = sy * cr + cy * spsr, cy * cp, sy * sr - cy * spcr
    out[..., 2, 0], out[..., 2, 1], out[..., 2, 2] = -cp * sr, sp, cp * cr
    return out


def hip_offsets_in_world(yaw, pitch, roll, offsets):
    """(S, L, 3): the hips' offsets from the COM (offsets (L, 3), body frame) turned with the body."""
    rotations = rotation_matrices(yaw, pitch, roll)
    offsets = np.asarray(offsets, dtype=float)
    turned = rotations.reshape(-1, 3) @ offsets.T  # one product for every sample: (S 3, L)
    return np.swapaxes(turned.reshape(rotations.shape[0], 3, len(offsets)), 1, 2)
