"""A quadruped's body from its two mass points (Torkos §5, issue 18 point 4): the spine arched between them,
the head leading the motion and steady against the gait's bob, the tail's damped follow-through, with no
jump and no pop. Synthetic mass paths built here: a straight trot with a vertical bob and a pitch
oscillation, a slow walk, constant-radius turns either way, a turn entered from a straight, a start from
rest, a sideways shove, a leap, backing round a circle, a pivot on the spot, a rear."""

import math

import numpy as np
import pytest

from footprint_locomotion.solver.errors import FootprintError, NonFiniteError, RangeError
from footprint_locomotion.solver.quadruped.reconstruct import (STEADY_ANGLE, BodyInputError, BodyParams,
                                                              motion_turn_per_frame, reconstruct, turn_per_frame)

FPS = 60
BODY = 0.66  # m, hind to fore: the dog preset's hips (Rigify wolf)
HEIGHT = 0.7
SPEED = 2.0
RADIUS = 3.0
NO_BANK = BodyParams(bank_gain=0.0)  # the girdles level: the tail's drive is the acceleration alone


def frames(duration):
    return np.arange(int(round(duration * FPS)) + 1) / FPS


def trot(duration=3.0, speed=SPEED, bob=0.02, bob_hz=5.0, pitch=0.03, sway=0.01):
    """A straight trot along +Y: the body bobs twice a stride and pitches with the bob, swaying once."""
    t = frames(duration)
    angle = pitch * np.sin(2 * np.pi * bob_hz * t + 1.0)
    centre = np.column_stack([sway * np.sin(np.pi * bob_hz * t), speed * t,
                              HEIGHT + bob * np.sin(2 * np.pi * bob_hz * t)])
    half = 0.5 * BODY * np.column_stack([np.zeros_like(t), np.cos(angle), np.sin(angle)])
    return t, centre - half, centre + half, np.zeros_like(t)


def walk(duration=3.0):
    """A slow walk: a horse-like 2 Hz bob, more pitch and sway."""
    return trot(duration, speed=1.0, bob=0.015, bob_hz=2.0, pitch=0.04, sway=0.02)


def turn(radius, duration=3.0, speed=SPEED):
    """Both masses on one circle (radius > 0 turns left, < 0 right), the fore one ahead; the footprints' yaw
    along the hind-to-fore line."""
    t = frames(duration)
    side, r = np.sign(radius), abs(radius)
    apart = 2 * np.arcsin(BODY / (2 * r))  # the angle the body subtends at the centre
    travelled = speed * t / r

    def on_circle(angle):
        return np.column_stack([side * (r * np.cos(angle) - r), r * np.sin(angle), np.full_like(angle, HEIGHT)])

    return t, on_circle(travelled - apart), on_circle(travelled), side * (travelled - apart / 2)


def entered_turn(radius, straight=1.0, duration=3.0, speed=SPEED):
    """Straight along +Y for `straight` seconds (the body's centre), then on a circle."""
    t = frames(duration)
    side, r, corner = np.sign(radius), abs(radius), speed * straight

    def at(distance):
        angle = np.maximum(distance - corner, 0.0) / r
        x = np.where(distance < corner, 0.0, side * (r * np.cos(angle) - r))
        y = np.where(distance < corner, distance, corner + r * np.sin(angle))
        return np.column_stack([x, y, np.full_like(distance, HEIGHT)])

    s = speed * t
    return t, at(s - BODY / 2), at(s + BODY / 2), np.zeros_like(t)


def distance_from_rest(t, still=0.5, ramp=1.0):
    """Standing still, then a smooth start (speed a smoothstep over `ramp`) up to SPEED."""
    u = np.clip((t - still) / ramp, 0.0, 1.0)
    return SPEED * ramp * (u ** 3 - u ** 4 / 2) + SPEED * np.maximum(t - still - ramp, 0.0), u * u * (3 - 2 * u)


