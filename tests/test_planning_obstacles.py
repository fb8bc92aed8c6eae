"""Obstacles (issue 20, item 2): footprints along a path, and the stepping-stone planner, keep the feet off
obstacles (walls, posts, furniture) and the solved COM at least the body's radius from them, the path bent
around them rather than through; a way the obstacles close, and a start inside one, are named."""

import importlib
import math

import numpy as np
import pytest


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def box(x, y, width, depth, turn=0.0):
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, depth / 2]
    c, s = np.cos(turn), np.sin(turn)
    return corners @ np.array([[c, s], [-s, c]]) + [x, y]


def room(seed):
    """A 14 m straight path through a wall, a post and a table, each placed at random across it."""
    rng = np.random.default_rng(seed)
    return [box(rng.uniform(-0.6, 0.6), 3.0, rng.uniform(1.2, 2.4), 0.2, rng.uniform(-0.3, 0.3)),  # a wall
            box(rng.uniform(-0.2, 0.2), 6.5, 0.25, 0.25),  # a post
            box(rng.uniform(-0.4, 0.4), 10.0, 1.6, 0.8, rng.uniform(-0.5, 0.5))]  # a table


@pytest.mark.parametrize("seed", range(3))
def test_footprints_and_com_keep_clear_of_obstacles(solver, seed):
    obstacles_module, character = solver("planning.obstacles"), solver("character").preset("human")
    obstacles = obstacles_module.Obstacles(tuple(room(seed)), ("wall", "post", "table"))
    path = np.array([[0.0, 0.0, 0.0], [0.0, 14.0, 0.0]])
    track = obstacles_module.footprints_around(path, obstacles, character, 0.6, 0.18)
    # No footprint's sole on an obstacle's outline on the ground.
    soles = obstacles_module.foot_outline(track.positions, track.headings, character).reshape(-1, 2)
    assert not obstacles.inside(soles).any()
    # The path was bent: footprints leave the straight line by more than a step width near each obstacle...
    for y in (3.0, 6.5, 10.0):
        near = np.abs(track.positions[:, 1] - y) < 0.8
        assert np.abs(track.positions[near, 0]).max() > 0.4, y
    # ...and the solved COM keeps at least the body's radius from every obstacle, every frame.
    motion = solver("biped").solve(track)
    distance, _owner = obstacles.distance(motion.com[:, :2])
    assert distance.min() >= obstacles_module.body_radius(character), distance.min()
    assert motion.report["non_physical_force"]["mean"] < 0.05
    # It still arrives: the last footprints by the path's end.
    assert np.linalg.norm(track.positions[-1, :2] - [0.0, 14.0]) < 0.7


def test_a_clear_path_is_left_alone(solver):
    obstacles_module, character = solver("planning.obstacles"), solver("character").preset("human")
    obstacles = obstacles_module.Obstacles((box(3.0, 5.0, 1.0, 1.0),))
    path = np.array([[0.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 10.0, 0.0]])
    assert np.array_equal(obstacles_module.bend_path(path, obstacles, 0.4), path)


def test_distance_is_signed(solver):
    obstacles = solver("planning.obstacles").Obstacles((box(0.0, 0.0, 2.0, 2.0),))
    distance, owner = obstacles.distance(np.array([[0.0, 0.0], [3.0, 0.0], [1.5, 1.5]]))
    assert distance == pytest.approx([-1.0, 2.0, np.sqrt(0.5)]) and (owner == 0).all()


