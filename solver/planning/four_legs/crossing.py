"""A quadruped across stepping stones (issue 20, item 1; Torkos §3.4: footprints along a path).

Stones (plan_crossing). The route is a sequence of nodes (each stone's centre, or a sparse subset of a surface's
footholds, and the start and the goal) joined where the straight line between them is walkable: every stretch of
it not over a usable face (footholds.MARGIN inside a stone's edge, within a foothold spacing of a foothold) is a gap
no longer than the gait's flight carries (found by laying the gait over a jump of that length: jumps.py's
bounds, `capability`), and every stretch over a face between two gaps long enough for the gait to land and take
off again (a dog's feet of one diagonal pair stand its hind-to-fore hip distance apart: at least that and a
margin at each end, measured the same way). The cheapest route (graph.cheapest: length, and a penalty per leap)
is rounded (TURN_RADIUS hip heights at its corners), every stretch of it not over a usable face is marked as a
jump (a flight of the gait, Torkos §3.4 and jumps.py), and the gait is laid along it with a standing start and
stop, its strides and speed chosen so the body comes to rest nearest the goal. Then every
footprint's support point (a paw's or a hoof's: the footprint's point) is checked to lie on a usable face and
every foot's step within reach; where a check fails the next gait and speed of CANDIDATES is tried (each with its
own reach: its own route); PlanningError names the footprint and the stone it misses where none passes, and the
gap (footholds.gap_message with the gait's reach) where no route exists.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...character import GRAVITY, Character
from ...errors import FootprintError, PlanningError
from ...quadruped import gait_track, gaits
from ...quadruped.ground import Polyline
from ...track import Track, validate
from .. import obstacles as obstacles_module
from ..footholds import MARGIN, Footholds, Reach, Stones, gap_message, stone_footholds
from ..graph import cheapest, route
from .around import masses_near
from .body import body_radius, path_clearance, round_or_refuse
from .faces import SAMPLE, Faces
from .reach import capability

CANDIDATES = (("walk", 0.25), ("trot", 0.4), ("trot", 0.7), ("trot", 1.1), ("bound", 1.6))  # (gait, Froude
# number) in the order tried across stones: the gentlest first; each flies farther than the one before (a walk's
# jump is a trot's stride, jumps.py). A dog: a walk at 1.3 m/s, trots at 1.7, 2.2 and 2.8, a bound at 3.3
SPEED_STEPS = (0.0, 0.1, 0.2)  # the gait's speed raised by these fractions (never lowered: the route's leaps are
# the longest it flies at its own), and a stride more or less, for where the body comes to rest
STRIDE_TRIES = 3  # stride counts corrected for what the leaps carry before those are tried
GOAL_TOLERANCE = 0.5  # strides: how near the goal the body comes to rest at most (strides are whole; each leap
# brings the footfalls into step with its gap, so a speed changes only the strides after the last one)
LEAP_COST = 2.0  # hip heights of path a leap costs in the route: walking round is preferred to a leap up to this
NODE_SPACING = 0.5  # of the gait's room: the route's nodes on a surface are about this far apart (a stone's on
MAX_RINGS, RING_POINTS = 6, 6  # rings round its centre, the k-th with 6 k nodes)
MAX_NODES = 600  # and at most this many (the route weighs every pair within a leap)
MAX_CLIMB = 0.5  # hip heights a leap may rise or drop between faces (a dog's hip height is its highest jump:
# jumps.MAX_RISE; half of it leaves the flight its length)
GAP_MARGIN = 0.9  # of the longest gap measured, what a route may ask for: measured after a straight run-up of
# whole strides; between other leaps the approach has less room to adjust its strides
END_ROOM = 1.5  # strides of face the start and the goal need before the first leap and after the last (a
# standing start's ramp up, a stop's ramp down: gait_track.RAMP_PERIODS)
REACH_MARGIN = 1.25  # a foot's step (successive footprints) may be this times its longest over the longest gap
# (at the speed tried, in proportion)


@dataclass(frozen=True)
class Crossing:
    """A quadruped's plan across stones: the track, the body's path (points (N, 2)), the jumps marked on it
    ((start, length) metres along it), what they became (jumps.Flight), the gait and speed."""

    track: Track
    path: np.ndarray
    jumps: tuple
    flights: tuple
    gait: str
    speed: float
    rest_error: float  # metres along the path from the goal to where the body comes to rest
    reach: float  # metres: the longest step a foot may take (from one footprint to its next), as checked


def plan_crossing(ground, start, goal, character: Character, start_time: float = 0.0, obstacles=None) -> Track:
    """A quadruped's footprint track across stones (stones.plan_crossing's signature): the module's docstring."""
    return crossing_plan(ground, start, goal, character, start_time, obstacles).track


