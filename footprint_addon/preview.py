"""Non-destructive preview: animated target empties (the COM, the body control, one IK target per foot)
and constraints that make the rig follow them. Removing the preview removes exactly what it added."""

import bpy
import numpy as np

from ..solver.transforms import quaternion_from_matrix
from . import animation, bake, ownership
from .rigs import bind

CONSTRAINT = "Footprint Preview"


def preview_name(coll):
    return f"{coll.name} preview"


def _empty(name, coll, owner, size, parent=None):
    empty = bpy.data.objects.new(name, None)
    empty.empty_display_type = "ARROWS"
    empty.empty_display_size = size
    empty.rotation_mode = "QUATERNION"
    empty[ownership.PREVIEW_KEY] = owner
    coll.objects.link(empty)
    empty.parent = parent
    return empty


def _keyed_empty(name, coll, owner, frames, rotations, positions, size):
    empty = _empty(name, coll, owner, size)
    writer = animation.ChannelWriter(f"{name} motion", empty)
    writer.action[ownership.PREVIEW_KEY] = owner
    writer.write_transform("", frames, positions, quaternion_from_matrix(rotations))
    empty.animation_data_create().action = writer.action
    if writer.slot is not None:
        empty.animation_data.action_slot = writer.slot
    return empty


def _keys(binding, motion, rest, track_name):
    """What each animated preview empty is keyed with: {empty name: (rotations (N, 3, 3), positions (N, 3))},
    and the body control's fixed offset from the COM in the COM empty's frame."""
    targets = bake.bone_targets(binding, motion, rest)
    body_rot, body_pos = targets[binding.body]
    keys = {f"{track_name} COM": (body_rot, motion.com)}
    for foot, bone in binding.feet.items():
        keys[f"{track_name} IK {foot}"] = targets[bone]
    return keys, body_rot[0].T @ (body_pos[0] - motion.com[0])  # the same at every frame: a rest offset


def refresh(context, track, rig, previous=None, changed=None, signature=None):
    """Re-solve (from the previous motion, when given; around the changed span of seconds, when given) and
    rewrite the existing preview's keys in place; falls back to a new preview when there is none or the
    frames changed. signature: the footprints' (solved.signature), when the caller has it. Returns the
    motion."""
    binding = bind(rig)
    frames, motion = bake.solve_for_rig(context, track, binding, previous, changed)
    ownership.follow_rename(track)
    keys, body_offset = _keys(binding, motion, bake.world_rest(binding), track.name)
    empties = {name: bpy.data.objects.get(name) for name in keys}
    done = all(e is not None and e.get(ownership.PREVIEW_KEY) == track.name and e.animation_data and e.animation_data.action
               for e in empties.values())
    body = bpy.data.objects.get(f"{track.name} body")
    done &= body is not None and body.get(ownership.PREVIEW_KEY) == track.name
    if done:
        if (np.asarray(body.location) - body_offset).any():  # the rig's rest changed
            body.location = body_offset
        for name, (rotations, positions) in keys.items():
            done = animation.rewrite_transform(empties[name].animation_data.action, frames, positions,
                                               quaternion_from_matrix(rotations))
            if not done:
                break
            animation.tag_rewritten(empties[name])
    if not done:
        return _build(context, track, rig, binding, frames, motion, keys, body_offset, signature)[1]
    bake.remember(track, rig, motion, previewed=True, signature=signature)
    return motion


def add(context, track, rig):
    """Solve the track for the rig and add the preview; replaces this track's earlier preview."""
    binding = bind(rig)
    frames, motion = bake.solve_for_rig(context, track, binding)
    ownership.follow_rename(track)
    keys, body_offset = _keys(binding, motion, bake.world_rest(binding), track.name)
    return _build(context, track, rig, binding, frames, motion, keys, body_offset)


def _build(context, track, rig, binding, frames, motion, keys, body_offset, signature=None):
    remove(track, rig)
    coll = bpy.data.collections.new(preview_name(track))
    coll[ownership.PREVIEW_KEY] = track.name
    context.scene.collection.children.link(coll)
    size = 0.25 * binding.character().leg_length_nominal
    com_name = f"{track.name} COM"
    com = _keyed_empty(com_name, coll, track.name, frames, *keys[com_name], size)
    # The body control hangs off the COM by its rest offset (zero for Rigify's torso): not animated.
    body = _empty(f"{track.name} body", coll, track.name, size, parent=com)
    body.location = body_offset
    followers = {binding.body: body}
    for foot, bone in binding.feet.items():
        name = f"{track.name} IK {foot}"
        followers[bone] = _keyed_empty(name, coll, track.name, frames, *keys[name], size)
    for bone, empty in followers.items():
        pose_bone = rig.pose.bones[bone]
        for kind in ("COPY_LOCATION", "COPY_ROTATION"):
            constraint = pose_bone.constraints.new(kind)
            constraint.name = CONSTRAINT
            constraint.target = empty
    bake.remember(track, rig, motion, previewed=True, signature=signature)
    return coll, motion


def remove(track, rig):
    """Remove the track's preview: its constraints on the rig, its empties, their actions, its collection."""
    ownership.follow_rename(track)
    removed = False
    if rig is not None and rig.type == "ARMATURE":
        for pose_bone in rig.pose.bones:
            for constraint in list(pose_bone.constraints):
                target = getattr(constraint, "target", None)
                if constraint.name.startswith(CONSTRAINT) and target is not None and target.get(ownership.PREVIEW_KEY) == track.name:
                    pose_bone.constraints.remove(constraint)
                    removed = True
    for obj in [o for o in bpy.data.objects if o.get(ownership.PREVIEW_KEY) == track.name]:
        bpy.data.objects.remove(obj)
        removed = True
    for action in [a for a in bpy.data.actions if a.get(ownership.PREVIEW_KEY) == track.name and a.users == 0]:
        bpy.data.actions.remove(action)
    for coll in [c for c in bpy.data.collections if c.get(ownership.PREVIEW_KEY) == track.name]:
        bpy.data.collections.remove(coll)
        removed = True
    return removed
