"""Footprints across stepping stones (vdP97 §4.2, Fig. 13: "crossing the river by stepping from rock to rock"):
which stones to step on, in what order, within the character's reach, walking where stones are close and leaping
where they are far; the timing from the step lengths (vdP97 §4.1), so long steps become flights.

The ground allowed is stones or any surfaces' footholds (footholds.py). A step joins two footholds no farther apart
than the character leaps and no more than it climbs above or below; it costs 1 up to a comfortable step, more for a
long walking step and more again for a leap, so the plan takes the fewest steps and leaps only where it must. The
cheapest sequence from the start to the goal is found by relaxing every step at once (graph.cheapest: as many rounds
as the plan has steps). Where none exists, the error names the gap: on the route whose worst step is the least out
of reach, that step's two stones, how far apart they are and how far the character leaps.
"""

from __future__ import annotations

import math

import numpy as np

from .. import biped
from ..character import Character
from ..errors import PlanningError
from ..footprints.timing import timing_for_sequence
from ..track import make_track, validate
from .footholds import MARGIN, RING_GAP, Footholds, Reach, Stones, gap_message, stone_footholds
from .four_legs.crossing import plan_crossing as quadruped_crossing
from .graph import cheapest, route
from .neighbours import pairs_within
from .obstacles import Obstacles, body_radius, crossing, path_clearance

LONG_STEP_COST = 1.5  # a walking step up to LEAP_THRESHOLD l_nom: past it vdP97's timing makes a flight
LEAP_COST = 4.0  # a leap: taken only where walking steps cannot get there, or would take four steps
LINE_CLEARANCES = 3  # widths tried for the step lines, from the body's radius to the path clearance
DISTANCE_TIE = 1e-3  # per metre: among plans of equal cost, the shortest


def _steps(points, reach: Reach, ends: int = 2, end_leap: float | None = None):
    """Every step between footholds the character can take: (from, to, cost) arrays. The last `ends` points
    (the start and the goal) reach only end_leap: the stance foot that takes the first step, or brings the feet
    together after the last, stands beside them."""
    start, end = pairs_within(points, reach.leap)
    offset = points[end] - points[start]
    d = np.hypot(offset[:, 0], offset[:, 1])
    at_ends = (start >= len(points) - ends) | (end >= len(points) - ends)
    keep = ((np.abs(offset[:, 2]) <= reach.climb) & (d <= np.where(at_ends, end_leap or reach.leap, reach.leap))
            & (d > 0.0))
    start, end, d = start[keep], end[keep], d[keep]
    cost = np.where(d <= reach.comfortable, 1.0, np.where(d <= reach.walk, LONG_STEP_COST, LEAP_COST)) + DISTANCE_TIE * d
    return start, end, cost


def _clear_of(steps, points, obstacles, character, ends, clearance):
    """The steps that keep off the obstacles: both footholds at least half a foot from every obstacle, the line
    between them at least `clearance` (room for the body, and for the COM cutting inside a turn), the body's
    radius where the line leaves the start or reaches the goal (the body stands there already: it need only not
    sweep into an obstacle) (the start and the goal named where they are not on clear ground)."""
    distance, owner = obstacles.distance(points[:, :2])
    clear = distance >= 0.5 * character.foot_length
    for what, k in (("start", -2), ("goal", -1)):
        if not clear[k]:
            raise PlanningError(f"the {what} ({ends[k, 0]:.2f}, {ends[k, 1]:.2f}) is on or by {obstacles.names[owner[k]]}")
    start, end, cost = steps
    keep = clear[start] & clear[end]
    start, end, cost = start[keep], end[keep], cost[keep]
    at_ends = (start >= len(points) - 2) | (end >= len(points) - 2)  # the start and the goal come last
    blocked = np.empty(len(start), dtype=bool)
    for rows, width in ((at_ends, body_radius(character)), (~at_ends, clearance)):
        blocked[rows] = crossing(points[start[rows], :2], points[end[rows], :2], obstacles.inflated(width))
    return start[~blocked], end[~blocked], cost[~blocked]


def plan_crossing(ground, start, goal, character: Character, start_time: float = 0.0, obstacles=None):
    """A biped's footprint track from standing at `start` to standing at `goal` (points (x, y) on the ground)
    stepping only on the ground allowed: Stones, or the Footholds of any surfaces. Alternating feet, one
    footprint per foothold of the cheapest plan, the stance at each end side by side on its surface, timing from
    the step lengths (vdP97 §4.1: steps past LEAP_THRESHOLD l_nom leap). With obstacles (obstacles.Obstacles):
    no foothold within half a foot of one, no step whose line comes within the body's radius of one.
    PlanningError names the gap where no plan exists."""
    if character.is_quadruped:  # its body's route across, the gait laid along it and checked (four_legs.crossing)
        return quadruped_crossing(ground, start, goal, character, start_time, obstacles)
    stones = ground if isinstance(ground, Stones) else None
    holds = stone_footholds(ground, RING_GAP * character.leg_length_nominal) if stones is not None else ground
    (first, start_point), (last, goal_point) = ground.under(start, "the start"), ground.under(goal, "the goal")
    ends = np.array([start_point, goal_point])
    points, owner = np.concatenate([holds.points, ends]), np.concatenate([holds.surface, [first, last]])
    source, target = len(points) - 2, len(points) - 1
    reach = Reach.of(character)
    # The first step leaves from a stance foot half a hip width beside the start, across the way it goes (the
    # last one likewise lands beside the goal): a step from the start is a leap at most where that foot's is.
    every_step = _steps(points, reach, end_leap=math.sqrt(reach.leap ** 2 - character.hip_offsets[0, 0] ** 2))
    best, previous = cheapest(len(points), *every_step, source)
    if not np.isfinite(best[target]):
        raise PlanningError(gap_message(holds, first, last, reach, ends))
    if obstacles is None or not len(obstacles):
        path = route(previous, source, target)
        return _track(points[path], owner[path], holds, character, start_time, stones)
    # With obstacles: step lines kept ever wider of them until the solved COM keeps the body's radius.
    body, wide = body_radius(character), path_clearance(character)
    closest = None
    for clearance in np.linspace(body, wide, LINE_CLEARANCES):  # a handful of widths
        best, previous = cheapest(len(points), *_clear_of(every_step, points, obstacles, character, ends, clearance),
                                   source)
        if not np.isfinite(best[target]):
            if closest is None:  # the ground reaches, the obstacles close the way
                raise PlanningError(_closed_message(route(cheapest(len(points), *every_step, source)[1], source,
                                                           target), points, obstacles, character, ends, clearance))
            break
        path = route(previous, source, target)
        track = _track(points[path], owner[path], holds, character, start_time, stones)
        distance, near = obstacles.distance(biped.solve(track, character).com[:, :2])
        if distance.min() >= body:
            return track
        closest = (float(distance.min()), obstacles.names[near[np.argmin(distance)]])
    raise PlanningError(f"no crossing from ({ends[0, 0]:.2f}, {ends[0, 1]:.2f}) to ({ends[1, 0]:.2f}, {ends[1, 1]:.2f}) "
                        f"keeps the body clear of the obstacles: the widest way brings it {closest[0]:.2f} m from "
                        f"{closest[1]} (it keeps {body:.2f} m)")


