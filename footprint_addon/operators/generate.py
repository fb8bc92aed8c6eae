"""Generating a track along a curve object (vdP97 §2.1, Fig. 4) with automatic timing (§4.1, Fig. 12)."""

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from mathutils import geometry

from ...solver import footpath, running
from ...solver.character import preset
from ...solver.errors import PathError
from ...solver.timing import timing_for_sequence
from ...solver.track import make_track, validate
from .. import scene_io
from ..properties import GAIT_ITEMS, PRESET_ITEMS
from ..terrain import TerrainProbe, terrain_objects
from .common import USER_ERRORS

BEZIER_RESOLUTION = 64  # polyline points per Bezier segment; tangents are interpolated between them
TREAD_REACH = 0.45  # steps: how far a footprint may move onto a tread (under half: the order stays)


def curve_polyline(obj, depsgraph):
    """World-space points along the curve's first spline (Bezier segments sampled finely, else as evaluated),
    and whether its vertices are corners (a Poly spline: the footprints turn at them)."""
    splines = obj.data.splines
    if len(splines) == 0:
        raise PathError(f"curve {obj.name!r} has no splines")
    spline = splines[0]
    m = obj.matrix_world
    if spline.type == "BEZIER":
        pts = list(spline.bezier_points)
        pairs = list(zip(pts[:-1], pts[1:])) + ([(pts[-1], pts[0])] if spline.use_cyclic_u else [])
        samples = []
        for a, b in pairs:
            seg = geometry.interpolate_bezier(m @ a.co, m @ a.handle_right, m @ b.handle_left, m @ b.co,
                                              BEZIER_RESOLUTION + 1)
            samples.extend(seg if not samples else seg[1:])
        if not samples:
            samples = [m @ pts[0].co]
        return np.array([tuple(v) for v in samples], dtype=float), False
    if spline.type == "POLY":
        coords = [m @ p.co.to_3d() for p in spline.points]
        if spline.use_cyclic_u and coords:
            coords.append(coords[0])
        return np.array([tuple(v) for v in coords], dtype=float), True
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        return np.array([tuple(evaluated.matrix_world @ v.co) for v in mesh.vertices], dtype=float), False
    finally:
        evaluated.to_mesh_clear()


def onto_treads(path, s, lateral, probe, foot_length, reach):
    """Footprints at arc lengths s (sideways by lateral) that straddle a riser (footpath.on_one_tread) moved
    along the path, within reach, to where the whole foot is on one tread (footpath.nearest_fit). Returns
    the arc lengths and the indices of the footprints no move puts on one (a tread shorter than the foot)."""
    straddling = np.flatnonzero(~_on_one_tread(probe, *path.frames(s, lateral), foot_length))
    if len(straddling) == 0:
        return s, straddling
    moves = footpath.tread_moves(reach)
    tried = np.clip(s[straddling, None] + moves, 0.0, path.length)
    positions, headings = path.frames(tried.ravel(), np.repeat(lateral[straddling], len(moves)))
    fits = _on_one_tread(probe, positions, headings, foot_length).reshape(len(straddling), len(moves))
    move = footpath.nearest_fit(fits, moves)
    s = s.copy()
    s[straddling] = np.clip(s[straddling] + np.nan_to_num(move), 0.0, path.length)
    return s, straddling[np.isnan(move)]


def _on_one_tread(probe, positions, headings, foot_length):
    soles = footpath.sole_points(positions, headings, foot_length)
    hit, points, _normals = probe.project(soles.reshape(-1, 2))
    return footpath.on_one_tread(np.where(hit, points[:, 2], np.nan).reshape(soles.shape[:-1]))