def crossing_plan(ground, start, goal, character: Character, start_time: float = 0.0, obstacles=None) -> Crossing:
    """plan_crossing's Crossing (the track and how it was made)."""
    start, goal = np.asarray(start, dtype=float)[:2], np.asarray(goal, dtype=float)[:2]
    ends = [(surface, float(point[2])) for surface, point in (ground.under(start, "the start"),
                                                               ground.under(goal, "the goal"))]
    faces = Faces(ground, np.stack([start, goal]))
    if obstacles is not None and len(obstacles):
        body = body_radius(character)
        widths = np.linspace(path_clearance(character), path_clearance(character) + body, 3)
    else:
        obstacles, widths = None, [None]
    failures, closest = [], None
    no_route = True
    for clearance in widths:  # without obstacles: once
        for gait, froude in CANDIDATES:
            speed = math.sqrt(froude * GRAVITY * character.leg_length_nominal)
            can = capability(character, gait, speed)
            if not np.isfinite(can.room) or can.longest_gap <= 0:
                continue
            nodes = _route(faces, start, goal, ends, can, character, obstacles, clearance)
            if nodes is None:
                continue
            no_route = False
            try:
                path = round_or_refuse(nodes, character, "the route")
            except PlanningError as exc:
                failures.append((math.inf, str(exc)))
                continue
            outcome = _lay_across(faces, path, character, can, start_time)
            if isinstance(outcome, tuple):
                failures.append(outcome)
                continue
            if obstacles is None:
                return Crossing(**outcome)
            feet = obstacles_module.feet_on_obstacles(outcome["track"], obstacles, character)
            if feet is not None:
                failures.append((math.inf, feet))
                continue
            near = masses_near(outcome["track"], character, obstacles)
            if near[0] >= body_radius(character):
                return Crossing(**outcome)
            closest = near if closest is None or near[0] > closest[0] else closest
            break  # a wider way next
    if no_route and obstacles is not None:  # the stones reach: the obstacles close the way
        for gait, froude in CANDIDATES:
            can = capability(character, gait, math.sqrt(froude * GRAVITY * character.leg_length_nominal))
            nodes = _route(faces, start, goal, ends, can, character, None, None) if np.isfinite(can.room) else None
            if nodes is not None:
                near = obstacles.distance(round_or_refuse(nodes, character, "the route"))
                names = sorted({obstacles.names[k] for k in near[1][near[0] < widths[0]]}) or list(obstacles.names)
                raise PlanningError(f"no crossing from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, "
                                    f"{goal[1]:.2f}) keeps a {character.name}'s body clear of the obstacles: "
                                    f"{', '.join(names)} stand{'s' if len(names) == 1 else ''} in the way (its path "
                                    f"keeps {widths[0]:.2f} m from them)")
    if no_route:
        raise PlanningError(_no_route_message(ground, start, goal, ends, character))
    if closest is not None and not failures:
        raise PlanningError(f"no crossing keeps a {character.name}'s body clear of the obstacles: the widest way "
                            f"brings its {closest[2]} mass {closest[0]:.2f} m from {closest[1]} (it keeps "
                            f"{body_radius(character):.2f} m)")
    failures.sort(key=lambda f: f[0])
    raise PlanningError(failures[0][1])


def _no_route_message(ground, start, goal, ends, character):
    """The gap that stops every gait (footholds.gap_message with the farthest-flying gait's reach), on the stones
    big enough to land on and take off from between leaps."""
    best = max((capability(character, g, math.sqrt(f * GRAVITY * character.leg_length_nominal))
                for g, f in CANDIDATES), key=lambda c: c.longest_gap)
    h = character.leg_length_nominal
    reach = Reach(best.longest_gap, best.longest_gap, best.longest_gap, MAX_CLIMB * h)
    coords = np.array([[*start, ends[0][1]], [*goal, ends[1][1]]])
    within = (f"{{gap:.2f}} m away, within a leap, but a {character.name} needs {best.room:.2f} m of face to land and "
              f"leap again, and {END_ROOM * best.stride:.2f} m to set off before its first leap and to stop after "
              "its last")
    if isinstance(ground, Stones):
        usable = 2.0 * (ground.radii - MARGIN)
        big = np.flatnonzero((usable >= best.room) | np.isin(np.arange(len(ground)), [ends[0][0], ends[1][0]]))
        holds = stone_footholds(Stones(ground.positions[big], ground.radii[big]))
        holds = Footholds(holds.points, holds.surface, tuple(f"stone {i}" for i in big), holds.spacing)
        first, last = (int(np.flatnonzero(big == e[0])[0]) for e in ends)
        message = gap_message(holds, first, last, reach, coords, within)
        small = len(ground) - len(big)
        if small:
            message += (f" ({small} stone{'s are' if small != 1 else ' is'} too small for a {character.name} to land "
                        f"on and leap again: that needs {best.room:.2f} m across)")
    else:
        message = gap_message(ground, ends[0][0], ends[1][0], reach, coords, within)
    return (message.replace("this character leaps", f"a {character.name} leaps at a {best.gait} of {best.speed:.1f} m/s")
            .replace("this character climbs", f"a {character.name} climbs"))


