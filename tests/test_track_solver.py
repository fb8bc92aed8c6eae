"""The pure-numpy side of authoring: validation, JSON, timing (vdP97 §4.1), paths, edits. No Blender."""

import json
import math

import numpy as np
import pytest

from footprint_locomotion.solver import errors
from footprint_locomotion.solver.character import PRESETS, character_from_json, preset
from footprint_locomotion.solver.footprints import edits, footpath, placement, timing
from footprint_locomotion.solver.track import dumps, make_track, parse_track_text, track_to_json, validate

HUMAN = preset("human")


def walk(n=6, step=0.7):
    positions = [(0.1 * (-1) ** (i + 1), step * i, 0.0) for i in range(n)]
    contact, liftoff = timing.timing_for_sequence(positions, "walk", HUMAN.time_unit, HUMAN.leg_length_nominal)
    feet = ["L", "R"] * (n // 2)
    return make_track(feet, positions, np.zeros(n), contact, liftoff)


def test_walk_timing_fig12_double_stance_then_leap_past_threshold():
    d = np.linspace(0.05, 3.0, 300) * HUMAN.leg_length_nominal
    stance, step = timing.step_timing(d, "walk", HUMAN.time_unit, HUMAN.leg_length_nominal)
    leap = d / HUMAN.leg_length_nominal > timing.LEAP_THRESHOLD
    assert (stance[~leap] > step[~leap]).all()  # double stance: the next foot lands before this one lifts
    assert (stance[leap] < step[leap]).all()  # a flight phase once a step exceeds the threshold
    assert (np.diff(step[~leap]) > 0).all() and (np.diff(step[leap] - stance[leap]) > 0).all()
    # Froude scaling: a bird's timing is the human's, scaled by sqrt(l_nom / g).
    bird = preset("bird")
    s_b, t_b = timing.step_timing(0.5 * bird.leg_length_nominal, "walk", bird.time_unit, bird.leg_length_nominal)
    s_h, t_h = timing.step_timing(0.5 * HUMAN.leg_length_nominal, "walk", HUMAN.time_unit, HUMAN.leg_length_nominal)
    assert t_b / t_h == pytest.approx(bird.time_unit / HUMAN.time_unit)


def test_run_timing_flies_as_runners_do():
    """Automatic run timing against running data (issue 28: vdP97's reading flew 40-56 % of every step): a
    1.225 m step takes 0.35 s, 0.25 s of it on the ground (3.5 m/s); the flight's share 20-35 % at 3-4 m/s,
    growing with the step (about 45 % at 5 m/s: Weyand et al. 2000; Dorn, Schache & Pandy 2012), every
    step flying; the Froude scaling holds."""
    stance, step = timing.step_timing(1.225, "run", HUMAN.time_unit, HUMAN.leg_length_nominal)
    assert stance == pytest.approx(0.25, abs=0.005) and step == pytest.approx(0.35, abs=0.005)
    d = np.linspace(0.3, 2.2, 200)
    stance, step = timing.step_timing(d, "run", HUMAN.time_unit, HUMAN.leg_length_nominal)
    share, speed = 1.0 - stance / step, d / step
    assert (share >= timing.MIN_RUN_FLIGHT - 1e-12).all() and (np.diff(share) >= -1e-12).all()
    assert (np.diff(speed) > 0).all()
    jog = (speed >= 3.0) & (speed <= 4.0)
    assert 0.2 <= share[jog].min() and share[jog].max() <= 0.36
    assert 0.4 <= np.interp(5.0, speed, share) <= 0.5
    bird = preset("bird")
    s_b, t_b = timing.step_timing(1.4 * bird.leg_length_nominal, "run", bird.time_unit, bird.leg_length_nominal)
    s_h, t_h = timing.step_timing(1.4 * HUMAN.leg_length_nominal, "run", HUMAN.time_unit, HUMAN.leg_length_nominal)
    assert (s_b / s_h, t_b / t_h) == pytest.approx((bird.time_unit / HUMAN.time_unit,) * 2)


@pytest.mark.parametrize("gait", timing.GAITS)
def test_generated_timing_is_valid_for_every_gait(gait):
    positions, headings, feet = footpath.footprints_along_path(
        [(0, 0, 0), (0, 20, 0)], 0.9, 0.2, together=gait == "hop")
    contact, liftoff = timing.timing_for_sequence(positions, gait, HUMAN.time_unit, HUMAN.leg_length_nominal,
                                                  group_size=2 if gait == "hop" else 1)
    validate(make_track(feet, positions, headings, contact, liftoff))
    assert (np.diff(contact) >= 0).all()


def test_path_headings_offsets_and_fill():
    theta = np.linspace(0, np.pi, 400)
    arc = np.stack([5 * np.cos(theta), 5 * np.sin(theta), np.zeros_like(theta)], axis=1)  # CCW half circle
    positions, headings, feet = footpath.footprints_along_path(arc, 0.5, 0.3, "R")
    assert len(positions) == int(5 * np.pi / 0.5) + 1
    assert list(feet[:3]) == ["R", "L", "R"]
    radial = np.linalg.norm(positions[:, :2], axis=1)
    assert np.allclose(radial[feet == "L"], 4.85, atol=1e-3)  # left of travel on a left turn: inside
    assert np.allclose(radial[feet == "R"], 5.15, atol=1e-3)
    err = np.angle(np.exp(1j * (headings - footpath.heading_of(np.stack(
        [-positions[:, 1], positions[:, 0]], axis=1)))))
    assert np.degrees(np.abs(err)).max() < 0.05


def test_path_errors_name_the_problem():
    with pytest.raises(errors.PathError, match="zero length"):
        footpath.footprints_along_path([(1, 1, 0), (1, 1, 0)], 0.5, 0.2)
    with pytest.raises(errors.PathError, match="step length must be positive"):
        footpath.footprints_along_path([(0, 0, 0), (0, 1, 0)], 0.0, 0.2)
    with pytest.raises(errors.PathError, match="more than the limit"):
        footpath.footprints_along_path([(0, 0, 0), (0, 1e6, 0)], 0.5, 0.2)


def test_tilt_makes_local_z_the_normal_and_keeps_heading():
    rng = np.random.default_rng(3)
    normals = rng.normal(size=(50, 3)) * [0.3, 0.3, 0.0] + [0, 0, 1]
    headings = rng.uniform(-np.pi, np.pi, 50)
    pitch, roll = footpath.tilt_from_normals(normals, headings)
    for n, h, a, b in zip(normals, headings, pitch, roll):
        rz = np.array([[np.cos(h), -np.sin(h), 0], [np.sin(h), np.cos(h), 0], [0, 0, 1]])
        rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
        ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
        r = rz @ rx @ ry
        assert np.allclose(r[:, 2], n / np.linalg.norm(n))
        assert math.atan2(-r[0, 1], r[1, 1]) == pytest.approx(h)


def test_validation_errors_name_footprints():
    t = walk()
    with pytest.raises(errors.OverlapError, match="footprint 2: foot L touches down"):
        validate(t.replace(contact=np.where(np.arange(6) == 2, 0.1, t.contact)))
    with pytest.raises(errors.TimingError, match="footprint 4: liftoff"):
        validate(t.replace(liftoff=np.where(np.arange(6) == 4, t.contact - 1, t.liftoff)))
    with pytest.raises(errors.NonFiniteError, match="footprint 'Heel': heading"):
        validate(t.replace(headings=np.where(np.arange(6) == 1, np.nan, 0.0)), labels=["x", "Heel"] + ["y"] * 4)
    with pytest.raises(errors.UnknownFootError, match="footprint 0: unknown foot 'LF'"):
        validate(t.replace(feet=np.array(["LF"] + list(t.feet[1:]))), allowed_feet=("L", "R"))


def test_json_round_trip_and_errors():
    t = walk()
    text = dumps(track_to_json(t))
    back = parse_track_text(text)
    assert np.array_equal(back.positions, t.positions) and np.array_equal(back.contact, t.contact)
    assert dumps(track_to_json(back)) == text
    doc = json.loads(text)
    doc["footprints"][1]["position"] = [1.0, 2.0]
    two_d = parse_track_text(json.dumps(doc))
    assert not two_d.has_height[1] and two_d.has_height[0]
    for bad, kind, message in [
        ("[]", errors.TrackFormatError, "not a footprint track"),
        ('{"format": "footprint-track", "version": 2}', errors.TrackFormatError, "unsupported"),
        ('{"format": "footprint-track", "version": 1, "footprints": [{"foot": "L", "position": "here", '
         '"contact": 0, "liftoff": 1}]}', errors.TrackFormatError, "footprint 0: position"),
        ('{"format": "footprint-track", "version": 1, "footprints": [{"foot": "L", "position": [0, 0], '
         '"contact": true, "liftoff": 1}]}', errors.TrackFormatError, "footprint 0: contact must be a number"),
    ]:
        with pytest.raises(kind, match=message):
            parse_track_text(bad)


def test_character_json():
    assert set(PRESETS) >= {"human", "bird", "dinosaur"}
    c = character_from_json({"preset": "dinosaur", "leg_length_max": 2.0})
    assert c.leg_length_max == 2.0 and c.leg_length_nominal == PRESETS["dinosaur"].leg_length_nominal
    assert character_from_json(c.to_json()).hip_offsets.tolist() == c.hip_offsets.tolist()
    with pytest.raises(errors.UnknownPresetError, match="'elephant'"):
        character_from_json("elephant")
    with pytest.raises(errors.CharacterError, match="leg_length_nominal < leg_length_max"):
        character_from_json({"leg_length_nominal": 1.0, "leg_length_max": 0.9})


def test_edits():
    t = walk()
    sel = np.arange(6) >= 3
    r = edits.retime(t, sel, 2.0, 0.5)
    assert r.contact[3] == pytest.approx(t.contact[3] + 0.5)
    assert r.contact[5] == pytest.approx(t.contact[3] + 2 * (t.contact[5] - t.contact[3]) + 0.5)
    assert np.array_equal(r.contact[:3], t.contact[:3])
    m = edits.mirror(t, np.ones(6, bool))
    assert list(m.feet) == ["R", "L"] * 3
    assert np.allclose(m.positions[:, 0], -t.positions[:, 0])
    twice = edits.mirror(m, np.ones(6, bool))
    assert np.allclose(twice.positions, t.positions) and list(twice.feet) == list(t.feet)
    d = edits.delete(t, np.isin(np.arange(6), [2, 3]), close_gap=True)
    assert len(d) == 4 and list(d.feet) == ["L", "R", "L", "R"]
    assert d.contact[2] == pytest.approx(t.contact[2])  # the footprint after the gap lands where it began
    validate(d)
    assert np.array_equal(edits.delete(t, np.isin(np.arange(6), [5]), close_gap=True).contact, t.contact[:5])


def test_append_step_alternates_and_retimes_previous():
    t = make_track([], np.zeros((0, 3)), [], [], [])
    for i in range(4):
        t = placement.append_step(t, (0.1 * (-1) ** (i + 1), 0.7 * i, 0.0), HUMAN, "walk")
    assert list(t.feet) == ["L", "R", "L", "R"]
    assert (np.diff(t.contact) > 0).all() and (t.liftoff[:-1] > t.contact[1:]).all()
    assert np.allclose(t.headings[2:], 0.0, atol=1e-9)  # along the stride, not across the step
    validate(t)
    hop = make_track([], np.zeros((0, 3)), [], [], [])
    for i in range(4):
        hop = placement.append_step(hop, (0.1 * (-1) ** i, 0.8 * (i // 2), 0.0), HUMAN, "hop")
    assert hop.contact[0] == hop.contact[1] and hop.contact[2] == hop.contact[3] > hop.liftoff[0]
