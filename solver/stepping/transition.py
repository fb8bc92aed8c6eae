"""A transition between two standing clips by stepping (Wu, Medina and Zordan, WMZ §6: "combining two
existing clips, i.e. without using a step example"): the first clip ends standing, the second starts standing
elsewhere. Each foot whose place differs steps there, one step after another, the other foot the support (the
paper's pivot); the body is the two poses blended and then corrected, frame by frame, for the stepping foot's
path and the COM's.

- The starting blend (WMZ §6): every joint's local rotation slerped, and locations and scales interpolated,
  from the first pose to the second with an ease-in/ease-out weight; the body's root (the pelvis control) is
  placed from the planted support foot: its turn and height are the blend's, its place in the horizontal
  plane the optimiser's.
- The stepping foot (WMZ §4, eq. 1): along the straight line from where it stands to where it must stand, at
  a bell-shaped speed (profiles.foot_progress: minimum jerk), lifted by a smooth arc that clears the ground,
  turning with the same progress.
- The projected COM (WMZ §5, Fig. 2): on the quadratic Bezier through its start, the support foot and its
  end, at the three-phase speed (push-off, free fall, landing; profiles.com_progress).
- The correction (WMZ §6): per frame, the pelvis moves in the horizontal plane until the body's projected COM
  is on its path; the legs follow by two-bone IK to the planted and stepping feet, and the pelvis is lowered
  rather than stretch a leg beyond its reach. Gauss-Newton over all frames at once (the paper uses BFGS per
  frame; the problem is two unknowns per frame and nearly linear).

The body's COM is the segments' (Winter 2009, Table 4.1, after Dempster 1955). Everything is in world space,
metres and seconds; rotations are 3 x 3 matrices or (w, x, y, z) quaternions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..body.transforms import ease_in_out, quaternion_from_matrix, quaternion_matrices, rotation_z, slerp
from ..errors import FootprintError
from .profiles import (bezier_arc_length, bezier_at_distance, com_progress, foot_progress, free_fall_slope,
                       lift_arc)
from .stance import Stance, leading_foot, mean_heading

# Winter, Biomechanics and Motor Control of Human Movement (4th ed., 2009), Table 4.1 (Dempster 1955): each
# segment's mass as a fraction of the body's, and its COM's distance from the proximal end as a fraction of
# the segment's length. Trunk: greater trochanter to glenohumeral joint; head and neck: C7-T1 to the ear
# canal; hand: wrist to the middle finger's knuckle; foot: ankle to the toes.
SEGMENTS = {
    "trunk": (0.497, 0.50), "head_neck": (0.081, 1.0), "upper_arm": (0.028, 0.436), "forearm": (0.016, 0.430),
    "hand": (0.006, 0.506), "thigh": (0.100, 0.433), "leg": (0.0465, 0.433), "foot": (0.0145, 0.50),
}
# A rig without named upper-body segments: everything above the legs as one mass at one point.
SEGMENTS["upper_body"] = (1.0 - 2.0 * (SEGMENTS["thigh"][0] + SEGMENTS["leg"][0] + SEGMENTS["foot"][0]), 0.0)

MOVE_DISTANCE = 0.005  # a foot further than this (m) from where it must stand steps there
MOVE_ANGLE = math.radians(2.0)  # ... or turned more than this
PUSH_OFF, SWING = 0.3, 0.45  # shares of a step's time: push-off (double support), swing; landing the rest (Fig. 2)
LIFT = 0.07  # the stepping foot's lift at mid-swing, in leg lengths (6 cm on a 0.9 m leg)
REACH = 0.995  # of thigh + shin: the pelvis is lowered before a leg gets straighter (the knee never locks)
MIN_STEP_SECONDS = 0.2  # a step quicker than this is a jump, not a step
COM_TOLERANCE = 1e-4  # m: the optimiser stops once every frame's projected COM is this close to its path
MAX_ITERATIONS = 8
STEP_EPSILON = 1e-3  # m: the finite difference of the Jacobian


class TransitionError(FootprintError):
    """Two clips that cannot be joined by stepping (overlapping, too close in time, not a biped); the message
    names the culprit."""


@dataclass(frozen=True)
class Pose:
    """A standing pose of a biped, world space. Feet in one order throughout (the rig's: left, right)."""

    torso: np.ndarray  # (4, 4) the pelvis control (the body's root), rigid: orthonormal rotation, head position
    feet: np.ndarray  # (2, 4, 4) each foot control, rigid
    hips: np.ndarray  # (2, 3) hip joints
    knees: np.ndarray  # (2, 3)
    ankles: np.ndarray  # (2, 3)
    toes: np.ndarray  # (2, 3) toe tips
    upper: np.ndarray  # (K, 3) the upper body's segment centres of mass (segment_centres)


@dataclass(frozen=True)
class Body:
    """What the poses share: the upper segments' masses (fractions of the body's) and each leg's bones."""

    upper_mass: np.ndarray  # (K,)
    thigh: np.ndarray  # (2,) hip to knee, m
    shin: np.ndarray  # (2,) knee to ankle, m


@dataclass(frozen=True)
class Step:
    """One step of a transition: the foot that steps (index), the one it pivots on, its phases' times
    (t0 push-off, t1 lift-off, t2 touchdown, t3 landed; seconds from the gap's start), the COM's Bezier
    (start, pivot, end: horizontal points) and the support leg's lean theta as the free fall begins (Fig. 2's
    m2 = g sin(theta)). A shift of weight with both feet down has foot = support = -1 and no free fall."""

    foot: int
    support: int
    times: tuple
    com_path: np.ndarray  # (3, 2)
    lean: float = 0.0


@dataclass(frozen=True)
class Transition:
    """Per frame (times t, seconds from the first clip's end): the blend's weight, the pelvis control's and
    the feet's world transforms, the COM's place on its path (target) and the body's (model: off the target
    only where the legs cannot reach it), and how far the pelvis was lowered to keep the legs within reach."""

    times: np.ndarray  # (F,)
    weight: np.ndarray  # (F,)
    torso: np.ndarray  # (F, 4, 4)
    feet: np.ndarray  # (F, 2, 4, 4)
    com_target: np.ndarray  # (F, 2)
    com: np.ndarray  # (F, 3)
    lowered: np.ndarray  # (F,)
    steps: tuple


def segment_centres(kinds, proximal, distal):
    """Centres of mass (..., K, 3) and masses (K,) of segments of the kinds named (SEGMENTS) between their
    proximal and distal ends (..., K, 3)."""
    table = np.array([SEGMENTS[k] for k in kinds], dtype=float).reshape(-1, 2)
    proximal, distal = np.asarray(proximal, dtype=float), np.asarray(distal, dtype=float)
    return proximal + table[:, 1, None] * (distal - proximal), table[:, 0]


def segment_masses(kinds):
    """The masses (K,) of segments of the kinds named, as fractions of the body's (SEGMENTS)."""
    return np.array([SEGMENTS[k][0] for k in kinds], dtype=float)


def body_com(kinds, proximal, distal):
    """The whole body's centre of mass (..., 3) from all its segments' ends (..., K, 3)."""
    centres, masses = segment_centres(kinds, proximal, distal)
    return np.einsum("...kd,k->...d", centres, masses) / masses.sum()


def leg_segments(hips, knees, ankles, toes):
    """The kinds, proximal and distal ends of both legs' thighs, legs and feet: for body_com."""
    proximal = np.concatenate([hips, knees, ankles], axis=-2)
    distal = np.concatenate([knees, ankles, toes], axis=-2)
    n = np.shape(hips)[-2]
    return ("thigh",) * n + ("leg",) * n + ("foot",) * n, proximal, distal


def _quaternions(rotations):
    """(..., 3, 3) -> (..., 4), any leading shape."""
    rotations = np.asarray(rotations, dtype=float)
    return quaternion_from_matrix(rotations.reshape(-1, 3, 3)).reshape(rotations.shape[:-2] + (4,))


def blend_bases(location, quaternion, scale, weight):
    """The starting blend of local transforms (WMZ §6): location (2, B, 3), quaternion (2, B, 4), scale
    (2, B, 3) at the two poses -> each (F, B, .) at the weights (F,): rotations slerped, the rest lerped."""
    w = np.asarray(weight, dtype=float)[:, None, None]
    q = slerp(quaternion[0][None], quaternion[1][None], w[..., 0])
    return _lerp_changing(location, w), q, _lerp_changing(scale, w)


def _lerp_changing(pair, w):
    """The lerp (F, B, n) between pair[0] and pair[1] (B, n), without the arithmetic when they are the same
    (most bones' scale): then a read-only view of it at every weight."""
    first, second = np.asarray(pair[0], dtype=float), np.asarray(pair[1], dtype=float)
    if np.array_equal(first, second):
        return np.broadcast_to(first, (len(w),) + first.shape)
    return _lerp(first, second, w)


def _rigid(rotation, position):
    m = np.zeros(rotation.shape[:-2] + (4, 4))
    m[..., :3, :3], m[..., :3, 3], m[..., 3, 3] = rotation, position, 1.0
    return m


def _local(frame, points):
    """Points (..., 3) in the frame of a rigid transform (4, 4)."""
    return (points - frame[:3, 3]) @ frame[:3, :3]


def _headings(pose):
    """Each foot's heading (2,): the direction from the ankle to the toes about +Z (0 along +Y)."""
    d = pose.toes - pose.ankles
    return np.arctan2(-d[:, 0], d[:, 1])


def _sole(pose):
    """The middle of each foot (2, 3): between the ankle and the toes, the point a step carries straight."""
    return 0.5 * (pose.ankles + pose.toes)


def moving_feet(start, end):
    """Which feet (bool (2,)) must step: their middle moved more than MOVE_DISTANCE or the foot turned more
    than MOVE_ANGLE (any axis) between the poses."""
    moved = np.linalg.norm(_sole(end) - _sole(start), axis=1) > MOVE_DISTANCE
    relative = np.swapaxes(start.feet[:, :3, :3], 1, 2) @ end.feet[:, :3, :3]
    angle = np.arccos(np.clip((np.trace(relative, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0))
    return moved | (angle > MOVE_ANGLE)


def step_order(start, end, moving):
    """The moving feet in the order they step, where both move: stance.leading_foot's first, as the planner's
    (the foot on the side the body goes, a turn counting toward its side: turning on the spot, the inside foot)."""
    feet = [int(f) for f in np.flatnonzero(moving)]
    if len(feet) < 2:
        return feet
    lead = leading_foot(*(Stance(_sole(pose), _headings(pose)) for pose in (start, end)))
    return [lead, 1 - lead]


def _stance_heading(pose):
    return float(mean_heading(_headings(pose)))


def _stance_com(start, end, fraction, feet_middles, heading, com_a, com_b):
    """The projected COM of an intermediate stance (after some of the steps): where the two poses put it
    relative to their feet (their middle and heading), interpolated by the fraction of the steps taken."""
    def offset(pose, com):
        return rotation_z(-_stance_heading(pose))[:2, :2] @ (com[:2] - _sole(pose).mean(axis=0)[:2])

    local = (1.0 - fraction) * offset(start, com_a) + fraction * offset(end, com_b)
    return feet_middles.mean(axis=0)[:2] + rotation_z(heading)[:2, :2] @ local


def _plan(start, end, duration, com_a, com_b):
    """The steps (Step) over the gap: one per moving foot in step_order, the gap's time split evenly, or one
    shift of weight with both feet down when no foot has to move."""
    moving = moving_feet(start, end)
    order = step_order(start, end, moving)
    if not order:
        mid = 0.5 * (com_a[:2] + com_b[:2])
        return (Step(-1, -1, (0.0, 0.5 * duration, 0.5 * duration, duration), np.array([com_a[:2], mid, com_b[:2]])),)
    span = duration / len(order)
    if span < MIN_STEP_SECONDS:
        raise TransitionError(f"{len(order)} step{'s' if len(order) > 1 else ''} in {duration:.3f} s: a step needs "
                              f"at least {MIN_STEP_SECONDS} s; leave a longer gap between the clips")
    middles = _sole(start).copy()
    headings = _headings(start).copy()
    height = com_a[2] - _sole(start)[:, 2].mean()  # the COM over the ground, for the lean
    steps, com = [], com_a[:2]
    for k, foot in enumerate(order):
        support = 1 - foot
        middles[foot], headings[foot] = _sole(end)[foot], _headings(end)[foot]
        last = k == len(order) - 1
        after = com_b[:2] if last else _stance_com(start, end, (k + 1) / len(order), middles,
                                                   mean_heading(headings), com_a, com_b)
        t0 = k * span
        times = (t0, t0 + PUSH_OFF * span, t0 + (PUSH_OFF + SWING) * span, t0 + span)
        path = np.array([com, middles[support][:2], after])
        steps.append(Step(foot, support, times, path, _lean(path, height)))
        com = after
    return tuple(steps)


def _feet_progress(start, end, steps, times, leg):
    """Each foot's progress along its way (F, 2) (0 where it stood, 1 where it must stand; WMZ eq. 1 in
    swing) and its lift (F, 2) above the straight line (profiles.lift_arc: no vertical speed at lift-off or
    touchdown)."""
    progress = np.zeros((len(times), 2))
    lift = np.zeros((len(times), 2))
    for step in steps:
        if step.foot < 0:
            continue
        _t0, t1, t2, _t3 = step.times
        u = (times - t1) / (t2 - t1)
        progress[:, step.foot] = np.where(times >= t2, 1.0, np.where(times > t1, foot_progress(u), 0.0))
        swinging = (times > t1) & (times < t2)
        lift[:, step.foot] = np.where(swinging, LIFT * leg[step.foot] * lift_arc(u), 0.0)
    return progress, lift


def _lerp(a, b, w):
    return a + w * (b - a)


def _feet(start, end, progress, lift):
    """The feet's world transforms (F, 2, 4, 4) and, carried by them, the ankles, toe tips and knee bend
    directions (F, 2, 3): rotations slerped and the feet's middles carried straight by their progress."""
    q = slerp(_quaternions(start.feet[:, :3, :3]), _quaternions(end.feet[:, :3, :3]), progress)  # (F, 2, 4)
    rotation = quaternion_matrices(q)
    s = progress[..., None]
    middle = _lerp(_sole(start), _sole(end), s)
    middle[..., 2] += lift

    def carried(name):  # a point of the foot in its control's frame, at each pose, interpolated likewise
        a = np.einsum("fji,fj->fi", start.feet[:, :3, :3], getattr(start, name) - start.feet[:, :3, 3])
        b = np.einsum("fji,fj->fi", end.feet[:, :3, :3], getattr(end, name) - end.feet[:, :3, 3])
        return _lerp(a, b, s)

    ankle, toe = carried("ankles"), carried("toes")
    middle_local = 0.5 * (ankle + toe)
    origin = middle - np.einsum("fkij,fkj->fki", rotation, middle_local)
    ankles = origin + np.einsum("fkij,fkj->fki", rotation, ankle)
    toes = origin + np.einsum("fkij,fkj->fki", rotation, toe)
    bend = np.einsum("fkij,fkj->fki", rotation, _lerp(_knee_bend(start), _knee_bend(end), s))
    return _rigid(rotation, origin), ankles, toes, bend


def _knee_bend(pose):
    """Each knee's direction off its hip-to-ankle line (2, 3), in its foot control's frame."""
    axis = pose.ankles - pose.hips
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    off = pose.knees - pose.hips
    off -= np.sum(off * axis, axis=1, keepdims=True) * axis
    return np.einsum("fji,fj->fi", pose.feet[:, :3, :3], off / np.maximum(np.linalg.norm(off, axis=1,
                                                                                         keepdims=True), 1e-9))


def knee_positions(hips, ankles, thigh, shin, bend):
    """Two-bone IK (..., 2, 3): the knee of a thigh and shin (2,) from the hip to the ankle, bent towards
    bend (..., 2, 3); a leg too short for the distance is straight towards the ankle."""
    axis = ankles - hips
    d = np.sqrt(np.sum(axis * axis, axis=-1, keepdims=True))
    axis = axis / np.maximum(d, 1e-9)
    d = np.clip(d, np.abs(thigh - shin)[:, None] + 1e-9, (thigh + shin)[:, None])
    along = (thigh[:, None] ** 2 - shin[:, None] ** 2 + d * d) / (2.0 * d)
    height = np.sqrt(np.maximum(thigh[:, None] ** 2 - along * along, 0.0))
    off = bend - np.sum(bend * axis, axis=-1, keepdims=True) * axis
    off /= np.maximum(np.sqrt(np.sum(off * off, axis=-1, keepdims=True)), 1e-9)
    return hips + along * axis + height * off


class _Model:
    """The body's projected COM as a function of the pelvis control's horizontal place, every frame at once
    (WMZ §6's optimiser's performance index): the upper body rides rigidly on the pelvis control, the pelvis
    drops where a leg would be longer than its reach, the knees follow by IK."""

    def __init__(self, rotation, height, hips, upper, upper_mass, ankles, toes, bend, body, reach):
        self.rotation, self.height, self.body, self.reach = rotation, height, body, reach
        self.hip_offsets = np.einsum("fij,fkj->fki", rotation, hips)  # (F, 2, 3) hips from the control's head
        self.upper_mass = upper_mass.sum()
        self.upper = np.einsum("fij,fkj,k->fi", rotation, upper, upper_mass)  # (F, 3): sum m_k offset_k
        self.ankles, self.bend = ankles, bend
        thigh, leg, foot = SEGMENTS["thigh"], SEGMENTS["leg"], SEGMENTS["foot"]
        self.leg_masses = thigh[0], leg[0], foot[0]
        self.feet = 0.5 * (ankles + toes) * foot[0]  # (F, 2, 3): the feet's m c (their COM halfway, Table 4.1)
        self.total = self.upper_mass + 2.0 * (thigh[0] + leg[0] + foot[0])

    def __call__(self, xy):
        """(COM (..., F, 3), pelvis control head (..., F, 3), how far it was lowered (..., F)) at the pelvis
        control's horizontal places xy (..., F, 2): any leading axes, to try several places at once."""
        across = xy[..., None, :] + self.hip_offsets[..., :2] - self.ankles[..., :2]  # (..., F, 2, 2)
        highest = self.ankles[..., 2] + np.sqrt(np.maximum(self.reach ** 2 - np.sum(across * across, axis=-1), 0.0))
        z = np.minimum(self.height, np.min(highest - self.hip_offsets[..., 2], axis=-1))
        head = np.concatenate([xy, z[..., None]], axis=-1)
        hips = head[..., None, :] + self.hip_offsets
        knees = knee_positions(hips, self.ankles, self.body.thigh, self.body.shin, self.bend)
        m_thigh, m_leg, _m_foot = self.leg_masses
        c_thigh, c_leg = SEGMENTS["thigh"][1], SEGMENTS["leg"][1]
        legs = (m_thigh * _lerp(hips, knees, c_thigh) + m_leg * _lerp(knees, self.ankles, c_leg)
                + self.feet).sum(axis=-2)
        com = (self.upper_mass * head + self.upper + legs) / self.total
        return com, head, self.height - z


def pose_com(pose, body):
    """The COM (3,) of a pose: its upper segments' and its legs' (Winter's fractions)."""
    kinds, proximal, distal = leg_segments(pose.hips, pose.knees, pose.ankles, pose.toes)
    centres, masses = segment_centres(kinds, proximal, distal)
    total = masses @ centres + body.upper_mass @ pose.upper
    return total / (masses.sum() + body.upper_mass.sum())


def _com_targets(steps, times):
    """The projected COM's place (F, 2) on its Bezier at Fig. 2's speed."""
    target = np.zeros((len(times), 2))
    for i, step in enumerate(steps):
        t0, t1, t2, t3 = step.times
        inside = (times >= t0) & ((times < t3) | (i == len(steps) - 1))
        if not inside.any():
            continue
        start, pivot, end = _horizontal(step.com_path)
        distance = bezier_arc_length(start, pivot, end)[1][-1]
        s, _v = com_progress(times[inside], distance, t0, t1, t2, t3, free_fall_slope(step.lean))
        points, _tangent = bezier_at_distance(start, pivot, end, s)
        target[inside] = points[:, :2]
    return target


def _horizontal(path):
    """A path's horizontal control points (3, 2) as points (3, 3) on z = 0."""
    return np.column_stack([path, np.zeros(len(path))])


def _lean(path, height):
    """theta of Fig. 2's m2 = g sin(theta): the support leg's lean off vertical as the free fall begins,
    taken where the COM is halfway along its path, height above the support foot."""
    start, pivot, end = _horizontal(path)
    length = bezier_arc_length(start, pivot, end)[1][-1]
    halfway, _tangent = bezier_at_distance(start, pivot, end, np.array([0.5 * length]))
    return math.atan2(float(np.linalg.norm(halfway[0] - pivot)), max(float(height), 1e-3))


def solve(start, end, body, duration, times):
    """The transition from the standing pose start to the standing pose end over duration seconds, at
    times (F,) strictly inside (0, duration): a Transition. Raises TransitionError when the gap is too short
    for the steps."""
    if not duration > 0.0:
        raise TransitionError(f"the clips are {duration:.3f} s apart: leave a gap between them")
    times = np.asarray(times, dtype=float)
    legs = body.thigh + body.shin
    reach = np.maximum(REACH * legs, np.maximum(np.linalg.norm(start.ankles - start.hips, axis=1),
                                                np.linalg.norm(end.ankles - end.hips, axis=1)))
    com_a, com_b = pose_com(start, body), pose_com(end, body)
    steps = _plan(start, end, duration, com_a, com_b)
    weight = ease_in_out(times / duration)
    progress, lift = _feet_progress(start, end, steps, times, legs)
    feet, ankles, toes, bend = _feet(start, end, progress, lift)
    rotation = quaternion_matrices(slerp(_quaternions(start.torso[:3, :3]), _quaternions(end.torso[:3, :3]),
                                         weight))
    w = weight[:, None, None]
    hips = _lerp(_local(start.torso, start.hips)[None], _local(end.torso, end.hips)[None], w)
    upper = _lerp(_local(start.torso, start.upper)[None], _local(end.torso, end.upper)[None], w)
    height = _lerp(start.torso[2, 3], end.torso[2, 3], weight)
    model = _Model(rotation, height, hips, upper, body.upper_mass, ankles, toes, bend, body, reach)
    target = _com_targets(steps, times)
    xy = _place_pelvis(model, _lerp(start.torso[:2, 3], end.torso[:2, 3], weight[:, None]), target)
    com, head, lowered = model(xy)
    return Transition(times, weight, _rigid(rotation, head), feet, target, com, lowered, steps)


def _place_pelvis(model, xy, target):
    """Gauss-Newton on the pelvis control's horizontal place (F, 2) until every frame's projected COM is on
    its target (or MAX_ITERATIONS): the Jacobian by finite differences (the places tried in one call of the
    model), all frames at once."""
    tried = np.stack([xy, xy + [STEP_EPSILON, 0.0], xy + [0.0, STEP_EPSILON]])
    com = model(tried)[0][..., :2]
    jacobian = np.stack([com[1] - com[0], com[2] - com[0]], axis=-1) / STEP_EPSILON  # (F, 2, 2)
    com = com[0]
    for _ in range(MAX_ITERATIONS):
        xy = xy - np.linalg.solve(jacobian, (com - target)[..., None])[..., 0]
        com = model(xy)[0][:, :2]
        if np.max(np.abs(com - target), initial=0.0) < COM_TOLERANCE:
            break
    return xy
