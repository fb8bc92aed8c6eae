"""The walking attributes in the solver (solver/body/walking.py), on solved motions of the scenario tracks:
no Blender. Each attribute moves what it says, by about what it says."""

import dataclasses
import json
import os

import numpy as np
import pytest

from footprint_locomotion.solver import biped
from footprint_locomotion.solver.body import walking
from footprint_locomotion.solver.footprints import footpath, timing
from footprint_locomotion.solver.character import preset
from footprint_locomotion.solver.core.orientation import body_yaw, rotation_matrices
from footprint_locomotion.solver.stepping import Stance, step_to_stance
from footprint_locomotion.solver.terrain import terrain_from_json
from footprint_locomotion.solver.track import load_track, make_track

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def solved(name, attributes=walking.WalkingAttributes(), fps=30.0):
    """A scenario track solved for the human with the attributes the solve sees."""
    path = os.path.join(DATA, f"{name}.json")
    with open(path) as fh:
        terrain = terrain_from_json(json.load(fh).get("terrain"))
    return biped.solve(load_track(path), walking.character_with(preset("human"), attributes), terrain, fps=fps)


def straight_walk(step, step_time=0.55, n=12):
    """A straight walk of n steps of the given length and time (stance 1.2 step times: double stance)."""
    feet = ["L" if i % 2 == 0 else "R" for i in range(n)]
    positions = [(0.09 * (-1) ** (i + 1), step * i, 0.0) for i in range(n)]
    contact = step_time * np.arange(n)
    return make_track(feet, positions, np.zeros(n), contact, contact + 1.2 * step_time)


def steady(motion, margin=1.2):
    return (motion.times > motion.times[0] + margin) & (motion.times < motion.times[-1] - margin)


def test_a_walking_foot_lands_on_its_heel_toes_up_by_the_heel_strike():
    for name, attributes in walking.PRESETS.items():
        motion = solved("straight_walk", attributes)
        assert np.degrees(-motion.toe_pivot.min()) == pytest.approx(attributes.heel_strike, abs=0.5), name
    no_strike = solved("straight_walk", dataclasses.replace(walking.WalkingAttributes(), heel_strike=0.0))
    assert no_strike.toe_pivot.min() >= 0.0


def test_the_arms_swing_more_the_faster_the_walk_and_the_presets_differ():
    """Shoulder swing peak to peak grows with speed (the same step time, longer steps), and orders the
    presets as their names say."""
    def shoulder_swing(motion, attributes):
        angles = walking.upper_body(motion, attributes).shoulder["L"][steady(motion)]
        return np.degrees(np.ptp(angles))

    neutral = walking.WalkingAttributes()
    character = walking.character_with(preset("human"), neutral)
    swings = [shoulder_swing(biped.solve(straight_walk(step), character, fps=30.0), neutral)
              for step in (0.45, 0.6, 0.75)]
    assert swings[0] < swings[1] < swings[2]
    assert swings[2] == pytest.approx(neutral.arm_swing * 0.75 / 0.55 / walking.REFERENCE_SPEED, rel=0.1)
    by_preset = {name: shoulder_swing(solved("straight_walk", attributes), attributes)
                 for name, attributes in walking.PRESETS.items()}
    assert by_preset["brisk"] > by_preset["neutral"] > by_preset["tired"] > by_preset["cautious"]


def test_the_trunk_leans_into_a_climb():
    """The chest pitches forward with speed, and further up a 15 degree slope by the slope_lean fraction."""
    def lean(name, attributes):
        motion = solved(name, attributes)
        chest = walking.upper_body(motion, attributes).chest[steady(motion, 1.0)]
        return np.degrees(np.arcsin(chest[:, 2, 1])).mean()  # +: the chest's forward axis points down

    neutral = walking.WalkingAttributes()
    flat, climb = lean("straight_walk", neutral), lean("slope15", neutral)
    upright = lean("slope15", dataclasses.replace(neutral, slope_lean=0.0))
    assert 1.0 < -flat < 5.0  # torso_lean 3 degrees at 1.3 m/s
    assert -climb > -upright + 0.3 * 15.0 * 0.8  # about slope_lean (0.4) of the 15 degrees more


