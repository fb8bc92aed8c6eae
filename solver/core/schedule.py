"""From a footprint track to a contact schedule: spline knots, segments, flights, samples, supports.

vdP97 §2.3: one Hermite segment per step, from a footfall to the next footfall, and a second segment for
the flight phase of a step that has one. Knots therefore sit at every distinct contact time and at every
lift-off that leaves no foot on the ground; the first contact and the last lift-off bound the motion. A
character that walks heel to toe gets a knot at every lift-off (knots_at_liftoffs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..character import Character
from ..errors import TimingError, UnknownFootError
from ..track import Track, validate

SAMPLES_PER_SEGMENT = 10  # vdP97 §2.4.3: the energy integral is discretised at 10 points per segment
MIN_PHASE = 1e-3  # seconds: the shortest phase (segment between knots) the solver accepts; shorter ones
# (a contact 1e-100 s after another, a stance of 1 us) make the spline's equations singular
INSIDE = 1e-9  # seconds: boundary samples take the support set of their own segment


@dataclass(frozen=True)
class Schedule:
    track: Track  # in time order
    leg_of_footprint: np.ndarray  # (F,) index into character.feet
    knot_times: np.ndarray  # (K,)
    flight: np.ndarray  # (K-1,) bool: no foot on the ground during segment k
    flight_intervals: np.ndarray  # (n, 2) start and end times of each flight phase
    key: tuple = field(default=(), compare=False)  # the timing all of the above derives from (for caches)

    @property
    def start(self) -> float:
        return float(self.knot_times[0])

    @property
    def end(self) -> float:
        return float(self.knot_times[-1])

    @property
    def segments(self) -> int:
        return len(self.knot_times) - 1

    def sample_times(self, per_segment: int = SAMPLES_PER_SEGMENT):
        """The trapezoidal rule over per_segment slices of each segment (per_segment + 1 points, both ends
        included, so every contact, lift-off and the motion's end are sampled).

        Returns times (S,), segment (S,), weights dt (S,) and support_times (S,): the boundary samples
        look up the support set just inside their own segment.
        """
        k0, k1 = self.knot_times[:-1], self.knot_times[1:]
        fraction = np.arange(per_segment + 1) / per_segment
        times = (k0[:, None] + (k1 - k0)[:, None] * fraction[None, :]).ravel()
        segment = np.repeat(np.arange(self.segments), per_segment + 1)
        trapezoid = np.ones(per_segment + 1)
        trapezoid[[0, -1]] = 0.5
        dt = (((k1 - k0) / per_segment)[:, None] * trapezoid[None, :]).ravel()
        support_times = np.clip(times, k0[segment] + INSIDE, k1[segment] - INSIDE)
        return times, segment, dt, support_times

    def active_footprints(self, times) -> np.ndarray:
        """(S, legs) index of the footprint each leg stands on at each time, or -1 (contact <= t < lift-off).

        A foot's contacts never overlap, so per leg the last contact at or before t is the only candidate.
        """
        t = np.asarray(times, dtype=float)
        legs = int(self.leg_of_footprint.max()) + 1 if len(self.leg_of_footprint) else 0
        result = np.full((len(t), legs), -1, dtype=int)
        for leg in range(legs):  # a handful of legs
            mine = np.flatnonzero(self.leg_of_footprint == leg)  # in time order
            if mine.size:
                j = np.searchsorted(self.track.contact[mine], t, side="right") - 1
                on = (j >= 0) & (t < self.track.liftoff[mine[np.maximum(j, 0)]])
                result[:, leg] = np.where(on, mine[np.maximum(j, 0)], -1)
        return result


def build_schedule(track: Track, character: Character) -> Schedule:
    """Validate the track for this character and derive its contact schedule."""
    validate(track, allowed_feet=character.feet)
    if len(track) == 0:
        raise UnknownFootError("the track has no footprints")
    # Moving or turning footprints (a live drag) leaves the timing alone: derived once per timing.
    key = (np.asarray(track.contact, dtype=float).tobytes(), np.asarray(track.liftoff, dtype=float).tobytes(),
           tuple(str(f) for f in track.feet), tuple(character.feet), knots_at_liftoffs(character))
    order, leg_of, knots, flight, intervals = _timing(key)
    short = np.flatnonzero(np.diff(knots) < MIN_PHASE)
    if short.size:
        a, b = knots[short[0]], knots[short[0] + 1]
        raise TimingError(f"two of the track's events, at {a:.6g} s and {b:.6g} s, are {b - a:.3g} s apart: a phase "
                          f"of the gait shorter than {MIN_PHASE * 1e3:g} ms cannot be solved; give them the same time "
                          f"or at least {MIN_PHASE * 1e3:g} ms between them")
    return Schedule(track.take(order), leg_of, knots, flight, intervals, key)


def knots_at_liftoffs(character) -> bool:
    """A biped that walks heel to toe gets a knot at every lift-off, not only at a flight's: double and single
    support each their own segment, so the COM can sink as its weight passes from foot to foot and rise over
    the straight stance leg (the vault of a walk; one cubic per step could only dip or stay level)."""
    return bool(character.heel_strike) and not character.is_quadruped


def feet_down(contact, liftoff, times) -> np.ndarray:
    """How many footprints (their contact and lift-off times, any order) are under foot at the times:
    contact <= t < lift-off."""
    return (np.searchsorted(np.sort(contact), times, side="right")
            - np.searchsorted(np.sort(liftoff), times, side="right"))


def walking_landings(track) -> np.ndarray:
    """(F,) bool: footprints landed on while another foot stands (a walking step lands heel first), not
    after a flight nor together with another foot (a hop)."""
    contact, liftoff = np.sort(track.contact), np.sort(track.liftoff)
    standing = np.searchsorted(contact, track.contact, side="left") - np.searchsorted(liftoff, track.contact,
                                                                                     side="right")
    return standing > 0


def preswing_starts(track) -> np.ndarray:
    """(F,) when each footprint's pre-swing begins: the last contact of another footprint during its stance
    (contact < t < lift-off; the other foot takes the weight), inf where none comes."""
    contacts = np.sort(track.contact)
    last = np.searchsorted(contacts, track.liftoff, side="left") - 1  # the last contact before lift-off
    start = contacts[np.maximum(last, 0)]
    return np.where((last >= 0) & (start > track.contact), start, np.inf)


def clear_cache():
    _timing.cache_clear()


@lru_cache(maxsize=16)
def _timing(key):
    """Time order, leg of each footprint, knots, flight segments and flight intervals (read-only arrays)."""
    contact, liftoff = np.frombuffer(key[0]), np.frombuffer(key[1])
    feet, names = np.array(key[2]), key[3]
    order = np.lexsort((feet, contact))  # as Track.time_order
    contact, liftoff, feet = contact[order], liftoff[order], feet[order]
    leg_of = np.array([names.index(f) for f in feet], dtype=int)
    start, end = contact.min(), liftoff.max()
    # A lift-off starts a flight when no footprint is under foot just after it.
    lifts = np.unique(liftoff[liftoff < end])
    flight_starts = lifts[feet_down(contact, liftoff, lifts) == 0]
    knots = np.unique(np.concatenate([contact, lifts if key[4] else flight_starts, [start, end]]))
    flight = feet_down(contact, liftoff, 0.5 * (knots[:-1] + knots[1:])) == 0
    intervals = np.stack([knots[:-1][flight], knots[1:][flight]], axis=1)
    result = (order, leg_of, knots, flight, intervals)
    for array in result:
        array.setflags(write=False)
    return result