def from_rest(duration=3.0, bob=0.02, bob_hz=5.0):
    """Standing still, then starting into a bobbing trot."""
    t = frames(duration)
    distance, speed_share = distance_from_rest(t)
    centre = np.column_stack([np.zeros_like(t), distance,
                              HEIGHT + bob * speed_share * np.sin(2 * np.pi * bob_hz * t)])
    half = np.array([0.0, BODY / 2, 0.0])
    return t, centre - half, centre + half, np.zeros_like(t)


def turn_from_rest(radius=RADIUS, duration=3.0):
    """Standing on a circle, then starting along it (the footprints' yaw along the body)."""
    t = frames(duration)
    distance = distance_from_rest(t)[0]
    apart = 2 * np.arcsin(BODY / (2 * radius))

    def on_circle(angle):
        return np.column_stack([radius * np.cos(angle) - radius, radius * np.sin(angle), np.full_like(angle, HEIGHT)])

    travelled = distance / radius
    return t, on_circle(travelled - apart), on_circle(travelled), travelled - apart / 2


def shoved(duration=6.0, start=0.5, length=0.3, sideways=0.5):
    """Walking along +Y at 1 m/s; between `start` and `start + length` a sideways velocity of `sideways`
    m/s to the right builds up (a smoothstep: a bell of acceleration), then holds: no acceleration after."""
    t = frames(duration)
    u = np.clip((t - start) / length, 0.0, 1.0)
    x = sideways * length * (u ** 3 - u ** 4 / 2) + sideways * np.maximum(t - start - length, 0.0)
    centre = np.column_stack([x, 1.0 * t, np.full_like(t, HEIGHT)])
    half = np.array([0.0, BODY / 2, 0.0])
    return t, centre - half, centre + half, np.zeros_like(t)


def backing_round(radius=RADIUS):
    """The left turn run backwards: the body backing round the circle."""
    t, hind, fore, yaw = turn(radius)
    return t, hind[::-1], fore[::-1], yaw[::-1]


def pivot(rate=1.0, duration=3.0):
    """Turning on the spot about the body's middle: the masses move apart sideways."""
    t = frames(duration)
    half = 0.5 * BODY * np.column_stack([-np.sin(rate * t), np.cos(rate * t), np.zeros_like(t)])
    middle = np.array([0.0, 0.0, HEIGHT])
    return t, middle - half, middle + half, rate * t


def rear(duration=3.0, start=0.5, length=1.0, top=math.radians(80)):
    """The fore mass swinging up over the standing hind mass until the body stands 80 degrees upright."""
    t = frames(duration)
    u = np.clip((t - start) / length, 0.0, 1.0)
    angle = top * u * u * (3 - 2 * u)
    hind = np.tile([0.0, 0.0, HEIGHT], (len(t), 1))
    return t, hind, hind + BODY * np.column_stack([np.zeros_like(t), np.cos(angle), np.sin(angle)]), np.zeros_like(t)


def leap(duration=3.0, start=1.0, flight=0.5, rise=0.3, speed=3.0):
    """Running along +Y, the body rising 0.3 m and coming down over half a second (smoothly: the height C1,
    its acceleration jumping at both ends, as the solver's spline's at knots), the hind mass after the fore."""
    t = frames(duration)

    def height(when):
        u = np.clip((when - start) / flight, 0.0, 1.0)
        return HEIGHT + rise * np.sin(np.pi * u) ** 2

    hind = np.column_stack([np.zeros_like(t), speed * t, height(t - BODY / speed)])
    fore = np.column_stack([np.zeros_like(t), speed * t + BODY, height(t)])
    return t, hind, fore, np.zeros_like(t)


def heading(rotations):
    """The yaw (...,) of frames' forward columns."""
    return np.arctan2(-rotations[..., 0, 1], rotations[..., 1, 1])


def extrema(signal, t):
    """Times and values of the local extrema (parabola through each and its neighbours)."""
    inner = np.flatnonzero((np.diff(np.sign(np.diff(signal))) != 0)) + 1
    a, b, c = signal[inner - 1], signal[inner], signal[inner + 1]
    offset = 0.5 * (a - c) / (a - 2 * b + c)
    return t[inner] + offset / FPS, b - 0.25 * (a - c) * offset