def _closed_message(path, points, obstacles, character, ends, clearance):
    """Where no plan keeps clear of the obstacles but one exists without them: the obstacles in that plan's way
    (a foothold within half a foot of one, or a step's line within the clearance)."""
    near = obstacles.distance(points[path, :2])
    blocking = set(near[1][near[0] < 0.5 * character.foot_length])
    inflated = obstacles.inflated(clearance)
    a, b = points[path[:-1], :2], points[path[1:], :2]
    for k in range(len(obstacles)):  # a handful of obstacles
        if crossing(a, b, Obstacles((inflated.polygons[k],))).any():
            blocking.add(k)
    names = ", ".join(obstacles.names[k] for k in sorted(blocking))
    return (f"no crossing from ({ends[0, 0]:.2f}, {ends[0, 1]:.2f}) to ({ends[1, 0]:.2f}, {ends[1, 1]:.2f}) keeps "
            f"clear of the obstacles: {names} stand{'s' if len(blocking) == 1 else ''} in the way (the feet keep "
            f"{0.5 * character.foot_length:.2f} m from obstacles, the body {clearance:.2f} m)")


def leaps(track) -> int:
    """How many of a track's footprints are landed on from a flight (every foot off the ground: vdP97 §4.1's
    leap)."""
    order = np.argsort(track.contact, kind="stable")
    return int((np.maximum.accumulate(track.liftoff[order])[:-1] < track.contact[order][1:]).sum())


def _stance(point, heading, surface, holds: Footholds, half_width, stones=None):
    """Two feet (L, R) side by side at the point facing heading, each kept on the surface: pulled into a stone's
    usable disc, or onto the surface's nearest foothold where the side-by-side place is off it."""
    across = np.array([math.cos(heading), math.sin(heading), 0.0])  # +X of a body facing `heading` (0 = +Y)
    feet = point + np.array([-half_width, half_width])[:, None] * across
    if stones is None:
        return holds.nearest_on(surface, feet)
    centre, usable = stones.positions[surface], stones.radii[surface] - MARGIN
    offset = feet[:, :2] - centre[:2]
    length = np.linalg.norm(offset, axis=1, keepdims=True)
    feet[:, :2] = centre[:2] + offset * np.minimum(1.0, usable / np.maximum(length, 1e-12))
    feet[:, 2] = centre[2]
    return feet


def _track(path, surfaces, holds: Footholds, character: Character, start_time, stones=None):
    """The footprint track of a foothold path: the start stance (both feet down from start_time), a footprint
    per foothold after the start, alternating feet (the first step by the foot on the side the path first turns
    to), the other foot brought alongside the last; timing from the step lengths (vdP97 §4.1)."""
    travel = np.diff(path[:, :2], axis=0)
    first_heading = math.atan2(-travel[0, 0], travel[0, 1])  # 0 = toes along +Y
    last_heading = math.atan2(-travel[-1, 0], travel[-1, 1])
    half = abs(character.hip_offsets[0, 0])
    start = _stance(path[0], first_heading, surfaces[0], holds, half, stones)  # L, R
    end = _stance(path[-1], last_heading, surfaces[-1], holds, half, stones)
    turn = travel[1] if len(travel) > 1 else travel[0]
    leading = 1 if travel[0, 0] * turn[1] - travel[0, 1] * turn[0] < 0.0 else 0  # a right turn: the right foot
    steps = path[1:-1]
    # In stepping order the feet alternate: the leading foot's stance, the other's, then the steps.
    names = (leading + np.arange(len(steps) + 4)) % 2
    finishing = names[-2]
    positions = np.concatenate([start[[leading, 1 - leading]], steps, end[[finishing, 1 - finishing]]])
    ahead = np.gradient(positions[:, :2], axis=0)
    headings = np.arctan2(-ahead[:, 0], ahead[:, 1])
    headings[:2], headings[-2:] = first_heading, last_heading
    contact, liftoff = timing_for_sequence(positions, "walk", character.time_unit, character.leg_length_nominal,
                                           start_time)
    contact[1] = start_time  # standing: both feet down from the start
    track = make_track(np.array(["L", "R"])[names], positions, headings, contact, liftoff, character=character.name)
    validate(track, allowed_feet=character.feet)
    return track
