"""Footstep timing optimised (issue 20, item 5): moving contact and lift-off times within the artist's slack lowers
the solved energy of vdP97's Fig. 1 and of every bundled track, never breaks a contact constraint (each stance and
swing keeps a positive duration, the events their order, the motion its span), and reports the gain."""

import importlib
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
SCENARIOS = sorted(p.stem for p in DATA.glob("*.json"))


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def assert_contacts_kept(before, after, slack):
    events_before = np.concatenate([before.contact, before.liftoff])
    events_after = np.concatenate([after.contact, after.liftoff])
    assert np.abs(events_after - events_before).max() <= slack + 1e-12
    assert (after.liftoff > after.contact).all()
    assert np.array_equal(np.argsort(events_before, kind="stable"), np.argsort(events_after, kind="stable"))
    for foot in set(after.feet):  # the same foot's stances never overlap
        mine = np.flatnonzero(after.feet == foot)
        mine = mine[np.argsort(after.contact[mine])]
        assert (after.contact[mine[1:]] > after.liftoff[mine[:-1]]).all()
    assert events_after.min() == events_before.min() and events_after.max() == events_before.max()
    assert np.array_equal(after.positions, before.positions) and np.array_equal(after.headings, before.headings)


def test_fig1_gains_and_says_how_much(solver):
    timing = solver("planning.timing_optimisation")
    track = solver("footprints.examples").fig1_track()
    result = timing.optimise_timing(track, 0.1)
    assert_contacts_kept(track, result.track, 0.1)
    again = solver("biped").solve(result.track).report["energy"]["total"]
    assert again == pytest.approx(result.energy_after, rel=1e-9)  # the energy reported is the track's (solved cold)
    assert result.gain > 0.2, result.report()  # vdP97 Fig. 1's hop and stand: 46 % measured
    report = result.report()
    assert report["energy_before"] == pytest.approx(solver("biped").solve(track).report["energy"]["total"], rel=1e-9)
    assert report["gain"] == pytest.approx(1 - report["energy_after"] / report["energy_before"])
    assert 0 < report["largest_move_seconds"] <= 0.1


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_bundled_track_gains(solver, name):
    timing, tracks = solver("planning.timing_optimisation"), solver("track")
    track = tracks.load_track(DATA / f"{name}.json")
    result = timing.optimise_timing(track, 0.08, max_iterations=3)
    assert_contacts_kept(track, result.track, 0.08)
    assert result.energy_after < result.energy_before, result.report()
    again = solver("biped").solve(result.track).report["energy"]["total"]  # the new timing solved as baked
    assert again == pytest.approx(result.energy_after, rel=1e-9)


def test_no_slack_changes_nothing_and_bad_slack_is_named(solver):
    timing, errors = solver("planning.timing_optimisation"), solver("errors")
    track = solver("footprints.examples").fig1_track()
    result = timing.optimise_timing(track, 0.0)
    assert np.array_equal(result.track.contact, track.contact) and result.gain == 0.0
    with pytest.raises(errors.TimingError, match="slack"):
        timing.optimise_timing(track, -0.1)
    for motion in solver("track").MOTIONS:  # a stepping walk, or one with standing ends, times its own steps
        marked = track.replace(extras={**track.extras, "motion": motion})
        with pytest.raises(errors.TimingError, match=f'a track marked "motion": "{motion}" times its own steps'):
            timing.optimise_timing(marked, 0.1)
