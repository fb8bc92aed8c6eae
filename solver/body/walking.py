"""Walking attributes: the walking counterpart of RUNNER's nineteen (Bruderlin & Calvert 1996, §3.3), the
kinematics vdP97 §2.5-2.6 leaves to the gait's phase: arms swinging against the legs, the trunk leaning and
counter-rotating against the pelvis, the head steadied and turned toward where the path goes, heel strike
and toe roll.

Defaults from human gait data at free speed (about 1.3 m/s):
- shoulder flexion-extension about 30 degrees peak to peak, growing with speed, elbow flexed 15-45 degrees
  (Murray, Sepic & Barnard 1967, Phys. Ther. 47, "Patterns of sagittal rotation of the upper limbs in
  walking");
- pelvic rotation about 8 degrees and list about 7 degrees peak to peak, thorax counter-rotating about 7
  degrees (Perry & Burnfield 2010, Gait Analysis, ch. 8; Lamoth et al. 2002);
- the head held within a few degrees of level (Pozzo, Berthoz & Lefort 1990), turned toward where the path
  goes at most HEAD_TURN from the chest (about 70 degrees of cervical rotation each way; the eyes do the rest)
  and no faster than HEAD_RATE (issue 28: 3 degrees a frame at 60 fps);
- heel strike with the foot about 15-20 degrees toes up, foot flat by 8 % of the cycle (Perry & Burnfield,
  ch. 4).

Everything here is a function of the solved Motion: angles per frame, in the solver's body frame
(+X right, +Y forward, +Z up); the add-on turns them into bone rotations.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from ..core.orientation import BODY_WINDOW, left_phase, pelvis_oscillation, rotation_matrices, window_ends
from ..core.schedule import feet_down
from .transforms import axis_angle_between, rodrigues, smoothstep, wrap_angle

REFERENCE_SPEED = 1.3  # m/s: the speed the defaults are for
MAX_SPEED_FACTOR = 1.6  # arm swing and lean stop growing here (about 2 m/s)
RUN_ELBOW = 85.0  # degrees: a runner's mean elbow flexion (about 80-90, swinging about 20 peak to peak: Hinrichs
# 1987, Mann & Hagy 1980); the arms take it as the gait's flights come
RUN_FLIGHTS = 2  # flights within a second: a run's arms from here (a run flies about three times a second)
HEAD_TURN = np.radians(60.0)  # the head turns at most this far from the chest, either way
HEAD_RATE = np.radians(150.0)  # rad/s: the fastest the head turns toward the path (under 3 degrees a frame at 60 fps)


@dataclass(frozen=True)
class WalkingAttributes:
    """Each in degrees unless said; the arm swing and the lean scale with speed, zero when standing."""

    arm_swing: float = 30.0  # shoulder flexion-extension, peak to peak, at REFERENCE_SPEED
    elbow_flexion: float = 25.0  # mean elbow flexion
    elbow_swing: float = 15.0  # peak to peak: the elbow bends more as the arm swings forward
    arm_abduction: float = 8.0  # the arms held this far out from the body
    torso_lean: float = 3.0  # forward, at REFERENCE_SPEED
    slope_lean: float = 0.4  # fraction of the path's slope the trunk leans into (a climb, a descent)
    torso_bounce: float = 2.0  # trunk flexion peak to peak, twice a stride (at each loading)
    pelvic_rotation: float = 8.0  # peak to peak, transverse: the landing side forward
    pelvic_list: float = 7.0  # peak to peak, frontal: the swing side drops
    chest_rotation: float = 7.0  # peak to peak, the thorax against the pelvis (relative to the path)
    head_steady: float = 0.9  # 0-1: how much of the trunk's pitch and roll the head cancels
    look_ahead: float = 0.8  # seconds: the head turns toward where the path is then
    heel_strike: float = 15.0  # the foot's toes up as the heel lands, rolling down to flat


ATTRIBUTE_NAMES = tuple(f.name for f in fields(WalkingAttributes))
PRESETS = {
    "neutral": WalkingAttributes(),
    "brisk": WalkingAttributes(arm_swing=42.0, elbow_flexion=35.0, elbow_swing=25.0, torso_lean=5.0,
                               pelvic_rotation=11.0, chest_rotation=9.0, look_ahead=1.0, heel_strike=20.0),
    "tired": WalkingAttributes(arm_swing=14.0, elbow_flexion=15.0, elbow_swing=6.0, arm_abduction=5.0,
                               torso_lean=9.0, torso_bounce=4.0, pelvic_rotation=5.0, pelvic_list=9.0,
                               chest_rotation=3.0, head_steady=0.6, look_ahead=0.4, heel_strike=8.0),
    "cautious": WalkingAttributes(arm_swing=12.0, elbow_flexion=30.0, elbow_swing=6.0, arm_abduction=14.0,
                                  torso_lean=6.0, torso_bounce=1.0, pelvic_rotation=5.0, pelvic_list=4.0,
                                  chest_rotation=3.0, head_steady=1.0, look_ahead=0.3, heel_strike=6.0),
}


def character_with(character, attributes: WalkingAttributes):
    """The character with the attributes the COM solve itself must see (the legs hang from the pelvis, so
    its rotation and list move the hips): pelvic rotation and list (amplitudes) replace vdP97's whole-body
    roll, and the heel strike."""
    return replace(character, pelvic_rotation=np.radians(attributes.pelvic_rotation) / 2,
                   pelvic_list=np.radians(attributes.pelvic_list) / 2, roll_amplitude=0.0,
                   heel_strike=np.radians(attributes.heel_strike))


@dataclass(frozen=True)
class UpperBody:
    """Per frame (N), in the body frame: the chest's rotation relative to the pelvis (N, 3, 3), the head's
    relative to the chest (N, 3, 3), and each arm's shoulder flexion (forward, radians) and elbow flexion
    (radians), keyed by foot side ("L", "R")."""

    chest: np.ndarray
    head: np.ndarray
    shoulder: dict
    elbow: dict
    abduction: float


def speed_factor(motion):
    """(factor (N,), travel (N, 3)): the COM's horizontal speed over the body's moving window as a fraction of
    REFERENCE_SPEED (0 standing, at most MAX_SPEED_FACTOR), and its displacement across the window."""
    t = motion.times
    before, after = window_ends(t, t[0], t[-1])
    travel = _com_at(motion, after) - _com_at(motion, before)
    speed = np.linalg.norm(travel[:, :2], axis=1) / np.maximum(after - before, 1e-9)
    return np.clip(speed / REFERENCE_SPEED, 0.0, MAX_SPEED_FACTOR), travel


def _com_at(motion, times):
    """The COM (M, 3) at times within the motion, linearly between its frames."""
    return np.column_stack([np.interp(times, motion.times, motion.com[:, k]) for k in range(3)])


def upper_body(motion, attributes: WalkingAttributes) -> UpperBody:
    """The attributes' upper body over a solved walking motion (vdP97 §2.6: procedural, driven by the
    gait's phase)."""
    a = attributes
    psi = left_phase(motion.times, motion.track)
    factor, travel = speed_factor(motion)
    rad = np.radians
    # Trunk: counter-rotates against the pelvis (the pelvis's yaw is in the body's: character_with), leans
    # forward with speed and into the slope of the path, flexes a little at each loading.
    ch = motion.character
    pelvis_yaw, pelvis_list = pelvis_oscillation(psi, ch.pelvic_rotation, ch.pelvic_list)  # as solved
    chest_yaw = rad(a.chest_rotation) / 2 * np.cos(psi) * np.minimum(factor, 1.0)
    slope = np.arctan2(travel[:, 2], np.maximum(np.linalg.norm(travel[:, :2], axis=1), 1e-9))
    lean = rad(a.torso_lean) * factor + a.slope_lean * slope * (factor > 0.05)
    bounce = rad(a.torso_bounce) / 2 * np.cos(2.0 * psi) * np.minimum(factor, 1.0)
    chest = rotation_matrices(chest_yaw - pelvis_yaw, -(lean + bounce), -pelvis_list)
    # Head: level and toward where the path goes, against what the trunk does (by head_steady). Where the path
    # goes is where the feet will head look_ahead from now (no sway, no pelvic turn, and never behind the body
    # when it steps sideways or back), at most HEAD_TURN from the chest, turning at most HEAD_RATE.
    body = rotation_matrices(motion.yaw, motion.pitch, motion.roll)
    trunk = body @ chest
    trunk_yaw = np.unwrap(np.arctan2(-trunk[:, 0, 1], trunk[:, 1, 1]))
    path_yaw = np.unwrap(motion.yaw - pelvis_yaw)  # the feet's heading, without the pelvis's turn
    ahead = np.interp(motion.times + a.look_ahead, motion.times, path_yaw)  # (held at the last frame)
    look = rate_limited(trunk_yaw + np.clip(wrap_angle(ahead - trunk_yaw), -HEAD_TURN, HEAD_TURN), motion.times,
                        HEAD_RATE)  # (a trunk turning faster than HEAD_RATE leaves it behind, beyond HEAD_TURN, a moment)
    level = rotation_matrices(look, 0.0, 0.0)
    steady = np.swapaxes(trunk, 1, 2) @ level  # the head's rotation relative to the chest that holds it level
    free = rotation_matrices(look - trunk_yaw, 0.0, 0.0)  # turned toward the path only
    axis, angle = axis_angle_between(free, steady)
    head = free @ rodrigues(axis, a.head_steady * angle)  # from turned only (0) to held level too (1)
    # Arms: each swings against its own side's leg (forward as the other foot lands), more with speed; on
    # two-footed hops both together, back as the feet land and forward for the take-off.
    hop = hopping_weight(motion)
    together = -np.cos(2.0 * psi)  # psi advances by pi a hop
    forward = {"L": (1.0 - hop) * -np.cos(psi) + hop * together,  # -1 back .. 1 forward
               "R": (1.0 - hop) * np.cos(psi) + hop * together}
    swing = rad(a.arm_swing) / 2 * factor
    walking = np.minimum(factor / 0.1, 1.0)  # the elbow's swing fades with the arm's when standing
    shoulder = {side: swing * phase for side, phase in forward.items()}
    flexion = rad(a.elbow_flexion) + running_weight(motion) * rad(RUN_ELBOW - a.elbow_flexion)  # bent as it runs
    elbow = {side: flexion + rad(a.elbow_swing) / 2 * phase * walking for side, phase in forward.items()}
    return UpperBody(chest, head, shoulder, elbow, rad(a.arm_abduction))


