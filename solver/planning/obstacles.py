"""Obstacles (issue 20, item 2): walls, posts and furniture as convex polygons in plan; a path bent around them
rather than through, so footprints stay off them and the body clear of them.

Each obstacle is inflated by a clearance (the Minkowski sum of its polygon and a disc, as a convex polygon whose
edges lie at least the clearance out). A path is sampled every SAMPLE_SPACING; each run of samples within an
inflated obstacle is replaced by the shortest way around between the free samples on either side: a visibility
graph of the inflated polygons' corners (straight lines between corners that cross no inflated polygon), its
shortest route found by graph.cheapest.
The route's corners sit on the inflated polygons, so the path keeps the clearance exactly; the COM, which cuts
inside a bend a little, is given CORNER_MARGIN more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import json_input
from ..character import Character
from ..errors import PlanningError, TrackFormatError
from ..footprints import footpath
from ..footprints.timing import timing_for_sequence
from ..track import MAX_DISTANCE, make_track, validate
from .graph import cheapest, route

BODY_RADIUS = 0.3  # l_nom: the body's radius in plan (0.26 m for the human: the shoulders are about 0.4 m
# across, biacromial breadth, with room for the arms' swing)
DETOUR_LEAD = 4.0  # clearances: a detour leaves the path this far before an obstacle and rejoins it as far after
CROSSING_BATCH = 1_000_000  # segment-edge pairs weighed at once by crossing (tens of MB of working arrays)
CORNER_MARGIN = 0.2  # l_nom added to the path's clearance: the COM cuts inside a bend (a step's chord round a
# corner), the feet stand beside it. Measured past a 2 m wall: at 0.1 the COM came 0.21 m from it (body radius
# 0.26 m), at 0.15 0.26 m, at 0.2 0.31 m
SAMPLE_SPACING = 0.05  # metres between the path's samples tested against the obstacles
INFLATE_DIRECTIONS = 16  # the disc of a clearance as a 16-gon circumscribing it (its edges at the clearance)
DISC_TURN = 0.1  # radians
_OUTSIDE = 1e-6  # relative: corners are put this much outside the polygons tested, so a route along an edge is free
OBSTACLES_FORMAT = "footprint-obstacles"
OBSTACLES_VERSION = 1
MAX_OBSTACLES = 1000
MAX_CORNERS = 1000  # per outline


def body_radius(character: Character) -> float:
    return BODY_RADIUS * character.leg_length_nominal


def path_clearance(character: Character) -> float:
    """How far the bent path keeps from every obstacle: the body's radius and room for the COM's bends."""
    return (BODY_RADIUS + CORNER_MARGIN) * character.leg_length_nominal


@dataclass(frozen=True)
class Obstacles:
    """Convex polygons in plan, counter-clockwise or not: a list of (K, 2) arrays, each an obstacle's outline
    on the ground (the add-on gives each object's convex hull), and their names for messages."""

    polygons: tuple
    names: tuple = ()

    def __post_init__(self):
        polygons = tuple(_convex_hull(np.asarray(p, dtype=float).reshape(-1, 2)) for p in self.polygons)
        object.__setattr__(self, "polygons", polygons)
        if not self.names:
            object.__setattr__(self, "names", tuple(f"obstacle {i}" for i in range(len(polygons))))

    def __len__(self):
        return len(self.polygons)

    def inflated(self, clearance: float) -> "Obstacles":
        """Each polygon grown by the clearance (a convex polygon containing the Minkowski sum with a disc)."""
        # Turned off the axes (DISC_TURN), so that no corner of a box-shaped obstacle's inflation lines up with
        # another's along an axis, where a straight line would pass through corners and cross no edge properly.
        angles = DISC_TURN + np.arange(INFLATE_DIRECTIONS) * (2.0 * math.pi / INFLATE_DIRECTIONS)
        disc = clearance / math.cos(math.pi / INFLATE_DIRECTIONS) * np.stack([np.cos(angles), np.sin(angles)], 1)
        return Obstacles(tuple((p[:, None] + disc[None]).reshape(-1, 2) for p in self.polygons), self.names)

    def edges(self):
        """(starts (E, 2), ends (E, 2), owner (E,)) of every polygon's edges."""
        starts = np.concatenate(self.polygons)
        ends = np.concatenate([np.roll(p, -1, axis=0) for p in self.polygons])
        owner = np.repeat(np.arange(len(self.polygons)), [len(p) for p in self.polygons])
        return starts, ends, owner

    def distance(self, points):
        """(distance (N,), nearest obstacle (N,)) from points (N, 2) to the obstacles: negative inside one."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        starts, ends, owner = self.edges()
        edge = ends - starts
        t = np.clip(np.einsum("nei,ei->ne", points[:, None] - starts[None], edge)
                    / np.maximum(np.einsum("ei,ei->e", edge, edge), 1e-300), 0.0, 1.0)
        gap = np.linalg.norm(points[:, None] - (starts[None] + t[..., None] * edge[None]), axis=2)  # (N, E)
        nearest_edge = gap.argmin(axis=1)
        inside = self.inside(points)
        distance = gap[np.arange(len(points)), nearest_edge]
        return np.where(inside.any(axis=1), -distance, distance), owner[nearest_edge]

    def inside(self, points):
        """(N, P) bool: each point strictly inside each (convex) polygon."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        out = np.zeros((len(points), len(self.polygons)), dtype=bool)
        for k, polygon in enumerate(self.polygons):  # a handful of obstacles; every point at once
            edge = np.roll(polygon, -1, axis=0) - polygon
            cross = edge[None, :, 0] * (points[:, None, 1] - polygon[None, :, 1]) - edge[None, :, 1] * (
                points[:, None, 0] - polygon[None, :, 0])
            out[:, k] = (cross > 0).all(axis=1)  # hulls are counter-clockwise
        return out


def obstacles_from_json(data, source: str = "obstacles") -> Obstacles:
    """A `footprint-obstacles` document (docs/stones-format.md): each obstacle's outline on the ground (its
    corners [x, y] in plan; their convex hull is taken) and optional name; every field checked, the culprit named."""
    if not isinstance(data, dict) or data.get("format") != OBSTACLES_FORMAT:
        raise TrackFormatError(f'{source}: not a "{OBSTACLES_FORMAT}" document (its "format" must be '
                               f'"{OBSTACLES_FORMAT}")')
    if data.get("version") != OBSTACLES_VERSION:
        raise TrackFormatError(f'{source}: "version" must be {OBSTACLES_VERSION}, not {data.get("version")!r}')
    entries = data.get("obstacles")
    if not isinstance(entries, list) or len(entries) > MAX_OBSTACLES:
        raise TrackFormatError(f'{source}: "obstacles" must be a list of at most {MAX_OBSTACLES}')
    polygons, names = [], []
    for i, entry in enumerate(entries):
        where = f"{source}: obstacles[{i}]"
        outline = entry.get("outline") if isinstance(entry, dict) else None
        if (not isinstance(outline, list) or not 3 <= len(outline) <= MAX_CORNERS
                or not all(isinstance(p, list) and len(p) == 2 and all(json_input.is_number(v) for v in p)
                           for p in outline)):
            raise TrackFormatError(f"{where}.outline must be 3 to {MAX_CORNERS} corners [x, y] (metres), not "
                                   f"{outline!r}"[:200])
        corners = np.array(outline, dtype=float)
        if not np.isfinite(corners).all() or np.abs(corners).max() > MAX_DISTANCE:
            raise TrackFormatError(f"{where}.outline holds a number that is NaN, infinite or beyond "
                                   f"{MAX_DISTANCE:g} m")
        name = entry.get("name", f"obstacle {i}")
        if not isinstance(name, str) or not name or len(name) > 200:
            raise TrackFormatError(f"{where}.name must be a non-empty string, not {name!r}"[:200])
        try:
            polygons.append(_convex_hull(corners))
        except PlanningError as exc:
            raise TrackFormatError(f"{where}.outline: {exc}") from None
        names.append(name)
    return Obstacles(tuple(polygons), tuple(names))


def load_obstacles(path) -> Obstacles:
    return obstacles_from_json(json_input.load(path, what="obstacles file"), str(path))


def _convex_hull(points):
    """Counter-clockwise convex hull (Andrew's monotone chain) of points (N, 2); a polygon's outline stays as is
    when already convex."""
    points = np.unique(points, axis=0)
    if len(points) < 3:
        raise PlanningError(f"an obstacle needs at least three distinct corners in plan, not {len(points)}")

    def half(ordered):
        chain = []
        for p in ordered:  # the polygon's corners: a handful
            while len(chain) >= 2 and np.cross(chain[-1] - chain[-2], p - chain[-2]) <= 0:
                chain.pop()
            chain.append(p)
        return chain[:-1]

    hull = np.array(half(points) + half(points[::-1]))
    if len(hull) < 3:
        raise PlanningError("an obstacle's outline in plan has no area (its corners lie on one line)")
    return hull


def crossing(a, b, obstacles: Obstacles):
    """(S,) bool: the segments a -> b (S, 2) pass through a polygon's inside: they cross an edge properly, or
    their midpoint is inside (a line between two corners of one polygon crosses no edge properly). A segment
    that touches a corner or runs along an edge is free. Weighed a batch of segments at a time (every segment
    against every edge: memory bounded by CROSSING_BATCH, not segments x edges)."""
    starts, ends, _owner = obstacles.edges()
    a, b = np.asarray(a, dtype=float).reshape(-1, 2), np.asarray(b, dtype=float).reshape(-1, 2)
    result = np.zeros(len(a), dtype=bool)
    if not len(starts):
        return result

    def side(p, q, r):  # the sign of the turn p -> q -> r
        return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])

    def apart(u, v):  # strictly on opposite sides
        return ((u > 1e-12) & (v < -1e-12)) | ((u < -1e-12) & (v > 1e-12))

    batch = max(1, CROSSING_BATCH // len(starts))
    for lo in range(0, len(a), batch):  # a handful of batches
        p, q = a[lo:lo + batch, None], b[lo:lo + batch, None]
        edge_apart = apart(side(p, q, starts[None]), side(p, q, ends[None]))
        segment_apart = apart(side(starts[None], ends[None], p), side(starts[None], ends[None], q))
        result[lo:lo + batch] = ((edge_apart & segment_apart).any(axis=1)
                                 | obstacles.inside(0.5 * (p[:, 0] + q[:, 0])).any(axis=1))
    return result


def route_around(start, end, obstacles: Obstacles, clearance: float):
    """The shortest way (K, 2) from start to end (2,) keeping `clearance` from every obstacle: straight where it
    can, else from corner to corner of the inflated obstacles. PlanningError where the start or the end lies
    within the clearance, or the obstacles close the way."""
    blocking = obstacles.inflated(clearance)
    corners = obstacles.inflated(clearance * (1.0 + _OUTSIDE) + _OUTSIDE)
    nodes = np.concatenate([np.asarray([start, end], dtype=float)] + list(corners.polygons))
    free = ~blocking.inside(nodes).any(axis=1)
    for what, k in (("start", 0), ("end", 1)):
        if not free[k]:
            distance, owner = obstacles.distance(nodes[k:k + 1])
            raise PlanningError(f"the path's {what} ({nodes[k, 0]:.2f}, {nodes[k, 1]:.2f}) is {max(distance[0], 0):.2f} m "
                                f"from {obstacles.names[owner[0]]}, within the {clearance:.2f} m the body keeps")
    nodes = nodes[free]
    i, j = np.triu_indices(len(nodes), 1)
    open_ = ~crossing(nodes[i], nodes[j], blocking)
    i, j = i[open_], j[open_]
    start_, end_ = np.concatenate([i, j]), np.concatenate([j, i])
    length = np.linalg.norm(nodes[end_] - nodes[start_], axis=1)
    best, previous = cheapest(len(nodes), start_, end_, length, 0)
    if not np.isfinite(best[1]):
        raise PlanningError(f"no way from ({nodes[0, 0]:.2f}, {nodes[0, 1]:.2f}) to ({nodes[1, 0]:.2f}, "
                            f"{nodes[1, 1]:.2f}) keeps {clearance:.2f} m from the obstacles: they close it")
    return nodes[route(previous, 0, 1)]


def bend_path(points, obstacles: Obstacles, clearance: float):
    """The polyline (N, 3) with every stretch that comes within `clearance` of an obstacle replaced by the
    shortest way around (route_around), from DETOUR_LEAD clearances before it to as far after it (the turns
    gentler than from the obstacle's edge: the COM cuts inside a sharp one), stretches whose detours would meet
    taken as one; heights along a detour run straight between its ends. Unchanged where it keeps clear."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if not len(obstacles):
        return points
    chords = np.linalg.norm(np.diff(points[:, :2], axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(chords)])
    s = np.unique(np.concatenate([arc, np.linspace(0.0, arc[-1], int(arc[-1] / SAMPLE_SPACING) + 2)]))
    dense = np.stack([np.interp(s, arc, points[:, k]) for k in range(3)], axis=1)
    blocked = obstacles.distance(dense[:, :2])[0] < clearance
    blocked[1:] |= crossing(dense[:-1, :2], dense[1:, :2], obstacles.inflated(clearance))
    if not blocked.any():
        return points
    for end, k in (("start", 0), ("end", -1)):
        if blocked[k]:
            distance, owner = obstacles.distance(dense[[k], :2])
            raise PlanningError(f"the path's {end} is {max(distance[0], 0.0):.2f} m from {obstacles.names[owner[0]]}, "
                                f"within the {clearance:.2f} m the body keeps")
    lead = np.searchsorted(s, DETOUR_LEAD * clearance)  # samples
    where = np.flatnonzero(blocked)
    # Each detour from `lead` samples before its first blocked sample to `lead` after its last, clamped to the
    # path; blocked stretches closer than that share one.
    firsts = np.maximum(where[np.concatenate([[True], np.diff(where) > 2 * lead])] - lead, 0)
    lasts = np.minimum(where[np.concatenate([np.diff(where) > 2 * lead, [True]])] + lead, len(dense) - 1)
    pieces, done = [], 0
    for before, after in zip(firsts, lasts):  # a handful of obstacles on the path
        way = route_around(dense[before, :2], dense[after, :2], obstacles, clearance)
        along = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(way, axis=0), axis=1))])
        heights = np.interp(along, [0.0, along[-1]], [dense[before, 2], dense[after, 2]])
        pieces += [dense[done:before], np.column_stack([way, heights])]
        done = after + 1
    pieces.append(dense[done:])
    return np.concatenate(pieces)


def foot_outline(positions, headings, character: Character):
    """(N, P, 2): points over each footprint's sole, heel to toe (footpath.sole_points) at its middle and both
    edges."""
    line = footpath.sole_points(positions, headings, character.foot_length, margin=0.0)  # (N, P, 2)
    headings = np.asarray(headings, dtype=float)
    right = np.stack([np.cos(headings), np.sin(headings)], axis=-1)[:, None, None]  # +X of a foot facing heading
    across = np.array([-0.5, 0.0, 0.5])[None, None, :, None] * character.foot_width
    return (line[:, :, None] + across * right).reshape(len(positions), -1, 2)


def footprints_around(points, obstacles: Obstacles, character: Character, step_length: float, step_width: float,
                      start_foot: str = "L", start_time: float = 0.0):
    """A biped's footprint track along the polyline (N, 3) bent around the obstacles (bend_path with
    path_clearance), stepped at step_length (vdP97 §4.1 timing); PlanningError names an obstacle a footprint
    would still stand on."""
    bent = bend_path(points, obstacles, path_clearance(character))
    positions, headings, feet = footpath.footprints_along_path(bent, step_length, step_width, start_foot, corners=True)
    contact, liftoff = timing_for_sequence(positions, "walk", character.time_unit, character.leg_length_nominal,
                                           start_time)
    track = make_track(feet, positions, headings, contact, liftoff, character=character.name)
    validate(track, allowed_feet=character.feet)
    on = feet_on_obstacles(track, obstacles, character)
    if on is not None:
        raise PlanningError(on)
    return track


def feet_on_obstacles(track, obstacles: Obstacles, character: Character):
    """A message naming the first footprint whose sole (foot_outline: a paw's or a hoof's too) is inside an
    obstacle, or None."""
    if obstacles is None or not len(obstacles):
        return None
    soles = foot_outline(track.positions, track.headings, character)
    inside = obstacles.inside(soles.reshape(-1, 2)).reshape(len(track), -1, len(obstacles)).any(axis=1)
    on = np.flatnonzero(inside.any(axis=1))
    if not len(on):
        return None
    k = int(on[0])
    return f"footprint {k} ({track.feet[k]}) stands on {obstacles.names[int(np.argmax(inside[k]))]}"
