"""Automatic timing from footprint distances (vdP97 §4.1, Fig. 12).

vdP97 maps the distance between successive footprints directly to a stance time and a step time, and
creates a flight phase whenever a step exceeds a threshold distance. The paper gives Fig. 12 as a graph,
not numbers; these curves are our reading of it, expressed in Froude-normalised units so one table serves
a bird, a human and a dinosaur: distances in nominal leg lengths (d / l_nom), times in sqrt(l_nom / g).

- Walk: step time grows with distance; stance outlasts the step by a double-stance period that shrinks as
  steps grow. Past LEAP_THRESHOLD a flight phase appears, lengthening with distance.
- Run: every step has a flight phase. Not vdP97's curve (whose flights took half of every step and more) but
  running data: the body travels about a constant distance while a foot is down (Weyand et al. 2000, J. Appl.
  Physiol. 89, "contact length"), so the flight's share of a step is 1 - RUN_CONTACT_LENGTH / step length
  (20-35 % at 3-4 m/s), and a longer step is a quicker one (step time ~ length^RUN_CADENCE), through a 3.5 m/s
  run's step: 1.225 m in 0.35 s, 0.25 s of it on the ground.
- Hop: both feet leave and land together; the flight lengthens with the hop distance.
"""

from __future__ import annotations

import numpy as np

GAITS = ("walk", "run", "hop")
LEAP_THRESHOLD = 1.15  # step distance / l_nom above which a walking step becomes a leap
RUN_STEP = (1.424, 1.182)  # a 3.5 m/s run's step in l_nom and time units (1.225 m in 0.35 s for the human)
RUN_CONTACT_LENGTH = 1.017  # l_nom the body travels while a running foot is down (0.875 m: 3.5 m/s for 0.25 s)
RUN_CADENCE = -0.4  # step time ~ step length^RUN_CADENCE: a faster runner lengthens the step and quickens it
SHORTEST_RUN_STEP = 0.8  # l_nom: shorter steps (running on the spot) keep this one's step time
MIN_RUN_FLIGHT = 0.1  # of the step: every running step flies


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
        step = RUN_STEP[1] * (np.maximum(d, SHORTEST_RUN_STEP) / RUN_STEP[0]) ** RUN_CADENCE
        stance = np.minimum(step * RUN_CONTACT_LENGTH / np.maximum(d, 1e-9), (1.0 - MIN_RUN_FLIGHT) * step)
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
