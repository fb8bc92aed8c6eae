"""Automatic timing from footprint distances (vdP97 §4.1, Fig. 12).

vdP97 maps the distance between successive footprints directly to a stance time and a step time, and
creates a flight phase whenever a step exceeds a threshold distance. The paper gives Fig. 12 as a graph,
not numbers; these curves are our reading of it, expressed in Froude-normalised units so one table serves
a bird, a human and a dinosaur: distances in nominal leg lengths (d / l_nom), times in sqrt(l_nom / g).

- Walk: step time grows with distance; stance outlasts the step by a double-stance period that shrinks as
  steps grow. Past LEAP_THRESHOLD a flight phase appears, lengthening with distance.
- Run: every step has a flight phase.
- Hop: both feet leave and land together; the flight lengthens with the hop distance.
"""

from __future__ import annotations

import numpy as np

GAITS = ("walk", "run", "hop")
LEAP_THRESHOLD = 1.15  # step distance / l_nom above which a walking step becomes a leap


def step_timing(distance, gait: str, time_unit: float, leg_length: float):
    """Stance time and step time (seconds) for steps of the given distances (metres), vectorised.

    The step time is the time from a footfall to the next footfall; the stance time is how long the foot
    stays on its footprint (the two daggers of vdP97 Fig. 3). stance > step means double stance follows;
    stance < step means a flight phase of (step - stance).
    """
    d = np.asarray(distance, dtype=float) / leg_length
    if gait == "walk":
        walk_step = 1.5 + 0.5 * d
        double_stance = np.clip(0.6 - 0.3 * d, 0.15, None)
        leap = d > LEAP_THRESHOLD
        flight = 0.3 + 0.6 * (d - LEAP_THRESHOLD)
        leap_stance = np.clip(1.0 - 0.2 * (d - LEAP_THRESHOLD), 0.6, None)
        stance = np.where(leap, leap_stance, walk_step + double_stance)
        step = np.where(leap, leap_stance + flight, walk_step)
    elif gait == "run":
        stance = np.clip(0.95 - 0.15 * d, 0.6, None)
        step = stance + 0.25 + 0.2 * d
    elif gait == "hop":
        stance = np.full_like(d, 0.9)
        step = stance + 0.5 + 0.5 * d
    else:
        raise ValueError(f"unknown gait {gait!r}; expected one of {GAITS}")
    return stance * time_unit, step * time_unit


def timing_for_sequence(positions, gait: str, time_unit: float, leg_length: float, start: float = 0.0,
                        group_size: int = 1):
    """Contact and lift-off times for footprints in stepping order.

    group_size footprints land together (2 for a two-footed hop); the step distance of a group is the
    distance between the centres of successive groups, the last group reuses the previous distance.
    """
    positions = np.asarray(positions, dtype=float).reshape(-1, 3)
    n = len(positions)
    groups = positions.reshape(-1, group_size, 3).mean(axis=1)
    if len(groups) > 1:
        dist = np.linalg.norm(np.diff(groups, axis=0), axis=1)
        dist = np.append(dist, dist[-1])
    else:
        dist = np.zeros(1)
    stance, step = step_timing(dist, gait, time_unit, leg_length)
    contact = start + np.concatenate(([0.0], np.cumsum(step[:-1])))
    liftoff = contact + stance
    return np.repeat(contact, group_size)[:n], np.repeat(liftoff, group_size)[:n]
