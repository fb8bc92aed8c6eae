"""Non-destructive preview: animated target empties (the COM, the body control, one IK target per foot, and
with the walking attributes one per upper-body and toe bone) and constraints that make the rig follow them.
The preview sets the rig's IK/FK switches as a bake keys them; removing the last preview from a rig puts
them back, and removes exactly what it added."""

import bpy
import numpy as np

from ..solver.body.transforms import quaternion_from_matrix
from . import animation, bake, body_pose, ownership
from .rigs import bind

CONSTRAINT = "Footprint Preview"


def preview_name(coll):
    return f"{coll.name} preview"


def _empty(role, coll, track, size, parent=None):
    empty = bpy.data.objects.new(f"{track.name} {role}", None)
    empty.empty_display_type = "ARROWS"
    empty.empty_display_size = size
    empty.rotation_mode = "QUATERNION"
    empty[ownership.PREVIEW_KEY] = track
    empty[ownership.ROLE_KEY] = role
    coll.objects.link(empty)
    empty.parent = parent
    return empty


def _keyed_empty(role, coll, track, frames, rotations, positions, size):
    empty = _empty(role, coll, track, size)
    writer = animation.ChannelWriter(f"{empty.name} motion", empty)
    writer.action[ownership.PREVIEW_KEY] = track
    writer.write_transform("", frames, positions, quaternion_from_matrix(rotations))
    empty.animation_data_create().action = writer.action
    if writer.slot is not None:
        empty.animation_data.action_slot = writer.slot
    return empty


POSE_ROLE = "pose "  # + a bone's name: an empty whose rotation that bone of the walking attributes copies


def _keys(binding, motion, rest, attributes):
    """What each animated preview empty is keyed with: {role: (rotations (N, 3, 3), positions (N, 3))}, and
    the body control's fixed offset from the COM in the COM empty's frame. With the walking attributes,
    an empty per upper-body and toe bone keyed with the bone's local rotation; on a quadruped rig one per
    spine, neck, head and tail bone it turns (and the COM empty carries the body's shift)."""
    targets, body = bake.targets_and_body(binding, motion, rest)
    body_rot, body_pos = targets[binding.body]
    shift = np.zeros_like(motion.com) if body is None else body.shift  # (a quadruped's girdles on its masses)
    keys = {"COM": (body_rot, motion.com + shift)}
    for foot in motion.character.feet:
        keys[f"IK {foot}"] = targets[binding.feet[foot]]
    rotations = {} if attributes is None else body_pose.channels(binding, motion, attributes)
    if body is not None:  # the rotations each bone ends with (the preview's copy comes after its own)
        rotations = body.final
    for bone, local in rotations.items():
        keys[POSE_ROLE + bone] = (local, np.zeros((len(local), 3)))
    return keys, body_rot[0].T @ (body_pos[0] - keys["COM"][1][0])  # the same at every frame: a rest offset


def _followed(track, rig):
    """The empties the rig's preview constraints follow, by role: the body control's and the feet's
    targets, the COM the body hangs off, the upper body's and toes' rotations. Found from the constraints
    themselves, so a copy of an empty (Shift+D keeps its role and owner) is never the one rewritten."""
    empties = {target.get(ownership.ROLE_KEY): target
               for _bone, _constraint, target in _preview_constraints(rig.pose.bones)
               if target is not None and ownership.owned(target, ownership.PREVIEW_KEY, track)}
    body = empties.get("body")
    if body is not None and body.parent is not None and body.parent.get(ownership.ROLE_KEY) == "COM":
        empties["COM"] = body.parent
    return empties


def _preview_constraints(pose_bones):
    """(pose bone, constraint, its target) of every preview constraint on the bones."""
    for pose_bone in pose_bones:
        for constraint in pose_bone.constraints:
            if constraint.name.startswith(CONSTRAINT):
                yield pose_bone, constraint, getattr(constraint, "target", None)


def refresh(context, track, rig, previous=None, changed=None, signature=None):
    """Re-solve (from the previous motion, when given; around the changed span of seconds, when given) and
    rewrite the existing preview's keys in place; falls back to a new preview when there is none or the
    frames changed. signature: the footprints' (solved.signature), when the caller has it. Returns the
    motion."""
    binding = bind(rig)
    frames, motion = bake.solve_for_rig(context, track, binding, previous, changed)
    keys, body_offset = _keys(binding, motion, bake.world_rest(binding), bake.walking_attributes(track, binding))
    empties = _followed(track, rig)
    body = empties.get("body")
    done = (body is not None and set(empties) == set(keys) | {"body"}  # (attributes switched on or off: anew)
            and all(empties[role].animation_data and empties[role].animation_data.action for role in keys))
    if done:
        if (np.asarray(body.location) - body_offset).any():  # the rig's rest changed
            body.location = body_offset
        for role, (rotations, positions) in keys.items():
            done = animation.rewrite_transform(empties[role].animation_data.action, frames, positions,
                                               quaternion_from_matrix(rotations))
            if not done:
                break
            animation.tag_rewritten(empties[role])
    if not done:
        return _build(context, track, rig, binding, frames, motion, keys, body_offset, signature)[1]
    bake.remember(track, rig, motion, previewed=True, signature=signature)
    return motion


