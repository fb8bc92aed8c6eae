"""A standing biped's feet (`Stance`) and the ground they cover: soles as rectangles, the support polygon
(their convex hull), the point of it nearest another, and whether two soles overlap."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..character import BIPED_FEET, Character
from ..errors import CharacterError, NonFiniteError, RangeError, StanceError
from ..track import MAX_DISTANCE

SOLE_GAP = 0.01  # metres: the least room between two soles of a stance (feet closer overlap in the mesh)


def require_biped(character: Character) -> None:
    """Stepping moves two feet, L and R: any other character is refused by name."""
    if tuple(character.feet) != BIPED_FEET:
        raise CharacterError(f"stepping needs a biped with feet {list(BIPED_FEET)}; character {character.name!r} has "
                             f"feet {list(character.feet)}")


def forward(headings):
    """(..., 2): the unit vector the toes point along in plan (heading 0 = +Y, positive turns left)."""
    headings = np.asarray(headings, dtype=float)
    return np.stack([-np.sin(headings), np.cos(headings)], axis=-1)


def right(headings):
    """(..., 2): the unit vector to the right of a heading in plan."""
    headings = np.asarray(headings, dtype=float)
    return np.stack([np.cos(headings), np.sin(headings)], axis=-1)


def wrap(angles):
    """Angles wrapped into (-pi, pi]."""
    return -((np.pi - np.asarray(angles, dtype=float)) % (2.0 * np.pi) - np.pi)


def mean_heading(headings):
    """The circular mean of headings (radians) along the last axis."""
    headings = np.asarray(headings, dtype=float)
    return np.arctan2(np.sin(headings).sum(axis=-1), np.cos(headings).sum(axis=-1))


def standing_height(character: Character) -> float:
    """The COM's height over the feet standing: the hips l_nom above the support points, the COM above them."""
    return float(character.leg_length_nominal - character.hip_offsets[:, 2].mean())


def hip_height(character: Character) -> float:
    """The hips' height over the feet standing (l_nom: the legs straight down at their nominal length)."""
    return float(character.leg_length_nominal)


def stance_width(character: Character) -> float:
    """Feet apart in a relaxed stance: under the hips (the distance between the hip joints)."""
    return float(abs(character.hip_offsets[1, 0] - character.hip_offsets[0, 0]))


@dataclass(frozen=True)
class Stance:
    """A standing biped's feet: positions (2, 3) of the support points of L and R (world, metres, Z up) and
    headings (2,) (radians about +Z, 0 = toes along +Y)."""

    positions: np.ndarray
    headings: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "positions", np.array(self.positions, dtype=float).reshape(2, 3))
        object.__setattr__(self, "headings", np.array(self.headings, dtype=float).reshape(2))

    @classmethod
    def centred(cls, character: Character, x: float, y: float, heading: float, z: float = 0.0) -> "Stance":
        """Both feet facing `heading`, side by side at the character's stance width, centred on (x, y, z)."""
        half = 0.5 * stance_width(character) * right(heading)
        centre = np.array([x, y], dtype=float)
        positions = np.array([[*(centre - half), z], [*(centre + half), z]])
        return cls(positions, np.array([heading, heading], dtype=float))

    @classmethod
    def at_end(cls, track) -> "Stance":
        """Where a biped track's feet stand at its end: each foot's last footprint."""
        order = np.lexsort((track.contact, track.feet))
        last = [order[track.feet[order] == foot][-1] for foot in BIPED_FEET]
        return cls(track.positions[last], track.headings[last])

    @property
    def centre(self) -> np.ndarray:
        """(3,): the midpoint of the feet."""
        return self.positions.mean(axis=0)

    @property
    def heading(self) -> float:
        """The stance's facing: the circular mean of the feet's headings."""
        return float(mean_heading(self.headings))

    def check(self, character: Character, what: str = "stance") -> "Stance":
        """Raise a typed error naming `what` for a stance no one can stand in: numbers not finite or out of
        range, soles overlapping (less than SOLE_GAP apart) or the left foot right of the right one."""
        for name, values in (("positions", self.positions), ("headings", self.headings)):
            if not np.isfinite(values).all():
                raise NonFiniteError(f"{what}: the feet's {name} are not finite numbers")
        if (np.abs(self.positions) > MAX_DISTANCE).any():
            raise RangeError(f"{what}: a foot lies beyond {MAX_DISTANCE:.0e} m from the origin")
        gap = sole_gap(self.positions, self.headings, character)
        if gap < SOLE_GAP:
            raise StanceError(f"{what}: the feet overlap (the left sole {'is inside' if gap < 0 else 'comes within'} "
                              f"{abs(gap) * 100:.1f} cm of the right one; they need {SOLE_GAP * 100:g} cm between "
                              "them)")
        across = float(np.dot(self.positions[1, :2] - self.positions[0, :2], right(self.heading)))
        if across <= 0.0:
            raise StanceError(f"{what}: the legs are crossed (the left foot is {-across * 100:.1f} cm right of the "
                              "right foot)")
        return self


