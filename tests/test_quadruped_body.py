"""The quadruped's two-mass body (Torkos §4.2-4.6): its trajectory and analytic derivatives, flights exactly
ballistic for the centre of mass, the physics of walk, trot and gallop on flat ground and on a 15 degree
slope, each leg its own length, and the hind and fore mass points in the motion."""

import dataclasses
import json

import numpy as np
import pytest

from footprint_locomotion.solver import biped
from footprint_locomotion.solver.character import GRAVITY, character_from_json, preset
from footprint_locomotion.solver.errors import CharacterError
from footprint_locomotion.solver.motion import report_warnings
from footprint_locomotion.solver.quadruped.gait_track import gait_track
from footprint_locomotion.solver.quadruped import terrains
from footprint_locomotion.solver.quadruped.two_mass import TwoMassProblem, body_of
from footprint_locomotion.solver.track import make_track
from solver_checks import assert_derivatives_match, dense_normal_equations

SLOPE = np.radians(15.0)


def solved(name, gait, speed, distance, terrain=None, character=None, jumps=()):
    """A gait's track (on the terrain, over the jumps: speeds and distances along the ground) solved."""
    ch = character or preset(name)
    return biped.solve(gait_track(ch, gait, speed, distance, terrain=terrain, jumps=jumps), ch, terrain)


def test_two_mass_derivatives_match_finite_differences():
    """The analytic Jacobian in the trajectory's six components (COM and spine vector) and their
    accelerations, with flights, four to one legs down and a slope under the masses."""
    dog = preset("dog")
    for gait, speed, ground in (("walk", 1.0, None), ("rotary_gallop", 6.0, None), ("trot", 3.0, terrains.slope(15))):
        assert_derivatives_match(TwoMassProblem([(gait_track(dog, gait, speed, 4.0, terrain=ground), dog, ground)]))


def test_two_mass_normal_equations_match_the_dense_jacobian():
    """linearize() with six components per knot (and the flights' maps) equals J^T J and J^T r of the
    dense Jacobian."""
    dog = preset("dog")
    problem = TwoMassProblem([(gait_track(dog, "rotary_gallop", 6.0, 3.0), dog, None)])
    free = problem.initial_free() + np.random.default_rng(18).normal(size=(problem.n_free, 12)) * 0.02
    jtj, jtr, rtr = dense_normal_equations(problem, free)
    energies, diag, upper, grad = problem.linearize(free)
    n = problem.n_free
    blocks = jtj.reshape(n, 12, n, 12)
    scale = np.abs(jtj).max()
    assert problem.parts[0].schedule.flight.any()
    assert np.allclose(energies.sum(), rtr, rtol=1e-12)
    assert np.allclose(diag, blocks[np.arange(n), :, np.arange(n)], rtol=0, atol=1e-11 * scale)
    assert np.allclose(upper, blocks[np.arange(n - 1), :, np.arange(1, n)], rtol=0, atol=1e-11 * scale)
    assert np.allclose(grad.ravel(), jtr, rtol=0, atol=1e-11 * np.abs(jtr).max())


@pytest.mark.parametrize("name,gait,speed", [("dog", "rotary_gallop", 6.0), ("horse", "gallop", 9.0),
                                             ("dog", "trot", 4.0), ("dog", "bound", 4.0), ("cat", "pronk", 1.5)])
def test_flights_are_ballistic_for_the_centre_of_mass(name, gait, speed):
    """Issue 18: in flight the centre of mass accelerates at g within 2 % (vertical) and 0.02 g
    (horizontal); the spine vector moves at constant rate, so the masses' centre is the COM exactly."""
    motion = solved(name, gait, speed, 6.0)
    flight = ~motion.contact.any(axis=1)
    assert flight.sum() >= 3, "the gait should have flights"
    a = motion.com_acceleration[flight]
    assert np.abs(a[:, 2] + GRAVITY).max() <= 0.02 * GRAVITY
    assert np.linalg.norm(a[:, :2], axis=1).max() <= 0.02 * GRAVITY
    relative = motion.body_point_acceleration[flight, 1] - motion.body_point_acceleration[flight, 0]
    assert np.abs(relative).max() < 1e-9  # the spine vector at constant rate: both masses fall alike


RAMP = terrains.ramp(4.0, 6.0, 0.35)  # Torkos §6: a platform 0.35 m high from 4 to 10 m, jumped onto and off
GROUNDS = {"flat": (None, ()), "slope": (terrains.slope(15), ()), "downhill": (terrains.slope(-15), ()),
           "ramp": RAMP}
