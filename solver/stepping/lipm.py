"""The linear inverted pendulum and its capture point (Kajita et al. 2001; Pratt et al. 2006), for a body
moving at the start of a stepping motion (a push).

The COM at constant height z above the ground pivots about a centre of pressure p on the feet down:
x'' = omega^2 (x - p), omega = sqrt(g / z). Its capture point x_cp = x + v / omega (Pratt 2006) is where a
foot must stand for the body to come to rest over it; it runs away from p as x_cp' = omega (x_cp - p).
With feet of finite size the ankles hold p at the point of the support polygon nearest to the capture
point; as the capture point then runs straight away from that point, p stays there until a foot lifts or
lands."""

from __future__ import annotations

import math

import numpy as np

from ..character import GRAVITY


def natural_frequency(height: float) -> float:
    """omega = sqrt(g / z) (Pratt 2006) for a COM height z above the ground."""
    return math.sqrt(GRAVITY / height)


def capture_point(position, velocity, omega):
    """x_cp = x + v / omega (Pratt 2006), in plan."""
    return np.asarray(position, dtype=float) + np.asarray(velocity, dtype=float) / omega


def pendulum(position, velocity, pivot, omega, elapsed):
    """(x, v, a) (N, 2) each, elapsed (N,) seconds after the COM was at position with velocity (2,), pivoting
    about pivot (2,): x = p + (x0 - p) cosh(omega t) + v0 / omega sinh(omega t), a = omega^2 (x - p)."""
    t = np.asarray(elapsed, dtype=float)[:, None]
    offset = np.asarray(position, dtype=float) - pivot
    c, s = np.cosh(omega * t), np.sinh(omega * t)
    x = pivot + offset * c + np.asarray(velocity, dtype=float) / omega * s
    v = offset * omega * s + np.asarray(velocity, dtype=float) * c
    return x, v, omega * omega * (x - pivot)


def landing_time(omega: float) -> float:
    """The landing that stops the body on its capture point: a uniform deceleration from v covers v T / 2,
    which is v / omega (the capture point's lead) when T = 2 / omega."""
    return 2.0 / omega
