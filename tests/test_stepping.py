"""Stepping (Wu, Medina and Zordan; issue 19, items 1-3): one WMZ step, stepping to a target stance, push
recovery by the capture point, and bad input. Measured on the solved motion itself, every quantity worked out
here again from the paper's definitions rather than read back from the solver."""

import dataclasses
import importlib
import math

import numpy as np
import pytest

FPS = 240.0  # fine enough that a foot's speed and the COM's path are measured, not interpolated


@pytest.fixture(scope="module")
def solver(addon):
    def module(name):
        return importlib.import_module(f"{addon}.solver.{name}")

    return module


@pytest.fixture(scope="module")
def human(solver):
    return solver("character").preset("human")


def stepping_track(solver, feet, positions, headings_deg, contact, liftoff, **extras):
    return solver("track").make_track(feet, positions, np.radians(headings_deg), contact, liftoff, character="human",
                                      extras={"motion": "stepping", **extras})


def quadratic_bezier(p0, p1, p2, samples=4001):
    tau = np.linspace(0.0, 1.0, samples)[:, None]
    return (1 - tau) ** 2 * p0 + 2 * (1 - tau) * tau * p1 + tau ** 2 * p2


def hull(points):
    """Counter-clockwise convex hull (Andrew's monotone chain)."""
    pts = sorted(map(tuple, np.round(points, 12)))

    def chain(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and np.cross(np.subtract(out[-1], out[-2]), np.subtract(p, out[-2])) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    return np.array(chain(pts) + chain(pts[::-1]))


def sole_corners(character, position, heading):
    fwd = np.array([-math.sin(heading), math.cos(heading)])
    side = np.array([math.cos(heading), math.sin(heading)])
    half_length, half_width = 0.5 * character.foot_length, 0.5 * character.foot_width
    return np.array([position[:2] + a * half_length * fwd + b * half_width * side
                     for a, b in ((-1, -1), (-1, 1), (1, 1), (1, -1))])


def inside(polygon, point):
    edges = np.roll(polygon, -1, axis=0) - polygon
    return bool((edges[:, 0] * (point[1] - polygon[:, 1]) - edges[:, 1] * (point[0] - polygon[:, 0]) >= 0).all())


def assert_planted_and_within_reach(motion, character, terrain=None, slack=1e-6):
    """Every standing foot's ball (where it pivots, half a foot ahead of the support point, along the ground)
    stays on its footprint's, and every standing leg (hip to support point) within l_max, frame by frame."""
    track = motion.track
    for leg in range(2):
        down = motion.contact[:, leg]
        fp = motion.footprint[down, leg]
        fwd_now = motion.foot_rotation[down, leg, :, 1]
        ball_now = motion.feet[down, leg] + 0.5 * character.foot_length * fwd_now
        plan = np.stack([-np.sin(track.headings[fp]), np.cos(track.headings[fp])], axis=1)
        rise = np.zeros(len(fp)) if terrain is None else (terrain.gradient(track.positions[fp, :2]) * plan).sum(axis=1)
        fwd_fp = np.column_stack([plan, rise]) / np.sqrt(1.0 + rise * rise)[:, None]
        ball_fp = track.positions[fp] + 0.5 * character.foot_length * fwd_fp
        assert np.linalg.norm(ball_now - ball_fp, axis=1).max() < 1e-3
        legs = np.linalg.norm(motion.hips[down, leg] - motion.feet[down, leg], axis=1)
        assert legs.max() <= character.leg_length_max + slack
    report = motion.report
    assert report["stance_slip"] < 1e-3
    assert all(leg["max"] <= leg["max_allowed"] for leg in report["leg_length"].values())


# --- one step (item 1) ---------------------------------------------------------------------------------


def test_one_step_follows_wmz_foot_and_com_models(solver, human):
    """The right foot steps 0.46 m forward and out, turning 15 degrees, while the left supports it."""
    start_r, end_r, left = np.array([0.09, 0.0, 0.0]), np.array([0.2, 0.45, 0.0]), np.array([-0.09, 0.0, 0.0])
    t1, t2 = 0.3, 0.9
    track = stepping_track(solver, ["L", "R", "R"], [left, start_r, end_r], [0, 0, 15], [0, 0, t2], [1.6, t1, 1.6])
    motion = solver("biped").solve(track, fps=FPS)  # biped.solve hands a stepping track to the stepping solver
    assert motion.report["stepping"]["steps"] == 1
    t = motion.times
    swing = (t > t1) & (t < t2)
    foot = motion.feet[:, 1]
    # The foot on the straight line from footprint to footprint, in plan, within 1 cm (it lifts above it).
    direction = (end_r - start_r)[:2] / np.linalg.norm((end_r - start_r)[:2])
    offset = foot[:, :2] - start_r[:2]
    assert np.abs(offset[:, 0] * direction[1] - offset[:, 1] * direction[0]).max() < 0.01
    assert foot[swing, 2].max() > 0.03  # it clears the ground on the way
    # Bell-shaped speed along the line: the peak in the middle fifth of the swing, near zero at both ends, the
    # minimum-jerk bell of a person's step (peak 1.875 times the mean: WMZ eq. 1's w = 0.08 whipped it at 5).
    along = offset @ direction
    speed = np.gradient(along, t)
    u = (t - t1) / (t2 - t1)
    peak = u[swing][np.argmax(speed[swing])]
    assert 0.4 <= peak <= 0.6
    ends = swing & ((u < 0.05) | (u > 0.95))
    assert np.abs(speed[ends]).max() < 0.04 * speed[swing].max()  # (minimum jerk: 3.6 % at u = 0.05)
    bell = u[swing] ** 2 * (1.0 - u[swing]) ** 2
    assert np.corrcoef(speed[swing], bell)[0, 1] > 0.999
    assert speed[swing].max() <= 2.0 * np.linalg.norm((end_r - start_r)[:2]) / (t2 - t1)
    # The projected COM on the quadratic Bezier through its start (over the starting stance's middle), the
    # pivot (the support foot) and its end (over the final stance's middle), within 2 cm, ending at rest.
    curve = quadratic_bezier(np.zeros(2), left[:2], 0.5 * (left + end_r)[:2])
    distance = np.linalg.norm(motion.com[:, None, :2] - curve[None], axis=2).min(axis=1)
    assert distance.max() < 0.02
    assert np.linalg.norm(motion.com[-1, :2] - 0.5 * (left + end_r)[:2]) < 1e-3
    # Push-off moves the COM toward the support foot before lift-off, landing ends it at rest.
    assert motion.com[np.searchsorted(t, t1), 0] < -0.01
    assert np.linalg.norm(motion.com_velocity[-1]) < 1e-6
    # The support foot does not slide (1 mm), nor does the stepping foot while it stands; legs within reach.
    assert np.linalg.norm(motion.feet[:, 0] - left, axis=1).max() < 1e-3
    assert np.linalg.norm(foot[t >= t2] - end_r, axis=1).max() < 1e-3
    assert_planted_and_within_reach(motion, human)


@pytest.mark.parametrize("x, y, turn", [(0.2, 0.6, 30.0), (0.0, 0.0, 180.0)])
def test_the_swing_foot_lifts_off_and_lands_with_no_vertical_speed(solver, human, x, y, turn):
    """Every swing's lift arc leaves the ground and lands with the foot's vertical speed near zero (a 4 u (1 - u)
    arc lifts off and lands at 0.77 to 0.92 m/s here): its height over flat ground differenced over 0.2 ms at
    lift-off and just before touchdown. (Steps the legs reach all the way: a foot drawn toward its hip as it
    lands is another matter.)"""
    stepping = solver("stepping")
    track = stepping.step_to_stance(human, stepping.Stance.centred(human, 0.0, 0.0, 0.0),
                                    stepping.Stance.centred(human, x, y, math.radians(turn)))
    plan = solver("stepping.steps").step_plan(track, human)
    h = 2e-4
    t1, t2 = np.array([s.t1 for s in plan.swings]), np.array([s.t2 for s in plan.swings])
    motion = solver("stepping.solve").solve_steps(track, human, times=np.concatenate([t1, t1 + h, t2 - 2 * h, t2 - h]))
    n, foot = len(t1), np.array([s.foot for s in plan.swings])
    height = motion.feet[:, :, 2].reshape(4, n, 2)[:, np.arange(n), foot]  # lift-off, after it, before landing
    assert (height[1] > 0.0).all() and (height[3] > 0.0).all()  # lifted: the arc is over the ground
    lifting, landing = (height[1] - height[0]) / h, (height[3] - height[2]) / h
    assert np.abs(lifting).max() < 0.01 and np.abs(landing).max() < 0.01, (lifting, landing)


def test_pivot_turns_the_support_foot_about_its_ball(solver, human):
    """A split footprint (the right foot's second starts as its first ends, turned 60 degrees about its ball)
    is a pivot: while the left foot swings the right one turns on the ground, its ball still."""
    ball = np.array([0.09, 0.13, 0.0])
    turned = ball - 0.13 * np.array([-math.sin(math.radians(60)), math.cos(math.radians(60)), 0.0])
    track = stepping_track(solver, ["L", "R", "R", "L"],
                           [[-0.09, 0, 0], [0.09, 0, 0], turned, [-0.05, 0.25, 0]], [0, 0, 60, 60],
                           [0, 0, 0.6, 0.9], [0.3, 0.6, 1.5, 1.5])
    motion = solver("stepping").solve_steps(track, fps=FPS)
    assert motion.report["stepping"]["pivots"] == 1
    t = motion.times
    right = motion.feet[:, 1] + 0.13 * motion.foot_rotation[:, 1, :, 1]
    assert np.linalg.norm(right - ball, axis=1).max() < 1e-6
    assert motion.contact[:, 1].all()
    heading = np.degrees(np.arctan2(-motion.foot_rotation[:, 1, 0, 1], motion.foot_rotation[:, 1, 1, 1]))
    assert heading[t <= 0.3].max() < 1e-6 and heading[t >= 0.9].min() > 60 - 1e-6  # over the left swing
    # It turns on the ball with the heel up (a heel on the ground would skid round 0.26 m): up by about 5 cm
    # mid-turn, down again at both ends, the toe_pivot saying so.
    heel = (motion.feet[:, 1] - 0.13 * motion.foot_rotation[:, 1, :, 1])[:, 2]
    pivoting = (t > 0.3) & (t < 0.9)
    assert heel[pivoting].max() == pytest.approx(0.26 * math.sin(math.radians(12.0)), rel=0.02)
    assert np.abs(heel[~pivoting]).max() < 1e-9
    assert np.degrees(motion.toe_pivot[pivoting, 1].max()) == pytest.approx(12.0, rel=0.02)
    assert_planted_and_within_reach(motion, human)


# --- stepping to a stance (item 2) ------------------------------------------------------------------------


def fewest_steps_bound(character, start, target):
    """A lower bound on the steps from the legs' reach alone: with the hips at standing height (l_nom above the
    feet) a leg reaches r = sqrt(l_max^2 - l_nom^2) from under its hip, so two standing feet are at most the
    hips' width plus 2 r apart. Each step's foot lands within that of the other foot; the feet alternate, so
    the footprints form a chain from the foot that stands first to the target of the foot that steps
    next-to-last, each link within that distance."""
    width = abs(character.hip_offsets[1, 0] - character.hip_offsets[0, 0])
    apart = width + 2.0 * math.sqrt(character.leg_length_max ** 2 - character.leg_length_nominal ** 2)
    shortest = min(np.linalg.norm(target.positions[i, :2] - start.positions[j, :2]) for i in range(2) for j in range(2))
    return 1 + math.ceil(shortest / apart)


COMPASS = {"ahead": 0, "ahead_right": 45, "right": 90, "behind_right": 135, "behind": 180, "behind_left": 225,
           "left": 270, "ahead_left": 315}  # degrees clockwise from straight ahead


@pytest.mark.parametrize("turn", [120.0, -120.0], ids=["turned_left", "turned_right"])
@pytest.mark.parametrize("bearing", list(COMPASS.values()), ids=list(COMPASS))
def test_step_to_a_target_far_and_turned(solver, human, bearing, turn):
    """Issue 19, item 2: a target 2.5 m away in each of eight directions, turned 120 degrees either way."""
    stepping = solver("stepping")
    x, y = (round(2.5 * f(math.radians(bearing)), 9) for f in (math.sin, math.cos))  # straight ahead: x is 0
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    target = stepping.Stance.centred(human, x, y, math.radians(turn))
    assert np.linalg.norm(target.centre - start.centre) == pytest.approx(2.5)
    track = stepping.step_to_stance(human, start, target, start_time=1.0)
    assert track.extras["motion"] == "stepping" and track.contact.min() == 1.0
    motion = solver("biped").solve(track, fps=120)
    steps = motion.report["stepping"]["steps"]
    assert fewest_steps_bound(human, start, target) <= steps <= fewest_steps_bound(human, start, target) + 1
    # The feet end on the target stance: within 1 cm and 2 degrees.
    for leg in range(2):
        assert np.linalg.norm(motion.feet[-1, leg] - target.positions[leg]) < 0.01
        heading = math.atan2(-motion.foot_rotation[-1, leg, 0, 1], motion.foot_rotation[-1, leg, 1, 1])
        assert abs((heading - target.headings[leg] + math.pi) % (2 * math.pi) - math.pi) < math.radians(2.0)
    # The feet alternate, the first the one on the side the target lies.
    stepped = stepping_feet(track)
    assert all(a != b for a, b in zip(stepped[:-1], stepped[1:]))
    if x != 0.0:
        assert stepped[0] == ("R" if x > 0 else "L")
    assert_planted_and_within_reach(motion, human)


@pytest.mark.parametrize("request_", ["turn", "push"])
def test_a_rigs_ankles_stay_within_reach_the_heel_lifting_where_the_body_moves_on(solver, human, request_):
    """A rig's leg ends at its ankle (above and behind the support point) and reaches thigh + shin: stepping it
    as planned for the support point stretched its IK chain up to 5 % (issue 28). Standing feet lift their heels
    about the ball (the ball stays on its footprint), lifted feet are drawn in: every ankle within reach."""
    stepping, legs = solver("stepping"), solver("body.legs")
    rig = dataclasses.replace(human, ankle_offset=(0.0, -0.07, 0.08), ankle_reach=human.leg_length_max - 0.06)
    stance = stepping.Stance.centred(rig, 0.0, 0.0, 0.0)
    if request_ == "turn":
        track = stepping.step_to_stance(rig, stance, stepping.Stance.centred(rig, -1.25, 2.17, math.radians(120.0)))
    else:
        track = stepping.recover_from_push(rig, stance, np.array([0.0, 1.5]))
    motion = solver("biped").solve(track, rig, fps=FPS)
    ankles = motion.feet + motion.foot_rotation @ np.array(rig.ankle_offset)
    reach = np.linalg.norm(ankles - motion.hips, axis=-1)
    assert reach.max() <= rig.ankle_reach + 1e-6
    assert (motion.toe_pivot[motion.contact] > 0.05).any()  # heels up where the body has moved on
    assert_planted_and_within_reach(motion, rig)
    assert motion.report["ankle_reach"] == legs.reach_report(np.zeros(motion.contact.shape), motion.contact, rig.feet)
    unplanned = dataclasses.replace(rig, ankle_offset=None)  # the support point's reach alone: past the ankle's
    plain = solver("biped").solve(track, unplanned, fps=FPS)
    assert np.linalg.norm(plain.feet + plain.foot_rotation @ np.array(rig.ankle_offset) - plain.hips,
                          axis=-1).max() > rig.ankle_reach + 0.01


def stepping_feet(track):
    """The feet that step, in order (a pivot's footprint continues its foot's stance: no step)."""
    order = np.argsort(track.contact)
    pivots = np.isin(track.contact[order], track.liftoff)
    return track.feet[order][2:][~pivots[2:]]


@pytest.mark.parametrize("turn", [180.0, -135.0])
def test_turning_on_the_spot_takes_pivot_steps(solver, human, turn):
    stepping = solver("stepping")
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    target = stepping.Stance.centred(human, 0.0, 0.0, math.radians(turn))
    track = stepping.step_to_stance(human, start, target)
    assert stepping_feet(track)[0] == ("L" if turn > 0 else "R")  # the foot on the inside of the turn opens it
    motion = solver("biped").solve(track, fps=120)
    assert motion.report["stepping"]["pivots"] >= 1
    assert 2 <= motion.report["stepping"]["steps"] <= 4
    assert motion.report["swing"]["seconds"] > motion.report["swing"]["plausible_min"]  # a pivot is no swing
    # No warning: the kinematic COM's non-physical force (about 0.3 body weight here) is the stepping model's own
    assert solver("motion").report_warnings(motion.report) == []
    assert np.linalg.norm(motion.feet[-1] - target.positions, axis=1).max() < 0.01
    assert_planted_and_within_reach(motion, human)


def test_step_duration_sets_each_step(solver, human):
    stepping = solver("stepping")
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    track = stepping.step_to_stance(human, start, stepping.Stance.centred(human, 0.0, 1.0, 0.0), step_duration=0.8)
    by_foot = {foot: np.argsort(track.contact[track.feet == foot]) for foot in "LR"}
    swings = []
    for foot, order in by_foot.items():
        contact, liftoff = track.contact[track.feet == foot][order], track.liftoff[track.feet == foot][order]
        swings += list(contact[1:] - liftoff[:-1])
    assert np.allclose(swings, 0.4)  # half the step's duration swings, the rest is push-off and landing


def test_stepping_up_a_slope_puts_every_footprint_on_it(solver, human):
    stepping, terrain = solver("stepping"), solver("quadruped.terrains").slope(10.0)
    rise = math.tan(math.radians(10.0))
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    target = stepping.Stance.centred(human, 0.3, 1.8, math.radians(30.0), z=1.8 * rise)
    track = stepping.step_to_stance(human, start, target, terrain=terrain)
    assert np.allclose(track.positions[:, 2], track.positions[:, 1] * rise, atol=1e-9)
    motion = solver("biped").solve(track, terrain=terrain, fps=120)
    assert np.linalg.norm(motion.feet[-1] - target.positions, axis=1).max() < 0.01
    assert motion.report["feet_below_ground"] < 1e-3  # the swings clear the rising ground
    # The body rises with the feet: standing height over them at the start and the end.
    standing = human.leg_length_nominal - human.hip_offsets[:, 2].mean()
    assert motion.com[0, 2] == pytest.approx(standing) and motion.com[-1, 2] == pytest.approx(standing + 1.8 * rise)
    assert_planted_and_within_reach(motion, human, terrain)


def test_a_moving_start_is_caught_first_then_steps_on_to_the_target(solver, human):
    stepping = solver("stepping")
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    target = stepping.Stance.centred(human, -1.0, 0.5, math.radians(90.0))
    track = stepping.step_to_stance(human, start, target, com_velocity=(0.0, 1.0))
    assert track.extras["com_velocity"] == [0.0, 1.0]
    motion = solver("biped").solve(track, fps=FPS)
    assert np.allclose(motion.com_velocity[0, :2], [0.0, 1.0])
    caught = motion.report["stepping"]["captured"]
    assert caught is not None and motion.times[0] < caught < motion.times[-1] - 1.0
    order = np.argsort(track.contact)
    assert track.positions[order[2], 1] > 0.3  # the first step catches the body, forward
    assert np.linalg.norm(motion.feet[-1] - target.positions, axis=1).max() < 0.01
    assert np.linalg.norm(motion.com_velocity[-1]) < 0.05
    assert_planted_and_within_reach(motion, human)


# --- push recovery (item 3) -------------------------------------------------------------------------------


@pytest.mark.parametrize("speed", [0.5, 1.0, 1.5])
@pytest.mark.parametrize("direction", [(1.0, 0.0), (0.0, 1.0)], ids=["sideways", "forwards"])
def test_push_recovery_comes_to_rest_over_its_feet(solver, human, speed, direction):
    stepping = solver("stepping")
    stance = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    push = speed * np.array(direction)
    track = stepping.recover_from_push(human, stance, push)
    assert track.extras["com_velocity"] == pytest.approx(list(push))
    motion = solver("biped").solve(track, fps=FPS)
    assert np.allclose(motion.com_velocity[0, :2], push, atol=1e-9)  # it starts moving as pushed
    # Up to the first lift-off a linear inverted pendulum (Pratt 2006): x'' = omega^2 (x - p) with omega =
    # sqrt(g / z) at the standing COM height z, about a centre of pressure p that stays put on the feet's
    # support polygon; the capture point x + v / omega outside it, running away from p: the body must step.
    omega = math.sqrt(9.81 / (human.leg_length_nominal - human.hip_offsets[:, 2].mean()))
    early = motion.times < np.sort(track.liftoff)[0] - 1e-9
    pressure = motion.com[early, :2] - motion.com_acceleration[early, :2] / omega ** 2
    assert np.ptp(pressure, axis=0).max() < 1e-9
    soles = np.concatenate([sole_corners(human, stance.positions[leg], 0.0) for leg in range(2)])
    assert inside(hull(soles), pressure[0] - 1e-9 * push / speed)
    capture = motion.com[early, :2] + motion.com_velocity[early, :2] / omega
    assert not inside(hull(soles), capture[0])
    assert np.allclose(capture - pressure[0], (capture[0] - pressure[0]) * np.exp(omega * motion.times[early])[:, None])
    # At rest at the end, the projected COM inside the support polygon of the feet.
    assert np.linalg.norm(motion.com_velocity[-1]) < 0.05
    soles = np.concatenate([sole_corners(human, motion.feet[-1, leg], math.atan2(-motion.foot_rotation[-1, leg, 0, 1],
                                                                                 motion.foot_rotation[-1, leg, 1, 1]))
                            for leg in range(2)])
    assert inside(hull(soles), motion.com[-1, :2])
    # The first step goes the way of the push.
    order = np.argsort(track.contact)
    first = order[2]
    start = track.positions[(track.feet == track.feet[first]) & (track.contact == track.contact.min())][0]
    assert (track.positions[first] - start)[:2] @ push > 0.0
    if direction == (1.0, 0.0):
        assert track.feet[first] == "R"  # the foot on the side the push goes
    assert_planted_and_within_reach(motion, human)


def test_a_push_too_strong_is_refused_by_name(solver, human):
    stepping = solver("stepping")
    with pytest.raises(solver("errors").SteppingError, match="not recovered"):
        stepping.recover_from_push(human, stepping.Stance.centred(human, 0.0, 0.0, 0.0), (6.0, 0.0))


# --- tracks, JSON and bad input ---------------------------------------------------------------------------


def test_the_stepping_mark_round_trips_through_json(solver, human):
    stepping, track_module = solver("stepping"), solver("track")
    track = stepping.recover_from_push(human, stepping.Stance.centred(human, 0.0, 0.0, 0.0), (0.0, 0.8))
    text = track_module.dumps(track_module.track_to_json(track))
    again = track_module.parse_track_text(text)
    assert again.is_stepping and again.extras["com_velocity"] == pytest.approx([0.0, 0.8])
    assert np.allclose(again.positions, track.positions)
    motion = solver("biped").solve(again, fps=60)
    assert motion.report["stepping"]["captured"] is not None


@pytest.mark.parametrize("field, value, error, match", [
    ("motion", "walking", "TrackFormatError", '"motion" must be one of'),
    ("com_velocity", [1.0], "TrackFormatError", "com_velocity"),
    ("com_velocity", [float("nan"), 0.0], "NonFiniteError", "com_velocity"),
])
def test_bad_stepping_fields_are_refused(solver, field, value, error, match):
    track_module = solver("track")
    doc = {"format": "footprint-track", "version": 1, "character": "human", "motion": "stepping",
           "footprints": [{"foot": "L", "position": [-0.09, 0], "contact": 0, "liftoff": 1},
                          {"foot": "R", "position": [0.09, 0], "contact": 0, "liftoff": 1}]}
    doc[field] = value
    with pytest.raises(getattr(solver("errors"), error), match=match):
        track_module.track_from_json(doc)


def test_bad_requests_get_typed_errors_naming_the_culprit(solver, human):
    stepping, errors = solver("stepping"), solver("errors")
    start = stepping.Stance.centred(human, 0.0, 0.0, 0.0)
    overlapping = stepping.Stance(np.array([[0.0, 1.0, 0.0], [0.05, 1.0, 0.0]]), np.zeros(2))
    with pytest.raises(errors.StanceError, match="target stance: the feet overlap"):
        stepping.step_to_stance(human, start, overlapping)
    for duration in (0.0, -1.0):
        with pytest.raises(errors.TimingError, match="step duration"):
            stepping.step_to_stance(human, start, stepping.Stance.centred(human, 0.0, 1.0, 0.0), step_duration=duration)
    with pytest.raises(errors.NonFiniteError, match="target stance"):
        stepping.step_to_stance(human, start, stepping.Stance.centred(human, float("nan"), 1.0, 0.0))
    with pytest.raises(errors.NonFiniteError, match="COM velocity"):
        stepping.recover_from_push(human, start, (float("nan"), 0.0))
    dog = solver("character").preset("dog")
    with pytest.raises(errors.CharacterError, match="'dog'"):
        stepping.step_to_stance(dog, start, start)
    with pytest.raises(errors.CharacterError, match="'dog'"):
        stepping.recover_from_push(dog, start, (1.0, 0.0))


def test_a_batch_solves_stepping_tracks_as_steps_and_the_rest_as_before(solver, human):
    from conftest import FIG1

    stepping, track_module, biped = solver("stepping"), solver("track"), solver("biped")
    steps = stepping.step_to_stance(human, stepping.Stance.centred(human, 0.0, 0.0, 0.0),
                                    stepping.Stance.centred(human, 0.0, 0.6, 0.0))
    walk = track_module.load_track(FIG1)
    standing = walk.replace(extras={**walk.extras, "motion": "standing_ends"})  # its own solver too
    motions = biped.solve_batch([steps, walk, steps, standing], fps=30)
    assert [("stepping" in m.report) for m in motions] == [True, False, True, False]
    assert np.array_equal(motions[0].com, biped.solve(steps, fps=30).com)
    assert np.array_equal(motions[1].com, biped.solve(walk, fps=30).com)
    assert "walk_ends" in motions[3].report and np.array_equal(motions[3].com, biped.solve(standing, fps=30).com)
    biped.check(steps)  # what `validate` runs


def test_tracks_that_cannot_be_stepped_are_refused(solver):
    stepping, errors = solver("stepping"), solver("errors")
    flight = stepping_track(solver, ["L", "R", "L", "R"],
                            [[-0.09, 0, 0], [0.09, 0, 0], [-0.09, 0.3, 0], [0.09, 0.3, 0]], [0] * 4, [0, 0, 0.5, 0.5],
                            [0.3, 0.3, 1.0, 1.0])
    with pytest.raises(errors.SteppingError, match="both feet are off the ground from 0.3 s to 0.5 s"):
        stepping.solve_steps(flight)
    with pytest.raises(errors.SteppingError, match="both feet are off the ground"):
        solver("biped").check(flight)
    late = stepping_track(solver, ["L", "R"], [[-0.09, 0, 0], [0.09, 0, 0]], [0, 0], [0, 0.2], [1.0, 1.0])
    with pytest.raises(errors.SteppingError, match="footprint 1 .foot R.: a stepping track starts with both feet"):
        stepping.solve_steps(late)
    with pytest.raises(errors.CharacterError, match="'dog'"):
        stepping.solve_steps(late, character=solver("character").preset("dog"))
