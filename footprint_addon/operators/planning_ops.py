"""Footprints that plan themselves (issue 20): Plan Across Stones (onto the surfaces of a collection), Wander and
Follow (in a walled area, after a moving target), Optimise Timing of the active track; and the scene read as the
planners take it: footholds on meshes, obstacles' outlines on the ground, an area's outline, an animated empty's
path."""

import math

import bpy
import numpy as np
from mathutils import geometry

from ...solver.body import walking
from ...solver.character import preset
from ...solver.errors import PlanningError
from ...solver.planning import stones, wander
from ...solver.planning.footholds import FOOTHOLD_SPACING, Footholds
from ...solver.planning.obstacles import Obstacles
from ...solver.planning.target import Target
from ...solver.planning.timing_optimisation import optimise_timing
from .. import bake, scene_clock, scene_io
from ..rigs import MissingBonesError, bind
from ..terrain import TerrainProbe
from .common import USER_ERRORS, OnActiveTrack

FOOTHOLD_SLOPE = math.radians(30.0)  # the steepest face a foot lands on (its normal within this of up)
MAX_FOOTHOLDS = 1500  # the stone planner weighs every pair of footholds within a leap (memory and time grow as
# the square): past this many the grid is coarser
HEAD_HEIGHT = 2.0  # l_nom over the ground: an obstacle entirely higher is overhead (a human's stature is about 1.9
# hip heights: Drillis and Contini 1966, hip height 0.53 of stature)
GROUND_TOLERANCE = 0.01  # metres: an object reaching no higher than this over the ground is the ground itself
THIN = 0.005  # metres: an obstacle without area in plan (a wall made of one upright face) gets this half-thickness
MAX_TARGET_SAMPLES = 2000  # frames sampled along a target's path (every frame, up to this many)


# --- the scene as the planners take it ---------------------------------------------------------------


def _objects(collection):
    """The collection's objects (child collections too), by name; none without a collection."""
    return [] if collection is None else sorted(collection.all_objects, key=lambda o: o.name)


def world_vertices(obj, depsgraph):
    """(V, 3): the world coordinates of the object's evaluated mesh (modifiers included); None when it has
    none (an empty, a light, an object disabled in viewports)."""
    if depsgraph.objects.get(obj.name) is None:
        return None
    evaluated = obj.evaluated_get(depsgraph)
    try:
        mesh = evaluated.to_mesh()
    except RuntimeError:  # an object type without geometry
        return None
    try:
        local = np.empty(3 * len(mesh.vertices)) if mesh is not None else np.empty(0)
        if len(local):
            mesh.vertices.foreach_get("co", local)
    finally:
        evaluated.to_mesh_clear()
    if not len(local):
        return None
    matrix = np.array(evaluated.matrix_world)
    return local.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]


def outline(points):
    """(K, 2): the convex hull in plan of points (V, 3); a hull without area (a wall as one upright face, a
    post as a line) widened by THIN all round."""
    plan = np.asarray(points, dtype=float)[:, :2]
    hull = plan[geometry.convex_hull_2d([tuple(p) for p in plan])]
    after = np.roll(hull, -1, axis=0)
    area = 0.5 * abs((hull[:, 0] * after[:, 1] - hull[:, 1] * after[:, 0]).sum())  # the shoelace formula
    if area > 1e-8:
        return hull
    widened = (plan[:, None] + THIN * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])[None]).reshape(-1, 2)
    return widened[geometry.convex_hull_2d([tuple(p) for p in widened])]


