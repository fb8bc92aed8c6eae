"""Wu, Medina and Zordan's idealised step (WMZ §4-5): the stepping foot's progress along its straight path, the
projected COM's quadratic Bezier path and its three-phase speed. Every function broadcasts over its array
arguments (samples, steps), so a whole sequence of steps is evaluated in one call.

- The foot (WMZ §4, eq. 1): a bell-shaped speed over the swing's normalised time u along the straight line.
  The paper's bell is a Gaussian of width w = 0.08 set by hand: its peak is five times the mean speed, a whip
  (a Rigify human's ball reached 9.8-22.4 m/s stepping against 6.3 walking; issue 28). A person's step follows
  the minimum-jerk profile (Flash & Hogan 1985), the walking swing's too (legs.min_jerk): a bell whose peak is
  1.875 times the mean, zero speed and acceleration at both ends. Off the line the foot is lifted by a sin^2
  arc (lift_arc: the paper leaves the lift open), which lands it with no vertical speed.
- The COM (WMZ §5): a quadratic Bezier through the start, the pivot (the support foot) and the end as control
  points, travelled by arc length at a piecewise-linear speed (Fig. 2): from rest it accelerates uniformly
  during push-off [t0, t1], at m2 = g sin(theta) during the free fall of the swing [t1, t2] (theta the lean of
  the support leg off vertical), and uniformly back to rest during landing [t2, t3]. The areas under the
  three pieces add up to the path's length D, which fixes the push-off's slope m1 (and the landing's m3); a
  long swing's free fall is moderated so that the push-off still shifts the weight (com_phases).
"""

from __future__ import annotations

import numpy as np

from ..body.legs import min_jerk
from ..character import GRAVITY

BEZIER_SAMPLES = 257  # points along a Bezier to measure its arc length (2 mm on a 0.5 m path: far below 2 cm)

def foot_progress(u):
    """The fraction of the stepping foot's way covered at normalised swing time u (clipped to [0, 1]): the
    minimum-jerk progression, a human step's bell-shaped speed (WMZ eq. 1's bell, not its width: see above)."""
    return min_jerk(u)


def lift_arc(u):
    """The stepping foot's lift over its straight line at normalised swing time u (clipped to [0, 1]), as a
    fraction of the lift at mid-swing: sin^2(pi u), 0 at lift-off and touchdown with no vertical speed there (the
    foot leaves and lands softly, as it moves along the line: eq. 1's speed is near zero at both ends too), 1 at
    u = 1/2."""
    return np.sin(np.pi * np.clip(np.asarray(u, dtype=float), 0.0, 1.0)) ** 2

def free_fall_slope(lean):
    """m2 of WMZ Fig. 2: g sin(theta), theta the support leg's lean off vertical (radians)."""
    return GRAVITY * np.sin(np.abs(np.asarray(lean, dtype=float)))


def com_phases(distance, t0, t1, t2, t3, free_fall):
    """WMZ Fig. 2's speed, from the path's length D and the phase times t0 <= t1 <= t2 <= t3 (push-off, free
    fall, landing): (v1, v2, m2), the speeds at lift-off and touchdown and the free fall's slope used.

    The areas under the three pieces (A0 and A1 of Fig. 2 and the free fall's between them) sum to D:
    D = v1 (T1 / 2 + T2 + T3 / 2) + m2 T2 (T2 + T3) / 2, with T1, T2, T3 the phases' durations, solved for v1
    (then v2 = v1 + m2 T2, m1 = v1 / T1, m3 = -v2 / T3). The push-off always shifts the weight toward the
    support foot (WMZ §5: the COM "begins to accelerate at a fairly constant rate toward the support foot"):
    where a long swing's free fall would leave it less than the path's mean speed D / (t3 - t0) at lift-off,
    v1 is that mean speed and m2 is lowered to what the rest of D leaves (zero at least)."""
    distance, t0, t1, t2, t3 = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (distance, t0, t1, t2, t3)))
    push, fall, land = t1 - t0, t2 - t1, t3 - t2
    # Areas: push-off v1 T1 / 2, free fall (v1 + v2) T2 / 2, landing v2 T3 / 2, with v2 = v1 + m2 T2.
    span = 0.5 * push + fall + 0.5 * land
    fall_area = fall * (0.5 * fall + 0.5 * land)  # the part of the area that m2 adds, per unit m2
    mean_speed = distance / np.maximum(t3 - t0, 1e-300)
    v1 = np.maximum((distance - np.asarray(free_fall, dtype=float) * fall_area) / np.maximum(span, 1e-300),
                    mean_speed)  # (never past D / span, the speed with no free fall: span <= t3 - t0)
    m2 = np.where(fall_area > 0, np.maximum(distance - v1 * span, 0.0) / np.maximum(fall_area, 1e-300), 0.0)
    return v1, v1 + m2 * fall, m2