MOTIONS = {"trot": trot, "walk": walk, "left turn": lambda: turn(RADIUS), "right turn": lambda: turn(-RADIUS),
           "entered turn": lambda: entered_turn(RADIUS),
           "entered tight turn": lambda: entered_turn(-0.5, duration=2.0, speed=1.0), "from rest": from_rest,
           "turn from rest": turn_from_rest, "shove": shoved, "backing round": backing_round, "pivot": pivot,
           "rear": rear, "leap": leap}
ROTATIONS = ("pelvis", "chest", "spine", "neck", "head", "tail")
ANGLES = ("bend", "twist", "head_lead", "tail_side", "tail_up")


# Continuity (issue 18's acceptance) ---------------------------------------------------------------------


@pytest.mark.parametrize("name", MOTIONS)
def test_every_key_is_continuous(name):
    """No output turns or moves more in a frame than 3 x the motion's own largest frame-to-frame change of
    direction (positions: of the fore mass's step)."""
    t, hind, fore, yaw = MOTIONS[name]()
    pose = reconstruct(t, hind, fore, yaw)
    allowed = 3 * motion_turn_per_frame(hind, fore, FPS)
    for field in ROTATIONS:
        assert turn_per_frame(getattr(pose, field)).max() <= allowed, field
    for field in ANGLES:
        assert np.abs(np.diff(getattr(pose, field), axis=0)).max() <= allowed, field
    fore_step = np.linalg.norm(np.diff(fore, axis=0), axis=1).max()
    for field in ("neck_position", "head_position"):
        assert np.linalg.norm(np.diff(getattr(pose, field), axis=0), axis=1).max() <= 3 * fore_step, field


def test_continuity_check_catches_a_jump():
    """The measure above fails a pose that snaps: the head's yaw jumping by a tenth of a radian."""
    t, hind, fore, yaw = turn(RADIUS)
    head = reconstruct(t, hind, fore, yaw).head.copy()
    head[len(t) // 2:] = head[len(t) // 2:] @ np.array([[math.cos(0.1), -math.sin(0.1), 0],
                                                         [math.sin(0.1), math.cos(0.1), 0], [0, 0, 1]])
    assert turn_per_frame(head).max() > 3 * motion_turn_per_frame(hind, fore, FPS)


# Spine ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("radius", [RADIUS, -RADIUS, 1.5])
def test_spine_bends_by_the_angle_between_the_girdles_on_a_turn(radius):
    """On a circle the pelvis faces along the hind mass's path and the chest along the fore's: the bend is
    the angle the body subtends at the centre (positive turning left), and it is the chest's heading less
    the pelvis's (up to the girdles' banking, which tilts the pelvis's up axis the bend is measured about)."""
    t, hind, fore, yaw = turn(radius)
    pose = reconstruct(t, hind, fore, yaw)
    subtended = math.copysign(2 * math.asin(BODY / (2 * abs(radius))), radius)
    middle = slice(FPS, -FPS)
    assert pose.bend[middle] == pytest.approx(subtended, rel=0.01)
    difference = np.angle(np.exp(1j * (heading(pose.chest) - heading(pose.pelvis))))
    assert pose.bend == pytest.approx(difference, abs=5e-3)
    level = reconstruct(t, hind, fore, yaw, NO_BANK)
    assert level.bend == pytest.approx(np.angle(np.exp(1j * (heading(level.chest) - heading(level.pelvis)))))
    assert heading(pose.pelvis)[middle] == pytest.approx(  # tangent to the circle at the hind mass
        np.angle(np.exp(1j * (yaw - subtended / 2)))[middle], abs=0.01)


def test_spine_bend_eases_into_its_limit_on_a_tight_turn():
    """Round a circle tighter than the body (each girdle's path 47 degrees off the body's line) the bend
    eases toward max_bend instead of folding the body or stopping short at a hard clamp."""
    t, hind, fore, yaw = turn(0.45, speed=1.0)
    pose = reconstruct(t, hind, fore, yaw, BodyParams(max_bend=math.radians(60)))
    assert math.radians(55) < pose.bend.min() and pose.bend.max() < math.radians(60)


