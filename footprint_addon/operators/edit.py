"""Editing the selected footprints of the active track: retime, mirror left/right, delete."""

import bpy
from bpy.props import BoolProperty, FloatProperty

from ...solver.footprints import edits
from .. import scene_io
from ..terrain import track_probe
from .common import USER_ERRORS, OnActiveTrack, selected_mask


class _SelectionEdit(OnActiveTrack):
    """Run an edit on the active track's selected footprints; validate the result before writing it."""

    bl_options = {"REGISTER", "UNDO"}

    def edit(self, context, coll, objs, track, mask):
        raise NotImplementedError

    def run(self, context, coll):
        objs = scene_io.footprints(coll)
        mask = selected_mask(context, objs)
        if not any(mask):
            self.report({"ERROR"}, f"Select footprints of track {coll.name!r} first")
            return {"CANCELLED"}
        try:
            message = self.edit(context, coll, objs, scene_io.read_track(coll, objs), mask)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing changed")
            return {"CANCELLED"}
        self.report({"INFO"}, message)
        return {"FINISHED"}


class FOOTPRINT_OT_retime(_SelectionEdit, bpy.types.Operator):
    """Scale the selected footprints' times about the earliest selected contact, then offset them"""

    bl_idname = "footprint.retime"
    bl_label = "Retime Footprints"

    scale: FloatProperty(name="Scale", default=1.0, soft_min=0.1, soft_max=10.0,
                         description="Factor on times, measured from the earliest selected contact")
    offset: FloatProperty(name="Offset", default=0.0, description="Seconds added to the selected times")

    def edit(self, context, coll, objs, track, mask):
        result = edits.retime(track, mask, self.scale, self.offset)
        scene_io.validate_objects(coll, result, objs)
        scene_io.write_track(coll, result, objs)
        return f"Retimed {sum(mask)} footprints"


class FOOTPRINT_OT_mirror(_SelectionEdit, bpy.types.Operator):
    """Mirror the selected footprints left/right about their line of travel: feet swap, turns reverse"""

    bl_idname = "footprint.mirror"
    bl_label = "Mirror Footprints"

    def edit(self, context, coll, objs, track, mask):
        result = edits.mirror(track, mask)
        scene_io.validate_objects(coll, result, objs)
        tilt = None
        probe = track_probe(context, coll)
        if probe is not None:  # mirrored footprints stand on other ground: take its height and slope
            chosen = [i for i, sel in enumerate(mask) if sel]
            conformed, (pitch, roll) = scene_io.conform_track(result.take(chosen), probe, [objs[i].name for i in chosen])
            positions = result.positions.copy()
            positions[chosen] = conformed.positions
            result = result.replace(positions=positions)
            tilt = ([o.rotation_euler.x for o in objs], [o.rotation_euler.y for o in objs])
            for k, i in enumerate(chosen):
                tilt[0][i], tilt[1][i] = pitch[k], roll[k]
        scene_io.write_track(coll, result, objs, tilt)
        return f"Mirrored {sum(mask)} footprints"


class FOOTPRINT_OT_delete(_SelectionEdit, bpy.types.Operator):
    """Delete the selected footprints, optionally closing the gap in time they leave"""

    bl_idname = "footprint.delete"
    bl_label = "Delete Footprints"

    close_gap: BoolProperty(name="Close Gap", default=True,
                            description="Move later footprints earlier by the step times of the deleted ones")

    def edit(self, context, coll, objs, track, mask):
        result = edits.delete(track, mask, self.close_gap)
        kept = [o for o, sel in zip(objs, mask) if not sel]
        scene_io.validate_objects(coll, result, kept)
        for obj, sel in zip(objs, mask):
            if sel:
                bpy.data.objects.remove(obj)
        scene_io.write_track(coll, result, kept)
        return f"Deleted {sum(mask)} footprints"


classes = (FOOTPRINT_OT_retime, FOOTPRINT_OT_mirror, FOOTPRINT_OT_delete)
