"""Where feet may land: stepping stones (discs: the centre of each top face and its radius, the `footprint-stones`
format of docs/stones-format.md) and the footholds they offer, points of a top face at least MARGIN inside its
edge on rings around its centre, or the footholds of any surfaces (Blender's Plan Across Stones samples meshes);
how far a character steps, leaps and climbs between them (Reach); and, where no route joins a start to a goal,
the gap that stops it (gap_message). The biped planner (stones.py) and the quadruped's (four_legs) both stand on
this module."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import json_input
from ..character import Character
from ..errors import PlanningError, TrackFormatError
from ..footprints.timing import LEAP_THRESHOLD
from ..track import MAX_DISTANCE
from .graph import cheapest, route
from .neighbours import pairs_within

STONES_FORMAT = "footprint-stones"
STONES_VERSION = 1
MAX_STONES = 10_000
MARGIN = 0.01  # metres: a foothold's support point stays this far inside its stone's edge
FOOTHOLD_SPACING = 0.12  # metres between a stone's footholds (rings around its centre)
MAX_RINGS = 4  # a stone offers footholds on at most this many rings FOOTHOLD_SPACING apart...
RING_POINTS = 6  # ...the first with 6 points, the k-th with 6 k: 61 footholds on a stone up to 0.5 m across...
RING_GAP = 0.6  # l_nom: ...and a larger one (a bank, a raft) rings at most this far apart, within a comfortable step
# (a bank 8 m across had four rings 2 m apart: farther than a leap, its footholds did not join up)...
MOST_RINGS = 40  # ...up to this many (4,921 footholds: a bank 40 m across; past it the rings part wider)
MAX_FOOTHOLDS = 50_000  # footholds a plan weighs at most: 35,000 (5,000 stones 0.3 m across, 40 x 40 m) took 14 s
# and 560 MB, the steps within a leap growing with how densely they crowd
COMFORTABLE_STEP = 0.8  # l_nom: a walking step up to here (successive footprints) costs 1
MAX_LEAP = 2.0  # l_nom: the longest leap between successive footprints (a human's 1.7 m: a running long
# jump's take-off to landing is longer, a standing broad jump about 2 m, from one foot to the other less)
MAX_CLIMB = 0.5  # l_nom: the most a step may rise or drop (a 0.43 m step for a human: a high stair)


@dataclass(frozen=True)
class Stones:
    positions: np.ndarray  # (n, 3): the centre of each stone's top face
    radii: np.ndarray  # (n,)

    def __len__(self):
        return len(self.radii)

    def under(self, point, what: str):
        """(stone, point (3,) on its top face) of the stone whose usable face holds the point (x, y) (the highest
        where stones overlap), or PlanningError naming the nearest."""
        point = np.asarray(point, dtype=float)[:2]
        gap = np.linalg.norm(self.positions[:, :2] - point, axis=1) - (self.radii - MARGIN)
        on = np.flatnonzero(gap <= 1e-9)
        if not len(on):
            k = int(np.argmin(gap))
            raise _off_the_stones(what, point, f"stone {k}", self.positions[k], gap[k])
        k = int(on[np.argmax(self.positions[on, 2])])
        return k, np.array([point[0], point[1], self.positions[k, 2]])


def stones_from_json(data, source: str = "stones") -> Stones:
    """A `footprint-stones` document (docs/stones-format.md) as Stones; every field checked, the culprit named."""
    if not isinstance(data, dict) or data.get("format") != STONES_FORMAT:
        raise TrackFormatError(f'{source}: not a "{STONES_FORMAT}" document (its "format" must be "{STONES_FORMAT}")')
    if data.get("version") != STONES_VERSION:
        raise TrackFormatError(f'{source}: "version" must be {STONES_VERSION}, not {data.get("version")!r}')
    stones = data.get("stones")
    if not isinstance(stones, list) or not stones:
        raise TrackFormatError(f'{source}: "stones" must be a non-empty list')
    if len(stones) > MAX_STONES:
        raise TrackFormatError(f"{source}: {len(stones)} stones, more than {MAX_STONES}")
    positions, radii = np.empty((len(stones), 3)), np.empty(len(stones))
    for i, stone in enumerate(stones):
        where = f"{source}: stones[{i}]"
        if not isinstance(stone, dict):
            raise TrackFormatError(f"{where} must be an object with a position and a radius")
        position, radius = stone.get("position"), stone.get("radius")
        if (not isinstance(position, list) or len(position) != 3
                or not all(json_input.is_number(v) for v in position)):
            raise TrackFormatError(f'{where}.position must be [x, y, z] (metres), not {position!r}'[:160])
        if not json_input.is_number(radius):
            raise TrackFormatError(f"{where}.radius must be a number (metres), not {radius!r}"[:160])
        positions[i], radii[i] = position, radius
    bad = np.flatnonzero(~np.isfinite(positions).all(axis=1) | ~np.isfinite(radii))
    if len(bad):
        raise TrackFormatError(f"{source}: stones[{bad[0]}] holds a NaN or infinite number")
    far = np.flatnonzero(np.abs(positions).max(axis=1) > MAX_DISTANCE)
    if len(far):
        raise TrackFormatError(f"{source}: stones[{far[0]}] lies beyond {MAX_DISTANCE:g} m from the origin")
    small = np.flatnonzero((radii <= MARGIN) | (radii > MAX_DISTANCE))
    if len(small):
        raise TrackFormatError(f"{source}: stones[{small[0]}].radius {radii[small[0]]:g} m must be more than "
                               f"{MARGIN:g} m (a foot's support point must fit on it)")
    return Stones(positions, radii)


def _off_the_stones(what, point, nearest, where, distance):
    return PlanningError(f"{what} ({point[0]:.2f}, {point[1]:.2f}) is on no stone: the nearest, {nearest} at "
                         f"({where[0]:.2f}, {where[1]:.2f}), is {distance:.2f} m from it")


def load_stones(path) -> Stones:
    return stones_from_json(json_input.load(path, what="stones file"), str(path))


@dataclass(frozen=True)
class Reach:
    """How far a character steps (metres, between successive footprints) and climbs."""

    comfortable: float
    walk: float  # the longest walking step: beyond, vdP97's timing makes the step a leap
    leap: float
    climb: float

    @classmethod
    def of(cls, character: Character) -> "Reach":
        l_nom = character.leg_length_nominal
        return cls(COMFORTABLE_STEP * l_nom, LEAP_THRESHOLD * l_nom, MAX_LEAP * l_nom, MAX_CLIMB * l_nom)


@dataclass(frozen=True)
class Footholds:
    """Where feet may land: points on the allowed surfaces (stones, a path, a bridge), each surface's index and
    name; a point within `spacing` of a foothold stands on its surface."""

    points: np.ndarray  # (F, 3)
    surface: np.ndarray  # (F,)
    names: tuple
    spacing: float

    def under(self, point, what: str):
        """(surface, foothold point (3,)) of the foothold nearest the point (x, y), if it lies within spacing of
        one (the highest, where surfaces overlap); else PlanningError naming the nearest surface."""
        point = np.asarray(point, dtype=float)[:2]
        distance = np.linalg.norm(self.points[:, :2] - point, axis=1)
        near = np.flatnonzero(distance <= self.spacing + 1e-9)
        if not len(near):
            k = int(np.argmin(distance))
            raise _off_the_stones(what, point, self.names[self.surface[k]], self.points[k], distance[k])
        k = near[np.argmax(self.points[near, 2] - 1e-6 * distance[near])]
        return int(self.surface[k]), np.array([point[0], point[1], self.points[k, 2]])

    def nearest_on(self, surface: int, points):
        """(N, 3): each point's nearest foothold of the surface, or the point itself (at that foothold's height)
        where it lies within half a spacing of it."""
        mine = self.points[self.surface == surface]
        distance = np.linalg.norm(points[:, None, :2] - mine[None, :, :2], axis=2)
        k = distance.argmin(axis=1)
        close = distance[np.arange(len(points)), k] <= 0.5 * self.spacing
        return np.where(close[:, None], np.column_stack([points[:, :2], mine[k, 2]]), mine[k])


def stone_footholds(stones: Stones, ring_gap: float = math.inf) -> Footholds:
    """Each stone's centre and rings of points FOOTHOLD_SPACING apart (on a large stone, evenly out to its edge,
    at most ring_gap apart: RING_GAP l_nom), all at least MARGIN inside its edge."""
    usable = stones.radii - MARGIN
    wide = np.where(usable > ring_gap, np.ceil(usable / ring_gap), 0.0)  # a large stone's rings, out to its edge
    rings = np.minimum(np.maximum(np.minimum(np.floor(usable / FOOTHOLD_SPACING), MAX_RINGS), wide),
                       MOST_RINGS).astype(int)
    count = int((1 + 3 * rings * (rings + 1)).sum())  # the centre and 6 k points on the k-th ring
    if count > MAX_FOOTHOLDS:
        widest = int(np.argmax(rings))
        raise PlanningError(f"the stones offer {count:,} footholds, more than the {MAX_FOOTHOLDS:,} a plan weighs: fewer "
                            f"or smaller stones (the largest, stone {widest}, has a radius of {stones.radii[widest]:g} m)")
    points, owners = [stones.positions], [np.arange(len(stones))]
    for ring in range(1, int(rings.max(initial=0)) + 1):  # a handful of rings, every stone at once
        having = np.flatnonzero(rings >= ring)
        if not len(having):
            break
        angles = np.arange(RING_POINTS * ring) * (2.0 * math.pi / (RING_POINTS * ring))
        radius = usable[having, None] * ring / rings[having, None]  # the outermost ring at the usable edge
        ring_points = np.repeat(stones.positions[having, None], len(angles), axis=1)
        ring_points[..., 0] += radius * np.cos(angles)
        ring_points[..., 1] += radius * np.sin(angles)
        points.append(ring_points.reshape(-1, 3))
        owners.append(np.repeat(having, len(angles)))
    spacing = float(np.max(usable / np.maximum(rings, 1))) if len(stones) else FOOTHOLD_SPACING
    return Footholds(np.concatenate(points), np.concatenate(owners), tuple(f"stone {i}" for i in range(len(stones))),
                     min(spacing, FOOTHOLD_SPACING))


def gap_message(holds: Footholds, first: int, last: int, reach: Reach, ends, within: str | None = None):
    """The gap that stops the crossing: on the surface-to-surface route whose worst step is the least out of
    reach (the bottleneck route: graph.cheapest with the worst step for the sum), that worst step: its two
    surfaces, how far apart they are (each surface taken as the disc round its footholds: a stone's usable face
    exactly) or how far one rises above the other, against how far the character leaps (climbs); where it is
    within both, `within` (a format string of {gap}, metres) says why it is not taken. Only pairs
    needing at most `bound` times the reach are weighed, the bound doubled until the goal is on a route: memory
    grows with the pairs near enough, not with the square of the surfaces."""
    count = len(holds.names)
    centres = np.zeros((count, 3))
    np.add.at(centres, holds.surface, holds.points)
    centres /= np.maximum(np.bincount(holds.surface, minlength=count), 1)[:, None]
    radii = np.zeros(count)
    np.maximum.at(radii, holds.surface, np.linalg.norm(holds.points[:, :2] - centres[holds.surface, :2], axis=1))
    widest = 2.0 * radii.max()
    bound, worst = 1.0, np.full(count, np.inf)
    while not worst[last] <= bound:  # a handful of doublings: exact once the route's worst is within the bound
        bound *= 2.0  # (a pair left out needs more than the bound)
        near, far = pairs_within(centres, bound * reach.leap + widest)
        across = np.maximum(np.linalg.norm(centres[far, :2] - centres[near, :2], axis=1) - radii[near] - radii[far],
                            0.0)
        need = np.maximum(across / reach.leap, np.abs(centres[far, 2] - centres[near, 2]) / reach.climb)  # > 1: out
        worst, previous = cheapest(count, near, far, need, first, combine=np.maximum)
    path = route(previous, first, last)
    if len(path) < 2:  # the start and the goal on one surface whose footholds do not join up within reach
        return (f"no crossing from ({ends[0, 0]:.2f}, {ends[0, 1]:.2f}) to ({ends[1, 0]:.2f}, {ends[1, 1]:.2f}): both "
                f"are on {holds.names[first]}, but its footholds part by more than the {reach.leap:.2f} m this "
                "character leaps (separate pieces in one object?)")
    steps = np.array(path)
    gaps = np.maximum(np.linalg.norm(centres[steps[1:], :2] - centres[steps[:-1], :2], axis=1)
                      - radii[steps[1:]] - radii[steps[:-1]], 0.0)
    rises = centres[steps[1:], 2] - centres[steps[:-1], 2]
    k = int(np.argmax(np.maximum(gaps / reach.leap, np.abs(rises) / reach.climb)))
    near, far = path[k], path[k + 1]
    if gaps[k] > reach.leap:
        why = f"{gaps[k]:.2f} m away, farther than the {reach.leap:.2f} m this character leaps"
    elif abs(rises[k]) > reach.climb:
        why = (f"{abs(rises[k]):.2f} m {'above' if rises[k] > 0 else 'below'} it, more than the {reach.climb:.2f} m "
               "this character climbs")
    else:  # within reach of each other, yet no step joins them: the caller knows why (a quadruped's run-up)
        why = (within or "{gap:.2f} m away, within a leap, yet no step joins their footholds").format(gap=gaps[k])
    return (f"no crossing from ({ends[0, 0]:.2f}, {ends[0, 1]:.2f}) to ({ends[1, 0]:.2f}, {ends[1, 1]:.2f}): the "
            f"stones reachable end at {holds.names[near]} ({centres[near, 0]:.2f}, {centres[near, 1]:.2f}); the next "
            f"toward the goal, {holds.names[far]} ({centres[far, 0]:.2f}, {centres[far, 1]:.2f}), is {why}")
