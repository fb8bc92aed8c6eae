"""The demo scene: terrain with a slope and a flight of stairs, a path, a footprint track conformed to it.

Built through the add-on's own operators, saved as a .blend and rendered headless with Workbench.
"""

import math
import os

import bpy
import numpy as np

from ..solver.drawing import outlines_in_world
from . import scene_io

SLOPE_DEGREES = 15.0
STAIR_RISERS = 6
STAIR_RISE = 0.16
STAIR_TREAD = 0.32


def terrain_profile():
    """(y, z) breakpoints of the terrain along +Y: flat, a 15 degree slope, a landing, stairs down, flat.

    Each stair riser appears twice at the same y, so the mesh has truly vertical risers and flat treads.
    """
    top = 4.0 * math.tan(math.radians(SLOPE_DEGREES))
    ys, zs = [-3.0, 3.0, 7.0, 9.0], [0.0, 0.0, top, top]
    z = top
    y = 9.0
    for _ in range(STAIR_RISERS):
        ys += [y, y]
        zs += [z, z + STAIR_RISE]
        z += STAIR_RISE
        y += STAIR_TREAD
    ys += [y, y + 6.0]
    zs += [z, z]
    return np.array(ys), np.array(zs)


def build_terrain(name="Terrain", half_width=4.0, slope_rows=16, columns=24):
    """A terrain mesh: slope rows are subdivided so the surface is smooth where it bends."""
    ys, zs = terrain_profile()
    rows_y, rows_z = [ys[0]], [zs[0]]
    for (y0, z0), (y1, z1) in zip(zip(ys[:-1], zs[:-1]), zip(ys[1:], zs[1:])):
        pieces = slope_rows if (z1 != z0 and y1 != y0) else (1 if y1 == y0 else max(1, int(y1 - y0)))
        for k in range(1, pieces + 1):
            rows_y.append(y0 + (y1 - y0) * k / pieces)
            rows_z.append(z0 + (z1 - z0) * k / pieces)
    xs = np.linspace(-half_width, half_width, columns + 1)
    verts = [(x, y, z) for y, z in zip(rows_y, rows_z) for x in xs]
    n = len(xs)
    faces = [
        (r * n + c, r * n + c + 1, (r + 1) * n + c + 1, (r + 1) * n + c)
        for r in range(len(rows_y) - 1)
        for c in range(n - 1)
    ]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def build_path(name="Path"):
    """A Bezier path that walks up the slope, bends across the landing and climbs the stairs."""
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    spline = curve.splines.new("BEZIER")
    points = [(0.0, -1.5, 0.0), (0.6, 5.0, 0.5), (-0.4, 9.5, 1.1), (0.0, 14.5, 2.1)]
    spline.bezier_points.add(len(points) - 1)
    for bp, co in zip(spline.bezier_points, points):
        bp.co = co
        bp.handle_left_type = bp.handle_right_type = "AUTO"
    obj = bpy.data.objects.new(name, curve)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def footprint_render_mesh(coll, name="Footprint shapes"):
    """Empties do not render: a mesh of foot outlines, one material per foot, for pictures."""
    objs = scene_io.footprints(coll)
    character = scene_io.character_of(coll)
    matrices = np.array([np.array(o.matrix_world) for o in objs])
    outlines = outlines_in_world(matrices, character.foot_length, character.foot_width, lift=0.01)
    segments = outlines.shape[1]
    mesh = bpy.data.meshes.new(name)
    faces = [tuple(range(i * segments, (i + 1) * segments)) for i in range(len(objs))]
    mesh.from_pydata(outlines.reshape(-1, 3).tolist(), [], faces)
    feet = sorted({o.footprint.foot for o in objs})
    for foot in feet:
        mat = bpy.data.materials.new(f"Footprint {foot}")
        mat.diffuse_color = scene_io.FOOT_COLORS[foot]
        mesh.materials.append(mat)
    mesh.polygons.foreach_set("material_index", [feet.index(o.footprint.foot) for o in objs])
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def setup_render(scene, target, resolution=(1280, 720)):
    cam_data = bpy.data.cameras.new("Camera")
    cam = bpy.data.objects.new("Camera", cam_data)
    scene.collection.objects.link(cam)
    cam.location = (10.5, -3.5, 7.5)
    direction = np.array(target) - np.array(cam.location)
    cam.rotation_euler = (math.atan2(math.hypot(direction[0], direction[1]), -direction[2]), 0.0,
                          math.atan2(direction[1], direction[0]) - math.pi / 2)
    cam_data.lens = 32
    scene.camera = cam
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "MATERIAL"
    scene.display.shading.show_shadows = True
    scene.display.shading.show_cavity = True
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"


def clear_file():
    for collection in (bpy.data.objects, bpy.data.meshes, bpy.data.curves, bpy.data.cameras,
                       bpy.data.lights, bpy.data.materials):
        for block in list(collection):
            collection.remove(block)
    for coll in list(bpy.data.collections):
        bpy.data.collections.remove(coll)


def run(output_dir="out", render=True):
    """Build the demo scene, save output_dir/demo.blend and render output_dir/demo.png; return the paths."""
    os.makedirs(output_dir, exist_ok=True)
    clear_file()
    scene = bpy.context.scene
    terrain = build_terrain()
    path = build_path()
    result = bpy.ops.footprint.generate_along_curve(
        curve=path.name, terrain=terrain.name, step_length=0.62, step_width=0.22, gait="walk",
    )
    if result != {"FINISHED"}:
        raise RuntimeError("generating the demo track failed")
    coll = scene_io.active_track(bpy.context)
    footprint_render_mesh(coll)
    setup_render(scene, target=(0.0, 6.5, 0.8))
    blend_path = os.path.abspath(os.path.join(output_dir, "demo.blend"))
    png_path = os.path.abspath(os.path.join(output_dir, "demo.png"))
    bpy.ops.wm.save_as_mainfile(filepath=blend_path, check_existing=False)
    if render:
        scene.render.filepath = png_path
        bpy.ops.render.render(write_still=True)
    return blend_path, png_path if render else None