def obstacles_of(collection, depsgraph, character, lowest, highest):
    """(Obstacles, their objects): each of the collection's objects reaching into the room a character needs
    on ground from `lowest` to `highest` (not entirely at or below the lowest ground, nor entirely over the head
    on the highest), its outline on the ground the convex hull in plan of its evaluated mesh's world vertices,
    named as the object."""
    head = highest + HEAD_HEIGHT * character.leg_length_nominal
    polygons, objects = [], []
    for obj in _objects(collection):
        points = world_vertices(obj, depsgraph)
        if points is None or points[:, 2].min() > head or points[:, 2].max() <= lowest + GROUND_TOLERANCE:
            continue
        polygons.append(outline(points))
        objects.append(obj)
    return Obstacles(tuple(polygons), tuple(o.name for o in objects)), objects


def _plan_bounds(obj, depsgraph):
    """((x0, y0), (x1, y1)): the evaluated object's bounding box in plan, world space."""
    evaluated = obj.evaluated_get(depsgraph)
    matrix = np.array(evaluated.matrix_world)
    corners = np.array([tuple(c) for c in evaluated.bound_box]) @ matrix[:3, :3].T + matrix[:3, 3]
    return corners[:, :2].min(axis=0), corners[:, :2].max(axis=0)


def _overlap(a, b):
    return bool((a[0] <= b[1]).all() and (b[0] <= a[1]).all())


def _neighbours_kept(kept):
    """(ny, nx): the grid points kept whose eight neighbours are kept too (the grid's border never)."""
    inside = np.zeros_like(kept)
    inside[1:-1, 1:-1] = True
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            inside[1:-1, 1:-1] &= kept[1 + dy:kept.shape[0] - 1 + dy, 1 + dx:kept.shape[1] - 1 + dx]
    return inside


def footholds_of(collection, depsgraph, blockers=()) -> Footholds:
    """Where feet may land on the collection's mesh objects. Over each one's bounds in plan, a grid of points
    FOOTHOLD_SPACING apart (centred on them) is cast straight down; a point is kept where the first hit among
    these objects and the blockers (obstacles) is on this object, on a face within FOOTHOLD_SLOPE of level, and
    its eight neighbours are kept too: so each foothold stands at least a grid step inside the edge, and a point
    within a step of one is on its surface (Footholds). The grid is coarser than FOOTHOLD_SPACING where
    there would be more than MAX_FOOTHOLDS. PlanningError when no object gives a foothold."""
    surfaces = [o for o in _objects(collection) if o.type == "MESH" and depsgraph.objects.get(o.name) is not None]
    if not surfaces:
        raise PlanningError(f"collection {collection.name!r} has no mesh object shown in viewports to step on")
    everything = surfaces + [o for o in blockers if o.type == "MESH" and o not in surfaces
                             and depsgraph.objects.get(o.name) is not None]
    bounds = [_plan_bounds(o, depsgraph) for o in everything]
    probes = [TerrainProbe(o, depsgraph) for o in everything]
    area = sum(float(np.prod(high - low + FOOTHOLD_SPACING)) for low, high in bounds[:len(surfaces)])
    spacing = max(FOOTHOLD_SPACING, math.ceil(100.0 * math.sqrt(area / MAX_FOOTHOLDS)) / 100.0)
    points, owners = [], []
    for index in range(len(surfaces)):  # a handful of surfaces, each one's grid at once
        low, high = bounds[index]
        centre, count = 0.5 * (low + high), np.floor(0.5 * (high - low) / spacing).astype(int) + 1
        xs = centre[0] + spacing * np.arange(-count[0], count[0] + 1)  # its outermost points past the bounds
        ys = centre[1] + spacing * np.arange(-count[1], count[1] + 1)
        grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
        hit, hits, normals = probes[index].project(grid)
        kept = hit & (normals[:, 2] >= math.cos(FOOTHOLD_SLOPE))
        for other, probe in enumerate(probes):  # whatever lies over this object's hits hides them
            if other != index and _overlap(bounds[other], bounds[index]):
                cast = np.flatnonzero(kept)
                over, above, _normals = probe.project(grid[cast])
                kept[cast[over & (above[:, 2] > hits[cast, 2] + 1e-4)]] = False
        chosen = np.flatnonzero(_neighbours_kept(kept.reshape(len(ys), len(xs))).ravel())
        points.append(hits[chosen])
        owners.append(np.full(len(chosen), index))
    points, owners = np.concatenate(points), np.concatenate(owners)
    if not len(points):
        raise PlanningError(f"no face of {collection.name!r}'s objects is wide enough to stand on (a foothold needs "
                            f"{spacing:.2f} m all round on a face within {math.degrees(FOOTHOLD_SLOPE):.0f} degrees "
                            f"of level with nothing over it)")
    return Footholds(points, owners, tuple(o.name for o in surfaces), spacing)


