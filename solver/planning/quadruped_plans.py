"""Quadrupeds in the planners (issue 20: "works for bipeds and, once they exist, quadrupeds"): across stepping
stones, round obstacles, wandering and following, for a character with four legs (LH RH LF RF).

A biped's planners choose footprints one by one; a quadruped's feet follow its body (Torkos §3.4: footprints
along a path), so here the planners choose the BODY's path and lay the gait along it (gait_track, a standing start
and stop), then check what the gait put down.

Stones (plan_crossing). The route is a sequence of nodes (each stone's centre, or a sparse subset of a surface's
footholds, and the start and the goal) joined where the straight line between them is walkable: every stretch of
it not over a usable face (stones.MARGIN inside a stone's edge, within a foothold spacing of a foothold) is a gap
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
gap (stones._gap_message with the gait's reach) where no route exists.

Obstacles. The body is taken as a disc about its middle holding it from hind to fore hips, as wide as the hips,
whichever way it turns: body_radius. The path is bent round the obstacles (obstacles.bend_path) keeping
path_clearance (the body's radius, the hind and fore masses' sag inside a turn of TURN_RADIUS, and a margin for
their sway) and rounded; the feet must be off every obstacle and the solved hind and fore masses at least the
body's radius from every one.

Wander and follow (Torkos §3.5, §6: "plans a few steps, optimizes, displays the result, and then plans again";
vdP97 §4.2). A stride at a time the body's path goes on by one stride of the gait along an arc: of the turns
within MAX_TURN per stride (and no tighter than TURN_RADIUS), those that keep path_clearance from the walls and
obstacles and leave room after them for a full circle at the sharpest turn (so it is never cornered), preferring
those whose arc kept up for LOOK_AHEAD strides stays clear; the wanderer's wish
drifts by a random turn each stride, the follower's is the heading to where its target will be when the stride
ends, and its speed closes on FOLLOW_DISTANCE behind it. The gait is laid along the decided path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY, Character
from ..errors import FootprintError, PlanningError
from ..track import Track, validate
from ..quadruped import gait_track, gaits, jumps as jumps_module
from ..quadruped.ground import Polyline
from . import obstacles as obstacles_module
from .graph import cheapest, route
from .stones import MARGIN, Footholds, Reach, Stones, _gap_message, stone_footholds

TURN_RADIUS = 1.0  # hip heights: the planned path's corners are rounded to this, twice gait_track's tightest
# (MIN_TURN_RADIUS): the hind and fore masses, half a body length behind and ahead of the middle, cut a turn's
# inside by (half length)^2 / (2 R): 8 cm for a dog here
CANDIDATES = (("walk", 0.25), ("trot", 0.4), ("trot", 0.7), ("trot", 1.1), ("bound", 1.6))  # (gait, Froude
# number) in the order tried across stones: the gentlest first; each flies farther than the one before (a walk's
# jump is a trot's stride, jumps.py). A dog: a walk at 1.3 m/s, trots at 1.7, 2.2 and 2.8, a bound at 3.3
SPEED_STEPS = (0.0, 0.1, 0.2)  # the gait's speed raised by these fractions (never lowered: the route's leaps are
# the longest it flies at its own), and a stride more or less, for where the body comes to rest
STRIDE_TRIES = 3  # stride counts corrected for what the leaps carry before those are tried
DISTANCE_TRIES = 3  # footprints_around's distance cut this many times for where the body comes to rest
GOAL_TOLERANCE = 0.5  # strides: how near the goal the body comes to rest at most (strides are whole; each leap
# brings the footfalls into step with its gap, so a speed changes only the strides after the last one)
LEAP_COST = 2.0  # hip heights of path a leap costs in the route: walking round is preferred to a leap up to this
SAMPLE = 0.02  # metres between the samples of a path or a route's lines tested against the usable faces
MAX_CELLS = 4_000_000  # the usable faces' raster is coarser than SAMPLE past this many cells
NODE_SPACING = 0.5  # of the gait's room: the route's nodes on a surface are about this far apart (a stone's on
MAX_RINGS, RING_POINTS = 6, 6  # rings round its centre, the k-th with 6 k nodes)
MAX_NODES = 600  # and at most this many (the route weighs every pair within a leap)
MAX_CLIMB = 0.5  # hip heights a leap may rise or drop between faces (a dog's hip height is its highest jump:
# jumps.MAX_RISE; half of it leaves the flight its length)
ROOM_MARGIN = 0.1  # of the room measured, added: a landing and take-off on a face of exactly that length
# sometimes needed one more footfall
GAP_MARGIN = 0.9  # of the longest gap measured, what a route may ask for: measured after a straight run-up of
# whole strides; between other leaps the approach has less room to adjust its strides
END_ROOM = 1.5  # strides of face the start and the goal need before the first leap and after the last (a
# standing start's ramp up, a stop's ramp down: gait_track.RAMP_PERIODS)
REACH_MARGIN = 1.25  # a foot's step (successive footprints) may be this times its longest over the longest gap
# (at the speed tried, in proportion)
BODY_MARGIN = 0.0  # (kept at 0: the hips' half-width is the margin; see body_radius)
SWAY = 0.1  # hip heights: the masses' sway off the path (a walk's and a trot's support to one side, the solve's
# smoothing) added to the path's clearance; measured on a dog past posts and walls (tests)
MAX_TURN = math.radians(60.0)  # per stride: the wanderer's and follower's sharpest turn (and no tighter than
# TURN_RADIUS)
TURNS = 13  # candidate turns within +-MAX_TURN each stride
LOOK_AHEAD = 3  # strides: a turn's look-ahead at least (its arc kept up)
WANDER_TURN = math.radians(15.0)  # the wanderer's random drift of its wished-for heading per stride (s.d.)
WANDER_FROUDE = 0.25  # a wanderer's walk: a dog at 1.3 m/s
FOLLOW_DISTANCE = 1.0  # metres: the follower closes to about this far behind its target
FOLLOW_GAIN = 1.0  # per second: the follower's speed over its target's is this times how far it is off that
FOLLOW_SPEEDS = (0.05, 1.5)  # Froude numbers: the follower's slowest and fastest (a dog's 0.2 to 2.6 m/s)
SPEED_STEP = 0.1  # m/s: the follower's speeds are rounded to this (strides of one speed make one section)
SPEED_CHANGE = 0.4  # m/s: the follower's speed changes by at most this a stride
FOLLOW_STAND = (False, True)  # the follower sets off at its gait (stands at the end): a standing start holds
# it a stride period and ramps up over another while the target walks on (a dog 1 m behind a target at 1 m/s
# fell 2.1 m behind)
ARC_SAMPLE = 0.05  # metres between the decided path's points


# --- the body ------------------------------------------------------------------------------------------


def body_radius(character: Character) -> float:
    """The quadruped's body radius in plan: half its hind-to-fore hip distance plus the hips' half-width. The
    body, from the hind to the fore hips and as wide as the hips, lies within this disc about its middle
    whichever way it turns (a dog's: 0.33 + 0.125 = 0.45 m; a biped's is obstacles.body_radius)."""
    if not character.is_quadruped:
        return obstacles_module.body_radius(character)
    hips = character.hip_offsets
    return 0.5 * float(np.ptp(hips[:, 1])) + float(np.abs(hips[:, 0]).max()) + BODY_MARGIN


def path_clearance(character: Character) -> float:
    """How far the planned path keeps from obstacles: the body's radius, the masses' sag inside a turn of
    TURN_RADIUS (half the body's length squared over twice the radius) and SWAY."""
    if not character.is_quadruped:
        return obstacles_module.path_clearance(character)
    h = character.leg_length_nominal
    half_length = 0.5 * float(np.ptp(character.hip_offsets[:, 1]))
    return body_radius(character) + half_length ** 2 / (2.0 * TURN_RADIUS * h) + SWAY * h


# --- paths -----------------------------------------------------------------------------------------------


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


def _round_or_refuse(points, character, what):
    """rounded() at TURN_RADIUS; PlanningError where a corner cannot be rounded as wide as the gait turns."""
    h = character.leg_length_nominal
    path, tightest = rounded(points, TURN_RADIUS * h)
    least = gait_track.MIN_TURN_RADIUS * h
    if tightest < least * 1.05:
        raise PlanningError(f"{what} turns where a quadruped cannot: its corners are too close together to round "
                            f"them to the {least:.2f} m ({gait_track.MIN_TURN_RADIUS:g} hip heights) it turns at "
                            f"least (the tightest gets {tightest:.2f} m)")
    return path


# --- the gait's reach --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Capability:
    """What a gait at a speed can do over gaps (metres along the path): the longest gap it flies, the room it
    needs on a face between two gaps, how far its feet stand out from the path, its stride."""

    gait: str
    speed: float
    longest_gap: float
    room: float
    lateral: float
    stride: float
    longest_step: float  # a foot's, from one footprint to its next, over the longest gap


def _key(character):
    return (character.name, character.leg_length_nominal, character.foot_length,
            tuple(np.round(character.hip_offsets, 6).ravel()), character.fore_share)


_CAPABILITIES = {}  # measured once per character, gait and speed (a few dozen lays each)


def capability(character: Character, gait: str, speed: float) -> Capability:
    key = (_key(character), gait, round(float(speed), 6))
    if key not in _CAPABILITIES:
        _CAPABILITIES[key] = _capability(character, gait, key[2])
    return _CAPABILITIES[key]


def _capability(character, gait, speed):
    """Measured by laying the gait (a standing start, jumps.py's bounds): the longest gap (bisection), the
    longest step a foot then takes, and the shortest face between two gaps half that long that it lands and
    takes off on (scanned up from its feet's spread along the body and jumps.margin at each end)."""
    h = character.leg_length_nominal
    run_up = 4.0 * gaits.stride_length(speed, h) + 2.0  # room for the standing start's ramp before the gap

    def lays(jumps):
        try:
            return gait_track.layout(character, [gait_track.Section(gait, speed, run_up + 6.0 * h + 4.0
                                                                    + sum(j[1] for j in jumps))],
                                     jumps=jumps, stand=True).track
        except FootprintError:
            return None

    low, high = 0.0, 6.0 * h
    for _ in range(14):  # to 6 h / 2^14: a tenth of a millimetre on a horse
        middle = 0.5 * (low + high)
        low, high = (middle, high) if lays([(run_up, middle)]) is not None else (low, middle)
    longest = low
    track = lays([(run_up, longest)])
    step = max(float(np.linalg.norm(np.diff(track.positions[track.feet == foot, :2], axis=0), axis=1).max())
               for foot in character.feet) if track is not None else 0.0
    margin = jumps_module.margin(character)
    spread = float(np.ptp(character.hip_offsets[:, 1]))
    room = math.inf
    gap = max(0.5 * longest, 0.05)
    for x in spread + 2.0 * margin + 0.05 * np.arange(60):  # up to 3 m more: a gallop's strides are long
        if lays([(run_up, gap), (run_up + gap + x, gap)]) is not None:
            room = float(x) * (1.0 + ROOM_MARGIN)
            break
    chosen = gaits.choose(gait, speed, character)
    lateral = float(np.abs(character.hip_offsets[:, 0]).max() * chosen.width_at(gaits.froude(speed, h)))
    return Capability(chosen.name, speed, longest, room, lateral, gaits.stride_length(speed, h), step)


# --- the ground feet may land on ---------------------------------------------------------------------------


class _Faces:
    """The usable faces: exactly (on) and as a raster for testing many points along lines (on_raster); each
    point's surface (-1: none) and height."""

    def __init__(self, ground, extra_points):
        self.stones = ground if isinstance(ground, Stones) else None
        self.holds = None if self.stones is not None else ground
        if self.stones is not None:
            centres, reach = self.stones.positions, self.stones.radii - MARGIN
            self.names = tuple(f"stone {i}" for i in range(len(self.stones)))
        else:
            centres, reach = self.holds.points, np.full(len(self.holds.points), self.holds.spacing)
            self.names = self.holds.names
        low = np.minimum(centres[:, :2].min(axis=0) - reach.max(), np.min(extra_points, axis=0)) - 1.0
        high = np.maximum(centres[:, :2].max(axis=0) + reach.max(), np.max(extra_points, axis=0)) + 1.0
        cell = max(SAMPLE, math.sqrt(float(np.prod(high - low)) / MAX_CELLS))
        shape = np.ceil((high - low) / cell).astype(int) + 1
        self.low, self.cell = low, cell
        self.surface = np.full(shape[::-1], -1, dtype=np.int32)
        self.height = np.full(shape[::-1], -np.inf)
        inset = 0.5 * math.sqrt(2.0) * cell  # a cell is marked only where all of it is on the face
        owners = np.arange(len(centres)) if self.stones is not None else self.holds.surface
        for k in np.argsort(centres[:, 2]):  # each face's disc, the higher ones over the lower (thousands at most)
            r = reach[k] - inset
            if r <= 0:
                continue
            i0, j0 = np.floor((centres[k, :2] - r - low) / cell).astype(int)
            i1, j1 = np.ceil((centres[k, :2] + r - low) / cell).astype(int) + 1
            xs, ys = low[0] + cell * np.arange(i0, i1), low[1] + cell * np.arange(j0, j1)
            inside = (xs[None] - centres[k, 0]) ** 2 + (ys[:, None] - centres[k, 1]) ** 2 <= r * r
            window = (slice(j0, j1), slice(i0, i1))
            self.surface[window] = np.where(inside, owners[k], self.surface[window])
            self.height[window] = np.where(inside, centres[k, 2], self.height[window])

    def on_raster(self, xy):
        """(surface (N,), height (N,)) of the raster's cells under the points (-1, -inf off every face)."""
        index = np.round((np.asarray(xy)[..., :2] - self.low) / self.cell).astype(int)
        i = np.clip(index[..., 0], 0, self.surface.shape[1] - 1)
        j = np.clip(index[..., 1], 0, self.surface.shape[0] - 1)
        return self.surface[j, i], self.height[j, i]

    def on(self, xy):
        """(surface (N,), height (N,), how far off its nearest face each point is (<= 0: on it), that face)
        exactly: a stone's usable disc, or within a spacing of a foothold."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        if self.stones is not None:
            centres, reach, owners = self.stones.positions, self.stones.radii - MARGIN, np.arange(len(self.stones))
        else:
            centres, reach, owners = self.holds.points, np.full(len(self.holds.points), self.holds.spacing), \
                self.holds.surface
        surface, height = np.full(len(xy), -1), np.full(len(xy), -np.inf)
        off, nearest = np.empty(len(xy)), np.empty(len(xy), dtype=int)
        for a in range(0, len(xy), 256):  # the points a chunk at a time against every face
            gap = np.linalg.norm(xy[a:a + 256, None] - centres[None, :, :2], axis=2) - reach[None]
            k = gap.argmin(axis=1)
            off[a:a + 256], nearest[a:a + 256] = gap[np.arange(len(k)), k], owners[k]
            ranked = np.where(gap <= 1e-9, centres[None, :, 2], -np.inf)
            top = ranked.argmax(axis=1)
            found = np.isfinite(ranked[np.arange(len(top)), top])
            surface[a:a + 256] = np.where(found, owners[top], -1)
            height[a:a + 256] = np.where(found, centres[top, 2], -np.inf)
        return surface, height, off, nearest


# --- stepping stones -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Crossing:
    """A quadruped's plan across stones: the track, the body's path (points (N, 2)), the jumps marked on it
    ((start, length) metres along it), what they became (jumps.Flight), the gait and speed, and what was tried."""

    track: Track
    path: np.ndarray
    jumps: tuple
    flights: tuple
    gait: str
    speed: float
    rest_error: float  # metres along the path from the goal to where the body comes to rest
    reach: float  # metres: the longest step a foot may take (from one footprint to its next), as checked
    tries: int


def plan_crossing(ground, start, goal, character: Character, start_time: float = 0.0, obstacles=None) -> Track:
    """A quadruped's footprint track across stones (stones.plan_crossing's signature): the module's docstring."""
    return crossing_plan(ground, start, goal, character, start_time, obstacles).track