def _window_samples(motion, samples):
    """(N, samples) times spread over the body's moving window around each frame."""
    before, after = window_ends(motion.times, motion.times[0], motion.times[-1])
    return before[:, None] + (after - before)[:, None] * np.linspace(0.0, 1.0, samples)[None, :]


def hopping_weight(motion, samples=25):
    """(N,) 0 stepping .. 1 hopping: how much of the body's moving window around each frame follows a landing
    of two feet together from a flight (a hop; not two feet standing at the start), eased in."""
    tr = motion.track
    falls, counts = np.unique(tr.contact, return_counts=True)
    hops = (counts > 1) & (feet_down(tr.contact, tr.liftoff, falls - 1e-6) == 0) & (falls > falls[0])  # (the start lands from nowhere)
    t = _window_samples(motion, samples)
    last = np.searchsorted(falls, t, side="right") - 1
    return smoothstep(np.where(last >= 0, hops[np.maximum(last, 0)], False).mean(axis=1))


def running_weight(motion, samples=25):
    """(N,) 0 walking .. 1 running: how much of the body's moving window around each frame is in a run, where
    every step flies (RUN_FLIGHTS flights or more within the window: a leap or a hop in a walk flies once),
    eased in."""
    tr = motion.track
    lifts = np.unique(tr.liftoff[tr.liftoff < tr.liftoff.max()])
    flights = lifts[feet_down(tr.contact, tr.liftoff, lifts) == 0]  # lift-offs that leave no foot on the ground
    t = _window_samples(motion, samples)
    half = 0.5 * BODY_WINDOW
    count = np.searchsorted(flights, t + half, side="right") - np.searchsorted(flights, t - half, side="left")
    return smoothstep(np.clip(count - (RUN_FLIGHTS - 1), 0, 1).mean(axis=1))