def area_of(obj, depsgraph, obstacles) -> wander.Area:
    """The walled area of a mesh object, its convex hull in plan, with the obstacles in it."""
    points = world_vertices(obj, depsgraph)
    if points is None:
        raise PlanningError(f"area {obj.name!r} has no mesh to take its outline from")
    return wander.Area(outline(points), obstacles)


def target_path(scene, obj):
    """The object's world location over the scene's frame range (every frame, up to MAX_TARGET_SAMPLES of
    them) as a planning.target.Target, interpolated between frames (track seconds: 0 at the start frame, held
    before and after the range); the scene's current frame is put back."""
    frames = np.unique(np.linspace(scene.frame_start, scene.frame_end,
                                   min(scene.frame_end - scene.frame_start + 1, MAX_TARGET_SAMPLES)).round())
    where = np.empty((len(frames), 2))
    current = scene.frame_current, scene.frame_subframe
    try:
        for k, frame in enumerate(frames):  # evaluating the scene frame by frame: Blender's one way to do it
            scene.frame_set(int(frame))
            where[k] = tuple(obj.matrix_world.translation)[:2]
    finally:
        scene.frame_set(current[0], subframe=current[1])
    if len(frames) < 2:  # a one-frame range: held there
        frames, where = np.append(frames, frames[0] + 1), np.repeat(where, 2, axis=0)
    return Target(np.array([scene_clock.seconds(scene, f) for f in frames]), where)


def facing(matrix):
    """(position (3,), heading): a world matrix's origin and its +Y axis's heading in plan (radians, 0 = +Y,
    as a footprint's)."""
    forward = matrix.col[1]
    return np.array(matrix.translation), math.atan2(-forward[0], forward[1])


# --- writing what a planner made ---------------------------------------------------------------------


def write_planned(context, made_by, name, track, character_name, terrain_collection=None, tilt=None):
    """The track into the collection this tool made last (settings.<made_by>): its footprints replaced, its
    rig, body and preview kept; or into a new one when there is none (deleted, or never made). It becomes the
    active track. Returns the collection."""
    settings = context.scene.footprint_planning
    coll = getattr(settings, made_by)
    if coll is not None and coll.footprint_track.is_track:
        for obj in scene_io.footprints(coll):
            bpy.data.objects.remove(obj)
        track_settings = coll.footprint_track
        track_settings.character, track_settings.character_json = character_name, ""
        track_settings.terrain, track_settings.terrain_collection = None, terrain_collection
        track_settings.gait = "walk"
        context.scene.footprint.active_track = coll
    else:
        coll = scene_io.new_track(context, name, character_name, None, "walk", terrain_collection)
        setattr(settings, made_by, coll)
    scene_io.write_track(coll, track, tilt=tilt)
    return coll


def _heights(collection, depsgraph, default):
    """(lowest, highest) vertex height of the collection's evaluated meshes (`default` for both without one)."""
    heights = [v[:, 2] for v in (world_vertices(o, depsgraph) for o in _objects(collection)) if v is not None]
    heights = np.concatenate(heights) if heights else np.array([default])
    return float(heights.min()), float(heights.max())


