"""A walk that starts and stops standing (issue 19, item 4; "motion": "standing_ends"): its first and last steps are
WMZ steps, the COM optimisation's walk between them carries on from where the first leaves off; no jump in the COM's
position or velocity at either seam, at rest standing at both ends, the feet on their footprints."""

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data"
FPS = 240.0


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def marked(solver, name):
    track = solver("track").load_track(DATA / f"{name}.json")
    return track.replace(extras={**track.extras, "motion": "standing_ends"})


@pytest.mark.parametrize("name", ["straight_walk", "turn90", "fig1"])
def test_no_jump_at_the_seams(solver, name):
    """The tracks start and end a step away from the other foot: a footprint beside each end is added."""
    motion = solver("biped").solve(marked(solver, name), fps=FPS)
    seams = motion.report["walk_ends"]["seams"]
    assert len(seams) == 2 and seams[0] < seams[1]
    dt = 1.0 / FPS
    for seam in seams:
        k = int(np.searchsorted(motion.times, seam))
        # Position: each frame's step is the velocity times the frame, across the seam as on either side of it.
        steps = np.diff(motion.com[k - 4:k + 4], axis=0)
        expected = 0.5 * (motion.com_velocity[k - 4:k + 3] + motion.com_velocity[k - 3:k + 4]) * dt
        assert np.abs(steps - expected).max() < 2e-4, (seam, np.abs(steps - expected).max())
        # Velocity: its change over the frame across the seam no bigger than three times the neighbours'.
        change = np.linalg.norm(np.diff(motion.com_velocity[k - 6:k + 6], axis=0), axis=1)
        across = change[5]
        around = np.concatenate([change[:4], change[7:]])
        assert across <= 3.0 * max(around.max(), 1e-3), (seam, across, around)
    # At rest standing at both ends, both feet down, the stance feet on their footprints, legs within reach.
    assert np.linalg.norm(motion.com_velocity[0]) < 0.01 and np.linalg.norm(motion.com_velocity[-1]) < 0.01
    assert motion.contact[0].all() and motion.contact[-1].all()
    report = motion.report
    assert report["stance_slip"] < 1e-6
    assert all(report["leg_length"][f]["max"] <= report["leg_length"][f]["max_allowed"] + 2e-3 for f in "LR")
    assert report["non_physical_force"]["mean"] < 0.06, report["non_physical_force"]


def test_the_end_steps_are_wmz_steps(solver):
    """The first swing (before the first seam) runs on the straight line between its footprints (WMZ §4), the
    COM starts over the middle of the feet, and the walk between the seams is the COM optimisation's."""
    track = marked(solver, "straight_walk")
    motion = solver("biped").solve(track, fps=FPS)
    first_seam = motion.report["walk_ends"]["seams"][0]
    ordered = motion.track
    for leg in range(2):
        lifted = ~motion.contact[:, leg] & (motion.times < first_seam)
        if not lifted.any():
            continue
        feet = motion.feet[lifted, leg, :2]
        a, b = feet[0], feet[-1]
        across = np.abs(np.cross(b - a, feet - a)) / np.linalg.norm(b - a)
        assert across.max() < 0.01
    start_feet = [int(np.flatnonzero(ordered.feet == f)[0]) for f in "LR"]
    assert np.linalg.norm(motion.com[0, :2] - ordered.positions[start_feet, :2].mean(axis=0)) < 1e-9
    # The right foot was added beside the first (left) footprint, the stance width to its right.
    assert len(ordered) == len(track) + 2
    first, partner = ordered.positions[start_feet[0]], ordered.positions[start_feet[1]]
    assert partner[:2] == pytest.approx(first[:2] + [0.18, 0.0])
    assert motion.report["walk_ends"]["middle"]["window"][0] == 1  # the walk's first knot held


def test_the_mark_round_trips_and_bad_walks_are_named(solver, tmp_path):
    tracks, errors = solver("track"), solver("errors")
    track = marked(solver, "straight_walk")
    path = tmp_path / "walk.json"
    path.write_text(tracks.dumps(tracks.track_to_json(track)))
    assert json.loads(path.read_text())["motion"] == "standing_ends"
    assert tracks.load_track(path).has_standing_ends
    one_foot = track.take(np.flatnonzero(track.feet == "L"))
    for refuses in (solver("biped").solve, solver("biped").check):  # validate refuses what solve refuses
        with pytest.raises(errors.SteppingError, match="foot L alone"):
            refuses(one_foot)


def test_a_held_start_state_is_held_and_only_by_levenberg_marquardt(solver):
    """biped.solve(start_state=): the first knot where another motion leaves off (walk_ends' seam), every other
    optimised; another method is refused rather than named in the report while ignored."""
    biped = solver("biped")
    walk = solver("track").load_track(DATA / "straight_walk.json")
    free = biped.solve(walk, fps=120)
    position, velocity = free.com[0] + [0.0, 0.0, -0.02], free.com_velocity[0] + [0.0, 0.1, 0.0]
    held = biped.solve(walk, fps=120, start_state=(position, velocity))
    assert np.allclose(held.com[0], position, atol=1e-9) and np.allclose(held.com_velocity[0], velocity, atol=1e-9)
    with pytest.raises(ValueError, match="Levenberg-Marquardt, not 'greedy'"):
        biped.solve(walk, fps=120, method="greedy", start_state=(position, velocity))


def test_the_end_steps_keep_a_rigs_legs_within_reach(solver):
    """On legs that end at an ankle (a rig's): the end steps keep every foot within the leg's reach, as the walk's
    and any stepping motion's do (issue 28: the end steps had no reach clamp: a swinging ankle 18 mm past it
    here); the report says what was drawn in."""
    import dataclasses

    human = solver("character").preset("human")
    rig = dataclasses.replace(human, heel_strike=np.radians(15.0), ankle_offset=(0.0, -0.05, 0.08),
                              ankle_reach=0.84)
    motion = solver("biped").solve(marked(solver, "straight_walk"), rig, fps=FPS)
    first, last = motion.report["walk_ends"]["seams"]
    ends = (motion.times < first) | (motion.times > last)
    ankle = motion.feet + 0.08 * motion.foot_rotation[..., :, 2] - 0.05 * motion.foot_rotation[..., :, 1]
    reach = np.linalg.norm(ankle - motion.hips, axis=-1)
    assert reach[ends].max() <= 0.84 + 1e-6
    assert set(motion.report["ankle_reach"]) == {"L", "R"}
