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


def test_a_track_planned_for_the_preset_pivots_on_a_rig_whose_feet_differ(solver):
    """Planned for the preset human (its pivots about a point 0.13 m ahead of the support point), solved for a
    Rigify human's feet (support to ball 0.055 m, toe tip 0.122 m): the foot turns about its own ball, the
    footprint it turns to re-placed for that (issue 28: about the preset's point, past the toe tip, the ball slid
    7 cm); the footprints around it stay where they were planned."""
    import dataclasses
    import math

    stepping, biped = solver("stepping"), solver("biped")
    human = solver("character").preset("human")
    track = stepping.step_to_stance(human, stepping.Stance.centred(human, 0.0, 0.0, 0.0),
                                    stepping.Stance.centred(human, 0.4, 0.9, math.radians(90.0)))
    rig_feet = dataclasses.replace(human, foot_length=0.11, heel_length=0.1, toe_length=0.122)
    plan = solver("stepping.steps").step_plan(track, rig_feet)
    assert len(plan.pivots) == 1 and plan.pivots[0].offset == pytest.approx(0.055)  # the rig's ball
    pivot = plan.pivots[0]
    moved = np.linalg.norm(plan.track.positions - track.take(track.time_order()).positions, axis=1)
    assert moved[pivot.after] == pytest.approx((0.13 - 0.055) * np.linalg.norm(
        [math.sin(plan.track.headings[pivot.after]) - math.sin(plan.track.headings[pivot.before]),
         math.cos(plan.track.headings[pivot.before]) - math.cos(plan.track.headings[pivot.after])]), abs=1e-6)
    assert np.delete(moved, pivot.after).max() < 1e-9
    motion = biped.solve(track, rig_feet, fps=240)
    turning = (motion.times >= pivot.start) & (motion.times < pivot.end)
    ahead = np.einsum("nij,j->ni", motion.foot_rotation[turning, pivot.foot], [0.0, 1.0, 0.0])
    ball = motion.feet[turning, pivot.foot] + 0.055 * ahead
    assert np.linalg.norm(ball[:, :2] - ball[0, :2], axis=1).max() < 0.001