PHYSICS_CASES = [("flat", "walk", 1.0), ("flat", "trot", 2.5), ("flat", "rotary_gallop", 6.0),
                 ("slope", "walk", 1.0), ("slope", "trot", 2.5), ("slope", "rotary_gallop", 5.0),
                 ("downhill", "trot", 2.5), ("ramp", "walk", 1.0), ("ramp", "trot", 2.5),
                 ("ramp", "rotary_gallop", 6.0)]
# The hind mass galloping uphill and onto the ramp: 5.7-7 % of body weight measured (the hind legs, at full
# reach as they leave the rising ground behind, push it less than its share of weight needs); the body's,
# and every other mass's, within 5 %.
MASS_BOUNDS = {("slope", "rotary_gallop"): 0.08, ("ramp", "rotary_gallop"): 0.08}


@pytest.mark.parametrize("ground,gait,speed", PHYSICS_CASES)
def test_walk_trot_gallop_are_physical(ground, gait, speed):
    """Issue 18: on flat ground, up and down a 15 degree slope and jumping onto and off a ramp, mean
    non-physical force at most 5 % of body weight, no stance leg past its maximal length, the body never
    below the terrain; flights ballistic."""
    terrain, jumps = GROUNDS[ground]
    motion = solved("dog", gait, speed, 16.0 if ground == "ramp" else 12.0, terrain, jumps=jumps)
    report = motion.report
    assert report["optimizer"]["converged"]
    assert report["non_physical_force"]["mean"] <= 0.05
    for point in ("hind", "fore"):
        assert report["mass_points"][point]["non_physical_force"]["mean"] <= MASS_BOUNDS.get((ground, gait), 0.05)
        assert report["mass_points"][point]["clearance_min"] > 0.0, point
    for foot, leg in report["leg_length"].items():
        assert leg["max"] <= leg["max_allowed"], foot
    assert report["flight"]["vertical_acceleration_error"] < 0.02
    assert report["flight"]["horizontal_acceleration"] < 0.02
    if terrain is not None:  # the body above the ground under each mass and the COM
        points = np.concatenate([motion.body_points, motion.com[:, None]], axis=1)
        under = terrain.heights(points[..., :2].reshape(-1, 2)).reshape(points.shape[:2])
        assert (points[..., 2] > under).all()
    if ground == "ramp":  # up onto the platform and down off it, in flight
        on_top = motion.com[:, 1] > 6.0
        assert motion.com[on_top, 2].max() > motion.com[0, 2] + 0.3
        assert report["flight"]["samples"] > 0


def test_each_leg_its_own_length():
    """Torkos eq. 4: legs given their own nominal lengths stand so. A lopsided build, hind legs shorter than
    the preset's: the hind legs stand shorter than the fore, the hind mass lower, the spine pitched up."""
    dog = preset("dog")
    lengths = {foot: list(pair) for foot, pair in zip(dog.feet, dog.leg_lengths.tolist())}
    lengths["LH"] = lengths["RH"] = [0.60, 0.66]
    lopsided = character_from_json({"preset": "dog", "leg_lengths": lengths})
    even, short = (solved("dog", "walk", 1.0, 8.0, character=ch) for ch in (dog, lopsided))
    for motion in (even, short):
        legs = motion.measures["leg_length"]
        motion.stance_median = [np.median(legs[motion.contact[:, i], i]) for i in range(4)]
    assert np.mean(short.stance_median[:2]) < np.mean(even.stance_median[:2]) - 0.05
    assert abs(np.mean(short.stance_median[2:]) - np.mean(even.stance_median[2:])) < 0.03
    spine = lambda m: np.median(m.body_points[:, 1, 2] - m.body_points[:, 0, 2])  # noqa: E731
    assert spine(short) > spine(even) + 0.05
    assert short.report["leg_length"]["LH"]["max_allowed"] == 0.66
    assert short.report["leg_length"]["LH"]["max"] <= 0.66 + 1e-3


