"""Creating tracks."""

import bpy
from bpy.props import EnumProperty, StringProperty

from .. import scene_io
from ..properties import GAIT_ITEMS, PRESET_ITEMS


class FOOTPRINT_OT_track_new(bpy.types.Operator):
    """Create a footprint track: a collection for footprints with a character, a terrain and a gait"""

    bl_idname = "footprint.track_new"
    bl_label = "New Footprint Track"
    bl_options = {"REGISTER", "UNDO"}

    name: StringProperty(name="Name", default="Footprints",
                         description="Name of the track's new collection (Blender adds a number if it is taken)")
    character: EnumProperty(name="Character", items=PRESET_ITEMS, default="human",
                            description="Character preset the track is solved for: leg lengths, hip width, "
                            "foot size")
    gait: EnumProperty(name="Gait", items=GAIT_ITEMS, default="walk",
                       description="How footprints added to the track are timed from their step lengths")
    terrain: StringProperty(name="Terrain", description="Terrain mesh object; empty: the active mesh, if any")

    def execute(self, context):
        terrain = bpy.data.objects.get(self.terrain) if self.terrain else None
        if self.terrain and (terrain is None or terrain.type != "MESH"):
            self.report({"ERROR"}, f"Terrain {self.terrain!r} is not a mesh object in this file")
            return {"CANCELLED"}
        if terrain is None and context.active_object is not None and context.active_object.type == "MESH":
            terrain = context.active_object
        coll = scene_io.new_track(context, self.name, self.character, terrain, self.gait)
        self.report({"INFO"}, f"Created footprint track {coll.name!r}")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_track_new,)
