"""Footprints from animation you already have (issue 20, item 4): foot plants detected in sampled foot motion
(mocap or keyframed), as an ordinary footprint track to re-solve on new ground.

A foot is planted at a frame where one of its sole points (heel, mid-foot, toe) is slow and low: its speed under
PLANT_SPEED and its height over the ground under PLANT_HEIGHT. The speed at a frame is the lesser of the
backward and forward differences, so the frame a foot lands on (still from then on) and the last it stands on
(still until then) count as planted, while a swing's frames, moving on both sides, do not. A plant is a run of
planted frames at least MIN_PLANT long, gaps of up to BRIDGE frames closed (mocap jitter). Its footprint is the
mid-foot sole point and the foot's heading where the foot stands flat (every sole point planted), or where it
stands at all when it never does (a tiptoe); its contact halfway between the first planted frame and the one
before, its lift-off halfway between the last and the one after (both within half a frame of the truth).
"""

from __future__ import annotations

import numpy as np

from ..errors import FootprintError
from ..track import Track, make_track

PLANT_SPEED = 0.15  # l_nom per second (0.13 m/s for the human: a stance foot's mocap jitter stays under, a swing
# foot is past it within a frame or two of lifting)
PLANT_HEIGHT = 0.04  # l_nom above the ground (3.4 cm: a heel or toe resting, not a foot swinging past)
MIN_PLANT = 0.1  # seconds: shorter stops of a foot are not footprints
BRIDGE = 2  # frames: a plant interrupted this briefly is one plant


def planted_frames(times, points, ground, leg_length):
    """(N, P) bool: each sole point (N, P, 3) slow and low at each frame (times (N,), ground heights (N, P))."""
    step = np.diff(times)[:, None]
    speed = np.linalg.norm(np.diff(points, axis=0), axis=-1) / step  # (N - 1, P)
    backward = np.concatenate([speed[:1], speed])
    forward = np.concatenate([speed, speed[-1:]])
    slow = np.minimum(backward, forward) < PLANT_SPEED * leg_length
    low = points[..., 2] - ground < PLANT_HEIGHT * leg_length
    return slow & low


def _runs(mask, times):
    """(starts, stops) frame indices [start, stop) of the runs of True, gaps of up to BRIDGE frames closed and
    runs shorter than MIN_PLANT dropped."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if len(starts) > 1:
        join = starts[1:] - stops[:-1] <= BRIDGE
        starts, stops = starts[np.concatenate([[True], ~join])], stops[np.concatenate([~join, [True]])]
    frame = np.median(np.diff(times)) if len(times) > 1 else 0.0
    duration = times[np.minimum(stops, len(times) - 1)] - times[starts] + np.where(stops >= len(times), frame, 0.0)
    keep = duration >= MIN_PLANT - 1e-9
    return starts[keep], stops[keep]


def extract_track(times, feet, sole_points, support, forward, leg_length, ground=None, character="human") -> Track:
    """A footprint track of the plants in sampled foot motion.

    times (N,) seconds, increasing; feet: the foot names (L,); sole_points (N, L, P, 3) each foot's heel ... toe
    points; support (N, L, 3) each foot's mid-foot sole point (the footprint's point); forward (N, L, 3) each foot's
    toe direction; leg_length the character's l_nom (the thresholds' scale); ground (N, L, P) heights under the
    sole points (None: level ground at the lowest point any foot reaches)."""
    times = np.asarray(times, dtype=float)
    sole_points = np.asarray(sole_points, dtype=float)
    if times.ndim != 1 or len(times) < 3 or not (np.diff(times) > 0).all():
        raise FootprintError("the animation's times must be at least three increasing frames")
    if not (np.isfinite(sole_points).all() and np.isfinite(support).all() and np.isfinite(forward).all()):
        raise FootprintError("the animation's foot positions hold NaN or infinity")
    if ground is None:
        ground = np.full(sole_points.shape[:-1], sole_points[..., 2].min())
    names, positions, headings, contact, liftoff = [], [], [], [], []
    for leg, foot in enumerate(feet):  # a handful of feet
        planted = planted_frames(times, sole_points[:, leg], ground[:, leg], leg_length)
        starts, stops = _runs(planted.any(axis=1), times)
        for start, stop in zip(starts, stops):  # a foot's plants: each is one footprint
            flat = planted[start:stop].all(axis=1)
            frames = np.arange(start, stop)[flat] if flat.any() else np.arange(start, stop)
            names.append(foot)
            positions.append(np.mean(support[frames, leg], axis=0))
            ahead = np.mean(forward[frames, leg, :2], axis=0)
            headings.append(np.arctan2(-ahead[0], ahead[1]))
            # Halfway between the frames either side of each change: the truth lies between them.
            contact.append(0.5 * (times[start - 1] + times[start]) if start > 0 else times[0])
            liftoff.append(0.5 * (times[stop - 1] + times[stop]) if stop < len(times) else times[-1])
    if not names:
        raise FootprintError("no foot plant found: no foot stays slow and low for "
                             f"{MIN_PLANT:.2f} s (speed under {PLANT_SPEED * leg_length:.2f} m/s, "
                             f"height under {PLANT_HEIGHT * leg_length:.3f} m)")
    track = make_track(names, positions, headings, contact, liftoff, character=character)
    return track.take(track.time_order())
