"""Quality measured on the evaluated rig, after Blender's own constraints and IK: what the viewer sees.

The solver's report measures the motion it computed; this one measures the pose Blender actually gives the
rig, frame by frame: the sole of each foot (heel, ball, toe tip, carried by the bones that carry them) sunk
into the terrain, a planted ball or heel that drifts, the ankle riding higher or lower at mid-stance than at
rest, a leg stretched past its straight length, and the knees' flexion. Each worst value comes with the
frame it happens on, so the artist can go and look.

The measuring functions are module-level and take arrays of evaluated matrices (frames first), so that
other checks (gait norms in the tests) can use them on any frames of any rig.
"""

import json

import numpy as np

from ..solver.core.schedule import build_schedule
from ..solver.motion import ground_under_feet
from . import bake, scene_clock, solved
from . import terrain as terrain_module
from .scene_io import NoTerrainError

RAY_START = 0.25  # metres above a sole point where its ray down starts (below a bridge deck over the foot)
SOLE_POINTS = ("heel", "ball", "ball", "toe")  # the order of sole_layout's points (the ball twice: foot, toe)


def evaluated_matrices(context, rig, bones, frames):
    """World matrices (frames, bones, 4, 4) of the bones on the evaluated rig (the object's matrix_world
    times the pose bone's matrix: its head, axes and scale as drawn); the scene's current frame is put back
    afterwards."""
    scene = context.scene
    current, subframe = scene.frame_current, scene.frame_subframe
    out = np.zeros((len(frames), len(bones), 4, 4))
    try:
        for i, frame in enumerate(frames):
            scene.frame_set(int(frame))
            evaluated = rig.evaluated_get(context.evaluated_depsgraph_get())
            pose = np.array([np.array(evaluated.pose.bones[name].matrix) for name in bones]).reshape(-1, 4, 4)
            out[i] = np.array(evaluated.matrix_world) @ pose
    finally:
        scene.frame_set(current, subframe=subframe)
    return out


def carried(matrices, local_points):
    """Points (..., 3) carried by bones: local_points (..., 4) homogeneous in each bone's own rest frame
    (rest_local), matrices (..., 4, 4) the bones' evaluated world matrices; broadcast over frames."""
    return (matrices @ local_points[..., None])[..., :3, 0]


def rest_local(rig, bone, upright_point, upright):
    """A point given in upright armature space (binding.measurements) in the bone's rest frame, homogeneous:
    carried() then moves it with the bone exactly as Blender deforms the mesh around it."""
    armature_point = upright.T @ np.asarray(upright_point, dtype=float)  # upright is a rotation
    rest = np.array(rig.data.bones[bone].matrix_local, dtype=float)
    return np.linalg.solve(rest, np.append(armature_point, 1.0))


def sole_layout(binding, foot):
    """The sole points of a foot at rest: (name, carrying bone, point in upright armature space), in the
    order of SOLE_POINTS. The point on the rest sole (the binding's ground) below each joint: the back of the
    heel (carried by the heel bone, or without one the sole behind the ankle, carried by the foot), the ball
    (carried by the foot and by the toe: the sole bends there, and either side may dig in), and the toe tip
    (carried by the toe bone). A quadruped's paw (hoof) is its whole sole: the back of the paw, the ball and
    the tip, all carried by the paw bone."""
    m = binding.measurements
    ground = m["ground"]

    def on_sole(p):
        return np.array([p[0], p[1], ground])

    # The sole bends at the ball: the foot's side carried by the foot bone; a quadruped's paw (hoof) is
    # the whole sole, its metatarsus (cannon) stands above it.
    foot_bone = binding.balls[foot] if binding.is_quadruped else binding.ankles[foot]
    heel_bone = binding.heels.get(foot, foot_bone)
    return [("heel", heel_bone, on_sole(m["heels"][foot])),
            ("ball", foot_bone, on_sole(m["balls"][foot])),
            ("ball", binding.balls[foot], on_sole(m["balls"][foot])),
            ("toe", binding.balls[foot], on_sole(m["toe_tips"][foot]))]


