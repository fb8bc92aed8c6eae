"""Footprints that plan themselves, in Blender (issue 20): Plan Across Stones on stone and plank objects (every
footprint on a top face, leaps where the stones are far, the gap named and the scene untouched where there is
no crossing), Footprints Along Curve around an obstacles collection, Wander in a walled area among obstacles,
Follow an animated empty, Optimise Timing with its report and undo. Measured with Blender's own ray casts."""

import importlib
import math
import re

import bpy
import numpy as np
import pytest
from mathutils import Vector

from blender_scenes import poly_line
from conftest import FIG1
from scene_state import snapshot



@pytest.fixture(scope="module")
def modules(addon):
    return lambda name: importlib.import_module(f"{addon}.{name}")


def collection(name, objects=()):
    coll = bpy.data.collections.new(name)
    bpy.context.scene.collection.children.link(coll)
    for obj in objects:
        for owner in obj.users_collection:
            owner.objects.unlink(obj)
        coll.objects.link(obj)
    return coll


def cylinder(name, x, y, radius, top, depth=1.0):
    bpy.ops.mesh.primitive_cylinder_add(radius=radius, depth=depth, location=(x, y, top - depth / 2))
    bpy.context.active_object.name = name
    return bpy.context.active_object


def box(name, centre, size):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=centre)
    obj = bpy.context.active_object
    obj.name, obj.scale = name, size
    return obj


def empty(name, location):
    bpy.ops.object.empty_add(location=location)
    bpy.context.active_object.name = name
    return bpy.context.active_object


def in_time_order(coll):
    return sorted((o for o in coll.objects if o.footprint.is_footprint), key=lambda o: (o.footprint.contact, o.name))


def sole_points(obj, character):
    """(9, 3) world points over a footprint empty's sole: heel, middle and toe, at its middle and both edges
    (its toes along its local +Y)."""
    m = np.array(obj.matrix_world)
    along, across = m[:3, 1] / np.linalg.norm(m[:3, 1]), m[:3, 0] / np.linalg.norm(m[:3, 0])
    a, b = np.meshgrid([-0.5, 0.0, 0.5], [-0.5, 0.0, 0.5])
    return (m[:3, 3] + a.reshape(-1, 1) * character.foot_length * along
            + b.reshape(-1, 1) * character.foot_width * across)