def test_spine_stays_straight_when_shifting_weight_in_place():
    """Standing, the masses rocking a centimetre along and across the body's line: no travel to face, so
    neither girdle turns off the line between them."""
    t = frames(3.0)
    rock = 0.005 * np.sin(2 * np.pi * t)[:, None] * [math.sin(0.35), math.cos(0.35), 0.0]
    hind = [0.0, 0.0, HEIGHT] + rock
    fore = [0.0, BODY, HEIGHT] - rock
    pose = reconstruct(t, hind, fore, np.zeros_like(t))
    assert np.abs(heading(pose.pelvis)).max() < 0.01 and np.abs(pose.bend).max() < 0.01


def test_spine_and_head_going_backwards_sideways_and_on_the_spot():
    """Backing round a left circle the spine bends as walking it forwards (the arc is the same); a crab's
    sideways travel bends nothing and turns no head; turning on the spot (the masses parting sideways) bends
    nothing either, nor turns the head over the shoulder."""
    t, hind, fore, yaw = backing_round()
    pose = reconstruct(t, hind, fore, yaw)
    assert pose.bend[FPS:-FPS] == pytest.approx(2 * math.asin(BODY / (2 * RADIUS)), rel=0.01)
    assert np.abs(pose.head_lead).max() < 1e-9
    t = frames(3.0)
    crab = np.column_stack([1.0 * t, np.zeros_like(t), np.full_like(t, HEIGHT)])
    pose = reconstruct(t, crab, crab + [0.0, BODY, 0.0], np.zeros_like(t))
    assert np.abs(pose.bend).max() < 1e-9 and np.abs(pose.head_lead).max() < 1e-9
    pose = reconstruct(*pivot())
    assert np.abs(pose.bend).max() < 1e-9 and np.abs(pose.head_lead).max() < 0.01


def test_spine_stays_straight_on_a_straight_trot_and_spreads_its_arch_evenly():
    t, hind, fore, yaw = trot()
    pose = reconstruct(t, hind, fore, yaw)
    assert np.abs(pose.bend).max() < math.radians(2)
    assert np.abs(pose.twist).max() < math.radians(1)
    t, hind, fore, yaw = turn(RADIUS)
    pose = reconstruct(t, hind, fore, yaw, BodyParams(spine_segments=5))
    assert pose.spine.shape == (len(t), 5, 3, 3)
    assert np.allclose(pose.spine[:, 0], pose.pelvis) and np.allclose(pose.spine[:, -1], pose.chest)
    steps = turn_per_frame(np.swapaxes(pose.spine, 0, 1))  # (4, N): segment to segment
    assert steps == pytest.approx(np.broadcast_to(steps[0], steps.shape), rel=1e-6)
    assert steps[0].mean() == pytest.approx(abs(pose.bend).mean() / 4, rel=0.02)


def test_spine_twists_by_the_girdles_roll_difference():
    """A roll given to the chest alone twists the spine by it; entering a left turn the shoulders bank in
    before the hips (negative roll: the left side down), so the spine twists, and untwists on the circle."""
    t, hind, fore, yaw = trot(sway=0.0)
    roll = 0.1 * np.sin(2 * np.pi * t)
    pose = reconstruct(t, hind, fore, yaw, fore_roll=roll)
    assert pose.twist == pytest.approx(roll, abs=2e-3)
    assert reconstruct(t, hind, fore, yaw, hind_roll=roll).twist == pytest.approx(-roll, abs=2e-3)
    for radius in (RADIUS, -RADIUS):
        t, hind, fore, yaw = entered_turn(radius)
        pose = reconstruct(t, hind, fore, yaw)
        entering = (t > 0.8) & (t < 1.3)
        assert (np.sign(radius) * pose.twist[entering]).min() < -math.radians(1.5)
        assert np.abs(pose.twist[t > 2.0]).max() < math.radians(0.3)


