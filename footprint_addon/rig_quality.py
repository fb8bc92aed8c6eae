"""Quality measured on the evaluated rig, after Blender's own constraints and IK: what the viewer sees.

The solver's report measures the motion it computed; this one measures the pose Blender actually gives the
rig, frame by frame: a foot that slides during its stance (the IK could not reach its target, a constraint
or a hand-edited key moved it), a leg stretched past its straight length or a foot sunk into the ground
shows here even when the solution is clean.
"""

import json

import numpy as np

from ..solver.motion import ground_under_feet
from ..solver.schedule import build_schedule
from . import bake, scene_clock, solved


def evaluated_heads(context, rig, bones, frames):
    """World positions (frames, bones, 3) of the bones' heads on the evaluated rig; the scene's current
    frame is put back afterwards."""
    scene = context.scene
    current, subframe = scene.frame_current, scene.frame_subframe
    out = np.zeros((len(frames), len(bones), 3))
    try:
        for i, frame in enumerate(frames):
            scene.frame_set(int(frame))
            evaluated = rig.evaluated_get(context.evaluated_depsgraph_get())
            matrix = np.array(evaluated.matrix_world)
            heads = np.array([evaluated.pose.bones[name].head for name in bones])
            out[i] = heads @ matrix[:3, :3].T + matrix[:3, 3]
    finally:
        scene.frame_set(current, subframe=subframe)
    return out


def measure(context, binding, motion, frames, terrain=None):
    """Per foot, on the evaluated rig, in metres unless said: foot skate over the motion's stance phases
    (how far the ball of the foot moves while the foot stands on one footprint, which it should not at
    all; how far the ankle moves while the foot is also flat, heel down; how far, seen from above, the
    ball is from the toe of the footprint it stands on); leg_extension, the largest hip-to-ankle distance
    as a fraction of thigh + shin (1: straight; above: the bones stretch); below_ground, the deepest the
    ball or the ankle comes below the height it has over the ground at rest (the terrain, a solver
    height field, or the footprints), 0 when never."""
    feet = list(binding.feet)
    bones = ([binding.balls[f] for f in feet] + [binding.ankles[f] for f in feet]
             + [binding.hips[f] for f in feet])
    balls, ankles, hips = np.split(evaluated_heads(context, binding.rig, bones, frames), 3, axis=1)
    toes = motion.feet + 0.5 * motion.character.foot_length * motion.foot_rotation[..., :, 1]
    _translation, rotation, scale = bake.world_rest(binding)["object"]
    rest = binding.measurements
    report = {"frames": len(frames), "ball_skate": {}, "heel_skate": {}, "ball_off_footprint": {},
              "leg_extension": {}, "below_ground": {}, "unit": "metres"}
    schedule = None if terrain is not None else build_schedule(motion.track, motion.character)
    ground = ground_under_feet(motion, schedule, terrain, np.stack([balls, ankles]))
    for leg, foot in enumerate(feet):
        ball_skate = heel_skate = 0.0
        standing = motion.contact[:, leg]
        for footprint in np.unique(motion.footprint[standing, leg]):
            on = standing & (motion.footprint[:, leg] == footprint)
            ball_skate = max(ball_skate, _largest_move(balls[on, leg]))
            heel_skate = max(heel_skate, _largest_move(ankles[on & (motion.toe_pivot[:, leg] == 0.0), leg]))
        report["ball_skate"][foot] = ball_skate
        report["heel_skate"][foot] = heel_skate
        off = np.linalg.norm(balls[standing, leg, :2] - toes[standing, leg, :2], axis=1)
        report["ball_off_footprint"][foot] = float(off.max()) if off.size else 0.0
        reach = np.linalg.norm(hips[:, leg] - ankles[:, leg], axis=1) / (scale * rest["chains"][foot])
        report["leg_extension"][foot] = float(reach.max())
        heights = [(rotation @ (scale * (rest[kind][foot] - rest["support"][foot])))[2] for kind in ("balls", "ankles")]
        depth = ground[:, :, leg] + np.array(heights)[:, None] - np.stack([balls[:, leg, 2], ankles[:, leg, 2]])
        report["below_ground"][foot] = float(max(depth.max(), 0.0))
    return report


def _largest_move(points):
    return float(np.linalg.norm(points - points[0], axis=1).max()) if len(points) > 1 else 0.0


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
    report = measure(context, binding, motion, frames, bake.solver_terrain(context, coll, motion.track))
    coll.footprint_track.last_rig_report = json.dumps(report)
    return report
