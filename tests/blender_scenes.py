"""Scenes for the Blender tests: displaced terrain, curves, and independent terrain measurements."""

import json
import math

import bpy
import numpy as np
import pytest
from mathutils import Vector


def displaced_terrain(name="Terrain", size=12.0, strength=0.6, rotation_z=0.3, scale=1.0):
    """A subdivided grid displaced by a noise texture (a modifier), moved, rotated and scaled."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=120, y_subdivisions=120, size=size)
    obj = bpy.context.active_object
    obj.name = name
    texture = bpy.data.textures.new(f"{name} noise", type="CLOUDS")
    texture.noise_scale = 2.5
    mod = obj.modifiers.new("Displace", "DISPLACE")
    mod.texture = texture
    mod.strength = strength
    obj.location = (0.4, -0.3, 0.25)
    obj.rotation_euler = (0.0, 0.0, rotation_z)
    obj.scale = (scale, scale, scale)
    bpy.context.view_layer.update()
    return obj


def raycast_down(x, y, top=50.0, only=None):
    """An independent measurement: Blender's own ray cast straight down at (x, y) -> (location, normal).

    only: cast against this object alone (Object.ray_cast in its local space), else the whole scene.
    """
    depsgraph = bpy.context.evaluated_depsgraph_get()
    origin, down = Vector((x, y, top)), Vector((0, 0, -1))
    if only is None:
        hit, location, normal, *_ = bpy.context.scene.ray_cast(depsgraph, origin, down)
    else:
        inverse = only.matrix_world.inverted()
        hit, location, normal, _index = only.ray_cast(inverse @ origin, (inverse.to_3x3() @ down).normalized(),
                                                      depsgraph=depsgraph)
        location = only.matrix_world @ location
        normal = (inverse.to_3x3().transposed() @ normal).normalized()
    assert hit, f"no terrain at ({x}, {y})"
    return np.array(location), np.array(normal) * (1 if normal.z >= 0 else -1)


def local_axes(obj):
    m = np.array(obj.matrix_world.to_3x3())
    return m[:, 0], m[:, 1], m[:, 2]


def angle_degrees(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    c = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    return math.degrees(math.acos(np.clip(c, -1.0, 1.0)))


def bezier_circle(name="Circle", radius=5.0):
    bpy.ops.curve.primitive_bezier_circle_add(radius=radius, location=(0.0, 0.0, 0.0))
    obj = bpy.context.active_object
    obj.name = name
    return obj


def poly_line(name, points):
    """A Poly curve object through points (its corners)."""
    obj, spline = _curve_object(name, "POLY")
    spline.points.add(len(points) - 1)
    for p, co in zip(spline.points, points):
        p.co = (*co, 1.0)
    return obj


def bezier_line(name, points):
    """A Bezier curve object through points with automatic handles."""
    obj, spline = _curve_object(name, "BEZIER")
    spline.bezier_points.add(len(points) - 1)
    for bp, co in zip(spline.bezier_points, points):
        bp.co = co
        bp.handle_left_type = bp.handle_right_type = "AUTO"
    bpy.context.view_layer.update()
    return obj


def _curve_object(name, kind):
    """A 3D curve object of one spline of the kind, linked to the scene; the object and the spline."""
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    spline = curve.splines.new(kind)
    obj = bpy.data.objects.new(name, curve)
    bpy.context.scene.collection.objects.link(obj)
    return obj, spline


def footprint_objects(coll=None):
    coll = coll or bpy.context.scene.footprint.active_track
    objs = [o for o in coll.objects if o.footprint.is_footprint]
    return sorted(objs, key=lambda o: (o.footprint.contact, o.footprint.foot))


def stairs(name="Stairs", tread=0.30, rise=0.15, steps=6, start=1.0, end=6.0, half_width=2.0):
    """Ground at z = 0 from y = -3, then steps up (vertical risers, level treads) from y = start, and a
    landing to y = end: one mesh, a strip of quads along +Y."""
    ys, zs = [-3.0], [0.0]
    for k in range(steps):
        y = start + k * tread
        ys += [y, y]
        zs += [k * rise, (k + 1) * rise]
    ys.append(end)
    zs.append(steps * rise)
    verts = [(x, y, z) for y, z in zip(ys, zs) for x in (-half_width, half_width)]
    faces = [(2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2) for i in range(len(ys) - 1)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.update()
    return obj


def walk_on_plane(blend, document, folder):
    """Open a .blend, add a 60 m plane as the terrain and import a track document onto it; the track."""
    bpy.ops.wm.open_mainfile(filepath=blend)
    path = folder / "walk.json"
    path.write_text(json.dumps(document))
    bpy.ops.mesh.primitive_plane_add(size=60.0, location=(0.0, 10.0, 0.0))
    plane = bpy.context.active_object
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    coll.footprint_track.terrain = plane
    return coll


def raise_and_resolve(live, solved, coll, terrain_object, rise=0.5):
    """Preview the track, raise a terrain object by `rise` and let the live update run: (motion before,
    motion after). The live update must solve again exactly once, on the raised ground."""
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    before = solved.last_motion(coll)
    terrain_object.location.z += rise
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    after = solved.last_motion(coll)
    assert after is not before
    assert after.report["com_clearance"]["min"] == pytest.approx(before.report["com_clearance"]["min"] - rise,
                                                                 abs=0.01)
    assert live.flush(bpy.context) == 0  # and once only
    return before, after


QUADRUPED_METARIGS = ("wolf", "cat", "horse", "basic_quadruped")  # Rigify's bundled quadruped metarigs


def rigify_quadruped_blend(kind, path):
    """Generate a Rigify rig from one of Blender's bundled quadruped metarigs (QUADRUPED_METARIGS) in an
    empty scene and save it to path (a few seconds each); the rig object is named "rig"."""
    import addon_utils

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    bpy.ops.pose.rigify_generate()
    rig = bpy.context.active_object
    assert rig.name == "rig" and rig.type == "ARMATURE"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    return str(path)


QUADRUPED_KINDS = ("wolf", "cat", "horse")  # the generated Rigify quadrupeds the tests bake
QUADRUPED_PRESET = {"wolf": "dog", "cat": "cat", "horse": "horse"}  # each rig's solver preset (its metarig's)
QUADRUPED_SPEED = {"wolf": 2.0, "cat": 1.0, "horse": 3.0}  # m/s at scale 1: a trot for each (Froude 0.4-0.6)
QUADRUPED_PLACE = {"wolf": ((1.5, -2.0, 0.3), 2.4, 1.3), "cat": ((-0.5, 0.8, 0.1), -0.7, 2.0),
                   "horse": ((3.0, 1.0, -0.2), 0.9, 0.8)}  # each rig moved, turned (about Z) and scaled


def quadruped_trot_scene(addon, blend, kind, folder, speed, strides=4, turn=None):
    """The rig placed (QUADRUPED_PLACE), and a trot at speed solved for the character read from it imported
    as the active track: straight, or on a circle of `turn` hip heights (> 0 left); the rig and the track's
    collection, with an undo step."""
    import importlib

    rig = place_rig(blend, *QUADRUPED_PLACE[kind])
    bake = importlib.import_module(f"{addon}.footprint_addon.bake")
    preset = QUADRUPED_PRESET[kind]
    character = bake.rig_character(bake.bind(rig), preset)
    gait_track = importlib.import_module(f"{addon}.solver.quadruped.gait_track")
    h = character.leg_length_nominal
    track = gait_track.gait_track(character, "trot", speed, strides * 2.3 * h,  # a trot's stride about 2.3 h
                                  turn_radius=None if turn is None else turn * h, preset_name=preset)
    coll = import_track(importlib.import_module(f"{addon}.solver.track"), track, folder / f"{kind} trot.json")
    assert coll.footprint_track.character == preset
    bpy.ops.ed.undo_push(message="scene ready")
    return rig, coll


def place_rig(blend, location, turn, scale):
    """Open a .blend with a rig named "rig" and move, turn (about Z) and uniformly scale it; the rig."""
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    rig = bpy.data.objects["rig"]
    rig.location, rig.rotation_euler, rig.scale = location, (0.0, 0.0, turn), (scale, scale, scale)
    bpy.context.view_layer.update()
    return rig


def import_track(track_module, track, path):
    """Write a solver Track as JSON at path and import it as the active track; its collection."""
    path.write_text(track_module.dumps(track_module.track_to_json(track)))
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    return bpy.context.scene.footprint.active_track


def evaluated_matrices(rig, frames, bones):
    """World matrices (frames, bones, 4, 4) of pose bones on the evaluated rig, frame by frame."""
    scene = bpy.context.scene
    out = np.zeros((len(frames), len(bones), 4, 4))
    for i, frame in enumerate(frames):
        scene.frame_set(int(frame))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        world = np.array(evaluated.matrix_world)
        for j, name in enumerate(bones):
            out[i, j] = world @ np.array(evaluated.pose.bones[name].matrix)
    return out


def paw_deform_bones(rig, paw):
    """The deform bones that stand on the ground with a paw: the paw's own (DEF- twin of its ORG bone) and
    every deform bone below it (a wolf's and a cat's pads and digits)."""
    bones = rig.data.bones
    top = bones[paw.replace("ORG-", "DEF-", 1)]
    found, todo = [], [top]
    while todo:
        bone = todo.pop()
        if bone.use_deform:
            found.append(bone.name)
        todo.extend(bone.children)
    return found


def paw_tips(rig, matrices, paws):
    """(frames, feet, 3) the tail of each paw's own deform bone (its tip, which it rolls onto), from world
    matrices (frames, bones, 4, 4) of the paws' deform bones in paw_deform_bones' order, feet one after another."""
    first = np.cumsum([0] + [len(group) for group in paws])[:-1]
    lengths = np.array([rig.data.bones[group[0]].length for group in paws])
    tips = np.zeros(matrices.shape[:1] + (len(paws), 4))
    tips[..., 1], tips[..., 3] = lengths, 1.0
    return np.einsum("fkij,fkj->fki", matrices[:, first], tips)[..., :3]


def stance_drift(motion, leg, points):
    """The largest move (metres) of any point (frames, points, 3) from where it was when its foot was
    planted, over every stance of the leg; and how many stances."""
    worst, stances = 0.0, 0
    for footprint in np.unique(motion.footprint[:, leg][motion.contact[:, leg]]):
        on = motion.contact[:, leg] & (motion.footprint[:, leg] == footprint)
        if on.sum() < 2:
            continue
        stances += 1
        worst = max(worst, float(np.linalg.norm(points[on] - points[on][:1], axis=-1).max()))
    return worst, stances