def ring_step(usable, can):
    """(S,) metres between the rings of route nodes round each stone's centre (usable: its usable radius): NODE_SPACING
    rooms, or wider on a stone too large for MAX_RINGS rings that close, spread out to half a room inside its edge."""
    return np.maximum(NODE_SPACING * can.room, (usable - 0.5 * can.room) / MAX_RINGS)


def _nodes(faces, start, goal, can):
    """The route's nodes (N, 2), their surfaces: every stone's centre whose usable face can hold a landing and a
    take-off (room), or a sparse subset of a surface's footholds; the start and the goal last."""
    if faces.stones is not None:  # each stone's centre; on a large one (a bank) rings round it, to go round an
        # obstacle on it or enter and leave it off its centre
        usable = faces.stones.radii - MARGIN
        big = np.flatnonzero(2.0 * usable >= can.room)
        points, owners = [faces.stones.positions[big, :2]], [big]
        step = ring_step(usable, can)
        for ring in range(1, MAX_RINGS + 1):  # a handful of rings, every stone at once
            having = big[usable[big] - 0.5 * can.room >= ring * step[big] - 1e-9]
            if not len(having):
                break
            angles = np.arange(RING_POINTS * ring) * (2.0 * math.pi / (RING_POINTS * ring))
            ring_points = faces.stones.positions[having, None, :2] + ring * step[having, None, None] * np.stack(
                [np.cos(angles), np.sin(angles)], axis=-1)[None]
            points.append(ring_points.reshape(-1, 2))
            owners.append(np.repeat(having, len(angles)))
        points, owners = np.concatenate(points), np.concatenate(owners)
    else:
        holds = faces.holds
        spacing = max(NODE_SPACING * can.room, holds.spacing)
        while True:  # coarser until few enough
            cells = np.floor(holds.points[:, :2] / spacing).astype(np.int64)
            key = np.column_stack([holds.surface, cells])
            _unique, pick = np.unique(key, axis=0, return_index=True)
            if len(pick) <= MAX_NODES:
                break
            spacing *= 1.4
        points, owners = holds.points[pick, :2], holds.surface[pick]
    return np.concatenate([points, [start, goal]]), np.concatenate([owners, [-1, -1]])


def _runs(values, lengths):
    """Runs of equal values along each row (E, K) up to its length: (row, value, first index, count) arrays."""
    rows, width = values.shape
    padded = np.full((rows, width + 1), 2, dtype=np.int8)
    valid = np.arange(width)[None] < lengths[:, None]
    padded[:, :width] = np.where(valid, values.astype(np.int8), 2)
    flat = padded.ravel()
    change = np.flatnonzero(np.diff(flat) != 0) + 1
    first = np.concatenate([[0], change])
    count = np.diff(np.concatenate([first, [len(flat)]]))
    value = flat[first]
    keep = value != 2
    return first[keep] // (width + 1), value[keep].astype(bool), first[keep], count[keep]


