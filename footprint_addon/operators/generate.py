"""Generating a track along a curve object: a biped's steps (vdP97 §2.1, Fig. 4) with automatic timing (§4.1,
Fig. 12), or a quadruped's gait at a speed (Torkos 1998 §3.4: footprints along a path), jumping the gaps and
obstacles its terrain meshes have on the way; the path bent around an obstacles collection's objects (issue 20)."""

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from mathutils import geometry

from ...solver.character import preset
from ...solver.errors import FootprintError, PathError, PlanningError
from ...solver.footprints import footpath
from ...solver.footprints.timing import timing_for_sequence
from ...solver.planning.four_legs.around import path_around
from ...solver.planning.obstacles import bend_path, feet_on_obstacles, path_clearance
from ...solver.quadruped import gait_track, gaits, jumps as jumps_module
from ...solver.quadruped.ground import PathGround, Polyline
from ...solver.running import parameters
from ...solver.terrain import FlatTerrain
from ...solver.track import make_track, validate
from .. import scene_io
from ..properties import GAIT_ITEMS, PRESET_ITEMS
from ..terrain import TerrainProbe, terrain_objects
from .common import USER_ERRORS
from .planning_ops import obstacles_of

BEZIER_RESOLUTION = 64  # polyline points per Bezier segment; tangents are interpolated between them
TREAD_REACH = 0.45  # steps: how far a footprint may move onto a tread (under half: the order stays)
SCAN = 0.01  # metres between the ground's samples under a quadruped's path when looking for jumps: a gap's or
# an obstacle's stretch is found to within this (its footprints keep half a foot and 2 cm from it: jumps.py)
FILL_TRIES = 8  # layouts tried to end the body at the curve's end (each drops the strides that overshoot)
QUADRUPED_GAIT_ITEMS = [("auto", "Auto", "By speed, as animals choose (Alexander and Jayes 1983): walk up to Froude "
                                         "0.5, trot up to 2.5, then gallop (rotary for the dog and cat)")] + [
    (name, name.replace("_", " ").title(), f"The {name.replace('_', ' ')} (Torkos 1998 §3.3; Hildebrand's footfalls)")
    for name in gaits.GAITS]


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
    obstacles: StringProperty(name="Obstacles",
                              description="Collection of obstacles (walls, posts, furniture): the curve's path bent "
                                          "around them, the feet kept off them and the body clear; empty: none")
    # Quadrupeds (dog, cat, horse): a gait at a speed instead of steps
    quadruped_gait: EnumProperty(name="Gait", items=QUADRUPED_GAIT_ITEMS, default="auto",
                                 description="Quadruped: the footfall pattern; Auto picks it from the speed, so a "
                                             "changing speed walks, trots and gallops")
    speed: FloatProperty(name="Speed", default=2.0, min=0.05, soft_max=15.0, unit="VELOCITY",
                         description="Quadruped: speed along the ground, metres per second (sets stride and "
                                     "timing: Alexander's stride = 2.3 hip height x Froude^0.3)")
    change_speed: BoolProperty(name="Change Speed", default=False,
                               description="Quadruped: the speed changes evenly along the curve from Speed to "
                                           "End Speed, a stride at a time (with Gait Auto: walk, trot, gallop)")
    end_speed: FloatProperty(name="End Speed", default=6.0, min=0.05, soft_max=15.0, unit="VELOCITY",
                             description="Quadruped, Change Speed: the speed at the curve's end, metres per second")
    distance: FloatProperty(name="Distance", default=10.0, min=0.01, soft_max=100.0, unit="LENGTH",
                            description="Quadruped, without Fill Curve: how far the body travels along the curve "
                                        "(past its end: straight on)")
    stand_start: BoolProperty(name="Start Standing", default=True,
                              description="Quadruped: start standing on all four feet at the curve's start, the "
                                          "body at rest, and gather speed over a stride or more")
    stand_stop: BoolProperty(name="Stop Standing", default=True,
                             description="Quadruped: slow down to standing on all four feet, the body at rest "
                                         "where the track ends")
    jump: BoolProperty(name="Jump Gaps and Obstacles", default=True,
                       description="Quadruped on terrain meshes: where the curve crosses no ground (a gap) or "
                                   "ground more than a quarter of the hip height higher (or lower) that comes "
                                   "back within a body length (an obstacle), or a riser that high (a ledge), the "
                                   "gait flies over it with its own flight")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        layout.prop_search(self, "curve", bpy.data, "objects")
        layout.prop(self, "character")
        if _is_quadruped(self.character):
            layout.prop(self, "quadruped_gait")
            layout.prop(self, "speed")
            layout.prop(self, "change_speed")
            if self.change_speed:
                layout.prop(self, "end_speed")
            layout.prop(self, "fill")
            if not self.fill:
                layout.prop(self, "distance")
            layout.prop(self, "stand_start")
            layout.prop(self, "stand_stop")
            layout.prop(self, "jump")
            layout.prop_search(self, "obstacles", bpy.data, "collections")
            for name in BIPED_ONLY:  # set, they make the operator refuse: shown so they can be turned off
                if getattr(self, name):
                    row = layout.row()
                    row.alert = True
                    row.prop(self, name)
        else:
            layout.prop(self, "runner")
            if self.runner:
                layout.prop(self, "speed_kmh")
                layout.prop(self, "run_start")
                layout.prop(self, "run_stop")
            else:
                layout.prop(self, "gait")
                layout.prop(self, "step_length")
            layout.prop(self, "step_width")
            layout.prop(self, "start_foot")
            layout.prop(self, "fill")
            if not self.fill:
                layout.prop(self, "steps")
            layout.prop_search(self, "obstacles", bpy.data, "collections")
        layout.prop(self, "new_track")
        layout.prop_search(self, "terrain", bpy.data, "objects")
        layout.prop_search(self, "terrain_collection", bpy.data, "collections")
        layout.prop(self, "start_time")

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
        around = bpy.data.collections.get(self.obstacles) if self.obstacles else None
        if self.obstacles and around is None:
            self.report({"ERROR"}, f"Obstacles collection {self.obstacles!r} is not in this file")
            return {"CANCELLED"}
        depsgraph = context.evaluated_depsgraph_get()
        character = preset(self.character)
        if character.is_quadruped:
            biped = [name for name in BIPED_ONLY if getattr(self, name)]
            if biped:
                shown = ", ".join(self.properties.bl_rna.properties[name].name for name in biped)
                self.report({"ERROR"}, f"{shown}: for bipeds; {self.character!r} is a quadruped (give it a Gait "
                                       "and a Speed)")
                return {"CANCELLED"}
            try:
                track, tilt, summary = self._quadruped(curve, depsgraph, character, terrain, ground, around)
            except USER_ERRORS as exc:
                self.report({"ERROR"}, f"Curve {curve.name!r}: {exc}")
                return {"CANCELLED"}
            coll, _objs = self._write(context, curve, old, terrain, ground, track, tilt, "walk")
            self.report({"INFO"}, f"{len(track)} footprints along {curve.name} in {coll.name!r}: {summary}")
            return {"FINISHED"}
        try:
            stride = parameters.natural(self.speed_kmh) if self.runner else None
            points, corners = curve_polyline(curve, depsgraph)
            bent, obstacles = bent_around(points, around, depsgraph, character)
            corners = corners or not np.array_equal(bent, points)  # a detour's corners: the feet turn at them
            points = bent
            step = stride.step_length if stride else self.step_length
            path = footpath.Path(points, step if corners else None)
            if stride:  # B&C 1996 eqs. 1-6: step lengths and times from the running parameters
                count = int(path.length / stride.step_length) + 1 if self.fill else self.steps
                run = parameters.running_track(stride, count, self.step_width, self.run_start, self.run_stop)
                while run.positions[:, 1].max() > path.length and count > 1:  # ramps take shorter steps
                    count -= 1
                    run = parameters.running_track(stride, count, self.step_width, self.run_start, self.run_stop)
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
            feet_off(track, obstacles, character)
            tilt = None
            if probe is not None:
                labels = [f"step {i} ({f})" for i, f in enumerate(feet)]
                track, tilt = scene_io.conform_track(track, probe, labels)
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"Curve {curve.name!r}: {exc}")
            return {"CANCELLED"}
        coll, objs = self._write(context, curve, old, terrain, ground, track, tilt, "run" if self.runner else self.gait)
        if len(straddling):
            names = ", ".join(objs[i].name for i in straddling)
            self.report({"WARNING"}, f"{names}: no tread within {TREAD_REACH * step:.2f} m along {curve.name} "
                                     f"takes the whole foot ({character.foot_length:.2f} m): left across a step")
        else:
            self.report({"INFO"}, f"{len(track)} footprints along {curve.name} in {coll.name!r}")
        return {"FINISHED"}

    def _write(self, context, curve, old, terrain, ground, track, tilt, gait):
        """The track into a new collection or the active one (its footprints replaced); the collection and the
        footprint objects in the track's order."""
        if self.new_track:
            coll = scene_io.new_track(context, f"{curve.name} footprints", self.character, terrain, gait, ground)
        else:
            coll = old
            for obj in scene_io.footprints(coll):
                bpy.data.objects.remove(obj)
            settings = coll.footprint_track
            settings.character, settings.character_json = self.character, ""
            settings.gait = gait
            settings.terrain, settings.terrain_collection = terrain, ground
        return coll, scene_io.write_track(coll, track, tilt=tilt)

    def _quadruped(self, curve, depsgraph, character, terrain, ground, around=None):
        """A quadruped's gait along the curve (the path of its body), on the terrain meshes and over the jumps
        they need: (track, tilt or None, a summary for the report); FootprintError naming what is wrong."""
        points, _corners = curve_polyline(curve, depsgraph)  # a Poly curve's vertices: the spline's points (Torkos
        obstacles = obstacles_of(around, depsgraph, character, points[:, 2].min(), points[:, 2].max())[0] \
            if around is not None else None
        if obstacles is not None and len(obstacles):  # the body's path bent round them, its corners rounded
            bent = path_around(points, obstacles, character)
            points = np.column_stack([bent, np.full(len(bent), points[0, 2])])
        path = Polyline(points)  # §3.4 runs a Catmull-Rom spline through them)
        objects = terrain_objects(terrain, ground)
        probe = TerrainProbe(objects, depsgraph) if objects else None
        length = path.length if self.fill else self.distance
        if probe is None:  # level ground at the curve's start
            floor, found = FlatTerrain(float(points[0, 2])), []
        else:
            floor, found = _probe_ground(probe, path, character, length)
            if not self.jump:
                found = []

        def sections(distance):
            if self.change_speed:
                return gait_track.ramp_sections(character, self.quadruped_gait, self.speed, self.end_speed, distance)
            return [gait_track.Section(self.quadruped_gait, self.speed, distance)]

        spans, jumps = PathGround(terrain=floor, path=path), []  # (whatever distance the gait goes)
        for number, stretch in enumerate(found, 1):  # each in metres along the ground, the ones before flown
            start, size = spans.span(stretch.u0, stretch.u1)
            jumps.append(jumps_module.Jump(start, size, stretch.height, f"{stretch.kind} {number}"))
            spans = PathGround(terrain=floor, path=path, spans=[(j.start, j.length) for j in jumps])

        def lay_out(distance):
            return gait_track.layout(character, sections(distance), preset_name=self.character, terrain=floor,
                                     jumps=jumps, path=path, stand=(self.stand_start, self.stand_stop))

        distance = length
        laid = lay_out(distance)
        for _ in range(FILL_TRIES if self.fill else 0):  # the body's last mid-stance (rest) at the curve's end at most
            over = float(laid.along.max()) - length
            if over <= 1e-6:
                break
            distance -= over + 1e-3
            if distance <= 0:
                gait = gaits.choose(self.quadruped_gait, self.speed, character)
                stride = gaits.stride_of(gait, self.speed, character)
                raise FootprintError(f"the curve is {length:.2f} m long, shorter than one stride of the gait at "
                                     f"{self.speed:g} m/s ({stride:.2f} m)")
            laid = lay_out(distance)
        track = validate(laid.track, allowed_feet=character.feet)
        feet_off(track, obstacles if obstacles is not None and len(obstacles) else None, character)
        tilt = None
        if probe is not None:
            labels = [f"footprint {i} ({foot})" for i, foot in enumerate(track.feet)]
            track, tilt = scene_io.conform_track(track, probe, labels)
        names = []
        for section in sections(distance):
            name = gaits.choose(section.gait, section.speed, character).name
            if not names or names[-1] != name:
                names.append(name)
        speeds = f"{self.speed:g} to {self.end_speed:g} m/s" if self.change_speed else f"{self.speed:g} m/s"
        summary = f"{' -> '.join(names)} at {speeds}"
        if laid.flights:
            summary += "; " + ", ".join(f"{f.jump.name} {f.jump.start:.2f} m along: a {f.gait} flight of "
                                        f"{f.duration:.2f} s" for f in laid.flights)
        return track, tilt, summary


