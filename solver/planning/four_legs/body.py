"""A quadruped's body in plan for the planners: the disc that holds it whichever way it turns, the clearance its
path keeps, and paths rounded to the turns its gait can take."""

from __future__ import annotations

import math

import numpy as np

from ...character import Character
from ...errors import PlanningError
from ...quadruped import gait_track
from .. import obstacles as obstacles_module

TURN_RADIUS = 1.0  # hip heights: the planned path's corners are rounded to this, twice gait_track's tightest
# (MIN_TURN_RADIUS): the hind and fore masses, half a body length behind and ahead of the middle, cut a turn's
# inside by (half length)^2 / (2 R): 8 cm for a dog here
SWAY = 0.1  # hip heights: the masses' sway off the path (a walk's and a trot's support to one side, the solve's
# smoothing) added to the path's clearance; measured on a dog past posts and walls (tests)
ARC_SAMPLE = 0.05  # metres between the decided path's points


def body_radius(character: Character) -> float:
    """The quadruped's body radius in plan: half its hind-to-fore hip distance plus the hips' half-width. The
    body, from the hind to the fore hips and as wide as the hips, lies within this disc about its middle
    whichever way it turns (a dog's: 0.33 + 0.125 = 0.45 m; a biped's is obstacles.body_radius)."""
    if not character.is_quadruped:
        return obstacles_module.body_radius(character)
    hips = character.hip_offsets
    return 0.5 * float(np.ptp(hips[:, 1])) + float(np.abs(hips[:, 0]).max())


def path_clearance(character: Character) -> float:
    """How far the planned path keeps from obstacles: the body's radius, the masses' sag inside a turn of
    TURN_RADIUS (half the body's length squared over twice the radius) and SWAY."""
    if not character.is_quadruped:
        return obstacles_module.path_clearance(character)
    h = character.leg_length_nominal
    half_length = 0.5 * float(np.ptp(character.hip_offsets[:, 1]))
    return body_radius(character) + half_length ** 2 / (2.0 * TURN_RADIUS * h) + SWAY * h


def rounded(points, radius: float, spacing: float = ARC_SAMPLE):
    """The polyline (N, 2 or 3) with each corner replaced by a circular arc of `radius` (less where the
    segments either side are too short for it: each corner gets its share of a segment, in proportion to what
    it wants), its points `spacing` apart on the arcs; (points (M, 2), the tightest radius used)."""
    points = np.asarray(points, dtype=float)[:, :2]
    keep = np.concatenate([[True], np.linalg.norm(np.diff(points, axis=0), axis=1) > 1e-9])
    points = points[keep]
    # Points on a straight line turn nothing: dropped (bend_path's samples along a straight stretch).
    while len(points) > 2:
        chords = np.diff(points, axis=0)
        cross = chords[:-1, 0] * chords[1:, 1] - chords[:-1, 1] * chords[1:, 0]
        dot = np.einsum("ij,ij->i", chords[:-1], chords[1:])
        straight = np.flatnonzero((np.abs(np.arctan2(cross, dot)) < 1e-6))
        if not len(straight):
            break
        points = np.delete(points, straight[::2] + 1, axis=0)  # every other one: its neighbours stay to judge
    if len(points) < 3:
        return points, math.inf
    chords = np.diff(points, axis=0)
    lengths = np.linalg.norm(chords, axis=1)
    unit = chords / lengths[:, None]
    turn = np.arctan2(unit[:-1, 0] * unit[1:, 1] - unit[:-1, 1] * unit[1:, 0], np.einsum("ij,ij->i", unit[:-1], unit[1:]))
    wanted = radius * np.tan(0.5 * np.abs(turn))  # tangent lengths
    before = np.concatenate([[0.0], wanted])  # what the corner at each segment's start wants of it
    after = np.concatenate([wanted, [0.0]])  # and the one at its end
    share = lengths / np.maximum(before + after, 1e-12)
    tangent = np.minimum(wanted, np.minimum(share[:-1], share[1:]) * wanted)
    radii = np.where(np.abs(turn) > 1e-9, tangent / np.maximum(np.tan(0.5 * np.abs(turn)), 1e-12), np.inf)
    out = [points[:1]]
    for k in range(len(turn)):  # a corner at a time: a handful to a few hundred
        corner = points[k + 1]
        enter = corner - tangent[k] * unit[k]
        if not np.isfinite(radii[k]) or tangent[k] < 1e-9:
            out.append(corner[None])
            continue
        left = np.array([-unit[k, 1], unit[k, 0]]) * np.sign(turn[k])  # towards the arc's centre
        centre = enter + radii[k] * left
        a0 = math.atan2(*(enter - centre)[::-1])
        count = max(int(math.ceil(abs(turn[k]) * radii[k] / spacing)), 2)
        angles = a0 + np.linspace(0.0, turn[k], count + 1)
        arc = centre + radii[k] * np.stack([np.cos(angles), np.sin(angles)], axis=1)
        out.append(arc)
    out.append(points[-1:])
    path = np.concatenate(out)
    keep = np.concatenate([[True], np.linalg.norm(np.diff(path, axis=0), axis=1) > 1e-6])
    return path[keep], float(radii.min())


def round_or_refuse(points, character, what):
    """rounded() at TURN_RADIUS; PlanningError where a corner cannot be rounded as wide as the gait turns."""
    h = character.leg_length_nominal
    path, tightest = rounded(points, TURN_RADIUS * h)
    least = gait_track.MIN_TURN_RADIUS * h
    if tightest < least * 1.05:
        raise PlanningError(f"{what} turns where a quadruped cannot: its corners are too close together to round "
                            f"them to the {least:.2f} m ({gait_track.MIN_TURN_RADIUS:g} hip heights) it turns at "
                            f"least (the tightest gets {tightest:.2f} m)")
    return path