def add(context, track, rig):
    """Solve the track for the rig and add the preview; replaces this track's earlier preview."""
    binding = bind(rig)
    frames, motion = bake.solve_for_rig(context, track, binding)
    keys, body_offset = _keys(binding, motion, bake.world_rest(binding), bake.walking_attributes(track, binding))
    return _build(context, track, rig, binding, frames, motion, keys, body_offset)


def _build(context, track, rig, binding, frames, motion, keys, body_offset, signature=None):
    remove(track)
    coll = bpy.data.collections.new(preview_name(track))
    coll[ownership.PREVIEW_KEY] = track
    context.scene.collection.children.link(coll)
    size = 0.25 * binding.character().leg_length_nominal
    com = _keyed_empty("COM", coll, track, frames, *keys["COM"], size)
    # The body control hangs off the COM by its rest offset (zero for Rigify's torso): not animated.
    body = _empty("body", coll, track, size, parent=com)
    body.location = body_offset
    followers = {binding.body: body}
    for foot in motion.character.feet:
        bone = binding.feet[foot]
        followers[bone] = _keyed_empty(f"IK {foot}", coll, track, frames, *keys[f"IK {foot}"], size)
    for bone, empty in followers.items():
        pose_bone = rig.pose.bones[bone]
        for kind in ("COPY_LOCATION", "COPY_ROTATION"):
            constraint = pose_bone.constraints.new(kind)
            constraint.name = CONSTRAINT
            constraint.target = empty
    _switch(rig, binding)
    for role in keys:  # the upper body and toes: each bone's local rotation, from its empty's own
        if role.startswith(POSE_ROLE):
            constraint = rig.pose.bones[role.removeprefix(POSE_ROLE)].constraints.new("COPY_ROTATION")
            constraint.name = CONSTRAINT
            constraint.target = _keyed_empty(role, coll, track, frames, *keys[role], size)
            # The empty's own rotation (it has no parent: its world one) onto the bone's local rotation
            # (the target's "local" space of an object is another thing: the bone did not move with it).
            constraint.target_space, constraint.owner_space = "WORLD", "LOCAL"
    bake.remember(track, rig, motion, previewed=True, signature=signature)
    return coll, motion


SWITCHED_KEY = "footprint_preview_switched"  # on a pose bone: its switch values before a preview set them


def _switch(rig, binding):
    """Set the binding's switches (legs on IK, arms on FK) for the preview, keeping each earlier value on
    its bone so that removing the last preview from the rig puts it back."""
    for (bone, prop), value in binding.switches.items():
        pose_bone = rig.pose.bones[bone]
        if prop in pose_bone and pose_bone[prop] != value:
            before = dict(pose_bone.get(SWITCHED_KEY, {}))
            before.setdefault(prop, pose_bone[prop])
            pose_bone[SWITCHED_KEY] = before
            pose_bone[prop] = value


def _unswitch(armature):
    """Put back the switch values previews set on the armature (when no preview follows it any more)."""
    for pose_bone in armature.pose.bones:
        before = pose_bone.get(SWITCHED_KEY)
        if before is not None:
            for prop, value in before.items():
                pose_bone[prop] = value
            del pose_bone[SWITCHED_KEY]


def remove(track):
    """Remove the track's preview: its empties, their actions, its collection, and the constraints that
    follow them on every rig (the one it is on, any it was on before); and what is left of
    the previews of tracks since deleted (their constraints would drive the rigs on, or be left with no
    target). Returns whether anything was removed."""
    def ours(block):
        return (ownership.owned(block, ownership.PREVIEW_KEY, track)
                or ownership.orphaned(block, ownership.PREVIEW_KEY))

    removed = False
    for armature in [o for o in bpy.data.objects if o.type == "ARMATURE"]:
        for pose_bone, constraint, target in list(_preview_constraints(armature.pose.bones)):
            if target is None or ours(target):
                pose_bone.constraints.remove(constraint)
                removed = True
        if not any(_preview_constraints(armature.pose.bones)):
            _unswitch(armature)
    for obj in [o for o in bpy.data.objects if ours(o)]:
        bpy.data.objects.remove(obj)
        removed = True
    for action in [a for a in bpy.data.actions if ours(a) and a.users == 0]:
        bpy.data.actions.remove(action)
    for coll in [c for c in bpy.data.collections if ours(c)]:
        bpy.data.collections.remove(coll)
        removed = True
    return removed
