"""Footprints from animation: an action's foot plants as a footprint track, and that track baked again with the
original's upper body layered over it (issue 20, item 4)."""

import bpy
from bpy.props import StringProperty

from ...solver.motion import report_warnings
from .. import extraction
from ..rigs import MissingBonesError
from .bake_ops import BAKE_ERRORS, chosen_rig
from .common import USER_ERRORS, OnActiveTrack

EXTRACT_ERRORS = USER_ERRORS + (MissingBonesError, extraction.ExtractionError)


class FOOTPRINT_OT_extract_footprints(bpy.types.Operator):
    """Make a footprint track of the foot plants in a rig's action (mocap or keyframed): move footprints or put terrain under them, then bake it again"""

    # A plant is a foot slow and low for a tenth of a second (solver.planning.extraction); running it again on
    # the same rig and action rewrites that track's footprints only.

    bl_idname = "footprint.extract_footprints"
    bl_label = "Footprints from Animation"
    bl_options = {"REGISTER", "UNDO"}

    rig: StringProperty(name="Rig", description="Armature object; empty: the active object")
    action: StringProperty(name="Action", description="Action to read the feet from; empty: the rig's active action")
    terrain: StringProperty(name="Terrain", description="Mesh the feet stand on; empty, with no terrain collection "
                                                        "either: the active track's terrain (none: the lowest point "
                                                        "a foot reaches is the ground)")
    terrain_collection: StringProperty(name="Terrain Collection", description="Collection of meshes the feet stand "
                                                                              "on; empty: see Terrain")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop_search(self, "rig", bpy.data, "objects")
        layout.prop_search(self, "action", bpy.data, "actions")
        layout.prop_search(self, "terrain", bpy.data, "objects")
        layout.prop_search(self, "terrain_collection", bpy.data, "collections")

    def execute(self, context):
        rig = chosen_rig(self, context)
        if rig is None:
            return {"CANCELLED"}
        try:
            terrain = self._named(bpy.data.objects, self.terrain, "mesh object", lambda o: o.type == "MESH")
            ground = self._named(bpy.data.collections, self.terrain_collection, "collection",
                                 lambda c: not c.footprint_track.is_track)
            action = extraction.find_action(rig, self.action)
            coll, track = extraction.extract_to_track(context, rig, action, terrain, ground)
        except EXTRACT_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing extracted")
            return {"CANCELLED"}
        counts = ", ".join(f"{int((track.feet == foot).sum())} {foot}" for foot in dict.fromkeys(track.feet))
        self.report({"INFO"}, f"{len(track)} footprints ({counts}) from {action.name!r} on {rig.name} into "
                              f"{coll.name!r}, {track.contact.min():.2f} s to {track.liftoff.max():.2f} s")
        return {"FINISHED"}

    @staticmethod
    def _named(blocks, name, kind, fits):
        """The data-block named (None for no name); ExtractionError unless it exists and fits."""
        if not name:
            return None
        block = blocks.get(name)
        if block is None or not fits(block):
            raise extraction.ExtractionError(f"terrain {name!r} is not a {kind} in this file")
        return block


class FOOTPRINT_OT_bake_extracted(OnActiveTrack, bpy.types.Operator):
    """Bake the active track, made by Footprints from Animation, onto its rig and layer the original action's upper body (spine, neck, head, arms) above it"""

    # The legs and body come from the footprints as they are now, the upper body from the original action: a
    # strip of its own above the bake's. The original stops being the rig's active action (the track keeps it).

    bl_idname = "footprint.bake_extracted"
    bl_label = "Bake with Original Upper Body"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context, coll):
        try:
            strip, motion, layer, curves = extraction.bake_with_upper_body(context, coll)
        except BAKE_ERRORS + (extraction.ExtractionError,) as exc:
            self.report({"ERROR"}, f"{exc}: nothing baked")
            return {"CANCELLED"}
        rig = coll.footprint_track.rig
        upper = (f"the original's upper body layered above it ({curves} F-curves, strip {layer.name!r})"
                 if layer is not None else "the original keys no upper-body bone: nothing layered")
        warnings = report_warnings(motion.report)
        self.report({"WARNING"} if warnings else {"INFO"},
                    ". ".join([f"Baked {coll.name!r} onto {rig.name} (strip {strip.name!r}, frames "
                               f"{strip.frame_start:.0f}-{strip.frame_end:.0f}), {upper}", *warnings]))
        return {"FINISHED"}


classes = (FOOTPRINT_OT_extract_footprints, FOOTPRINT_OT_bake_extracted)
