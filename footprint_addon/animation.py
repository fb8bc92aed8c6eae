"""Actions and NLA strips on Blender 5.0 (slotted actions) and 4.2 (F-curves on the action), written in bulk."""

import bpy
import numpy as np

LINEAR = 1  # Blender's BEZT_IPO_LIN, the value foreach_set expects for 'LINEAR'
SLOTTED = bpy.app.version >= (4, 4, 0)


class ChannelWriter:
    """A new action for one object; channels are written whole with foreach_set."""

    def __init__(self, name, owner):
        self.action = bpy.data.actions.new(name)
        self.slot = None
        if SLOTTED:
            from bpy_extras import anim_utils

            self.slot = self.action.slots.new(id_type="OBJECT", name=owner.name)
            self.fcurves = anim_utils.action_ensure_channelbag_for_slot(self.action, self.slot).fcurves
        else:
            self.fcurves = self.action.fcurves

    def write(self, data_path, index, frames, values, group=None):
        fcurve = self.fcurves.new(data_path, index=index)
        if group is not None and not SLOTTED:
            fcurve.group = self.action.groups.get(group) or self.action.groups.new(group)
        points = fcurve.keyframe_points
        points.add(len(frames))
        points.foreach_set("co", _keys(frames, values))
        points.foreach_set("interpolation", np.full(len(frames), LINEAR, dtype=np.int32))
        fcurve.update()
        return fcurve

    def write_transform(self, prefix, frames, location, quaternion, group=None):
        """The seven channels of a location (N, 3) and a quaternion (N, 4); prefix '' for an object,
        'pose.bones["name"].' for a bone."""
        for path, values in ((f"{prefix}location", location), (f"{prefix}rotation_quaternion", quaternion)):
            for k in range(values.shape[1]):
                self.write(path, k, frames, values[:, k], group=group)


def _keys(frames, values):
    """Keyframe coordinates [frame, value, ...] as float32, Blender's own type: copied, not converted."""
    co = np.empty(2 * len(frames), dtype=np.float32)
    co[0::2], co[1::2] = frames, values
    return co


def action_fcurves(action):
    """The F-curves of an action this module wrote: its one channelbag on 4.4+, its own list on 4.2."""
    if SLOTTED and len(action.layers):
        return action.layers[0].strips[0].channelbags[0].fcurves
    return action.fcurves


def rewrite(fcurve, frames, values):
    """Replace an F-curve's key values in place when the frames are the same ones; False otherwise.

    The keys keep their frames (so their order) and LINEAR interpolation, so nothing needs sorting or
    handles recomputing: the caller has them evaluated again with tag_rewritten() instead (4.2 also
    needs the F-curve's own update to notice the new keys; it costs less there than tagging the action).
    """
    points = fcurve.keyframe_points
    if len(points) != len(frames):
        return False
    first, last = points[0].co[0], points[-1].co[0]
    if abs(first - frames[0]) > 1e-4 or abs(last - frames[-1]) > 1e-4:  # evenly keyed: the ends decide
        return False
    points.foreach_set("co", _keys(frames, values))
    if not SLOTTED:
        fcurve.update()
    return True


def rewrite_transform(action, frames, location, quaternion):
    """rewrite() for the seven channels write_transform() made on an object's action; False if any fails."""
    fcurves = {(fc.data_path, fc.array_index): fc for fc in action_fcurves(action)}
    return all(rewrite(fcurves[(path, k)], frames, values[:, k])
               for path, values in (("location", location), ("rotation_quaternion", quaternion))
               for k in range(values.shape[1]))


def tag_rewritten(obj):
    """Have Blender evaluate an object's rewritten keys again (tagging its action instead would
    re-evaluate far more: twice the live update's time)."""
    obj.update_tag(refresh={"TIME"})


def find_track(obj, predicate):
    """The NLA track holding a strip whose action satisfies predicate, or None."""
    anim = obj.animation_data
    if anim is None:
        return None
    for track in anim.nla_tracks:
        if any(strip.action is not None and predicate(strip.action) for strip in track.strips):
            return track
    return None


def replace_strip(obj, writer, track_name, strip_name, start_frame, view_layer, predicate):
    """Put the action into a strip starting at start_frame. If an earlier bake (predicate on its action)
    has a track, that track is reused in place, so layers above and below keep their order; else a new
    track goes on top of the stack. The replaced strips' actions are removed once nothing uses them."""
    anim = obj.animation_data or obj.animation_data_create()
    track = find_track(obj, predicate)
    if track is None:
        track = anim.nla_tracks.new()
        track.name = track_name
    for strip in list(track.strips):
        action = strip.action
        if action is not None and predicate(action):
            track.strips.remove(strip)
            if action.users == 0:
                bpy.data.actions.remove(action)
    strip = track.strips.new(strip_name, int(start_frame), writer.action)
    if writer.slot is not None:
        view_layer.update()  # Blender 5.0.1 crashes assigning a slot to a never-evaluated armature
        strip.action_slot = writer.slot
    return track, strip