def _start(context, avoid=None):
    """Where a wanderer or follower starts, and its heading: the active empty (not a footprint, not `avoid`),
    else the 3D cursor."""
    obj = context.active_object
    if obj is not None and obj.type == "EMPTY" and not obj.footprint.is_footprint and obj != avoid:
        return (*facing(obj.matrix_world), obj.name)
    return (*facing(context.scene.cursor.matrix), "the 3D cursor")


# --- the operators -----------------------------------------------------------------------------------


class FOOTPRINT_OT_plan_crossing(bpy.types.Operator):
    """Plan footprints from the start empty to the goal (an empty, or the 3D cursor) stepping only on the surfaces collection's objects: walking where they are close, leaping where far, keeping off the obstacles"""

    # Running it again replaces the track it made last, not other tracks.

    bl_idname = "footprint.plan_crossing"
    bl_label = "Plan Across Stones"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = context.scene.footprint_planning
        missing = [what for what, value in (("the surfaces collection", settings.surfaces),
                                            ("the start empty", settings.start)) if value is None]
        if missing:
            self.report({"ERROR"}, f"Plan Across Stones: pick {' and '.join(missing)} in the Planning panel")
            return {"CANCELLED"}
        start = np.array(settings.start.matrix_world.translation)
        goal = np.array(settings.goal.matrix_world.translation if settings.goal else context.scene.cursor.location)
        depsgraph = context.evaluated_depsgraph_get()
        try:
            character = preset(settings.character)
            lowest, highest = _heights(settings.surfaces, depsgraph, start[2])
            obstacles, blockers = obstacles_of(settings.obstacles, depsgraph, character, lowest, highest)
            footholds = footholds_of(settings.surfaces, depsgraph, blockers)
            track = stones.plan_crossing(footholds, start[:2], goal[:2], character, obstacles=obstacles)
            surfaces = [o for o in _objects(settings.surfaces) if o.type == "MESH"]
            labels = [f"footprint {i} ({foot})" for i, foot in enumerate(track.feet)]
            track, tilt = scene_io.conform_track(track, TerrainProbe(surfaces, depsgraph), labels,
                                                 keep_height=np.ones(len(track), dtype=bool))
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"Plan Across Stones: {exc}: nothing changed")
            return {"CANCELLED"}
        coll = write_planned(context, "crossing_track", "Crossing", track, settings.character, settings.surfaces,
                             tilt)
        leaps = stones.leaps(track)
        self.report({"INFO"}, f"Plan Across Stones: {len(track)} footprints in {coll.name!r}, {leaps} "
                              f"leap{'s' if leaps != 1 else ''}, {track.liftoff.max() - track.contact.min():.1f} s")
        return {"FINISHED"}


class _StepAtATime:
    """Wander and Follow: a biped planned a step at a time (a quadruped its body's path a stride at a time, its
    gait laid along it: solver/planning/four_legs/) from the active empty (or the 3D cursor) in the
    Planning panel's area, around its obstacles, written as a track at the start's height."""

    bl_options = {"REGISTER", "UNDO"}
    made_by = name = ""

    def plan(self, context, character, start, heading, area):
        raise NotImplementedError

    def area(self, context, depsgraph, obstacles):
        settings = context.scene.footprint_planning
        return None if settings.area is None else area_of(settings.area, depsgraph, obstacles)

    def execute(self, context):
        settings = context.scene.footprint_planning
        position, heading, where = _start(context, settings.target)
        depsgraph = context.evaluated_depsgraph_get()
        try:
            character = preset(settings.character)
            obstacles, _found = obstacles_of(settings.obstacles, depsgraph, character, position[2], position[2])
            track = self.plan(context, character, position[:2], heading, self.area(context, depsgraph, obstacles))
        except USER_ERRORS as exc:
            self.report({"ERROR"}, f"{self.bl_label}: {exc}: nothing changed")
            return {"CANCELLED"}
        track = track.replace(positions=track.positions + [0.0, 0.0, position[2]])
        coll = write_planned(context, self.made_by, self.name, track, settings.character)
        self.report({"INFO"}, f"{self.bl_label}: {len(track)} footprints from {where} in {coll.name!r}, "
                              f"{track.liftoff.max() - track.contact.min():.1f} s")
        return {"FINISHED"}