def rate_limited(values, times, rate):
    """(N,) values changing at most `rate` per second, as close to them as that allows: the mean of the largest
    rate-Lipschitz function below them and the smallest above (each a running minimum or maximum of the values
    shifted by rate * time, forward and back), so values already within the rate come back unchanged and a
    jump becomes a ramp centred on it."""
    shift = rate * times
    below = np.minimum(np.minimum.accumulate(values - shift) + shift,
                       np.minimum.accumulate((values + shift)[::-1])[::-1] - shift)
    above = np.maximum(np.maximum.accumulate(values + shift) - shift,
                       np.maximum.accumulate((values - shift)[::-1])[::-1] + shift)
    return 0.5 * (below + above)


def toe_bends(motion, release=0.2):
    """(N, L) radians each foot's toes bend up against the foot: in stance the heel-off angle (the toes stay
    flat on the ground as the heel rises about the ball), easing out over `release` seconds after lift-off
    (the toes leave the ground last), and in over as long before a landing on the ball with the toes down (a
    runner's toe strike: the toes meet the ground flat)."""
    n, legs = motion.contact.shape
    tr = motion.track
    if tr is None:
        return np.zeros((n, legs))
    rows = np.arange(n)[:, None]
    last = np.maximum.accumulate(np.where(motion.contact, rows, -1), axis=0)  # the last stance frame so far
    left = np.where(last >= 0, motion.footprint[np.maximum(last, 0), np.arange(legs)], -1)
    # Before a foot's first stance frame (a cycle's frames start with it swinging): the footprint it left
    # last by the track's times, taken level.
    unseen = np.zeros((n, legs), dtype=bool)
    for leg, foot in enumerate(motion.character.feet):  # a handful of legs
        mine = np.flatnonzero(tr.feet == foot)
        if not mine.size:  # a leg never put down bends no toes
            continue
        mine = mine[np.argsort(tr.liftoff[mine])]
        earlier = np.searchsorted(tr.liftoff[mine], motion.times, side="right") - 1
        unseen[:, leg] = (left[:, leg] < 0) & (earlier >= 0)
        left[:, leg] = np.where(unseen[:, leg], mine[np.maximum(earlier, 0)], left[:, leg])
    since = np.clip((motion.times[:, None] - tr.liftoff[np.maximum(left, 0)]) / release, 0.0, 1.0)
    fade = 1.0 - smoothstep(since)
    pitch_down = -np.arcsin(np.clip(motion.foot_rotation[..., 2, 1], -1.0, 1.0))  # toes below the heel
    # Against the footprint left (on a slope it is pitched itself): its pitch is the foot's at its last
    # stance frame less the heel-off angle then.
    at_last = np.maximum(last, 0), np.arange(legs)
    footprint_pitch = np.where(unseen, 0.0, pitch_down[at_last] - motion.toe_pivot[at_last])
    swinging = np.where(left >= 0, np.maximum(pitch_down - footprint_pitch, 0.0) * fade, 0.0)
    coming = np.zeros((n, legs))
    for leg, foot in enumerate(motion.character.feet):  # a handful of legs: the next landing, taken level
        contacts = np.sort(tr.contact[tr.feet == foot])
        if not contacts.size:
            continue
        following = np.searchsorted(contacts, motion.times, side="left")
        until = contacts[np.minimum(following, len(contacts) - 1)] - motion.times
        near = (following < len(contacts)) & (until < release)
        coming[:, leg] = np.where(near, np.maximum(pitch_down[:, leg], 0.0) * smoothstep(1.0 - until / release), 0.0)
    swinging = np.maximum(swinging, coming)
    return np.where(motion.contact, np.maximum(motion.toe_pivot, 0.0), swinging)
