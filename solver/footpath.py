"""Footprints placed along a path (vdP97 §2.1, Fig. 4): step length, step width and a start foot."""

from __future__ import annotations

import numpy as np

from .errors import PathError

MAX_GENERATED_STEPS = 10_000


def heading_of(direction) -> np.ndarray:
    """Heading (radians about +Z, 0 = +Y) of planar directions (..., 2 or 3)."""
    direction = np.asarray(direction, dtype=float)
    return np.arctan2(-direction[..., 0], direction[..., 1])


def _vertex_tangents(points: np.ndarray) -> np.ndarray:
    """Unit tangents at the polyline's vertices: the mean of the adjacent chord directions.

    Interpolating these along the arc is second-order accurate; the chords alone would be off by half
    a segment's turning angle.
    """
    chords = np.diff(points, axis=0)
    chords /= np.linalg.norm(chords, axis=1, keepdims=True)
    tangents = np.empty_like(points)
    tangents[1:-1] = chords[:-1] + chords[1:]
    if len(points) == 2:
        tangents[:] = chords[0]
        return tangents
    # Ends: the neighbour's tangent reflected about the end chord (exact on a circular arc).
    for end, chord, inner in ((0, chords[0], tangents[1]), (-1, chords[-1], tangents[-2])):
        inner = inner / np.linalg.norm(inner)
        tangents[end] = 2.0 * np.dot(chord, inner) * chord - inner
    return tangents


def _clean_path(points):
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if len(points) < 2 or not np.isfinite(points).all():
        raise PathError("the path needs at least two finite points")
    keep = np.concatenate(([True], np.linalg.norm(np.diff(points, axis=0), axis=1) > 1e-9))
    points = points[keep]
    if len(points) < 2:
        raise PathError("the path has zero length")
    arc = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))))
    return points, arc


def _frames_at(points, arc, s):
    """Point, left direction and heading of the path at arc lengths s."""
    centre = np.stack([np.interp(s, arc, points[:, k]) for k in range(3)], axis=1)
    vt = _vertex_tangents(points)
    tangent = np.stack([np.interp(s, arc, vt[:, k]) for k in range(3)], axis=1)
    planar = tangent[:, :2] / np.linalg.norm(tangent[:, :2], axis=1, keepdims=True)
    left = np.stack([-planar[:, 1], planar[:, 0], np.zeros(len(s))], axis=1)
    return centre, left, heading_of(planar)


def lay_along_path(points, along, lateral):
    """Map footprints of a straight track (lateral x, along y) onto a path: positions and headings."""
    points, arc = _clean_path(points)
    along = np.asarray(along, dtype=float)
    if along.max() > arc[-1] + 1e-6:
        raise PathError(f"the path is {arc[-1]:.2f} m long, the footprints need {along.max():.2f} m")
    centre, left, headings = _frames_at(points, arc, along)
    return centre - left * np.asarray(lateral, dtype=float)[:, None], headings


def footprints_along_path(points, step_length: float, step_width: float, start_foot: str = "L",
                          steps: int | None = None, feet=("L", "R"), together: bool = False):
    """Positions, headings and feet of footprints along a polyline (N, 3), in stepping order.

    Footprint k sits at arc length k * step_length, offset sideways by step_width / 2 (the left foot to
    the left of the direction of travel). steps=None fills the path. together=True places both feet side
    by side at each station (a two-footed hop).
    """
    points, arc = _clean_path(points)
    if not (np.isfinite(step_length) and step_length > 0):
        raise PathError(f"step length must be positive, not {step_length}")
    if not (np.isfinite(step_width) and step_width >= 0):
        raise PathError(f"step width must be zero or positive, not {step_width}")
    stations = int(np.floor(arc[-1] / step_length + 1e-9)) + 1 if steps is None else int(steps)
    if stations < 1:
        raise PathError(f"number of steps must be at least 1, not {steps}")
    if stations > MAX_GENERATED_STEPS:
        raise PathError(f"{stations} steps is more than the limit of {MAX_GENERATED_STEPS}")
    s = np.minimum(np.arange(stations) * step_length, arc[-1])
    centre, left, headings = _frames_at(points, arc, s)
    other = feet[1] if start_foot == feet[0] else feet[0]
    if together:
        side = np.tile([1.0, -1.0], stations) if start_foot == feet[0] else np.tile([-1.0, 1.0], stations)
        names = np.tile([start_foot, other], stations)
        centre, left, headings = (np.repeat(a, 2, axis=0) for a in (centre, left, headings))
    else:
        first = 1.0 if start_foot == feet[0] else -1.0  # feet[0] is the left foot
        side = first * np.where(np.arange(stations) % 2 == 0, 1.0, -1.0)
        names = np.where(np.arange(stations) % 2 == 0, start_foot, other)
    positions = centre + left * (side * step_width / 2)[:, None]
    return positions, headings, names.astype("<U2")


def tilt_from_normals(normals, headings):
    """Pitch and roll (radians) that tilt a footprint flush with a surface of the given normals.

    A footprint's rotation is R = Rz(heading) Rx(pitch) Ry(roll) (Blender Euler order 'YXZ'): roll about
    the toe axis, then pitch, then the heading, so the heading stays exactly the rotation about +Z and the
    toe direction projected on the ground plane keeps it (vdP97 §2.1: footprints take the terrain's slope).
    """
    normals = np.asarray(normals, dtype=float)
    normals = normals / np.linalg.norm(normals, axis=-1, keepdims=True)
    c, s = np.cos(headings), np.sin(headings)
    # The normal expressed in the heading frame: Rz(-heading) n.
    nx = c * normals[..., 0] + s * normals[..., 1]
    ny = -s * normals[..., 0] + c * normals[..., 1]
    nz = normals[..., 2]
    roll = np.arcsin(np.clip(nx, -1.0, 1.0))
    pitch = np.arctan2(-ny, nz)
    return pitch, roll