def com_progress(t, distance, t0, t1, t2, t3, free_fall):
    """(s, v): the distance travelled along the COM's path at times t (clipped to [t0, t3]) and the speed
    there, for WMZ Fig. 2's three-phase piecewise-linear speed (com_phases)."""
    v1, v2, m2 = com_phases(distance, t0, t1, t2, t3, free_fall)
    t = np.clip(np.asarray(t, dtype=float), t0, t3)
    push, fall, land = np.maximum(t1 - t0, 1e-300), t2 - t1, np.maximum(t3 - t2, 1e-300)
    # Distance and speed at the end of each phase, then within the phase each time is in.
    s1 = 0.5 * v1 * (t1 - t0)
    s2 = s1 + 0.5 * (v1 + v2) * fall
    a = np.clip(t - t0, 0.0, t1 - t0)
    b = np.clip(t - t1, 0.0, fall)
    c = np.clip(t - t2, 0.0, t3 - t2)
    in_push, in_fall = t < t1, (t >= t1) & (t < t2)
    s = np.where(in_push, 0.5 * v1 / push * a * a,
                 np.where(in_fall, s1 + v1 * b + 0.5 * m2 * b * b,
                          s2 + v2 * c - 0.5 * v2 / land * c * c))
    v = np.where(in_push, v1 * a / push, np.where(in_fall, v1 + m2 * b, v2 * (1.0 - c / land)))
    return s, v


def bezier(p0, p1, p2, tau):
    """Points (..., 3) of the quadratic Bezier with control points p0, p1, p2 (..., 3) at parameters tau (...)."""
    tau = np.asarray(tau, dtype=float)[..., None]
    return (1.0 - tau) ** 2 * p0 + 2.0 * (1.0 - tau) * tau * p1 + tau * tau * p2


def bezier_arc_length(p0, p1, p2, samples=BEZIER_SAMPLES):
    """(taus (K,), lengths (..., K)): the arc length from p0 at BEZIER_SAMPLES parameters, for inversion."""
    taus = np.linspace(0.0, 1.0, samples)
    points = bezier(np.asarray(p0)[..., None, :], np.asarray(p1)[..., None, :], np.asarray(p2)[..., None, :], taus)
    pieces = np.linalg.norm(np.diff(points, axis=-2), axis=-1)
    return taus, np.concatenate([np.zeros(pieces.shape[:-1] + (1,)), np.cumsum(pieces, axis=-1)], axis=-1)


def bezier_at_distance(p0, p1, p2, s):
    """Points (N, 3) on one quadratic Bezier at arc lengths s (N,) from p0 (clipped to the curve), and the unit
    tangent there (N, 3)."""
    position, _norm, tangent = _on_bezier(np.asarray(p0, dtype=float), np.asarray(p1, dtype=float),
                                           np.asarray(p2, dtype=float), s, bezier_arc_length(p0, p1, p2))
    return position, tangent


def bezier_motion(p0, p1, p2, s, speed, along, arc=None):
    """Position, velocity and acceleration (N, 3) of a point travelling one quadratic Bezier by arc length s (N,)
    from p0 (clipped to the curve) at speed ds/dt (N,) with along-path acceleration d2s/dt2 (N,): the velocity
    speed T, the acceleration along T + speed^2 d2B/ds2, the second term the path's curvature in closed form (the
    part of d2B/dtau2 across the unit tangent T over |dB/dtau|^2). arc: bezier_arc_length's (taus, lengths) of
    the curve, when the caller has them."""
    p0, p1, p2 = (np.asarray(p, dtype=float) for p in (p0, p1, p2))
    position, norm, tangent = _on_bezier(p0, p1, p2, s, bezier_arc_length(p0, p1, p2) if arc is None else arc)
    second = 2.0 * (p2 - 2.0 * p1 + p0)  # d2B / dtau2
    bend = (second - (tangent @ second)[:, None] * tangent) / np.maximum(norm, 1e-12) ** 2  # d2B / ds2
    speed, along = np.asarray(speed, dtype=float)[:, None], np.asarray(along, dtype=float)[:, None]
    return position, speed * tangent, along * tangent + speed * speed * bend


def _on_bezier(p0, p1, p2, s, arc):
    """(points (N, 3), |dB/dtau| (N, 1), unit tangents (N, 3)) of one quadratic Bezier at arc lengths s (N,) from
    p0, its (taus, lengths) given (bezier_arc_length)."""
    taus, lengths = arc
    tau = np.interp(np.asarray(s, dtype=float), lengths, taus)
    first = 2.0 * (1.0 - tau)[:, None] * (p1 - p0) + 2.0 * tau[:, None] * (p2 - p1)
    norm = np.linalg.norm(first, axis=1, keepdims=True)
    return bezier(p0, p1, p2, tau), norm, np.where(norm > 1e-12, first / np.maximum(norm, 1e-12), 0.0)
