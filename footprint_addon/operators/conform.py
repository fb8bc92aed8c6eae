"""Conforming footprints to the terrain: height and tilt from the surface below (vdP97 §2.1)."""

import bpy
from bpy.props import BoolProperty

from .. import scene_io
from ..terrain import track_probe
from .common import USER_ERRORS, OnActiveTrack, selected_mask


def conform_objects(context, coll, objs):
    """Snap the given footprints of a track to its terrain (its terrain object and collection); all or
    nothing (NoTerrainError names misses). Returns the probe cast on (it names the terrain)."""
    probe = track_probe(context, coll)
    if probe is None:
        raise scene_io.NoTerrainError(f"track {coll.name!r} has no terrain object or collection")
    track = scene_io.read_track(coll, objs)
    conformed, tilt = scene_io.conform_track(track, probe, [o.name for o in objs])
    scene_io.write_track(coll, conformed, objs, tilt)
    return probe


class FOOTPRINT_OT_conform(OnActiveTrack, bpy.types.Operator):
    """Snap footprints to the terrain: height and tilt follow the surface below. Use after editing the terrain"""

    bl_idname = "footprint.conform"
    bl_label = "Conform to Terrain"
    bl_options = {"REGISTER", "UNDO"}

    selected_only: BoolProperty(name="Selected Only", default=False,
                                description="Conform only the selected footprints, not the whole track")

    def run(self, context, coll):
        objs = scene_io.footprints(coll)
        if self.selected_only:
            objs = [o for o, sel in zip(objs, selected_mask(context, objs)) if sel]
        if not objs:
            self.report({"WARNING"}, "No footprints to conform")
            return {"CANCELLED"}
        try:
            probe = conform_objects(context, coll, objs)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing changed")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Conformed {len(objs)} footprints to {probe.name}")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_conform,)
