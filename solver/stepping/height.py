"""The COM's height in a stepping motion: standing height over the feet, lowered (never raised) wherever a
standing leg would otherwise pass l_max (WMZ §6: "lowering the pelvis automatically to avoid stretching either
leg beyond its limit"), smoothly.

On a regular grid: per standing leg, the highest COM that keeps its hip within reach of its foot; the drop below
standing height that needs, dilated by a parabola of curvature SINK_ACCELERATION and smoothed (lowered): the
body sinks ahead of a need and rises after it with a bounded vertical acceleration."""

from __future__ import annotations

import math

import numpy as np

GRID_RATE = 240.0  # samples per second of the grid the height is worked out on
REACH_MARGIN = 0.003  # metres inside l_max the legs are held (between the grid's samples)
SINK_ACCELERATION = 2.5  # m/s^2: the vertical acceleration the lowering needs at most
SMOOTHING = 0.06  # seconds: the Gaussian's standard deviation
BLOCK = 2048  # grid rows worked out together (memory: rows x window)


def grid(start: float, end: float) -> np.ndarray:
    """The grid's times over [start, end], both included."""
    count = max(int(math.ceil((end - start) * GRID_RATE)), 1) + 1
    return np.linspace(start, end, count)


def height_limit(hips_xy, hip_drop, feet, standing, leg_max):
    """(N,): the highest COM that keeps every standing leg (standing (N, L) bool; hips_xy (N, L, 2), hip_drop (L,)
    the hips' height under the COM) within leg_max (L,) - REACH_MARGIN of its foot (N, L, 3); inf where no leg
    stands."""
    reach = leg_max - REACH_MARGIN
    across = np.linalg.norm(hips_xy - feet[..., :2], axis=-1)
    highest_hip = feet[..., 2] + np.sqrt(np.maximum(reach * reach - across * across, 0.0))
    return np.where(standing, highest_hip + hip_drop, np.inf).min(axis=1)


def lowered(times, standing, limit):
    """(z, z', z'') on the grid times (N,): standing (N,) lowered where limit (N,) is below it.

    The drop needed (standing - limit, where positive) dilated by a parabola of curvature SINK_ACCELERATION
    (the highest of the parabolas hung under each needed drop: the body sinks ahead of a need and rises after
    it no faster), then smoothed by a Gaussian (where two such sinks meet the body turns from rising to
    sinking at once). The smoothing lowers a parabola's top by SINK_ACCELERATION SMOOTHING^2 / 2: the needs
    are raised by that first."""
    dt = times[1] - times[0] if len(times) > 1 else 1.0
    needed = np.maximum(standing - limit, 0.0)
    if needed.max() <= 0.0 or len(times) < 2:
        z = standing
    else:
        needed = np.where(needed > 0.0, needed + 0.5 * SINK_ACCELERATION * SMOOTHING ** 2, 0.0)
        reach = int(math.ceil(math.sqrt(2.0 * needed.max() / SINK_ACCELERATION) / dt))
        bend = 0.5 * SINK_ACCELERATION * (np.arange(-reach, reach + 1) * dt) ** 2
        padded = np.concatenate([np.zeros(reach), needed, np.zeros(reach)])
        windows = np.lib.stride_tricks.sliding_window_view(padded, len(bend))
        dilated = np.concatenate([(windows[a:a + BLOCK] - bend).max(axis=1) for a in range(0, len(needed), BLOCK)])
        z = standing - _gaussian(dilated, SMOOTHING / dt)
    velocity = np.gradient(z, dt)
    return z, velocity, np.gradient(velocity, dt)


def _gaussian(values, sigma):
    """values smoothed by a Gaussian of sigma samples (the ends held)."""
    half = int(math.ceil(3.0 * sigma))
    kernel = np.exp(-0.5 * (np.arange(-half, half + 1) / sigma) ** 2)
    kernel /= kernel.sum()
    padded = np.concatenate([np.full(half, values[0]), values, np.full(half, values[-1])])
    return np.convolve(padded, kernel, mode="valid")
