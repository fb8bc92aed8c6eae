"""Footprints placed along a path (vdP97 §2.1, Fig. 4): step length, step width and a start foot."""

from __future__ import annotations

import numpy as np

from ..errors import PathError

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


class Path:
    """A polyline (N, 3) by arc length, and the frames footprints along it stand in.

    corner_turn=None: a smooth curve sampled finely (a Bezier): headings interpolate the vertex tangents.
    corner_turn=d: a polyline with corners (a Poly curve): the heading at s is the direction of the chord
    from s - d/2 to s + d/2, so it is the segment's own direction on a straight, and at a corner turns
    within d of the vertex (d = a step: over the one or two footprints nearest to it, as a person turns;
    the vertex tangents, interpolated along whole segments, crab-walked up to 45 degrees off them).
    """

    def __init__(self, points, corner_turn: float | None = None):
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        if len(points) < 2 or not np.isfinite(points).all():
            raise PathError("the path needs at least two finite points")
        keep = np.concatenate(([True], np.linalg.norm(np.diff(points, axis=0), axis=1) > 1e-9))
        self.points = points[keep]
        if len(self.points) < 2:
            raise PathError("the path has zero length")
        self.arc = np.concatenate(([0.0], np.cumsum(np.linalg.norm(np.diff(self.points, axis=0), axis=1))))
        self.length = float(self.arc[-1])
        self.corner_turn = corner_turn

    def at(self, s) -> np.ndarray:
        """Points (n, 3) at arc lengths s (clamped to the path)."""
        s = np.clip(s, 0.0, self.length)
        return np.stack([np.interp(s, self.arc, self.points[:, k]) for k in range(3)], axis=-1)

    def frames(self, s, lateral=0.0):
        """Positions (offset lateral metres to the left of the direction of travel) and headings at arc
        lengths s."""
        s = np.asarray(s, dtype=float)
        if self.corner_turn is None:
            vt = _vertex_tangents(self.points)
            tangent = np.stack([np.interp(s, self.arc, vt[:, k]) for k in range(2)], axis=-1)
        else:
            tangent = (self.at(s + self.corner_turn / 2) - self.at(s - self.corner_turn / 2))[:, :2]
        planar = tangent / np.linalg.norm(tangent, axis=1, keepdims=True)
        left = np.stack([-planar[:, 1], planar[:, 0], np.zeros(len(s))], axis=1)
        return self.at(s) + left * np.asarray(lateral, dtype=float)[..., None], heading_of(planar)


def stations_along(length: float, step_length: float, step_width: float, start_foot: str = "L",
                   steps: int | None = None, feet=("L", "R"), together: bool = False):
    """Arc lengths, leftward offsets and feet of footprints along a path of the given length, in stepping
    order (see footprints_along_path)."""
    if not (np.isfinite(step_length) and step_length > 0):
        raise PathError(f"step length must be positive, not {step_length}")
    if not (np.isfinite(step_width) and step_width >= 0):
        raise PathError(f"step width must be zero or positive, not {step_width}")
    stations = int(np.floor(length / step_length + 1e-9)) + 1 if steps is None else int(steps)
    if stations < 1:
        raise PathError(f"number of steps must be at least 1, not {steps}")
    if stations > MAX_GENERATED_STEPS:
        raise PathError(f"{stations} steps is more than the limit of {MAX_GENERATED_STEPS}")
    s = np.minimum(np.arange(stations) * step_length, length)
    other = feet[1] if start_foot == feet[0] else feet[0]
    if together:
        side = np.tile([1.0, -1.0], stations) if start_foot == feet[0] else np.tile([-1.0, 1.0], stations)
        names = np.tile([start_foot, other], stations)
        s = np.repeat(s, 2)
    else:
        first = 1.0 if start_foot == feet[0] else -1.0  # feet[0] is the left foot
        side = first * np.where(np.arange(stations) % 2 == 0, 1.0, -1.0)
        names = np.where(np.arange(stations) % 2 == 0, start_foot, other)
    return s, side * step_width / 2, names.astype("<U2")


def footprints_along_path(points, step_length: float, step_width: float, start_foot: str = "L",
                          steps: int | None = None, feet=("L", "R"), together: bool = False,
                          corners: bool = False):
    """Positions, headings and feet of footprints along a polyline (N, 3), in stepping order.

    Footprint k sits at arc length k * step_length, offset sideways by step_width / 2 (the left foot to
    the left of the direction of travel). steps=None fills the path. together=True places both feet side
    by side at each station (a two-footed hop). corners=True: the polyline's vertices are corners (a Poly
    curve), which the footprints turn at within a step (see Path).
    """
    path = Path(points, step_length if corners else None)
    s, lateral, names = stations_along(path.length, step_length, step_width, start_foot, steps, feet, together)
    positions, headings = path.frames(s, lateral)
    return positions, headings, names


# --- stairs: a whole foot on one tread ---------------------------------------------------------------

STEP_HEIGHT = 0.03  # metres: a jump in the ground under a foot beyond its slope bigger than this is a riser
TREAD_MARGIN = 0.01  # metres kept between a foot's heel or toe and the edge of its tread
SOLE_SPACING = 0.02  # metres at most between the ground heights read along a foot
FORWARD_COST = 2.0  # a move forward counts this many times its length against a move back


def sole_points(positions, headings, foot_length: float, margin: float = TREAD_MARGIN) -> np.ndarray:
    """(..., P, 2): points along each footprint's toe line (its origin is mid-foot), from margin behind
    the heel to margin past the toe, evenly at most SOLE_SPACING apart (heel, mid-foot and toe among them)."""
    count = 2 * int(np.ceil((foot_length / 2 + margin) / SOLE_SPACING)) + 1
    along = np.linspace(-foot_length / 2 - margin, foot_length / 2 + margin, count)
    headings = np.asarray(headings, dtype=float)
    toes = np.stack([-np.sin(headings), np.cos(headings)], axis=-1)
    return np.asarray(positions, dtype=float)[..., None, :2] + along[:, None] * toes[..., None, :]


def on_one_tread(heights) -> np.ndarray:
    """Whether the ground under each foot (heights (..., P) at its sole_points; NaN: none there) is one
    surface: no second difference beyond STEP_HEIGHT. A slope has none; a riser between two points makes
    one of its full height (a ramp of the footprints' own slope would not be seen with heel and toe alone)."""
    heights = np.asarray(heights, dtype=float)
    bends = np.abs(np.diff(heights, n=2, axis=-1))
    return np.isfinite(heights).all(axis=-1) & (np.nan_to_num(bends, nan=np.inf) <= STEP_HEIGHT).all(axis=-1)


def tread_moves(reach: float, resolution: float = 0.005) -> np.ndarray:
    """Candidate moves along the path, within reach either way (a footprint stays between its neighbours)."""
    count = int(np.floor(reach / resolution))
    return resolution * np.arange(-count, count + 1)


def nearest_fit(fits, moves) -> np.ndarray:
    """Per footprint (rows of fits (n, K): whether its foot is on one tread after each move (K,)), the
    move that fits at least cost, NaN where none does. A move back is preferred (FORWARD_COST): it
    shortens the step onto the footprint rather than lengthening it towards the leg's reach, and going
    up, it keeps the toe clear of the next riser, as tests/data/make_tracks.py's stairs do."""
    moves = np.asarray(moves, dtype=float)
    cost = np.where(fits, np.where(moves < 0, -moves, FORWARD_COST * moves), np.inf)
    best = cost.argmin(axis=1)
    return np.where(np.isfinite(cost[np.arange(len(cost)), best]), moves[best], np.nan)


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
