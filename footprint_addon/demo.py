"""The demo: terrain with a slope and a flight of stairs; a Rigify human generated from Blender's metarig;
one footprint track that plays vdP97's Fig. 1, walks up the slope, climbs the stairs and breaks into a run;
beside it a Rigify wolf that trots, breaks into a gallop and jumps onto a ramp and off it (Torkos §6);
both solved, baked into NLA strips, saved as a .blend and rendered headless (Workbench) as one contact
sheet: the human at several frames with its footprints and COM path, then the wolf. Then, with rendering on,
straight walks at 0.8, 1.3 and 1.8 m/s and a 3.5 m/s run on a flat walkway, baked onto the same human and
rendered as walk-0.8.png, walk.png, walk-1.8.png and run.png: one stride each, seen from the side and from the
front, with the knee's phase table measured on the rig (render_stride); and one stride of each gait of the
Rigify wolf, horse and cat, side on, as <animal>-<gait>.png with their girdles' height (render_gait).
"""

import math
import os

import bpy
import numpy as np

from ..solver.character import preset
from ..solver.core import schedule
from ..solver.drawing import foot_color, outlines_in_world
from ..solver.footprints.examples import fig1_track
from ..solver.footprints.placement import append_step
from ..solver.quadruped import terrains as quadruped_terrains
from ..solver.quadruped import gaits as quadruped_gaits
from ..solver.quadruped.gait_track import Section, gait_track, sections_track
from ..solver.running import parameters
from ..solver.track import make_track
from . import files, headless, rig_quality, scene_io

SLOPE_DEGREES = 15.0
STAIR_RISERS = 6
STAIR_RISE = 0.16
STAIR_TREAD = 0.32


def terrain_profile():
    """(y, z) breakpoints of the terrain along +Y: flat, a 15 degree slope, a landing, stairs down, flat.

    Each stair riser appears twice at the same y, so the mesh has truly vertical risers and flat treads.
    """
    top = 4.0 * math.tan(math.radians(SLOPE_DEGREES))
    ys, zs = [-9.0, 3.0, 7.0, 9.0], [0.0, 0.0, top, top]
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
    return profile_mesh(name, rows_y, rows_z, np.linspace(-half_width, half_width, columns + 1))


def profile_mesh(name, rows_y, rows_z, xs):
    """A ground mesh along +Y from a (y, z) profile: a row of vertices at each breakpoint, at the xs across."""
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


def story_track():
    """Fig. 1 on the flat, then a walk up the slope and onto the landing, one footprint per stair tread,
    and a run along the top: one track, timing filled in by the solver's placement rules (vdP97 §4.1)."""
    human = preset("human")
    track = fig1_track()
    track = track.replace(positions=track.positions + [0.0, -7.0, 0.0])

    def add(ys, gait):
        nonlocal track
        for y in ys:
            x = -0.1 if str(track.feet[-1]) == "R" else 0.1  # the left foot steps on the left (-X)
            track = append_step(track, (x, y, 0.0), human, gait)

    add(np.arange(-2.0, 8.71, 0.6), "walk")
    add(9.0 + STAIR_TREAD * (np.arange(STAIR_RISERS) + 0.5), "walk")
    add([11.4], "walk")
    # A run along the top, built by RUNNER's equations (B&C 1996 eqs. 1-6) for 12 km/h, accelerating from
    # the walk's last footprint (which stands in for the run's standing start).
    run = parameters.running_track(parameters.natural(12.0), 7, start_standing=True).take(slice(1, None))
    last = track.time_order()[-1]
    if str(track.feet[last]) == str(run.feet[0]):  # the run starts with the other foot
        run = run.replace(feet=np.where(run.feet == "L", "R", "L"))
    x = np.where(run.feet == "L", -0.1, 0.1)
    y = track.positions[last, 1] + 0.6 + run.positions[:, 1]
    start = 0.5 * (track.contact[last] + track.liftoff[last])
    return make_track(np.concatenate([track.feet, run.feet]),
                      np.vstack([track.positions, np.column_stack([x, y, np.zeros(len(run))])]),
                      np.zeros(len(track) + len(run)), np.concatenate([track.contact, start + run.contact]),
                      np.concatenate([track.liftoff, start + run.liftoff]))


