"""The projected COM of a stepping motion (WMZ §5), as pieces of time, each evaluable at any times:

- a step: the quadratic Bezier through the COM's start, the support foot (the pivot) and its end, travelled
  at Fig. 2's three-phase speed (split where the path runs out to the pivot and back: _wmz_step): push-off
  in the double support before lift-off, free fall at
  m2 = g sin(theta) during the swing, landing in the double support after touchdown. A step starts from
  rest where the one before came to rest; it ends at rest over the middle of the feet it leaves standing.
  The double support between two steps is shared: the landing takes the first half, the push-off the
  second (each at most as long as its step's swing; the body stands still for the rest).
- a moving start (a push): the linear inverted pendulum about the centre of pressure (lipm.py) from the
  start until a touchdown catches the body (capture.py: the capture point inside the feet's support polygon,
  the feet within reach of it), then a landing that decelerates uniformly onto the capture point (2 / omega),
  from where the steps carry on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import lipm
from .profiles import bezier, bezier_arc_length, bezier_motion, com_phases, com_progress, free_fall_slope
from .capture import is_captured
from .stance import nearest_in_polygon, standing_height, support_polygon

OUT_AND_BACK = 135.0  # degrees the path's direction turns (from toward the pivot to away from it) past which the
# COM runs out to the pivot and back, resting at the turn
CAPTURE_LANDING_SHARE = 2.0 / 3.0  # of the double support after the capturing touchdown: the most its landing
# takes (the rest is the next step's push-off)


@dataclass(frozen=True)
class Rest:
    start: float
    end: float
    point: np.ndarray  # (2,)

    def evaluate(self, t):
        zero = np.zeros((len(t), 2))
        return np.broadcast_to(self.point, (len(t), 2)).copy(), zero, zero.copy()


@dataclass(frozen=True)
class Step:
    """WMZ §5: the COM from p0 over the pivot p1 to p2 between t0 and t3 (lift-off t1, touchdown t2)."""

    start: float  # t0
    t1: float
    t2: float
    end: float  # t3
    p0: np.ndarray
    p1: np.ndarray
    p2: np.ndarray
    free_fall: float  # m2 = g sin(theta)

    @property
    def point(self):
        return self.p2

    def evaluate(self, t):
        q0, q1, q2 = (np.append(p, 0.0) for p in (self.p0, self.p1, self.p2))
        taus, lengths = bezier_arc_length(q0, q1, q2)
        times = (self.start, self.t1, self.t2, self.end)
        s, speed = com_progress(t, lengths[-1], *times, self.free_fall)
        v1, v2, m2 = com_phases(lengths[-1], *times, self.free_fall)
        along = np.where(t < self.t1, v1 / max(self.t1 - self.start, 1e-300),
                         np.where(t < self.t2, m2, -v2 / max(self.end - self.t2, 1e-300)))
        position, velocity, acceleration = bezier_motion(q0, q1, q2, s, speed, along, (taus, lengths))
        return position[:, :2], velocity[:, :2], acceleration[:, :2]


@dataclass(frozen=True)
class Pendulum:
    """The linear inverted pendulum about `pivot` from (position, velocity) at start."""

    start: float
    end: float
    position: np.ndarray
    velocity: np.ndarray
    pivot: np.ndarray
    omega: float

    def at(self, t):
        elapsed = np.asarray(t, dtype=float) - self.start
        return lipm.pendulum(self.position, self.velocity, self.pivot, self.omega, elapsed)

    def evaluate(self, t):
        return self.at(t)


@dataclass(frozen=True)
class Landing:
    """From (position, velocity) at start, a uniform deceleration to rest at end, in a straight line."""

    start: float
    end: float
    position: np.ndarray
    velocity: np.ndarray

    @property
    def point(self):
        return self.position + 0.5 * self.velocity * (self.end - self.start)

    def evaluate(self, t):
        span = self.end - self.start
        tau = np.clip(np.asarray(t, dtype=float) - self.start, 0.0, span)[:, None]
        position = self.position + self.velocity * (tau - tau * tau / (2.0 * span))
        velocity = self.velocity * (1.0 - tau / span)
        return position, velocity, np.broadcast_to(-self.velocity / span, velocity.shape).copy()


@dataclass(frozen=True)
class ComPath:
    pieces: tuple  # Rest, Step, Pendulum, Landing in time order, end to start
    start_point: np.ndarray  # (2,)
    captured: float | None  # the touchdown that ended a moving start (None: none or still)

    def evaluate(self, times):
        """(position, velocity, acceleration) (N, 2) each at times (N,)."""
        times = np.asarray(times, dtype=float)
        ends = np.array([piece.end for piece in self.pieces])
        rests = np.array([self.start_point] + [_rest_point(piece) for piece in self.pieces])
        k = np.searchsorted(ends, times, side="right")  # pieces over by then: at rest where the last ended
        position = rests[k].copy()
        velocity, acceleration = np.zeros_like(position), np.zeros_like(position)
        for piece in self.pieces:  # steps of the plan
            rows = (times >= piece.start) & (times < piece.end)
            if rows.any():
                position[rows], velocity[rows], acceleration[rows] = piece.evaluate(times[rows])
        return position, velocity, acceleration


def _rest_point(piece):
    if isinstance(piece, Pendulum):  # a moving start left running at the track's end
        return piece.at([piece.end])[0][0]
    return piece.point


def com_path(plan, character, velocity=None) -> ComPath:
    """The projected COM of a stepping plan (steps.StepPlan), starting over the middle of the starting stance,
    moving at velocity (2,) m/s when given (a push)."""
    tr = plan.track
    height = standing_height(character)
    start_feet = [plan.standing_on(foot, plan.start) for foot in range(2)]
    point = tr.positions[start_feet, :2].mean(axis=0)
    pieces, captured, first = [], None, 0
    if velocity is not None and np.hypot(*velocity) > 0.0:
        moving, captured, first = _moving_start(plan, character, point, np.asarray(velocity, dtype=float), height)
        pieces += moving
        point = pieces[-1].point
    swings = plan.swings
    rest_from = pieces[-1].end if pieces else plan.start
    for k in range(first, len(swings)):  # steps of the plan
        swing = swings[k]
        swing_time = swing.t2 - swing.t1
        before = swing.t1 - rest_from if k == first else 0.5 * (swing.t1 - swings[k - 1].t2)
        after = 0.5 * (swings[k + 1].t1 - swing.t2) if k + 1 < len(swings) else plan.end - swing.t2
        t0, t3 = swing.t1 - min(swing_time, before), swing.t2 + min(swing_time, after)
        p1 = tr.positions[swing.support, :2]
        standing = [swing.land, plan.standing_on(1 - swing.foot, swing.t2)]
        p2 = tr.positions[standing, :2].mean(axis=0)
        pieces += _wmz_step(t0, swing.t1, swing.t2, t3, point, p1, p2, height)
        point = p2
    return ComPath(tuple(pieces), tr.positions[start_feet, :2].mean(axis=0), captured)


def _wmz_step(t0, t1, t2, t3, p0, pivot, p2, height):
    """The pieces of one step's COM (WMZ §5) from p0 over the pivot to p2: the Bezier with the pivot as its
    middle control point, at Fig. 2's speed. Fig. 2's speed is the motion toward the support foot and then away
    from it; along the path it is one hump where the path sweeps past the pivot, but where the path runs out to
    it and back (a step that ends beside where it started: in place, closing the feet) the COM comes to rest at
    the turn: then the Bezier is split there (de Casteljau), the push-off carrying the COM out to the turn by
    mid-swing, the fall away from the pivot and the landing back. Elsewhere the control point is kept within
    the ends' span along the chord, so the path never doubles back on itself near an end (a turn at speed)."""
    out, back = pivot - p0, p2 - pivot
    turn = math.degrees(math.acos(np.clip(out @ back / max(np.linalg.norm(out) * np.linalg.norm(back), 1e-300),
                                          -1.0, 1.0)))
    if turn > OUT_AND_BACK:
        bend = p0 - 2.0 * pivot + p2
        tau = float(np.clip((p0 - pivot) @ bend / max(bend @ bend, 1e-300), 0.0, 1.0))  # |dB/dtau| least
        q0, q2 = p0 + tau * out, pivot + tau * back
        apex = q0 + tau * (q2 - q0)
        middle = 0.5 * (t1 + t2)
        return [Step(t0, t1, t1, middle, p0, q0, apex, 0.0), Step(middle, t2, t2, t3, apex, q2, p2, 0.0)]
    chord = p2 - p0
    length = float(np.linalg.norm(chord))
    control = pivot
    if length > 0.0:
        along = float(out @ chord) / length
        control = pivot + (np.clip(along, 0.0, length) - along) * chord / length
    return [Step(t0, t1, t2, t3, p0, control, p2, _free_fall(p0, pivot, p2, height))]


