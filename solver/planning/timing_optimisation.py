"""Footstep timing optimised, not only rule-based (issue 20, item 5; as TOWR optimises a robot's gait phase
durations with its motion): the contact and lift-off times move within limits the artist sets, to lower the
solved motion's energy (vdP97 §2.4: physics, comfort, barrier and clearance terms).

Each time may move by at most `slack` seconds, and by less than half the gap to the events next to it in time
(every contact and lift-off of every foot), the first and the last not at all (the energy is an integral over the
motion's span, which must not gain by shrinking), so the events keep their order: the same feet stand, swing and fly
in the same sequence and every stance and swing keeps a positive duration (no contact constraint broken). The
energy of a timing is that of its solved motion; its gradient is taken by forward differences, every time's
variant solved together in one batch (biped.solve_batch), each warm-started from the current solution (the
schedule keeps its shape, so the free states line up). A projected gradient step with backtracking (the trial
lengths solved together too) keeps the best; it stops when no trial gains RELATIVE_GAIN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import biped
from ..errors import TimingError
from ..track import Track

ORDER_SHARE = 0.45  # an event moves less than this share of the gap to its neighbours in time
DIFFERENCE = 1e-2  # seconds: the forward-difference step (the energy is sampled: a lift-off moved less than a sample
# interval changes nothing)
TRIAL_STEPS = (1.0, 0.3, 0.1, 0.03, 0.01)  # fractions of the projected gradient step tried at once
RELATIVE_GAIN = 1e-3  # stop when an iteration gains less than this share of the energy
MAX_ITERATIONS = 12


@dataclass
class TimingResult:
    track: Track
    energy_before: float
    energy_after: float
    iterations: int
    largest_move: float  # seconds

    @property
    def gain(self) -> float:
        """The share of the energy the new timing saved (0.2: 20 % less)."""
        return 1.0 - self.energy_after / self.energy_before

    def report(self) -> dict:
        return {"energy_before": self.energy_before, "energy_after": self.energy_after, "gain": self.gain,
                "iterations": self.iterations, "largest_move_seconds": self.largest_move}


def _bounds(track: Track, slack):
    """(low, high) of every time, contacts then lift-offs (2n,): within slack, and less than ORDER_SHARE of the
    gap to each neighbouring event in time (equal times move together: their gap is 0, so they stay)."""
    times = np.concatenate([track.contact, track.liftoff])
    slack = np.broadcast_to(np.asarray(slack, dtype=float), times.shape) if np.ndim(slack) == 0 else np.concatenate(
        [np.asarray(slack, dtype=float)] * 2)
    if not (np.isfinite(slack).all() and (slack >= 0.0).all()):
        raise TimingError(f"the timing's slack must be zero or more seconds, not {np.asarray(slack).min()}")
    order = np.argsort(times, kind="stable")
    sorted_times = times[order]
    gaps = np.diff(sorted_times)
    before = np.concatenate([[np.inf], gaps])
    after = np.concatenate([gaps, [np.inf]])
    room = np.empty_like(times)
    room[order] = ORDER_SHARE * np.minimum(before, after)
    room = np.minimum(room, slack)
    room[(times == sorted_times[0]) | (times == sorted_times[-1])] = 0.0  # the motion's span stays: its energy is
    # an integral over time, and a shorter motion would gain by being shorter
    return times - room, times + room


def _with_times(track: Track, times) -> Track:
    n = len(track)
    return track.replace(contact=times[:n].copy(), liftoff=times[n:].copy())


def _energies(tracks, fps, warm, character, terrain):
    motions = biped.solve_batch(tracks, [character] * len(tracks), [terrain] * len(tracks), fps=fps,
                                warm=None if warm is None else np.tile(warm, (len(tracks), 1)))
    return np.array([m.report["energy"]["total"] for m in motions]), motions


def optimise_timing(track: Track, slack, character=None, terrain=None, fps: float = 60.0,
                    max_iterations: int = MAX_ITERATIONS) -> TimingResult:
    """The track with its contact and lift-off times moved (each within `slack` seconds: a number, or one per
    footprint) to lower its solved energy; with the energies before and after. A track marked with a "motion"
    (stepping, standing ends) times its own steps: refused."""
    if "motion" in track.extras:
        raise TimingError(f'a track marked "motion": "{track.extras["motion"]}" times its own steps: its timing is '
                          "not optimised")
    low, high = _bounds(track, slack)
    times = np.concatenate([track.contact, track.liftoff])
    movable = np.flatnonzero(high > low)
    (energy,), (motion,) = _energies([track], fps, None, character, terrain)
    start_energy = energy
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # a handful of batched iterations
        if not len(movable):
            break
        warm = motion.solution
        probe = np.repeat(times[None], len(movable), axis=0)
        room_up, room_down = high[movable] - times[movable], times[movable] - low[movable]
        step = np.where(room_up >= room_down, np.minimum(DIFFERENCE, room_up), -np.minimum(DIFFERENCE, room_down))
        probe[np.arange(len(movable)), movable] += step
        probed, _ = _energies([_with_times(track, t) for t in probe], fps, warm, character, terrain)
        gradient = np.zeros_like(times)
        gradient[movable] = (probed - energy) / step
        # The steepest step scaled to reach the bounds' scale: the largest move the slack allows.
        scale = np.max(high - low) / max(np.abs(gradient).max(), 1e-300)
        trials = [np.clip(times - f * scale * gradient, low, high) for f in TRIAL_STEPS]
        tried, motions = _energies([_with_times(track, t) for t in trials], fps, warm, character, terrain)
        best = int(np.argmin(tried))
        if tried[best] >= energy * (1.0 - RELATIVE_GAIN):
            break
        times, energy, motion = trials[best], tried[best], motions[best]
    original = np.concatenate([track.contact, track.liftoff])
    best = _with_times(track, times)
    if not np.array_equal(times, original):  # the energy of the new timing solved as the product will (cold)
        (energy,), _ = _energies([best], fps, None, character, terrain)
    return TimingResult(best, float(start_energy), float(energy), iterations, float(np.abs(times - original).max()))