def hits(obj, point):
    """Whether a ray straight down from 10 m over the point hits the object (its evaluated mesh)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    inverse = obj.matrix_world.inverted()
    origin = inverse @ Vector((point[0], point[1], 10.0))
    down = (inverse.to_3x3() @ Vector((0.0, 0.0, -1.0))).normalized()
    return obj.evaluated_get(depsgraph).ray_cast(origin, down, depsgraph=depsgraph)[0]


def reported(capfd, pattern):
    """The numbers of the last report line matching the pattern (Blender prints the reports)."""
    found = re.findall(pattern, capfd.readouterr().out)
    assert found, pattern
    return [float(v) for v in found[-1]]


@pytest.fixture
def river(clean):
    """A river crossed from a bank to a far bank: two stepping stones a walk apart, one a leap on, a plank,
    each a separate object of the Stones collection; a start empty on the near bank, a goal on the far."""
    objects = [cylinder("Bank", 0.0, 0.0, 0.7, 0.0), cylinder("Near", 0.1, 1.3, 0.3, 0.05),
               cylinder("Middle", -0.1, 2.3, 0.3, 0.0), cylinder("Leap", 0.2, 3.9, 0.3, 0.1),
               box("Plank", (0.2, 6.0, -0.1), (0.4, 3.0, 0.1)), cylinder("Far Bank", 0.0, 8.3, 0.6, 0.0)]
    stones = collection("Stones", objects)
    settings = bpy.context.scene.footprint_planning
    settings.surfaces, settings.start, settings.goal = stones, empty("Start", (0, 0, 0)), empty("Goal", (0, 8.3, 0))
    bpy.ops.ed.undo_push(message="river")
    return stones


def test_a_crossing_steps_on_top_faces_and_leaps_where_stones_are_far(river):
    bpy.ops.footprint.track_new()
    other = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.plan_crossing() == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    assert coll != other and coll.footprint_track.terrain_collection == river
    footprints = in_time_order(coll)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    stood_on = []
    for obj in footprints:  # each support point on a top face: the first hit from above, level, at its height
        centre = np.array(obj.matrix_world.translation)
        for dx, dy in ((0, 0), (0.01, 0), (-0.01, 0), (0, 0.01), (0, -0.01)):
            hit, location, normal, _i, what, _m = bpy.context.scene.ray_cast(
                depsgraph, Vector((centre[0] + dx, centre[1] + dy, 10.0)), Vector((0, 0, -1)))
            assert hit and what.name in river.objects, (obj.name, what)
            assert abs(location.z - centre[2]) < 1e-3 and normal.z > 0.999, (obj.name, location, normal)
        stood_on.append(what.name)
    assert stood_on[:2] == ["Bank", "Bank"] and stood_on[-2:] == ["Far Bank", "Far Bank"]
    assert {"Near", "Middle", "Leap", "Plank"} <= set(stood_on)
    # A flight (every foot up before the next lands) onto the far stone, and nowhere else.
    contact = np.array([o.footprint.contact for o in footprints])
    liftoff = np.array([o.footprint.liftoff for o in footprints])
    flights = [stood_on[k + 1] for k in np.flatnonzero(np.maximum.accumulate(liftoff)[:-1] < contact[1:] - 1e-6)]
    assert flights == ["Leap"], flights
    # Running it again replaces its own track's footprints only.
    names_before = sorted(o.name for o in bpy.data.objects)
    assert bpy.ops.footprint.plan_crossing() == {"FINISHED"}
    assert bpy.context.scene.footprint.active_track == coll
    assert sorted(o.name for o in bpy.data.objects) == names_before and len(other.objects) == 0
    assert sum(c.footprint_track.is_track for c in bpy.data.collections) == 2


def test_no_crossing_names_the_gap_and_changes_nothing(river):
    bpy.data.objects["Leap"].location.x = 3.0  # the stone between the middle one and the plank, gone aside
    bpy.context.view_layer.update()
    before = snapshot()
    with pytest.raises(RuntimeError) as caught:
        bpy.ops.footprint.plan_crossing()
    message = str(caught.value)
    assert "no crossing" in message and "end at Middle" in message and "leaps" in message, message
    assert "nothing changed" in message
    assert snapshot() == before


def test_obstacles_keep_the_crossing_off_them_or_are_named_closing_it(river, modules):
    post = cylinder("Post", 0.0, 0.5, 0.08, 1.5, depth=1.5)  # on the bank, in the way: gone round...
    bpy.data.objects["Bank"].scale = (1.8, 1.8, 1.0)  # ...where the bank leaves the body room to pass it
    settings = bpy.context.scene.footprint_planning
    settings.obstacles = collection("Obstacles", [post])
    assert bpy.ops.footprint.plan_crossing() == {"FINISHED"}
    xy = np.array([tuple(o.matrix_world.translation)[:2] for o in in_time_order(settings.crossing_track)])
    assert (np.linalg.norm(xy - [0.0, 0.5], axis=1) >= 0.08 + 0.13).all()  # half a human foot from the post
    radius = modules("solver.planning.obstacles").body_radius(modules("solver.character").preset("human"))
    a, b = xy[:-1], xy[1:]  # each step's line, footprint to footprint, the body's radius from the post
    t = np.clip(np.einsum("ij,ij->i", [0.0, 0.5] - a, b - a) / np.einsum("ij,ij->i", b - a, b - a), 0.0, 1.0)
    assert (np.linalg.norm(a + t[:, None] * (b - a) - [0.0, 0.5], axis=1) - 0.08).min() >= radius - 1e-3
    track = modules("footprint_addon.scene_io").read_track(settings.crossing_track)
    com = modules("solver.biped").solve(track).com[:, :2]  # the solved body a radius clear of the post too
    assert (np.linalg.norm(com - [0.0, 0.5], axis=1) - 0.08).min() >= radius - 2e-3
    bpy.ops.ed.undo_push(message="crossing")
    wall = box("Wall", (0.0, 3.1, 1.0), (6.0, 0.2, 2.0))  # across the river, between the middle and far stones
    settings.obstacles.objects.link(wall)
    bpy.context.scene.collection.objects.unlink(wall)
    before = snapshot()
    with pytest.raises(RuntimeError, match="keeps clear of the obstacles: Post, Wall stand in the way"):
        bpy.ops.footprint.plan_crossing()
    assert snapshot() == before


def test_footprints_along_a_curve_go_round_the_obstacles(clean, modules):
    character = modules("solver.character").preset("human")
    radius = modules("solver.planning.obstacles").body_radius(character)
    wall = box("Wall", (0.3, 3.0, 1.0), (2.0, 0.2, 2.0))
    post = cylinder("Post", 0.0, 6.5, 0.12, 2.0, depth=2.0)
    beam = box("Beam", (0.0, 9.0, 3.0), (3.0, 0.3, 0.2))  # overhead: ignored
    obstacles = collection("Obstacles", [wall, post, beam])
    poly_line("Path", [(0.0, 0.0, 0.0), (0.0, 12.0, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve="Path", step_length=0.6, step_width=0.18,
                                                  obstacles=obstacles.name) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    footprints = in_time_order(coll)
    for obj in footprints:  # no sole on an obstacle's outline on the ground
        for point in sole_points(obj, character):
            assert not hits(wall, point) and not hits(post, point), obj.name
    xy = np.array([tuple(o.matrix_world.translation)[:2] for o in footprints])
    assert np.abs(xy[np.abs(xy[:, 1] - 3.0) < 0.5, 0]).min() > 1.0  # round the wall's open end
    assert np.abs(xy[np.abs(xy[:, 1] - 9.0) < 0.8, 0]).max() < 0.15  # straight on under the beam
    motion = modules("solver.biped").solve(modules("footprint_addon.scene_io").read_track(coll), character)
    com = motion.com[:, :2]
    to_wall = np.linalg.norm(np.maximum(np.abs(com - [0.3, 3.0]) - [1.0, 0.1], 0.0), axis=1)
    to_post = np.linalg.norm(com - [0.0, 6.5], axis=1) - 0.12
    assert min(to_wall.min(), to_post.min()) >= radius, (to_wall.min(), to_post.min(), radius)
    assert motion.report["non_physical_force"]["mean"] < 0.05
    before = snapshot()  # refused, naming the collection that is not there (a dog's way round: test_planning_quadruped)
    with pytest.raises(RuntimeError, match="Obstacles collection 'Walls' is not in this file"):
        bpy.ops.footprint.generate_along_curve(curve="Path", obstacles="Walls")
    assert snapshot() == before


def test_a_minute_of_wandering_stays_in_the_room_off_the_obstacles(clean, modules):
    character = modules("solver.character").preset("human")
    bpy.ops.mesh.primitive_plane_add(size=1.0)
    room = bpy.context.active_object
    room.name, room.scale = "Room", (6.0, 5.0, 1.0)
    table, post = box("Table", (1.0, 0.5, 0.4), (0.8, 0.8, 0.8)), cylinder("Post", -0.5, 1.5, 0.15, 2.0, depth=2.0)
    settings = bpy.context.scene.footprint_planning
    settings.area, settings.obstacles, settings.seconds = room, collection("Furniture", [table, post]), 60.0
    start = empty("Wanderer", (0.0, -1.8, 0.0))
    bpy.context.view_layer.objects.active = start
    assert bpy.ops.footprint.plan_wander() == {"FINISHED"}
    footprints = in_time_order(bpy.context.scene.footprint.active_track)
    assert footprints[-1].footprint.contact >= 60.0
    for obj in footprints:
        for point in sole_points(obj, character):
            assert hits(room, point) and not hits(table, point) and not hits(post, point), obj.name
    xy = np.array([tuple(o.matrix_world.translation)[:2] for o in footprints])
    assert np.ptp(xy[:, 0]) > 2.5 and np.ptp(xy[:, 1]) > 2.0  # it goes round the room


def test_the_follower_keeps_within_two_metres_of_an_animated_empty(clean, modules):
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = 24, 1, 24 * 20 + 1
    speed, radius = 1.3, 4.0  # walking pace round a circle, keyed every second
    target = empty("Target", (radius, 0.0, 0.0))
    bpy.context.preferences.edit.keyframe_new_interpolation_type = "LINEAR"
    for second in range(21):
        angle = speed * second / radius
        target.location = (radius * math.cos(angle), radius * math.sin(angle), 0.0)
        target.keyframe_insert("location", frame=1 + 24 * second)
    scene.frame_set(7)
    settings = scene.footprint_planning
    settings.target, settings.seconds = target, 20.0
    bpy.context.view_layer.objects.active = empty("Follower", (radius, -1.0, 0.0))
    assert bpy.ops.footprint.plan_follow() == {"FINISHED"}
    assert scene.frame_current == 7  # the frame put back after sampling the target
    coll = scene.footprint.active_track
    motion = modules("solver.biped").solve(modules("footprint_addon.scene_io").read_track(coll))
    frames = scene.frame_start + motion.times * 24.0
    where = []
    for frame in frames[::12]:  # the target where Blender puts it, every half second
        scene.frame_set(int(frame), subframe=float(frame % 1.0))
        where.append(tuple(target.matrix_world.translation)[:2])
    distance = np.linalg.norm(motion.com[::12, :2] - np.array(where), axis=1)
    assert distance.max() <= 2.0, distance.max()
    assert np.linalg.norm(np.diff(motion.com[:, :2], axis=0), axis=1).sum() > 0.8 * speed * 20.0


def test_optimise_timing_lowers_the_energy_and_undoes(clean, modules, capfd):
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    bpy.context.scene.footprint_planning.slack = 0.1
    scene_io, biped = modules("footprint_addon.scene_io"), modules("solver.biped")
    track = scene_io.read_track(coll)
    # As a bake solves it: the track's preset with its walking attributes (the Body panel's, on by default).
    character = modules("footprint_addon.operators.planning_ops").solve_character(coll)
    bpy.ops.ed.undo_push(message="before")
    before = snapshot()
    capfd.readouterr()
    assert bpy.ops.footprint.optimise_timing() == {"FINISHED"}
    energy_before, energy_after, gain = reported(capfd, r"energy ([\d.e+-]+) -> ([\d.e+-]+) \(([\d.]+) % lower\)")
    assert energy_after < energy_before and gain > 20.0  # vdP97 Fig. 1: 46 % measured by the solver's tests
    assert energy_before == pytest.approx(biped.solve(track, character).report["energy"]["total"], rel=1e-3)
    retimed = scene_io.read_track(bpy.context.scene.footprint.active_track)
    assert biped.solve(retimed, character).report["energy"]["total"] == pytest.approx(energy_after, rel=1e-3)
    moved = np.abs(np.concatenate([retimed.contact - track.contact, retimed.liftoff - track.liftoff]))
    assert 0.0 < moved.max() <= 0.1 + 1e-6 and np.array_equal(retimed.positions, track.positions)
    after = snapshot()
    assert after != before
    bpy.ops.ed.undo_push(message="optimise timing")
    bpy.ops.ed.undo()
    assert snapshot() == before
    bpy.context.scene.footprint_planning.slack = -0.1
    with pytest.raises(RuntimeError, match=r"slack -0.1 s: .*slack must be zero or more"):
        bpy.ops.footprint.optimise_timing()
    assert snapshot() == before
    bpy.context.scene.footprint_planning.slack = 0.1
    bpy.context.scene.footprint.active_track.footprint_track.motion = "standing_ends"  # (after the undo) a walk
    # that times its own first and last steps
    marked = snapshot()
    with pytest.raises(RuntimeError, match='a track marked "motion": "standing_ends" times its own steps'):
        bpy.ops.footprint.optimise_timing()
    assert snapshot() == marked


def test_a_dog_crosses_mesh_stones_with_a_flight_over_each_gap(clean, modules):
    """Plan Across Stones with a dog on a collection's meshes (footholds cast onto them, as for a human): every paw
    on a top face (Blender's ray casts), all four feet up over each gap, the track solved as baked."""
    objects = [cylinder("Bank", 0.0, 0.0, 2.5, 0.0), cylinder("Stone", 0.1, 3.4, 0.65, 0.03),
               cylinder("Far Bank", 0.0, 6.8, 2.5, 0.0)]
    stones = collection("Stones", objects)
    settings = bpy.context.scene.footprint_planning
    settings.surfaces, settings.character = stones, "dog"
    settings.start, settings.goal = empty("Start", (0, 0, 0)), empty("Goal", (0, 6.8, 0))
    assert bpy.ops.footprint.plan_crossing() == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    track = modules("footprint_addon.scene_io").read_track(coll)
    assert track.character == "dog" and set(track.feet) == {"LH", "RH", "LF", "RF"}
    depsgraph = bpy.context.evaluated_depsgraph_get()
    stood_on = []
    for point in track.positions:  # each paw's support point on a top face, at its height
        hit, location, normal, _i, what, _m = bpy.context.scene.ray_cast(
            depsgraph, Vector((point[0], point[1], 10.0)), Vector((0, 0, -1)))
        assert hit and what.name in stones.objects and abs(location.z - point[2]) < 2e-3, (point, what)
        stood_on.append(what.name)
    assert "Stone" in stood_on and stood_on[:4] == ["Bank"] * 4 and stood_on[-4:] == ["Far Bank"] * 4
    order = np.argsort(track.contact, kind="stable")
    gaps = np.flatnonzero(np.maximum.accumulate(track.liftoff[order])[:-1] < track.contact[order][1:] - 1e-6)
    onto = {stood_on[order[k + 1]] for k in gaps}
    assert {"Stone", "Far Bank"} <= onto, onto  # flown onto the stone and off it
    motion = modules("solver.biped").solve(track)
    assert motion.report["non_physical_force"]["mean"] < 0.05