def bent_around(points, collection, depsgraph, character):
    """(points, obstacles): the curve's points (N, 3) bent around the collection's obstacles (those in the
    body's height over the curve), keeping the body's path clearance from them (obstacles.bend_path), and the
    solver's Obstacles; the points as they were and None without a collection or an obstacle in it."""
    if collection is None:
        return points, None
    obstacles, _objects = obstacles_of(collection, depsgraph, character, points[:, 2].min(), points[:, 2].max())
    if not len(obstacles):
        return points, None
    return bend_path(points, obstacles, path_clearance(character)), obstacles


def feet_off(track, obstacles, character):
    """PlanningError naming the first footprint whose sole is inside an obstacle (obstacles.feet_on_obstacles)."""
    on = feet_on_obstacles(track, obstacles, character)
    if on is not None:
        raise PlanningError(f"{on} even with the path bent round it")


BIPED_ONLY = ("runner", "run_start", "run_stop")  # options a quadruped refuses (its gait and speed are its own; a
# path bent round obstacles is rounded for its long body: four_legs.around.path_around)


def _is_quadruped(name):
    try:
        return preset(name).is_quadruped
    except FootprintError:
        return False


class _RayGround:
    """The terrain meshes as a gait's ground (ground.PathGround's terrain): the height straight below each
    point by ray casts; where none hits (a gap, past a mesh's edge) `fill`. Its spacing only sets how finely
    PathGround samples the path: every spacing / 4 = SCAN metres from its start, on the jump scan's own
    samples, so each jump's ends (scan samples) are path samples and its take-off's metric is the ground's
    before the riser, not one across it."""

    spacing = 4 * SCAN

    def __init__(self, probe, fill):
        self.probe, self.fill = probe, fill

    def heights(self, xy):
        xy = np.asarray(xy, dtype=float)
        hit, points, _normals = self.probe.project(xy.reshape(-1, 2))
        return np.where(hit, points[:, 2], self.fill).reshape(xy.shape[:-1])