def _free_fall(p0, p1, p2, height):
    """WMZ Fig. 2's m2 = g sin(theta): theta the support leg's lean off vertical with the COM at the middle of
    its Bezier (the swing's middle), standing height over the pivot."""
    q0, q1, q2 = (np.append(p, 0.0) for p in (p0, p1, p2))
    taus, lengths = bezier_arc_length(q0, q1, q2)
    middle = bezier(q0, q1, q2, np.interp(0.5 * lengths[-1], lengths, taus))
    return float(free_fall_slope(math.atan2(np.linalg.norm(middle[:2] - p1), height)))


def _moving_start(plan, character, point, velocity, height):
    """A push: the linear inverted pendulum phase by phase (double support, each swing's single support, the
    double support after its touchdown) until a touchdown (or the start) catches the body (capture.py), then
    the landing onto the capture point. Returns (pieces, capture time, index of the first swing left
    to the WMZ model)."""
    tr = plan.track
    omega = lipm.natural_frequency(height)
    feet = [plan.standing_on(foot, plan.start) for foot in range(2)]
    t, pieces = plan.start, []
    swings = plan.swings
    for k in range(len(swings) + 1):  # the steps of the plan, until one captures the body
        cp = lipm.capture_point(point, velocity, omega)
        if k == len(swings) or is_captured(character, tr.positions[feet], tr.headings[feet], cp):
            next_lift = swings[k].t1 if k < len(swings) else plan.end
            span = min(lipm.landing_time(omega), CAPTURE_LANDING_SHARE * (next_lift - t) if k < len(swings)
                       else next_lift - t)
            if span > 0.0:
                pieces.append(Landing(t, t + span, point, velocity))
            else:
                pieces.append(Rest(t, t, point))
            return pieces, t, k
        swing = swings[k]
        for start, end, down in ((t, swing.t1, feet), (swing.t1, swing.t2, [swing.support])):
            polygon = support_polygon(tr.positions[down], tr.headings[down], character)
            pivot = nearest_in_polygon(polygon, lipm.capture_point(point, velocity, omega))
            piece = Pendulum(start, end, point, velocity, pivot, omega)
            pieces.append(piece)
            x, v, _a = piece.at([end])
            point, velocity = x[0], v[0]
        t = swing.t2
        feet = [swing.land, plan.standing_on(1 - swing.foot, swing.t2)] if swing.foot == 0 else \
            [plan.standing_on(1 - swing.foot, swing.t2), swing.land]
