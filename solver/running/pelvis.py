"""RUNNER's state constraints for one running step: the pelvis at heel-strike, toe-off and in between
(Bruderlin & Calvert 1996, §3.2). Sagittal plane: x forward, y up; one step from heel-strike of one foot
(HS, t = 0) through its toe-off (TO, t = t_stance) to heel-strike of the other foot (t = t_step).

- At heel-strike the pelvis sits over the landing leg: y2 = sqrt(rad_hs^2 - overstride^2), the heel
  overstride metres ahead of the pelvis, rad_hs the hip-to-heel length with the knee bent.
- Case I (v, sl or sf changed): x1 = x2 - v t_flight (eq. 7), y1 = sqrt(rad^2 - (x1 - x_toe)^2) (eq. 8),
  H by eq. 3. Case II (H changed): x1, y1 by a two-dimensional Newton-Raphson on eqs. 3 and 8 with
  t_flight = (x2 - x1) / v; then t_flight by eq. 7.
- Flight: x = x1 + v t, y = y1 + sqrt(2 g H) t - g t^2 / 2 (a parabola: vertical acceleration is -g).
- Support: through HS, mid-support (the lowest point, behind the average position: 0.8 of the way, lower
  the bigger H and the bounciness) and TO. The paper interpolates one cubic through HS, mid-support, TO and
  mid-flight; we use two cubic Hermite pieces through the same points with the flight's velocities at HS
  and TO, so the step joins the flights before and after it with continuous velocity (a seamless loop).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..character import GRAVITY
from ..core.spline import hermite_basis
from .parameters import RunningError, RunningParameters, flight_height

MID_SUPPORT_FORWARD = 0.8  # x at mid-support: 0.8 of the average forward position (§3.2)
ANKLE_FROM_HEEL = 0.25  # of the foot's length
SHORTEST_LEG = 0.7  # of the reach: a stance leg folded more than this makes the pelvis rise (recovery)


@dataclass(frozen=True)
class LegGeometry:
    heel_strike_length: float  # hip to heel at impact, knee slightly bent (m)
    toe_off_length: float  # toe to pelvis at toe-off, leg extended (rad in eq. 8, m)
    foot_length: float  # heel to toe (m)
    reach: float = 0.0  # thigh + shank: the longest hip-to-ankle distance (m); 0: no recovery checks
    ankle_height: float = 0.0  # ankle above the ground with the foot flat (m)

    @classmethod
    def for_height(cls, body_height: float, knee_bend_degrees: float = 10.0):
        """Proportions from body height (hip height about 0.53 of it, foot 0.15)."""
        thigh = shank = 0.245 * body_height
        foot = 0.15 * body_height
        bend = math.radians(knee_bend_degrees)
        heel_strike = math.sqrt(thigh**2 + shank**2 + 2 * thigh * shank * math.cos(bend))
        return cls(heel_strike, thigh + shank + 0.55 * foot, foot, thigh + shank, 0.045 * body_height)


@dataclass(frozen=True)
class StepConstraints:
    params: RunningParameters
    overstride: float
    bounciness: float
    x0: float  # pelvis at heel-strike (start of the step)
    y2: float  # pelvis height at heel-strike (start and end of the step)
    x1: float  # pelvis at toe-off
    y1: float
    x_toe: float  # the stance foot's toe
    t_stance: float
    t_flight: float
    flight_height: float
    y_mid: float
    x_mid: float

    @property
    def v(self) -> float:
        return self.params.velocity / 60.0  # m/s

    @property
    def launch_speed(self) -> float:
        return math.sqrt(2.0 * GRAVITY * self.flight_height)  # vertical speed at toe-off

    def pelvis(self, t):
        """Pelvis (x, y) and velocity (vx, vy) at times t in [0, t_step] (vectorised)."""
        t = np.asarray(t, dtype=float)
        tf = t - self.t_stance
        fx, fy = self.x1 + self.v * tf, self.y1 + self.launch_speed * tf - 0.5 * GRAVITY * tf**2
        fvx, fvy = np.full_like(t, self.v), self.launch_speed - GRAVITY * tf
        land_vy = self.launch_speed - GRAVITY * self.t_flight
        half = 0.5 * self.t_stance
        first = t < half
        h = np.where(first, half, self.t_stance - half)
        s = np.where(first, t, t - half) / h
        py0 = np.where(first, self.y2, self.y_mid)
        py1 = np.where(first, self.y_mid, self.y1)
        vy0 = np.where(first, land_vy, 0.0)
        vy1 = np.where(first, 0.0, self.launch_speed)
        px0 = np.where(first, self.x0, self.x_mid)
        px1 = np.where(first, self.x_mid, self.x1)
        mid_vx = MID_SUPPORT_FORWARD * self.v
        vx0 = np.where(first, self.v, mid_vx)
        vx1 = np.where(first, mid_vx, self.v)
        sx, dsx = _hermite(s, h, px0, vx0, px1, vx1)
        sy, dsy = _hermite(s, h, py0, vy0, py1, vy1)
        support = t < self.t_stance
        return (np.where(support, sx, fx), np.where(support, sy, fy),
                np.where(support, dsx, fvx), np.where(support, dsy, fvy))


def _hermite(s, h, p0, v0, p1, v1):
    """Value and slope of the cubic Hermite piece with ends p0, p1 and slopes v0, v1 over duration h."""
    position, velocity, _acceleration = hermite_basis(s, h)
    controls = np.stack(np.broadcast_arrays(p0, v0, p1, v1), axis=-1)
    return (position * controls).sum(axis=-1), (velocity * controls).sum(axis=-1)


def _mid_support(y1, y2, height, bounciness):
    """Lowest pelvis height at mid-support: below both ends, the more so the higher the flight."""
    return min(y1, y2) - (0.02 + 0.5 * height) * (0.5 + bounciness)


def step(params: RunningParameters, legs: LegGeometry, overstride: float | None = None,
         bounciness: float | None = None, height: float | None = None) -> StepConstraints:
    """The state constraints of one step. height=None: case I (H from the flight time, eq. 3); a number:
    case II (H given, flight time from a Newton-Raphson on eqs. 3 and 8)."""
    v = params.velocity / 60.0
    t_step = params.step_time
    # Overstride falls as velocity rises (§3.1.2): 0.22 m at a jog down to 0.06 m at a sprint, per 1.8 m.
    if overstride is None:
        overstride = float(np.clip(0.22 - 0.00045 * params.velocity, 0.06, 0.22)) * params.body_height / 1.8
    y2 = math.sqrt(legs.heel_strike_length**2 - overstride**2)
    if legs.reach > 0:  # recovery at impact: the landing leg reaches its ankle (hip not too high)
        ahead = overstride + ANKLE_FROM_HEEL * legs.foot_length
        if ahead < legs.reach:
            y2 = min(y2, legs.ankle_height + math.sqrt(legs.reach**2 - ahead**2))
    x0 = 0.0
    x2 = x0 + params.step_length  # the pelvis one step later, over the other heel
    x_toe = x0 + overstride + legs.foot_length  # the stance foot's toe (heel at x0 + overstride)
    rad = legs.toe_off_length
    if height is None:
        t_flight = params.flight_time
        x1 = x2 - v * t_flight  # eq. 7
        reach = rad**2 - (x1 - x_toe) ** 2
        if reach <= 0:
            raise RunningError(f"the toe-off leg ({rad:.2f} m) cannot reach the pelvis {x1 - x_toe:.2f} m ahead")
        y1 = math.sqrt(reach)  # eq. 8
        h_flight = float(flight_height(t_flight, y1, y2))  # eq. 3
    else:  # Newton-Raphson from the stride the parameters give (case I), as when H's slider moves
        start = x2 - v * params.flight_time
        x1, y1 = _newton_case_two(height, x2, y2, x_toe, rad, v, start)
        t_flight = (x2 - x1) / v  # eq. 7
        h_flight = height
    t_stance = t_step - t_flight
    if t_stance <= 0 or t_flight <= 0:
        raise RunningError(f"no stride: stance {t_stance:.3f} s, flight {t_flight:.3f} s")
    if bounciness is None:  # bounciness grows with flight height (§3.1.2)
        bounciness = float(np.clip(h_flight / 0.1, 0.0, 1.0))
    y_mid = _mid_support(y1, y2, h_flight, bounciness)
    # Low enough that neither half of the support dips below it (monotone Hermite pieces, slopes <= 3).
    launch = math.sqrt(2.0 * GRAVITY * h_flight)
    landing = abs(launch - GRAVITY * t_flight)
    y_mid = min(y_mid, y2 - landing * 0.5 * t_stance / 3.0, y1 - launch * 0.5 * t_stance / 3.0)
    x_mid = x0 + MID_SUPPORT_FORWARD * 0.5 * (x1 - x0)
    constraints = StepConstraints(params, overstride, bounciness, x0, y2, x1, y1, x_toe, t_stance, t_flight,
                                  h_flight, y_mid, x_mid)
    return recover(constraints, legs) if legs.reach > 0 else constraints


def stance_leg_lengths(constraints: StepConstraints, legs: LegGeometry, samples: int = 41):
    """Hip-to-ankle distance of the stance leg while its foot is flat (until the hip passes over the ankle,
    when the heel may lift, §3.3.1): times and lengths."""
    ankle = np.array([constraints.x0 + constraints.overstride + ANKLE_FROM_HEEL * legs.foot_length,
                      legs.ankle_height])
    t = np.linspace(0.0, constraints.t_stance, samples)
    x, y, _vx, _vy = constraints.pelvis(t)
    flat = x <= ankle[0]
    return t[flat], np.hypot(x[flat] - ankle[0], y[flat] - ankle[1])


def recover(constraints: StepConstraints, legs: LegGeometry, rounds: int = 8) -> StepConstraints:
    """The automatic recoveries of §3.3 at the pelvis: a stance leg that would have to stretch beyond
    thigh + shank lowers the pelvis at mid-support (hip too high); one folded shorter than SHORTEST_LEG of
    it raises the pelvis (hip too low). Toe stubbing in swing is prevented where the swing is planned
    (legs.py lifts the whole sole clear of the ground)."""
    for _ in range(rounds):
        _t, lengths = stance_leg_lengths(constraints, legs)
        if lengths.size == 0:
            break
        too_long = lengths.max() - legs.reach
        too_short = SHORTEST_LEG * legs.reach - lengths.min()
        if too_long > 1e-6:
            constraints = replace(constraints, y_mid=constraints.y_mid - 1.5 * too_long)
        elif too_short > 1e-6:
            constraints = replace(constraints, y_mid=constraints.y_mid + 1.5 * too_short)
        else:
            break
    return constraints


def _newton_case_two(height, x2, y2, x_toe, rad, v, start, iterations=50):
    """Solve eq. 8 and eq. 3 (t_flight = (x2 - x1) / v) for the pelvis at toe-off (x1, y1), from x1 = start."""

    def residual(x1, y1):
        t = (x2 - x1) / v
        return np.array([y1**2 + (x1 - x_toe) ** 2 - rad**2,
                         (t - 2.0 * (y1 - y2) / (GRAVITY * t)) ** 2 * GRAVITY / 8.0 - height])

    x1 = start
    y1 = math.sqrt(max(rad**2 - (x1 - x_toe) ** 2, 1e-6))
    for _ in range(iterations):
        r = residual(x1, y1)
        if np.abs(r).max() < 1e-12:
            return x1, y1
        eps = 1e-7
        jac = np.column_stack([(residual(x1 + eps, y1) - r) / eps, (residual(x1, y1 + eps) - r) / eps])
        dx, dy = np.linalg.solve(jac, -r)
        x1, y1 = x1 + dx, y1 + dy
    if np.abs(residual(x1, y1)).max() > 1e-9:
        raise RunningError(f"no toe-off pelvis gives a flight height of {height:.3f} m")
    return x1, y1
