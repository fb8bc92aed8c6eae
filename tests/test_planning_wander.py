"""Wander and follow (issue 20, item 3; vdP97 §4.2, Fig. 20; Torkos §3.5): footprints planned a step at a time.
A minute of wandering in a walled room with obstacles never leaves it nor comes within the body's radius of an
obstacle (the solved COM) or puts a foot on one; a follower stays within 2 m of a target at walking pace."""

import importlib
import math

import numpy as np
import pytest


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def box(x, y, width, depth):
    return np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, depth / 2] + [x, y]


@pytest.mark.parametrize("seed", range(3))
def test_a_minute_of_wandering_stays_in_the_room(solver, seed):
    wander, obstacles_module = solver("planning.wander"), solver("planning.obstacles")
    character = solver("character").preset("human")
    obstacles = obstacles_module.Obstacles((box(1.0, 0.5, 0.8, 0.8), box(-1.5, -1.0, 0.3, 1.5), box(-0.5, 1.5, 0.3, 0.3)),
                                           ("table", "screen", "post"))
    area = wander.Area(box(0.0, 0.0, 6.0, 5.0), obstacles)
    track = wander.wander(character, area, (0.0, -1.8), 0.0, 60.0, seed=seed)
    # A step at a time until the minute is up: the last lands within one step time of it, no later.
    step_time = np.diff(np.sort(track.contact))[2:].max()
    assert 60.0 <= track.contact.max() < 60.0 + step_time + 1e-9
    # Each step turns at most a sharp turn; in the open a comfortable step (STEP_LENGTH l_nom) most of the time.
    turn = np.abs((np.diff(track.headings) + math.pi) % (2 * math.pi) - math.pi)
    assert turn.max() <= wander.SHARP_TURN + 1e-9
    step = np.linalg.norm(np.diff(track.positions[:, :2], axis=0), axis=1)[2:]
    straight = math.hypot(wander.STEP_LENGTH * character.leg_length_nominal, 2 * abs(character.hip_offsets[0, 0]))
    assert np.median(step) == pytest.approx(straight, rel=0.05)
    soles = obstacles_module.foot_outline(track.positions, track.headings, character).reshape(-1, 2)
    assert area.clearance(soles).min() > 0.0  # every foot inside the walls, off every obstacle
    motion = solver("biped").solve(track)
    assert area.clearance(motion.com[:, :2]).min() >= obstacles_module.body_radius(character)
    assert motion.report["non_physical_force"]["mean"] < 0.05
    legs = motion.report["leg_length"]
    assert all(legs[f]["max"] <= legs[f]["max_allowed"] + 1e-3 for f in "LR")
    # It wanders: it goes round the room, not back and forth on one line.
    assert np.ptp(track.positions[:, 0]) > 2.5 and np.ptp(track.positions[:, 1]) > 2.0
    # Different seeds, different walks.
    other = wander.wander(character, area, (0.0, -1.8), 0.0, 60.0, seed=seed + 10)
    assert not np.allclose(other.positions[:20], track.positions[:20])


def test_the_follower_keeps_within_two_metres(solver):
    wander = solver("planning.wander")
    character = solver("character").preset("human")
    speed, radius = 1.3, 4.0  # walking pace round a circle

    def target(times):
        angle = speed * np.asarray(times) / radius
        return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)

    track = wander.follow(character, target, (radius, -1.0), 0.0, 40.0)
    motion = solver("biped").solve(track)
    distance = np.linalg.norm(motion.com[:, :2] - target(motion.times), axis=1)
    assert distance.max() <= 2.0, distance.max()
    assert motion.report["non_physical_force"]["mean"] < 0.05
    # It keeps up rather than cutting across the circle: its mean speed is the target's.
    travelled = np.linalg.norm(np.diff(motion.com[:, :2], axis=0), axis=1).sum() / np.ptp(motion.times)
    assert travelled == pytest.approx(speed, rel=0.15)


def test_a_start_by_a_wall_is_named(solver):
    wander, errors = solver("planning.wander"), solver("errors")
    area = wander.Area(box(0.0, 0.0, 6.0, 5.0))
    with pytest.raises(errors.PlanningError, match=r"the start \(2.95, 0.00\) is within"):
        wander.wander(solver("character").preset("human"), area, (2.95, 0.0), 0.0, 10.0)


def test_a_sole_off_the_area_or_on_an_obstacle_is_named(solver):
    """The planners' last check (wander and follow, bipeds and quadrupeds): a footprint whose sole leaves the
    walls or stands on an obstacle is named."""
    wander, obstacles = solver("planning.wander"), solver("planning.obstacles")
    human = solver("character").preset("human")
    room = wander.Area(box(3.0, 2.5, 6.0, 5.0), obstacles.Obstacles((box(4.0, 1.4, 0.8, 0.8),), ("table",)))

    def track(x, y):
        return solver("track").make_track(["L", "R"], [[2.9, 2.5, 0.0], [x, y, 0.0]], [0.0, 0.0], [0.0, 0.5],
                                          [0.4, 1.0], character="human")

    assert room.feet_outside(track(3.1, 2.5), human) is None
    assert room.feet_outside(track(5.95, 2.5), human) == "footprint 1 (R at (5.95, 2.50), 0.50 s) stands outside the walls"
    assert room.feet_outside(track(4.0, 1.4), human) == "footprint 1 (R at (4.00, 1.40), 0.50 s) stands on table"


def test_a_follower_far_from_the_origin_meets_no_walls(solver):
    """Without an area there are no walls, even 200 km out (tracks may lie up to 1000 km from the origin)."""
    wander = solver("planning.wander")
    human = solver("character").preset("human")
    track = wander.follow(human, lambda t: np.stack([200_000.0 + 1.3 * np.asarray(t), np.zeros_like(t)], axis=-1),
                          (200_000.0, -1.0), 0.0, 10.0)
    assert track.positions[-1, 0] > 200_000.0 + 8.0  # it kept up along +X
