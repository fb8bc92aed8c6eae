"""Footprints planned a step at a time (vdP97 §4.2, Fig. 20; Torkos §3.5): a character wandering at random in a
walled area among obstacles, or following a moving target, deciding each new footprint from where it stands.

Each step the planner looks ahead LOOK_AHEAD steps along candidate headings within MAX_TURN of its current
one and keeps those whose look-ahead stays clear of the walls and obstacles by the path clearance
(obstacles.path_clearance). A wanderer drifts its wished-for heading by a random turn each step (vdP97: "making
stochastic changes to the walking direction if it detects that the current direction will bring it too close to
an obstacle"); a follower wishes for the heading to its target and lengthens or shortens its steps to keep up.
Of the clear candidates it takes the one nearest the wish; where none is clear, the clearest. The footprint goes
a step along that heading from the body's centre line, to the side of its foot; the timing is vdP97 §4.1's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..character import Character
from ..errors import PlanningError
from ..footprints.timing import step_timing
from ..track import MAX_DISTANCE, Track, make_track, validate
from .four_legs import wander as four_legged
from .obstacles import Obstacles, foot_outline, path_clearance

LOOK_AHEAD = 3  # steps: how far ahead a candidate heading must stay clear
MAX_TURN = math.radians(30.0)  # per step: a walking human turns up to about this much a step
SHARP_TURN = math.radians(90.0)  # per step, cornered: turning on the spot
CANDIDATES = 13  # headings tried within +-MAX_TURN (or SHARP_TURN)
WANDER_TURN = math.radians(12.0)  # the wanderer's random drift of heading per step (standard deviation)
STEP_LENGTH = 0.75  # l_nom: a comfortable walking step (successive footprints), 0.65 m for the human
FOLLOW_STEP = (0.35, 1.0)  # l_nom: the follower's shortest and longest step
NO_WALLS = 4.0 * MAX_DISTANCE  # metres each way: walls past anywhere a track may be (its clearance is a distance
# to them; at 100 km a follower starting 200 km out was refused as by a wall)
FOLLOW_DISTANCE = 1.0  # metres: the follower closes to about this far behind its target


@dataclass(frozen=True)
class Area:
    """A walled, convex area (its outline (K, 2) in plan, the walls' inside faces) and the obstacles in it."""

    outline: np.ndarray
    obstacles: Obstacles = Obstacles(())

    @classmethod
    def unbounded(cls, obstacles: Obstacles = Obstacles(())) -> "Area":
        """No walls: a square NO_WALLS metres from the origin each way."""
        return cls(np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * NO_WALLS, obstacles)

    def require_room(self, start, clearance: float, character: Character):
        """PlanningError where the start (2,) is within `clearance` (the planner's path clearance) of a wall or an
        obstacle."""
        if self.clearance(start)[0] < clearance:
            raise PlanningError(f"the start ({start[0]:.2f}, {start[1]:.2f}) is within {clearance:.2f} m of a wall or "
                                f"an obstacle: a {character.name} keeps that much room")

    def feet_outside(self, track, character: Character):
        """A message naming the first footprint whose sole (obstacles.foot_outline: a paw's, a hoof's too) leaves
        the walls or stands on an obstacle, or None."""
        soles = foot_outline(track.positions, track.headings, character)  # (N, P, 2)
        clear = self.clearance(soles.reshape(-1, 2)).reshape(soles.shape[:2])
        bad = np.flatnonzero(clear.min(axis=1) < 0.0)
        if not len(bad):
            return None
        i = int(bad[0])
        p = track.positions[i]
        if not Obstacles((self.outline,)).inside(soles[i]).all():
            where = "outside the walls"
        else:
            where = f"on {self.obstacles.names[int(np.argmax(self.obstacles.inside(soles[i]).any(axis=0)))]}"
        return f"footprint {i} ({track.feet[i]} at ({p[0]:.2f}, {p[1]:.2f}), {track.contact[i]:.2f} s) stands {where}"

    def clearance(self, points):
        """(N,) how far each point (N, 2) is from the nearest wall or obstacle (negative outside or inside)."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        walls = Obstacles((self.outline,))
        inside_walls = -walls.distance(points)[0]  # the walls' polygon's inside is the free area
        if not len(self.obstacles):
            return inside_walls
        return np.minimum(inside_walls, self.obstacles.distance(points)[0])


def _direction(heading):
    """Unit directions (..., 2) of headings (0 = +Y; a quarter turn, +pi/2, faces the body's left, -X)."""
    return np.stack([-np.sin(heading), np.cos(heading)], axis=-1)


class StepPlanner:
    """Plans footprints one at a time for a biped standing at `start` (x, y) facing `heading` (radians, 0 = +Y)
    in `area`. next_footprint(wish, length) plans one; track() the track so far."""

    def __init__(self, character: Character, area: Area, start, heading: float, start_time: float = 0.0,
                 height: float = 0.0):
        if character.is_quadruped:  # wander() and follow() take it to four_legs.wander
            raise PlanningError(f"footprint-at-a-time plans are for bipeds; {character.name!r} has four legs: "
                                "four_legs.wander.BodyPathPlanner plans its body's path a stride at a time")
        self.character, self.area, self.height = character, area, height
        self.clearance = path_clearance(character)
        start = np.asarray(start, dtype=float)[:2]
        area.require_room(start, self.clearance, character)
        self.centre, self.heading = start, float(heading)
        self.half_width = abs(character.hip_offsets[0, 0])
        left = _direction(self.heading + math.pi / 2)
        self.feet, self.positions, self.headings = ["L", "R"], [start + left * self.half_width,
                                                                start - left * self.half_width], [self.heading] * 2
        self.contact, self.liftoff = [start_time, start_time], [None, None]
        self.next_foot = 0  # the left foot steps first

    def _clear_heading(self, wish, length):
        """(heading, step length): of the headings within MAX_TURN whose look-ahead keeps the clearance, the
        nearest the wish; else, cornered, a sharp turn (up to SHARP_TURN) with a half step; else the heading whose
        next step is clearest, the step shortened to keep the clearance (to nothing: a turn on the spot)."""
        for turn, stride in ((MAX_TURN, length), (SHARP_TURN, 0.5 * length)):
            headings = self.heading + np.linspace(-turn, turn, CANDIDATES)
            clear = self._look_ahead(headings, stride, LOOK_AHEAD, turning=turn == MAX_TURN).min(axis=1)
            if (clear >= self.clearance).any():
                off_wish = np.abs((headings - wish + math.pi) % (2 * math.pi) - math.pi)
                return float(headings[np.argmin(np.where(clear >= self.clearance, off_wish, np.inf))]), stride
        # Cornered: turn toward the way out, the heading all round whose look-ahead is clearest (a dead end's is
        # behind), at most a sharp turn a step, the step the longest that keeps the clearance (on the spot in a
        # corner). Turning toward where the next half step is clearest instead led into a passage too narrow to
        # take: 50 steps on the spot of a minute's wandering.
        around = self.heading + np.linspace(-math.pi, math.pi, 2 * CANDIDATES, endpoint=False)
        out = around[np.argmax(self._look_ahead(around, length, LOOK_AHEAD).min(axis=1))]
        heading = self.heading + float(np.clip((out - self.heading + math.pi) % (2 * math.pi) - math.pi,
                                               -SHARP_TURN, SHARP_TURN))
        steps = np.linspace(0.5 * length, 0.0, 6)  # the longest that keeps the clearance
        fits = np.flatnonzero(self._look_ahead(np.array([heading]), steps, 1)[:, 0, 0] >= self.clearance)
        return heading, float(steps[fits[0]] if len(fits) else 0.0)

    def _look_ahead(self, headings, stride, steps, turning=False):
        """Clearance (..., H, steps) of the centre line's points 1..steps strides on along each heading (turning:
        the heading's turn from the current one kept up each stride, an arc; a straight line would rule out a
        heading whose wall the character is turning away from already)."""
        headings = np.asarray(headings, dtype=float)
        turn = headings - self.heading if turning else np.zeros_like(headings)
        way = np.cumsum(_direction(headings[:, None] + turn[:, None] * np.arange(steps)), axis=1)  # (H, steps, 2)
        points = self.centre + np.asarray(stride, dtype=float)[..., None, None, None] * way
        return self.area.clearance(points.reshape(-1, 2)).reshape(points.shape[:-1])

    def next_footprint(self, wish: float, length: float):
        """Plan one step: its heading the clear candidate nearest `wish` (radians), `length` metres on. Returns
        (foot, position (3,), heading, contact time)."""
        heading, length = self._clear_heading(wish, length)
        self.heading = heading
        self.centre = self.centre + length * _direction(self.heading)
        foot = self.next_foot
        side = 1.0 if foot == 0 else -1.0  # the left foot to the left of the centre line
        position = self.centre + side * self.half_width * _direction(self.heading + math.pi / 2)
        # vdP97 §4.1 timing from the distance to the previous footprint: it lands a step time after that one
        # and lifts a stance time after it landed; out of standing, the first foot lifts a double support
        # before the other's stance ends.
        stance, step = (float(v[0]) for v in step_timing(np.array([np.linalg.norm(position - self.positions[-1])]),
                                                              "walk", self.character.time_unit,
                                                              self.character.leg_length_nominal))
        if len(self.positions) == 2:
            self.liftoff[0] = self.contact[1] + stance - step
        self.liftoff[-1] = self.contact[-1] + stance
        self.feet.append("LR"[foot])
        self.positions.append(position)
        self.headings.append(self.heading)
        self.contact.append(self.contact[-1] + step)
        self.liftoff.append(None)
        self.next_foot = 1 - foot
        return self.feet[-1], np.array([*position, self.height]), self.heading, self.contact[-1]

    def track(self) -> Track:
        """The footprints planned so far, the last standing as long as a step's stance."""
        stance, _step = step_timing(np.array([np.linalg.norm(self.positions[-1] - self.positions[-2])]), "walk",
                                    self.character.time_unit, self.character.leg_length_nominal)
        liftoff = self.liftoff[:-1] + [self.contact[-1] + float(stance[0])]
        positions = np.column_stack([np.array(self.positions), np.full(len(self.positions), self.height)])
        track = make_track(self.feet, positions, self.headings, self.contact, liftoff,
                           character=self.character.name)
        validate(track, allowed_feet=self.character.feet)
        return track


def wander(character: Character, area: Area, start, heading: float, seconds: float, seed: int = 0,
           start_time: float = 0.0) -> Track:
    """vdP97 §4.2's random wandering: steps of STEP_LENGTH, the wished-for heading drifting by a random turn
    each step, for `seconds` from standing at `start` facing `heading`."""
    if character.is_quadruped:  # its body's path a stride at a time, the gait laid along it
        return _kept_in(area, four_legged.wander(character, area, start, heading, seconds, seed, start_time),
                        character)
    rng = np.random.default_rng(seed)
    planner = StepPlanner(character, area, start, heading, start_time)
    length = STEP_LENGTH * character.leg_length_nominal
    while planner.contact[-1] < start_time + seconds:  # a step at a time, as the character would decide
        planner.next_footprint(planner.heading + rng.normal(0.0, WANDER_TURN), length)
    return _kept_in(area, planner.track(), character)


def _kept_in(area: Area, track: Track, character: Character) -> Track:
    """The track, once every sole is checked inside the walls and off the obstacles (the planners keep their
    paths the clearance from both: should one fail, PlanningError names the footprint rather than a track
    walking through a wall)."""
    outside = area.feet_outside(track, character)
    if outside is not None:
        raise PlanningError(f"{outside}: a planning fault for a {character.name} here (a larger area may do)")
    return track


def follow(character: Character, target, start, heading: float, seconds: float, area: Area | None = None,
           start_time: float = 0.0) -> Track:
    """Footprints following a moving target: target(times (N,)) -> (N, 2) positions. Each step heads for where
    the target will be when the step lands, as long as it is from FOLLOW_DISTANCE behind it (within the
    follower's shortest and longest step)."""
    area = area or Area.unbounded()
    if character.is_quadruped:  # its body's path a stride at a time, the gait laid along it
        return _kept_in(area, four_legged.follow(character, target, start, heading, seconds, area, start_time),
                        character)
    planner = StepPlanner(character, area, start, heading, start_time)
    l_nom = character.leg_length_nominal
    shortest, longest = FOLLOW_STEP[0] * l_nom, FOLLOW_STEP[1] * l_nom
    _stance, step = step_timing(np.array([longest]), "walk", character.time_unit, l_nom)
    while planner.contact[-1] < start_time + seconds:
        goal = np.asarray(target(np.array([planner.contact[-1] + float(step[0])])), dtype=float).reshape(2)
        offset = goal - planner.centre
        wish = math.atan2(-offset[0], offset[1])
        planner.next_footprint(wish, float(np.clip(np.hypot(*offset) - FOLLOW_DISTANCE, shortest, longest)))
    return _kept_in(area, planner.track(), character)
