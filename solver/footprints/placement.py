"""Adding one footprint at the end of a track: next foot, heading and automatic timing (vdP97 §4.1)."""

from __future__ import annotations

import numpy as np

from ..character import Character
from ..track import Track, make_track
from .footpath import heading_of
from .timing import step_timing

FIRST_STEP_LEGS = 0.8  # the stance of a lone first footprint: that of a step of 0.8 leg lengths


def _concat(track: Track, foot, position, heading, contact, liftoff) -> Track:
    return make_track(
        np.append(track.feet, foot),
        np.vstack([track.positions, position]),
        np.append(track.headings, heading),
        np.append(track.contact, contact),
        np.append(track.liftoff, liftoff),
        has_height=np.append(track.has_height, True),
        character=track.character,
        extras=track.extras,
    )


def append_step(track: Track, position, character: Character, gait: str, heading: float | None = None,
                start: float = 0.0) -> Track:
    """The track with a footprint added after its last one (in time).

    The foot alternates through the character's feet and the toes point along the stride; the new footfall comes one step time after the last
    one and the last footprint's lift-off is retimed, both from the step distance (vdP97 §4.1, Fig. 12).
    With gait "hop" footprints pair up: every second one lands together with the one before.
    """
    position = np.asarray(position, dtype=float)
    times = lambda d: step_timing(d, gait, character.time_unit, character.leg_length_nominal)  # noqa: E731
    if len(track) == 0:
        stance, _ = times(FIRST_STEP_LEGS * character.leg_length_nominal)
        return _concat(track, character.feet[0], position, 0.0 if heading is None else heading,
                       start, start + stance)
    order = track.time_order()
    last = order[-1]
    feet = list(character.feet)
    foot = feet[(feet.index(str(track.feet[last])) + 1) % len(feet)] if track.feet[last] in feet else feet[0]
    together = np.flatnonzero(track.contact == track.contact[last])
    if gait == "hop" and len(together) == 1 and len(track) % 2 == 1:
        h = track.headings[last] if heading is None else heading
        return _concat(track, foot, position, h, track.contact[last], track.liftoff[last])
    origin = track.positions[together].mean(axis=0)
    offset = position - origin
    distance = float(np.linalg.norm(offset))
    stance, step = times(distance)
    if heading is None:
        # Along the stride (from the same foot's previous footprint): the step itself also crosses sideways.
        stride = position - track.positions[order[-2]] if len(track) >= 2 else offset
        heading = float(heading_of(stride[:2])) if np.linalg.norm(stride[:2]) > 1e-6 else float(track.headings[last])
    liftoff = track.liftoff.copy()
    liftoff[together] = track.contact[last] + stance
    contact = track.contact[last] + step
    return _concat(track.replace(liftoff=liftoff), foot, position, heading, contact, contact + stance)