def crossing_plan(ground, start, goal, character: Character, start_time: float = 0.0, obstacles=None) -> Crossing:
    """plan_crossing's Crossing (the track and how it was made)."""
    start, goal = np.asarray(start, dtype=float)[:2], np.asarray(goal, dtype=float)[:2]
    faces = _Faces(ground, np.stack([start, goal]))
    ends = []
    for what, point in (("the start", start), ("the goal", goal)):
        surface, height, off, nearest = faces.on(point)
        if surface[0] < 0:
            raise PlanningError(f"{what} ({point[0]:.2f}, {point[1]:.2f}) is on no stone: the nearest, "
                                f"{faces.names[nearest[0]]}, is {off[0]:.2f} m from it")
        ends.append((int(surface[0]), float(height[0])))
    if obstacles is not None and len(obstacles):
        body = body_radius(character)
        widths = np.linspace(path_clearance(character), path_clearance(character) + body, 3)
    else:
        obstacles, widths = None, [None]
    failures, tries, closest = [], 0, None
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
                path = _round_or_refuse(nodes, character, "the route")
            except PlanningError as exc:
                failures.append((math.inf, str(exc)))
                continue
            outcome, count = _lay_across(faces, path, character, can, start_time)
            tries += count
            if isinstance(outcome, tuple):
                failures.append(outcome)
                continue
            if obstacles is None:
                return Crossing(**outcome, tries=tries)
            feet = _feet_on_obstacles(outcome["track"], obstacles, character)
            if feet is not None:
                failures.append((math.inf, feet))
                continue
            near = _masses_near(outcome["track"], character, obstacles)
            if near[0] >= body_radius(character):
                return Crossing(**outcome, tries=tries)
            closest = near if closest is None or near[0] > closest[0] else closest
            break  # a wider way next
    if no_route and obstacles is not None:  # the stones reach: the obstacles close the way
        for gait, froude in CANDIDATES:
            can = capability(character, gait, math.sqrt(froude * GRAVITY * character.leg_length_nominal))
            nodes = _route(faces, start, goal, ends, can, character, None, None) if np.isfinite(can.room) else None
            if nodes is not None:
                near = obstacles.distance(_round_or_refuse(nodes, character, "the route"))
                names = sorted({obstacles.names[k] for k in near[1][near[0] < widths[0]]}) or list(obstacles.names)
                raise PlanningError(f"no crossing from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, "
                                    f"{goal[1]:.2f}) keeps a {character.name}'s body clear of the obstacles: "
                                    f"{', '.join(names)} stand{'s' if len(names) == 1 else ''} in the way (its path "
                                    f"keeps {widths[0]:.2f} m from them)")
    if no_route:
        raise PlanningError(_no_route_message(faces, ground, start, goal, ends, character, None))
    if closest is not None and not failures:
        raise PlanningError(f"no crossing keeps a {character.name}'s body clear of the obstacles: the widest way "
                            f"brings its {closest[2]} mass {closest[0]:.2f} m from {closest[1]} (it keeps "
                            f"{body_radius(character):.2f} m)")
    failures.sort(key=lambda f: f[0])
    raise PlanningError(failures[0][1])


