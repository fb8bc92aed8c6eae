"""Edits of a track's footprints: retime, mirror, delete. Pure functions; each returns a new Track.

Callers validate the result before they write it anywhere, so a bad edit changes nothing.
"""

from __future__ import annotations

import numpy as np

from ..track import Track

MIRRORED_FOOT = {"L": "R", "R": "L", "LH": "RH", "RH": "LH", "LF": "RF", "RF": "LF"}


def retime(track: Track, selected, scale: float = 1.0, offset: float = 0.0) -> Track:
    """Scale the selected footprints' times about the earliest selected contact, then shift them."""
    selected = np.asarray(selected, dtype=bool)
    if not selected.any():
        return track
    pivot = track.contact[selected].min()
    contact, liftoff = track.contact.copy(), track.liftoff.copy()
    contact[selected] = pivot + (contact[selected] - pivot) * scale + offset
    liftoff[selected] = pivot + (liftoff[selected] - pivot) * scale + offset
    return track.replace(contact=contact, liftoff=liftoff)


def mirror(track: Track, selected) -> Track:
    """Mirror the selected footprints left/right about their own line of travel.

    The mirror plane is vertical, through the selection's centroid, along its mean heading; left and right
    feet swap and headings reflect, so a left turn becomes a right turn and footprints keep their times.
    """
    selected = np.asarray(selected, dtype=bool)
    if not selected.any():
        return track
    centre = track.positions[selected].mean(axis=0)
    h = track.headings[selected]
    axis_heading = np.arctan2(np.sin(h).mean(), np.cos(h).mean())
    forward = np.array([-np.sin(axis_heading), np.cos(axis_heading), 0.0])
    right = np.array([forward[1], -forward[0], 0.0])
    positions, headings, feet = track.positions.copy(), track.headings.copy(), track.feet.copy()
    lateral = (positions[selected] - centre) @ right
    positions[selected] -= 2.0 * lateral[:, None] * right
    headings[selected] = 2.0 * axis_heading - headings[selected]
    headings[selected] = np.arctan2(np.sin(headings[selected]), np.cos(headings[selected]))
    feet[selected] = [MIRRORED_FOOT[str(f)] for f in feet[selected]]
    return track.replace(positions=positions, headings=headings, feet=feet)


def delete(track: Track, selected, close_gap: bool = False) -> Track:
    """Remove the selected footprints; close_gap pulls later footprints earlier by the removed step times.

    The step time of a footprint is the time from its contact to the next footfall (vdP97 Fig. 3), so
    removing a pair of steps from a walk and closing the gap keeps the rhythm of the rest.
    """
    selected = np.asarray(selected, dtype=bool)
    kept = track.take(~selected)
    if not close_gap or not selected.any():
        return kept
    order = track.time_order()
    times = track.contact[order]
    step = np.append(np.diff(times), 0.0)  # the last footprint has no next footfall
    removed_times, removed_steps = times[selected[order]], step[selected[order]]  # in time order
    # Each kept footprint moves by the steps of all removed ones that touched down before it.
    before = np.searchsorted(removed_times, kept.contact, side="left")
    shift = np.concatenate([[0.0], np.cumsum(removed_steps)])[before]
    return kept.replace(contact=kept.contact - shift, liftoff=kept.liftoff - shift)
