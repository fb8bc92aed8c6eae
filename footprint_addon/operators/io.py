"""Import and export of footprint tracks as JSON (track-format.md)."""

import json
import os

import bpy
import numpy as np
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ...solver.character import PRESETS, QUADRUPED_FEET
from ...solver.footprints.footpath import tilt_from_normals
from ...solver.track import dumps, load_track, track_to_json
from .. import scene_clock, scene_io
from ..files import write_atomically
from ..terrain import TerrainProbe, terrain_objects
from .common import USER_ERRORS, OnActiveTrack


def imported_terrain(context, track):
    """(object, collection) the track stands on: those a file names, where this scene has them; else the
    active track's."""
    named = track.extras.get("terrain")
    if isinstance(named, dict) and (isinstance(named.get("object"), str) or isinstance(named.get("collection"), str)):
        obj = bpy.data.objects.get(named.get("object") or "")
        coll = bpy.data.collections.get(named.get("collection") or "")
        obj = obj if obj is not None and obj.type == "MESH" else None
        coll = coll if coll is not None and not coll.footprint_track.is_track else None
        if obj is not None or coll is not None:
            return obj, coll
    current = scene_io.active_track(context)
    if current is None:
        return None, None
    return current.footprint_track.terrain, current.footprint_track.terrain_collection


def place_on_terrain(context, track, terrain):
    """Heights for footprints given as [x, y] and tilts for all, from the terrain's objects (a tuple, maybe
    empty); (track, tilt)."""
    if not terrain:
        return track, None  # [x, y] footprints stay at height 0, as the format says
    probe = TerrainProbe(terrain, context.evaluated_depsgraph_get())
    hit, points, normals = probe.project(track.positions[:, :2])
    missing = np.flatnonzero(~hit & ~track.has_height)
    if missing.size:
        raise scene_io.NoTerrainError(f"footprint {missing[0]} has no height and no terrain ({probe.name}) below it")
    positions = track.positions.copy()
    positions[~track.has_height, 2] = points[~track.has_height, 2]
    return track.replace(positions=positions), tilt_from_normals(normals, track.headings)


class FOOTPRINT_OT_import_json(bpy.types.Operator, ImportHelper):
    """Import a footprint track from a JSON file as a new track"""

    bl_idname = "footprint.import_json"
    bl_label = "Import Footprint Track"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={"HIDDEN"})

    def execute(self, context):
        try:
            track = load_track(self.filepath)
            terrain, terrain_collection = imported_terrain(context, track)
            track, tilt = place_on_terrain(context, track, terrain_objects(terrain, terrain_collection))
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing imported")
            return {"CANCELLED"}
        name = os.path.splitext(os.path.basename(self.filepath))[0]
        character = track.character
        fallback = "dog" if set(track.feet) <= set(QUADRUPED_FEET) else "human"  # (a preset of its kind)
        preset_name = character if isinstance(character, str) else character.get("preset", fallback)
        coll = scene_io.new_track(context, name, preset_name if preset_name in PRESETS else fallback, terrain,
                                  terrain_collection=terrain_collection)
        if not isinstance(character, str):
            coll.footprint_track.character_json = json.dumps(character)
        scene_io.set_motion(coll, track)
        scene_io.write_track(coll, track.take(track.time_order()), tilt=None if tilt is None else
                             tuple(t[track.time_order()] for t in tilt))
        self.report({"INFO"}, f"Imported {len(track)} footprints into {coll.name!r}")
        return {"FINISHED"}


def export_text(context, coll) -> str:
    objs = scene_io.footprints(coll)
    track = scene_io.read_track(coll, objs)
    scene_io.validate_objects(coll, track, objs)
    settings = coll.footprint_track
    extras = {"fps": scene_clock.fps(context.scene), **track.extras}  # (the motion mark)
    named = {key: value.name for key, value in (("object", settings.terrain),
                                                 ("collection", settings.terrain_collection)) if value is not None}
    if named:
        extras["terrain"] = named
    return dumps(track_to_json(track.replace(extras=extras), number=scene_io.stored_decimal))


class FOOTPRINT_OT_export_json(OnActiveTrack, bpy.types.Operator, ExportHelper):
    """Export the active footprint track to a JSON file"""

    bl_idname = "footprint.export_json"
    bl_label = "Export Footprint Track"
    bl_options = {"REGISTER"}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={"HIDDEN"})

    def run(self, context, coll):
        try:
            text = export_text(context, coll)
            write_atomically(self.filepath, text)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing written")
            return {"CANCELLED"}
        except OSError as exc:
            self.report({"ERROR"}, f"Cannot write {self.filepath}: {exc}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {coll.name!r} to {self.filepath}")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_import_json, FOOTPRINT_OT_export_json)