def _probe_ground(probe, path, character, length):
    """The ground under a quadruped's path (a _RayGround, its gaps at the lowest ground found) and the
    stretches it must jump (jumps.find) over the first `length` metres and a body length beyond: the ground
    sampled every SCAN metres under the centreline and the feet's lines either side (the hips' half width
    out); a step a quarter of the hip height (gait_track.STEP), a short stretch a body length (hind to fore
    hips: shorter, no four feet stand on it: it is jumped over; longer, jumped onto and off)."""
    width = float(np.abs(character.hip_offsets[:, 0]).max())
    body = float(np.ptp(character.hip_offsets[:, 1]))
    u = np.arange(0.0, max(length, SCAN) + body + SCAN / 2, SCAN)
    centre, heading = path.centre(u)
    right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
    lines = np.stack([centre + side * width * right for side in (-1.0, 0.0, 1.0)])
    hit, points, _normals = probe.project(lines.reshape(-1, 2))
    z = np.where(hit, points[:, 2], np.nan).reshape(3, len(u))
    if not hit.any():
        raise FootprintError(f"no terrain under the curve (terrain {probe.name!r})")
    found = jumps_module.find(u, z, gait_track.STEP * character.leg_length_nominal, body)
    return _RayGround(probe, float(np.nanmin(z))), found


classes = (FOOTPRINT_OT_generate_along_curve,)
