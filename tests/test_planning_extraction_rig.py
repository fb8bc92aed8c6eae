"""Footprints from existing animation on a Rigify human (issue 20, item 4): the product's own bake of the straight
walk, made the rig's own action (as a clip from elsewhere is), gives back its footprints within 1 cm and one frame;
re-solved onto ground 0.3 m higher in places and baked with the original's upper body layered over it, the planted
deform feet drift at most 1 mm, the upper body turns as the original's does and the layer leaves the legs exactly as
baked; a keyframed walk whose stance feet slide gives one footprint per plant and bakes without the skate; bad
input is refused by name with the scene and the rig's animation unchanged; the command line writes the track or
nothing. (The detection itself on sampled motion: test_planning_extraction.py.)"""

import importlib
import math
import os

import bpy
import mathutils
import numpy as np
import pytest

from blender_scenes import evaluated_matrices
from conftest import ROOT
from scene_state import snapshot

WALK = os.path.join(ROOT, "tests", "data", "straight_walk.json")  # 9 footprints along +Y, 0.7 m steps
DRIFT = 0.001  # metres: the bar for planted feet
RISE = 0.3  # metres: the box under footprints 4-6 (y 2.8 to 4.2)
BOX = (2.45, 4.55)  # its extent along +Y
HEAD_TURN = math.radians(35.0)  # the original's head turns this far either way about the neck (a look around)
SLIDE = 0.04  # metres each stance foot of the skating walk slides along +Y over its stance
DEFORM = ("DEF-foot.L", "DEF-foot.R", "DEF-toe.L", "DEF-toe.R")  # Rigify's deform feet: foot (ankle to ball), toes
UPPER = ("head", "chest", "upper_arm_fk.L", "forearm_fk.R")  # upper-body controls the original keys
LEGS = ("DEF-thigh.L", "DEF-shin.L", "DEF-foot.L", "DEF-thigh.R", "DEF-shin.R", "DEF-foot.R", "torso")


@pytest.fixture(scope="module")
def module(addon):
    return lambda name: importlib.import_module(f"{addon}.{name}")


def fcurves(module, action):
    return {(fc.data_path, fc.array_index): fc for fc in module("footprint_addon.animation").action_fcurves(action)}


