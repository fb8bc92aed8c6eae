"""The biped COM solver (vdP97 §2, Torkos §4.3-4.7): physics, comfort, optimiser, determinism, errors."""

import dataclasses
import glob
import json
import math
import os

import numpy as np
import pytest

from footprint_locomotion.solver import biped, character, errors
from footprint_locomotion.solver import motion as motion_module
from footprint_locomotion.solver.body import legs, transforms
from footprint_locomotion.solver.character import GRAVITY
from footprint_locomotion.solver.core import blocktridiag, optimize, orientation, physics
from footprint_locomotion.solver.core import problem as problem_module
from footprint_locomotion.solver.core.problem import Problem, Window, clear_timing_cache
from footprint_locomotion.solver.core import schedule as schedule_module
from footprint_locomotion.solver.core.schedule import build_schedule
from footprint_locomotion.solver.footprints import footpath, timing
from footprint_locomotion.solver.motion import support_points
from footprint_locomotion.solver import terrain as terrain_module
from footprint_locomotion.solver.terrain import FlatTerrain
from footprint_locomotion.solver.track import load_track, make_track, parse_track_text
from solver_checks import assert_derivatives_match, dense_normal_equations

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SCENARIOS = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(DATA, "*.json")))
WALKS = ["fig1", "straight_walk", "turn90", "stairs", "slope15", "bird_walk", "dinosaur_walk"]
WITH_FLIGHT = ["fig1", "leap", "bumpy_run"]


def track(name):
    return load_track(os.path.join(DATA, f"{name}.json"))


@pytest.fixture(scope="module")
def motions():
    return {name: biped.solve(track(name), fps=120.0) for name in SCENARIOS}


def test_scenarios_are_the_issue_list():
    assert set(WALKS + WITH_FLIGHT) <= set(SCENARIOS)
    assert len(track("fig1")) == 12
    stairs = track("stairs")
    assert np.ptp(stairs.positions[:, 2]) >= 0.8  # up and down a flight of stairs
    slope = track("slope15")
    rise = np.polyfit(slope.positions[:, 1], slope.positions[:, 2], 1)[0]
    assert np.degrees(np.arctan(rise)) == pytest.approx(15.0, abs=0.1)


@pytest.mark.parametrize("name", WITH_FLIGHT)
def test_flight_phases_are_ballistic(motions, name):
    motion = motions[name]
    report = motion.report["flight"]
    assert report["samples"] > 0
    assert report["vertical_acceleration_error"] <= 0.02
    assert report["horizontal_acceleration"] <= 0.02
    # Independently: finite differences of the sampled COM inside each flight.
    sched = Problem([(track(name),) + biped.resolve(track(name))]).parts[0].schedule
    dt = 1.0 / motion.fps
    acc = (motion.com[2:] - 2 * motion.com[1:-1] + motion.com[:-2]) / dt**2
    t = motion.times[1:-1]
    for start, end in sched.flight_intervals:
        inside = (t > start + dt) & (t < end - dt)
        assert inside.any()
        assert np.abs(acc[inside, 2] + GRAVITY).max() <= 0.02 * GRAVITY
        assert np.abs(acc[inside, :2]).max() <= 0.02 * GRAVITY


@pytest.mark.parametrize("name", WALKS)
def test_walking_is_physical_comfortable_and_feet_stay_put(motions, name):
    motion = motions[name]
    report = motion.report
    assert report["non_physical_force"]["mean"] <= 0.05
    ch = motion.character
    support = support_points(motion)
    lengths = np.linalg.norm(motion.hips - support, axis=-1)[motion.contact]
    assert lengths.max() <= ch.leg_length_max + 1e-9
    for foot in ch.feet:
        assert report["leg_length"][foot]["max"] <= ch.leg_length_max
        assert report["leg_length"][foot]["swing_max"] <= ch.leg_length_max + 1e-9  # no leg over-extends
    assert report["com_clearance"]["min"] >= report["com_clearance"]["required"]
    assert report["stance_slip"] <= 1e-9
    # The report against the motion itself: non-physical force from the COM acceleration and the cone of
    # the stance legs, leg lengths in stance and swing, the COM's height over the footprints it stands on.
    to_com = motion.com[:, None, :] - support
    residual = physics.nonphysical_force(physics.required_force(motion.com_acceleration),
                                         to_com / np.linalg.norm(to_com, axis=-1, keepdims=True), motion.contact)
    fraction = np.linalg.norm(residual, axis=1) / GRAVITY
    assert fraction.mean() <= 0.05
    assert report["non_physical_force"]["mean"] == pytest.approx(fraction.mean(), rel=1e-9)
    assert report["non_physical_force"]["peak"] == pytest.approx(fraction.max(), rel=1e-9)
    all_lengths = np.linalg.norm(motion.hips - support, axis=-1)
    reach = np.linalg.norm(motion.hips - motion.feet, axis=-1)
    for leg, foot in enumerate(ch.feet):
        stance = motion.contact[:, leg]
        assert report["leg_length"][foot]["min"] == pytest.approx(all_lengths[stance, leg].min())
        assert report["leg_length"][foot]["max"] == pytest.approx(all_lengths[stance, leg].max())
        assert report["leg_length"][foot]["swing_max"] == pytest.approx(reach[~stance, leg].max())
    _character, terrain = biped.resolve(track(name))
    if terrain is not None:  # the COM's height over the terrain under it
        clearance = motion.com[:, 2] - terrain.heights(motion.com[:, :2])
        assert report["com_clearance"]["min"] == pytest.approx(clearance.min())
    # Stance feet do not move while flat, and toes do not move at all (independent check).
    tr = track(name)
    tr = tr.take(tr.time_order())
    for leg in range(len(ch.feet)):
        on = motion.contact[:, leg]
        fp = motion.footprint[on, leg]
        flat = motion.toe_pivot[on, leg] == 0.0
        assert np.abs(motion.feet[on, leg][flat] - tr.positions[fp][flat]).max() <= 1e-9


def test_a_trailing_leg_stays_within_reach_until_its_lift_off():
    """A walk's trailing foot lifts off between the samples of the energy's integral (no knot there), where
    its leg is longest: held within l_max at those samples alone, on this turning walk of long strides (1.12
    l_nom) it reached 9.6 mm past l_max just before lifting off. Each lift-off inside a segment has a sample
    of its own, at its very time, where the barrier holds the leg leaving and nothing else weighs."""
    ch = character.preset("human")
    l_nom = ch.leg_length_nominal
    turns = np.array([-0.35, -0.07, -0.42, -0.55])
    path = np.cumsum(np.stack([np.cos(turns), np.sin(turns), 0 * turns], 1) * 2.8 * l_nom, axis=0)
    pos, head, feet = footpath.footprints_along_path(np.vstack([np.zeros(3), path]), 1.12 * l_nom, 0.25 * l_nom)
    contact, liftoff = timing.timing_for_sequence(pos, "walk", ch.time_unit, l_nom)
    walk = make_track(feet, pos, head, contact, liftoff)
    problem = Problem([(walk, ch, None)])
    sched = problem.parts[0].schedule
    lift = sched.track.liftoff
    between = np.flatnonzero(~np.isin(lift, sched.knot_times))
    assert problem.slots == 1 and len(between) >= 4
    used = ~problem.regular & problem.reaching.any(axis=0)  # the lift-off samples (a slot per segment)
    assert np.array_equal(np.sort(problem.times[used]), np.sort(lift[between]))
    assert not problem.active[:, ~problem.regular].any() and problem.reaching[:, used].sum() == len(between)
    barrier = slice(3 + problem.legs, 3 + 2 * problem.legs)  # their barrier rows weigh, nothing else
    weighs = problem.root_weight[:, ~problem.regular] > 0
    assert np.array_equal(weighs[barrier].any(axis=0), used[~problem.regular]) and weighs.sum() == 2 * used.sum()
    assert np.all(problem.limit[:, used] == ch.leg_length_max - problem_module.Weights().liftoff_margin)
    motion = biped.solve(walk, character=ch, fps=240.0)
    assert motion_module.report_warnings(motion.report) == []
    lengths = np.linalg.norm(motion.hips - support_points(motion), axis=-1)[motion.contact]
    assert lengths.max() <= ch.leg_length_max
    assert motion.report["non_physical_force"]["mean"] <= 0.03
    # With the samples' whole margin there, a straight walk of such strides took 23 iterations, not 12.
    pos, head, feet = footpath.footprints_along_path([(0, 0, 0), (0, 59 * 1.05 * l_nom, 0)], 1.05 * l_nom, 0.2)
    contact, liftoff = timing.timing_for_sequence(pos, "walk", ch.time_unit, l_nom)
    straight = Problem([(make_track(feet, pos, head, contact, liftoff), ch, None)])
    assert optimize.levenberg_marquardt(straight).iterations <= 15


def test_heel_lifts_only_when_the_leg_would_overextend(motions):
    motion = motions["straight_walk"]
    lifted = motion.toe_pivot > 0.0
    assert lifted.any()  # push-off happens on the toes
    hips_to_mid = np.linalg.norm(motion.hips - motion.feet, axis=-1)
    assert (hips_to_mid[lifted] <= motion.character.leg_length_max + 1e-9).all()


def test_stance_feet_lie_flush_with_the_slope(motions):
    """vdP97 §2.5: a stance foot rests on its footprint tilted with the terrain (15 degrees here); when the
    heel lifts it turns about the foot's own sideways axis, toe still on the footprint."""
    motion = motions["slope15"]
    _character, terrain = biped.resolve(track("slope15"))
    tilt = np.radians(15.0)
    normal = np.array([0.0, -np.sin(tilt), np.cos(tilt)])  # the ground rises along +Y
    tr = track("slope15")
    tr = tr.take(tr.time_order())
    flat = motion.contact & (motion.toe_pivot == 0.0)
    heel_up = motion.contact & (motion.toe_pivot > 0.0)
    assert flat.sum() > 100 and heel_up.any()
    rotation = motion.foot_rotation
    assert np.allclose(rotation[flat][:, :, 2], normal, atol=1e-6)  # sole normal = ground normal
    on_ground = motion.feet[flat]
    assert np.allclose(on_ground[:, 2], terrain.heights(on_ground[:, :2]), atol=1e-6)
    assert np.allclose(on_ground, tr.positions[motion.footprint[flat]], atol=1e-12)  # on its footprint
    toes = rotation[flat][:, :, 1]
    heading = tr.headings[motion.footprint[flat]]
    assert np.allclose(np.arctan2(-toes[:, 0], toes[:, 1]), heading, atol=1e-6)  # toes along the heading
    # Heel up: the sideways axis stays that of the flush foot, the toe stays where the flush toe was.
    flush = legs.flush_rotations(tr.headings, legs.terrain_normals(terrain, tr.positions[:, :2]))
    index = motion.footprint[heel_up]
    assert np.allclose(rotation[heel_up][:, :, 0], flush[index][:, :, 0], atol=1e-9)
    half = 0.5 * motion.character.foot_length
    toe = motion.feet[heel_up] + half * rotation[heel_up][:, :, 1]
    assert np.allclose(toe, tr.positions[index] + half * flush[index][:, :, 1], atol=1e-9)


