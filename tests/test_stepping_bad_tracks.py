"""Stepping tracks written by hand or edited in Blender are checked as the planner checks its own: a step with no
time to swing (a footprint taking over the instant its foot's last one ends, but moved: no pivot) and a step onto
the other foot's sole are refused, naming the footprint."""

import importlib

import numpy as np
import pytest


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def stepping(solver, left_step, left_times, right_end=2.0):
    """Both feet standing at the origin, then the left foot onto left_step (x, y) over left_times (contact,
    liftoff of its first footprint... (liftoff of the first, contact of the second))."""
    lift, land = left_times
    return solver("track").make_track(["L", "R", "L"], [[-0.09, 0.0, 0.0], [0.09, 0.0, 0.0], [*left_step, 0.0]],
                                      [0.0, 0.0, 0.0], [0.0, 0.0, land], [lift, right_end, right_end],
                                      character="human", extras={"motion": "stepping"})


def test_a_good_step_solves(solver):
    motion = solver("biped").solve(stepping(solver, (-0.09, 0.4), (0.5, 1.0)))
    assert motion.report["stepping"]["steps"] == 1


def test_a_step_with_no_swing_is_named(solver):
    with pytest.raises(solver("errors").SteppingError, match=r"footprint 2 \(foot L\) lands the instant footprint 0"):
        solver("biped").solve(stepping(solver, (-0.09, 0.4), (0.5, 0.5)))


def test_a_pivot_in_place_is_not_a_step(solver):
    turned = stepping(solver, (-0.09, 0.0), (0.5, 0.5))
    headings = turned.headings.copy()
    headings[2] = np.radians(30.0)  # the ball half a foot ahead: turning about it moves the support point
    ball = 0.5 * solver("character").preset("human").foot_length
    positions = turned.positions.copy()
    positions[2, :2] = [-0.09, ball] - ball * np.array([-np.sin(headings[2]), np.cos(headings[2])])
    motion = solver("biped").solve(turned.replace(headings=headings, positions=positions))
    assert motion.report["stepping"] == {**motion.report["stepping"], "steps": 0, "pivots": 1}


def test_a_step_onto_the_other_foot_is_named(solver):
    with pytest.raises(solver("errors").StanceError, match=r"footprint 2 \(foot L\) lands on the other foot's sole"):
        solver("biped").solve(stepping(solver, (0.05, 0.05), (0.5, 1.0)))
