"""Baking a solved track onto a rig: control-bone transforms computed with numpy, written as one action in
an NLA strip named after the track (vdP97 §2.5, §2.6: the body follows the COM, IK controls the feet).

For every frame, the world targets are
- body control: rotation R_body(t) A R_rest, head at COM(t) + R_body(t) A (head_rest - com_rest);
- foot IK control: rotation F(t) A R_rest, at footprint point(t) + F(t) A (head_rest - support_rest), its
  own rest head (a biped's foot control stands at the ankle, a paw's lies on the ground);
where A turns the rig's rest facing onto the solver's +Y. Each is then expressed in its bone's own space,
basis = rest^-1 rest_parent pose_parent^-1 pose, with the parent's current pose held.
"""

import json
import math

import numpy as np

from ..solver import biped
from ..solver.body import walking
from ..solver.body.transforms import quaternion_from_matrix, rotation_z
from ..solver.core.orientation import rotation_matrices
from ..solver.track import frame_count
from . import animation, body_pose, ownership, scene_clock, scene_io, solved
from . import terrain as terrain_module
from .rigs import bind


class BakeError(ValueError):
    """The rig cannot take the bake as it is set up (the message says what to change)."""


def frame_times(scene, schedule_start, schedule_end):
    """Integer frames covering the track, and their exact times in the track's seconds."""
    rate = scene_clock.fps(scene)
    frame_count(schedule_start, schedule_end, rate)  # refuses a track too long to sample, before allocating
    first = int(np.ceil(scene.frame_start + schedule_start * rate - 1e-9))
    last = int(np.floor(scene.frame_start + schedule_end * rate + 1e-9))
    frames = np.arange(first, last + 1)
    return frames, scene_clock.seconds(scene, frames)


def _object_parts(obj):
    m = np.array(obj.matrix_world, dtype=float)
    scale = np.linalg.norm(m[:3, :3], axis=0)
    return m[:3, 3], m[:3, :3] / scale, float(scale.mean())


def world_rest(binding):
    """Rest measurements in world space (the rig object may be moved, rotated and uniformly scaled; the
    binding measured them already turned by the object's rotation)."""
    translation, rotation, scale = _object_parts(binding.rig)
    m = binding.measurements

    def point(p):
        return translation + scale * np.asarray(p)

    return {
        "com": point(m["com"]),
        "support": {f: point(v) for f, v in m["support"].items()},
        "ankles": {f: point(v) for f, v in m["ankles"].items()},
        "facing": float(m["facing"]),  # heading of the rig's rest toes in the world
        "object": (translation, rotation, scale),
    }


def rig_character(binding, base="human"):
    """The solver character the rig's rest pose implies, in world units (the rig object may be scaled)."""
    return binding.character(base).scaled(_object_parts(binding.rig)[2])


def solve_for_rig(context, coll, binding, previous=None, changed=None):
    """The track solved for the rig's own proportions, sampled at the scene's frames; from the previous
    motion's solution and around the changed span of seconds, when given (see biped.solve)."""
    track = scene_io.read_track(coll)
    character = track_character(coll, binding)
    # The motion spans first contact to last lift-off (the schedule's bounds; the solve validates).
    if len(track) == 0:
        raise BakeError(f"track {coll.name!r} has no footprints")
    strangers = sorted(set(track.feet) - set(character.feet))
    if strangers:
        raise BakeError(f"track {coll.name!r} has footprints of feet {', '.join(strangers)} that rig "
                        f"{binding.rig.name!r} does not have (its feet: {', '.join(character.feet)}): a "
                        f"{'quadruped' if binding.is_quadruped else 'biped'} rig takes "
                        f"{'a quadruped' if binding.is_quadruped else 'a biped'} track")
    frames, times = frame_times(context.scene, float(track.contact.min()), float(track.liftoff.max()))
    warm = None if previous is None else previous.solution
    motion = biped.solve(track, character, solver_terrain(context, coll, track), times=times, warm=warm,
                         changed=changed, previous=previous)
    return frames, motion