def test_the_head_is_held_level_and_turns_toward_where_the_path_goes():
    """On a 90 degree turn: head_steady 1 holds the head's pitch and roll in the world still while the
    trunk's move; 0 lets it ride with the trunk. look_ahead turns it toward the path ahead of the body."""
    def head_in_world(motion, attributes):
        pose = walking.upper_body(motion, attributes)
        return rotation_matrices(motion.yaw, motion.pitch, motion.roll) @ pose.chest @ pose.head

    neutral = walking.WalkingAttributes()
    motion = solved("turn90", neutral)
    held = head_in_world(motion, dataclasses.replace(neutral, head_steady=1.0))
    riding = head_in_world(motion, dataclasses.replace(neutral, head_steady=0.0))
    pitch = lambda r: np.degrees(np.ptp(np.arcsin(np.clip(r[:, 2, 1], -1, 1))))  # noqa: E731
    assert pitch(held) < 0.1 and pitch(riding) > 2.0
    yaw = lambda r: np.arctan2(-r[:, 0, 1], r[:, 1, 1])  # noqa: E731
    path = body_yaw(motion.times, motion.track.contact, motion.track.liftoff, motion.track.headings)  # the feet's
    lead = lambda look: np.degrees(np.abs(np.angle(np.exp(1j * (yaw(head_in_world(  # noqa: E731
        motion, dataclasses.replace(neutral, look_ahead=look))) - path)))).max())
    assert lead(0.0) < 1.0 < 10.0 < lead(0.8)  # (not the pelvis's turn: the head does not yaw with it)


def test_the_arms_swing_together_on_hops_and_against_each_other_on_a_walk():
    """Issue 28: a hop swung the arms in anti-phase while both feet left together. Hopping, both arms swing
    as one (back as the feet land, forward for the take-off); walking, each against the other."""
    attributes = walking.WalkingAttributes()
    human = walking.character_with(preset("human"), attributes)
    positions, headings, feet = footpath.footprints_along_path([(0, 0, 0), (0, 8, 0)], 0.6, 0.2, together=True)
    contact, liftoff = timing.timing_for_sequence(positions, "hop", human.time_unit, human.leg_length_nominal,
                                                  group_size=2)
    for track_, sign in ((make_track(feet, positions, headings, contact, liftoff), 1.0), (straight_walk(0.7), -1.0)):
        motion = biped.solve(track_, human, fps=60.0)
        arms = walking.upper_body(motion, attributes).shoulder
        middle = steady(motion, 1.0)
        assert np.ptp(arms["L"][middle]) > np.radians(5.0)
        assert sign * np.corrcoef(arms["L"][middle], arms["R"][middle])[0, 1] > 0.95