def leading_foot(start: Stance, target: Stance) -> int:
    """The foot (0 L, 1 R) to step first from one stance toward another, for the planner's steps (plan.py) and a
    transition's (transition.py): the one on the side the body goes, a turn counting as a move of the feet's
    half width toward its side, so that turning on the spot the foot on the inside of the turn opens it (the
    left for a left turn: a step turn). Leading with the outside foot closes the stance after the first step
    instead: turning 90 degrees by one step of each foot without a pivot (a transition's), the toes end 25 cm
    nearer each other than the heels; the planner's turns on the spot (45 to 180 degrees) take as many steps
    either way and close less (at worst 8 cm toes in against 14 cm). Ties: the left foot."""
    outward = start.positions[:, :2] - start.centre[:2]
    half_width = np.linalg.norm(outward, axis=1)
    outward /= np.maximum(half_width, 1e-9)[:, None]
    left = -right(start.heading)
    motion = (target.centre - start.centre)[:2] + float(wrap(target.heading - start.heading)) * half_width.mean() * left
    score = outward @ motion
    return int(np.argsort(-score, kind="stable")[0])


def sole_corners(positions, headings, character: Character, toe=None):
    """(..., 4, 2): the corners of each sole in plan (heel left, heel right, toe right, toe left): heel and toe
    along the heading from the support point, half the foot's width either side; toe: how far ahead the
    rectangle reaches instead of the toe tip (0: the rear half, under the ankle)."""
    positions = np.asarray(positions, dtype=float)[..., :2]
    fwd, side = forward(headings), right(headings)
    front = character.toe if toe is None else toe
    along = np.array([-character.heel, -character.heel, front, front])
    across = 0.5 * character.foot_width * np.array([-1.0, 1.0, 1.0, -1.0])
    return positions[..., None, :] + along[:, None] * fwd[..., None, :] + across[:, None] * side[..., None, :]


def sole_gap(positions, headings, character: Character):
    """The least distance in plan between the two soles of stances (..., 2, 3) with headings (..., 2): negative
    by how deep they overlap."""
    corners = sole_corners(positions, headings, character)
    gap = rectangle_gap(corners[..., 0, :, :], corners[..., 1, :, :])
    return float(gap) if np.ndim(gap) == 0 else gap


def rectangle_gap(a, b):
    """The least distance between rectangles a and b (..., 4, 2) in plan; where they overlap, minus the least
    overlap along the separating axes."""
    separation = _axis_separation(a, b)
    apart = np.minimum(_corners_to_edges(a, b), _corners_to_edges(b, a))
    return np.where(separation > 0.0, apart, separation)


def soles_apart(positions, headings, character: Character, gap: float):
    """(...,) whether the two soles of stances (..., 2, 3) with headings (..., 2) are at least `gap` apart in plan:
    the separating axes decide where they part by more (or overlap), the exact distance the rest."""
    corners = sole_corners(positions, headings, character)
    a, b = corners[..., 0, :, :], corners[..., 1, :, :]
    separation = _axis_separation(a, b)
    apart = separation >= gap
    unsure = np.flatnonzero(((separation > 0.0) & ~apart).reshape(-1))
    if unsure.size:
        flat_a, flat_b = a.reshape(-1, 4, 2)[unsure], b.reshape(-1, 4, 2)[unsure]
        apart.reshape(-1)[unsure] = np.minimum(_corners_to_edges(flat_a, flat_b),
                                               _corners_to_edges(flat_b, flat_a)) >= gap
    return apart