def test_motion_json_holds_the_body_points():
    """Issue 18: a quadruped's motion JSON holds "body_points": {"hind": [...], "fore": [...]} per sample,
    their spine the rest spine's length within the spring's stretch; a biped's has none."""
    motion = solved("dog", "trot", 2.0, 3.0)
    data = json.loads(json.dumps(motion.to_json()))
    points = data["body_points"]
    assert set(points) == {"hind", "fore"}
    hind, fore = np.array(points["hind"]), np.array(points["fore"])
    assert hind.shape == fore.shape == (len(data["times"]), 3)
    spine = np.linalg.norm(fore - hind, axis=1)
    rest = body_of(preset("dog")).rest_length
    assert np.abs(spine - rest).max() < 0.05 * rest
    forward = (fore - hind)[:, 1]
    assert (forward > 0).all()  # the fore mass ahead
    human = biped.solve(make_track(["L", "R"], [(-0.1, 0.0, 0.0), (0.1, 0.6, 0.0)], [0.0, 0.0], [0.0, 0.55],
                                   [0.7, 1.25]))
    assert "body_points" not in human.to_json()


def test_a_batch_of_bipeds_and_quadrupeds_solves_each_with_its_body():
    dog_track = gait_track(preset("dog"), "trot", 2.0, 3.0)
    human_track = make_track(["L", "R"], [(-0.1, 0.0, 0.0), (0.1, 0.6, 0.0)], [0.0, 0.0], [0.0, 0.55], [0.7, 1.25])
    both = biped.solve_batch([human_track, dog_track])
    alone = [biped.solve(human_track), biped.solve(dog_track)]
    for together, single in zip(both, alone):
        assert together.body_points.shape == single.body_points.shape
        assert np.allclose(together.com, single.com, atol=1e-6)


def test_quadruped_character_errors_name_the_culprit():
    with pytest.raises(CharacterError, match="quadruped.*LH.*RH.*LF"):
        character_from_json({"preset": "dog", "feet": ["LH", "RH", "LF"]})
    with pytest.raises(CharacterError, match="leg_lengths 'RF'"):
        character_from_json({"preset": "dog", "leg_lengths": {"LH": [0.7, 0.8], "RH": [0.7, 0.8],
                                                              "LF": [0.7, 0.8], "RF": [0.8, 0.7]}})
    with pytest.raises(CharacterError, match="leg_lengths must give"):
        character_from_json({"preset": "dog", "leg_lengths": {"LH": [0.7, 0.8]}})
    with pytest.raises(CharacterError, match="fore_share"):
        character_from_json({"preset": "dog", "fore_share": 1.5})
    stiff = character_from_json({"preset": "dog", "spine_stiffness": 900, "fore_share": 0.55})
    assert (stiff.spine_stiffness, stiff.fore_share) == (900.0, 0.55)
    assert character_from_json(stiff.to_json()).leg_lengths.tolist() == stiff.leg_lengths.tolist()
    assert dataclasses.replace(stiff).is_quadruped


def test_a_pair_of_legs_that_cannot_carry_its_mass_is_named():
    """A bound lands each pair alone: the spring along the spine cannot hold the other mass up, so each mass
    falls more than its legs can catch (about a fifth of body weight missing); the artist is told which
    pair. A trot's report has no such line."""
    bound, trot = solved("dog", "bound", 4.0, 6.0), solved("dog", "trot", 2.0, 6.0)
    lines = report_warnings(bound.report)
    assert any(line.startswith("The hind legs cannot carry the hind body") for line in lines), lines
    assert not [line for line in report_warnings(trot.report) if "cannot carry the" in line]


def test_a_lifted_foot_stays_within_its_own_legs_reach():
    """A horse's fore legs are shorter than its hind: a swinging fore hoof is held within the fore leg's
    maximal length, not the longest leg's (it came out at 1.39 m against 1.25 allowed)."""
    motion = solved("horse", "gallop", 9.0, 10.0)
    for foot, leg in motion.report["leg_length"].items():
        assert leg["swing_max"] <= leg["max_allowed"] + 1e-9, foot
    assert motion.report["leg_length"]["LF"]["max_allowed"] < motion.report["leg_length"]["LH"]["max_allowed"]


def test_an_explicit_quadruped_without_a_preset_gets_the_two_mass_body():
    """A character object of four quadruped feet, hips and lengths, no preset: solved with two masses at the
    documented defaults (fore share 0.6, spine stiffness 400 N/m/kg), every leg the two lengths given."""
    dog = preset("dog")
    explicit = character_from_json({
        "feet": ["LH", "RH", "LF", "RF"],
        "hip_offsets": {foot: hip.tolist() for foot, hip in zip(dog.feet, dog.hip_offsets)},
        "leg_length_nominal": 0.714, "leg_length_max": 0.78, "foot_length": 0.08, "foot_width": 0.06})
    assert explicit.is_quadruped and (explicit.fore_share, explicit.spine_stiffness) == (0.6, 400.0)
    assert explicit.max_lengths.tolist() == [0.78] * 4
    motion = biped.solve(gait_track(explicit, "trot", 2.0, 4.0), explicit)
    assert motion.body_points.shape[1] == 2
    assert motion.report["mass_points"]["fore"]["non_physical_force"]["mean"] <= 0.05


