"""Footprints from existing animation (issue 20, item 4), the detection on sampled foot motion: the plants of the
product's own solved motions come back as their footprints (within 1 cm and one frame), a keyframed walk whose
stance feet skate gives one footprint per plant and re-solves without skate; no plant at all is named.
(On rigs, from actions, re-solved on raised ground: test_planning_extraction_rig.py.)"""

import importlib
from dataclasses import replace

import numpy as np
import pytest

FPS = 30.0


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def sole_motion(motion):
    """Heel, mid-foot and toe points (N, L, 3, 3), the mid-foot point and the toe direction, of a Motion."""
    character = motion.character
    forward = motion.foot_rotation[..., :, 1]
    heel, toe = motion.feet - character.heel * forward, motion.feet + character.toe * forward
    return np.stack([heel, motion.feet, toe], axis=2), motion.feet, forward


@pytest.mark.parametrize("heel_strike", [0.0, 0.25])
def test_own_motions_give_back_their_footprints(solver, heel_strike):
    character = replace(solver("character").preset("human"), heel_strike=heel_strike)
    track = solver("footprints.examples").fig1_track()
    motion = solver("biped").solve(track, character=character, fps=FPS)
    sole, support, forward = sole_motion(motion)
    found = solver("planning.extraction").extract_track(motion.times, character.feet, sole, support, forward,
                                                        character.leg_length_nominal)
    truth = track.take(track.time_order())
    assert len(found) == len(truth) and list(found.feet) == list(truth.feet)
    assert np.abs(found.positions - truth.positions).max() < 0.01
    assert np.degrees(np.abs(found.headings - truth.headings)).max() < 1.0
    assert np.abs(found.contact - truth.contact).max() <= 1.0 / FPS + 1e-9
    assert np.abs(found.liftoff - truth.liftoff).max() <= 1.0 / FPS + 1e-9


def test_a_skating_walk_gives_one_footprint_per_plant(solver):
    """A walk's stance feet slide 4 cm forward while planted (deliberate skate): each plant is still one
    footprint, at the foot's mean place, with its timing."""
    character = solver("character").preset("human")
    track = solver("track").load_track(__import__("pathlib").Path(__file__).parent / "data" / "straight_walk.json")
    motion = solver("biped").solve(track, fps=FPS)
    sole, support, forward = sole_motion(motion)
    skate = np.zeros(support.shape)
    for leg in range(2):  # each stance foot slides 4 cm along +Y over its stance
        stance = motion.contact[:, leg]
        runs = np.split(np.flatnonzero(stance), np.flatnonzero(np.diff(np.flatnonzero(stance)) > 1) + 1)
        for run in runs:
            skate[run, leg, 1] = np.linspace(-0.02, 0.02, len(run))
    found = solver("planning.extraction").extract_track(motion.times, character.feet, sole + skate[:, :, None],
                                                        support + skate, forward, character.leg_length_nominal)
    truth = track.take(track.time_order())
    assert len(found) == len(truth)
    assert np.abs(found.positions - truth.positions).max() < 0.01  # the plant's mean place
    assert np.abs(found.contact - truth.contact).max() <= 1.0 / FPS + 1e-9


def test_no_plant_is_named(solver):
    extraction, errors = solver("planning.extraction"), solver("errors")
    times = np.arange(20) / FPS
    flying = np.zeros((20, 2, 3, 3))
    flying[..., 1] = 3.0 * times[:, None, None]  # both feet moving at 3 m/s: never planted
    with pytest.raises(errors.FootprintError, match="no foot plant found"):
        extraction.extract_track(times, ("L", "R"), flying, flying[:, :, 1], np.tile([0.0, 1.0, 0.0], (20, 2, 1)), 0.86)