def _no_route_message(faces, ground, start, goal, ends, character, obstacles):
    """The gap that stops every gait (stones._gap_message with the farthest-flying gait's reach), on the stones
    big enough to land on and take off from between leaps."""
    best = max((capability(character, g, math.sqrt(f * GRAVITY * character.leg_length_nominal))
                for g, f in CANDIDATES), key=lambda c: c.longest_gap)
    h = character.leg_length_nominal
    reach = Reach(best.longest_gap, best.longest_gap, best.longest_gap, MAX_CLIMB * h)
    coords = np.array([[*start, ends[0][1]], [*goal, ends[1][1]]])
    if isinstance(ground, Stones):
        usable = 2.0 * (ground.radii - MARGIN)
        big = np.flatnonzero((usable >= best.room) | np.isin(np.arange(len(ground)), [ends[0][0], ends[1][0]]))
        holds = stone_footholds(Stones(ground.positions[big], ground.radii[big]))
        holds = Footholds(holds.points, holds.surface, tuple(f"stone {i}" for i in big), holds.spacing)
        first, last = (int(np.flatnonzero(big == e[0])[0]) for e in ends)
        message = _gap_message(holds, first, last, reach, coords)
        small = len(ground) - len(big)
        if small:
            message += (f" ({small} stone{'s are' if small != 1 else ' is'} too small for a {character.name} to land "
                        f"on and leap again: that needs {best.room:.2f} m across)")
    else:
        message = _gap_message(ground, ends[0][0], ends[1][0], reach, coords)
    message = message.replace("this character leaps", f"a {character.name} leaps at a {best.gait} of "
                                                      f"{best.speed:.1f} m/s")
    if obstacles is not None:
        message += " (or the obstacles close the way)"
    return message


