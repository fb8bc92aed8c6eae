"""Placing single footprints: by clicking on the terrain, or at the 3D cursor."""

import bpy
import numpy as np
from bpy.props import FloatVectorProperty
from bpy_extras import view3d_utils
from mathutils import Vector

from ...solver.footprints.footpath import tilt_from_normals
from ...solver.footprints.placement import append_step
from ...solver.track import validate
from .. import scene_clock, scene_io
from ..terrain import track_probe
from .common import USER_ERRORS, OnActiveTrack, require_track


def cast_onto_terrain(context, coll, origin, direction):
    """(location, normal) where the ray first meets the track's terrain (or any scene geometry)."""
    probe = track_probe(context, coll)
    if probe is not None:
        return probe.cast(origin, direction)
    depsgraph = context.evaluated_depsgraph_get()
    hit, location, normal, *_ = context.scene.ray_cast(depsgraph, Vector(origin), Vector(direction).normalized())
    return (location, normal) if hit else None


def add_footprint(context, coll, location, normal):
    """Append a footprint at a terrain point, tilted to the normal; validated before anything is written."""
    objs = scene_io.footprints(coll)
    track = scene_io.read_track(coll, objs)
    character = scene_io.character_of(coll)
    start = scene_clock.seconds(context.scene)
    new_track = append_step(track, tuple(location), character, coll.footprint_track.gait, start=start)
    validate(new_track, allowed_feet=character.feet, labels=[o.name for o in objs] + ["(new footprint)"])
    new_obj = scene_io.create_footprint(coll, str(new_track.feet[-1]), character)
    pitch, roll = tilt_from_normals(np.asarray(normal, dtype=float), new_track.headings[-1])
    scene_io.write_track(coll, new_track.take(slice(None, -1)), objs)
    scene_io.write_footprint(new_obj, str(new_track.feet[-1]), new_track.positions[-1], new_track.headings[-1],
                             new_track.contact[-1], new_track.liftoff[-1], float(pitch), float(roll))
    for o in context.selected_objects:
        o.select_set(False)
    new_obj.select_set(True)
    context.view_layer.objects.active = new_obj
    return new_obj


class FOOTPRINT_OT_add_on_terrain(OnActiveTrack, bpy.types.Operator):
    """Click on the terrain to add footprints, feet alternating and timing filled in (Esc or right-click ends)"""

    bl_idname = "footprint.add_on_terrain"
    bl_label = "Add Footprints by Clicking"
    bl_options = {"REGISTER", "UNDO"}

    # The click's view ray, set by the modal tool (or a script): internal, so kept out of the redo panel.
    ray_origin: FloatVectorProperty(name="Ray Origin", subtype="XYZ", options={"HIDDEN", "SKIP_SAVE"},
                                    description="World-space start of the ray cast onto the terrain (metres)")
    ray_direction: FloatVectorProperty(name="Ray Direction", subtype="XYZ", default=(0.0, 0.0, -1.0),
                                       options={"HIDDEN", "SKIP_SAVE"},
                                       description="World-space direction of the ray cast onto the terrain")

    def place(self, context):
        coll = require_track(self, context)
        if coll is None:
            return None
        try:
            hit = cast_onto_terrain(context, coll, self.ray_origin, self.ray_direction)
            if hit is None:
                self.report({"ERROR"}, "No terrain under the cursor: nothing added")
                return None
            return add_footprint(context, coll, *hit)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, str(exc))
            return None

    def execute(self, context):
        return {"FINISHED"} if self.place(context) is not None else {"CANCELLED"}

    def invoke(self, context, event):
        if context.area is None or context.area.type != "VIEW_3D":
            self.report({"ERROR"}, "Click placement needs a 3D Viewport")
            return {"CANCELLED"}
        self.placed = 0
        context.window.cursor_modal_set("CROSSHAIR")
        context.workspace.status_text_set("Footprints: click the terrain to add, Esc / right-click to finish")
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def finish(self, context):
        context.window.cursor_modal_restore()
        context.workspace.status_text_set(None)
        # Every click pushed its own undo step; ending the tool adds none.
        return {"CANCELLED"}

    def modal(self, context, event):
        if event.type in {"ESC", "RIGHTMOUSE"} and event.value == "PRESS":
            return self.finish(context)
        if event.type == "LEFTMOUSE" and event.value == "PRESS":
            region, rv3d = context.region, context.region_data
            coord = (event.mouse_region_x, event.mouse_region_y)
            self.ray_origin = view3d_utils.region_2d_to_origin_3d(region, rv3d, coord)
            self.ray_direction = view3d_utils.region_2d_to_vector_3d(region, rv3d, coord)
            if self.place(context) is not None:
                self.placed += 1
                bpy.ops.ed.undo_push(message="Add Footprint")
            return {"RUNNING_MODAL"}
        return {"PASS_THROUGH"}


class FOOTPRINT_OT_add_at_cursor(OnActiveTrack, bpy.types.Operator):
    """Add a footprint at the 3D cursor, on the terrain below it, feet alternating and timing filled in"""

    bl_idname = "footprint.add_at_cursor"
    bl_label = "Add Footprint at Cursor"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context, coll):
        cursor = context.scene.cursor.location.copy()
        location, normal = cursor, Vector((0.0, 0.0, 1.0))
        try:
            probe = track_probe(context, coll)
            if probe is not None:
                hit = probe.cast((cursor.x, cursor.y, probe.top), (0.0, 0.0, -1.0))
                if hit is None:
                    self.report({"ERROR"}, f"No terrain ({probe.name}) under the 3D cursor: nothing added")
                    return {"CANCELLED"}
                location, normal = hit
            add_footprint(context, coll, location, normal)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        return {"FINISHED"}


classes = (FOOTPRINT_OT_add_on_terrain, FOOTPRINT_OT_add_at_cursor)