def _route(faces, start, goal, ends, can, character, obstacles, clearance):
    """The cheapest route of nodes (M, 2) from the start to the goal that the gait can walk and leap (module
    docstring), or None."""
    h = character.leg_length_nominal
    nodes, owners = _nodes(faces, start, goal, can)
    n = len(nodes)
    # The longest line worth weighing: a leap with a stone's width either side (a bank's rings reach within
    # half a room and a ring's spacing of its edge: lines onto it need be no longer).
    if faces.stones is not None:
        usable = faces.stones.radii - MARGIN
        step = ring_step(usable, can)
        ringed = usable - 0.5 * can.room >= step
        # (a ring's next node, round it or out, lies about 1.05 steps away: 2 pi r k / (6 k))
        side = max(float(usable[~ringed].max(initial=0.0)), 0.5 * can.room + 1.1 * float(step[ringed].max(initial=0.0)),
                   (0.5 + NODE_SPACING) * can.room)
    else:
        side = can.room
    longest = can.longest_gap + 2.0 * side + can.room
    i, j = np.triu_indices(n, 1)
    span = np.linalg.norm(nodes[j] - nodes[i], axis=1)
    near = (span <= longest) & (span > 1e-9)
    i, j, span = i[near], j[near], span[near]
    if obstacles is not None:
        clear = obstacles.distance(nodes)[0] >= clearance
        if not clear[-2] or not clear[-1]:
            return None
        keep = clear[i] & clear[j]
        i, j, span = i[keep], j[keep], span[keep]
        keep = ~obstacles_module.crossing(nodes[i], nodes[j], obstacles.inflated(clearance))
        i, j, span = i[keep], j[keep], span[keep]
    if not len(i):
        return None
    counts = np.ceil(span / SAMPLE).astype(int) + 1
    width = int(counts.max())
    t = np.minimum(np.arange(width)[None] / np.maximum(counts - 1, 1)[:, None], 1.0)  # (E, K)
    direction = (nodes[j] - nodes[i]) / span[:, None]
    across = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    line = nodes[i][:, None] + t[..., None] * (nodes[j] - nodes[i])[:, None]
    on = np.ones(t.shape, dtype=bool)
    heights = None
    for side in (0.0, -can.lateral, can.lateral):  # the centreline and the feet's lines either side
        surface, height = faces.on_raster(line + side * across[:, None])
        on &= surface >= 0
        heights = height if heights is None else heights
    step = span / np.maximum(counts - 1, 1)
    row, value, first, count = _runs(on, counts)
    length = count * step[row]
    ok = np.ones(len(i), dtype=bool)
    # Gaps: no longer than the gait flies (a sample's step either side: the gap's ends lie between samples),
    # no higher a rise or drop than MAX_CLIMB, and none at either end of a line (its nodes are on a face).
    gap = ~value
    width1 = width + 1
    column = first % width1
    at_end = (column == 0) | (column + count >= counts[row])
    np.logical_and.at(ok, row[gap], (length[gap] + step[row[gap]] <= GAP_MARGIN * can.longest_gap) & ~at_end[gap])
    flat_heights = np.column_stack([heights, np.full(len(i), -np.inf)]).ravel()
    before = flat_heights[np.maximum(first[gap] - 1, 0)]
    after = flat_heights[np.minimum(first[gap] + count[gap], len(flat_heights) - 1)]
    np.logical_and.at(ok, row[gap], np.abs(after - before) <= MAX_CLIMB * h)
    # Faces between gaps: room to land and take off; at a line's ends (a node) half of it each side.
    face = value
    need = np.where(at_end[face], 0.5 * can.room, can.room)
    end_node = np.where(column[face] == 0, i[row[face]], j[row[face]])
    need = np.where(at_end[face] & (end_node >= n - 2), END_ROOM * can.stride, need)  # the standing start's
    # and stop's faces: the ramp from and to rest
    np.logical_and.at(ok, row[face], (length[face] + step[row[face]] >= need) | ~_has_gap(row, gap, len(i))[row[face]])
    leaps = np.bincount(row[gap], minlength=len(i))
    i, j, span, leaps = i[ok], j[ok], span[ok], leaps[ok]
    cost = span + LEAP_COST * h * leaps
    best, previous = cheapest(n, np.concatenate([i, j]), np.concatenate([j, i]), np.concatenate([cost, cost]), n - 2)
    if not np.isfinite(best[n - 1]):
        return None
    return nodes[route(previous, n - 2, n - 1)]


def _has_gap(row, gap, rows):
    return np.bincount(row[gap], minlength=rows) > 0


def _stretches(faces, path: Polyline, lateral):
    """(start, length) metres along the path of every stretch not over a usable face (under its centre and its
    feet's lines either side), between the path's start and end."""
    u = np.linspace(0.0, path.length, max(int(math.ceil(path.length / SAMPLE)), 1) + 1)
    centre, heading = path.centre(u)
    right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
    on = np.ones(len(u), dtype=bool)
    for side in (0.0, -lateral, lateral):
        on &= faces.on_raster(centre + side * right)[0] >= 0
    edges = np.diff(np.concatenate([[1], on.astype(np.int8), [1]]))
    gaps = []
    for a, b in zip(np.flatnonzero(edges == -1), np.flatnonzero(edges == 1)):  # samples a..b-1 off the faces
        if a == 0 or b >= len(u):
            continue  # the path's ends stand on the start's and the goal's faces
        gaps.append((float(u[a - 1]), float(u[b] - u[a - 1])))
    return gaps