class FOOTPRINT_OT_plan_wander(_StepAtATime, bpy.types.Operator):
    """Footprints of a character wandering at random for the Planning panel's seconds, inside the area mesh's outline and around the obstacles, from the active empty (or the 3D cursor)"""

    bl_idname = "footprint.plan_wander"
    bl_label = "Wander"
    made_by, name = "wander_track", "Wander"

    def area(self, context, depsgraph, obstacles):
        area = super().area(context, depsgraph, obstacles)
        if area is None:
            raise PlanningError("pick the area mesh that walls the wanderer in (the Planning panel's Area)")
        return area

    def plan(self, context, character, start, heading, area):
        settings = context.scene.footprint_planning
        return wander.wander(character, area, start, heading, settings.seconds, settings.seed)


class FOOTPRINT_OT_plan_follow(_StepAtATime, bpy.types.Operator):
    """Footprints of a character following the target empty as it moves over the scene's frames, from the active empty (or the 3D cursor), around the obstacles and inside the area mesh's outline, if any"""

    bl_idname = "footprint.plan_follow"
    bl_label = "Follow"
    made_by, name = "follow_track", "Follow"

    def area(self, context, depsgraph, obstacles):
        area = super().area(context, depsgraph, obstacles)
        if area is None and len(obstacles):  # no walls, the obstacles all the same
            area = wander.Area.unbounded(obstacles)
        return area

    def plan(self, context, character, start, heading, area):
        settings = context.scene.footprint_planning
        if settings.target is None:
            raise PlanningError("pick the target empty to follow (the Planning panel's Target)")
        target = target_path(context.scene, settings.target)
        return wander.follow(character, target, start, heading, settings.seconds, area)


def solve_character(coll):
    """The character the track's motion is solved with: its rig's (as the bake measures it), else its own
    preset or parameters, with the walking attributes that the COM solve sees."""
    rig = coll.footprint_track.rig
    if rig is not None:
        return bake.track_character(coll, bind(rig))
    attributes = bake.walking_attributes(coll)
    character = scene_io.character_of(coll)
    return character if attributes is None else walking.character_with(character, attributes)


class FOOTPRINT_OT_optimise_timing(OnActiveTrack, bpy.types.Operator):
    """Move the active track's contact and lift-off times, each within the slack, to lower the solved motion's energy; the feet keep their order"""

    bl_idname = "footprint.optimise_timing"
    bl_label = "Optimise Timing"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context, coll):
        objs = scene_io.footprints(coll)
        if len(objs) < 2:
            self.report({"ERROR"}, f"Optimise Timing: track {coll.name!r} has {len(objs)} footprints: nothing to time")
            return {"CANCELLED"}
        slack = context.scene.footprint_planning.slack
        try:
            track = scene_io.read_track(coll, objs)
            result = optimise_timing(track, slack, solve_character(coll), bake.solver_terrain(context, coll, track),
                                     fps=scene_clock.fps(context.scene))
            scene_io.validate_objects(coll, result.track, objs)
        except USER_ERRORS + (MissingBonesError,) as exc:
            self.report({"ERROR"}, f"Optimise Timing: slack {slack:g} s: {exc}: nothing changed")
            return {"CANCELLED"}
        scene_io.write_track(coll, result.track, objs)
        self.report({"INFO"}, f"Optimise Timing: energy {result.energy_before:.4g} -> {result.energy_after:.4g} "
                              f"({100.0 * result.gain:.1f} % lower), times moved up to "
                              f"{1000.0 * result.largest_move:.0f} ms")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_plan_crossing, FOOTPRINT_OT_plan_wander, FOOTPRINT_OT_plan_follow,
           FOOTPRINT_OT_optimise_timing)