def sole_points(matrices, bone_index, binding, feet):
    """World sole points (points, frames, feet, 3) in SOLE_POINTS order, from evaluated world matrices
    (frames, bones, 4, 4) whose bone axis bone_index names."""
    upright = binding.measurements["upright"]
    out = np.zeros((len(SOLE_POINTS), matrices.shape[0], len(feet), 3))
    for leg, foot in enumerate(feet):
        for k, (_name, bone, point) in enumerate(sole_layout(binding, foot)):
            out[k, :, leg] = carried(matrices[:, bone_index[bone]], rest_local(binding.rig, bone, point, upright))
    return out


KNEE_NORMS = {"initial contact": (0.0, 15.0), "loading-response peak": (8.0, 30.0), "mid stance": (0.0, 15.0),
              "terminal stance": (0.0, 15.0), "toe-off": (25.0, 55.0), "swing peak": (50.0, 75.0)}  # degrees, a
# walking knee's flexion at each phase of the gait cycle (Perry & Burnfield 2010, ch. 5)


def knee_phases(knee, motion, leg):
    """Per stride of the leg (a footfall to its next, the first and last two left out: the walk's start and
    stop), its knee (degrees per frame, (N,)) at each phase of KNEE_NORMS: at the footfall, the peak over the
    first 20 % of the stride, the mean over 20-31 % (mid stance) and 31-50 % (terminal stance), at the lift-off,
    the peak in swing. (strides, 6)"""
    track, t = motion.track, motion.times
    mine = np.flatnonzero(np.asarray(track.feet) == motion.character.feet[leg])
    rows = []
    for a, b in zip(mine[1:-2], mine[2:-1]):
        start, cycle, lift = track.contact[a], track.contact[b] - track.contact[a], track.liftoff[a]

        def over(p, q):
            return knee[(t >= start + p * cycle) & (t <= start + q * cycle)]

        rows.append([knee[np.argmin(np.abs(t - start))], over(0.0, 0.2).max(), over(0.2, 0.31).mean(),
                     over(0.31, 0.5).mean(), knee[np.argmin(np.abs(t - lift))],
                     knee[(t > lift) & (t < start + cycle)].max()])
    return np.array(rows).reshape(-1, len(KNEE_NORMS))


def phase_table(knees, motion):
    """{phase: (least, most)} degrees over every stride of every leg (knees: (N,) per leg), knee_phases'."""
    measured = np.concatenate([knee_phases(knee, motion, leg) for leg, knee in enumerate(knees)])
    return {phase: (float(measured[:, k].min()), float(measured[:, k].max())) for k, phase in enumerate(KNEE_NORMS)}


def stance_and_swing(knees, motion):
    """{"stance": (least, most), "swing peak": (least, most)} degrees over the steady strides of every leg
    (knees: (N,) per leg; the first and last two footprints of each leg left out): a run's knee, which has no
    walking phases."""
    stance, peaks = [], []
    for leg, knee in enumerate(knees):
        mine = np.flatnonzero(np.asarray(motion.track.feet) == motion.character.feet[leg])
        for a, b in zip(mine[1:-2], mine[2:-1]):
            t, track = motion.times, motion.track
            stance.append(knee[(t >= track.contact[a]) & (t <= track.liftoff[a])])
            peaks.append(knee[(t > track.liftoff[a]) & (t < track.contact[b])].max())
    stance = np.concatenate(stance)
    return {"stance": (float(stance.min()), float(stance.max())), "swing peak": (float(min(peaks)), float(max(peaks)))}


def knee_bend_axis(binding, foot):
    """The knee's bending axis in the thigh bone's rest frame: the rig's left at rest (up x forward), so a
    flexing knee turns the shin about it positively, whatever the bones' roll."""
    m = binding.measurements
    upright = m["upright"]
    forward = m["align"].T @ np.array([0.0, 1.0, 0.0])  # the rest toes' direction, upright space
    left = upright.T @ np.cross([0.0, 0.0, 1.0], forward)  # armature space
    rest = np.array(binding.rig.data.bones[binding.hips[foot]].matrix_local, dtype=float)[:3, :3]
    return rest.T @ left