def _axis_separation(a, b):
    """(...,): the largest gap between the projections of rectangles a and b (..., 4, 2) on their four edge
    directions: positive where they part (a lower bound of their distance), else minus the least overlap."""
    axes = np.concatenate([np.diff(a[..., :3, :], axis=-2), np.diff(b[..., :3, :], axis=-2)], axis=-2)  # (..., 4, 2)
    axes = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    pa = np.einsum("...cd,...kd->...ck", a, axes)  # (..., corner, axis)
    pb = np.einsum("...cd,...kd->...ck", b, axes)
    return np.maximum(pb.min(axis=-2) - pa.max(axis=-2), pa.min(axis=-2) - pb.max(axis=-2)).max(axis=-1)


def point_to_rectangle(point, corners):
    """The distance in plan from points (..., 2) to rectangles (..., 4, 2) (0 inside)."""
    point = np.asarray(point, dtype=float)
    edges = np.roll(corners, -1, axis=-2) - corners
    to_point = point[..., None, :] - corners
    cross = edges[..., 0] * to_point[..., 1] - edges[..., 1] * to_point[..., 0]
    inside = (cross >= 0.0).all(axis=-1) | (cross <= 0.0).all(axis=-1)
    return np.where(inside, 0.0, _corners_to_edges(point[..., None, :], corners))


def _corners_to_edges(points, polygon):
    """(...,): the least distance from any of points (..., p, 2) to the edges of polygon (..., k, 2)."""
    start = polygon
    edge = np.roll(polygon, -1, axis=-2) - start
    rel = points[..., :, None, :] - start[..., None, :, :]  # (..., p, k, 2)
    t = np.clip((rel * edge[..., None, :, :]).sum(-1) / (edge * edge).sum(-1)[..., None, :], 0.0, 1.0)
    nearest = rel - t[..., None] * edge[..., None, :, :]
    return np.sqrt((nearest * nearest).sum(-1)).min(axis=(-2, -1))


def convex_hull(points):
    """(k, 2) the convex hull of points (n, 2), counter-clockwise (Andrew's monotone chain; n is a few soles'
    corners)."""
    pts = np.unique(np.round(np.asarray(points, dtype=float), 12), axis=0)
    if len(pts) < 3:
        return pts

    def half(sequence):
        chain = []
        for p in sequence:
            while len(chain) >= 2 and _cross(chain[-2], chain[-1], p) <= 0.0:
                chain.pop()
            chain.append(p)
        return chain[:-1]

    return np.array(half(pts) + half(pts[::-1]))


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def support_polygon(positions, headings, character: Character):
    """(k, 2): the convex hull of the soles of the feet given (positions (F, 3), headings (F,))."""
    return convex_hull(sole_corners(positions, headings, character).reshape(-1, 2))


def inside_polygon(polygon, point, tolerance=0.0) -> bool:
    """Whether a point (2,) lies in a counter-clockwise convex polygon (k, 2), within tolerance metres."""
    start, end = polygon, np.roll(polygon, -1, axis=0)
    edge = end - start
    cross = edge[:, 0] * (point[1] - start[:, 1]) - edge[:, 1] * (point[0] - start[:, 0])
    return bool((cross / np.linalg.norm(edge, axis=1) >= -tolerance).all())


def nearest_in_polygon(polygon, point):
    """(2,): the point of a convex polygon (k, 2; its inside included) nearest to point (2,)."""
    point = np.asarray(point, dtype=float)
    if inside_polygon(polygon, point):
        return point.copy()
    start, end = polygon, np.roll(polygon, -1, axis=0)
    edge = end - start
    t = np.clip(((point - start) * edge).sum(axis=1) / np.maximum((edge * edge).sum(axis=1), 1e-300), 0.0, 1.0)
    candidates = start + t[:, None] * edge
    return candidates[np.argmin(np.linalg.norm(candidates - point, axis=1))]


def reach_in_plan(character: Character, hip_height: float) -> float:
    """How far from under its hip a foot can stand with the leg within l_max, the hip hip_height above it."""
    return math.sqrt(max(character.leg_length_max ** 2 - hip_height ** 2, 0.0))