@pytest.fixture(scope="module")
def walk(module, rigify_blend, tmp_path_factory):
    """The Rigify human whose own action is the product's bake of the straight walk (the bake's strip, track and
    footprints gone, the action assigned), its head turning up to HEAD_TURN about the neck and back so that the
    original's upper body is told from a bake's; saved. (path, the walk's footprints as baked)."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    rig = bpy.data.objects["rig"]
    assert bpy.ops.footprint.import_json(filepath=WALK) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    truth = module("footprint_addon.scene_io").read_track(coll)
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = rig.animation_data
    action = anim.nla_tracks[0].strips[0].action
    anim.nla_tracks.remove(anim.nla_tracks[0])
    anim.action = action
    for obj in list(coll.objects):
        bpy.data.objects.remove(obj)
    bpy.data.collections.remove(coll)
    action.name = "Walk"
    head = [fcurves(module, action)[('pose.bones["head"].rotation_quaternion', k)] for k in range(4)]
    for i in range(len(head[0].keyframe_points)):
        frame = head[0].keyframe_points[i].co[0]
        q = mathutils.Quaternion([curve.keyframe_points[i].co[1] for curve in head])
        q = q @ mathutils.Quaternion((0.0, 1.0, 0.0), HEAD_TURN * math.sin(frame / 12.0))  # about the neck's axis
        for k, curve in enumerate(head):
            curve.keyframe_points[i].co[1] = q[k]
    for curve in head:
        curve.update()
    path = str(tmp_path_factory.mktemp("extraction") / "walk.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return path, truth


def open_walk(walk):
    bpy.ops.wm.open_mainfile(filepath=walk[0])
    return bpy.data.objects["rig"]


def extracted(module):
    """The active track (the one extraction made) as a solver Track."""
    return module("footprint_addon.scene_io").read_track(bpy.context.scene.footprint.active_track)


def assert_matches(found, truth, fps, position=0.01):
    """Same footprints, feet in order, within `position` metres, one degree and one frame."""
    assert len(found) == len(truth) and list(found.feet) == list(truth.feet)
    assert np.abs(found.positions - truth.positions).max() < position
    assert np.degrees(np.abs(found.headings - truth.headings)).max() < 1.0
    assert np.abs(found.contact - truth.contact).max() <= 1.0 / fps + 1e-6
    assert np.abs(found.liftoff - truth.liftoff).max() <= 1.0 / fps + 1e-6


def evaluated_pose(rig, frame, bones):
    bpy.context.scene.frame_set(frame)
    evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
    return np.array([np.array(evaluated.matrix_world @ evaluated.pose.bones[name].matrix) for name in bones])


def animation_state(rig):
    """The rig's animation data as extraction must leave it, and the scene's frame."""
    anim = rig.animation_data
    return (None if anim is None else (anim.action, anim.use_nla, len(anim.nla_tracks)),
            bpy.context.scene.frame_current, sorted(a.name for a in bpy.data.actions))


def planted_drift(module, rig, coll):
    """The largest move (metres) of a planted deform foot over the bake of the track: the ball (DEF-toe's
    head) while the ball is planted (on a footprint, not rolling down from a heel strike), the back of the heel
    (carried by DEF-foot) while the heel is (on a footprint, not lifted); and the motion."""
    quality = module("footprint_addon.rig_quality")
    binding = module("footprint_addon.rigs").bind(rig)
    frames, motion = module("footprint_addon.bake").solve_for_rig(bpy.context, coll, binding)  # (as baked)
    matrices = evaluated_matrices(rig, frames, DEFORM)
    worst = 0.0
    for leg, foot in enumerate("LR"):
        heel_point = quality.sole_layout(binding, foot)[0][2]
        heel = quality.carried(matrices[:, leg], quality.rest_local(rig, DEFORM[leg], heel_point,
                                                                     binding.measurements["upright"]))
        ball = matrices[:, 2 + leg, :3, 3]
        on = motion.contact[:, leg]
        pivot = motion.toe_pivot[:, leg]
        for points, planted in ((ball, on & (pivot >= 0)), (heel, on & (pivot <= 0))):
            worst = max(worst, quality.stance_drift(points, np.where(planted, motion.footprint[:, leg], -1))[0])
    return worst, motion


def test_the_products_own_bake_gives_back_its_footprints(walk, module):
    rig = open_walk(walk)
    scene = bpy.context.scene
    scene.frame_set(17)
    other = module("footprint_addon.scene_io").new_track(bpy.context, "Someone else's")
    before, pose = animation_state(rig), evaluated_pose(rig, 17, LEGS)
    bpy.ops.ed.undo_push(message="before")
    kept = snapshot()
    assert bpy.ops.footprint.extract_footprints(rig="rig") == {"FINISHED"}  # the rig's own action
    coll = scene.footprint.active_track
    assert coll != other and coll["footprint_extracted_action"] == bpy.data.actions["Walk"]
    assert_matches(extracted(module), walk[1], module("footprint_addon.scene_clock").fps(scene))
    # The rig's animation and the scene's frame as they were: the same pose at the same frame.
    assert animation_state(rig) == before
    assert np.abs(evaluated_pose(rig, 17, LEGS) - pose).max() < 1e-6
    # Again (the action named this time): the same track's footprints rewritten, nothing else.
    objects = {o.name for o in bpy.data.objects}
    assert bpy.ops.footprint.extract_footprints(rig="rig", action="Walk") == {"FINISHED"}
    assert scene.footprint.active_track == coll and {o.name for o in bpy.data.objects} == objects
    assert [c.name for c in bpy.data.collections if c.footprint_track.is_track] == ["Someone else's", coll.name]
    bpy.ops.ed.undo_push(message="extracted")
    bpy.ops.ed.undo()
    assert snapshot() == kept


@pytest.fixture(scope="module")
def raised(walk, module, tmp_path_factory):
    """The walk extracted, its track's terrain a floor and a box RISE high under footprints 4-6, conformed, then
    baked with the original upper body; saved: its path."""
    rig = open_walk(walk)
    assert bpy.ops.footprint.extract_footprints(rig="rig") == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    ground = bpy.data.collections.new("Ground")
    bpy.context.scene.collection.children.link(ground)
    mesh = bpy.data.meshes.new("Floor")
    mesh.from_pydata([(-3.0, -3.0, 0.0), (3.0, -3.0, 0.0), (3.0, 9.0, 0.0), (-3.0, 9.0, 0.0)], [], [(0, 1, 2, 3)])
    ground.objects.link(bpy.data.objects.new("Floor", mesh))
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.5 * sum(BOX), 0.5 * RISE))
    box = bpy.context.active_object
    box.name, box.scale = "Box", (3.0, BOX[1] - BOX[0], RISE)
    bpy.context.scene.collection.objects.unlink(box)
    ground.objects.link(box)
    coll.footprint_track.terrain_collection = ground
    assert bpy.ops.footprint.conform() == {"FINISHED"}
    assert bpy.ops.footprint.bake_extracted() == {"FINISHED"}
    assert rig.animation_data.action is None  # the original off the top (it would play over every strip)
    path = str(tmp_path_factory.mktemp("extraction") / "raised.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return path


def test_resolved_on_raised_ground_feet_stay_planted_and_the_upper_body_is_the_originals(raised, module):
    bpy.ops.wm.open_mainfile(filepath=raised)
    rig, coll = bpy.data.objects["rig"], bpy.context.scene.footprint.active_track
    heights = np.round(extracted(module).positions[:, 2], 4)
    assert list(heights) == [0.0] * 4 + [RISE] * 3 + [0.0] * 2  # three footprints up on the box
    drift, motion = planted_drift(module, rig, coll)
    assert drift <= DRIFT, drift
    # The upper body is the original's: its local rotations are the original action's keys...
    original = coll["footprint_extracted_action"]
    curves = fcurves(module, original)
    frames = np.arange(int(original.frame_range[0]), int(original.frame_range[1]) + 1, 6)
    layer = rig.animation_data.nla_tracks[f"Original upper body: {coll.name}"]
    layered, bare = {}, {}
    for strips, out in ((False, layered), (True, bare)):
        layer.mute = strips
        for frame in frames:
            bpy.context.scene.frame_set(int(frame))
            evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
            out[frame] = ({bone: np.array(evaluated.pose.bones[bone].rotation_quaternion) for bone in UPPER},
                          evaluated_pose(rig, int(frame), LEGS))
    for frame in frames:
        for bone in UPPER:
            path = f'pose.bones["{bone}"].rotation_quaternion'
            keys = np.array([curves[(path, k)].evaluate(frame) for k in range(4)])
            assert np.abs(layered[frame][0][bone] - keys).max() < 1e-5, (bone, frame)
        # ... and the layer leaves the legs and the body exactly as baked.
        assert np.abs(layered[frame][1] - bare[frame][1]).max() < 1e-6, frame
    # Without the layer the head is the bake's own, steadied (it does not look around): the layer is what turns it.
    turns = [2.0 * math.acos(min(1.0, abs(float(np.dot(layered[f][0]["head"], bare[f][0]["head"]))))) for f in frames]
    assert max(turns) > 0.7 * HEAD_TURN


def test_render_the_resolved_walk_stepping_onto_the_box(raised, module, tmp_path):
    """A Workbench picture from the walk's right side as the left foot lands on the box (stand-in body capsules, left
    limbs blue-grey, right warm): for a person to look at; here, that the body stands on the box in it."""
    bpy.ops.wm.open_mainfile(filepath=raised)
    rig, scene = bpy.data.objects["rig"], bpy.context.scene
    demo = module("footprint_addon.demo")
    rig.data.pose_position = "REST"  # (the capsules are built on the rest pose)
    bpy.context.view_layer.update()
    demo.body_capsules(rig, *demo.body_materials())
    rig.data.pose_position = "POSE"
    track = extracted(module)
    frame = module("footprint_addon.scene_clock").frame(scene, track.contact[4] + 0.25)  # on the box's first footprint
    cam = demo.setup_render(scene, (400, 400))
    cam.data.type, cam.data.ortho_scale = "ORTHO", 2.4
    scene.frame_set(frame)
    pelvis = demo.pelvis_position(rig)
    target = np.array([pelvis[0], pelvis[1], 1.1])
    path = str(tmp_path / "side.png")
    demo.render_sheet(scene, cam, [(frame, target + np.array([20.0, 0.0, 0.5]), target)], path, 1, (400, 400))
    image = bpy.data.images.load(path)
    pixels = np.array(image.pixels[:]).reshape(400, 400, 4)[::-1]  # rows top down
    bpy.data.images.remove(image)
    background = pixels[5, 5, :3]
    rows = np.flatnonzero((np.abs(pixels[..., :3] - background).sum(axis=-1) > 0.1).any(axis=1))
    pixels_per_metre = 400 / 2.4
    box_top = 200 + (1.1 - RISE) * pixels_per_metre  # the box's top face's row
    assert rows.min() < 200 - 0.5 * pixels_per_metre  # the head and chest well above the pelvis
    assert rows.max() > box_top  # down to the box


def skating_walk(module, rig, truth):
    """The rig's walk with each foot's IK control sliding SLIDE along +Y over each stance (deliberate skate)."""
    scene = bpy.context.scene
    curves = fcurves(module, rig.animation_data.action)
    seconds = module("footprint_addon.scene_clock").seconds
    for foot in "LR":
        rest = np.array(rig.data.bones[f"foot_ik.{foot}"].matrix_local)[:3, :3]
        location = [curves[(f'pose.bones["foot_ik.{foot}"].location', k)] for k in range(3)]
        frames = np.array([p.co[0] for p in location[0].keyframe_points])
        times = seconds(scene, frames)
        offset = np.zeros(len(frames))
        for i in np.flatnonzero(truth.feet == foot):
            stance = (times >= truth.contact[i]) & (times <= truth.liftoff[i])
            offset[stance] = SLIDE * ((times[stance] - truth.contact[i]) / (truth.liftoff[i] - truth.contact[i]) - 0.5)
        for k, curve in enumerate(location):  # the world move in the control's own axes (its parent at rest)
            for point, move in zip(curve.keyframe_points, offset):
                point.co[1] += (rest.T @ np.array([0.0, move, 0.0]))[k]
            curve.update()


def test_a_skating_keyframed_walk_gives_one_footprint_per_plant_and_bakes_without_skate(walk, module):
    rig = open_walk(walk)
    skating_walk(module, rig, walk[1])
    scene, truth = bpy.context.scene, walk[1]
    first, last = rig.animation_data.action.frame_range
    frames = np.arange(int(first), int(last) + 1)
    balls = evaluated_matrices(rig, frames, DEFORM[2:])[..., 1, 3]  # (along +Y)
    times = module("footprint_addon.scene_clock").seconds(scene, frames)
    for i, foot in enumerate(truth.feet):  # the original skates: each ball slides centimetres while it is planted
        planted = (times > truth.contact[i] + 0.1) & (times < truth.liftoff[i] - 0.1)
        assert np.ptp(balls[planted, "LR".index(foot)]) > 0.25 * SLIDE
    assert bpy.ops.footprint.extract_footprints(rig="rig") == {"FINISHED"}
    assert_matches(extracted(module), truth, module("footprint_addon.scene_clock").fps(scene), position=0.5 * SLIDE)
    assert bpy.ops.footprint.bake_extracted() == {"FINISHED"}
    drift, _motion = planted_drift(module, rig, scene.footprint.active_track)
    assert drift <= DRIFT, drift


def refused(operator, *names, **properties):
    """Run an operator that must refuse: CANCELLED, every name in its error, scene and animation unchanged."""
    rig = bpy.data.objects.get(properties.get("rig", "rig"))
    before, kept = snapshot(), None if rig is None else animation_state(rig)
    with pytest.raises(RuntimeError) as error:
        operator(**properties)
    for name in names:
        assert name in str(error.value), (name, str(error.value))
    assert snapshot() == before
    assert rig is None or animation_state(rig) == kept


def test_bad_input_is_named_and_changes_nothing(walk, rigify_blend, module):
    extract = bpy.ops.footprint.extract_footprints
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    refused(extract, "'rig'", "no action", rig="rig")  # a rig with no animation at all
    rig = open_walk(walk)
    refused(extract, "'Jog'", "no action 'Jog'", rig="rig", action="Jog")
    writer = module("footprint_addon.animation").ChannelWriter("Flying", rig)  # lifted off and flying away
    for k, (start, end) in enumerate(((0.0, 0.0), (0.0, 30.0), (1.0, 1.0))):
        writer.write("location", k, [1.0, 60.0], [start, end])
    refused(extract, "'Flying'", "no foot plant found", rig="rig", action="Flying")
    assert rig.animation_data.action == bpy.data.actions["Walk"]
    stick = bpy.data.objects.new("Stick", bpy.data.armatures.new("Stick"))
    bpy.context.scene.collection.objects.link(stick)
    bpy.context.view_layer.objects.active = stick
    bpy.ops.object.mode_set(mode="EDIT")
    stick.data.edit_bones.new("bone").tail = (0.0, 0.0, 1.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    refused(extract, "'Stick'", rig="Stick", action="Walk")  # no feet to find
    refused(extract, "'Floor'", rig="rig", terrain="Floor")  # no such mesh
    module("footprint_addon.scene_io").new_track(bpy.context, "Drawn by hand")
    refused(bpy.ops.footprint.bake_extracted, "'Drawn by hand'", "not extracted")


def test_command_line_writes_the_track_or_nothing(walk, module, tmp_path):
    cli = module("footprint_addon.cli")
    output = tmp_path / "walk.json"
    assert cli.main(["extract", walk[0], "--rig", "rig", "--action", "Walk", "--output", str(output)]) == 0
    track = module("solver.track").load_track(str(output))
    assert_matches(track, walk[1], module("footprint_addon.scene_clock").fps(bpy.context.scene))
    for args in (["--rig", "Nobody", "--action", "Walk"], ["--rig", "rig", "--action", "Jog"]):
        missing = tmp_path / "missing.json"
        assert cli.main(["extract", walk[0], *args, "--output", str(missing)]) == 1
        assert not missing.exists()
