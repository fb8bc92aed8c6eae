"""RUNNER's running parameters (Bruderlin & Calvert 1996, eqs. 1-6) and running footprint tracks."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from footprint_locomotion.solver.character import GRAVITY
from footprint_locomotion.solver.running import parameters as running
from footprint_locomotion.solver.track import load_track, validate


def test_the_papers_numbers():
    p = running.natural(12.0, level=0.0, body_height=1.8)
    assert p.step_length == pytest.approx(1.07, abs=0.01)
    assert p.step_frequency == pytest.approx(187, abs=1)
    locked = running.change(p, "step_frequency", 210, locked=("velocity",))
    assert locked.step_length == pytest.approx(0.95, abs=0.01)
    assert running.kmh(locked.velocity) == pytest.approx(12.0)
    assert locked.flight_height < p.flight_height  # the paper: 0.004 m falls to 0.001 m


def test_body_height_and_level_move_step_length_as_eq2():
    v = running.m_per_min(12.0)
    for height in (1.7, 1.9):
        for level in (-0.001, 0.001):
            expected = 0.1394 + (0.00465 + level) * v * math.sqrt(height / 1.8)
            assert running.natural(12.0, level, height).step_length == pytest.approx(expected)
    assert running.natural(12.0, 0.0, 1.7).step_length < running.natural(12.0, 0.0, 1.9).step_length
    assert running.natural(12.0, -0.001).step_length < running.natural(12.0, 0.001).step_length


def test_step_length_constant_above_400_m_per_min():
    lengths = [running.natural(running.kmh(v)).step_length for v in (400.0, 450.0, 500.0)]
    assert lengths[0] == pytest.approx(0.1394 + 0.00465 * 400) and np.ptp(lengths) < 1e-12
    assert running.natural(running.kmh(390.0)).step_length < lengths[0]
    fast = running.natural(running.kmh(500.0))
    assert fast.step_frequency == pytest.approx(500.0 / lengths[0])  # only sf grows


def test_flight_time_follows_eq5_eq4_and_the_constant():
    def eq4(f):
        return -8.925 + 0.131 * f - 0.623e-3 * f**2 + 0.979e-6 * f**3

    def eq5(f):
        return -0.675e-3 - 0.15e-3 * f + 0.542e-5 * f**2

    for f in (150.0, 170.0, 179.9):
        assert running.flight_time(f) == pytest.approx(eq5(f))
    for f in (180.0, 200.0, 229.9):
        assert running.flight_time(f) == pytest.approx(eq4(f))
    for f in (230.0, 250.0, 300.0):
        assert running.flight_time(f) == pytest.approx(eq4(230.0))


def test_eq3_and_eq6():
    p = running.natural(15.0)
    assert p.flight_height == pytest.approx(p.flight_time**2 * GRAVITY / 8)
    assert p.stance_time == pytest.approx(60.0 / p.step_frequency - p.flight_time)
    assert p.swing_time == pytest.approx(60.0 / p.step_frequency + p.flight_time)
    assert running.flight_height(0.2, y1=0.02, y2=0.0) < running.flight_height(0.2)


def test_locks_and_bad_values():
    p = running.natural(12.0)
    held = running.change(p, "velocity", running.m_per_min(14.0), locked=("step_length",))
    assert held.step_length == p.step_length and held.step_frequency > p.step_frequency
    free = running.change(p, "step_frequency", p.step_frequency)
    assert free.velocity == pytest.approx(p.velocity) and free.step_length == pytest.approx(p.step_length)
    high = running.change(p, "flight_height", 0.08)
    faster = running.change(high, "velocity", running.m_per_min(14.0), locked=("flight_height",))
    assert faster.flight_height == pytest.approx(0.08) and faster.step_length > high.step_length
    with pytest.raises(running.RunningError, match="velocity is locked"):
        running.change(p, "velocity", 100.0, locked=("velocity",))
    with pytest.raises(running.RunningError, match="must be a positive number"):
        running.change(p, "step_length", float("nan"))
    with pytest.raises(running.RunningError, match="level must be within"):
        running.natural(12.0, level=0.01)


def test_running_track_has_the_parameters_timing():
    p = running.natural(14.0)
    track = validate(running.running_track(p, 12))
    assert np.allclose(np.diff(track.positions[:, 1]), p.step_length)
    assert np.allclose(np.diff(track.contact), 60.0 / p.step_frequency)
    assert np.allclose(track.contact[1:] - track.liftoff[:-1], p.flight_time)  # flight between steps
    assert list(track.feet[:4]) == ["L", "R", "L", "R"]
    ramp = validate(running.running_track(p, 14, start_standing=True, stop_standing=True))
    steps = np.diff(ramp.positions[1:-1, 1])
    assert steps[0] < steps[len(steps) // 2] and steps[-1] < steps[len(steps) // 2]  # speeds up, slows down
    assert ramp.contact[0] == ramp.contact[1] == 0.0  # starts standing on both feet


def test_running_command_writes_a_track(tmp_path):
    out = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, "-m", "footprint_locomotion", "running", "--speed-kmh", "12",
                           "--steps", "10", "--output", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-1000:]
    track = load_track(out)
    assert len(track) == 10 and np.allclose(np.diff(track.positions[:, 1]), 1.0694, atol=1e-3)
    assert json.loads(out.read_text())["format"] == "footprint-track"


from footprint_locomotion.solver.running import pelvis as running_pelvis  # noqa: E402


def test_pelvis_flight_is_a_parabola_and_the_step_is_seamless():
    params = running.natural(12.0)
    legs = running_pelvis.LegGeometry.for_height(1.8)
    step = running_pelvis.step(params, legs)
    t = np.linspace(step.t_stance + 1e-4, params.step_time - 1e-4, 200)
    x, y, vx, vy = step.pelvis(t)
    dt = t[1] - t[0]
    acc = np.diff(y, 2) / dt**2
    assert np.abs(acc + GRAVITY).max() <= 0.02 * GRAVITY  # flight: a parabola under gravity
    assert np.allclose(np.diff(x) / dt, step.v, rtol=1e-6)
    # Continuity everywhere: positions and velocities at toe-off, mid-support and across the seam.
    for at in (step.t_stance, 0.5 * step.t_stance):
        before, after = step.pelvis([at - 1e-9]), step.pelvis([at + 1e-9])
        assert np.allclose(np.ravel(before), np.ravel(after), atol=1e-5)
    start, end = step.pelvis([0.0]), step.pelvis([params.step_time])
    assert end[0][0] - start[0][0] == pytest.approx(params.step_length)  # one step forward
    assert end[1][0] == pytest.approx(start[1][0], abs=1e-9)  # same height: the next step starts here
    assert end[2][0] == pytest.approx(start[2][0], abs=1e-9) and end[3][0] == pytest.approx(start[3][0], abs=1e-9)
    # Mid-support is the lowest point of the step.
    support = np.linspace(0, step.t_stance, 101)
    assert np.argmin(step.pelvis(support)[1]) == pytest.approx(50, abs=2)


def test_case_two_newton_raphson_recovers_case_one():
    params = running.natural(14.0)
    legs = running_pelvis.LegGeometry.for_height(1.8)
    one = running_pelvis.step(params, legs)
    two = running_pelvis.step(params, legs, height=one.flight_height)
    assert two.x1 == pytest.approx(one.x1, abs=1e-7) and two.y1 == pytest.approx(one.y1, abs=1e-7)
    assert two.t_flight == pytest.approx(one.t_flight, abs=1e-7)
    higher = running_pelvis.step(params, legs, height=one.flight_height * 2.0)
    assert higher.t_flight > one.t_flight  # a higher flight takes longer
    for step in (one, higher):  # and mid-support stays the lowest point of the support
        support = np.linspace(0, step.t_stance, 101)
        assert np.argmin(step.pelvis(support)[1]) == pytest.approx(50, abs=2)


def test_overstride_falls_with_velocity():
    legs = running_pelvis.LegGeometry.for_height(1.8)
    slow = running_pelvis.step(running.natural(10.0), legs)
    fast = running_pelvis.step(running.natural(20.0), legs)
    assert fast.overstride < slow.overstride


from footprint_locomotion.solver.running import attributes as attrs  # noqa: E402


def test_nineteen_attributes_with_the_papers_couplings():
    assert len(attrs.ATTRIBUTE_NAMES) == 19
    groups = [attrs.RANGES[n][3] for n in attrs.ATTRIBUTE_NAMES]
    assert (groups.count("arms"), groups.count("torso"), groups.count("pelvis"), groups.count("legs")) == (5, 2, 3, 9)
    slow, fast = running.natural(9.0), running.natural(24.0)
    a_slow, a_fast = attrs.natural_attributes(slow), attrs.natural_attributes(fast)
    assert a_fast.overstride < a_slow.overstride  # overstride falls with velocity
    assert a_fast.pelvic_rotation > a_slow.pelvic_rotation  # pelvic rotation grows with step length
    assert a_fast.knee_angle_toe_off < a_slow.knee_angle_toe_off  # falls with step length
    high = running.change(slow, "flight_height", slow.flight_height * 3.0)
    assert attrs.natural_attributes(high).bounciness > a_slow.bounciness  # grows with flight height
    wide = attrs.natural_attributes(slow, stride_width=0.25)
    assert wide.lateral_displacement > a_slow.lateral_displacement  # coupled to stride width
    quick = running.change(slow, "step_frequency", 215.0, locked=("velocity",))
    assert attrs.natural_attributes(quick).lateral_displacement < a_slow.lateral_displacement  # falls with sf
    chosen = attrs.natural_attributes(fast, overstride=0.2)
    assert chosen.overstride == 0.2  # a value the user set stays
    hidden = a_fast.hidden(fast)
    assert hidden["ankle_toe_off"] > a_slow.hidden(slow)["ankle_toe_off"]
    with pytest.raises(running.RunningError, match="bounciness must be within"):
        attrs.natural_attributes(slow, bounciness=3.0)
    with pytest.raises(running.RunningError, match="unknown running attributes: wings"):
        attrs.natural_attributes(slow, wings=1.0)


def test_recoveries_keep_the_stance_leg_within_reach():
    params = running.natural(12.0)
    legs = running_pelvis.LegGeometry.for_height(1.8)
    # A big overstride with a stiff knee at impact would over-stretch the landing leg: the pelvis drops.
    short_legs = running_pelvis.LegGeometry(legs.heel_strike_length, legs.toe_off_length, legs.foot_length,
                                            legs.reach * 0.93, legs.ankle_height)
    plain = running_pelvis.step(params, running_pelvis.LegGeometry(
        short_legs.heel_strike_length, short_legs.toe_off_length, short_legs.foot_length), overstride=0.28)
    _t, before = running_pelvis.stance_leg_lengths(plain, short_legs)
    assert before.max() > short_legs.reach  # the hip would be too high
    fixed = running_pelvis.step(params, short_legs, overstride=0.28)
    _t, after = running_pelvis.stance_leg_lengths(fixed, short_legs)
    assert after.max() <= short_legs.reach + 1e-3 and fixed.y_mid < plain.y_mid
    # A mid-support sunk so deep that the stance leg would fold (extreme attributes): the pelvis rises.
    normal = running_pelvis.step(params, legs)
    deep = running_pelvis.replace(normal, y_mid=0.45)
    _t, folded = running_pelvis.stance_leg_lengths(deep, legs)
    assert folded.min() < running_pelvis.SHORTEST_LEG * legs.reach  # the hip would be too low
    raised = running_pelvis.recover(deep, legs)
    _t, lengths = running_pelvis.stance_leg_lengths(raised, legs)
    assert lengths.min() >= running_pelvis.SHORTEST_LEG * legs.reach - 1e-3 and raised.y_mid > deep.y_mid


def test_running_feet_turn_without_a_snap_where_they_land_and_lift():
    """At 240 fps, from the frame before a touchdown or a lift-off to the frame after, no foot turns by more
    than a few degrees: the swing turns the foot to its strike angle on the way down (it snapped by 18
    degrees at every heel strike), and starts from the pose it left the ground in (the hips at lift-off)."""
    from footprint_locomotion.solver import character
    from footprint_locomotion.solver.running import cycle as running_cycle

    human = character.preset("human")
    legs = running_pelvis.LegGeometry.for_height(1.8)
    for toe_strike in (0.0, 1.0):
        params = running.natural(12.0)
        motion, _constraints, _cycle = running_cycle.running_cycle(
            params, human, legs, 240.0, attrs.natural_attributes(params, toe_strike=toe_strike))
        change = np.flatnonzero((motion.contact[1:] != motion.contact[:-1]).any(axis=1))
        assert len(change) == 4  # each foot lands and lifts once in the stride
        assert np.abs(motion.foot_rotation[change + 1] - motion.foot_rotation[change]).max() < 0.05


def test_heel_and_toe_strike_roll_onto_the_sole_about_the_contact_point():
    from footprint_locomotion.solver import character
    from footprint_locomotion.solver.running import cycle as running_cycle

    human = character.preset("human")
    legs = running_pelvis.LegGeometry.for_height(1.8)
    for toe_strike in (0.0, 1.0):
        params = running.natural(12.0)
        a = attrs.natural_attributes(params, toe_strike=toe_strike)
        motion, constraints, _cycle = running_cycle.running_cycle(params, human, legs, 240.0, a)
        half = 0.5 * human.foot_length
        leg = 1  # the right foot lands at t = 0
        on = motion.contact[:, leg] & (motion.footprint[:, leg] == motion.footprint[0, leg])
        rot = motion.foot_rotation[on, leg]
        pitch = np.degrees(np.arctan2(rot[:, 2, 1], rot[:, 1, 1]))  # toes above (+) or below the sole line
        expected = a.hidden(params)["ankle_impact"]
        assert pitch[0] == pytest.approx(expected, abs=0.5)  # heel strike: toes up; toe strike: heel up
        mid = motion.times[on] >= 0.5 * constraints.t_stance
        assert np.abs(pitch[mid & (motion.toe_pivot[on, leg] == 0)]).max() < 1e-6  # flat from mid-support
        sign = 1.0 if expected > 0 else -1.0
        pivot = motion.feet[on, leg] - sign * half * rot[:, :, 1]
        early = ~mid
        assert np.linalg.norm(pivot[early] - pivot[0], axis=1).max() < 1e-9  # rolls about heel or ball