def _nodes(faces, start, goal, can):
    """The route's nodes (N, 2), their surfaces: every stone's centre whose usable face can hold a landing and a
    take-off (room), or a sparse subset of a surface's footholds; the start and the goal last."""
    if faces.stones is not None:  # each stone's centre; on a large one (a bank) rings round it, to go round an
        # obstacle on it or enter and leave it off its centre
        usable = faces.stones.radii - MARGIN
        big = np.flatnonzero(2.0 * usable >= can.room)
        points, owners = [faces.stones.positions[big, :2]], [big]
        spacing = NODE_SPACING * can.room
        for ring in range(1, MAX_RINGS + 1):  # a handful of rings, every stone at once
            having = big[usable[big] - 0.5 * can.room >= ring * spacing]
            if not len(having):
                break
            angles = np.arange(RING_POINTS * ring) * (2.0 * math.pi / (RING_POINTS * ring))
            ring_points = faces.stones.positions[having, None, :2] + ring * spacing * np.stack(
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
        ringed = usable - 0.5 * can.room >= NODE_SPACING * can.room
        side = max(float(usable[~ringed].max(initial=0.0)), (0.5 + NODE_SPACING) * can.room)
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
    checked; (the Crossing's fields, lays tried) or ((footprints missed, message), lays tried).

    Strides are whole and each leap's approach brings the footfalls into step with its gap, so the body comes
    to rest where the strides after the last leap take it: the stride counts and speeds (SPEED_STEPS) that rest
    nearest the goal, within GOAL_TOLERANCE of a stride, are checked, the nearest first."""
    path = Polyline(points)
    jumps = _stretches(faces, path, can.lateral)
    h = character.leg_length_nominal
    worst, tries = None, 0

    def lay(speed, strides):
        nonlocal worst, tries
        tries += 1
        stride = gaits.stride_length(speed, h)
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
    tolerance = GOAL_TOLERANCE * gaits.stride_length(can.speed, h)
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
                        speed=speed, rest_error=error, reach=_reach(can, speed)), tries
        if worst is None or missed[0] < worst[0]:
            worst = missed
    return worst, tries


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


# --- obstacles -----------------------------------------------------------------------------------------------


def path_around(points, obstacles, character: Character):
    """A quadruped body's path: the polyline (N, 2 or 3) bent round the obstacles (obstacles.bend_path, keeping
    path_clearance) and its corners rounded to TURN_RADIUS; points (M, 2)."""
    points = np.asarray(points, dtype=float)
    if points.shape[1] == 2:
        points = np.column_stack([points, np.zeros(len(points))])
    bent = obstacles_module.bend_path(points, obstacles, path_clearance(character)) if obstacles is not None \
        and len(obstacles) else points
    path = _round_or_refuse(bent, character, "the path bent round the obstacles")
    if obstacles is not None and len(obstacles):
        distance, owner = obstacles.distance(path)
        if distance.min() < body_radius(character):
            k = int(np.argmin(distance))
            raise PlanningError(f"the path rounded comes {max(distance[k], 0):.2f} m from {obstacles.names[owner[k]]}, "
                                f"within a {character.name}'s body radius ({body_radius(character):.2f} m)")
    return path


def _feet_on_obstacles(track, obstacles, character):
    """A message naming the first footprint whose sole (obstacles.foot_outline) is inside an obstacle, or None."""
    soles = obstacles_module.foot_outline(track.positions, track.headings, character)
    distance, owner = obstacles.distance(soles.reshape(-1, 2))
    if distance.min() >= 0.0:
        return None
    k = int(np.argmin(distance))
    return f"footprint {k // soles.shape[1]} ({track.feet[k // soles.shape[1]]}) stands on {obstacles.names[owner[k]]}"


def _masses_near(track, character, obstacles):
    """(distance, obstacle name, mass name): the solved hind and fore masses' closest approach to an obstacle."""
    from .. import biped  # the solver, only where a plan is checked against obstacles
    motion = biped.solve(track, character)
    points = motion.body_points[:, :, :2]
    distance, owner = obstacles.distance(points.reshape(-1, 2))
    k = int(np.argmin(distance))
    return float(distance[k]), obstacles.names[owner[k]], ("hind", "fore")[k % 2]


def footprints_around(points, obstacles, character: Character, gait: str = "walk", speed: float | None = None,
                      stand=True, start_time: float = 0.0) -> Track:
    """A quadruped's gait (at `speed`, by default a walk's Froude 0.25) along the polyline (N, 2 or 3) bent round
    the obstacles and rounded (path_around), from standing to standing; PlanningError names a footprint that
    would still stand on an obstacle."""
    speed = speed or math.sqrt(WANDER_FROUDE * GRAVITY * character.leg_length_nominal)
    path = path_around(points, obstacles, character)
    line = Polyline(path)
    track = _laid_to_end(character, [gait_track.Section(gait, speed, line.length)], line, stand)
    if obstacles is not None and len(obstacles):
        feet = _feet_on_obstacles(track, obstacles, character)
        if feet is not None:
            raise PlanningError(feet)
    return track.replace(contact=track.contact + start_time, liftoff=track.liftoff + start_time)


def _laid_to_end(character, sections, line, stand=True):
    """The sections along the path, their distance cut so the body rests (its last mid-stance) before the
    path's end (as generate.py's fill)."""
    scale = 1.0
    for _ in range(DISTANCE_TRIES + 2):
        laid = gait_track.layout(character, [gait_track.Section(s.gait, s.speed, s.distance * scale)
                                             for s in sections], path=line, stand=stand)
        over = float(laid.along.max()) - line.length
        if over <= 1e-6:
            break
        total = sum(s.distance for s in sections) * scale
        scale *= max(total - over - 1e-3, 1e-3) / total
    return validate(laid.track, allowed_feet=character.feet)


# --- wander and follow ----------------------------------------------------------------------------------------


class BodyPathPlanner:
    """The body's path decided a stride at a time (the module's docstring): standing at `start` facing `heading`
    (radians, 0 = +Y) in `area` (wander.Area). next_stride(wish, length) decides one."""

    def __init__(self, character: Character, area, start, heading: float):
        if not character.is_quadruped:
            raise PlanningError(f"body-path plans are for quadrupeds; {character.name!r} has two legs")
        self.character, self.area = character, area
        self.clearance = path_clearance(character)
        start = np.asarray(start, dtype=float)[:2]
        if area.clearance(start)[0] < self.clearance:
            raise PlanningError(f"the start ({start[0]:.2f}, {start[1]:.2f}) is within {self.clearance:.2f} m of a wall "
                                f"or an obstacle: a {character.name} keeps that much room")
        self.point, self.heading = start, float(heading)
        self.points = [start]
        self.least_radius = TURN_RADIUS * character.leg_length_nominal

    def _arcs(self, curvature, length):
        """(T, K, 2) points along arcs of each curvature (1/m, positive to the left) `length` metres on."""
        count = max(int(math.ceil(length / ARC_SAMPLE)), 2)
        s = np.linspace(0.0, length, count + 1)[1:][None]
        curvature = np.asarray(curvature, dtype=float)[:, None]
        bent = np.abs(curvature) > 1e-9
        safe = np.where(bent, curvature, 1.0)
        theta = self.heading + curvature * s
        dx = np.where(bent, (np.cos(theta) - math.cos(self.heading)) / safe, -math.sin(self.heading) * s)
        dy = np.where(bent, (np.sin(theta) - math.sin(self.heading)) / safe, math.cos(self.heading) * s)
        return self.point + np.stack([dx, dy], axis=-1)

    def next_stride(self, wish: float, length: float):
        """Go on by one stride's arc (`length` metres) turning within MAX_TURN (no tighter than TURN_RADIUS):
        of the turns that are safe (the arc keeps the clearance, and from its end the sharpest turn's full circle
        to one side or the other does too: kept up, that circle is clear for ever, so a safe stride always has a
        safe next one), those whose arc kept up for LOOK_AHEAD strides stays clear, the one ending nearest the
        wish (a heading, radians); else the safe one nearest it; else the clearest. Returns the stride's end."""
        most = min(MAX_TURN, length / self.least_radius)
        turns = np.linspace(-most, most, TURNS)
        curvature = turns / length
        clearance = self.area.clearance
        arcs = self._arcs(curvature, LOOK_AHEAD * length)  # (T, K, 2)
        within = np.linspace(0.0, LOOK_AHEAD * length, arcs.shape[1] + 1)[1:] <= length + 1e-9
        clear = clearance(arcs.reshape(-1, 2)).reshape(arcs.shape[:2])
        stride_clear = clear[:, within].min(axis=1) >= self.clearance
        ahead_clear = clear.min(axis=1) >= self.clearance
        # The escape circles from each stride's end: radius length / most, left and right of its heading.
        end, heading = arcs[:, within][:, -1], self.heading + turns
        radius = length / most
        left = np.stack([-np.cos(heading), -np.sin(heading)], axis=-1)  # the body's left (heading + pi/2)
        angles = np.linspace(0.0, 2.0 * math.pi, max(int(2.0 * math.pi * radius / ARC_SAMPLE), 12), endpoint=False)
        ring = radius * np.stack([np.cos(angles), np.sin(angles)], axis=-1)
        centres = end[:, None] + np.array([1.0, -1.0])[None, :, None] * radius * left[:, None]  # (T, 2, 2)
        circles = clearance((centres[:, :, None] + ring[None, None]).reshape(-1, 2)).reshape(len(turns), 2, -1)
        safe = stride_clear & (circles.min(axis=2) >= self.clearance).any(axis=1)
        off_wish = np.abs((heading - wish + math.pi) % (2 * math.pi) - math.pi)
        for allowed in (safe & ahead_clear, safe):
            if allowed.any():
                chosen = int(np.argmin(np.where(allowed, off_wish, np.inf)))
                break
        else:
            chosen = int(np.argmax(clear[:, within].min(axis=1)))
        arc = self._arcs(curvature[[chosen]], length)[0]
        self.points.extend(arc)
        self.point, self.heading = arc[-1], self.heading + float(turns[chosen])
        return self.point

    def path(self):
        return np.array(self.points)


def _sections_track(character, sections, points, start_time, stand=True):
    line = Polyline(points)
    track = _laid_to_end(character, sections, line, stand)
    return track.replace(contact=track.contact + start_time, liftoff=track.liftoff + start_time)


def wander(character: Character, area, start, heading: float, seconds: float, seed: int = 0,
           start_time: float = 0.0) -> Track:
    """A quadruped wandering at random in the area (wander.wander's signature): a walk at WANDER_FROUDE along a
    body path decided a stride at a time, its wish drifting by WANDER_TURN a stride, for `seconds` (the track
    ends standing at least that long after it starts)."""
    rng = np.random.default_rng(seed)
    h = character.leg_length_nominal
    speed = math.sqrt(WANDER_FROUDE * GRAVITY * h)
    gait = gaits.choose("walk", speed, character)
    stride = gaits.stride_length(speed, h)
    planner = BodyPathPlanner(character, area, start, heading)
    travelled = 0.0
    while travelled < speed * seconds + stride:  # a stride at a time, as the animal would decide
        planner.next_stride(planner.heading + rng.normal(0.0, WANDER_TURN), stride)
        travelled += stride
    sections = [gait_track.Section(gait.name, speed, travelled)]
    return _sections_track(character, sections, planner.path(), start_time)


def follow(character: Character, target, start, heading: float, seconds: float, area=None,
           start_time: float = 0.0) -> Track:
    """A quadruped following a moving target (wander.follow's signature): each stride heads for where the target
    will be when it ends, at a speed that closes on FOLLOW_DISTANCE behind it (the gait by Froude number:
    gaits.choose's `auto`), changing by at most SPEED_CHANGE a stride."""
    from .wander import Area  # (wander dispatches here)
    area = area or Area(np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * 1e5)
    h = character.leg_length_nominal
    slowest, fastest = (math.sqrt(f * GRAVITY * h) for f in FOLLOW_SPEEDS)
    planner = BodyPathPlanner(character, area, start, heading)
    first = np.asarray(target(np.array([start_time, start_time + 1.0])), dtype=float).reshape(2, 2)
    speed = float(np.clip(np.linalg.norm(first[1] - first[0]), slowest, fastest))  # the target's, to begin with
    clock = start_time
    strides = []
    while clock < start_time + seconds:
        stride = gaits.stride_length(speed, h)
        period = stride / speed
        now, later = np.asarray(target(np.array([clock, clock + period])), dtype=float).reshape(2, 2)
        target_speed = np.linalg.norm(later - now) / period
        offset = later - planner.point
        # How far behind it the body will be when the stride ends (it goes a stride toward it meanwhile).
        wanted = target_speed + FOLLOW_GAIN * (np.hypot(*offset) - stride - FOLLOW_DISTANCE)
        speed = float(np.clip(wanted, speed - SPEED_CHANGE, speed + SPEED_CHANGE))
        speed = float(np.clip(round(speed / SPEED_STEP) * SPEED_STEP, slowest, fastest))
        stride = gaits.stride_length(speed, h)
        planner.next_stride(math.atan2(-offset[0], offset[1]), stride)
        strides.append(speed)
        clock += stride / speed
    sections = []
    for speed in strides:  # strides of one speed: one section (its distance half a stride short: whole strides)
        if sections and sections[-1][0] == speed:
            sections[-1][1] += 1
        else:
            sections.append([speed, 1])
    sections = [gait_track.Section(gaits.choose("auto", v, character).name, v,
                                   (count - 0.5) * gaits.stride_length(v, h)) for v, count in sections]
    return _sections_track(character, sections, planner.path(), start_time, FOLLOW_STAND)