def track_character(coll, binding):
    """The character a track is solved with on a rig: measured from its rest pose, with the track's walking
    attributes that the COM solve sees (pelvic rotation and list, heel strike)."""
    character = rig_character(binding, coll.footprint_track.character)
    attributes = walking_attributes(coll, binding)
    return character if attributes is None else walking.character_with(character, attributes)


def walking_attributes(coll, binding=None):
    """The track's walking attributes (the Body panel), or None when they are switched off or the rig
    (its binding, when given) is a quadruped: they are a biped's walk."""
    if binding is not None and binding.is_quadruped:
        return None
    return coll.footprint_track.body.attributes()


def solver_terrain(context, coll, track):
    """The track's terrain as the solver reads it (a height field of its evaluated meshes), or None."""
    return terrain_module.track_height_field(context, coll, track.positions)


def write_action(rig, binding, name, frames, channels, rotations=None):
    """A new action with the control channels (location and rotation), the rotation-only channels (upper
    body and toes) and the binding's switches, written in bulk."""
    writer = animation.ChannelWriter(name, rig)
    for name_, (location, quaternion) in channels.items():
        writer.write_transform(f'pose.bones["{name_}"].', frames, location, quaternion, group=name_)
    for (path, k), values in body_pose.rotation_channels(rig, rotations or {}).items():
        writer.write(path, k, frames, values, group=path.split('"')[1])
    for (bone, prop), value in binding.switches.items():
        writer.write(f'pose.bones["{bone}"]["{prop}"]', 0, np.asarray(frames)[[0, -1]], [value, value], group=bone)
    return writer


def bone_targets(binding, motion, rest):
    """World rotation (N, 3, 3) and head position (N, 3) for the body and each foot control."""
    return targets_and_body(binding, motion, rest)[0]


def targets_and_body(binding, motion, rest):
    """bone_targets, and on a quadruped rig the spine, neck, head and tail it turns (body_pose.QuadrupedBody;
    else None). There the body control turns with the body's middle (halfway from the pelvis to the chest)
    and moves by the body's shift: the turned spine's girdles on the masses."""
    rig = binding.rig
    _t, obj_rot, _s = rest["object"]
    align = rotation_z(-rest["facing"])
    body_rot = rotation_matrices(motion.yaw, motion.pitch, motion.roll)
    targets = {}
    turns = None
    if binding.is_quadruped and body_pose.quadruped_parts(binding):  # the body's middle, between the girdles
        turns = body_pose.quadruped_turns(binding, motion, rest["object"][2])
        body_rot = turns[3]
    bone = rig.data.bones[binding.body]
    rest_rot = obj_rot @ np.array(bone.matrix_local, dtype=float)[:3, :3]
    head_rest = rest["object"][0] + obj_rot @ (rest["object"][2] * np.array(bone.head_local))
    offset = align @ (head_rest - rest["com"])
    targets[binding.body] = (body_rot @ align @ rest_rot, motion.com + body_rot @ offset)
    for i, foot in enumerate(motion.character.feet):
        bone = rig.data.bones[binding.feet[foot]]
        rest_rot = obj_rot @ np.array(bone.matrix_local, dtype=float)[:3, :3]
        frame = motion.foot_rotation[:, i]
        # The control's head is a point of the foot: it keeps its rest place relative to the support point
        # (a biped's foot control stands at the ankle; a paw's lies on the ground, its head at the tip).
        head_rest = rest["object"][0] + obj_rot @ (rest["object"][2] * np.array(bone.head_local))
        offset = align @ (head_rest - rest["support"][foot])
        targets[binding.feet[foot]] = (frame @ align @ rest_rot, motion.feet[:, i] + frame @ offset)
    body = None
    if turns is not None:
        rotation, head = targets[binding.body]
        body = body_pose.quadruped_body(binding, motion, turns, rotation, head, rest["object"])
        targets[binding.body] = (rotation, head + body.shift)
    return targets, body