@pytest.mark.parametrize("name", WALKS)
def test_the_com_keeps_its_pace_at_the_track_ends(motions, name):
    """A track is a stretch of a longer walk: at its first and last instants the COM moves on along the
    footprints at about the height it walks at, never falling back (the steady-ends term)."""
    motion = motions[name]
    tr = track(name)
    height = motion.com[:, 2] - motion.feet[:, :, 2].min(axis=1)  # above the lower foot
    for end, footprint in ((0, np.argmin(tr.contact)), (-1, np.argmax(tr.liftoff))):
        heading = tr.headings[footprint]
        forward = np.array([-np.sin(heading), np.cos(heading), 0.0])
        assert motion.com_velocity[end] @ forward > 0.2 * np.abs(motion.com_velocity @ forward).mean()
        assert height[end] > 0.9 * np.median(height)
        assert abs(motion.com_velocity[end, 2]) < 0.5 * np.linalg.norm(motion.com_velocity[end, :2])


def test_a_run_starts_and_ends_at_its_stride_s_pace(motions):
    """Across a flight the steady ends compare like with like: the first contact lands as the next
    landings do (downwards; tied to the take-off it rose at 0.84 m/s), the last lift-off rises as the
    take-offs do."""
    motion, tr = motions["bumpy_run"], track("bumpy_run")
    vertical = np.interp(np.unique(tr.contact), motion.times, motion.com_velocity[:, 2])
    assert vertical[0] < 0.0 and (vertical[1:] < 0.0).all()
    assert vertical[1:].min() <= vertical[0] <= vertical[1:].max()
    assert motion.com_velocity[-1, 2] > 0.0


@pytest.mark.parametrize("name", ["leap", "bumpy_run"])
def test_legs_retract_in_flight(motions, name):
    """vdP97 §2.5: in a flight phase the legs draw in towards the hips, most in mid-flight, smoothly."""
    motion = motions[name]
    schedule = build_schedule(track(name), motion.character)
    target = legs.RETRACTED_LENGTH * motion.character.leg_length_nominal
    middles = schedule.flight_intervals.mean(axis=1)
    assert len(middles) >= 1
    apex = biped.solve(track(name), times=middles)
    assert not apex.contact.any()
    assert (np.linalg.norm(apex.feet - apex.hips, axis=-1) <= target + 1e-9).all()  # drawn in fully
    # Reaching for a landing spot still out of reach, the foot stays within the leg's reach.
    for start, end in schedule.flight_intervals:
        inside = (motion.times > start) & (motion.times < end)
        length = np.linalg.norm(motion.feet[inside] - motion.hips[inside], axis=-1)
        assert length.max() <= motion.character.leg_length_max + 1e-9
    # And smoothly: no foot jumps at a flight's start or end (per frame at 120 fps, well under a swing's pace).
    step = np.linalg.norm(np.diff(motion.feet, axis=0), axis=-1)
    assert step.max() < 0.12


def test_a_leg_never_put_down_is_carried_under_its_hip():
    """Hopping on the left leg alone (vdP97 §2.5's special case): the right foot is held behind and below
    its hip with the knee bent, facing the body's way, all along, never on the ground."""
    n = 6
    contact = 0.55 * np.arange(n)
    liftoff = contact + 0.35
    hop = make_track(["L"] * n, [(0.1, 0.45 * i, 0.0) for i in range(n)], np.radians(10.0) * np.arange(n),
                     contact, liftoff)
    motion = biped.solve(hop, fps=30.0)
    right = 1
    assert not motion.contact[:, right].any()
    leg = motion.feet[:, right] - motion.hips[:, right]
    l_nom = motion.character.leg_length_nominal
    assert np.allclose(np.linalg.norm(leg, axis=-1), np.linalg.norm(legs.CARRIED_FOOT) * l_nom)
    forward = motion.foot_rotation[:, right, :, 1]
    yaw = orientation.body_yaw(motion.times, hop.contact, hop.liftoff, hop.headings)
    assert np.allclose(forward, np.stack([-np.sin(yaw), np.cos(yaw), 0 * yaw], axis=1), atol=1e-12)
    assert ((leg * forward).sum(axis=1) < 0).all() and (leg[:, 2] < -0.5 * l_nom).all()  # behind, below
    assert motion.report["leg_length"]["R"]["swing_max"] < motion.character.leg_length_nominal


def test_a_two_footed_hop_converges_to_its_optimum():
    """Hopping with both feet together, a flight between every two stances: Levenberg-Marquardt converges,
    to the optimum a much tighter run finds, still hopping forward at the end. (Damping each variable by
    its current curvature, steps overshot into the l_max barrier and the damping swung: it stopped at
    its 100 iterations, energy 2.5 against 1.15, the COM running backwards at 1.2 m/s at the end.)"""
    n = 6
    contact = 0.6 * np.arange(n)
    hop = make_track(["L", "R"] * n, [(side * 0.1, 0.5 * i, 0.0) for i in range(n) for side in (-1, 1)],
                     np.zeros(2 * n), np.repeat(contact, 2), np.repeat(contact + 0.3, 2))
    motion = biped.solve(hop)
    assert motion.report["optimizer"]["converged"]
    tight = optimize.levenberg_marquardt(Problem([(hop,) + biped.resolve(hop)]), max_iterations=1000,
                                         tolerance=1e-12)
    assert tight.converged.all()
    assert motion.report["energy"]["total"] <= tight.energies[0] * (1 + 1e-4)
    assert motion.com_velocity[-1, 1] > 0.3


def test_a_hop_with_long_stances_converges_by_shorter_steps(monkeypatch):
    """Two-footed hops with long stances: the two legs' support wedge is a few degrees wide, and whole
    steps that leave it are rejected again and again. Levenberg-Marquardt tries shorter steps along a
    rejected one (energies alone) before damping more: it converges well within its cap, where doubling
    the damping alone stopped unconverged at 100 iterations (energy 4.17 against 4.09; the optimum 4.08)."""
    n, period, stance = 6, 0.8, 0.6
    contact = period * np.arange(n)
    hop = make_track(["L", "R"] * n, [(side * 0.1, 0.6 * i, 0.0) for i in range(n) for side in (-1, 1)],
                     np.zeros(2 * n), np.repeat(contact, 2), np.repeat(contact + stance, 2))
    problem = Problem([(hop,) + biped.resolve(hop)])
    result = optimize.levenberg_marquardt(problem)
    assert result.converged.all() and result.iterations < 40
    tight = optimize.levenberg_marquardt(problem, max_iterations=1000, tolerance=1e-12)
    assert result.energies[0] <= tight.energies[0] * 1.002
    assert result.evaluations > result.iterations + 1  # shorter steps were tried
    monkeypatch.setattr(optimize, "BACKTRACK", ())
    damped = optimize.levenberg_marquardt(problem)
    assert not damped.converged.any() and damped.energies[0] > tight.energies[0] * 1.01


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_foot_goes_below_the_ground(motions, name):
    """Heel, mid-foot and toe of every foot, stance and swing, against the terrain (or the footprints): at
    most 2 mm, a flat sole resting on the crest of a bump in the bumpy run."""
    assert 0.0 <= motions[name].report["feet_below_ground"] <= 0.002


def test_feet_below_ground_measures_heel_and_toe():
    """A foot pitched toes down by 10 degrees on flat ground: its toe is half a foot times sin(10 degrees)
    below it, which the report finds (mid-foot alone would not)."""
    motion = biped.solve(track("fig1"), fps=30.0)
    pitch = legs.rotation_matrices(0.0, np.radians(-10.0), 0.0)  # about the foot's X: toes down
    tilted = dataclasses.replace(motion, foot_rotation=motion.foot_rotation @ pitch)
    schedule = build_schedule(motion.track, motion.character)
    half = 0.5 * motion.character.foot_length
    depth = max(motion_module._depth_below_ground(tilted, schedule, FlatTerrain(0.0), half).max(), 0.0)
    lowest = (motion.feet[..., 2] - half * np.sin(np.radians(10.0))).min()
    assert depth == pytest.approx(max(-lowest, 0.0), abs=1e-9) and depth > 0.02