def _lay_across(faces, points, character, can, start_time):
    """The gait laid along the rounded route with a standing start and stop, tuned to rest at the goal and
    checked: the Crossing's fields, or (footprints missed, message).

    Strides are whole and each leap's approach brings the footfalls into step with its gap, so the body comes
    to rest where the strides after the last leap take it: the stride counts and speeds (SPEED_STEPS) that rest
    nearest the goal, within GOAL_TOLERANCE of a stride, are checked, the nearest first."""
    path = Polyline(points)
    jumps = _stretches(faces, path, can.lateral)
    worst = None

    def lay(speed, strides):
        nonlocal worst
        stride = gaits.stride_of(gaits.choose(can.gait, speed, character), speed, character)
        try:
            laid = gait_track.layout(character, [gait_track.Section(can.gait, speed, (strides - 0.5) * stride)],
                                     jumps=jumps, path=path, stand=True)
        except FootprintError as exc:
            worst = worst or (math.inf, f"a {can.gait} at {speed:.2f} m/s cannot cross: {exc}")
            return None, math.nan
        return laid, float(laid.along.max()) - path.length

    strides = max(int(round(path.length / can.stride)) - 1, 1)
    laid, error = lay(can.speed, strides)
    for _ in range(STRIDE_TRIES):  # the leaps carry the body further than its strides: fewer strides
        if laid is None or abs(error) <= 0.5 * can.stride:
            break
        strides = max(strides - int(round(error / can.stride)), 1)
        laid, error = lay(can.speed, strides)
    near = []
    for speed in can.speed * (1.0 + np.array(SPEED_STEPS)):  # never slower than the route was planned for
        for count in (strides, strides - 1, strides + 1):
            if count >= 1:
                laid, error = lay(float(speed), count)
                if laid is not None:
                    near.append((abs(error), float(speed), laid, error))
    tolerance = GOAL_TOLERANCE * can.stride
    if near and min(n[0] for n in near) > tolerance:
        worst = worst or (math.inf, f"a {can.gait} comes to rest {min(n[0] for n in near):.2f} m from the goal at "
                                    f"best, more than the {tolerance:.2f} m it may")
    for _distance, speed, laid, error in sorted(near, key=lambda n: n[0]):
        if _distance > tolerance:
            break
        missed = _check(laid.track, faces, character, can, speed)
        if missed is None:
            track = laid.track
            _surface, height, _off, _near = faces.on(track.positions[:, :2])
            track = track.replace(positions=np.column_stack([track.positions[:, :2], height]),
                                  contact=track.contact + start_time, liftoff=track.liftoff + start_time)
            validate(track, allowed_feet=character.feet)
            return dict(track=track, path=points, jumps=tuple(jumps), flights=laid.flights, gait=can.gait,
                        speed=speed, rest_error=error, reach=_reach(can, speed))
        if worst is None or missed[0] < worst[0]:
            worst = missed
    return worst


def _reach(can, speed):
    return REACH_MARGIN * can.longest_step * max(speed / can.speed, 1.0)


def _check(track, faces, character, can, speed):
    """None where every footprint's support point is on a usable face and every foot's step is within reach;
    else (how many miss, a message naming the first footprint and the face it misses)."""
    surface, _height, off, nearest = faces.on(track.positions[:, :2])
    missing = np.flatnonzero(surface < 0)
    if len(missing):
        k = int(missing[np.argmax(off[missing])])
        p = track.positions[k]
        return (len(missing), f"footprint {k} ({track.feet[k]}) of a {can.gait} at {speed:.2f} m/s lands at "
                              f"({p[0]:.2f}, {p[1]:.2f}), {off[k]:.2f} m off {faces.names[nearest[k]]}'s usable face "
                              f"(its edge less {MARGIN:g} m): no gait tried keeps every foot on the stones")
    reach = _reach(can, speed)
    for foot in character.feet:  # four feet
        mine = np.flatnonzero(track.feet == foot)
        mine = mine[np.argsort(track.contact[mine])]
        steps = np.linalg.norm(np.diff(track.positions[mine, :2], axis=0), axis=1)
        if len(steps) and steps.max() > reach:
            k = int(mine[np.argmax(steps) + 1])
            return (1, f"footprint {k} ({foot}) is a step of {steps.max():.2f} m from the foot's last, beyond the "
                       f"{reach:.2f} m a {can.gait} at {speed:.2f} m/s reaches")
    return None