def test_a_batch_of_quadrupeds_with_their_feet_in_other_orders():
    """Tracks share one two-mass problem only with the same feet order (the hind and fore legs' indices):
    a character listing its fore feet first is solved alongside, as it is alone."""
    dog = preset("dog")
    order = [2, 3, 0, 1]  # LF, RF, LH, RH
    fore_first = character_from_json({"preset": "dog", "feet": [dog.feet[i] for i in order],
                                      "hip_offsets": {dog.feet[i]: dog.hip_offsets[i].tolist() for i in order},
                                      "leg_lengths": {dog.feet[i]: dog.leg_lengths[i].tolist() for i in order}})
    track = gait_track(dog, "trot", 2.0, 3.0)
    both = biped.solve_batch([track, track], [dog, fore_first])
    alone = biped.solve(track, fore_first)
    assert np.allclose(both[1].com, alone.com, atol=1e-6) and np.allclose(both[0].com, alone.com, atol=1e-3)


@pytest.mark.parametrize("gait,speed,bound", [("pronk", 2.5, 2.0), ("bound", 4.0, 8.0), ("trot", 2.0, 3.0)])
def test_the_back_holds_straight_sideways(gait, speed, bound):
    """The back's sideways stiffness (two_mass.SPINE_STRAIGHT): a pronk, a bound and a trot from standing keep
    the hind-to-fore line within a few degrees of the path (without it the pronk's buckled 14 degrees, the
    bound's 25, the trot's 7.5 mid-gait), and on a turn the body stays physical while the line follows the
    path round (its yaw turns as the path does)."""
    dog = preset("dog")
    motion = biped.solve(gait_track(dog, gait, speed, 8.0, stand=True), dog)
    spine = motion.body_points[:, 1] - motion.body_points[:, 0]
    assert np.degrees(np.abs(np.arctan2(spine[:, 0], spine[:, 1]))).max() < bound
    assert "spine" in motion.report["energy"]
    turning = biped.solve(gait_track(dog, "trot", 2.0, 8.0, turn_radius=4.0), dog)
    spine = turning.body_points[:, 1] - turning.body_points[:, 0]
    line = np.unwrap(np.arctan2(-spine[:, 0], spine[:, 1]))
    assert abs(np.degrees(line[-1] - line[0]) - np.degrees(8.0 / 4.0)) < 15.0
    assert turning.report["non_physical_force"]["mean"] <= 0.05


def test_a_quadruped_re_solve_starts_warm():
    """A footprint moved (a live drag): the re-solve starts from the earlier solution (twelve numbers per
    knot), converging in fewer iterations to the cold solve's motion."""
    dog = preset("dog")
    track = gait_track(dog, "trot", 2.0, 6.0)
    first = biped.solve(track, dog)
    assert first.solution.shape[1] == 12
    positions = track.positions.copy()
    positions[9] += [0.02, 0.03, 0.0]
    moved = track.replace(positions=positions)
    warm, cold = biped.solve(moved, dog, warm=first.solution), biped.solve(moved, dog)
    assert warm.report["optimizer"]["warm_start"] and not cold.report["optimizer"]["warm_start"]
    assert warm.report["optimizer"]["iterations"] < cold.report["optimizer"]["iterations"]
    assert np.abs(warm.com - cold.com).max() < 5e-3
    # A long track: only the knots near the moved footprint are re-optimised (a window), the rest held.
    long_track = gait_track(dog, "trot", 2.0, 40.0)
    first = biped.solve(long_track, dog)
    k = len(long_track) // 2
    positions = long_track.positions.copy()
    positions[k] += [0.02, 0.03, 0.0]
    moved = long_track.replace(positions=positions)
    span = (long_track.contact[k] - 0.01, long_track.liftoff[k] + 0.01)
    windowed = biped.solve(moved, dog, warm=first.solution, changed=span, previous=first)
    assert windowed.report["optimizer"]["window"] is not None
    assert np.abs(windowed.com - biped.solve(moved, dog).com).max() < 5e-3