def test_a_closed_way_and_a_start_inside_are_named(solver):
    obstacles_module, errors = solver("planning.obstacles"), solver("errors")
    character = solver("character").preset("human")
    room = obstacles_module.Obstacles((box(-1.5, 1.5, 0.2, 7.2), box(1.5, 1.5, 0.2, 7.2), box(0.0, 5.0, 3.2, 0.2),
                                       box(0.0, -2.0, 3.2, 0.2)), ("left wall", "right wall", "shut door", "back wall"))
    with pytest.raises(errors.PlanningError, match="they close it"):
        obstacles_module.footprints_around(np.array([[0, 0, 0], [0, 10, 0]], float), room, character, 0.6, 0.18)
    post = obstacles_module.Obstacles((box(0.0, 0.0, 0.3, 0.3),), ("lamp post",))
    with pytest.raises(errors.PlanningError, match="path's start is 0.00 m from lamp post"):
        obstacles_module.footprints_around(np.array([[0, 0, 0], [0, 10, 0]], float), post, character, 0.6, 0.18)


def test_stone_plans_keep_off_obstacles(solver):
    """A post on the bank, right on the straight line to the first stone: the plan steps around it."""
    stones_module, obstacles_module = solver("planning.stones"), solver("planning.obstacles")
    character = solver("character").preset("human")
    stones = solver("planning.footholds").Stones(np.array([[0, 0, 0], [0, 2.2, 0], [0, 3.0, 0], [0, 4.2, 0]], float),
                                  np.array([1.2, 0.3, 0.3, 0.6]))
    post = obstacles_module.Obstacles((box(0.0, 0.9, 0.2, 0.2),), ("post",))
    track = stones_module.plan_crossing(stones, (0.0, -0.6), (0.0, 4.2), character, obstacles=post)
    order = np.argsort(track.contact, kind="stable")
    where = track.positions[order, :2]
    assert obstacles_module.Obstacles.distance(post, where)[0].min() >= 0.5 * character.foot_length
    segments = obstacles_module.crossing(where[:-1], where[1:], post.inflated(obstacles_module.body_radius(character)))
    assert not segments.any()
    motion = solver("biped").solve(track)
    assert post.distance(motion.com[:, :2])[0].min() >= obstacles_module.body_radius(character)
    unobstructed = stones_module.plan_crossing(stones, (0.0, -0.6), (0.0, 4.2), character)
    assert obstacles_module.crossing(unobstructed.positions[:-1, :2], unobstructed.positions[1:, :2],
                                     post.inflated(obstacles_module.body_radius(character))).any()


def test_stone_plans_widen_their_step_lines_until_the_body_keeps_clear(solver):
    """A post by the start on a bank of grid footholds (as the add-on samples a mesh): step lines at only the
    body's radius from it let the solved COM pass 0.23 m from it (a radius of 0.26 m); the plan widens its
    lines until the COM keeps the radius."""
    stones_module, obstacles_module = solver("planning.stones"), solver("planning.obstacles")
    character = solver("character").preset("human")
    angle = np.linspace(0.0, 2 * math.pi, 32, endpoint=False)
    post = obstacles_module.Obstacles((np.column_stack([0.08 * np.cos(angle), 0.5 + 0.08 * np.sin(angle)]),), ("post",))
    centres = np.array([[0, 0, 0], [0.1, 1.3, 0.05], [-0.1, 2.3, 0], [0.2, 3.9, 0.1], [0, 5.2, 0]], float)
    radii = np.array([1.26, 0.3, 0.3, 0.3, 0.6])
    points, owners = [], []
    for k, (centre, radius) in enumerate(zip(centres, radii)):  # a grid 0.12 m apart inside each disc
        x, y = np.meshgrid(*(np.arange(-radius, radius + 1e-9, 0.12),) * 2)
        inside = np.hypot(x, y) <= radius - 0.12
        points.append(np.column_stack([x[inside] + centre[0], y[inside] + centre[1], np.full(inside.sum(), centre[2])]))
        owners.append(np.full(inside.sum(), k))
    holds = solver("planning.footholds").Footholds(np.concatenate(points), np.concatenate(owners),
                                    tuple(f"stone {k}" for k in range(len(radii))), 0.12)
    track = stones_module.plan_crossing(holds, (0.0, 0.0), (0.0, 5.2), character, obstacles=post)
    com = solver("biped").solve(track).com[:, :2]
    assert post.distance(com)[0].min() >= obstacles_module.body_radius(character)