def test_only_runs_bend_the_arms_as_a_runner_and_only_hops_swing_them_together():
    """A walk with one leap, a stepping turn from both feet standing, fig1's walk to its last frame: no running
    arms, no hopping arms (a single flight, two feet down at the start and every foot up at the end are
    neither); a run's arms are a runner's."""
    human = walking.character_with(preset("human"), walking.WalkingAttributes())
    leap = biped.solve(load_track(os.path.join(DATA, "leap.json")), human, fps=60.0)
    turn = biped.solve(step_to_stance(human, Stance.centred(human, 0.0, 0.0, 0.0),
                                      Stance.centred(human, 0.0, 2.5, np.radians(120.0))), human, fps=60.0)
    fig1 = solved("fig1", fps=60.0)
    for motion in (leap, turn):
        assert walking.running_weight(motion).max() < 0.05 and walking.hopping_weight(motion).max() < 0.05
    assert walking.running_weight(fig1)[-30:].max() < 0.05  # the walk's end is no flight
    n = 16
    run = make_track(["L", "R"] * (n // 2), [(0.09 * (-1) ** (i + 1), 1.225 * i, 0.0) for i in range(n)], np.zeros(n),
                     0.35 * np.arange(n), 0.35 * np.arange(n) + 0.25)
    assert walking.running_weight(biped.solve(run, human, fps=60.0))[60:-60].min() > 0.95


def test_a_foot_never_put_down_bends_no_toes():
    human = preset("human")
    hopping = make_track(["L"] * 6, [(0.0, 0.5 * i, 0.0) for i in range(6)], np.zeros(6), 0.6 * np.arange(6),
                         0.6 * np.arange(6) + 0.35)
    bends = walking.toe_bends(biped.solve(hopping, human, fps=30.0))
    assert np.isfinite(bends).all() and (bends[:, 1] == 0.0).all() and bends[:, 0].max() > 0.0


def test_rate_limited_ramps_a_jump_and_leaves_what_is_within_the_rate():
    times = np.arange(300) / 60.0
    jump = np.where(times > 2.0, np.radians(167.0), 0.0)  # the head's old snap after a 120 degree step turn
    ramp = walking.rate_limited(jump, times, np.radians(150.0))
    assert np.degrees(np.abs(np.diff(ramp))).max() == pytest.approx(2.5)  # 150 degrees a second at 60 fps
    assert ramp[0] == 0.0 and ramp[-1] == pytest.approx(jump[-1])
    assert np.abs(ramp - jump).max() == pytest.approx(np.radians(167.0) / 2, rel=0.02)  # centred on the jump
    slow = 0.4 * np.sin(times)  # 0.4 rad/s at most
    assert np.abs(walking.rate_limited(slow, times, 1.0) - slow).max() < 1e-12


def test_the_head_stays_still_on_a_straight_walk_and_turns_within_reach_of_the_chest():
    """A straight walk: the head's yaw in the world still (the pelvis and chest turn under it). A 120 degree turn
    stepped on the spot: the head at most HEAD_TURN from the chest and never faster than HEAD_RATE."""
    def head_and_trunk(motion):
        pose = walking.upper_body(motion, walking.WalkingAttributes())
        trunk = rotation_matrices(motion.yaw, motion.pitch, motion.roll) @ pose.chest
        return trunk @ pose.head, trunk

    def yaw(r):
        return np.unwrap(np.arctan2(-r[:, 0, 1], r[:, 1, 1]))

    motion = solved("straight_walk", fps=60.0)
    head, trunk = head_and_trunk(motion)
    middle = steady(motion)
    assert np.degrees(np.ptp(yaw(head)[middle])) < 0.5 < 4.0 < np.degrees(np.ptp(yaw(trunk)[middle]))
    human = walking.character_with(preset("human"), walking.WalkingAttributes())
    stepping = step_to_stance(human, Stance.centred(human, 0.0, 0.0, 0.0),
                              Stance.centred(human, -1.25, 2.17, np.radians(120.0)))  # as `step --to -1.25 2.17 120`
    motion = biped.solve(stepping, human, fps=60.0)
    head, trunk = head_and_trunk(motion)
    assert np.degrees(np.ptp(yaw(head))) > 100.0  # it turns with the body
    assert np.degrees(np.abs(yaw(head) - yaw(trunk))).max() <= np.degrees(walking.HEAD_TURN) + 1e-6
    assert np.degrees(np.abs(np.diff(yaw(head)))).max() * 60.0 <= np.degrees(walking.HEAD_RATE) * (1 + 1e-4)
    about = step_to_stance(human, Stance.centred(human, 0.0, 0.0, 0.0), Stance.centred(human, 0.0, 0.0, np.radians(179.0)))
    head, _trunk = head_and_trunk(biped.solve(about, human, fps=60.0))  # the trunk turns faster than the head may
    assert np.degrees(np.abs(np.diff(yaw(head)))).max() * 60.0 <= np.degrees(walking.HEAD_RATE) * (1 + 1e-4)


def test_the_toes_bend_with_the_heel_off_and_straighten_after_lift_off():
    motion = solved("straight_walk")
    bends = walking.toe_bends(motion)
    stance = motion.contact
    assert np.allclose(bends[stance], np.maximum(motion.toe_pivot[stance], 0.0))
    assert bends.max() > np.radians(10.0)
    # A quarter of a second after each lift-off (release 0.2 s) the toes are straight again.
    checked = 0
    for leg in range(2):
        rows = np.flatnonzero(~stance[:, leg])
        for start in rows[np.concatenate([[True], np.diff(rows) > 1])]:
            after = start + np.searchsorted(motion.times[start:], motion.times[start] + 0.25)
            if after < len(motion.times) and not stance[after, leg]:
                assert bends[after, leg] == pytest.approx(0.0, abs=1e-12)
                checked += 1
    assert checked >= 8