class FOOTPRINT_OT_generate_along_curve(bpy.types.Operator):
    """Place a footprint track along the active curve: step length and width, start foot, timing from the gait"""

    bl_idname = "footprint.generate_along_curve"
    bl_label = "Footprints Along Curve"
    bl_options = {"REGISTER", "UNDO"}

    curve: StringProperty(name="Curve", description="Curve object; empty: the active object")
    step_length: FloatProperty(name="Step Length", default=0.7, min=0.01, soft_max=3.0, unit="LENGTH",
                               description="Distance along the curve between successive footprints")
    step_width: FloatProperty(name="Step Width", default=0.2, min=0.0, soft_max=1.0, unit="LENGTH",
                              description="Sideways distance between left and right footprints")
    start_foot: EnumProperty(name="Start Foot", default="L", description="The foot of the first footprint",
                             items=[("L", "Left", "The left foot steps first"),
                                    ("R", "Right", "The right foot steps first")])
    fill: BoolProperty(name="Fill Curve", default=True, description="As many steps as fit on the curve")
    steps: IntProperty(name="Steps", default=8, min=1, soft_max=200, description="Number of footprints")
    gait: EnumProperty(name="Gait", items=GAIT_ITEMS, default="walk",
                       description="How the footprints are timed from their step lengths (vdP97 §4.1)")
    runner: BoolProperty(name="RUNNER Run", default=False,
                         description="Step length and timing from Bruderlin and Calvert's running equations at "
                                     "the speed below (overrides step length and gait)")
    speed_kmh: FloatProperty(name="Speed (km/h)", default=12.0, min=3.0, max=40.0,
                             description="RUNNER Run: running speed, kilometres per hour (sets step length "
                             "and timing, B&C 1996 eqs. 1-6)")
    run_start: BoolProperty(name="Start Standing", default=False,
                            description="RUNNER run: accelerate from standing on both feet")
    run_stop: BoolProperty(name="Stop Standing", default=False,
                           description="RUNNER run: slow down to standing on both feet")
    character: EnumProperty(name="Character", items=PRESET_ITEMS, default="human",
                            description="Character preset of a new track: its leg length scales the timing")
    new_track: BoolProperty(name="New Track", default=True,
                            description="Make a new track; off: replace the active track's footprints")
    terrain: StringProperty(name="Terrain",
                            description="Terrain mesh; empty, with no terrain collection either: the active "
                                        "track's terrain")
    terrain_collection: StringProperty(name="Terrain Collection",
                                       description="Collection of terrain meshes; empty, with no terrain either: "
                                                   "the active track's")
    start_time: FloatProperty(name="Start Time", default=0.0, description="Contact time of the first footprint")

    def execute(self, context):
        curve = bpy.data.objects.get(self.curve) if self.curve else context.active_object
        if curve is None or curve.type != "CURVE":
            self.report({"ERROR"}, f"{self.curve or 'The active object'} is not a curve object")
            return {"CANCELLED"}
        old = scene_io.active_track(context)
        if self.terrain or self.terrain_collection:
            terrain = bpy.data.objects.get(self.terrain) if self.terrain else None
            ground = bpy.data.collections.get(self.terrain_collection) if self.terrain_collection else None
        elif old is not None:
            terrain, ground = old.footprint_track.terrain, old.footprint_track.terrain_collection
        else:
            terrain = ground = None
        if self.terrain and (terrain is None or terrain.type != "MESH"):
            self.report({"ERROR"}, f"Terrain {self.terrain!r} is not a mesh object in this file")
            return {"CANCELLED"}
        if self.terrain_collection and ground is None:
            self.report({"ERROR"}, f"Terrain collection {self.terrain_collection!r} is not in this file")
            return {"CANCELLED"}
        if not self.new_track and old is None:
            self.report({"ERROR"}, "No active footprint track to replace")
            return {"CANCELLED"}
        depsgraph = context.evaluated_depsgraph_get()
        character = preset(self.character)
        try:
            stride = running.natural(self.speed_kmh) if self.runner else None
            points, corners = curve_polyline(curve, depsgraph)
            step = stride.step_length if stride else self.step_length
            path = footpath.Path(points, step if corners else None)
            if stride:  # B&C 1996 eqs. 1-6: step lengths and times from the running parameters
                count = int(path.length / stride.step_length) + 1 if self.fill else self.steps
                run = running.running_track(stride, count, self.step_width, self.run_start, self.run_stop)
                while run.positions[:, 1].max() > path.length and count > 1:  # ramps take shorter steps
                    count -= 1
                    run = running.running_track(stride, count, self.step_width, self.run_start, self.run_stop)
                if run.positions[:, 1].max() > path.length + 1e-6:
                    raise PathError(f"the path is {path.length:.2f} m long, the footprints need "
                                    f"{run.positions[:, 1].max():.2f} m")
                flip = -1.0 if self.start_foot == "R" else 1.0  # a right-foot start mirrors the run
                s, lateral = run.positions[:, 1], -flip * run.positions[:, 0]
                feet = run.feet if flip > 0 else np.where(run.feet == "L", "R", "L")
                contact, liftoff = run.contact + self.start_time, run.liftoff + self.start_time
            else:
                s, lateral, feet = footpath.stations_along(
                    path.length, self.step_length, self.step_width, self.start_foot,
                    None if self.fill else self.steps, together=self.gait == "hop",
                )
            objects = terrain_objects(terrain, ground)
            probe = TerrainProbe(objects, depsgraph) if objects else None
            straddling = []
            if probe is not None:  # stairs: each whole foot on one tread
                s, straddling = onto_treads(path, s, lateral, probe, character.foot_length, TREAD_REACH * step)
            positions, headings = path.frames(s, lateral)
            if not stride:
                contact, liftoff = timing_for_sequence(
                    positions, self.gait, character.time_unit, character.leg_length_nominal, self.start_time,
                    group_size=2 if self.gait == "hop" else 1,
                )
            track = make_track(feet, positions, headings, contact, liftoff, character=self.character)
            validate(track, allowed_feet=character.feet)
            tilt = None
            if probe is not None:
                labels = [f"step {i} ({f})" for i, f in enumerate(feet)]
                track, tilt = scene_io.conform_track(track, probe, labels)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"Curve {curve.name!r}: {exc}")
            return {"CANCELLED"}
        if self.new_track:
            gait = "run" if self.runner else self.gait
            coll = scene_io.new_track(context, f"{curve.name} footprints", self.character, terrain, gait, ground)
        else:
            coll = old
            for obj in scene_io.footprints(coll):
                bpy.data.objects.remove(obj)
            settings = coll.footprint_track
            settings.character, settings.character_json = self.character, ""
            settings.gait = "run" if self.runner else self.gait
            settings.terrain, settings.terrain_collection = terrain, ground
        objs = scene_io.write_track(coll, track, tilt=tilt)
        if len(straddling):
            names = ", ".join(objs[i].name for i in straddling)
            self.report({"WARNING"}, f"{names}: no tread within {TREAD_REACH * step:.2f} m along {curve.name} "
                                     f"takes the whole foot ({character.foot_length:.2f} m): left across a step")
        else:
            self.report({"INFO"}, f"{len(track)} footprints along {curve.name} in {coll.name!r}")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_generate_along_curve,)