@pytest.mark.parametrize("shape", ["valley", "ridge"])
def test_a_foot_on_a_kink_rests_on_the_ground_heel_and_toe(shape):
    """Issue 28: a footprint on a slope's kink sank its foot 13-16 mm for its whole stance (flush with the
    ground under its middle only). Where a 15 degree slope starts (a valley) or ends (a ridge) under a
    footprint, the flat stance foot's heel, middle and toe tip are never under the ground."""
    slope, spacing, kink = math.tan(math.radians(15.0)), 0.05, 3.55
    ys = np.arange(-2.0, 12.0001, spacing)
    up = np.maximum(ys - kink, 0.0) if shape == "valley" else np.minimum(ys - kink, 0.0) + 2.0
    terrain = terrain_module.HeightField(origin=(-2.0, -2.0), spacing=spacing,
                                         values=np.repeat((up * slope)[:, None], 81, axis=1))
    human = character.preset("human")
    n = 12
    positions = np.array([(0.09 * (-1) ** (i + 1), 0.7 * i + 0.05, 0.0) for i in range(n)])  # the 6th on the kink
    positions[:, 2] = terrain.heights(positions[:, :2])
    walk = make_track(["L", "R"] * (n // 2), positions, np.zeros(n), 0.55 * np.arange(n), 0.55 * np.arange(n) + 0.66)
    motion = biped.solve(walk, human, terrain, fps=120.0)
    deepest = 0.0
    for leg in range(2):
        flat = motion.contact[:, leg] & (motion.toe_pivot[:, leg] == 0.0)
        for along in (-human.heel, 0.0, human.toe):
            sole = motion.feet[flat, leg] + along * motion.foot_rotation[flat, leg, :, 1]
            deepest = max(deepest, (terrain.heights(sole[:, :2]) - sole[:, 2]).max())
    assert deepest < 1e-3 and motion.report["feet_below_ground"] < 1e-3


def test_feet_below_ground_is_measured():
    """The measure finds feet under a terrain raised 5 cm above the footprints; without a terrain, stairs'
    risers are unknown, so a swing is held only to the lower of the two footprints it goes between."""
    fig1 = track("fig1")
    raised = biped.solve(fig1, terrain=FlatTerrain(0.05), fps=30.0)
    assert raised.report["feet_below_ground"] == pytest.approx(0.05, abs=1e-9)
    stairs = track("stairs")
    bare = biped.solve(stairs.replace(extras={}), fps=60.0)
    assert bare.report["feet_below_ground"] == 0.0


def test_swing_foot_turns_about_a_single_axis(motions):
    """vdP97 §2.5: from lift-off to the next contact the foot's orientation turns about one fixed axis, by
    an angle that only grows (the swing's min-jerk progression), from the pose it had at the lift-off."""
    motion = motions["turn90"]
    checked = 0
    for leg in range(2):
        change = np.diff(motion.contact[:, leg].astype(int))
        lifts, lands = np.flatnonzero(change == -1) + 1, np.flatnonzero(change == 1) + 1
        for a in lifts:  # each swing between footprints, frames [a, b)
            b = lands[lands > a].min(initial=len(change) + 1)
            if b - a < 5:
                continue
            left = motion.footprint[a - 1, leg]  # the swing starts from the pose at that one's lift-off
            start = biped.solve(track("turn90"), times=[motion.track.liftoff[left]]).foot_rotation[0, leg]
            rel = np.swapaxes(start, -1, -2) @ motion.foot_rotation[a:b, leg]
            axis = np.stack([rel[:, 2, 1] - rel[:, 1, 2], rel[:, 0, 2] - rel[:, 2, 0], rel[:, 1, 0] - rel[:, 0, 1]], axis=1)
            angle = np.arccos(np.clip((np.trace(rel, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0))
            turning = angle > np.radians(1.0)
            if turning.sum() < 3:
                continue
            unit = axis[turning] / np.linalg.norm(axis[turning], axis=1, keepdims=True)
            assert np.abs(unit @ unit[-1]).min() > 1.0 - 1e-9  # one axis throughout
            assert np.all(np.diff(angle) >= -1e-12)
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize("turn", [0.0, 30.0])
def test_stepping_in_place_lifts_the_feet(turn):
    """Marching in place, or turning on the spot (each foot back on its own spot, turned a little more):
    every swing lifts the foot by the swing clearance at mid-swing, as it would going anywhere else. (The
    arc was kept only for swings that travel: the foot shuffled on the ground, turning on its sole.)"""
    n = 6
    contact = 0.5 * np.arange(2 * n)
    headings = np.radians(turn) * np.repeat(np.arange(n), 2)
    march = make_track(["L", "R"] * n, [(side * 0.1, 0.0, 0.0) for _ in range(n) for side in (-1, 1)],
                       headings, contact, contact + 0.7)
    motion = biped.solve(march, fps=120.0)
    clearance = motion.character.swing_clearance * motion.character.leg_length_nominal
    for leg in range(2):
        mine = np.flatnonzero(march.feet == ("L", "R")[leg])
        for a, b in zip(mine[:-1], mine[1:]):
            middle = np.argmin(np.abs(motion.times - 0.5 * (march.liftoff[a] + march.contact[b])))
            assert not motion.contact[middle, leg]
            assert motion.feet[middle, leg, 2] == pytest.approx(clearance, abs=1e-3)


@pytest.mark.parametrize("speed", [3.0, 3.5, 5.0])
def test_a_running_swing_folds_its_leg_and_no_stance_leg_locks_straight(speed):
    """A run (stance 0.25 s at 3.5 m/s, shorter faster): the swing heel lifts RUN_HEEL_RECOVERY l_nom per unit
    Froude number at mid-swing (the knee folds: running swing knee 90-130 degrees), and a stance leg pushes off
    with its heel up within RUN_REACH of its reach (the knee never locked straight); a walk's foot stays low."""
    human = character.preset("human")
    stance = 0.25 * 3.5 / speed
    step = speed * (stance + 0.1)
    n = 16
    run = make_track(["L", "R"] * (n // 2), [(0.09 * (-1) ** (i + 1), step * i, 0.0) for i in range(n)], np.zeros(n),
                     (stance + 0.1) * np.arange(n), (stance + 0.1) * np.arange(n) + stance)
    motion = biped.solve(run, human, fps=240.0)
    froude = speed / math.sqrt(GRAVITY * human.leg_length_nominal)
    lift = legs.RUN_HEEL_RECOVERY * froude * human.leg_length_nominal
    clearance = human.swing_clearance * human.leg_length_nominal
    for leg in range(2):
        swinging = ~motion.contact[:, leg]
        middle = (motion.times > 1.0) & (motion.times < motion.times[-1] - 1.0)
        peak = motion.feet[swinging & middle, leg, 2].max()
        assert lift < peak < lift + clearance + 0.03
        late = motion.contact[:, leg] & middle & (motion.toe_pivot[:, leg] > 0.0)  # pushing off, heel up
        reach = np.linalg.norm(motion.hips[late, leg] - motion.feet[late, leg], axis=1)
        assert late.any() and reach.max() <= legs.RUN_REACH * human.leg_length_max + 1e-6
    walk = biped.solve(track("straight_walk"), fps=120.0)
    assert walk.feet[..., 2].max() < clearance + 0.03


@pytest.mark.parametrize("name, with_terrain", [("straight_walk", True), ("slope15", True), ("slope15", False),
                                                ("fig1", True)])
def test_a_swing_clears_the_ground_by_about_the_swing_clearance(motions, name, with_terrain):
    """Over even ground (flat, or the 15 degree slope with the sole along it; without its terrain, the
    slope between the footprints) the foot rises at mid-swing by about the character's swing clearance,
    as a walk does, not a march's 20 to 30 cm (without the terrain, flat feet going up the slope, by at
    most half the rise more, not 0.9 m); the whole sole stays above the ground all the way. (A running
    swing, with a flight on the way, lifts its heel far higher: test_a_running_swing_folds_its_leg.)"""
    tr = track(name)
    if not with_terrain:
        tr = tr.replace(extras={})
    motion = motions[name] if with_terrain else biped.solve(tr, fps=120.0)
    character, terrain = biped.resolve(tr)
    clearance = character.swing_clearance * character.leg_length_nominal
    half = 0.5 * character.foot_length
    by_time = tr.take(tr.time_order())
    checked = 0
    for leg, foot in enumerate(character.feet):
        mine = np.flatnonzero(by_time.feet == foot)
        for a, b in zip(mine[:-1], mine[1:]):
            p0, p1 = by_time.positions[a], by_time.positions[b]

            def ground(points):  # the terrain, or the footprints and an even slope from toe to heel between
                if terrain is not None:
                    return terrain.heights(points[:, :2])
                toe = p0[:2] + half * np.array([-np.sin(by_time.headings[a]), np.cos(by_time.headings[a])])
                heel = p1[:2] - half * np.array([-np.sin(by_time.headings[b]), np.cos(by_time.headings[b])])
                along = (points[:, :2] - toe) @ (heel - toe) / max(np.sum((heel - toe) ** 2), 1e-12)
                return p0[2] + (p1 - p0)[2] * np.clip(along, 0.0, 1.0)

            u = (motion.times - by_time.liftoff[a]) / (by_time.contact[b] - by_time.liftoff[a])
            inside = (u > 0.02) & (u < 0.98)
            for end in (-1.0, 0.0, 1.0):
                point = motion.feet[inside, leg] + end * half * motion.foot_rotation[inside, leg, :, 1]
                assert (point[:, 2] - ground(point)).min() >= 0.0
            mid = np.argmin(np.abs(u - 0.5))
            height = motion.feet[mid, leg, 2] - ground(motion.feet[[mid], leg])[0]
            # (a frame off u = 0.5; without the terrain flat feet go up a slope: their toes need more)
            rise = 0.0 if terrain is not None else 0.5 * abs(p1[2] - p0[2])
            running = not motion.contact[inside].any(axis=1).all()  # a flight on the way
            assert clearance - 1e-3 <= height <= clearance + 0.03 + rise or running
            checked += 1
    assert checked >= 6


def test_swing_feet_clear_the_stairs(motions):
    motion = motions["stairs"]
    character, terrain = biped.resolve(track("stairs"))
    tr = track("stairs")
    tr = tr.take(tr.time_order())
    half = 0.5 * character.foot_length
    tips = [motion.feet + end * half * motion.foot_rotation[..., :, 1] for end in (-1.0, 0.0, 1.0)]
    checked = 0
    for leg, foot in enumerate(character.feet):
        mine = np.flatnonzero(tr.feet == foot)
        for a, b in zip(mine[:-1], mine[1:]):  # each swing from one footprint to the next
            u = (motion.times - tr.liftoff[a]) / (tr.contact[b] - tr.liftoff[a])
            inside = (u > 0.1) & (u < 0.9)
            for tip in tips:  # heel, mid-foot and toe all stay above the steps
                above = tip[inside, leg, 2] - terrain.heights(tip[inside, leg, :2])
                assert above.min() >= 0.0
                checked += inside.sum()
    assert checked > 100
    # A swing leaves the ground the way the stance ended (heel up): the foot never turns abruptly.
    rel = np.swapaxes(motion.foot_rotation[:-1], -1, -2) @ motion.foot_rotation[1:]
    turn = np.degrees(np.arccos(np.clip((np.trace(rel, axis1=-2, axis2=-1) - 1) / 2, -1, 1)))
    assert turn.max() < 5.0  # per frame at 120 fps


def test_fast_optimiser_reaches_at_most_the_greedy_energy():
    for name in SCENARIOS:
        t = track(name)
        problem = Problem([(t,) + biped.resolve(t)])
        fast = optimize.levenberg_marquardt(problem)
        greedy = optimize.greedy_descent(problem)
        assert fast.converged.all()
        assert fast.energies[0] <= greedy.energies[0], name
        assert problem.energy_terms(fast.free)["total"][0] == pytest.approx(fast.energies[0])


def test_the_greedy_descent_sees_the_energy_lm_minimises():
    """The greedy baseline re-evaluates only the part of the energy a free state enters: moving that state
    alone, its change is the whole energy's (flights, steady ends and both ends of the track included)."""
    rng = np.random.default_rng(5)
    for name in ("fig1", "leap"):
        problem = Problem([(track(name),) + biped.resolve(track(name))])
        local_energy = optimize.local_energies(problem)
        free = problem.initial_free() + rng.normal(size=(problem.n_free, 6)) * 0.02
        total = problem.energy_terms(free)["total"][0]
        for k in range(problem.n_free):
            moved = free.copy()
            moved[k] += rng.normal(size=6) * 0.05
            assert (local_energy(moved, k) - local_energy(free, k)
                    == pytest.approx(problem.energy_terms(moved)["total"][0] - total, rel=1e-9, abs=1e-12))


def test_same_input_same_output_bit_for_bit():
    first = biped.solve(track("fig1"))
    clear_timing_cache()  # nothing remembered from the first solve
    second = biped.solve(track("fig1"))
    for name in ("com", "com_velocity", "com_acceleration", "feet", "foot_rotation", "hips", "solution"):
        assert getattr(first, name).tobytes() == getattr(second, name).tobytes(), name
    # (in separate processes: tests/test_cli.py, the solve command)


def test_batch_solves_each_track_as_alone():
    names = ["fig1", "leap", "stairs"]
    batch = biped.solve_batch([track(n) for n in names])
    for name, motion in zip(names, batch):
        alone = biped.solve(track(name))
        assert motion.report["energy"]["total"] == pytest.approx(alone.report["energy"]["total"], rel=1e-6)
        assert np.abs(motion.com - alone.com).max() < 1e-4
    # More tracks than one optimisation takes: solved group by group, each track still as alone, in order.
    fig1 = track("fig1")
    many = [fig1.replace(contact=fig1.contact * (1 + 0.01 * i), liftoff=fig1.liftoff * (1 + 0.01 * i))
            for i in range(biped.BATCH_GROUP + 1)]
    motions = biped.solve_batch(many)
    assert len(motions) == len(many)
    for i in (0, len(many) - 1):
        assert np.abs(motions[i].com - biped.solve(many[i]).com).max() < 1e-4
        assert many[i].liftoff.max() - 1 / 60 < motions[i].times[-1] <= many[i].liftoff.max()  # its own span
    # Each track's own times, character and terrain go with it through the groups.
    own_times = [np.linspace(0.0, t.liftoff.max(), 20 + i) for i, t in enumerate(many)]
    with_times = biped.solve_batch(many, times=own_times)
    assert [len(m.times) for m in with_times] == [len(t) for t in own_times]
    assert np.allclose(with_times[-1].com, biped.solve(many[-1], times=own_times[-1]).com, atol=1e-4)


ERROR_CASES = [
    ({(2, "contact"): 0.1}, errors.OverlapError, "footprint 2: foot L touches down"),
    ({(1, "liftoff"): 0.5}, errors.TimingError, "footprint 1: liftoff 0.5 s is not after contact 0.5 s"),
    ({(3, "heading"): float("nan")}, errors.NonFiniteError, "footprint 3: heading is not a finite number"),
    ({(4, "position"): [0.0, float("inf"), 0.0]}, errors.NonFiniteError, "footprint 4: position"),
    ({(5, "foot"): "LF"}, errors.UnknownFootError, "footprint 5: unknown foot 'LF'"),
    ({(6, "position"): [0.0, 1e12, 0.0]}, errors.RangeError, "footprint 6: position 1e\\+12 m is beyond the limit"),
    ({(0, "contact"): -2e6}, errors.RangeError, "footprint 0: contact -2e\\+06 s is beyond the limit"),
]


@pytest.mark.parametrize("changes, kind, message", ERROR_CASES)
def test_invalid_tracks_raise_the_documented_error(changes, kind, message):
    doc = json.loads(open(os.path.join(DATA, "fig1.json")).read())
    for (index, field), value in changes.items():
        doc["footprints"][index][field] = value
    with pytest.raises(kind, match=message):
        parse_track_text(json.dumps(doc))
    # The solver validates too, for tracks built in code.
    good = track("fig1")
    bad = good.replace(contact=np.where(np.arange(12) == 2, 0.1, good.contact))
    with pytest.raises(errors.OverlapError, match="footprint 2"):
        biped.solve(bad)


def test_a_track_too_long_to_sample_is_refused_before_allocating():
    """A footprint standing for ten days at 60 fps would be 5e7 frames: a RangeError naming the size."""
    fig1 = track("fig1")
    last = int(np.argmax(fig1.liftoff))
    long_ = fig1.replace(liftoff=np.where(np.arange(len(fig1)) == last, 9e5, fig1.liftoff))
    with pytest.raises(errors.RangeError, match=r"the track lasts 9e\+05 s: at 60 fps that is 54,000,0\d\d frames, "
                                                r"more than the limit of 1,000,000"):
        biped.solve(long_)


def test_a_long_track_is_scheduled_and_started_in_linear_memory():
    """20,000 footprints: the contact schedule and the optimiser's starting knots take sorted searches, not
    a table of every knot against every footprint (which would be 20,000 x 20,000 = 3.2 GB of floats)."""
    import tracemalloc

    human = character.preset("human")
    n = 20_000
    positions = np.stack([0.1 * (-1.0) ** (np.arange(n) + 1), 0.7 * np.arange(n), np.zeros(n)], axis=1)
    contact, liftoff = timing.timing_for_sequence(positions, "walk", human.time_unit, human.leg_length_nominal)
    long_walk = make_track(np.array(["L", "R"])[np.arange(n) % 2], positions, np.zeros(n), contact, liftoff)
    clear_timing_cache()
    tracemalloc.start()
    schedule = build_schedule(long_walk, human)
    centres = problem_module._knot_centres(schedule, human)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(centres) == len(schedule.knot_times) > n
    assert peak < 64 * 2**20
    # The knots sit above their footprints: the first above the first footprint, the last above the last.
    assert np.allclose(centres[0], positions[0]) and np.allclose(centres[-1], positions[-1])


def test_unknown_preset_is_named():
    doc = json.loads(open(os.path.join(DATA, "fig1.json")).read())
    doc["character"] = "unicorn"
    with pytest.raises(errors.UnknownPresetError, match="'unicorn'"):
        parse_track_text(json.dumps(doc))


# --- the pieces ----------------------------------------------------------------------------------


def test_cone_projection_cases():
    up = np.array([[0.0, 0.0, 1.0]])
    k = np.array([[[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]])
    # Standing still over the foot: gravity alone is feasible.
    assert np.allclose(physics.nonphysical_force(up * GRAVITY, k, np.array([[True, False]])), 0.0)
    # Flight: everything is non-physical.
    f = np.array([[1.0, 2.0, 3.0]])
    assert np.allclose(physics.nonphysical_force(f, k, np.array([[False, False]])), f)
    # A leg cannot pull: a downward force is entirely non-physical.
    assert np.allclose(physics.nonphysical_force(-up, k, np.array([[True, False]])), -up)
    # Double stance: forces inside the wedge are feasible, out of plane ones are not.
    k2 = np.array([[[0.6, 0.0, 0.8], [-0.6, 0.0, 0.8]]])
    both = np.array([[True, True]])
    assert np.allclose(physics.nonphysical_force(np.array([[0.1, 0.0, 1.0]]), k2, both), 0.0)
    assert np.allclose(physics.nonphysical_force(np.array([[0.0, 0.5, 1.0]]), k2, both), [[0.0, 0.5, 0.0]])
    # Outside the wedge in its plane: the distance to the nearest edge.
    r = physics.nonphysical_force(np.array([[1.0, 0.0, 0.0]]), k2, both)
    assert np.allclose(r, [[1.0, 0.0, 0.0]] - 0.6 * np.array([[0.6, 0.0, 0.8]]))
    # Three legs spanning space (quadrupeds): inside the cone is feasible.
    k3 = np.array([[[0.3, 0.0, 0.95], [-0.3, 0.3, 0.9], [-0.3, -0.3, 0.9]]])
    k3 /= np.linalg.norm(k3, axis=-1, keepdims=True)
    assert np.allclose(physics.nonphysical_force(up, k3, np.array([[True, True, True]])), 0.0, atol=1e-9)


def heel_walker():
    """The human preset walking heel to toe on legs that end at an ankle, as a rig's walking attributes make it:
    knots at every lift-off, the support back on the heel after a heel strike, the straight-stance comfort, the
    heel's shorter limit."""
    return dataclasses.replace(biped.resolve(track("fig1"))[0], heel_strike=np.radians(15.0),
                               ankle_offset=(0.0, -0.05, 0.08), ankle_reach=0.8)


def test_analytic_jacobian_matches_finite_differences():
    for name in ("fig1", "stairs", "bumpy_run"):
        t = track(name)
        assert_derivatives_match(Problem([(t,) + biped.resolve(t)]))
        assert_derivatives_match(Problem([(t, heel_walker(), biped.resolve(t)[1])]))


def test_a_heel_walkers_stance_is_straighter_on_the_level_only():
    """The firmer comfort (STRAIGHT_STANCE) holds a stance leg on a level footprint landed heel first; one a
    stair's step up or down (LEVEL_RISE) bends as people's do."""
    t = track("stairs")
    problem = Problem([(t, heel_walker(), None)])
    tr = problem.parts[0].schedule.track
    z = tr.positions[:, 2]
    stepped = np.abs(np.diff(z, prepend=z[:1])) > problem_module.LEVEL_RISE * heel_walker().leg_length_nominal
    assert stepped.any() and (~stepped).any()
    scale = problem.comfort_scale ** 2  # (legs, samples): the comfort weight's factor
    firm = np.isclose(scale, problem_module.STRAIGHT_STANCE) & problem.active
    assert firm.any()
    for i in np.flatnonzero(stepped):  # no sample standing on a stair's step is firm
        leg = ("L", "R").index(str(tr.feet[i]))
        during = (problem.times > tr.contact[i] + 1e-6) & (problem.times < tr.liftoff[i] - 1e-6)
        assert problem.active[leg, during].any() and not firm[leg, during].any(), i


def test_a_rigs_foot_lands_in_the_pose_its_stance_starts_in():
    """With the hips at each contact, a foot landing on its heel turns its toes up as far as its leg needs then,
    in the swing's last instant as in the stance's first: no snap at a heel strike (on the Rigify human's legs,
    as the bake measures them, the foot turned 8-27 degrees in a millisecond at 0.8-1.8 m/s without)."""
    rigify = dataclasses.replace(
        character.preset("human"), heel_strike=np.radians(15.0), hip_offsets=np.array(
            [[-0.098, 0.0238, -0.0116], [0.098, 0.0238, -0.0116]]), leg_length_nominal=1.0705, leg_length_max=1.089,
        foot_length=0.1096, ankle_offset=(0.0, -0.0548, 0.0852), ankle_reach=0.9886, ball_height=0.0167,
        heel_length=0.0845, toe_length=0.122, roll_amplitude=0.0, swing_clearance=0.05)
    for step, step_time, share in ((0.53, 0.667, 0.65), (0.864, 0.48, 0.58)):  # 0.8 and 1.8 m/s
        i = np.arange(12)
        walk = make_track(np.where(i % 2 == 0, "L", "R"), np.column_stack([0.095 * (-1.0) ** (i + 1), step * i,
                                                                           np.zeros(12)]),
                          np.zeros(12), step_time * i, step_time * i + 2.0 * share * step_time)
        motion = biped.solve(walk, rigify, fps=1000.0)
        tr = motion.track
        for f in np.flatnonzero(schedule_module.walking_landings(tr)):
            leg = rigify.feet.index(str(tr.feet[f]))
            k = int(np.searchsorted(motion.times, tr.contact[f]))
            before, after = motion.foot_rotation[k - 1, leg], motion.foot_rotation[k, leg]
            turn = np.degrees(np.arccos(np.clip((np.trace(before.T @ after) - 1.0) / 2.0, -1.0, 1.0)))
            assert turn < 1.0, (step, f, turn)


def test_normal_equations_match_the_dense_jacobian():
    """linearize() sums per segment with fixed Hermite weights and maps flight segments' controls: it must
    equal J^T J and J^T r of the dense Jacobian, for tracks with flights, for a window and for a batch."""
    two_steps = make_track(["L", "R"], [(-0.1, 0.0, 0.0), (0.1, 0.6, 0.0)], [0.0, 0.0], [0.0, 0.55], [0.7, 1.25])
    tracks = [track(name) for name in ("leap", "fig1", "bumpy_run")] + [two_steps]  # its middle state ends both
    rng = np.random.default_rng(3)
    singles = ([(t,) + biped.resolve(t)] for t in tracks[:2] + tracks[3:])
    heel_walking = ([(t, heel_walker(), biped.resolve(t)[1])] for t in tracks[1:])
    for items in singles, heel_walking, ([[(t,) + biped.resolve(t) for t in tracks]]):
        for item in items:
            problem = Problem(item)
            free = problem.initial_free() + rng.normal(size=(problem.n_free, 6)) * 0.05
            jtj, jtr, rtr = dense_normal_equations(problem, free)
            energies, diag, upper, grad = problem.linearize(free)
            n = problem.n_free
            blocks = jtj.reshape(n, 6, n, 6)
            scale = np.abs(jtj).max()
            assert np.allclose(energies.sum(), rtr, rtol=1e-12)
            assert np.array_equal(problem.energies(free), energies)  # the optimiser's shorter steps compare them
            assert np.allclose(energies, problem.energy_terms(free)["total"], rtol=1e-12)
            assert np.allclose(diag, blocks[np.arange(n), :, np.arange(n)], rtol=0, atol=1e-11 * scale)
            assert np.allclose(upper, blocks[np.arange(n - 1), :, np.arange(1, n)], rtol=0, atol=1e-11 * scale)
            assert np.allclose(grad.ravel(), jtr, rtol=0, atol=1e-11 * np.abs(jtr).max())
            # Nothing couples states two apart, nor two tracks.
            far = np.abs(np.subtract.outer(np.arange(n), np.arange(n))) > 1
            assert np.all(blocks.transpose(0, 2, 1, 3)[far] == 0.0)
            for first, stop in ((2, n - 3), (1, n)) if problem.n_tracks == 1 and n > 6 else ():
                # A window: the same rows of the same system (the second has an end pair's state held).
                window = Window(problem, free, first, stop)
                w_energies, w_diag, w_upper, w_grad = window.linearize(free[first:stop])
                # Its energy is of the terms its states enter: it changes as the whole energy does.
                moved = free.copy()
                moved[first:stop] += rng.normal(size=(stop - first, 6)) * 0.05
                m_energies = window.linearize(moved[first:stop])[0]
                change = problem.energy_terms(moved)["total"] - problem.energy_terms(free)["total"]
                assert np.allclose(m_energies - w_energies, change, rtol=1e-9)
                assert np.array_equal(window.energies(moved[first:stop]), m_energies)
                assert np.allclose(w_diag, diag[first:stop], rtol=0, atol=1e-11 * scale)
                assert np.allclose(w_upper, upper[first:stop - 1], rtol=0, atol=1e-11 * scale)
                assert np.allclose(w_grad, grad[first:stop], rtol=0, atol=1e-11 * np.abs(jtr).max())


def block_tridiagonal_dense(diag, lower, upper):
    """The dense matrix of diagonal blocks diag (n, b, b), lower[i] the block (i + 1, i), upper[i] (i, i + 1)."""
    n, b = diag.shape[:2]
    dense = np.zeros((n * b, n * b))
    for i in range(n):
        dense[b * i:b * i + b, b * i:b * i + b] = diag[i]
    for i in range(n - 1):
        dense[b * i + b:b * i + 2 * b, b * i:b * i + b] = lower[i]
        dense[b * i:b * i + b, b * i + b:b * i + 2 * b] = upper[i]
    return dense


def test_block_tridiagonal_solver_matches_dense():
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 17, 40):
        d = rng.normal(size=(n, 6, 6))
        d = d @ np.swapaxes(d, 1, 2) + 6 * np.eye(6)
        u = rng.normal(size=(n - 1, 6, 6))
        rhs = rng.normal(size=(n, 6))
        dense = block_tridiagonal_dense(d, np.swapaxes(u, 1, 2), u)
        assert np.allclose(blocktridiag.solve(d, u, rhs).ravel(), np.linalg.solve(dense, rhs.ravel()))
        shift = rng.uniform(0.5, 2.0, size=(n, 6))  # LM's damping, added to the diagonal inside
        shifted = np.linalg.solve(dense + np.diag(shift.ravel()), rhs.ravel())
        assert np.allclose(blocktridiag.solve(d, u, rhs, shift).ravel(), shifted)


@pytest.mark.parametrize("n", [1, 2, 29, 57, 130])
def test_cyclic_reduction_solves_unsymmetric_systems(n):
    """The reduction's own levels, and the dense solve it ends with once DENSE_LIMIT blocks or fewer remain,
    take any lower and upper blocks (lo_i the block (i, i-1), up_i (i, i+1)), not only transposes."""
    rng = np.random.default_rng(n)
    d = rng.normal(size=(n, 6, 6)) + 8 * np.eye(6)
    lo, up = rng.normal(size=(2, n, 6, 6))
    lo[0], up[-1] = 0.0, 0.0
    rhs = rng.normal(size=(n, 6))
    dense = block_tridiagonal_dense(d, lo[1:], up[:-1])
    assert np.allclose(blocktridiag._reduce(d, lo, up, rhs).ravel(), np.linalg.solve(dense, rhs.ravel()),
                       rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sizes", [(1, 1, 1), (5, 13, 2), (16, 3), (4, 20), (4, 30)])
def test_independent_block_tridiagonal_systems_solve_as_one(sizes):
    """A batch's tracks: systems of any sizes, each solved on its own (dense, padded to the largest, while
    none exceeds DENSE_LIMIT blocks; by the reduction otherwise), as one dense solve of the whole."""
    assert (max(sizes) > blocktridiag.DENSE_LIMIT) == (sizes == (4, 30))  # that one by the reduction
    rng = np.random.default_rng(len(sizes))
    n = sum(sizes)
    d = rng.normal(size=(n, 6, 6))
    d = d @ np.swapaxes(d, 1, 2) + 6 * np.eye(6)
    u = rng.normal(size=(n - 1, 6, 6))
    starts = np.cumsum((0,) + sizes[:-1])
    u[starts[1:] - 1] = 0.0  # no coupling between two systems
    rhs, shift = rng.normal(size=(n, 6)), rng.uniform(0.5, 2.0, size=(n, 6))
    dense = block_tridiagonal_dense(d, np.swapaxes(u, 1, 2), u) + np.diag(shift.ravel())
    expected = np.linalg.solve(dense, rhs.ravel())
    assert np.allclose(blocktridiag.solve(d, u, rhs, shift, sizes).ravel(), expected, rtol=1e-12, atol=1e-14)
    alone = [blocktridiag.solve(d[a:a + k], u[a:a + k - 1], rhs[a:a + k], shift[a:a + k]) for a, k in zip(starts, sizes)]
    assert np.allclose(blocktridiag.solve(d, u, rhs, shift, sizes), np.concatenate(alone), rtol=1e-12, atol=1e-14)


def test_body_yaw_follows_the_feet_through_a_turn(motions):
    motion = motions["turn90"]
    assert motion.yaw[0] == pytest.approx(0.0, abs=0.05)
    assert abs(motion.yaw[-1]) == pytest.approx(np.pi / 2, abs=0.12)
    assert np.abs(np.diff(motion.yaw)).max() < 0.05  # smooth at 120 fps
    rng = np.random.default_rng(2)
    c = np.sort(rng.uniform(0, 10, 25))
    lo = c + rng.uniform(0.2, 0.8, 25)
    h = rng.uniform(-1, 1, 25)
    t = np.linspace(0, 10, 300)
    overlap = np.clip(np.minimum(t[:, None] + 0.5, lo) - np.maximum(t[:, None] - 0.5, c), 0, None)
    brute = np.arctan2(overlap @ np.sin(h), overlap @ np.cos(h))
    has = overlap.sum(axis=1) > 0
    assert np.allclose(orientation.body_yaw(t, c, lo, h)[has], brute[has])
    # The roll is the gait's oscillation plus banking into the turn (a fraction of atan(a_lat / g)), from the
    # COM's mean acceleration over the moving window: its velocity's change across the window.
    bank = orientation.bank(window_acceleration(motion), motion.yaw, motion.character.bank_gain)
    _pitch, oscillation = orientation.oscillation(orientation.stride_phase(motion.times, motion.track.contact),
                                                  motion.character.pitch_amplitude, motion.character.roll_amplitude)
    half = orientation.BODY_WINDOW / 2
    inside = (motion.times - half >= motion.times[0]) & (motion.times + half <= motion.times[-1])
    assert inside.sum() > 500 and np.allclose(motion.roll[inside], (oscillation + bank)[inside], atol=1e-9)
    assert np.abs(bank).max() > np.radians(1.0)  # the turn really banks
    # ...towards the inside of the turn, on average over the steps' sway: turning right (yaw falling) the
    # body leans right (roll > 0 lowers the right side, orientation.py).
    yaw_rate = np.gradient(np.unwrap(motion.yaw), motion.times)
    turning = np.abs(yaw_rate) > 0.3
    assert turning.sum() > 50 and np.sign(bank[turning].mean()) == -np.sign(yaw_rate[turning].mean())
    assert abs(bank[turning].mean()) > 3 * abs(bank[~turning].mean())
    # Pitch swings twice per stride with the character's amplitude; roll once, towards the stance side.
    ch = motion.character
    walk = motions["straight_walk"]
    assert np.ptp(walk.pitch) == pytest.approx(2 * ch.pitch_amplitude, rel=0.05)
    sway = walk.roll - orientation.bank(window_acceleration(walk), walk.yaw, ch.bank_gain)
    assert np.ptp(sway) == pytest.approx(2 * ch.roll_amplitude, rel=0.05)
    single = walk.contact.sum(axis=1) == 1
    left_only = single & walk.contact[:, 0]
    assert np.mean(sway[left_only] < 0) > 0.9  # standing on the left foot: the left side lower


def window_acceleration(motion):
    """The COM's mean acceleration over the body's moving window, from the sampled velocity (the window's
    ends fall on frames at 120 fps; clipped to the frames, not to the track's end between two)."""
    half = orientation.BODY_WINDOW / 2
    t = motion.times
    before, after = np.maximum(t - half, t[0]), np.minimum(t + half, t[-1])
    velocity = np.stack([np.interp(x, t, motion.com_velocity[:, k]) for x in (after, before)
                         for k in range(3)]).reshape(2, 3, -1)
    return ((velocity[0] - velocity[1]) / (after - before)).T


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_body_turns_smoothly_through_footfalls(motions, name):
    """No pops: the body's roll and pitch change smoothly from frame to frame, footfalls and flights included.
    (Banked to the instantaneous acceleration, which jumps at every knot of the C1 spline, the body
    rolled by up to 6 degrees in one frame at each footfall.) The gait's phase turns at a different rate
    from one step to the next: a kink of at most 0.14 degrees per frame squared."""
    motion = motions[name]
    for angle in (motion.roll, motion.pitch, np.unwrap(motion.yaw)):
        assert np.abs(np.diff(angle, 2)).max() < np.radians(0.5)  # at 120 fps


def test_rotation_matrices_are_the_product_of_the_three_turns():
    """R = Rz(yaw) Rx(pitch) Ry(roll), multiplied out (orientation.py): against the product itself."""
    rng = np.random.default_rng(4)
    yaw, pitch, roll = rng.uniform(-np.pi, np.pi, (3, 200))
    c, s_ = np.cos, np.sin
    one, zero = np.ones(200), np.zeros(200)
    rz = np.stack([c(yaw), -s_(yaw), zero, s_(yaw), c(yaw), zero, zero, zero, one], axis=-1).reshape(-1, 3, 3)
    rx = np.stack([one, zero, zero, zero, c(pitch), -s_(pitch), zero, s_(pitch), c(pitch)], axis=-1).reshape(-1, 3, 3)
    ry = np.stack([c(roll), zero, s_(roll), zero, one, zero, -s_(roll), zero, c(roll)], axis=-1).reshape(-1, 3, 3)
    r = orientation.rotation_matrices(yaw, pitch, roll)
    assert np.allclose(r, rz @ rx @ ry, atol=1e-14)
    assert np.allclose(r @ np.swapaxes(r, 1, 2), np.eye(3), atol=1e-14)


def test_footprints_lie_flush_on_any_ground_along_their_heading():
    """A footprint's frame: +Z the ground normal, toes (+Y) along the heading seen from above, for any
    heading and any tilt of the ground (not only a slope rising straight ahead)."""
    rng = np.random.default_rng(6)
    headings = rng.uniform(-np.pi, np.pi, 300)
    normals = np.column_stack([rng.uniform(-0.5, 0.5, 300), rng.uniform(-0.5, 0.5, 300), np.ones(300)])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    r = legs.flush_rotations(headings, normals)
    assert np.allclose(r[:, :, 2], normals, atol=1e-12)
    toes = r[:, :2, 1]
    assert np.allclose(np.arctan2(-toes[:, 0], toes[:, 1]), headings, atol=1e-9)
    assert np.allclose(r @ np.swapaxes(r, 1, 2), np.eye(3), atol=1e-12)


def test_min_jerk_swing_profile_is_bell_shaped():
    u = np.linspace(0, 1, 101)
    s = legs.min_jerk(u)
    speed = np.gradient(s, u)
    assert s[0] == 0 and s[-1] == 1 and speed[0] == pytest.approx(0, abs=1e-3) and speed[-1] == pytest.approx(0, abs=1e-3)
    assert np.argmax(speed) == 50


def test_warm_start_reaches_the_same_optimum_in_fewer_iterations():
    t = track("fig1")
    first = biped.solve(t)
    moved = t.replace(positions=t.positions + np.where(np.arange(12)[:, None] == 5, [0.0, 0.04, 0.0], 0.0))
    cold, warm = biped.solve(moved), biped.solve(moved, warm=first.solution)
    assert warm.report["optimizer"]["warm_start"] and not cold.report["optimizer"]["warm_start"]
    assert warm.report["optimizer"]["iterations"] < cold.report["optimizer"]["iterations"]
    assert warm.report["energy"]["total"] == pytest.approx(cold.report["energy"]["total"], rel=1e-4)
    retimed = t.replace(contact=t.contact + 0.0, liftoff=t.liftoff + np.where(np.arange(12) == 11, 0.3, 0.0))
    other = biped.solve(retimed, warm=np.zeros((3, 6)))  # a solution of another shape is ignored
    assert not other.report["optimizer"]["warm_start"]


def test_an_edit_of_a_long_track_re_optimises_only_its_window():
    human = character.preset("human")
    pos, head, feet = footpath.footprints_along_path([(0, 0, 0), (0, 0.7 * 59, 0)], 0.7, 0.2)
    contact, liftoff = timing.timing_for_sequence(pos, "walk", human.time_unit, human.leg_length_nominal)
    t = make_track(feet, pos, head, contact, liftoff)
    first = biped.solve(t, fps=30)
    j = 30
    moved = t.replace(positions=t.positions + np.where(np.arange(len(t))[:, None] == j, [0.05, 0.03, 0.0], 0.0))
    whole = biped.solve(moved, fps=30, warm=first.solution)
    part = biped.solve(moved, fps=30, warm=first.solution, changed=(t.contact[j], t.liftoff[j]))
    window = part.report["optimizer"]["window"]
    assert whole.report["optimizer"]["window"] is None
    assert window is not None and window[1] - window[0] < len(first.solution) // 4
    # As good as re-optimising everything, and the states outside the window are the earlier ones.
    assert part.report["energy"]["total"] == pytest.approx(whole.report["energy"]["total"], rel=1e-4)
    assert np.array_equal(part.solution[:window[0]], first.solution[:window[0]])
    assert np.array_equal(part.solution[window[1]:], first.solution[window[1]:])
    assert not np.array_equal(part.solution[window[0]:window[1]], first.solution[window[0]:window[1]])
    near = np.abs(part.times - t.contact[j]) < 1.0  # the COM moves towards the moved footprint, near it
    assert np.abs(part.com[near] - first.com[near]).max() > 0.005
    assert np.abs(part.com - whole.com).max() < 0.01


def test_the_report_warns_of_what_the_motion_could_not_do(monkeypatch):
    """A solve that stops at its iteration cap before converging, whose stance legs must reach past l_max
    (footprints too far apart for the character), or whose legs cannot carry the body along (much
    non-physical force) carries a warning for the artist; Fig. 1 none."""
    assert motion_module.report_warnings(biped.solve(track("fig1")).report) == []
    steps = 6
    contact = 0.5 * np.arange(steps)

    def strides(length):  # for a bird (legs 0.26 m, at most 0.31)
        return make_track(["L", "R"] * (steps // 2),
                          [((-0.05, 0.05)[i % 2], length * i, 0.0) for i in range(steps)],
                          np.zeros(steps), contact, contact + 0.6, character={"preset": "bird"})

    # 0.5 m steps: the legs reach, but only with the body lagging and lurching.
    report = biped.solve(strides(0.5)).report
    assert max(leg["max"] for leg in report["leg_length"].values()) <= 0.31
    force = report["non_physical_force"]
    assert force["worst_second"] >= force["mean"] > motion_module.NONPHYSICAL_WARN
    start, end = force["worst_second_span"]
    assert end == pytest.approx(start + 1.0, abs=1 / 60)
    assert motion_module.report_warnings(report) == [
        f"Non-physical force averages {force['worst_second']:.2f} body weight from {start:.2f} s to {end:.2f} s "
        f"({force['mean']:.2f} over the motion): the legs cannot carry the body there; space the footprints "
        "closer or give the steps more time"]
    old = dict(report, non_physical_force={k: force[k] for k in ("mean", "peak", "unit")})  # saved before
    assert motion_module.report_warnings(old)[0].startswith(f"Non-physical force averages {force['mean']:.2f} body "
                                                            f"weight ({force['mean']:.2f} over the motion)")
    # One step of 1.6 l_nom in a walk timed for 0.8: over the whole walk the mean stays low, not around it.
    human = character.preset("human")
    step = 0.8 * human.leg_length_nominal
    pos, head, feet = footpath.footprints_along_path([(0, 0, 0), (0, 7 * step, 0)], step, 0.25 * human.leg_length_nominal)
    walk_contact, walk_liftoff = timing.timing_for_sequence(pos, "walk", human.time_unit, human.leg_length_nominal)
    long_step = make_track(feet, pos + np.where(np.arange(len(pos))[:, None] >= 4, [0.0, step, 0.0], 0.0), head,
                           walk_contact, walk_liftoff)
    force = biped.solve(long_step, character=human).report["non_physical_force"]
    assert force["mean"] < 0.5 * motion_module.NONPHYSICAL_WARN < motion_module.NONPHYSICAL_WARN < force["worst_second"]
    t_long = walk_contact[4] - 0.5  # the long step lands on footprint 4
    start, end = force["worst_second_span"]
    assert abs(start - t_long) < 0.5
    motion = biped.solve(long_step, character=human, fps=30.0)  # the worst second, measured independently
    window = (motion.times >= start) & (motion.times <= end)
    assert motion.measures["non_physical_force"][window].mean() == pytest.approx(force["worst_second"], rel=0.05)
    # The stretch ending on the last frame counts (its end is a rounded product: 1 s past 39 / 24 s).
    times = 1.0 + np.arange(39) / 24.0
    spike = np.where(np.arange(39) == 38, 1.0, 0.0)
    assert motion_module._worst_stretch(times, spike, 1.0) == (pytest.approx(1 / 25), times[14], times[38])
    assert motion_module._worst_stretch(times[:10], spike[:10] + 0.5, 1.0) == (0.5, times[0], times[9])
    warnings = motion_module.report_warnings(biped.solve(strides(0.6)).report)  # out of reach
    assert [w.split(" reaches ")[0] for w in warnings[:2]] == ["Leg L", "Leg R"]
    assert all(w.endswith("past its 0.310: footprints too far apart for the character") for w in warnings[:2])
    assert len(warnings) == 3 and warnings[2].startswith("Non-physical force averages")
    monkeypatch.setitem(biped.METHODS, "lm", lambda problem, *start: optimize.levenberg_marquardt(
        problem, *start, max_iterations=2))
    report = biped.solve(track("fig1")).report
    assert not report["optimizer"]["converged"]
    assert motion_module.report_warnings(report)[0] == "Optimiser stopped after 2 iterations, not converged"
    greedy = optimize.greedy_descent(Problem([(track("straight_walk"),) + biped.resolve(track("straight_walk"))]),
                                     max_sweeps=1)
    assert not greedy.converged.any()  # its sweeps were cut short too
    # Solved together, each track says whether it converged itself (the walk does in 11 iterations).
    monkeypatch.setitem(biped.METHODS, "lm", lambda problem, *start: optimize.levenberg_marquardt(
        problem, *start, max_iterations=14))
    walk, fig1 = biped.solve_batch([track("straight_walk"), track("fig1")])
    assert walk.report["optimizer"]["converged"] and not fig1.report["optimizer"]["converged"]


def test_the_report_warns_of_a_foot_that_must_fly():
    """A lift-off typed too close to the foot's next contact (Fig. 1's steps out of standing once swung in
    0.05 s, the foot at 26 m/s): the report gives the quickest swing and the warning says which and when."""
    fig1 = track("fig1")
    assert biped.solve(fig1).report["swing"]["seconds"] == pytest.approx(0.38)
    liftoff = fig1.liftoff.copy()
    liftoff[6] = 4.95  # footprint 6 (L) until 0.05 s before L lands on footprint 8
    report = biped.solve(fig1.replace(liftoff=liftoff)).report
    assert report["swing"]["foot"] == "L" and report["swing"]["seconds"] == pytest.approx(0.05)
    assert report["swing"]["plausible_min"] == pytest.approx(0.4 * np.sqrt(0.86 / GRAVITY))
    assert motion_module.report_warnings(report) == [
        "Foot L swings 0.75 m in 0.050 s (4.950 s to 5.000 s), quicker than a leg can (0.12 s): lift-off too "
        "close to its next contact"]
    stance, step = timing.step_timing(0.0, "hop", 1.0, 1.0)  # the automatic timing's quickest swing
    assert step - stance > motion_module.SWING_MIN
    standing = make_track(["L", "R"], [(-0.1, 0, 0), (0.1, 0, 0)], np.zeros(2), [0.0, 0.0], [1.0, 1.0])
    assert biped.solve(standing).report["swing"] is None  # no foot steps: nothing to warn of
    # L is put down again at 1 s where it stood: a footprint split in two does not swing (it warned "swings
    # 0.00 m in 0.000 s"), R's step is the quickest swing; turned 30 degrees, the foot snaps round at once.
    def replant(turn):
        return make_track(["L", "R", "L", "R"], [(-0.1, 0, 0), (0.1, 0.3, 0), (-0.1, 0, 0), (0.1, 0.6, 0)],
                          np.radians([0, 0, turn, 0]), [0.0, 0.5, 1.0, 1.6], [1.0, 1.4, 2.0, 2.2])

    report = biped.solve(replant(0.0)).report
    assert report["swing"]["foot"] == "R" and report["swing"]["seconds"] == pytest.approx(0.2)
    assert motion_module.report_warnings(report) == []
    report = biped.solve(replant(30.0)).report
    assert report["swing"]["turn_degrees"] == pytest.approx(30.0)
    assert motion_module.report_warnings(report) == [
        "Foot L swings 0.00 m, turning 30 degrees, in 0.000 s (1.000 s to 1.000 s), quicker than a leg can "
        "(0.12 s): lift-off too close to its next contact"]


@pytest.fixture
def cold_cache():
    clear_timing_cache()
    yield
    clear_timing_cache()


def test_a_window_linearises_without_the_whole_assembly(cold_cache):
    """A window's linearisation builds only its own assembly (the whole track's costs 4 ms at 300 steps, 14 at
    1000); the whole one, once built, is kept for the timing, read-only."""
    walk = long_walk()
    problem = Problem([(walk,) + biped.resolve(walk)])
    free = problem.initial_free()
    Window(problem, free, 10, 20).linearize(free[10:20])
    assert problem._assembly is None
    whole = problem.assembly
    assert not whole.source.flags.writeable
    assert Problem([(walk,) + biped.resolve(walk)]).assembly is whole


def test_the_timing_cache_keeps_within_its_byte_budget_oldest_out(cold_cache, monkeypatch):
    """What the timing cache keeps stays within its byte budget, forgetting the oldest timings first."""
    walk = long_walk()
    size = sum(array.nbytes for array in problem_module._arrays((Problem([(walk,) + biped.resolve(walk)]).assembly,)))
    budget = int(2.5 * size)
    monkeypatch.setattr(problem_module, "_TIMING_CACHE_BYTES", budget)
    problems = []
    for k in range(5):  # other timings: the walk slowed down a little each time
        slower = walk.replace(contact=walk.contact * (1 + 0.01 * k), liftoff=walk.liftoff * (1 + 0.01 * k))
        problems.append(Problem([(slower,) + biped.resolve(slower)]))
        problems[-1].assembly
        kept = problem_module._TIMING_CACHE
        assert sum(size for _value, size in kept.values()) <= budget
    def keys(p):
        return {("controls", p._timing), ("assembly", (p._timing, p.weights.ends, 0, p.n_free))}

    assert not set().union(*map(keys, problems[:3])) & kept.keys()  # the oldest went first
    assert keys(problems[-1]) <= kept.keys()


def bounding_run(n=48, stance=0.4, flight=0.08, stride=1.0):
    """A run with a flight between every two stances: no instant has both feet down."""
    contact = np.arange(n) * (stance + flight)
    positions = [[(-0.1, 0.1)[i % 2], i * stride, 0.0] for i in range(n)]
    return make_track(["L", "R"] * (n // 2), positions, np.zeros(n), contact, contact + stance)


def long_walk(n=60):
    human = character.preset("human")
    pos, head, feet = footpath.footprints_along_path([(0, 0, 0), (0, 0.7 * (n - 1), 0)], 0.7, 0.2)
    contact, liftoff = timing.timing_for_sequence(pos, "walk", human.time_unit, human.leg_length_nominal)
    return make_track(feet, pos, head, contact, liftoff)


def assert_same_report(a, b):
    """Nested reports equal, numbers to 1e-12 (a spliced motion sums the same values in another order)."""
    assert a.keys() == b.keys()
    for key, value in a.items():
        if isinstance(value, dict):
            assert_same_report(value, b[key])
        elif isinstance(value, float):
            assert value == pytest.approx(b[key], rel=1e-12, abs=1e-12), key
        else:
            assert value == b[key], key


@pytest.mark.parametrize("kind, j", [("walk", 30), ("walk", 2), ("walk", 57), ("run", 16), ("run", 26)])
def test_after_a_windowed_edit_only_the_reached_times_are_sampled_again(kind, j):
    """Given the previous motion, a windowed re-solve samples again only the times the window and the moved
    footprint can reach, and copies the rest: the motion and its report are those of sampling everything
    (to rounding: the yaw's prefix sums carry the turned footprint's heading to the last ulp). In a run no
    instant has both feet down: a swing under way when the sampling starts again keeps the pose it left
    its footprint in (a bug a first version had). Next to the track's ends (the feet's rest places)
    everything is sampled again."""
    t = long_walk() if kind == "walk" else bounding_run(stride=1.1, stance=0.45, flight=0.06)
    first = biped.solve(t, fps=30)
    moved = t.replace(positions=t.positions + np.where(np.arange(len(t))[:, None] == j, [0.05, 0.03, 0.0], 0.0),
                      headings=t.headings + np.where(np.arange(len(t)) == j, 0.2, 0.0))
    span = (t.contact[j], t.liftoff[j])
    everything = biped.solve(moved, fps=30, warm=first.solution, changed=span)
    marked = dataclasses.replace(first, com=first.com.copy())
    marked.com[[0, -1]] += 100.0  # where the previous motion is copied, the mark shows through
    spliced = biped.solve(moved, fps=30, warm=first.solution, changed=span, previous=marked)
    assert spliced.report["optimizer"]["window"] is not None
    ends, middle = [0, -1], slice(1, -1)
    for name in biped.POSE:
        assert np.allclose(getattr(spliced, name)[middle], getattr(everything, name)[middle], rtol=0, atol=1e-12), name
    copied = j in (30, 16, 26)
    assert np.array_equal(np.isclose(spliced.com[ends] - everything.com[ends], 100.0).all(axis=1), [copied, copied])
    if not copied:
        assert spliced.report == everything.report
    else:  # the copied frames' measures are kept from the previous motion's (not the marked COM's)
        assert_same_report(spliced.report, everything.report)
        for name, values in everything.measures.items():
            assert np.allclose(spliced.measures[name], values, rtol=0, atol=1e-12), name
    # What is sampled again: the yaw window around the change, and no more than the swings under way at
    # its ends reach.
    schedule = build_schedule(t, character.preset("human"))
    times = first.times
    inside = biped._reached(schedule, times, span, span)
    if copied:
        around = (times >= span[0] - orientation.BODY_WINDOW / 2) & (times <= span[1] + orientation.BODY_WINDOW / 2)
        assert inside[around].all() and not inside.all()
        swing = max((t.contact[mine][1:] - t.liftoff[mine][:-1]).max()
                    for mine in (t.feet == foot for foot in np.unique(t.feet)))  # the longest of one foot
        assert np.ptp(times[inside]) <= np.ptp(times[around]) + 2 * swing
    else:
        assert inside.all()
    # Another frame rate than the previous motion's: everything is sampled.
    other = biped.solve(moved, fps=24, warm=first.solution, changed=span, previous=marked)
    assert np.allclose(other.com[ends], biped.solve(moved, fps=24, warm=first.solution, changed=span).com[ends])


def test_the_motion_is_the_same_at_any_frame_rate():
    """The swings start from the pose the foot left its footprint in at the lift-off instant, not at the
    last frame sampled before it: 24 and 60 fps agree wherever they share an instant (every 1/12 s),
    feet and all."""
    for name in ("fig1", "bumpy_run"):
        at_24, at_60 = biped.solve(track(name), fps=24.0), biped.solve(track(name), fps=60.0)
        for name_ in biped.POSE:
            a, b = getattr(at_24, name_)[::2], getattr(at_60, name_)[::5]
            n = min(len(a), len(b))
            assert np.allclose(a[:n], b[:n], rtol=0, atol=1e-12), (name, name_)


def test_the_motion_ends_standing_on_its_last_footprint():
    """The last frame, at the last lift-off (Fig. 1's 7.4 s falls on a frame at 60 fps), still stands on
    that footprint: supported, so the report's peak non-physical force is not the whole of g there."""
    fig1 = track("fig1")
    motion = biped.solve(fig1, fps=60.0)
    last = int(np.argmax(fig1.liftoff))
    leg = motion.character.feet.index(str(fig1.feet[last]))
    assert motion.times[-1] == fig1.liftoff[last]
    assert motion.contact[-1, leg] and motion.footprint[-1, leg] == last
    assert np.allclose(motion.feet[-1, leg], motion.feet[-2, leg], atol=0.01)
    assert motion.report["non_physical_force"]["peak"] < 0.25


def test_feet_move_on_smoothly_at_lift_off_and_stay_within_reach_to_the_end():
    """A swing starts where its stance ended (1 us apart the foot moves under 0.1 mm; where a flight
    starts the body's banking changes with the acceleration, which put the foot 6 mm off), and a foot
    off its footprints is within the leg's reach at every instant, the last included: a run whose end
    falls on a frame had its other foot 0.988 m from the hip there, l_max being 0.94."""
    for name in ("fig1", "bumpy_run", "leap"):
        tr = track(name)
        lift = np.sort(tr.liftoff)
        motion = biped.solve(tr, times=np.stack([lift - 1e-6, lift], axis=1).ravel())
        assert np.linalg.norm(motion.feet[1::2] - motion.feet[::2], axis=-1).max() < 1e-4, name
    human = character.preset("human")
    positions, headings, feet = footpath.footprints_along_path([(0, 0, 0), (0, 10, 0)], 1.4, 0.2)
    contact, liftoff = timing.timing_for_sequence(positions, "run", human.time_unit, human.leg_length_nominal)
    run = make_track(feet, positions, headings, np.round(np.asarray(contact) * 24) / 24,
                     np.round(np.asarray(liftoff) * 24) / 24)
    motion = biped.solve(run, fps=24.0)
    assert motion.times[-1] == run.liftoff.max()
    reach = np.linalg.norm(motion.feet - motion.hips, axis=-1)
    assert reach[~motion.contact].max() <= human.leg_length_max + 1e-9


def test_times_in_any_order_give_the_same_motion():
    """Times given out of order get the poses they have in order (a swing starts from its lift-off instant's
    pose, not from whichever time was sampled before it)."""
    t = track("straight_walk")
    times = np.linspace(0.0, t.liftoff.max(), 157)
    shuffled = np.random.default_rng(2).permutation(len(times))
    in_order, mixed = biped.solve(t, times=times), biped.solve(t, times=times[shuffled])
    for name in biped.POSE:
        assert np.array_equal(getattr(mixed, name), getattr(in_order, name)[shuffled]), name


def test_cone_projection_meets_its_optimality_conditions_with_coplanar_legs():
    """r = F - p is the projection onto the cone exactly when p = sum lam_l K_l with lam >= 0, r.p = 0 and
    r.K_l <= 0 for every standing leg; three coplanar legs (a degenerate face) must not fool the choice."""
    rng = np.random.default_rng(3)
    n = 4000
    k = np.empty((n, 4, 3))
    k[:, :3] = np.stack([rng.normal(size=n), np.zeros(n), rng.uniform(0.5, 1.0, n)], axis=-1)[:, None, :] \
        + np.stack([rng.normal(size=(n, 3)), np.zeros((n, 3)), np.zeros((n, 3))], axis=-1)  # three in y = 0
    k[:, 3] = rng.normal(size=(n, 3)) + [0.0, 0.0, 1.0]
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    active = rng.uniform(size=(n, 4)) < 0.8
    force = rng.normal(size=(n, 3)) * 5.0 + [0.0, 0.0, 9.81]
    r, lam, _b, _m = physics.project(force.T, k.T, physics.standing_faces(active.T), jacobian=True)
    r, lam = r.T, lam.T
    p = force - r
    assert (lam >= 0.0).all() and np.allclose(p, np.einsum("sl,sld->sd", lam, k))
    assert np.all(lam[~active] == 0.0)
    scale = 1e-9 * (1.0 + np.linalg.norm(force, axis=1))
    assert np.all(np.abs(np.einsum("sd,sd->s", r, p)) <= scale * np.linalg.norm(force, axis=1))
    assert np.all(np.where(active, np.einsum("sd,sld->sl", r, k), 0.0) <= scale[:, None])


def test_leg_targets_settle_times_within_an_ulp_of_a_contact():
    t = track("fig1")
    motion = biped.solve(t)
    for scale in (1.0, 0.1, 7.3):  # other time scales round other contacts
        tr = t.replace(contact=t.contact * scale, liftoff=t.liftoff * scale)
        sched = biped.Problem([(tr,) + biped.resolve(tr)]).parts[0].schedule
        for j in range(len(tr)):
            times = np.array([np.nextafter(tr.contact[j], -np.inf), tr.contact[j]])
            hips = np.repeat(motion.hips[:1], 2, axis=0)
            targets = legs.leg_targets(sched, motion.character, times, hips, np.tile(hips[0, 0], (len(tr), 1)))
            leg = motion.character.feet.index(str(sched.track.feet[j]))
            assert list(targets.footprint[:, leg] == j) == [False, True], (scale, j)
    # ...and each swing arrives on time: a foot an ulp before its landing is where it stands at landing.
    tr = motion.track
    pairs = np.stack([np.nextafter(tr.contact, -np.inf), tr.contact], axis=1)
    landing = biped.solve(t, times=pairs.ravel())
    for j in range(1, len(tr)):  # the first contact starts the motion: nothing before it
        leg = motion.character.feet.index(str(tr.feet[j]))
        before, at = 2 * j, 2 * j + 1
        assert np.allclose(landing.feet[before, leg], landing.feet[at, leg], atol=1e-6), j
        assert np.allclose(landing.foot_rotation[before, leg], landing.foot_rotation[at, leg], atol=1e-6), j


def replant_by(offset, turn):
    return make_track(["L", "R", "L", "R"], [(-0.1, 0, 0), (0.1, 0.3, 0), (-0.1 + offset, 0, 0), (0.1, 0.6, 0)],
                      np.radians([0, 0, turn, 0]), [0.0, 0.5, 1.0, 1.6], [1.0, 1.4, 2.0, 2.2])


@pytest.mark.parametrize("offset, turn, swings", [(0.0005, 0.5, False), (0.02, 0.0, True), (0.0, 5.0, True)])
def test_quickest_swing_thresholds(offset, turn, swings):
    """A foot put down again within 1 mm and 1 degree of where it stood does not swing; 2 cm or 5 degrees
    at once is a swing, too quick."""
    report = biped.solve(replant_by(offset, turn)).report
    assert (report["swing"]["foot"] == "L" and report["swing"]["seconds"] == 0.0) == swings
    assert bool(motion_module.report_warnings(report)) == swings


def test_window_ends_clip_to_the_motion():
    """The body's moving window (banking's mean acceleration) ends at the motion's ends."""
    before, after = orientation.window_ends(np.array([0.0, 0.2, 2.0, 4.9, 5.0]), 0.0, 5.0)
    assert np.allclose(before, [0.0, 0.0, 1.5, 4.4, 4.5]) and np.allclose(after, [0.5, 0.7, 2.5, 5.0, 5.0])


def test_rodrigues_is_the_rotation_about_the_axis():
    """The elementwise Rodrigues formula is I + s K + (1 - c) K^2."""
    rng = np.random.default_rng(1)
    axis = rng.normal(size=(200, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(-np.pi, np.pi, 200)
    k = np.zeros((200, 3, 3))
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axis[:, 2], axis[:, 1], -axis[:, 0]
    k -= np.swapaxes(k, 1, 2)
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    assert np.allclose(transforms.rodrigues(axis, angle), np.eye(3) + s * k + (1 - c) * (k @ k), atol=1e-14)


def test_ground_between_samples_without_terrain():
    """Without a terrain the ground under the COM is interpolated over the regular samples only (the
    lift-off samples sit out of time order)."""
    t = track("slope15")
    tr, ch, _terrain = (t,) + biped.resolve(t)
    problem = Problem([(tr, ch, None)])
    assert problem.slots
    regular = np.flatnonzero(problem.regular)
    ground = biped._ground(problem, problem.parts[0], problem.times[regular], None, None)
    assert np.allclose(ground, problem.ground[regular], atol=1e-12)


def test_two_lift_offs_in_one_segment_each_get_a_sample():
    """A four-legged trot with staggered lift-offs: two inside one segment, each with a sample of its own."""
    T = 0.8
    hips = {"LF": [-0.1, 0.3, 0.0], "RF": [0.1, 0.3, 0.0], "LH": [-0.1, -0.3, 0.0], "RH": [0.1, -0.3, 0.0]}
    feet, pos, contact, liftoff = [], [], [], []
    for k in range(6):
        for pair, phase, stagger in ((("LF", "RH"), 0.0, (0.58, 0.62)), (("RF", "LH"), 0.5, (0.6, 0.6))):
            for foot, st in zip(pair, stagger):
                feet.append(foot)
                pos.append((hips[foot][0], hips[foot][1] + 0.4 * (k + phase), 0.0))
                contact.append((k + phase) * T)
                liftoff.append((k + phase + st) * T)
    ch = {"preset": "human", "feet": ["LH", "RH", "LF", "RF"], "hip_offsets": hips,
          "leg_length_nominal": 0.5, "leg_length_max": 0.6}
    trot = make_track(feet, pos, np.zeros(len(feet)), contact, liftoff, character=ch)
    problem = Problem([(trot,) + biped.resolve(trot)])
    sched = problem.parts[0].schedule
    lift = sched.track.liftoff
    between = np.flatnonzero(~np.isin(lift, sched.knot_times))
    used = ~problem.regular & problem.reaching.any(axis=0)
    assert problem.slots == 2
    assert np.array_equal(np.sort(problem.times[used]), np.sort(lift[between]))
    assert problem.reaching[:, used].sum() == len(between)
