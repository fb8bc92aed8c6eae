"""Leg targets (vdP97 §2.5): stance feet on their footprints, swing arcs between them, heel-off, flight.

- Stance: the foot rests on its footprint, flush with the ground, heel and toe on it where the footprint
  lies on a kink (soles_on_ground). When the hip would be farther than l_max from mid-foot while ahead of
  the foot, the heel lifts: the foot pivots about its toe just enough to bring the leg back within l_max
  (the toe stays exactly on the footprint).
- Swing: from lift-off (the pose the foot had at that instant, heel up or not, whatever the frame rate)
  to the next contact of the same foot, a minimum-jerk progression (a bell-shaped speed profile) along
  the straight line, raised by a bump that clears the ground under the whole sole by the character's
  swing clearance at mid-swing: the terrain's (stairs included), or without one the footprints' own and
  an even slope from one's toe to the other's heel; orientation turns about a single axis (vdP97 §2.5).
- Flight: legs retract towards a shorter length in mid-flight, procedurally (vdP97 §2.5). A biped's swing
  with a flight on the way (a run's) lifts its heel behind by the stride's Froude number, and its stance leg
  pushes off still bent (RUN_HEEL_RECOVERY, RUN_REACH).
- A foot off the ground never goes beyond the leg's reach: where the straight path (say towards a landing
  spot still out of reach) would take it farther, it is drawn in along the line to the hip.
- Before its first and after its last footprint a foot swings from / to a rest place beside the other
  foot (the character starts and ends standing); at the motion's last instant every foot is where it
  stands, the one whose footprint lifts then still on it.
- A leg the track never puts down (hopping on one leg, vdP97 §2.5's special case) is carried: its foot
  held behind and below its hip with the knee bent, flat and facing the body's way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY
from ..core.orientation import body_yaw, rotation_matrices
from ..core.schedule import preswing_starts, walking_landings
from .transforms import axis_angle_between, rodrigues

U_GRID = np.linspace(0.1, 0.9, 33)  # where a swing's clearance is checked
MAX_PIVOT = np.radians(75.0)  # the most a heel lifts
PAW_FOLD = np.radians(35.0)  # a quadruped rig's paw in mid-swing, pitched toes down past the line from its lift-off
# pose to its landing one: the carpus and tarsus flex in swing (design: a share of a dog's carpal flexion on the
# paw the IK control turns; before, the paw kept one angle to the ground in swing)
ROLL_FRACTION = 0.13  # of the stance: heel strike to foot flat (loading response, 0-8 % of a 62 % stance;
# Perry & Burnfield 2010, Gait Analysis, ch. 1)
RETRACTED_LENGTH = 0.85  # l_nom: the leg length aimed for in mid-flight
RUN_REACH = 0.978  # of a leg's reach: a running stance leg leaves its footprint with the knee still about 25
# degrees bent (a two-bone leg at cos(12.5 deg) of its length), never locked (running stance knee 20-45: Novacheck 1998)
RUN_HEEL_RECOVERY = 0.2  # l_nom per unit Froude number v / sqrt(g l_nom): a running swing's heel lift at mid-swing
# (0.21 m at 3.5 m/s for a human), the knee folding about 110 degrees as the foot passes under the hip (running swing
# knee peaks 90-130 degrees: Novacheck 1998)
PRESWING_KNEE = np.radians(40.0)  # a walking leg's knee at toe-off, flexing from the other foot's contact
# (pre-swing: 0-5 degrees at 50 % of the cycle to about 40 at toe-off, 62 %; Perry & Burnfield 2010, ch. 5)
MAX_HEEL_RECOVERY = 0.6  # l_nom: a sprinter's heel comes up to the buttock, no higher
REACH_TOLERANCE = 1e-6  # metres: a leg's end this far past its reach is within it (the heel-off's closed form)
CARRIED_FOOT = np.array([0.0, -0.25, -0.55])  # l_nom, body frame (+Y forward): a leg never put down
SOLE_SAMPLES = 9  # points along the sole, heel to toe tip, a footprint's rest on the ground is found from
SOLE_TOLERANCE = 1e-4  # metres: a rise under this (a height field's rounding on a plane) leaves the foot as placed
STEP_EDGE = 0.03  # metres: a second difference of the ground under the sole past this is a step, not a kink (as
# footpath.py tells a tread)


@dataclass(frozen=True)
class LegTargets:
    position: np.ndarray  # (N, L, 3) mid-foot sole point
    rotation: np.ndarray  # (N, L, 3, 3) foot frame: +Y toes, +Z sole normal
    toe_pivot: np.ndarray  # (N, L) radians the heel is lifted about the ball (stance only); negative: the
    # toes still up after a heel strike, the foot rolling down about its heel
    contact: np.ndarray  # (N, L) bool
    footprint: np.ndarray  # (N, L) index of the footprint under the foot, or -1


def min_jerk(u):
    """Minimum-jerk progression 10u^3 - 15u^4 + 6u^5: zero speed at both ends, a bell in between."""
    u = np.clip(u, 0.0, 1.0)
    return u * u * u * (10.0 - 15.0 * u + 6.0 * u * u)


def flush_rotations(headings, normals):
    """Foot frames with toes along the heading, tilted so +Z is the ground normal (same as Blender's)."""
    n = normals / np.linalg.norm(normals, axis=-1, keepdims=True)
    n_local = np.einsum("nji,nj->ni", rotation_matrices(headings, 0.0, 0.0), n)  # in the heading frame
    roll = np.arcsin(np.clip(n_local[:, 0], -1.0, 1.0))
    pitch = np.arctan2(-n_local[:, 1], n_local[:, 2])
    return rotation_matrices(headings, pitch, roll)


def soles_on_ground(terrain, track, character):
    """Each footprint's rest pose on the ground (positions (F, 3), rotations (F, 3, 3)): the sole pitched along
    the line from the ground under its heel to the ground under its toe tip and rolled as the ground falls
    across it, then raised where the ground under it rises above that line (a footprint on a kink: a valley
    would have the heel and the toe sunk in it, a ridge the middle), so no point of the sole is under the
    ground. Flat ground, none, or a stair's edge under the sole: flush, as placed."""
    positions = np.asarray(track.positions, dtype=float)
    xy, headings = positions[:, :2], np.asarray(track.headings, dtype=float)
    if terrain is None or not len(positions):
        return positions, flush_rotations(headings, terrain_normals(terrain, xy))
    forward = np.stack([-np.sin(headings), np.cos(headings)], axis=1)
    right = np.stack([np.cos(headings), np.sin(headings)], axis=1)
    along = np.linspace(-character.heel, character.toe, SOLE_SAMPLES)
    ground = terrain.heights(xy[:, None, :] + along[None, :, None] * forward[:, None, :])  # (F, S)
    slope = (ground[:, -1] - ground[:, 0]) / (character.heel + character.toe)
    eps = 0.02
    across = (terrain.heights(xy + eps * right) - terrain.heights(xy - eps * right)) / (2.0 * eps)
    normals = np.cross(np.column_stack([right, across]), np.column_stack([forward, slope]))
    # How far the ground under the sole rises above the line through the ground under its support point: what
    # a kink adds (a footprint placed off the ground stays where it was placed; the report measures it).
    rise = np.max(ground - (terrain.heights(xy)[:, None] + slope[:, None] * along[None, :]), axis=1)
    rise[rise < SOLE_TOLERANCE] = 0.0
    # A riser under the sole (a stair's edge: the ground steps, its second difference past STEP_EDGE) is no
    # kink: the footprint stands on its tread, flush with the ground under its support point, as placed.
    stepped = np.abs(np.diff(ground, 2, axis=1)).max(axis=1) > STEP_EDGE
    normals[stepped] = terrain_normals(terrain, xy[stepped])
    raised = positions.copy()
    raised[:, 2] += np.where(stepped, 0.0, np.maximum(rise, 0.0))
    return raised, flush_rotations(headings, normals)


def terrain_normals(terrain, xy, eps=0.02):
    if terrain is None:
        return np.tile([0.0, 0.0, 1.0], (len(xy), 1))
    dx = (terrain.heights(xy + [eps, 0.0]) - terrain.heights(xy - [eps, 0.0])) / (2 * eps)
    dy = (terrain.heights(xy + [0.0, eps]) - terrain.heights(xy - [0.0, eps])) / (2 * eps)
    n = np.stack([-dx, -dy, np.ones_like(dx)], axis=1)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def leg_targets(schedule, character, times, hips, liftoff_hips, terrain=None, footprint_poses=None, contact_hips=None):
    """Foot targets for every leg at the given times, with hips (N, L, 3) from the body motion, and
    liftoff_hips (F, 3) the hip of each footprint's leg at its lift-off; footprint_poses (positions (F, 3),
    rotations (F, 3, 3)), when the caller has them, are the footprints' soles_on_ground; contact_hips (F, 3),
    when given, the hip at each contact: a foot landing on its heel then turns its toes up as far as the leg
    needs to reach it (else only the character's heel_strike), so the swing ends in the pose the stance starts in.

    All legs at once: each leg's anchors (rest place, its footprints, rest place) go into one table, and
    each (time, leg) row looks its anchor up by time within its own leg's block of that table.
    """
    tr = schedule.track
    n, legs = len(times), len(character.feet)
    positions_fp, rotations_fp = (soles_on_ground(terrain, tr, character) if footprint_poses is None
                                  else footprint_poses)
    half = 0.5 * character.foot_length
    tables = [_anchors(schedule, character, leg, np.flatnonzero(schedule.leg_of_footprint == leg), positions_fp,
                       rotations_fp)
              for leg in range(legs)]  # a handful of legs
    anchors_pos = np.concatenate([t[0] for t in tables])
    anchors_rot = np.concatenate([t[1] for t in tables])
    lift = np.concatenate([t[2] for t in tables])
    land = np.concatenate([t[3] for t in tables])
    footprint_of = np.concatenate([t[4] for t in tables])  # the footprint an anchor is, or -1 (rest place)
    sizes = np.array([len(t[2]) for t in tables])
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    last = first + sizes - 1
    reach = _leg_end(character)[2]  # (L,) each leg's
    # (F,) a biped's footprint a flight leaves from: a run's or a leap's (a quadruped's legs are issue 29's)
    run_flight = np.isin(tr.liftoff, schedule.flight_intervals[:, 0]) & (not character.is_quadruped)
    leg_reach = reach[np.repeat(np.arange(legs), sizes)]  # (anchors,) each anchor's leg's
    anchor_reach = leg_reach * np.where(
        (footprint_of >= 0) & run_flight[np.maximum(footprint_of, 0)], RUN_REACH, 1.0)  # (anchors,)
    # Rows are (leg, time), leg-major; each leg's anchor is found among its own landings (one search per leg).
    t = np.tile(np.asarray(times, dtype=float), legs)
    leg_of_row = np.repeat(np.arange(legs), n)
    k = np.concatenate([a + np.clip(np.searchsorted(land[a:b + 1], times, side="right") - 1, 0, b - a)
                        for a, b in zip(first, last)])
    standing = (t < lift[k]) | (t >= schedule.end)  # the motion ends with every foot where it is
    on = standing & (footprint_of[k] >= 0)
    nxt = np.minimum(k + 1, last[leg_of_row])
    duration = np.maximum(land[nxt] - lift[k], 1e-9)
    u = np.where(standing | (nxt == k), 0.0, (t - lift[k]) / duration)
    s = min_jerk(u)
    hips_rows = np.swapaxes(hips, 0, 1).reshape(-1, 3)
    # Standing: on the anchor, the heel lifted where the leg would over-extend.
    stand_pos, stand_rot = anchors_pos[k], anchors_rot[k]
    beta = np.zeros(len(t))
    preswing_start = _preswing_starts(tr, run_flight, character)  # (F,)
    if on.any():
        bent = _preswing_reach(t[on], preswing_start[footprint_of[k[on]]], tr.liftoff[footprint_of[k[on]]])
        beta[on], stand_pos[on], stand_rot[on] = _heel_off(stand_pos[on], stand_rot[on], hips_rows[on], character, half,
                                                           anchor_reach[k[on]] * bent, leg_of_row[on])
    # A walking foot lands on its heel, toes up, and rolls down onto the sole (negative toe_pivot meanwhile).
    landings = walking_landings(tr) if character.heel_strike else np.zeros(len(tr), dtype=bool)  # (presets: none)
    strikes = np.where(footprint_of >= 0, landings[np.maximum(footprint_of, 0)], False) * character.heel_strike
    if contact_hips is not None and strikes.any():
        landing = np.flatnonzero(strikes > 0.0)
        strikes[landing] = np.maximum(strikes[landing], _toes_up(
            anchors_pos[landing], anchors_rot[landing], contact_hips[footprint_of[landing]], character,
            leg_reach[landing]))
    land_pos, land_rot = _about_heel(anchors_pos, anchors_rot, strikes, character)
    fp = footprint_of[k]
    roll_time = ROLL_FRACTION * (tr.liftoff[fp] - tr.contact[fp])
    rolling = on & (strikes[k] > 0.0) & (t < land[k] + roll_time) & (beta == 0.0)
    gamma = np.zeros(len(t))
    gamma[rolling] = strikes[k[rolling]] * (1.0 - min_jerk((t[rolling] - land[k[rolling]]) / roll_time[rolling]))
    # A flat foot whose leg would over-reach with the hip not ahead of it (the leading leg, or a hip off to
    # the side) turns its toes up about the heel just enough, as the heel-off does about the ball.
    flat = on & (beta == 0.0) & (character.leg_ends is None)  # (a paw's back is under its ball: no help)
    if flat.any():
        gamma[flat] = np.maximum(gamma[flat], _toes_up(stand_pos[flat], stand_rot[flat], hips_rows[flat], character,
                                                       anchor_reach[k[flat]]))  # (a run's: bent, as it leaves)
    heel_down = gamma > 0.0
    if heel_down.any():
        beta[heel_down] = -gamma[heel_down]
        stand_pos[heel_down], stand_rot[heel_down] = _about_heel(stand_pos[heel_down], stand_rot[heel_down],
                                                                 gamma[heel_down], character)
    # A swing starts from the pose the foot left its footprint in at the lift-off instant (heel up, as the
    # hip then has it), whatever the times sampled: the same swing at any frame rate.
    leave_pos, leave_rot = anchors_pos.copy(), anchors_rot.copy()
    left_footprint = footprint_of >= 0
    leaving = footprint_of[left_footprint]
    bent = _preswing_reach(tr.liftoff[leaving], preswing_start[leaving], tr.liftoff[leaving])
    _beta, leave_pos[left_footprint], leave_rot[left_footprint] = _heel_off(
        anchors_pos[left_footprint], anchors_rot[left_footprint], liftoff_hips[leaving], character, half,
        anchor_reach[left_footprint] * bent, np.repeat(np.arange(legs), sizes)[left_footprint])
    # Each swing (rows under way: never from the last anchor, whose lift-off never comes): its arc and its
    # turn worked out once, for the swings under way at the times asked (a live edit samples a few).
    swinging = ~standing
    rows_k, rows_u, rows_s = k[swinging], u[swinging], s[swinging]
    swings = np.unique(rows_k)
    bumps = np.zeros(max(len(anchors_pos) - 1, 1))
    stepping = (footprint_of[swings] >= 0) & (footprint_of[swings + 1] >= 0)  # not to or from a rest place
    bumps[swings] = _swing_bump(anchors_pos[swings], land_pos[swings + 1], anchors_rot[swings, :, 1],
                                land_rot[swings + 1, :, 1], character, terrain, stepping)
    heel_recovery = np.zeros_like(bumps)
    heel_recovery[swings] = _heel_recovery(schedule, character, anchors_pos, lift, land, swings)
    position, rotation = stand_pos, stand_rot
    start_pos = leave_pos[rows_k]
    position[swinging] = start_pos + (land_pos[rows_k + 1] - start_pos) * rows_s[:, None]
    position[swinging, 2] += (bumps[rows_k] * 4.0 * rows_u * (1.0 - rows_u)
                              + heel_recovery[rows_k] * np.sin(np.pi * rows_u) ** 2)
    axis, angle = axis_angle_between(leave_rot[swings], land_rot[swings + 1])
    of_swing = np.searchsorted(swings, rows_k)
    rotation[swinging] = leave_rot[rows_k] @ rodrigues(axis[of_swing], angle[of_swing] * rows_s)
    if character.leg_ends is not None:  # a paw folds in swing, from its footprint to its next (not a rest place),
        # about the end of its leg's bone chain (the ball; a hoof's fetlock), which stays where the swing put it
        ends = character.leg_ends[leg_of_row[swinging]]
        fold = PAW_FOLD * ends[:, 4] * 4.0 * rows_u * (1.0 - rows_u) * stepping_of(footprint_of, rows_k)
        along, up = ends[:, 0:1], ends[:, 1:2]
        before = rotation[swinging]
        end = position[swinging] + along * before[:, :, 1] + up * before[:, :, 2]
        rotation[swinging] = about_own_x(before, -fold)
        position[swinging] = end - along * rotation[swinging][:, :, 1] - up * rotation[swinging][:, :, 2]

    def by_time(rows):  # (L * N, ...) leg-major rows to (N, L, ...)
        return np.swapaxes(rows.reshape((legs, n) + rows.shape[1:]), 0, 1)

    position = np.ascontiguousarray(by_time(position))
    rotation = np.ascontiguousarray(by_time(rotation))
    carried = np.flatnonzero(sizes == 1)  # no footprint, only the placeholder anchor of _anchors
    if len(carried):
        position[:, carried], rotation[:, carried] = _carried(hips[:, carried], times, schedule, character)
    _retract_in_flight(position, hips, times, schedule, character)
    keep_within_reach(position, rotation, hips, ~by_time(on), character)  # off a footprint: rest places too
    if character.leg_ends is not None:  # a quadruped rig's paw its leg cannot reach rolled onto its tip: drawn
        keep_within_reach(position, rotation, hips, by_time(on), character)  # in (it slides: stance_slip)
    return LegTargets(position, rotation, by_time(beta).copy(), by_time(on).copy(),
                      by_time(np.where(on, footprint_of[k], -1)).copy())


def _preswing_starts(track, run_flight, character):
    """(F,) when each footprint's pre-swing begins (schedule.preswing_starts) where it lifts off walking: not a
    run's or a leap's take-off, not a foot's last (it steps to its rest place: the walk stops, nothing to push
    off for), nor the presets', which walk flat-footed; inf elsewhere."""
    if not character.heel_strike or character.is_quadruped or not len(track):
        return np.full(len(track), np.inf)
    start = np.where(run_flight, np.inf, preswing_starts(track))
    for foot in np.unique(track.feet):  # a handful of feet
        mine = np.flatnonzero(track.feet == foot)
        start[mine[np.argmax(track.liftoff[mine])]] = np.inf
    return start


def _preswing_reach(times, start, liftoff):
    """(n,) the fraction of its reach a walking stance leg keeps in pre-swing: from the other foot's contact
    (start) to its own lift-off the knee flexes to PRESWING_KNEE while the heel rises on the ball (a two-bone
    leg of equal halves at cos(knee / 2) of its length); 1 before it."""
    u = np.clip((times - start) / np.maximum(liftoff - start, 1e-9), 0.0, 1.0)
    return np.cos(0.5 * PRESWING_KNEE * min_jerk(u))


def _toes_up(pos, rot, hip, character, reach):
    """(n,) radians the toes must turn up about the back of the heel on the sole for the leg to reach its
    end again (0 where it reaches): reach (n,) each row's leg's."""
    fwd = rot[:, :, 1]
    v_y, v_z, _reach = _leg_end(character)
    gamma, over = _turn_to_reach(pos - character.heel * fwd, rot, hip, v_y + character.heel, v_z, reach, -1.0)
    return np.where(over, gamma, 0.0)


def _turn_to_reach(pivot, rot, hip, v_y, v_z, reach, heel_up):
    """(angle (n,), over (n,)): how far the foot must turn about pivot (n, 3), heel up (heel_up = 1) or
    toes up (-1), for the leg's end, at v_y along the foot and v_z up it from the pivot, to come within
    reach of the hip (clipped to [0, MAX_PIVOT]); over: where it is beyond reach unturned.

    Turning by b moves the end to pivot + (v_y cos b + s v_z sin b) f + (v_z cos b - s v_y sin b) u with
    s = heel_up, and with D = hip - pivot, |D - end| = reach becomes A cos(b) + B sin(b) = C:
    b = atan2(B, A) - acos(C / R), A = v . D, B = s (v_z D_f - v_y D_u), C = (|D|^2 + |v|^2 - reach^2) / 2.
    """
    fwd, up = rot[:, :, 1], rot[:, :, 2]
    d = hip - pivot
    d_f, d_u = np.einsum("nd,nd->n", d, fwd), np.einsum("nd,nd->n", d, up)
    over = np.linalg.norm(d - np.asarray(v_y)[..., None] * fwd - np.asarray(v_z)[..., None] * up, axis=1) > reach
    a_coef, b_coef = v_y * d_f + v_z * d_u, heel_up * (v_z * d_f - v_y * d_u)
    c_coef = 0.5 * (np.einsum("nd,nd->n", d, d) + v_y * v_y + v_z * v_z - reach * reach)
    radius = np.maximum(np.hypot(a_coef, b_coef), 1e-12)
    angle = np.arctan2(b_coef, a_coef) - np.arccos(np.clip(c_coef / radius, -1.0, 1.0))
    return np.clip(angle, 0.0, MAX_PIVOT), over


def _about_heel(pos, rot, angle, character):
    """Feet (n) turned toes up by angle (n,) radians about the back of the heel on the sole."""
    heel = pos - character.heel * rot[:, :, 1]
    turned = about_own_x(rot, angle)
    return heel + character.heel * turned[:, :, 1], turned


def _anchors(schedule, character, leg, mine, positions_fp, rotations_fp):
    """Rest place, the leg's footprints, rest place: positions, rotations, lift-off and landing times."""
    tr = schedule.track
    if mine.size == 0:  # a leg the track never puts down: one placeholder, never in contact (see _carried)
        return np.zeros((1, 3)), np.eye(3)[None], np.array([np.inf]), np.array([-np.inf]), np.array([-1])
    others = np.flatnonzero(schedule.leg_of_footprint != leg)

    def rest_beside(t):
        if others.size == 0:
            j = mine[0] if t <= tr.contact[mine[0]] else mine[-1]
            return positions_fp[j], rotations_fp[j]
        j = others[np.argmin(np.abs(tr.contact[others] - t))]
        other_leg = schedule.leg_of_footprint[j]
        offset = character.hip_offsets[leg] - character.hip_offsets[other_leg]
        offset = np.array([offset[0], offset[1], 0.0])
        return positions_fp[j] + rotations_fp[j] @ offset, rotations_fp[j]

    start_pos, start_rot = rest_beside(schedule.start)
    end_pos, end_rot = rest_beside(schedule.end)
    if tr.contact[mine[0]] <= schedule.start:
        start_pos, start_rot = positions_fp[mine[0]], rotations_fp[mine[0]]
    if tr.liftoff[mine[-1]] >= schedule.end:
        end_pos, end_rot = positions_fp[mine[-1]], rotations_fp[mine[-1]]
    pos = np.concatenate([start_pos[None], positions_fp[mine], end_pos[None]])
    rot = np.concatenate([start_rot[None], rotations_fp[mine], end_rot[None]])
    lift = np.concatenate([[schedule.start], tr.liftoff[mine], [np.inf]])
    # A foot whose last footprint lifts when the motion ends never leaves it: it stands there at the end.
    last_landing = schedule.end if tr.liftoff[mine[-1]] < schedule.end else np.inf
    land = np.concatenate([[-np.inf], tr.contact[mine], [last_landing]])
    return pos, rot, lift, land, np.concatenate([[-1], mine, [-1]])


def hips_at_liftoff(track, times, hips, leg_of_footprint):
    """(F, 3): each footprint's leg's hip at its lift-off, interpolated in hips (N, L, 3) sampled at times
    (in order; clamped at their ends), for motions whose hips are known only at samples."""
    out = np.empty((len(track.liftoff), 3))
    for leg in np.unique(leg_of_footprint):  # a handful of legs
        mine = leg_of_footprint == leg
        for axis in range(3):
            out[mine, axis] = np.interp(track.liftoff[mine], times, hips[:, leg, axis])
    return out


def _carried(hips, times, schedule, character):
    """Positions (N, C, 3) and rotations (N, C, 3, 3) of the feet of legs never put down, from their hips
    (N, C, 3): held at CARRIED_FOOT, turned with the body's yaw."""
    tr = schedule.track
    frame = rotation_matrices(body_yaw(times, tr.contact, tr.liftoff, tr.headings), 0.0, 0.0)  # (N, 3, 3)
    offset = frame @ (CARRIED_FOOT * character.leg_length_nominal)
    return hips + offset[:, None], np.repeat(frame[:, None], hips.shape[1], axis=1)


def _swing_bump(p0, p1, f0, f1, character, terrain, stepping):
    """Per swing (from p0 to p1, the foot's forward axis turning from f0 to f1), the height of its arc
    above the straight line so that the whole sole, heel to toe, stays above the ground under the path:
    by the swing clearance at mid-swing, by that much times the arc's own profile on the way (a foot
    just lifted is not yet high), and over whatever lies in between (stairs). A swing from one footprint
    to the next lifts the foot even where they lie on the same spot (stepping in place, turning on the
    spot); one from or to a rest place the foot already stands on does not."""
    clearance = character.swing_clearance * character.leg_length_nominal
    u = U_GRID[None, :]
    s = min_jerk(u)
    path = p0[:, None, :] + (p1 - p0)[:, None, :] * s[..., None]
    fwd = f0[:, None, :] + (f1 - f0)[:, None, :] * s[..., None]  # the sole's axis, about as it turns
    fwd /= np.maximum(np.linalg.norm(fwd, axis=-1, keepdims=True), 1e-9)
    half = 0.5 * character.foot_length
    sole = [path + reach * fwd for reach in (-character.heel, 0.0, character.toe)]  # heel, mid-foot, toe tip
    ground = ([terrain.heights(point[..., :2]) for point in sole]
              if terrain is not None else [_even_ground(p0, p1, half * f0, half * f1, point) for point in sole])
    below = np.max([g - point[..., 2] for g, point in zip(ground, sole)], axis=0)
    needed = below / (4.0 * u * (1.0 - u)) + clearance
    lifts = stepping | (np.linalg.norm(p1 - p0, axis=1) > 1e-6)
    return np.where(lifts, np.maximum(clearance, needed.max(axis=1)), 0.0)


def _heel_recovery(schedule, character, anchors_pos, lift, land, swings):
    """(S,) the heel lift of a biped's running swings (those a flight falls within: every foot off the ground on
    the way), by the stride's Froude number (RUN_HEEL_RECOVERY); 0 for walking swings and quadrupeds. Flights are disjoint and in
    time order: a swing holds one where more flights start before it lands than end before it lifts off."""
    flights = schedule.flight_intervals
    if not len(flights) or not len(swings) or character.is_quadruped:
        return np.zeros(len(swings))
    leave, arrive = lift[swings], land[swings + 1]
    running = np.searchsorted(flights[:, 0], arrive) > np.searchsorted(flights[:, 1], leave, side="right")
    stride = np.linalg.norm(anchors_pos[swings + 1] - anchors_pos[swings], axis=1)
    speed = stride / np.maximum(arrive - land[swings], 1e-9)  # from the last landing of this foot to the next
    froude = speed / np.sqrt(GRAVITY * character.leg_length_nominal)
    height = np.minimum(RUN_HEEL_RECOVERY * froude, MAX_HEEL_RECOVERY) * character.leg_length_nominal
    return np.where(running & np.isfinite(height), height, 0.0)


def _even_ground(p0, p1, reach0, reach1, points):
    """Without a terrain: the ground under points (n, m, 3) of swings from p0 to p1 (n, 3), taken as each
    footprint's own height under it (out to reach0 and reach1 from its middle, (n, 3)) and an even slope
    from the one's toe to the other's heel (for steps, a track gives its terrain)."""
    start, end = (p0 + reach0)[:, :2], (p1 - reach1)[:, :2]
    run = end - start
    along = (np.einsum("nmd,nd->nm", points[..., :2] - start[:, None], run)
             / np.maximum((run * run).sum(axis=1), 1e-12)[:, None])
    return p0[:, None, 2] + (p1 - p0)[:, None, 2] * np.clip(along, 0.0, 1.0)


def _heel_off(pos, rot, hip, character, half, reach, legs=None):
    """Lift the heel about the ball joint until the leg reaches again, where the hip is ahead of the foot
    (vdP97 §2.4.1, §2.5): (angle (n,), positions (n, 3), rotations (n, 3, 3)).

    The ball joint is the character's ball_height above the sole's toe point (0 for the presets: the sole
    itself), so a rig's toes stay flat on the ground while the heel rises. The leg ends at mid-foot (reach
    l_max) or, for a character measured from a rig, at its ankle (reach thigh + shin), a quadruped rig's at
    its chain's ball joint (the paw rolls onto its tip): reach (n,) and legs (n,) each row's leg's."""
    fwd, up = rot[:, :, 1], rot[:, :, 2]
    ball = character.ball_height
    # (n,) the toe's place ahead of the support point: half a foot, or each paw's own tip (a horse's front hooves
    # are a centimetre longer than its hind ones: rolled about the shorter, their tips moved 2.7 mm)
    half = np.broadcast_to(half if character.leg_ends is None or legs is None else character.leg_ends[legs, 3],
                           len(pos))
    joint = pos + half[:, None] * fwd + ball * up
    v_y, v_z, _reach = _leg_end(character, legs)
    beta, over = _turn_to_reach(joint, rot, hip, v_y - half, v_z - ball, reach, 1.0)
    ahead = np.einsum("nd,nd->n", hip - pos, fwd) > v_y  # of the leg's end (a rig's ankle is behind mid-foot)
    beta = np.where(ahead & over, beta, 0.0)
    new_rot = about_own_x(rot, -beta)  # heel up: about the foot's X axis
    new_pos = joint - half[:, None] * new_rot[:, :, 1] - ball * new_rot[:, :, 2]
    return beta, new_pos, new_rot


def stepping_of(footprint_of, k):
    """(n,) 1 where the swing from anchor k goes from a footprint to a footprint, 0 to or from a rest place."""
    nxt = np.minimum(k + 1, len(footprint_of) - 1)
    return ((footprint_of[k] >= 0) & (footprint_of[nxt] >= 0)).astype(float)


def about_own_x(rot, angle):
    """rot @ Rx(angle) (n, 3, 3), elementwise: the frames turned about their own X axes."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    out = rot.copy()
    out[:, :, 1] = c * rot[:, :, 1] + s * rot[:, :, 2]
    out[:, :, 2] = c * rot[:, :, 2] - s * rot[:, :, 1]
    return out


def _leg_end(character, legs=None):
    """Where the leg ends on the foot, in the foot frame from mid-foot (y forward, z up), and each leg's
    reach (L,): mid-foot and its own l_max, for a biped measured from a rig its ankle and thigh + shin, for a
    quadruped rig each chain's ball joint and reach (Character.leg_ends). With legs (n,), a leg index per row:
    each row's (n,) arrays."""
    if character.leg_ends is not None:
        ends = character.leg_ends if legs is None else character.leg_ends[legs]
        return ends[:, 0], ends[:, 1], ends[:, 2]
    if character.ankle_offset is not None:
        return character.ankle_offset[1], character.ankle_offset[2], np.full(len(character.feet), character.ankle_reach)
    return 0.0, 0.0, character.max_lengths


def keep_within_reach(position, rotation, hips, feet, character, fraction=1.0):
    """Draw each of the feet (N, L bool) in along the line from its hip to the leg's end until the leg reaches
    it, or `fraction` (scalar or (N, L)) of its reach (in place; a rig's IK would stretch its bones past).
    Returns (N, L) metres each foot was drawn in. At lift-off and landing the stance pose is already within
    reach: no jump."""
    v_y, v_z, reach = _leg_end(character)  # each leg its own (a quadruped's fore legs are shorter)
    along, up = np.asarray(v_y)[..., None], np.asarray(v_z)[..., None]  # (each leg's, a quadruped rig's)
    end = position + along * rotation[..., :, 1] + up * rotation[..., :, 2]
    leg = end - hips
    length = np.linalg.norm(leg, axis=-1)
    drawn = np.where(feet, np.maximum(length - reach * np.broadcast_to(fraction, length.shape), 0.0), 0.0)
    drawn[drawn < REACH_TOLERANCE] = 0.0
    over = drawn > 0.0
    if over.any():
        position[over] -= leg[over] * (drawn[over] / length[over])[:, None]
    return drawn


def reach_from_footprints(position, rotation, hips, standing, character):
    """Standing feet (N, L bool) whose leg would over-reach, turned in place as leg_targets turns a walk's: the
    heel lifted about the ball where the hip is ahead of the foot, else the toes up about the heel. Returns
    the toe_pivot (N, L): + heel up, - toes up, 0 where the leg reaches the flat foot."""
    n, legs = standing.shape
    reach = np.broadcast_to(_leg_end(character)[2], (n, legs))[standing]
    pos, rot, hip = position[standing], rotation[standing], hips[standing]
    beta, pos, rot = _heel_off(pos, rot, hip, character, 0.5 * character.foot_length, reach)
    flat = beta == 0.0
    gamma = _toes_up(pos[flat], rot[flat], hip[flat], character, reach[flat])
    pos[flat], rot[flat] = _about_heel(pos[flat], rot[flat], gamma, character)
    beta[flat] = -gamma
    position[standing], rotation[standing] = pos, rot
    pivot = np.zeros((n, legs))
    pivot[standing] = beta
    return pivot


def feet_within_reach(position, rotation, hips, contact, character):
    """Feet (N, L) within the legs' reach, in place, as stepping places them (for a rig its ankle, whose IK
    would stretch the bones past): a standing foot lifts its heel (or toes) as a walk's does, a lifted foot is
    drawn in toward its hip (as a walk's swing is), and a standing foot that still over-reaches is drawn in too.
    Returns the standing feet's toe_pivot (N, L) and how far each foot was drawn in (N, L): that alone is the
    report's ankle_reach (reach_report)."""
    toe_pivot = reach_from_footprints(position, rotation, hips, contact, character)
    keep_within_reach(position, rotation, hips, ~contact, character)
    return toe_pivot, keep_within_reach(position, rotation, hips, np.ones_like(contact), character)


def reach_report(drawn, contact, feet):
    """The quality report's "ankle_reach" from what keep_within_reach drew in beyond the motion's own reach
    handling (drawn (N, L)): per foot the most (metres), on how many frames, and how many of them standing (the
    foot slides there)."""
    return {foot: {"most": float(drawn[:, k].max(initial=0.0)), "frames": int((drawn[:, k] > 0.0).sum()),
                   "standing": int(((drawn[:, k] > 0.0) & contact[:, k]).sum())} for k, foot in enumerate(feet)}


def _retract_in_flight(position, hips, times, schedule, character):
    """Pull the feet towards the hips in mid-flight, smoothly from lift-off to landing."""
    flights = schedule.flight_intervals
    if not len(flights):
        return
    k = np.clip(np.searchsorted(flights[:, 0], times, side="right") - 1, 0, len(flights) - 1)
    start, end = flights[k, 0], flights[k, 1]
    inside = (times > start) & (times < end)
    if not inside.any():
        return
    w = np.sin(np.pi * (times[inside] - start[inside]) / (end[inside] - start[inside])) ** 2
    leg = position[inside] - hips[inside]
    length = np.linalg.norm(leg, axis=-1, keepdims=True)
    target = RETRACTED_LENGTH * character.nominal_lengths[:, None]  # each leg its own
    shorter = hips[inside] + leg * np.minimum(1.0, target / np.maximum(length, 1e-9))
    position[inside] += w[:, None, None] * (shorter - position[inside])
