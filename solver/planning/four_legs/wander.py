"""A quadruped wandering and following (issue 20, item 3).

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

import numpy as np

from ...character import GRAVITY, Character
from ...errors import PlanningError
from ...track import Track
from ...quadruped import gait_track, gaits
from ...quadruped.ground import Polyline
from .around import WANDER_FROUDE, laid_to_end
from .body import ARC_SAMPLE, TURN_RADIUS, path_clearance

MAX_TURN = math.radians(60.0)  # per stride: the wanderer's and follower's sharpest turn (and no tighter than
# TURN_RADIUS)
TURNS = 13  # candidate turns within +-MAX_TURN each stride
LOOK_AHEAD = 3  # strides: a turn's look-ahead at least (its arc kept up)
WANDER_TURN = math.radians(15.0)  # the wanderer's random drift of its wished-for heading per stride (s.d.)
FOLLOW_DISTANCE = 1.0  # metres: the follower closes to about this far behind its target
FOLLOW_GAIN = 1.0  # per second: the follower's speed over its target's is this times how far it is off that
FOLLOW_SPEEDS = (0.05, 1.5)  # Froude numbers: the follower's slowest and fastest (a dog's 0.2 to 2.6 m/s)
SPEED_STEP = 0.1  # m/s: the follower's speeds are rounded to this (strides of one speed make one section)
SPEED_CHANGE = 0.4  # m/s: the follower's speed changes by at most this a stride
FOLLOW_STAND = (False, True)  # the follower sets off at its gait (stands at the end): a standing start holds
# it a stride period and ramps up over another while the target walks on (a dog 1 m behind a target at 1 m/s
# fell 2.1 m behind)


class BodyPathPlanner:
    """The body's path decided a stride at a time (the module's docstring): standing at `start` facing `heading`
    (radians, 0 = +Y) in `area` (wander.Area). next_stride(wish, length) decides one."""

    def __init__(self, character: Character, area, start, heading: float):
        if not character.is_quadruped:
            raise PlanningError(f"body-path plans are for quadrupeds; {character.name!r} has two legs")
        self.character, self.area = character, area
        self.clearance = path_clearance(character)
        start = np.asarray(start, dtype=float)[:2]
        area.require_room(start, self.clearance, character)
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
        wish (a heading, radians); else the safe one nearest it. Where no turn within MAX_TURN is safe (a room
        too small for its circles), the same among turns as tight as TURN_RADIUS; where none of those is either,
        PlanningError: the area leaves the animal no room to turn. Returns the stride's end."""
        for most in (min(MAX_TURN, length / self.least_radius), length / self.least_radius):
            turns, chosen = self._safest(wish, length, most)
            if chosen is not None:
                break
        else:
            raise PlanningError(f"a {self.character.name} at ({self.point[0]:.2f}, {self.point[1]:.2f}) has no room "
                                f"to turn: it turns no tighter than {self.least_radius:.2f} m and keeps "
                                f"{self.clearance:.2f} m from walls and obstacles (a larger area, or fewer obstacles)")
        arc = self._arcs(np.array([turns[chosen] / length]), length)[0]
        self.points.extend(arc)
        self.point, self.heading = arc[-1], self.heading + float(turns[chosen])
        return self.point

    def _safest(self, wish, length, most):
        """(turns (T,), the index of the turn next_stride takes among those within +-most, or None)."""
        turns = np.linspace(-most, most, TURNS)
        clearance = self.area.clearance
        arcs = self._arcs(turns / length, LOOK_AHEAD * length)  # (T, K, 2)
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
                return turns, int(np.argmin(np.where(allowed, off_wish, np.inf)))
        return turns, None

    def path(self):
        return np.array(self.points)


def _sections_track(character, sections, points, start_time, stand=True):
    line = Polyline(points)
    track = laid_to_end(character, sections, line, stand)
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
    stride = gaits.stride_length(speed, h)  # the body path decided in Alexander's strides (the walk laid along
    # it may step quicker: gaits.stride_of; the room to turn was tuned for these)
    planner = BodyPathPlanner(character, area, start, heading)
    travelled = 0.0
    while travelled < speed * seconds + stride:  # a stride at a time, as the animal would decide
        planner.next_stride(planner.heading + rng.normal(0.0, WANDER_TURN), stride)
        travelled += stride
    sections = [gait_track.Section(gait.name, speed, travelled)]
    return _sections_track(character, sections, planner.path(), start_time)


def follow(character: Character, target, start, heading: float, seconds: float, area,
           start_time: float = 0.0) -> Track:
    """A quadruped following a moving target (wander.follow's signature, the area given: wander.follow's or
    wander.Area.unbounded()): each stride heads for where the target
    will be when it ends, at a speed that closes on FOLLOW_DISTANCE behind it (the gait by Froude number:
    gaits.choose's `auto`), changing by at most SPEED_CHANGE a stride."""
    h = character.leg_length_nominal
    slowest, fastest = (math.sqrt(f * GRAVITY * h) for f in FOLLOW_SPEEDS)
    planner = BodyPathPlanner(character, area, start, heading)
    first = np.asarray(target(np.array([start_time, start_time + 1.0])), dtype=float).reshape(2, 2)
    speed = float(np.clip(np.linalg.norm(first[1] - first[0]), slowest, fastest))  # the target's, to begin with
    clock = start_time
    strides = []
    while clock < start_time + seconds:
        stride = gaits.stride_of(gaits.choose("auto", speed, character), speed, character)
        period = stride / speed
        now, later = np.asarray(target(np.array([clock, clock + period])), dtype=float).reshape(2, 2)
        target_speed = np.linalg.norm(later - now) / period
        offset = later - planner.point
        # How far behind it the body will be when the stride ends (it goes a stride toward it meanwhile).
        wanted = target_speed + FOLLOW_GAIN * (np.hypot(*offset) - stride - FOLLOW_DISTANCE)
        speed = float(np.clip(wanted, speed - SPEED_CHANGE, speed + SPEED_CHANGE))
        speed = float(np.clip(round(speed / SPEED_STEP) * SPEED_STEP, slowest, fastest))
        stride = gaits.stride_of(gaits.choose("auto", speed, character), speed, character)
        planner.next_stride(math.atan2(-offset[0], offset[1]), stride)
        strides.append((gaits.choose("auto", speed, character).name, speed))
        clock += stride / speed
    return _sections_track(character, gait_track.stride_sections(character, strides), planner.path(), start_time,
                           FOLLOW_STAND)
