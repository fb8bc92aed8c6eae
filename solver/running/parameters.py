"""Running parameters (Bruderlin & Calvert 1996, RUNNER §2.2 and §3.1.1) and running footprint tracks.

Velocity v (m/min), step length sl (m), step frequency sf (steps/min) and flight height H (m) are tied by
  v = sl sf                                                     (eq. 1)
  sl = 0.1394 + (0.00465 + level) v sqrt(body_height / 1.8)     (eq. 2, up to v_norm; constant above)
  H = (t_flight - 2 (y1 - y2) / (g t_flight))^2 g / 8          (eq. 3)
  t_flight = eq. 5 below 180 steps/min, eq. 4 from 180 to 230, constant above 230
  t_stance = t_step - t_flight, t_swing = t_step + t_flight, t_step = 1 / sf   (eq. 6)
Any parameter can be locked; changing another updates the unlocked ones (§3.1.1, Fig. 4).

`level` is in eq. 2's units, -0.001 (poor) to +0.001 (skilled); eqs. 4 and 5 take a tenth of it, their
range being -0.0001 to +0.0001.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY
from ..errors import FootprintError
from ..track import Track, make_track

V_NORM = 400.0  # m/min: step length stops growing above this speed, for a 1.8 m tall runner (§2.2)
DEFAULT_BODY_HEIGHT = 1.8
LEVEL_RANGE = 0.001
FLIGHT_LEVEL_SCALE = 0.1  # eq. 4 / 5 level range (1e-4) over eq. 2 level range (1e-3)
PARAMETERS = ("velocity", "step_length", "step_frequency", "flight_height")


class RunningError(FootprintError):
    """Running parameters that cannot be met (the message names them)."""


def kmh(m_per_min: float) -> float:
    return m_per_min * 60.0 / 1000.0


def m_per_min(kmh_: float) -> float:
    return kmh_ * 1000.0 / 60.0


def _slope(level, body_height):
    return (0.00465 + level) * math.sqrt(body_height / DEFAULT_BODY_HEIGHT)


def velocity_norm(body_height: float) -> float:
    """v_norm scaled by Froude similarity (v^2 / height equal): 400 m/min at 1.8 m."""
    return V_NORM * math.sqrt(body_height / DEFAULT_BODY_HEIGHT)


def step_length(v, level=0.0, body_height=DEFAULT_BODY_HEIGHT):
    """Eq. 2, vectorised; constant above v_norm (§2.2)."""
    v = np.minimum(np.asarray(v, dtype=float), velocity_norm(body_height))
    return 0.1394 + _slope(level, body_height) * v


def flight_time(sf, level=0.0):
    """Flight time (s) from step frequency (steps/min): eq. 5 below 180, eq. 4 to 230, constant above."""
    sf = np.asarray(sf, dtype=float)
    lv = level * FLIGHT_LEVEL_SCALE

    def eq4(f):
        return -8.925 + (0.131 + lv) * f - 0.623e-3 * f**2 + 0.979e-6 * f**3

    eq5 = -0.675e-3 - (0.15e-3 + lv) * sf + 0.542e-5 * sf**2
    return np.where(sf < 180.0, eq5, eq4(np.minimum(sf, 230.0)))


def flight_height(t_flight, y1=0.0, y2=0.0):
    """Eq. 3: apex of the flight parabola above the take-off level, from flight time and pelvis heights."""
    t = np.asarray(t_flight, dtype=float)
    return (t - 2.0 * (y1 - y2) / (GRAVITY * t)) ** 2 * GRAVITY / 8.0


@dataclass(frozen=True)
class RunningParameters:
    velocity: float  # m/min
    step_length: float  # m
    step_frequency: float  # steps/min
    flight_height: float  # m
    flight_time: float  # s
    level: float = 0.0
    body_height: float = DEFAULT_BODY_HEIGHT

    @property
    def step_time(self) -> float:
        return 60.0 / self.step_frequency

    @property
    def stance_time(self) -> float:  # eq. 6
        return self.step_time - self.flight_time

    @property
    def swing_time(self) -> float:  # eq. 6
        return self.step_time + self.flight_time


def _finish(v, sl, level, body_height, t_flight=None):
    sf = v / sl
    t_flight = float(flight_time(sf, level)) if t_flight is None else t_flight
    params = RunningParameters(float(v), float(sl), float(sf), float(flight_height(t_flight)), t_flight, level,
                               body_height)
    if not (params.flight_time > 0.0 and params.stance_time > 0.0):
        raise RunningError(f"no running stride at {kmh(v):.1f} km/h with step frequency {sf:.0f} steps/min: "
                           f"flight {params.flight_time:.3f} s, stance {params.stance_time:.3f} s")
    return params


def natural(velocity_kmh: float, level: float = 0.0, body_height: float = DEFAULT_BODY_HEIGHT) -> RunningParameters:
    """The stride a runner chooses for a velocity (eqs. 1, 2, 4/5, 3)."""
    _check(velocity_kmh=velocity_kmh, level=level, body_height=body_height)
    v = m_per_min(velocity_kmh)
    return _finish(v, float(step_length(v, level, body_height)), level, body_height)


def change(params: RunningParameters, name: str, value: float, locked=()) -> RunningParameters:
    """Set one parameter and update the others that are not locked, as the paper's panel does (Fig. 4).

    name: "velocity" (m/min), "step_length", "step_frequency" or "flight_height".
    """
    if name not in PARAMETERS:
        raise RunningError(f"unknown running parameter {name!r}; expected one of {PARAMETERS}")
    if name in locked:
        raise RunningError(f"{name} is locked")
    if not (math.isfinite(value) and value > 0):
        raise RunningError(f"{name} must be a positive number, not {value}")
    level, height = params.level, params.body_height
    a, b = 0.1394, _slope(level, height)
    v_norm = velocity_norm(height)
    sl_norm = a + b * v_norm
    v, sl = params.velocity, params.step_length
    if name == "velocity":
        v = value
        if "step_length" not in locked:
            sl = float(step_length(v, level, height))
    elif name == "step_length":
        sl = value
        if "velocity" not in locked:
            if sl > sl_norm:
                raise RunningError(f"step length {sl:.2f} m is beyond the natural maximum {sl_norm:.2f} m: "
                                   f"lock the velocity to set it")
            v = (sl - a) / b  # eq. 2 inverted
    elif name == "step_frequency":
        sf = value
        if "velocity" in locked:
            sl = v / sf  # eq. 1 with v held
        elif "step_length" in locked:
            v = sl * sf
        else:  # v = sf (a + b v) on the linear part of eq. 2, else the constant step length
            v = sf * a / (1.0 - sf * b) if sf * b < 1.0 else math.inf
            if not v <= v_norm:
                v = sf * sl_norm
            sl = v / sf
    else:  # flight height: case II of §3.2 with level pelvis heights, t_flight = sqrt(8 H / g)
        t_flight = math.sqrt(8.0 * value / GRAVITY)
        return _finish(v, sl, level, height, t_flight)
    if "flight_height" in locked:  # a locked flight height keeps its flight time whatever the stride
        return _finish(v, sl, level, height, math.sqrt(8.0 * params.flight_height / GRAVITY))
    return _finish(v, sl, level, height)


def _check(**values):
    bad = [f"{k}={v}" for k, v in values.items() if not (isinstance(v, (int, float)) and math.isfinite(v))]
    if bad:
        raise RunningError(f"running parameters must be finite numbers: {', '.join(bad)}")
    if values.get("velocity_kmh", 1) <= 0 or values.get("body_height", 1) <= 0:
        raise RunningError("velocity and body height must be positive")
    if abs(values.get("level", 0.0)) > LEVEL_RANGE + 1e-12:
        raise RunningError(f"level must be within +-{LEVEL_RANGE} (eq. 2), not {values['level']}")


def running_track(params: RunningParameters, steps: int, step_width: float = 0.12, start_standing=False,
                  stop_standing=False, ramp_steps: int = 4, character: str = "human") -> Track:
    """Footprints of a run along +Y: each step sl long and 1/sf apart, stance and flight from eq. 6.

    start_standing / stop_standing ramp the velocity up from rest over ramp_steps steps (and down to rest
    at the end), each step taking the stride the parameters' equations give for its own velocity; the
    standing footprints hold both feet down (§3.3: starting and stopping are special cases of a step).
    """
    if not (isinstance(steps, int) and 1 <= steps <= 100_000):
        raise RunningError(f"steps must be an integer from 1 to 100000, not {steps!r}")
    fraction = np.ones(steps)
    ramp = max(1, int(ramp_steps))
    if start_standing:
        fraction = np.minimum(fraction, (np.arange(steps) + 1.0) / (ramp + 1.0))
    if stop_standing:
        fraction = np.minimum(fraction, (steps - np.arange(steps)) / (ramp + 1.0))
    strides = [params if f >= 1.0 else
               (natural(kmh(params.velocity) * f, params.level, params.body_height)) for f in fraction]
    lengths = np.array([p.step_length for p in strides])
    times = np.array([p.step_time for p in strides])
    stances = np.array([p.stance_time for p in strides])
    y = np.concatenate([[0.0], np.cumsum(lengths[:-1])])
    contact = np.concatenate([[0.0], np.cumsum(times[:-1])])
    liftoff = contact + stances
    feet = np.where(np.arange(steps) % 2 == 0, "L", "R")
    x = np.where(feet == "L", -0.5 * step_width, 0.5 * step_width)
    positions = np.stack([x, y, np.zeros(steps)], axis=1)
    if start_standing:  # the other foot stands beside the first until the first step's flight begins
        positions = np.vstack([[0.5 * step_width, 0.0, 0.0], positions])
        feet = np.concatenate([["R"], feet])
        contact = np.concatenate([[0.0], contact])
        liftoff = np.concatenate([[contact[1] + 0.5 * stances[0]], liftoff])
    if stop_standing:  # the last foot lands beside the one before and both stay down
        last = positions[-1]
        other = "R" if feet[-1] == "L" else "L"
        positions = np.vstack([positions, [-last[0], last[1], 0.0]])
        feet = np.concatenate([feet, [other]])
        landing = contact[-1] + times[-1]
        liftoff[-1] = landing + 1.0
        contact = np.concatenate([contact, [landing]])
        liftoff = np.concatenate([liftoff, [landing + 1.0]])
    return make_track(feet, positions, np.zeros(len(feet)), contact, liftoff, character=character)
