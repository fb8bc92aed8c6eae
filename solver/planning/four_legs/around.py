"""A quadruped round obstacles (issue 20, item 2).

Obstacles. The body is taken as a disc about its middle holding it from hind to fore hips, as wide as the hips,
whichever way it turns: body_radius. The path is bent round the obstacles (obstacles.bend_path) keeping
path_clearance (the body's radius, the hind and fore masses' sag inside a turn of TURN_RADIUS, and a margin for
their sway) and rounded; the feet must be off every obstacle and the solved hind and fore masses at least the
body's radius from every one.
"""

from __future__ import annotations

import math

import numpy as np

from ...character import GRAVITY, Character
from ...errors import PlanningError
from ...track import Track, validate
from ...quadruped import gait_track
from ...quadruped.ground import Polyline
from .. import obstacles as obstacles_module
from .body import body_radius, path_clearance, round_or_refuse

DISTANCE_TRIES = 3  # footprints_around's distance cut this many times for where the body comes to rest
WANDER_FROUDE = 0.25  # a wanderer's walk: a dog at 1.3 m/s


def path_around(points, obstacles, character: Character):
    """A quadruped body's path: the polyline (N, 2 or 3) bent round the obstacles (obstacles.bend_path, keeping
    path_clearance) and its corners rounded to TURN_RADIUS; points (M, 2)."""
    points = np.asarray(points, dtype=float)
    if points.shape[1] == 2:
        points = np.column_stack([points, np.zeros(len(points))])
    bent = obstacles_module.bend_path(points, obstacles, path_clearance(character)) if obstacles is not None \
        and len(obstacles) else points
    path = round_or_refuse(bent, character, "the path bent round the obstacles")
    if obstacles is not None and len(obstacles):
        distance, owner = obstacles.distance(path)
        if distance.min() < body_radius(character):
            k = int(np.argmin(distance))
            raise PlanningError(f"the path rounded comes {max(distance[k], 0):.2f} m from {obstacles.names[owner[k]]}, "
                                f"within a {character.name}'s body radius ({body_radius(character):.2f} m)")
    return path


def masses_near(track, character, obstacles):
    """(distance, obstacle name, mass name): the solved hind and fore masses' closest approach to an obstacle."""
    from ... import biped  # the solver, only where a plan is checked against obstacles
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
    track = laid_to_end(character, [gait_track.Section(gait, speed, line.length)], line, stand)
    feet = obstacles_module.feet_on_obstacles(track, obstacles, character)
    if feet is not None:
        raise PlanningError(feet)
    return track.replace(contact=track.contact + start_time, liftoff=track.liftoff + start_time)


def laid_to_end(character, sections, line, stand=True):
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