# Head -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("radius", [RADIUS, -RADIUS])
@pytest.mark.parametrize("lookahead", [0.5, 1.0])
def test_head_leads_the_body_into_a_turn(radius, lookahead):
    """The head faces where the fore mass will be `lookahead` seconds on along its circle: the chord of the
    arc it covers, half that arc's angle ahead of the chest (and the chest half the body's ahead of the
    footprints' yaw). Mirrored on a right turn."""
    t, hind, fore, yaw = turn(radius)
    pose = reconstruct(t, hind, fore, yaw, BodyParams(lookahead=lookahead))
    middle = slice(FPS // 2, -FPS)
    side = np.sign(radius)
    expected = side * SPEED * lookahead / abs(radius) / 2
    assert pose.head_lead[middle] == pytest.approx(expected, rel=0.01)
    ahead_of_body = np.angle(np.exp(1j * (heading(pose.head) - yaw)))
    assert (side * ahead_of_body[middle]).min() > 0
    assert ahead_of_body[middle] == pytest.approx(expected + side * math.asin(BODY / (2 * abs(radius))), rel=0.01)


def test_head_faces_the_way_on_a_straight_and_at_rest():
    t, hind, fore, yaw = from_rest()
    pose = reconstruct(t, hind, fore, yaw)
    assert np.abs(heading(pose.head)).max() < 1e-6
    assert np.abs(pose.head_lead).max() < 1e-6


@pytest.mark.parametrize("gait", [trot, walk])
def test_head_holds_steady_against_the_bob(gait):
    """Away from the motion's ends (a second each side, where the filter sees the motion mirrored), the head
    rises and falls by under 35 % of the fore mass's bob and pitches by under 35 % of the chest's pitch."""
    t, hind, fore, yaw = gait()
    pose = reconstruct(t, hind, fore, yaw)
    middle = slice(FPS, -FPS)
    assert np.ptp(pose.head_position[middle, 2]) < 0.35 * np.ptp(fore[middle, 2])
    head_pitch, chest_pitch = np.arcsin(pose.head[:, 2, 1]), np.arcsin(pose.chest[:, 2, 1])
    assert np.ptp(head_pitch[middle]) < 0.35 * np.ptp(chest_pitch[middle])
    loose = reconstruct(t, hind, fore, yaw, BodyParams(head_steady=0.0))  # the assertion can fail
    assert np.ptp(loose.head_position[middle, 2]) > 0.8 * np.ptp(fore[middle, 2])


def test_head_goes_along_with_a_leap_and_a_rear():
    """A leap or a rear is the body's own move, not a bob: the head rises with a leap, and pitches up with a
    rear never more than STEADY_ANGLE behind the chest (its bob taken out only up to that size)."""
    t, hind, fore, yaw = leap()
    pose = reconstruct(t, hind, fore, yaw)
    assert np.ptp(pose.head_position[:, 2]) > 0.9 * np.ptp(fore[:, 2])
    pose = reconstruct(*rear())
    head_pitch, chest_pitch = np.arcsin(pose.head[:, 2, 1]), np.arcsin(pose.chest[:, 2, 1])
    assert np.abs(head_pitch - chest_pitch).max() < STEADY_ANGLE
    assert head_pitch.max() > math.radians(70)


def test_head_follows_a_climb_without_lag():
    """The steady filter is zero-phase and carries each end's trend on: climbing a steady slope (no bob),
    the head rises exactly with the body, neither behind nor ahead of it, to the last frame."""
    t = frames(3.0)
    hind = np.column_stack([np.zeros_like(t), SPEED * t, HEIGHT + 0.3 * SPEED * t])
    fore = hind + [0.0, BODY * math.cos(math.atan(0.3)), BODY * math.sin(math.atan(0.3))]
    pose = reconstruct(t, hind, fore, np.zeros_like(t))
    rigid = reconstruct(t, hind, fore, np.zeros_like(t), BodyParams(head_steady=0.0))
    assert pose.head_position == pytest.approx(rigid.head_position, abs=1e-9)
    assert np.diff(pose.head_position[:, 2]) == pytest.approx(0.3 * SPEED / FPS, rel=1e-9)


def test_neck_carries_the_head_at_its_offsets():
    """At rest (standing level, facing +Y) neck and head sit at their chest-frame offsets from the fore mass;
    the head stays the neck's length from the neck's base on the move."""
    t, hind, fore, yaw = from_rest()
    params = BodyParams(neck_offset=(0.0, 0.05, 0.15), head_offset=(0.0, 0.17, 0.19))
    pose = reconstruct(t, hind, fore, yaw, params)
    assert pose.neck_position[0] == pytest.approx(fore[0] + [0.0, 0.05, 0.15])
    assert pose.head_position[0] == pytest.approx(fore[0] + [0.0, 0.17, 0.19], abs=5e-4)  # the start's trend
    reach = np.linalg.norm(pose.head_position - pose.neck_position, axis=1)
    assert reach == pytest.approx(math.hypot(0.12, 0.04))


# Tail -------------------------------------------------------------------------------------------------------


def test_tail_swings_opposite_to_a_shove_and_settles_at_its_frequency_and_damping():
    """Shoved to the right the tail swings left; after the shove it rings down as its documented system:
    the damped period 1 / (f sqrt(1 - zeta^2)) and each half swing exp(-pi zeta / sqrt(1 - zeta^2)) of the
    one before."""
    frequency, damping = 1.5, 0.2
    params = BodyParams(bank_gain=0.0, tail_frequency=frequency, tail_damping=damping, tail_tip_lag=0.0)
    t, hind, fore, yaw = shoved()
    pose = reconstruct(t, hind, fore, yaw, params)
    root = pose.tail_side[:, 0]
    shove = (t > 0.5) & (t < 0.8)
    assert root[shove].min() < -0.005 and root[shove].max() <= 1e-12
    after = t > 0.9
    when, value = extrema(root[after], t[after])
    assert len(value) >= 4 and np.all(np.sign(value[:-1]) != np.sign(value[1:]))
    root_of_damping = math.sqrt(1 - damping ** 2)
    assert np.diff(when) * 2 == pytest.approx(1 / (frequency * root_of_damping), rel=0.01)
    assert np.abs(value[1:] / value[:-1]) == pytest.approx(math.exp(-math.pi * damping / root_of_damping), rel=0.02)
    assert np.abs(root[-FPS:]).max() < 0.02 * np.abs(root).max()  # settled


def test_tail_drops_when_the_hips_rise_and_its_tip_lags():
    """A climb's onset (the body accelerating upwards) drops the tail; the tip joint, slower, peaks later."""
    t, hind, fore, yaw = climb_onset()
    pose = reconstruct(t, hind, fore, yaw, NO_BANK)
    assert pose.tail_up[(t > 0.5) & (t < 0.9), 0].min() < -0.005
    assert pose.tail_up[t < 0.45].max() == pytest.approx(0.0, abs=1e-12)
    assert t[np.argmin(pose.tail_up[:, -1])] > t[np.argmin(pose.tail_up[:, 0])]
    assert np.allclose(pose.tail_side, 0.0, atol=1e-12)


def climb_onset(duration=3.0):
    """Walking along +Y, level, the body starting to rise at 0.3 m/s over 0.4 s from t = 0.5 s."""
    t = frames(duration)
    u = np.clip((t - 0.5) / 0.4, 0.0, 1.0)
    z = HEIGHT + 0.3 * 0.4 * (u ** 3 - u ** 4 / 2) + 0.3 * np.maximum(t - 0.9, 0.0)
    hind = np.column_stack([np.zeros_like(t), t, z])
    return t, hind, hind + [0.0, BODY, 0.0], np.zeros_like(t)


@pytest.mark.parametrize("damping", [0.3, 1.0, 2.0])
def test_tail_integration_is_exact(damping):
    """Under-, critically and over-damped, the closed-form discretisation matches a fine Runge-Kutta
    integration of x'' + 2 zeta omega x' + omega^2 (x - target) = 0, the target held over each frame at the
    mean of its ends (the pelvis level here: the target is -compliance a_z / (g joints))."""
    t, hind, fore, yaw = climb_onset()
    params = BodyParams(bank_gain=0.0, tail_damping=damping, tail_frequency=1.3, tail_tip_lag=0.0)
    pose = reconstruct(t, hind, fore, yaw, params)
    inner = np.diff(hind[:, 2], 2) * FPS ** 2
    lift = np.concatenate([inner[:1], inner, inner[-1:]])
    target = -0.5 * lift / 9.81 / 4
    held = 0.5 * (target[1:] + target[:-1])
    omega, substeps = 2 * math.pi * 1.3, 20
    h = 1 / FPS / substeps

    def slope(state, goal):
        return np.array([state[1], -2 * damping * omega * state[1] - omega ** 2 * (state[0] - goal)])

    state, states = np.array([target[0], 0.0]), [np.array([target[0], 0.0])]
    for goal in held:
        for _ in range(substeps):
            k1 = slope(state, goal)
            k2 = slope(state + h / 2 * k1, goal)
            k3 = slope(state + h / 2 * k2, goal)
            k4 = slope(state + h * k3, goal)
            state = state + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        states.append(state)
    assert pose.tail_state[:, 0, 1] == pytest.approx(np.array(states), abs=1e-9)


def test_tail_starts_at_rest_in_its_steady_state():
    """A steady turn from frame 0: the tail already swung out (opposite the centripetal acceleration, by
    tail_compliance of a/g spread over its joints) and still: no pop. Started straight instead, it rings."""
    t, hind, fore, yaw = turn(RADIUS)
    pose = reconstruct(t, hind, fore, yaw, NO_BANK)
    steady = 0.5 * (SPEED ** 2 / RADIUS) / 9.81 / 4
    assert pose.tail_side == pytest.approx(steady, rel=2e-3)  # swung right: out of a left turn
    assert np.abs(pose.tail_state[0, :, :, 1]).max() == 0.0  # no rate at frame 0
    assert np.abs(np.diff(pose.tail_side[:, 0])).max() < 1e-4 * steady
    mirrored = reconstruct(*turn(-RADIUS), NO_BANK)
    assert mirrored.tail_side == pytest.approx(-pose.tail_side)
    ringing = reconstruct(t, hind, fore, yaw, NO_BANK, tail_start=np.zeros((4, 2, 2)))
    assert np.ptp(ringing.tail_side[:, 0]) > steady


def test_tail_state_continues_a_bake_split_in_two():
    """Reconstructing the frames from k on with the state at k continues the tail: exactly at k, and after
    it within 0.5 % of the tail's swing (the cut's first acceleration is one-sided); started afresh there
    instead, it pops back to its steady state."""
    t, hind, fore, yaw = walk()
    whole = reconstruct(t, hind, fore, yaw, NO_BANK)
    k = 100
    bends = whole.tail_state[k:, :, :, 0]
    rest = reconstruct(t[k:], hind[k:], fore[k:], yaw[k:], NO_BANK, tail_start=whole.tail_state[k])
    assert rest.tail_state[0] == pytest.approx(whole.tail_state[k], abs=1e-15)
    assert np.abs(rest.tail_state[:, :, :, 0] - bends).max() < 0.005 * np.ptp(whole.tail_state[..., 0])
    afresh = reconstruct(t[k:], hind[k:], fore[k:], yaw[k:], NO_BANK)
    assert np.abs(afresh.tail_state[:, :, :, 0] - bends).max() > 0.05 * np.ptp(whole.tail_state[..., 0])


def test_loop_closes_on_its_periodic_steady_state():
    """One trot stride given as a loop (its closing frame the next stride's first): the tail's state at the
    closing frame is frame 0's, and every output equals that of the same stride deep inside a long trot
    (the tail long settled); the same stride not looped does not close."""
    stride = 0.4
    t, hind, fore, yaw = trot(stride)
    looped = reconstruct(t, hind, fore, yaw, loop=True)
    assert looped.tail_state[-1] == pytest.approx(looped.tail_state[0], abs=1e-12)
    long_t, long_hind, long_fore, long_yaw = trot(80 * stride)
    long = reconstruct(long_t, long_hind, long_fore, long_yaw)
    start = 60 * int(round(stride * FPS))  # 24 s in: the tail's start has decayed to 1e-10
    inside = slice(start, start + len(t))
    for field in ROTATIONS + ANGLES + ("neck_position", "head_position"):
        expected = getattr(long, field)[inside]
        if field.endswith("position"):
            expected = expected - long_hind[start] + hind[0]
        assert getattr(looped, field) == pytest.approx(expected, abs=1e-6), field
    once = reconstruct(t, hind, fore, yaw)
    assert np.abs(once.tail_state[-1, :, :, 0] - once.tail_state[0, :, :, 0]).max() > 1e-4


# Bad input --------------------------------------------------------------------------------------------------


def bad(**changes):
    t, hind, fore, yaw = trot(0.5)
    arguments = dict(times=t, hind=hind, fore=fore, yaw=yaw)
    arguments.update(changes)
    return arguments


@pytest.mark.parametrize("arguments, error, named", [
    (bad(hind=np.zeros((31, 2))), BodyInputError, "hind"),
    (bad(fore=np.zeros((30, 3))), BodyInputError, "fore"),
    (bad(yaw=np.zeros(32)), BodyInputError, "yaw"),
    (bad(times=np.zeros((31, 1))), BodyInputError, "times"),
    (bad(times=np.arange(1) / FPS, hind=np.zeros((1, 3)), fore=np.ones((1, 3)), yaw=np.zeros(1)), RangeError,
     "at least 2"),
    (bad(times=np.array([0.0, 0.1, 0.15] + [0.2 + k / FPS for k in range(28)])), BodyInputError, "times"),
    (bad(times=-np.arange(31) / FPS), BodyInputError, "times"),
    (bad(hind="trot"), BodyInputError, "hind"),
    (bad(fore_roll=np.zeros(5)), BodyInputError, "fore_roll"),
    (bad(hind=np.full((31, 3), 2e6)), RangeError, "hind"),
])
def test_bad_input_is_named(arguments, error, named):
    with pytest.raises(error, match=named) as caught:
        reconstruct(**arguments)
    assert isinstance(caught.value, FootprintError) and isinstance(caught.value, ValueError)


def test_non_finite_input_names_the_array_and_frame():
    t, hind, fore, yaw = trot(0.5)
    fore = fore.copy()
    fore[7, 2] = np.nan
    with pytest.raises(NonFiniteError, match=r"fore: not finite at frame 7"):
        reconstruct(t, hind, fore, yaw)
    with pytest.raises(NonFiniteError, match=r"yaw: not finite at frame 3"):
        reconstruct(t, hind, trot(0.5)[2], np.where(np.arange(len(t)) == 3, np.inf, 0.0))


def test_degenerate_bodies_loops_and_parameters_are_named():
    t, hind, fore, yaw = trot(0.5)
    with pytest.raises(BodyInputError, match="on one point at frame 4"):
        reconstruct(t, hind, np.where(np.arange(len(t))[:, None] == 4, hind, fore), yaw)
    with pytest.raises(BodyInputError, match="loop"):
        reconstruct(*turn(RADIUS, duration=0.5), loop=True)  # the closing frame has turned
    with pytest.raises(RangeError, match="at least 3"):
        reconstruct(t[:2], hind[:2], fore[:2], yaw[:2], loop=True)
    for params, named in ((BodyParams(tail_damping=-0.1), "tail_damping"), (BodyParams(spine_segments=0),
                          "spine_segments"), (BodyParams(head_offset=(0.0, 1.0)), "head_offset"),
                          (BodyParams(tail_frequency=float("nan")), "tail_frequency"),
                          (BodyParams(lookahead="soon"), "lookahead"), (BodyParams(tangent_span=0.0), "tangent_span")):
        with pytest.raises(BodyInputError, match=named):
            reconstruct(t, hind, fore, yaw, params)
    with pytest.raises(BodyInputError, match="tail_start"):
        reconstruct(t, hind, fore, yaw, tail_start=np.zeros((3, 2, 2)))