# The wolf beside the human: its own strip of ground (clear of the human's terrain, 4 m either side of x = 0)
# with Torkos's ramp on it; a trot speeding up into a rotary gallop that jumps onto the ramp and off. The speed
# rises over two sections each (from 2.5 straight to 6 m/s in one stride the body crouched to 0.26 m to push).
WOLF_X, WOLF_Y = 6.0, -8.0  # where its path starts (it runs along +Y, as the human does)
WOLF_RAMP = (12.0, 6.0, 0.35)  # metres along its path: the ramp's start, length and height (Torkos §6)
WOLF_SECTIONS = (Section("trot", 2.5, 5.0), Section("trot", 3.5, 3.0), Section("rotary_gallop", 4.5, 4.0),
                 Section("rotary_gallop", 6.0, 14.0))
WOLF_VIEW = 0.6  # the wolf's cells: the camera this much as far as the human's (it stands 0.7 m, not 1.8)
WOLF_GROUND_HALF_WIDTH = 1.5


def wolf_track():
    """The wolf's footprints (the dog preset: the Rigify wolf's proportions) on its ramp, starting and stopping
    standing on all four feet, and the ramp's (y, z) profile along its path, both in the scene's coordinates."""
    terrain, jumps = quadruped_terrains.ramp(*WOLF_RAMP)
    track = sections_track(preset("dog"), WOLF_SECTIONS, terrain=terrain, jumps=jumps, stand=(True, True))
    track = make_track(track.feet, track.positions + [WOLF_X, WOLF_Y, 0.0], track.headings, track.contact,
                       track.liftoff, character="dog")  # the ground is the mesh now, not the height field
    start, length, height = WOLF_RAMP
    ys = np.array([-5.0, start - terrain.spacing, start, start + length, start + length + terrain.spacing,
                   track.positions[:, 1].max() - WOLF_Y + 5.0])
    return track, (ys + WOLF_Y, np.array([0.0, 0.0, height, height, 0.0, 0.0]))


def quadruped_capsules(rig, material):
    """Tubes along every deform bone for Workbench to draw: the trunk's thick, the limbs', neck's and tail's
    in proportion to their length (a stand-in for the wolf's mesh)."""
    ring = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    n = len(ring)
    for bone in rig.data.bones:
        if not bone.use_deform:
            continue
        trunk = bone.name.startswith("DEF-spine")
        radius = max(0.35 * bone.length if trunk else 0.18 * bone.length, 0.012)
        rows = [(0.0, radius), (bone.length, 0.8 * radius)]
        verts = [(r * np.cos(a), y, r * np.sin(a)) for y, r in rows for a in ring]
        _bone_mesh(rig, bone.name, verts, _loft([range(k * n, (k + 1) * n) for k in range(len(rows))]), material)


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
        mat.diffuse_color = foot_color(foot)
        mesh.materials.append(mat)
    mesh.polygons.foreach_set("material_index", [feet.index(o.footprint.foot) for o in objs])
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


BODY_BONES = {  # deform bone -> radius of the capsule drawn along it (a stand-in for a character mesh)
    "DEF-spine": 0.13, "DEF-spine.001": 0.14, "DEF-spine.002": 0.15, "DEF-spine.003": 0.15,
    "DEF-spine.004": 0.05, "DEF-spine.005": 0.05, "DEF-spine.006": 0.11,
}
for _side in ("L", "R"):
    BODY_BONES.update({f"DEF-pelvis.{_side}": 0.06, f"DEF-thigh.{_side}": 0.075, f"DEF-thigh.{_side}.001": 0.065,
                       f"DEF-shin.{_side}": 0.055, f"DEF-shin.{_side}.001": 0.045, f"DEF-shoulder.{_side}": 0.05,
                       f"DEF-upper_arm.{_side}": 0.045, f"DEF-upper_arm.{_side}.001": 0.042,
                       f"DEF-forearm.{_side}": 0.038, f"DEF-forearm.{_side}.001": 0.034, f"DEF-hand.{_side}": 0.035})
