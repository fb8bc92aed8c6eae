"""The feet of a stepping motion at any times: planted on their footprints, each swing along the straight line
from one footprint to the next at WMZ eq. 1's bell-shaped speed with a lift arc over the ground, each pivot a
turn about the ball with the heel up (WMZ §4, §6)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..body.legs import about_own_x, flush_rotations, terrain_normals
from ..body.transforms import axis_angle_between, rodrigues
from .profiles import foot_progress, lift_arc

LIFT_CHECKS = np.linspace(0.1, 0.9, 33)  # normalised swing times where the lift's clearance is checked
PIVOT_HEEL_LIFT = np.radians(12.0)  # a pivot turns on the ball with the heel up (about 4 cm for a human's
# foot at its peak, mid-turn), not the flat foot skidding round on its heel


@dataclass(frozen=True)
class Feet:
    position: np.ndarray  # (N, 2, 3) mid-foot sole point
    rotation: np.ndarray  # (N, 2, 3, 3) foot frame: +Y toes, +Z sole normal
    contact: np.ndarray  # (N, 2) bool
    footprint: np.ndarray  # (N, 2) the footprint stood on (plan's time order) or -1
    ground: np.ndarray  # (N, 2) the height of the ground a foot stands on, or in a swing between its two
    heel_lift: np.ndarray  # (N, 2) radians the heel is up about the ball: a pivot's


def footprint_rotations(track, terrain):
    """(F, 3, 3): each footprint's frame, its toes along its heading, flush with the terrain (legs.py)."""
    return flush_rotations(track.headings, terrain_normals(terrain, track.positions[:, :2]))


def ball_offset(character) -> float:
    """How far ahead of the support point the ball the foot pivots about lies: the point whose stillness the
    quality report's stance slip measures (motion.frame_measures)."""
    return 0.5 * character.foot_length


def feet_at(plan, character, times, rotations, terrain=None) -> Feet:
    """The feet at times (N,), from the plan's footprints and their frames (F, 3, 3)."""
    tr = plan.track
    times = np.asarray(times, dtype=float)
    n = len(times)
    position, rotation = np.zeros((n, 2, 3)), np.zeros((n, 2, 3, 3))
    contact, footprint = np.ones((n, 2), dtype=bool), np.zeros((n, 2), dtype=int)
    for foot in range(2):  # standing: the last footprint touched down on (at the end: the last)
        mine = plan.footprints_of(foot)
        k = mine[np.clip(np.searchsorted(tr.contact[mine], times, side="right") - 1, 0, len(mine) - 1)]
        position[:, foot], rotation[:, foot], footprint[:, foot] = tr.positions[k], rotations[k], k
    ground = position[..., 2].copy()
    heel_lift = np.zeros((n, 2))
    for pivot in plan.pivots:  # a handful: one per large turn
        rows = (times >= pivot.start) & (times < pivot.end)
        if not rows.any():
            continue
        w = foot_progress((times[rows] - pivot.start) / (pivot.end - pivot.start))
        a, b = pivot.before, pivot.after
        ahead = pivot.offset  # the point of the sole it turns about (steps.pivot_offset: the ball)
        still_a = tr.positions[a] + ahead * rotations[a][:, 1]
        still_b = tr.positions[b] + ahead * rotations[b][:, 1]
        axis, angle = axis_angle_between(rotations[a][None], rotations[b][None])
        flat = rotations[a] @ rodrigues(np.repeat(axis, rows.sum(), axis=0), angle[0] * w)
        still = still_a + (still_b - still_a) * w[:, None]
        # The heel up about the ball joint (a rig's sits ball_height above the sole: its toes stay flat).
        lift = PIVOT_HEEL_LIFT * np.sin(np.pi * (times[rows] - pivot.start) / (pivot.end - pivot.start)) ** 2
        joint = still + character.ball_height * flat[:, :, 2]
        turned = about_own_x(flat, -lift)
        position[rows, pivot.foot] = joint - ahead * turned[:, :, 1] - character.ball_height * turned[:, :, 2]
        rotation[rows, pivot.foot] = turned
        heel_lift[rows, pivot.foot] = lift
        ground[rows, pivot.foot] = tr.positions[a, 2] + (tr.positions[b, 2] - tr.positions[a, 2]) * w
        footprint[rows, pivot.foot] = np.where(times[rows] < tr.liftoff[a], a, b)
    lifts = swing_lifts(plan, character, rotations, terrain)
    for swing, lift in zip(plan.swings, lifts):  # steps of the plan
        rows = (times >= swing.t1) & (times < swing.t2)
        if not rows.any():
            continue
        u = (times[rows] - swing.t1) / (swing.t2 - swing.t1)
        s = foot_progress(u)  # the fraction of the straight line covered (WMZ eq. 1's bell)
        p0, p1 = tr.positions[swing.leave], tr.positions[swing.land]
        along = p0 + (p1 - p0) * s[:, None]
        position[rows, swing.foot] = along + [0.0, 0.0, 1.0] * (lift * lift_arc(u))[:, None]
        axis, angle = axis_angle_between(rotations[swing.leave][None], rotations[swing.land][None])
        turn = rodrigues(np.repeat(axis, rows.sum(), axis=0), angle[0] * s)
        rotation[rows, swing.foot] = rotations[swing.leave] @ turn
        contact[rows, swing.foot] = False
        footprint[rows, swing.foot] = -1
        ground[rows, swing.foot] = along[:, 2]
    return Feet(position, rotation, contact, footprint, ground, heel_lift)


def swing_lifts(plan, character, rotations, terrain=None) -> np.ndarray:
    """(S,): per swing, the height of its lift arc (profiles.lift_arc times it over the straight line) that keeps the
    sole, heel to toe, the swing clearance above the ground at mid-swing and above it all the way: the
    terrain's where there is one (a step up, a kerb), else the even line between the two footprints."""
    if not plan.swings:
        return np.zeros(0)
    tr = plan.track
    clearance = character.swing_clearance * character.leg_length_nominal
    leave = np.array([s.leave for s in plan.swings])
    land = np.array([s.land for s in plan.swings])
    if terrain is None:
        return np.full(len(leave), clearance)
    u = LIFT_CHECKS[None, :]
    s = foot_progress(u)
    p0, p1 = tr.positions[leave][:, None], tr.positions[land][:, None]
    line = p0 + (p1 - p0) * s[..., None]
    f0, f1 = rotations[leave][:, None, :, 1], rotations[land][:, None, :, 1]
    fwd = f0 + (f1 - f0) * s[..., None]
    fwd /= np.maximum(np.linalg.norm(fwd, axis=-1, keepdims=True), 1e-9)
    below = np.max([terrain.heights((line + reach * fwd)[..., :2]) - (line + reach * fwd)[..., 2]
                    for reach in (-character.heel, 0.0, character.toe)], axis=0)
    needed = below / lift_arc(u) + clearance
    return np.maximum(clearance, needed.max(axis=1))