def knee_flexion(thigh_matrices, shin_matrices, bend_axis):
    """Knee flexion in degrees (...), from the thigh's and shin's world matrices (..., 4, 4): the angle
    between the two bones' y axes, negative when the shin turns the other way about the knee's bending axis
    (bend_axis, in the thigh's own frame, knee_bend_axis): a hyperextended knee."""
    thigh = _unit(thigh_matrices[..., :3, 1])
    shin = _unit(shin_matrices[..., :3, 1])
    axis = _unit(thigh_matrices[..., :3, :3] @ np.asarray(bend_axis, dtype=float))
    angle = np.degrees(np.arccos(np.clip(np.sum(thigh * shin, axis=-1), -1.0, 1.0)))
    return np.where(np.sum(np.cross(thigh, shin) * axis, axis=-1) < 0.0, -angle, angle)


def depth_below(ground, heights):
    """How far points are below the ground (positive: under it), elementwise."""
    return ground - heights


def heel_down(motion):
    """(N, L) frames each foot stands flat on its footprint: on it, and toe_pivot 0 (positive: the heel is
    lifted about the ball; negative: the foot still rolls down onto its sole from a heel strike)."""
    return motion.contact & (motion.toe_pivot == 0.0)


def single_support_late(contact, leg):
    """(N,) the second half of each single-support phase of a leg: it stands, every other foot is off the
    ground; mid and terminal stance, where the knee should be nearly straight."""
    others = np.delete(contact, leg, axis=1)
    single = contact[:, leg] & ~others.any(axis=1)
    edges = np.diff(np.concatenate(([0], single.astype(int), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    late = np.zeros(len(contact) + 1, dtype=int)
    np.add.at(late, (starts + ends) // 2, 1)  # from each phase's middle frame ...
    np.add.at(late, ends, -1)  # ... to its end
    return np.cumsum(late)[:-1] > 0


def stance_drift(points, phases):
    """The largest move of a point (N, 3) from where it stood at the start of each phase (N, in which
    phase labels, -1 outside any): (metres, row), (0, None) when no phase has two frames."""
    worst, row = 0.0, None
    for phase in np.unique(phases[phases >= 0]):
        rows = np.flatnonzero(phases == phase)
        moves = np.linalg.norm(points[rows] - points[rows[0]], axis=1)
        if moves.max() > worst:
            worst, row = float(moves.max()), int(rows[np.argmax(moves)])
    return worst, row


def _footprint_toes(motion):
    """(N, L, 2) seen from above, the toe of the footprint each foot stands on (where the ball joint stands
    on it, and stays while the heel lifts about it), or NaN off footprints."""
    track = motion.track
    forward = np.stack([-np.sin(track.headings), np.cos(track.headings)], axis=1)
    toes = track.positions[:, :2] + 0.5 * motion.character.foot_length * forward
    return np.where((motion.footprint >= 0)[..., None], toes[np.maximum(motion.footprint, 0)], np.nan)


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _extreme(values, frames, mask, largest=True):
    """The largest (or smallest) of values over the mask, and its frame and row: (value, frame, row),
    (None, None, None) when the mask is empty."""
    if not mask.any():
        return None, None, None
    rows = np.flatnonzero(mask)
    row = rows[np.argmax(values[rows]) if largest else np.argmin(values[rows])]
    return float(values[row]), int(frames[row]), int(row)


def ground_by_rays(probe, points, fallback):
    """The terrain's height (...) straight under points (..., 3), by Blender's own ray casts from a little
    above each (what the viewer sees: a height field's cells blur a riser's edge over their width); where a
    ray finds nothing, the fallback heights (...)."""
    flat = points.reshape(-1, 3)
    hit, found, _normals = probe.project(flat[:, :2], flat[:, 2] + RAY_START)
    return np.where(hit, found[:, 2], np.asarray(fallback).reshape(-1)).reshape(points.shape[:-1])


def measure(context, binding, motion, frames, terrain=None, probe=None):
    """The rig's quality over the motion's frames (the scene frames its rows were sampled at), per foot,
    in metres and degrees, each worst value with its frame:

    below_ground: the deepest any sole point (heel, ball, toe tip) comes under the terrain (Blender's ray
        casts when a probe of the track's terrain is given, else the solver's height field, or without one
        the footprints, as the solver's report), 0 when never; which point.
    ankle_height: at mid-stance (the foot flat on its footprint) the ankle's height over the ground minus
        its rest height over the rest sole, the largest in size (signed: + the ankle rides high).
    ball_skate / heel_skate: how far the sole under the ball moves while it is planted on one footprint
        (the foot on it, not rolling down from a heel strike; a quadruped's paw: its tip, which it rolls
        onto), and the sole at the back of the heel while it is (the foot on it, the heel not lifted), from
        where each was planted.
    ball_off_footprint: how far, seen from above, the ball joint is from the toe of its footprint while
        the ball is planted.
    leg_extension: the largest hip-to-ankle distance over thigh + shin (1: straight; above: stretched).
    knee: flexion (0 straight, negative hyperextended): the least, the most in stance, the peak in swing,
        the most over mid/terminal stance (the second half of single support).
    bone_stretch: the deform bone whose length strays furthest from its rest length (IK stretching or
        squashing it: the skin follows), by how much (a fraction: +0.02 is 2 % longer) and on which frame.
    missing: what the rig lacks (the binding's missing_parts), so the measure is read with it in mind.
    """
    feet = list(binding.feet)
    frames = np.asarray(frames, dtype=int)
    rig = binding.rig
    shins = {f: getattr(rig.data.bones[binding.ankles[f]].parent, "name", None) for f in feet}
    deform = [bone.name for bone in rig.data.bones if bone.use_deform]
    bones = list(dict.fromkeys(
        [binding.hips[f] for f in feet] + [binding.ankles[f] for f in feet] + [binding.balls[f] for f in feet]
        + [binding.heels[f] for f in feet if f in binding.heels] + [shins[f] for f in feet if shins[f]] + deform))
    index = {bone: i for i, bone in enumerate(bones)}
    matrices = evaluated_matrices(context, rig, bones, frames)
    heads = matrices[..., :3, 3]
    hips, ankles, balls = (heads[:, [index[names[f]] for f in feet]]
                           for names in (binding.hips, binding.ankles, binding.balls))
    soles = sole_points(matrices, index, binding, feet)  # (4, N, L, 3)
    scale = bake.world_rest(binding)["object"][2]
    rest = binding.measurements
    schedule = None if terrain is not None else build_schedule(motion.track, motion.character)
    sole_ground = ground_under_feet(motion, schedule, terrain, soles)
    ankle_ground = ground_under_feet(motion, schedule, terrain, ankles[None])[0]  # (N, L)
    if probe is not None:
        sole_ground = ground_by_rays(probe, soles, sole_ground)
        ankle_ground = ground_by_rays(probe, ankles, ankle_ground)
    sole_depth = depth_below(sole_ground, soles[..., 2])  # (4, N, L)
    flat = heel_down(motion)  # mid-stance: the whole sole on the footprint
    footprint_toes = _footprint_toes(motion)
    report = {"frames": len(frames), "frame_range": [int(frames[0]), int(frames[-1])] if len(frames) else None,
              "unit": "metres", "angle_unit": "degrees", "missing": list(binding.missing_parts),
              "ball_skate": {}, "heel_skate": {}, "ball_off_footprint": {}, "leg_extension": {}, "below_ground": {},
              "bone_stretch": _worst_stretch(matrices[:, [index[name] for name in deform]], deform, frames, scale),
              "feet": {}}
    for leg, foot in enumerate(feet):
        detail = report["feet"][foot] = {"heel_point": "heel bone" if foot in binding.heels else
                                            "the paw's back" if binding.is_quadruped else "behind the ankle"}
        # The sole against the ground: the deepest point over every frame, stance or swing.
        depth = sole_depth[:, :, leg]
        point, row = np.unravel_index(np.argmax(depth), depth.shape)
        report["below_ground"][foot] = float(max(depth[point, row], 0.0))
        detail["below_ground"] = {"depth": report["below_ground"][foot], "frame": int(frames[row]),
                                  "point": SOLE_POINTS[point]}
        # The ankle over the ground at mid-stance against its rest height over the rest sole.
        rest_height = scale * (rest["ankles"][foot][2] - rest["ground"])
        error = ankles[:, leg, 2] - ankle_ground[:, leg] - rest_height
        _size, frame, row = _extreme(np.abs(error), frames, flat[:, leg])
        detail["ankle_height"] = None if row is None else {"error": float(error[row]), "frame": frame}
        # Drift of the planted sole, from where it was planted on each footprint: the ball (carried by the
        # toe, which stays on the ground at heel-off) once the foot has rolled down from a heel strike; the
        # heel until it lifts (it rolls about it at a heel strike).
        ball_planted = motion.contact[:, leg] & (motion.toe_pivot[:, leg] >= 0.0)
        heel_planted = motion.contact[:, leg] & (motion.toe_pivot[:, leg] <= 0.0)
        # (A paw rolls onto its tip, the sole's last point on the ground: that stays.)
        rolled_about = soles[3 if binding.is_quadruped else 2, :, leg]
        ball_move, ball_row = stance_drift(rolled_about, np.where(ball_planted, motion.footprint[:, leg], -1))
        heel_move, heel_row = stance_drift(soles[0, :, leg], np.where(heel_planted, motion.footprint[:, leg], -1))
        report["ball_skate"][foot], report["heel_skate"][foot] = ball_move, heel_move
        detail["ball_drift"] = {"move": ball_move, "frame": None if ball_row is None else int(frames[ball_row])}
        detail["heel_drift"] = {"move": heel_move, "frame": None if heel_row is None else int(frames[heel_row])}
        off = np.linalg.norm(balls[ball_planted, leg, :2] - footprint_toes[ball_planted, leg], axis=1)
        report["ball_off_footprint"][foot] = float(off.max()) if off.size else 0.0
        reach = np.linalg.norm(hips[:, leg] - ankles[:, leg], axis=1) / (scale * rest["chains"][foot])
        extension, frame, _row = _extreme(reach, frames, np.ones(len(frames), dtype=bool))
        report["leg_extension"][foot] = extension
        detail["leg_extension"] = {"max": extension, "frame": frame}
        detail["knee"] = None if shins[foot] is None else _knee_report(
            knee_flexion(matrices[:, index[binding.hips[foot]]], matrices[:, index[shins[foot]]],
                         knee_bend_axis(binding, foot)), frames, motion.contact, leg)
    return report


def bone_stretch(matrices, object_scale):
    """(frames, bones) each bone's length on the evaluated rig over its rest length, less 1, from its world
    matrices (frames, bones, 4, 4): the pose's scale along the bone (its Y axis) over the object's."""
    return np.linalg.norm(matrices[..., :3, 1], axis=-1) / object_scale - 1.0


def _worst_stretch(matrices, names, frames, object_scale):
    """The report's bone_stretch: the bone, its stretch and frame; None for a rig without deform bones."""
    if not names or not len(frames):
        return None
    stretch = bone_stretch(matrices, object_scale)
    row, column = np.unravel_index(np.argmax(np.abs(stretch)), stretch.shape)
    return {"bone": names[column], "stretch": float(stretch[row, column]), "frame": int(frames[row])}


def _knee_report(flexion, frames, contact, leg):
    everywhere = np.ones(len(frames), dtype=bool)
    least, least_frame, _row = _extreme(flexion, frames, everywhere, largest=False)
    stance, stance_frame, _row = _extreme(flexion, frames, contact[:, leg])
    swing, swing_frame, _row = _extreme(flexion, frames, ~contact[:, leg])
    late, late_frame, _row = _extreme(flexion, frames, single_support_late(contact, leg))
    return {"min": least, "min_frame": least_frame, "stance_max": stance, "stance_max_frame": stance_frame,
            "swing_peak": swing, "swing_peak_frame": swing_frame, "late_stance_max": late,
            "late_stance_frame": late_frame}


def measure_track(context, coll, rig, motion=None):
    """Measure a footprint track's motion on a rig (as solved for that rig at the scene's frames, or the
    motion a bake just made of it) and keep the report on the track; returns it. Raises what binding and
    solving raise, before anything is kept. The track's last solve is measured when it was for this rig
    from everything as it is now (its signature), instead of solving again."""
    binding = bake.bind(rig)
    if motion is None and rig == coll.footprint_track.rig and solved.last_signature(coll) == solved.signature(coll):
        motion = solved.last_motion(coll)
    if motion is None:
        _frames, motion = bake.solve_for_rig(context, coll, binding)
    frames = [scene_clock.frame(context.scene, t) for t in motion.times]
    try:
        probe = terrain_module.track_probe(context, coll)
    except NoTerrainError:  # its objects not evaluated: the solve stood on the footprints, measure so too
        probe = None
    report = measure(context, binding, motion, frames, bake.solver_terrain(context, coll, motion.track), probe)
    coll.footprint_track.last_rig_report = json.dumps(report)
    return report
