"""A track's terrain as a collection of objects (a ground plane and a separate box as the step), through the
installed extension: conforming, Footprints Along Curve, the solver's height field and the live update."""

import json
import sys

import bpy
import numpy as np
import pytest

from blender_scenes import footprint_objects, poly_line, raise_and_resolve, raycast_down



def modules(addon, *names):
    return [sys.modules[f"{addon}.{name}"] for name in names]


def box(name, low, high):
    """A closed box mesh object between two corners, linked to no collection yet."""
    (x0, y0, z0), (x1, y1, z1) = low, high
    verts = [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    return bpy.data.objects.new(name, mesh)


def ground_and_step(step_low=(-1.0, 1.5, 0.0), step_high=(1.0, 2.5, 0.3)):
    """A collection 'Ground' in the scene: a 20 m plane at z = 0 and a box (the step), separate objects."""
    coll = bpy.data.collections.new("Ground")
    bpy.context.scene.collection.children.link(coll)
    mesh = bpy.data.meshes.new("plane")
    mesh.from_pydata([(-10, -10, 0), (10, -10, 0), (10, 10, 0), (-10, 10, 0)], [], [(0, 1, 2, 3)])
    plane = bpy.data.objects.new("plane", mesh)
    step = box("step", step_low, step_high)
    for obj in (plane, step):
        coll.objects.link(obj)
    bpy.context.view_layer.update()
    return coll, plane, step


def test_conform_and_generate_stand_on_every_object_of_the_terrain_collection(addon, clean):
    """Conform puts the footprint over the box on its top (0.3 m), the others on the plane; with neither a
    terrain object nor a collection it refuses. Footprints Along Curve over the collection: each on the
    surface below it (Blender's own ray cast), some on the box, none across its edges; the new track keeps
    the collection as its terrain."""
    scene_io, track_module = modules(addon, "footprint_addon.scene_io", "solver.track")
    ground, _plane, _step = ground_and_step()
    coll = scene_io.new_track(bpy.context, "Walk")
    positions = [(-0.1, 0.0, 5.0), (0.1, 2.0, 5.0), (-0.1, 4.0, 5.0)]
    scene_io.write_track(coll, track_module.make_track(["L", "R", "L"], positions, [0.0] * 3, [0.0, 0.6, 1.2],
                                                       [0.9, 1.5, 2.1]))
    with pytest.raises(RuntimeError, match="has no terrain object or collection"):
        bpy.ops.footprint.conform()
    coll.footprint_track.terrain_collection = ground
    assert bpy.ops.footprint.conform() == {"FINISHED"}
    assert [o.location.z for o in footprint_objects(coll)] == pytest.approx([0.0, 0.3, 0.0], abs=1e-6)
    line = poly_line("Line", [(0.0, -1.0, 0.0), (0.0, 5.0, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve=line.name, terrain_collection=ground.name,
                                                  step_length=0.6) == {"FINISHED"}
    generated = bpy.context.scene.footprint.active_track
    assert generated != coll and generated.footprint_track.terrain_collection == ground
    heights = []
    for obj in footprint_objects(generated):
        location, _normal = raycast_down(obj.location.x, obj.location.y)
        assert obj.location.z == pytest.approx(location[2], abs=1e-6), obj.name
        heights.append(obj.location.z)
        toe = 0.13 * np.array([-np.sin(obj.rotation_euler.z), np.cos(obj.rotation_euler.z)])
        for end in (-toe, toe):  # heel and toe on the same level: on the box or off it
            assert raycast_down(*(np.array(obj.location)[:2] + end))[0][2] == pytest.approx(obj.location.z, abs=1e-6)
    assert heights.count(pytest.approx(0.3)) >= 1 and heights.count(pytest.approx(0.0)) >= 2


def test_the_solver_height_field_sees_every_object_of_the_terrain_collection(addon, clean):
    """The height field the solver reads covers the plane and the box; moving the box (a depsgraph update)
    drops its samples, so the next field has it where it went; hidden in viewports it is left out."""
    scene_io, terrain = modules(addon, "footprint_addon.scene_io", "footprint_addon.terrain")
    ground, plane, step = ground_and_step()
    coll = scene_io.new_track(bpy.context, "Walk")
    coll.footprint_track.terrain_collection = ground
    assert terrain.track_terrain(coll) == (plane, step)
    positions = np.array([(-0.1, 0.0, 0.0), (0.1, 2.0, 0.3), (-0.1, 4.0, 0.0)])
    on_box, off_box = np.array([[0.5, 2.2]]), np.array([[0.5, 3.2]])
    field = terrain.track_height_field(bpy.context, coll, positions)
    assert field.heights(on_box)[0] == pytest.approx(0.3) and field.heights(off_box)[0] == pytest.approx(0.0)
    step.location.z = 0.2
    bpy.context.view_layer.update()
    field = terrain.track_height_field(bpy.context, coll, positions)
    assert field.heights(on_box)[0] == pytest.approx(0.5)
    step.hide_viewport = True
    bpy.context.view_layer.update()
    field = terrain.track_height_field(bpy.context, coll, positions)
    assert field.heights(on_box)[0] == pytest.approx(0.0)


def test_editing_the_terrain_collection_re_solves_the_live_preview(addon, rig_scene):
    """The live preview's track stands on a collection: a plane and a slab under the whole track. Raising
    the slab 50 cm re-solves the preview once, on the raised ground (the COM's least clearance 50 cm less);
    disabling the slab in viewports re-solves it on the plane; linking another object to the collection
    re-solves it too; an object outside it does nothing."""
    live, solved, terrain = modules(addon, "footprint_addon.live", "footprint_addon.solved", "footprint_addon.terrain")
    coll = bpy.data.collections["fig1"]
    ground, _plane, slab = ground_and_step((-3.0, -3.0, -0.3), (3.0, 10.0, 0.0))
    coll.footprint_track.terrain_collection = ground
    before, _after = raise_and_resolve(live, solved, coll, slab)
    slab.hide_viewport = True  # (the depsgraph reports the collection, not the object)
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    hidden = solved.last_motion(coll)
    assert hidden.report["com_clearance"]["min"] == pytest.approx(before.report["com_clearance"]["min"], abs=0.01)
    elsewhere = box("elsewhere", (5.0, 0.0, 0.0), (6.0, 1.0, 0.2))
    bpy.context.scene.collection.objects.link(elsewhere)
    bpy.context.view_layer.update()
    elsewhere.location.z = 0.1
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0
    ground.objects.link(elsewhere)
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1 and terrain.track_terrain(coll)[0] == elsewhere


def test_placing_mirroring_and_json_read_the_whole_terrain(addon, clean, tmp_path):
    """Add at Cursor over the box of the terrain collection lands on its top; Mirror takes the heights of
    the ground the mirrored footprints land on; an export names the collection and an import of it puts
    [x, y] footprints on the box and keeps the collection as the new track's terrain."""
    scene_io, = modules(addon, "footprint_addon.scene_io")
    ground, _plane, _step = ground_and_step()
    coll = scene_io.new_track(bpy.context, "Walk")
    coll.footprint_track.terrain_collection = ground
    bpy.context.scene.cursor.location = (0.2, 2.0, 3.0)
    assert bpy.ops.footprint.add_at_cursor() == {"FINISHED"}
    bpy.context.scene.cursor.location = (0.4, 3.0, 3.0)
    assert bpy.ops.footprint.add_at_cursor() == {"FINISHED"}
    assert [o.location.z for o in footprint_objects(coll)] == pytest.approx([0.3, 0.0], abs=1e-5)
    path = tmp_path / "walk.json"
    assert bpy.ops.footprint.export_json(filepath=str(path)) == {"FINISHED"}
    document = json.loads(path.read_text())
    assert document["terrain"] == {"collection": "Ground"}
    for footprint in document["footprints"]:
        footprint["position"] = footprint["position"][:2]  # the heights come from the terrain
    path.write_text(json.dumps(document))
    bpy.context.scene.footprint.active_track = None
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    imported = bpy.context.scene.footprint.active_track
    assert imported != coll and imported.footprint_track.terrain_collection == ground
    assert [o.location.z for o in footprint_objects(imported)] == pytest.approx([0.3, 0.0], abs=1e-5)