TRUNK_DEPTH = 0.7  # the trunk's depth (front to back) against its width: the spine bones' local z is forward
SOLE = 0.003  # the feet's soles just above the rest ground (z = 0, Rigify's heel), so they do not flicker in it


def generate_rigify(kind):
    """A Rigify rig generated from one of Blender's bundled metarigs (human, wolf, ...), the metarig hidden."""
    import addon_utils

    addon_utils.enable("rigify", default_set=True)
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    metarig = bpy.context.active_object
    bpy.ops.pose.rigify_generate()
    rig = bpy.context.active_object
    metarig.hide_render = metarig.hide_viewport = True
    return rig


def _bone_mesh(rig, name, verts, faces, material):
    """A mesh given in the bone's rest space (y along the bone), parented to the bone."""
    bone = rig.data.bones[name]
    mesh = bpy.data.meshes.new(f"Body {name}")
    mesh.from_pydata(verts, [], faces)
    mesh.materials.append(material)
    obj = bpy.data.objects.new(f"Body {name}", mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent, obj.parent_type, obj.parent_bone = rig, "BONE", name
    obj.matrix_world = rig.matrix_world @ bone.matrix_local
    return obj


def _loft(rows):
    """Faces joining rings of equal size (each ring a loop of vertex indices), with end caps."""
    n = len(rows[0])
    faces = [(k * n + i, k * n + (i + 1) % n, (k + 1) * n + (i + 1) % n, (k + 1) * n + i)
             for k in range(len(rows) - 1) for i in range(n)]
    return faces + [tuple(range(n))[::-1], tuple(range((len(rows) - 1) * n, len(rows) * n))]


def foot_shapes(rig, side, material):
    """A foot (heel to ball, on DEF-foot) and toes (ball to tip, on DEF-toe) with flat soles on the rest ground,
    so a picture shows the heel, the sole and the toe roll where the rig has them."""
    heel = rig.data.bones.get(f"ORG-heel.02.{side}")
    foot, toe = rig.data.bones.get(f"DEF-foot.{side}"), rig.data.bones.get(f"DEF-toe.{side}")
    if heel is None or foot is None or toe is None:
        return
    x = float(foot.head_local[0])
    back, ankle, ball, tip = (float(heel.head_local[1]), float(foot.head_local[1]), float(toe.head_local[1]),
                              float(toe.tail_local[1]))
    forward = np.sign(tip - back)  # the rig's rest toes point along -Y (Rigify) or +Y
    back += 0.01 * -forward  # the heel's rounded back, just behind the heel bone
    ankle_z = float(foot.head_local[2])

    def ring(y, half_width, top):
        return _ring(x, y, half_width, SOLE, top)

    _rest_mesh(rig, foot.name, [ring(back, 0.035, 0.6 * ankle_z), ring(ankle, 0.042, 1.2 * ankle_z),
                                ring(ball, 0.045, 0.45 * ankle_z)], material)
    _rest_mesh(rig, toe.name, [ring(ball, 0.045, 0.45 * ankle_z), ring(tip, 0.035, 0.25 * ankle_z)], material)


def nose_shape(rig, material, bone_name="DEF-spine.006"):
    """A nose on the head (a wedge from inside the head to in front of the face): which way the head faces."""
    head, toe = rig.data.bones.get(bone_name), rig.data.bones.get("DEF-toe.L")
    if head is None or toe is None:
        return
    forward = np.sign(toe.tail_local[1] - toe.head_local[1])
    x, y, z = head.head_local
    y0, y1, z0 = y + 0.05 * forward, y + 0.14 * forward, z + 0.4 * head.length

    _rest_mesh(rig, bone_name, [_ring(x, y0, 0.025, z0 - 0.03, z0 + 0.05), _ring(x, y1, 0.012, z0, z0 + 0.03)],
               material)


def _ring(x, y, half_width, bottom, top):
    """Four corners of a rectangle across the rig at y (rest space), from bottom to top."""
    return [(x - half_width, y, bottom), (x + half_width, y, bottom), (x + half_width, y, top),
            (x - half_width, y, top)]


def _rest_mesh(rig, bone_name, rings, material):
    """A mesh lofted through rings of points given in the rig's rest space, parented to a bone."""
    to_bone = np.linalg.inv(np.array(rig.data.bones[bone_name].matrix_local))
    world = np.array([p for r in rings for p in r], dtype=float)
    local = (to_bone[:3, :3] @ world.T).T + to_bone[:3, 3]
    return _bone_mesh(rig, bone_name, local.tolist(), _loft(rings), material)


def body_materials():
    """The body's material, and the limbs' of each side: left blue-grey, right warm (as the footprints,
    magenta left and red right, tell the feet apart)."""
    materials = {}
    for key, color in (("", (0.85, 0.75, 0.62, 1.0)), ("L", (0.50, 0.58, 0.78, 1.0)), ("R", (0.90, 0.58, 0.45, 1.0))):
        materials[key] = bpy.data.materials.new(f"Body {key}".strip())
        materials[key].diffuse_color = color
    return materials[""], {"L": materials["L"], "R": materials["R"]}


def body_capsules(rig, material, sides=None):
    """Tapered tubes parented to the deform bones, so Workbench has a body to draw; sides: optional
    {"L": material, "R": material} for the limbs of each side (to tell them apart in a side view)."""
    sides = sides or {}
    ring = np.linspace(0.0, 2.0 * np.pi, 10, endpoint=False)
    n = len(ring)
    for name, radius in BODY_BONES.items():
        bone = rig.data.bones.get(name)
        if bone is None:
            continue
        length = bone.length
        rows = [(0.0, radius), (0.5 * length, radius), (length, 0.85 * radius)]
        depth = TRUNK_DEPTH if name.startswith("DEF-spine") and name != "DEF-spine.006" else 1.0
        verts = [(r * np.cos(a), y, depth * r * np.sin(a)) for y, r in rows for a in ring]
        _bone_mesh(rig, name, verts, _loft([range(k * n, (k + 1) * n) for k in range(len(rows))]),
                   sides.get(name.split(".")[1] if "." in name else "", material))
    for side in ("L", "R"):
        foot_shapes(rig, side, sides.get(side, material))
    nose_shape(rig, material)


def com_path_curve(points, name="COM path"):
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    curve.bevel_depth = 0.015
    spline = curve.splines.new("POLY")
    spline.points.add(len(points) - 1)
    spline.points.foreach_set("co", np.column_stack([points, np.ones(len(points))]).ravel())
    material = bpy.data.materials.new("COM path")
    material.diffuse_color = (0.15, 0.45, 0.95, 1.0)
    curve.materials.append(material)
    obj = bpy.data.objects.new(name, curve)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def setup_render(scene, resolution):
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.data.lens = 35
    scene.camera = cam
    if scene.world is None:
        scene.world = bpy.data.worlds.new("World")
    scene.world.color = (0.05, 0.05, 0.05)
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "MATERIAL"
    scene.display.shading.show_shadows = True
    scene.display.shading.show_cavity = True
    scene.render.resolution_x, scene.render.resolution_y = resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    return cam


def aim(cam, eye, target):
    cam.location = eye
    d = np.asarray(target, dtype=float) - np.asarray(eye, dtype=float)
    cam.rotation_euler = (math.atan2(math.hypot(d[0], d[1]), -d[2]), 0.0, math.atan2(d[1], d[0]) - math.pi / 2)


def render_sheet(scene, cam, shots, path, columns, cell):
    """Render one Workbench frame per shot (frame, camera eye, camera target), tiled row by row into a PNG."""
    rows = -(-len(shots) // columns)
    sheet = np.zeros((rows * cell[1], columns * cell[0], 4), dtype=np.float32)
    tmp = files.temporary_name(path, ".cell.png")
    scene.render.resolution_x, scene.render.resolution_y = cell
    for i, (frame, eye, target) in enumerate(shots):
        scene.frame_set(int(frame))
        aim(cam, eye, target)
        scene.render.filepath = tmp
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(tmp)
        pixels = np.array(image.pixels[:], dtype=np.float32).reshape(cell[1], cell[0], 4)
        bpy.data.images.remove(image)
        r, c = divmod(i, columns)
        sheet[(rows - 1 - r) * cell[1]:(rows - r) * cell[1], c * cell[0]:(c + 1) * cell[0]] = pixels
    os.unlink(tmp)
    out = bpy.data.images.new("Contact sheet", columns * cell[0], rows * cell[1], alpha=True)
    out.pixels.foreach_set(sheet.ravel())
    out.file_format = "PNG"

    def write(tmp_png):
        out.filepath_raw = tmp_png
        out.save()
        files.sync_file(tmp_png)

    try:
        files.replace_file(path, write, verify_png, suffix=".tmp.png")
    finally:
        bpy.data.images.remove(out)


def verify_png(path):
    with open(path, "rb") as fh:
        data = fh.read()
    if not (data.startswith(b"\x89PNG\r\n\x1a\n") and data[-12:-4] == b"\x00\x00\x00\x00IEND"):
        raise OSError(0, "the saved PNG is cut short")


def contact_sheet(scene, cam, frames, targets, path, columns=4, cell=(480, 270), distances=None):
    """Render one Workbench frame per (frame, target) from a following side camera (distances: per frame,
    how far it stands against a human's view; 1 by default); tile them into a PNG."""
    distances = np.ones(len(frames)) if distances is None else distances
    shots = [(frame, np.asarray(target) + far * np.array([5.5, -2.5, 1.6]), np.asarray(target) + [0.0, 0.4, -0.2])
             for frame, target, far in zip(frames, targets, distances)]
    render_sheet(scene, cam, shots, path, columns, cell)


def clear_file():
    for collection in (bpy.data.objects, bpy.data.meshes, bpy.data.curves, bpy.data.cameras, bpy.data.armatures,
                       bpy.data.lights, bpy.data.materials, bpy.data.actions):
        for block in list(collection):
            collection.remove(block)
    for coll in list(bpy.data.collections):
        bpy.data.collections.remove(coll)


def run(output_dir="out", render=True, sheet_frames=8):
    """Build, solve and bake the demo; save output_dir/demo.blend and render output_dir/demo.png (a contact
    sheet: sheet_frames of the human, then as many of the wolf), then output_dir/walk.png and run.png
    (render_stride, which replaces the scene in memory); return the paths of demo.blend and demo.png."""
    os.makedirs(output_dir, exist_ok=True)
    clear_file()
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 30, 1.0, 1
    terrain = build_terrain()
    coll = scene_io.new_track(bpy.context, "Story", terrain=terrain)
    scene_io.write_track(coll, story_track())
    if bpy.ops.footprint.conform() != {"FINISHED"}:
        raise RuntimeError("conforming the demo track to the terrain failed")
    rig = generate_rigify("human")
    body_capsules(rig, *body_materials())
    from . import bake

    strip, motion = bake.bake(bpy.context, coll, rig)
    com_path_curve(motion.com)
    footprint_render_mesh(coll)
    wolf_steps, profile = wolf_track()
    ramp = profile_mesh("Wolf ground", *profile, WOLF_X + np.array([-1.0, 1.0]) * WOLF_GROUND_HALF_WIDTH)
    wolf_coll = scene_io.new_track(bpy.context, "Wolf", "dog", terrain=ramp)
    scene_io.write_track(wolf_coll, wolf_steps)
    wolf = generate_rigify("wolf")
    wolf.name = "Wolf rig"  # the human's is "rig"
    quadruped_capsules(wolf, body_materials()[0])
    wolf_strip, wolf_motion = bake.bake(bpy.context, wolf_coll, wolf)
    footprint_render_mesh(wolf_coll, "Wolf footprint shapes")
    scene.footprint.active_track = coll
    scene.frame_end = int(max(strip.frame_end, wolf_strip.frame_end))
    blend_path = os.path.abspath(os.path.join(output_dir, "demo.blend"))
    png_path = os.path.abspath(os.path.join(output_dir, "demo.png"))
    cam = setup_render(scene, (480, 270))
    headless.save_copy(blend_path)
    if render:
        frames, targets, distances = [], [], []
        for baked, solved, far in ((strip, motion, 1.0), (wolf_strip, wolf_motion, WOLF_VIEW)):  # human, wolf
            shown = np.linspace(baked.frame_start, baked.frame_end, sheet_frames).round().astype(int)
            frames += list(shown)
            targets += list(solved.com[np.clip(shown - int(baked.frame_start), 0, len(solved.com) - 1)])
            distances += [far] * sheet_frames
        contact_sheet(scene, cam, frames, targets, png_path, distances=distances)
        for name in STRIDES:
            path, knees = render_stride(name, output_dir)
            print(f"demo: rendered {path}; knee (degrees) " + ", ".join(
                f"{phase} {low:.0f}-{high:.0f}" for phase, (low, high) in knees.items()))
        for name in STEPPING:
            path, (low, high) = render_steps(name, output_dir)
            print(f"demo: rendered {path}; knee (degrees) {low:.0f}-{high:.0f}")
        for kind, gait, speed in GAIT_RENDERS:
            path, girdles = render_gait(kind, gait, speed, output_dir)
            print(f"demo: rendered {path}; girdles {girdles[0]:.2f} and {girdles[1]:.2f} of standing")
    return blend_path, png_path if render else None


# The strides rendered side and front: (step m, step time s, stance s, width m, footprints), the walks' steps
# from gait data at each speed (tests/test_whole_body.py's GAIT_SPEEDS: 0.8, 1.3 and 1.8 m/s, stance 65, 60
# and 58 % of the stride); the run is its run_document() (3.5 m/s).
STRIDES = {"walk-0.8": (0.53, 0.667, 0.867, 0.19, 14), "walk": (0.715, 0.55, 0.66, 0.19, 14),
           "walk-1.8": (0.864, 0.48, 0.557, 0.19, 14), "run": (1.225, 0.35, 0.25, 0.18, 16)}
WALK_CELL = (300, 380)  # portrait cells: the whole body, head to feet, in each frame
WALK_VIEW_HEIGHT = 2.3  # metres of the world each cell shows from bottom to top (orthographic cameras)


def stride_track(name):
    """STRIDES[name] as a Track: footprints along +Y, the left foot first."""
    step, step_time, stance, width, count = STRIDES[name]
    i = np.arange(count)
    positions = np.column_stack([width / 2 * (-1.0) ** (i + 1), step * i, np.zeros(count)])
    return make_track(np.where(i % 2 == 0, "L", "R"), positions, np.zeros(count), step_time * i,
                      step_time * i + stance)


def pelvis_position(rig, bone="DEF-spine"):
    """World position of the evaluated rig's pelvis (the head of its first spine bone) at the current frame."""
    evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
    return np.array(evaluated.matrix_world @ evaluated.pose.bones[bone].head)


def render_stride(name, output_dir="out", frames_per_stride=8, first_step=6):
    """The straight STRIDES[name] (the 0.8, 1.3 and 1.8 m/s walks, the 3.5 m/s run) on a flat walkway, baked
    (walking attributes on) onto a Rigify human and rendered as output_dir/<name>.png (render_rows): one stride
    from the left footfall of footprint first_step. Returns the picture's path and the knee measured on the
    evaluated rig: a walk's phase table (rig_quality.phase_table), a run's stance and swing
    (rig_quality.stance_and_swing)."""
    track = stride_track(name)
    step, step_time, _stance, _width, count = STRIDES[name]
    times = track.contact[first_step] + 2.0 * step_time * np.arange(frames_per_stride) / frames_per_stride
    path, motion, knees = render_rows(name, track, times, output_dir, (-1.5, 1.5, -3.0, step * (count - 1) + 3.0))
    running = len(motion.track) and not schedule.walking_landings(motion.track)[first_step]
    return path, (rig_quality.stance_and_swing if running else rig_quality.phase_table)(knees, motion)


# docs/stepping.md's cases, rendered side and front: stepping to a stance turned 120 degrees, a push forward.
STEPPING = {"step-turn": ("to", (-1.25, 2.17, 120.0)), "step-push": ("push", (0.0, 1.5))}


def stepping_track(name):
    """STEPPING[name] as the `step` command makes it for the human from standing at the origin facing +Y."""
    from ..solver.stepping import Stance, recover_from_push, step_to_stance

    human = preset("human")
    start = Stance.centred(human, 0.0, 0.0, 0.0)
    kind, values = STEPPING[name]
    if kind == "to":
        x, y, heading = values
        return step_to_stance(human, start, Stance.centred(human, x, y, math.radians(heading)))
    return recover_from_push(human, start, values)


def render_steps(name, output_dir="out", frames=8):
    """STEPPING[name] baked onto a Rigify human and rendered as output_dir/<name>.png (render_rows), frames
    evenly over the whole motion. Returns the picture's path and the knees' least and most flexion (degrees)."""
    track = stepping_track(name)
    start, end = float(track.contact.min()), float(track.liftoff.max())
    path, _motion, knees = render_rows(name, track, np.linspace(start, end, frames), output_dir, (-3.0, 3.0, -3.0, 4.0))
    return path, (float(min(k.min() for k in knees)), float(max(k.max() for k in knees)))


def track_on_flat_ground(name, character, track, ground):
    """The scene at 60 fps from frame 1, a flat ground mesh (x0, x1, y0, y1) at z = 0 and the track on it, a
    new track collection for the character preset named; the collection."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base, scene.frame_start = 60, 1.0, 1
    x0, x1, y0, y1 = ground
    mesh = bpy.data.meshes.new("Ground")
    mesh.from_pydata([(x, y, 0.0) for y in (y0, y1) for x in (x0, x1)], [], [(0, 1, 3, 2)])
    obj = bpy.data.objects.new("Ground", mesh)
    scene.collection.objects.link(obj)
    coll = scene_io.new_track(bpy.context, name, character, terrain=obj)
    scene_io.write_track(coll, track)
    return coll


def render_rows(name, track, times, output_dir, ground):
    """The track on a flat ground (x0, x1, y0, y1) baked (walking attributes on) onto a Rigify human and rendered
    as output_dir/<name>.png: at the times (seconds), seen from the character's right side (top row) and from
    in front (bottom row), orthographic cameras following the pelvis at a fixed height. Left limbs are
    blue-grey, right limbs warm, the trunk skin-coloured. Returns the path, the motion and the knees' flexion
    per frame (knee_flexions)."""
    clear_file()
    scene = bpy.context.scene
    coll = track_on_flat_ground(name.title(), "human", track, ground)
    scene_io.set_motion(coll, track)  # a stepping track is solved as one
    rig = generate_rigify("human")
    body_capsules(rig, *body_materials())
    from . import bake

    strip, motion = bake.bake(bpy.context, coll, rig)
    scene.frame_end = int(strip.frame_end)
    knees = knee_flexions(rig, np.rint(scene.frame_start + motion.times * scene.render.fps).astype(int))
    footprint_render_mesh(coll)
    cam = setup_render(scene, WALK_CELL)
    cam.data.type = "ORTHO"
    cam.data.ortho_scale = WALK_VIEW_HEIGHT * max(WALK_CELL) / WALK_CELL[1]
    rate = scene.render.fps / scene.render.fps_base
    frames = np.rint(scene.frame_start + np.asarray(times) * rate).astype(int)
    elevation = math.radians(4.0)
    shots = []
    for direction in ((1.0, 0.0), (0.0, 1.0)):  # the character's right side; in front of it (it walks +Y)
        for frame in frames:
            scene.frame_set(int(frame))
            pelvis = pelvis_position(rig)
            target = np.array([pelvis[0], pelvis[1], 0.5 * WALK_VIEW_HEIGHT - 0.2])  # the ground in view
            eye = target + 20.0 * np.array([math.cos(elevation) * direction[0],
                                            math.cos(elevation) * direction[1], math.sin(elevation)])
            shots.append((frame, eye, target))
    path = os.path.abspath(os.path.join(output_dir, f"{name}.png"))
    render_sheet(scene, cam, shots, path, len(frames), WALK_CELL)
    return path, motion, knees


# One stride of each animal's gaits, side on (the README's pictures): (Rigify metarig, gait, m/s)
GAIT_RENDERS = (("wolf", "walk", 1.0), ("wolf", "trot", 3.0), ("wolf", "rotary_gallop", 7.0), ("wolf", "bound", 5.0),
                ("horse", "walk", 1.6), ("horse", "trot", 3.5), ("horse", "canter", 6.0), ("horse", "gallop", 10.0),
                ("cat", "walk", 0.6), ("cat", "trot", 1.5), ("cat", "rotary_gallop", 4.0))
GAIT_PRESETS = {"wolf": "dog", "horse": "horse", "cat": "cat"}
GAIT_CELL = (240, 180)
GAIT_FRAMES = 6


def render_gait(kind, gait, speed, output_dir="out"):
    """The gait at speed from standing to standing on a flat ground, baked onto the Rigify `kind` generated from
    Blender's metarig and rendered as output_dir/<kind>-<gait>.png: GAIT_FRAMES frames of one stride in the
    middle of the track seen from the animal's right side, an orthographic camera following its body. Returns
    the path, and the hip and shoulder girdles' mean height over that stride as fractions of standing."""
    from . import bake

    clear_file()
    scene = bpy.context.scene
    rig = generate_rigify(kind)
    quadruped_capsules(rig, body_materials()[0])
    binding = bake.bind(rig)
    character = bake.rig_character(binding, GAIT_PRESETS[kind])
    stride = quadruped_gaits.stride_of(quadruped_gaits.GAITS[gait], speed, character)
    track = gait_track(character, gait, speed, 6.0 * stride, preset_name=GAIT_PRESETS[kind], stand=True)
    half = 1.5 * character.leg_length_nominal
    far = float(track.positions[:, 1].max()) + 3.0 * half
    coll = track_on_flat_ground(f"{kind} {gait}", GAIT_PRESETS[kind], track, (-half, half, -3.0 * half, far))
    strip, motion = bake.bake(bpy.context, coll, rig)
    scene.frame_end = int(strip.frame_end)
    footprint_render_mesh(coll)
    lh = np.sort(track.contact[track.feet == "LH"])
    start = lh[len(lh) // 2]
    times = start + stride / speed * np.arange(GAIT_FRAMES) / GAIT_FRAMES
    frames = np.rint(scene.frame_start + times * scene.render.fps).astype(int)
    girdle_bones = [binding.hips[foot] for foot in ("LH", "RH", "LF", "RF")]
    heads = rig_quality.evaluated_matrices(bpy.context, rig, girdle_bones, frames)[..., 2, 3]
    rest = np.array([(rig.matrix_world @ rig.data.bones[name].head_local).z for name in girdle_bones])
    girdles = (float(heads[:, :2].mean() / rest[:2].mean()), float(heads[:, 2:].mean() / rest[2:].mean()))
    cam = setup_render(scene, GAIT_CELL)
    cam.data.type = "ORTHO"
    cam.data.ortho_scale = 2.4 * character.leg_length_nominal * GAIT_CELL[0] / GAIT_CELL[1]
    shots = []
    for frame, t in zip(frames, times):  # the camera on the solved centre of mass
        centre = [np.interp(t, motion.times, motion.com[:, axis]) for axis in (0, 1)]
        target = np.array([centre[0], centre[1], 0.6 * character.leg_length_nominal])
        shots.append((frame, target + 20.0 * np.array([1.0, 0.0, 0.0]), target))
    path = os.path.abspath(os.path.join(output_dir, f"{kind}-{gait}.png"))
    render_sheet(scene, cam, shots, path, len(frames), GAIT_CELL)
    return path, girdles


def knee_flexions(rig, frames):
    """Each knee's flexion (degrees per frame, L then R) on the evaluated Rigify human: the angle between its
    thigh and shin deform bones."""
    bones = [f"DEF-{part}.{side}" for side in "LR" for part in ("thigh", "shin")]
    axes = rig_quality.evaluated_matrices(bpy.context, rig, bones, frames)[..., :3, 1]
    axes /= np.linalg.norm(axes, axis=-1, keepdims=True)
    return [np.degrees(np.arccos(np.clip(np.sum(axes[:, 2 * k] * axes[:, 2 * k + 1], axis=-1), -1.0, 1.0)))
            for k in range(2)]
