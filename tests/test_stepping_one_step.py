"""One step to a target (issue 19, item 1): the stepping foot's straight path at WMZ eq. 1's bell-shaped speed, the
projected COM on the quadratic Bezier through its start, the pivot (support foot) and its end, the support foot
planted (or turned on its ball where the facing changes much), the duration honoured, bad targets named."""

import importlib
import math

import numpy as np
import pytest

FPS = 240.0


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


@pytest.fixture(scope="module")
def human(solver):
    return solver("character").preset("human")


def test_one_step_follows_wmz(solver, human):
    stepping = solver("stepping")
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    track = solver("stepping.one_step").one_step(human, start, (0.2, 0.45), math.radians(10.0), duration=0.6)
    motion = solver("biped").solve(track, fps=FPS)
    assert motion.report["stepping"]["steps"] == 1 and motion.report["stepping"]["pivots"] == 0
    leg = 1  # the right foot is nearer the target: it steps, the left supports
    lifted = ~motion.contact[:, leg]
    times, feet = motion.times[lifted], motion.feet[lifted, leg]
    assert times[-1] - times[0] == pytest.approx(0.6, abs=2.0 / FPS)  # the duration given
    a, b = start.positions[leg, :2], np.array([0.2, 0.45])
    across = np.abs(np.cross(b - a, feet[:, :2] - a)) / np.linalg.norm(b - a)
    assert across.max() < 0.01  # the straight line (WMZ §4)
    speed = np.linalg.norm(np.diff(feet[:, :2], axis=0), axis=1) * FPS
    u = np.linspace(0.0, 1.0, len(speed))
    assert 0.4 <= u[np.argmax(speed)] <= 0.6  # the bell's peak in the middle fifth
    assert speed[0] < 0.05 * speed.max() and speed[-1] < 0.05 * speed.max()  # near zero at both ends
    support = motion.feet[:, 0]
    assert np.linalg.norm(support - support[0], axis=1).max() < 1e-9  # planted, not sliding
    # The projected COM on the Bezier through its start, the support foot and its end (WMZ §5).
    profiles = solver("stepping.profiles")
    p0, p2 = motion.com[0, :2], motion.com[-1, :2]
    q = [np.append(p, 0.0) for p in (p0, start.positions[0, :2], p2)]
    curve = profiles.bezier(*q, np.linspace(0.0, 1.0, 2001))[:, :2]
    off = np.linalg.norm(motion.com[:, None, :2] - curve[None], axis=2).min(axis=1)
    assert off.max() < 0.02, off.max()


def test_a_big_turn_pivots_the_support_foot(solver, human):
    stepping = solver("stepping")
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    track = solver("stepping.one_step").one_step(human, start, (-0.3, 0.15), math.radians(80.0), foot="L")
    motion = solver("biped").solve(track, fps=FPS)
    assert motion.report["stepping"]["pivots"] == 1
    right = motion.foot_rotation[-1, 1]
    assert math.degrees(math.atan2(-right[0, 1], right[1, 1])) == pytest.approx(80.0, abs=0.5)
    assert motion.report["stance_slip"] < 0.005  # the ball stays put while the foot turns about it


def test_bad_steps_are_named(solver, human):
    stepping, errors = solver("stepping"), solver("errors")
    one_step = solver("stepping.one_step").one_step
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    with pytest.raises(errors.StanceError, match="the step of foot L's landing: the feet overlap"):
        one_step(human, start, (0.08, 0.0), 0.0, foot="L")  # onto the right foot
    with pytest.raises(errors.TimingError, match="duration must be a positive number"):
        one_step(human, start, (0.0, 0.4), 0.0, duration=0.0)
    with pytest.raises(errors.NonFiniteError, match="not finite"):
        one_step(human, start, (np.nan, 0.4), 0.0)
    with pytest.raises(errors.SteppingError, match="the step of foot L would turn the support foot 120 degrees on its "
                                                    "ball, more than 90"):  # named here, not as a track's pivot
        one_step(human, start, (-0.3, 0.15), math.radians(120.0), foot="L")