def control_channels(binding, motion):
    """Bone-space (location (N, 3), quaternion (N, 4)) of the body and foot controls that follow the motion."""
    targets = bone_targets(binding, motion, world_rest(binding))
    return {name: local_transforms(binding.rig, name, *target) for name, target in targets.items()}


def local_transforms(rig, name, world_rot, world_pos):
    """Bone-space location (N, 3) and quaternion (N, 4) that put the bone's head and axes at the targets."""
    translation, obj_rot, scale = _object_parts(rig)
    bone = rig.data.bones[name]
    n = len(world_pos)
    pose = np.tile(np.eye(4), (n, 1, 1))  # armature space
    pose[:, :3, :3] = obj_rot.T @ world_rot
    pose[:, :3, 3] = ((world_pos - translation) @ obj_rot) / scale
    rest = np.array(bone.matrix_local, dtype=float)
    if bone.parent is not None:
        parent_rest = np.array(bone.parent.matrix_local, dtype=float)
        parent_pose = np.array(rig.pose.bones[bone.parent.name].matrix, dtype=float)
        space = np.linalg.inv(rest) @ parent_rest @ np.linalg.inv(parent_pose)
    else:
        space = np.linalg.inv(rest)
    basis = space @ pose
    return basis[:, :3, 3], quaternion_from_matrix(basis[:, :3, :3])


def bake(context, coll, rig, progress=None):
    """Solve the track for the rig and write it as a new action in an NLA strip; replaces this track's
    earlier bake on this rig only. Returns (strip, motion). Raises MissingBonesError / FootprintError before
    anything is written. progress(fraction) is called as the work advances."""
    progress = progress or (lambda _fraction: None)
    binding = bind(rig)
    for name in [binding.body, *binding.feet.values()]:
        if rig.pose.bones[name].rotation_mode != "QUATERNION":
            raise BakeError(f"bone {name!r} of {rig.name!r} must use quaternion rotation to be baked")
    frames, motion = solve_for_rig(context, coll, binding)
    progress(0.5)
    targets, body = targets_and_body(binding, motion, world_rest(binding))
    channels = {name: local_transforms(rig, name, *target) for name, target in targets.items()}
    attributes = walking_attributes(coll, binding)
    rotations = {} if attributes is None else body_pose.channels(binding, motion, attributes)
    if body is not None:  # a quadruped's spine, neck, head and tail: keyed under the rig's own constraints
        rotations = body.keyed
    progress(0.7)
    # Everything is computed: now write the new action and swap it for this track's previous bake.
    writer = write_action(rig, binding, f"{coll.name} ({rig.name})", frames, channels, rotations)
    writer.action[ownership.BAKE_KEY] = coll
    progress(0.9)

    def earlier_bake(action):  # this track's, among this rig's strips
        return action != writer.action and ownership.owned(action, ownership.BAKE_KEY, coll)

    _track, strip = animation.replace_strip(rig, writer, ownership.BAKE_TRACK.format(coll.name), coll.name,
                                            frames[0], context.view_layer, earlier_bake)
    extend_frame_range(context.scene, strip)  # playback and renders reach the whole bake
    remember(coll, rig, motion)
    progress(1.0)
    return strip, motion


def extend_frame_range(scene, strip):
    """Extend the scene's frame range so that playback and renders reach the end of a baked strip; never
    shrinks it. The start frame stays even when the strip begins earlier (a track with negative times): it
    is every track's time 0 (scene_clock), so moving it would retime them all and shift the next bake."""
    last = math.ceil(strip.frame_end - 1e-6)  # the strip's end frame, even if float32 leaves it a hair above
    scene.frame_end = max(scene.frame_end, last)


def remember(coll, rig, motion, previewed=False, signature=None):
    """Keep the rig and the quality report on the track, for the panel; record the solve (the overlay
    draws its motion, the live update starts from it; previewed: the preview now shows it; signature: the
    footprints', when the caller has it)."""
    coll.footprint_track.rig = rig
    coll.footprint_track.last_report = json.dumps(motion.report)
    solved.record(coll, motion, previewed, signature)
