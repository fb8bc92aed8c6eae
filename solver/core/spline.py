"""The body's trajectory: C1 cubic Hermite segments between knots (vdP97 §2.3, Torkos §4.3).

Each knot carries a state [position (D), velocity (D)]: a biped's COM (D = 3), or a quadruped's COM and
spine vector, fore mass minus hind mass (D = 6; Torkos's two masses). Free variables are the states of all knots except
those that end a flight: a flight segment is ballistic by construction, its end state the exact image of
its start state under gravity (p1 = p0 + v0 h + g h^2 / 2, v1 = v0 + g h), so the Hermite cubic through
them is the parabola itself and the COM's flight-phase acceleration equals g exactly (a spine vector's
components have no gravity: they move at constant rate through a flight).

Everything is linear: segment end states are G @ free_state + offset, sample positions, velocities and
accelerations are fixed combinations of the two end states. One product gives every sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY
from .schedule import Schedule

GRAVITY_VECTOR = np.array([0.0, 0.0, -GRAVITY])


def hermite_basis(s, h):
    """Coefficients (S, 4) on [P0, V0, P1, V1] for position, velocity and acceleration at s in [0, 1]."""
    s = np.asarray(s, dtype=float)
    h = np.asarray(h, dtype=float)
    s2, s3 = s * s, s * s * s
    pos = np.stack([2 * s3 - 3 * s2 + 1, h * (s3 - 2 * s2 + s), -2 * s3 + 3 * s2, h * (s3 - s2)], axis=-1)
    vel = np.stack([(6 * s2 - 6 * s) / h, 3 * s2 - 4 * s + 1, (-6 * s2 + 6 * s) / h, 3 * s2 - 2 * s], axis=-1)
    acc = np.stack([(12 * s - 6) / h**2, (6 * s - 4) / h, (-12 * s + 6) / h**2, (6 * s - 2) / h], axis=-1)
    return pos, vel, acc


def ballistic_map(h, gravity=GRAVITY_VECTOR):
    """(n, 2D, 2D) matrices and (n, 2D) offsets taking a state [position (D), velocity (D)] to its image
    after time h under the constant acceleration `gravity` (D,): g on the COM's components, 0 on the
    others (a quadruped's spine vector drifts at constant rate through a flight)."""
    h = np.asarray(h, dtype=float)
    n, dim = len(h), len(gravity)
    m = np.tile(np.eye(2 * dim), (n, 1, 1))
    m[:, np.arange(dim), dim + np.arange(dim)] = h[:, None]
    offset = np.zeros((n, 2 * dim))
    offset[:, :dim] = 0.5 * gravity * h[:, None] ** 2
    offset[:, dim:] = gravity * h[:, None]
    return m, offset


@dataclass(frozen=True)
class SplineLayout:
    """How free knot states map to each segment's end states."""

    knot_times: np.ndarray  # (K,)
    free_of_knot: np.ndarray  # (K,) index of the free state a knot derives from
    left: np.ndarray  # (n_seg,) free index giving the segment's start state
    right: np.ndarray  # (n_seg,) free index giving the segment's end state (== left across a flight)
    g_left: np.ndarray  # (n_seg, 2D, 2D)
    o_left: np.ndarray  # (n_seg, 2D)
    g_right: np.ndarray  # (n_seg, 2D, 2D)
    o_right: np.ndarray  # (n_seg, 2D)
    n_free: int

    def segment_states(self, free):
        """Start and end states (n_seg, 2D) of every segment from the free states (n_free, 2D)."""
        start = np.einsum("sij,sj->si", self.g_left, free[self.left]) + self.o_left
        end = np.einsum("sij,sj->si", self.g_right, free[self.right]) + self.o_right
        return start, end


def layout(schedule: Schedule, gravity=GRAVITY_VECTOR) -> SplineLayout:
    """The layout of a trajectory of len(gravity) components, ballistic under gravity across flights."""
    knots = schedule.knot_times
    h = np.diff(knots)
    flight = schedule.flight
    ends_flight = np.concatenate([[False], flight])  # knot k+1 closes flight segment k
    free_of_knot = np.cumsum(~ends_flight) - 1
    n_seg = len(h)
    left = free_of_knot[:-1].copy()
    right = free_of_knot[1:].copy()
    size = 2 * len(gravity)
    eye = np.tile(np.eye(size), (n_seg, 1, 1))
    g_left, g_right = eye.copy(), eye.copy()
    o_left, o_right = np.zeros((n_seg, size)), np.zeros((n_seg, size))
    m, off = ballistic_map(h, gravity)
    fl = np.flatnonzero(flight)
    g_right[fl], o_right[fl] = m[fl], off[fl]  # a flight segment ends at the ballistic image of its start
    after = fl + 1
    after = after[after < n_seg]
    g_left[after], o_left[after] = m[after - 1], off[after - 1]  # the next one starts there
    return SplineLayout(knots, free_of_knot, left, right, g_left, o_left, g_right, o_right,
                        int(free_of_knot[-1]) + 1)


def evaluate(layout_: SplineLayout, free, times):
    """Position, velocity and acceleration (S, D) at arbitrary times in [start, end] (the COM: D = 3)."""
    knots = layout_.knot_times
    times = np.asarray(times, dtype=float)
    seg = np.clip(np.searchsorted(knots, times, side="right") - 1, 0, len(knots) - 2)
    h = knots[seg + 1] - knots[seg]
    s = (times - knots[seg]) / h
    start, end = layout_.segment_states(free)
    states = np.concatenate([start, end], axis=1).reshape(len(start), 4, -1)[seg]  # (S, 4, D): P0, V0, P1, V1
    bp, bv, ba = hermite_basis(s, h)
    return (np.einsum("sk,skd->sd", bp, states), np.einsum("sk,skd->sd", bv, states),
            np.einsum("sk,skd->sd", ba, states))
