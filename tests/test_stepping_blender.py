"""Step to Target on a Rigify human (WMZ; issue 19, item 5): the rig steps from its pose at the current frame
to an empty's stance as an ordinary footprint track marked "motion": "stepping", baked like any other; the
mark survives an edit and a re-bake, and JSON; the step database shapes the end pose's upper body; bad input
is refused with the scene unchanged; undo restores it."""

import importlib
import json
import math

import bpy
import mathutils
import numpy as np
import pytest

from scene_state import snapshot

TURN = math.radians(120.0)  # the target's heading against the rig's facing
DISTANCE = 2.5  # metres from the rig's feet to the target
START_FRAME = 11  # the current frame Step to Target starts from (not the scene's first)
# Rigify's deform bones: the foot (ankle to ball) and the toe (its head is the ball of the foot)
FOOT_BONES = {"L": "DEF-foot.L", "R": "DEF-foot.R"}
BALL_BONES = {"L": "DEF-toe.L", "R": "DEF-toe.R"}
ANGLE_TOLERANCE = 1e-4  # radians between a keyed local rotation and the one it should be: the keys are float32
# (about 1e-7 rad of rounding through quaternion components); 0.006 degrees is far below anything visible


@pytest.fixture(scope="module")
def modules(addon):
    def module(name):
        return importlib.import_module(f"{addon}.{name}")

    return module


@pytest.fixture
def rig(rigify_blend):
    """The Rigify human at rest, active and selected, the scene at START_FRAME; its rest facing (radians)."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    rig = bpy.data.objects["rig"]
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.context.scene.frame_set(START_FRAME)
    return rig


def add_target(rig, modules, distance=1.0, turn=math.radians(45.0), bearing=math.radians(30.0)):
    """An empty `distance` m from the rig's feet, `bearing` left of its facing, turned `turn` from it; picked
    as the Stepping panel's target."""
    facing = modules("footprint_addon.rigs").bind(rig).measurements["facing"]
    direction = facing + bearing
    empty = bpy.data.objects.new("Target", None)
    bpy.context.scene.collection.objects.link(empty)
    empty.location = (-distance * math.sin(direction), distance * math.cos(direction), 0.0)
    empty.rotation_euler = (0.0, 0.0, facing + turn)
    bpy.context.scene.footprint_stepping.target = empty
    bpy.context.view_layer.update()
    return empty


def feet_on_rig(modules, rig, frames):
    """Measured on the evaluated deform bones at the frames: each foot's support point (F, 2, 3) (the
    binding's, on the rest sole between ankle and ball, carried by DEF-foot), heading (F, 2) (the rest facing
    turned as DEF-foot turned about the vertical) and ball (F, 2, 3) (DEF-toe's head), feet L, R."""
    quality = modules("footprint_addon.rig_quality")
    m = modules("footprint_addon.rigs").bind(rig).measurements
    names = [FOOT_BONES["L"], FOOT_BONES["R"], BALL_BONES["L"], BALL_BONES["R"]]
    matrices = quality.evaluated_matrices(bpy.context, rig, names, frames)
    support, heading = np.zeros((len(frames), 2, 3)), np.zeros((len(frames), 2))
    for i, foot in enumerate("LR"):
        support[:, i] = quality.carried(matrices[:, i], quality.rest_local(rig, names[i], m["support"][foot],
                                                                           m["upright"]))
        toes = m["balls"][foot] - m["ankles"][foot]
        rest = np.array(rig.data.bones[names[i]].matrix_local)[:3, :3]
        now = matrices[:, i, :3, :3] @ (rest.T @ m["upright"].T @ toes)
        heading[:, i] = m["facing"] + np.arctan2(-now[:, 0], now[:, 1]) - math.atan2(-toes[0], toes[1])
    return support, heading, matrices[:, 2:, :3, 3]


def angle_between(a, b):
    return np.abs(np.arctan2(np.sin(a - b), np.cos(a - b)))


def target_stance(modules, rig, empty):
    """The stance the rig must end in: its feet centred on the empty, facing the empty's heading."""
    character = modules("footprint_addon.bake").rig_character(modules("footprint_addon.rigs").bind(rig))
    stepping = modules("solver.stepping")
    heading = empty.rotation_euler.z
    return stepping.Stance.centred(character, empty.location.x, empty.location.y, heading)


def step_track(rig):
    """The track collection Step to Target made for the rig (exactly one)."""
    (coll,) = [c for c in bpy.data.collections if c.get("footprint_step_rig") == rig]
    return coll


def bake_strip(rig, coll):
    return rig.animation_data.nla_tracks[f"Footprints: {coll.name}"].strips[0]


def test_step_to_target_steps_the_rig_onto_the_target(rig, modules):
    empty = add_target(rig, modules, DISTANCE, TURN)
    start_support, start_heading, _ = feet_on_rig(modules, rig, [START_FRAME])
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    coll = step_track(rig)
    scene_io = modules("footprint_addon.scene_io")
    track = scene_io.read_track(coll)
    assert coll.footprint_track.motion == "stepping" and track.extras == {"motion": "stepping"}
    # The start stance's two footprints, where the feet stood, from the current frame; then one per step.
    start = modules("footprint_addon.scene_clock").seconds(bpy.context.scene, START_FRAME)
    order = np.argsort(track.contact, kind="stable")
    first = {str(track.feet[i]): i for i in order[::-1]}
    assert sorted(first) == ["L", "R"] and all(track.contact[first[f]] == pytest.approx(start, abs=1e-6) for f in "LR")
    for k, foot in enumerate("LR"):
        assert np.linalg.norm(track.positions[first[foot]] - start_support[0, k]) < 1e-4
        assert angle_between(track.headings[first[foot]], start_heading[0, k]) < 1e-4
    assert len(track) >= 2 + 3  # 2.5 m away and turned: more than one step each
    strip = bake_strip(rig, coll)
    assert strip.frame_start == START_FRAME
    # The evaluated rig's feet end on the target stance.
    end = int(strip.frame_end)
    support, heading, balls = feet_on_rig(modules, rig, list(range(START_FRAME, end + 1)))
    target = target_stance(modules, rig, empty)
    assert np.linalg.norm(support[-1, :, :2] - np.asarray(target.positions)[:, :2], axis=1).max() < 0.01
    assert angle_between(heading[-1], np.asarray(target.headings)).max() < math.radians(2.0)
    # A planted foot stays put: its ball, about which it rolls and pivots, drifts at most 1 mm.
    times = modules("footprint_addon.scene_clock").seconds(bpy.context.scene, np.arange(START_FRAME, end + 1))
    drifts = []
    for i in range(len(track)):
        k = "LR".index(str(track.feet[i]))
        planted = (times > track.contact[i] + 1e-6) & (times < track.liftoff[i] - 1e-6)
        if planted.sum() > 1:
            ball = balls[planted, k]
            drifts.append(np.linalg.norm(ball - ball[0], axis=1).max())
    assert len(drifts) == len(track) and max(drifts) < 1e-3, drifts


def test_rerun_replaces_what_it_made_and_nothing_else(rig, modules):
    add_target(rig, modules)
    other = bpy.data.actions.new("Someone else's")  # an artist's own strip on the rig stays
    rig.animation_data_create().nla_tracks.new().strips.new("theirs", 1, other)
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    made = {a.name for a in bpy.data.actions} - {other.name}
    bpy.context.scene.footprint_stepping.target.location.x += 0.3
    bpy.context.view_layer.update()
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    coll = step_track(rig)
    assert coll.name == "rig steps"
    strips = {s.name: t.name for t in rig.animation_data.nla_tracks for s in t.strips}
    assert {name: layer for name, layer in strips.items() if name != "theirs"} == {
        "rig steps": "Footprints: rig steps", "rig steps upper body": "Stepping upper body: rig steps"}
    assert "theirs" in strips and len(rig.animation_data.nla_tracks) == 3
    assert {a.name for a in bpy.data.actions} - {other.name} == made  # replaced, under the same names
    assert len([c for c in bpy.data.collections if c.footprint_track.is_track]) == 1


def test_an_edited_footprint_is_solved_by_the_stepping_solver_again(rig, modules):
    add_target(rig, modules)
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    coll = step_track(rig)
    scene_io = modules("footprint_addon.scene_io")
    last_left = [o for o in scene_io.footprints(coll) if o.footprint.foot == "L"][-1]
    last_left.location.x += 0.05
    bpy.context.view_layer.update()
    bpy.context.scene.footprint.active_track = coll
    assert bpy.ops.footprint.bake() == {"FINISHED"}
    assert coll.footprint_track.motion == "stepping"
    track = scene_io.read_track(coll)
    assert track.extras["motion"] == "stepping"
    # The bake's motion is the stepping solver's on the edited track, sampled at the bake's frames.
    bake = modules("footprint_addon.bake")
    binding = modules("footprint_addon.rigs").bind(rig)
    frames, times = bake.frame_times(bpy.context.scene, float(track.contact.min()), float(track.liftoff.max()))
    expected = modules("solver.stepping").solve_steps(track, bake.track_character(coll, binding), times=times)
    baked = modules("footprint_addon.solved").last_motion(coll)
    assert np.abs(baked.com - expected.com).max() < 1e-9 and np.abs(baked.feet - expected.feet).max() < 1e-9
    # The rig's left foot ends on the moved footprint.
    support, _heading, _balls = feet_on_rig(modules, rig, [int(frames[-1])])
    assert np.linalg.norm(support[0, 0, :2] - np.array(last_left.location)[:2]) < 0.01


def test_json_export_keeps_the_stepping_mark_and_imports_back(rig, modules, tmp_path):
    add_target(rig, modules)
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    path = tmp_path / "steps.json"
    assert bpy.ops.footprint.export_json(filepath=str(path)) == {"FINISHED"}
    text = path.read_text()
    assert json.loads(text)["motion"] == "stepping"
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    imported = bpy.context.scene.footprint.active_track
    assert imported != step_track(rig) and imported.footprint_track.motion == "stepping"
    again = tmp_path / "again.json"
    assert bpy.ops.footprint.export_json(filepath=str(again)) == {"FINISHED"}
    assert again.read_text() == text


def test_a_stepping_file_planned_for_the_preset_bakes_onto_the_rig(rig, modules, tmp_path):
    """A stepping track planned for the preset human (as `step --track-output` writes it), turning 90 degrees on
    the spot, imported and baked onto the Rigify human: its feet are not the preset's, and its pivoting foot turns
    about its own ball, which stays still."""
    stepping, tracks = modules("solver.stepping"), modules("solver.track")
    human = modules("solver.character").preset("human")
    track = stepping.step_to_stance(human, stepping.Stance.centred(human, 0.0, 0.0, 0.0),
                                    stepping.Stance.centred(human, 0.4, 0.9, math.radians(90.0)))
    path = tmp_path / "steps.json"
    path.write_text(tracks.dumps(tracks.track_to_json(track)))
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    coll.footprint_track.rig = rig
    strip, motion = modules("footprint_addon.bake").bake(bpy.context, coll, rig)
    assert motion.report["stepping"]["pivots"] == 1 and strip.frame_end > strip.frame_start
    (pivot,) = modules("solver.stepping.steps").step_plan(motion.track, motion.character).pivots
    assert pivot.offset == pytest.approx(0.5 * motion.character.foot_length)  # the rig's own ball
    turning = (motion.times >= pivot.start) & (motion.times < pivot.end)
    ahead = np.einsum("nij,j->ni", motion.foot_rotation[turning, pivot.foot], [0.0, 1.0, 0.0])
    point = motion.feet[turning, pivot.foot] + pivot.offset * ahead
    assert np.linalg.norm(point[:, :2] - point[0, :2], axis=1).max() < 0.01


def key_step_example(rig, name, step, rotations, frames=(1, 21)):
    """An action on the rig: standing, then the left foot's IK control moved by `step` (world metres) and the
    upper-body bones turned to `rotations` ({bone: (axis, degrees)} in the bone's own frame) at the last frame;
    marked as a step example with the operator, then taken off the rig. Returns the action and the last
    frame's local rotations (3, 3) per bone."""
    bpy.ops.object.mode_set(mode="POSE")
    foot = rig.pose.bones["foot_ik.L"]
    turned = {}
    for frame, weight in zip(frames, (0.0, 1.0)):
        rest = np.array(rig.data.bones[foot.name].matrix_local)[:3, :3]
        foot.location = weight * (rest.T @ np.asarray(step))  # (the control's parent stays at rest)
        foot.keyframe_insert("location", frame=frame)
        for bone, (axis, degrees) in rotations.items():
            pose_bone = rig.pose.bones[bone]
            quaternion = pose_bone.rotation_quaternion.copy()
            quaternion.identity()
            quaternion.rotate(mathutils.Quaternion(axis, math.radians(weight * degrees)))
            pose_bone.rotation_quaternion = quaternion
            pose_bone.keyframe_insert("rotation_quaternion", frame=frame)
            turned[bone] = np.array(quaternion.to_matrix())
    bpy.ops.object.mode_set(mode="OBJECT")
    action = rig.animation_data.action
    action.name = name
    assert bpy.ops.footprint.mark_step_example() == {"FINISHED"}
    assert action.footprint_step.is_example
    rig.animation_data.action = None
    for pose_bone in rig.pose.bones:  # the rig back at rest: the start pose
        pose_bone.location, pose_bone.rotation_quaternion = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)
    return action, turned


def local_rotation_at(rig, bone, frame):
    bpy.context.scene.frame_set(frame)
    evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
    return np.array(evaluated.pose.bones[bone].matrix_basis)[:3, :3]


def rotation_angle(a, b):
    """The angle between two rotations (3, 3): |A - B| = 2 sqrt(2) sin(angle / 2), exact near zero too."""
    return 2.0 * math.asin(min(1.0, np.linalg.norm(np.asarray(a) - np.asarray(b)) / (2.0 * math.sqrt(2.0))))


def test_the_closest_step_example_shapes_the_end_pose(rig, modules):
    facing = modules("footprint_addon.rigs").bind(rig).measurements["facing"]
    forward = np.array([-math.sin(facing), math.cos(facing), 0.0])
    outward_left = np.array([math.cos(facing), math.sin(facing), 0.0]) * -1.0  # the rig's left
    ahead, ahead_pose = key_step_example(rig, "Step ahead", 0.3 * forward, {
        "chest": ((1, 0, 0), 12.0), "head": ((0, 1, 0), 20.0), "upper_arm_fk.L": ((1, 0, 0), 35.0),
        "forearm_fk.R": ((1, 0, 0), 25.0)})
    aside, aside_pose = key_step_example(rig, "Step aside", 0.25 * outward_left, {
        "chest": ((0, 0, 1), -15.0), "head": ((1, 0, 0), -10.0)})
    # What the database reads from each: the left foot's step in the right foot's frame, (outward, forward).
    stepping = modules("footprint_addon.stepping")
    binding = modules("footprint_addon.rigs").bind(rig)
    upper_body = modules("footprint_addon.upper_body_layer").upper_body_bones(
        binding, bpy.context.evaluated_depsgraph_get())
    examples = {e.action.name: e for e in stepping.read_examples(bpy.context, binding, [ahead, aside], upper_body)}
    assert examples["Step ahead"].foot == "L" and examples["Step aside"].foot == "L"
    assert np.allclose(examples["Step ahead"].displacement, [0.0, 0.3], atol=0.01)
    assert np.allclose(examples["Step aside"].displacement, [0.25, 0.0], atol=0.01)
    assert rig.animation_data.action is None and bpy.context.scene.frame_current == START_FRAME
    assert tuple(rig.pose.bones["upper_arm_fk.L"].rotation_quaternion) == (1.0, 0.0, 0.0, 0.0)  # put back
    assert tuple(rig.pose.bones["foot_ik.L"].location) == (0.0, 0.0, 0.0)
    # Stepping straight ahead, every step is nearest the example ahead: its last frame ends the steps.
    add_target(rig, modules, distance=1.2, turn=0.0, bearing=0.0)
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    end = int(bake_strip(rig, step_track(rig)).frame_end)
    for bone, expected in ahead_pose.items():
        assert rotation_angle(local_rotation_at(rig, bone, end), expected) < ANGLE_TOLERANCE, bone
    assert rotation_angle(local_rotation_at(rig, "chest", end), aside_pose["chest"]) > math.radians(10.0)
    # Half-way through the first step the upper body is between the start pose and the example's.
    _foot, first, last, _d = stepping.steps_of(modules("footprint_addon.scene_io").read_track(step_track(rig)))[0]
    middle = modules("footprint_addon.scene_clock").frame(bpy.context.scene, 0.5 * (first + last))
    turned = rotation_angle(local_rotation_at(rig, "upper_arm_fk.L", middle), np.eye(3))
    assert math.radians(5.0) < turned < math.radians(30.0)


def test_without_examples_a_fresh_rig_steps_with_the_walks_arms_and_head(rig, modules):
    """A freshly generated rig stands in the rest A-pose (the arms about 60 degrees out from hanging); Step to
    Target without examples gives it the walk's upper body: the arms hang and swing, the head steadies
    (issue 28: they stayed in the A-pose for every step)."""
    add_target(rig, modules, distance=1.5, turn=math.radians(120.0))
    arms = ["DEF-upper_arm.L", "DEF-upper_arm.R", "DEF-spine.006", "DEF-foot.L", "DEF-toe.L", "DEF-foot.R", "DEF-toe.R"]
    quality = modules("footprint_addon.rig_quality")
    rest = quality.evaluated_matrices(bpy.context, rig, arms, [START_FRAME])[0]
    assert np.degrees(np.arccos(-rest[0, 2, 1])) > 50.0  # the A-pose: the upper arm far from hanging
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    strip = bake_strip(rig, step_track(rig))
    frames = np.arange(int(strip.frame_start), int(strip.frame_end) + 1)
    m = quality.evaluated_matrices(bpy.context, rig, arms, frames)
    for k in range(2):
        from_hanging = np.degrees(np.arccos(np.clip(-m[:, k, 2, 1] / np.linalg.norm(m[:, k, :3, 1], axis=1), -1, 1)))
        assert from_hanging.max() < 25.0  # hanging, held a little out, swinging
        assert np.ptp(m[:, k, 1, 1] / np.linalg.norm(m[:, k, :3, 1], axis=1)) > 0.02  # and swinging fore and aft
    head = m[:, 2, :3, :3] / np.linalg.norm(m[:, 2, :3, :3], axis=1, keepdims=True)
    turn = np.degrees(np.arccos(np.clip((np.einsum("nij,nij->n", head[1:], head[:-1]) - 1) / 2, -1, 1)))
    assert turn.max() * bpy.context.scene.render.fps <= 180.0  # the head turns with the body, never snaps
    # The toes bend as a heel lifts (a pivot's, a push-off's): the toe turns against the foot.
    bends = [np.degrees(np.arccos(np.clip(np.einsum("nd,nd->n", m[:, k, :3, 1], m[:, k + 1, :3, 1]) / (
        np.linalg.norm(m[:, k, :3, 1], axis=1) * np.linalg.norm(m[:, k + 1, :3, 1], axis=1)), -1, 1))) for k in (3, 5)]
    assert max(np.ptp(bend) for bend in bends) > 5.0


def test_without_examples_the_upper_body_holds_the_start_pose(rig, modules):
    # The artist's own animation turns the chest, the head and a hand on an NLA strip; Step to Target holds
    # them as they are at the start frame, where the strip below would turn them on.
    turning = bpy.data.actions.new("Looking around")
    rig.animation_data_create()
    for bone, axis in (("chest", (0, 0, 1)), ("head", (0, 1, 0)), ("hand_fk.L", (1, 0, 0))):
        for frame, degrees in ((1, 0.0), (START_FRAME, 30.0), (121, 90.0)):
            rig.pose.bones[bone].rotation_quaternion = mathutils.Quaternion(axis, math.radians(degrees))
            rig.pose.bones[bone].keyframe_insert("rotation_quaternion", frame=frame)
    turning = rig.animation_data.action
    rig.animation_data.action = None
    rig.animation_data.nla_tracks.new().strips.new("look", 1, turning)
    if bpy.app.version >= (4, 4, 0):  # (slotted actions)
        rig.animation_data.nla_tracks[0].strips[0].action_slot = turning.slots[0]
    bpy.context.scene.frame_set(START_FRAME)
    start = {bone: local_rotation_at(rig, bone, START_FRAME) for bone in ("chest", "head", "hand_fk.L")}
    assert rotation_angle(start["chest"], np.eye(3)) == pytest.approx(math.radians(30.0), abs=1e-4)
    add_target(rig, modules)
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    end = int(bake_strip(rig, step_track(rig)).frame_end)
    for bone, expected in start.items():
        assert rotation_angle(local_rotation_at(rig, bone, end), expected) < ANGLE_TOLERANCE, bone
    assert rotation_angle(local_rotation_at(rig, "chest", START_FRAME - 5), start["chest"]) > math.radians(5.0)


def scene_state():
    """The snapshot of test scenes plus what Step to Target could touch besides: NLA, actions, the frame."""
    state = snapshot()
    state["nla"] = {obj.name: [(t.name, [(s.name, s.frame_start, s.frame_end, s.mute) for s in t.strips])
                               for t in obj.animation_data.nla_tracks]
                    for obj in bpy.data.objects if obj.animation_data is not None}
    state["actions"] = sorted((a.name, a.footprint_step.is_example) for a in bpy.data.actions)
    state["frame"] = bpy.context.scene.frame_current
    state["frame_end"] = bpy.context.scene.frame_end
    state["active"] = getattr(bpy.context.view_layer.objects.active, "name", None)
    state["pose"] = [tuple(round(v, 7) for v in (*pb.location, *pb.rotation_quaternion)) for pb in
                     bpy.data.objects["rig"].pose.bones]
    return state


def test_bad_input_is_refused_and_the_scene_is_unchanged(rig, modules):
    empty = add_target(rig, modules)
    legless = bpy.data.objects.new("Legless", bpy.data.armatures.new("Legless"))
    bpy.context.scene.collection.objects.link(legless)
    bpy.context.view_layer.update()
    settings = bpy.context.scene.footprint_stepping

    def refused(match):
        before = scene_state()
        with pytest.raises(RuntimeError, match=match):
            bpy.ops.footprint.step_to_target()
        assert scene_state() == before

    bpy.context.view_layer.objects.active = empty
    refused("empty 'Target'|'Target' is not an armature")
    bpy.context.view_layer.objects.active = None
    refused("not an armature")
    bpy.context.view_layer.objects.active = legless
    refused("'Legless'")
    bpy.context.view_layer.objects.active = rig
    settings.auto_duration, settings.step_duration = False, 0.0
    refused("step duration 0 s")
    settings.auto_duration = True
    empty.rotation_euler = (math.radians(90.0), 0.0, 0.0)  # its +Y straight up: no heading
    bpy.context.view_layer.update()
    refused("straight up or down")
    empty.rotation_euler = (0.0, 0.0, 0.0)
    # The rig standing with its left foot on top of the right one: no stance to step from.
    foot = rig.pose.bones["foot_ik.L"]
    across = np.array(rig.data.bones["foot_ik.R"].head_local) - np.array(rig.data.bones["foot_ik.L"].head_local)
    foot.location = np.array(rig.data.bones["foot_ik.L"].matrix_local)[:3, :3].T @ (0.8 * across)
    bpy.context.view_layer.update()
    refused("start stance: the feet overlap")
    foot.location = (0.0, 0.0, 0.0)
    # A rig the bake refuses (after the track is written: what was written is taken back), with the tool's
    # earlier track and strips, which stay.
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    rig.pose.bones["foot_ik.L"].rotation_mode = "XYZ"
    refused("must use quaternion rotation")


def test_undo_restores_the_scene(rig, modules):
    add_target(rig, modules)
    bpy.ops.ed.undo_push(message="before")
    before = scene_state()
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    assert scene_state() != before
    bpy.ops.ed.undo_push(message="Step to Target")
    bpy.ops.ed.undo()
    assert scene_state() == before


def test_render_mid_step_from_the_side_and_the_front(rig, modules, tmp_path):
    """Workbench pictures of the rig in the first step's swing (stand-in body capsules, left limbs blue-grey,
    right warm), from its right side and from in front: for a person to look at; here, that the body is in
    the picture."""
    add_target(rig, modules)
    assert bpy.ops.footprint.step_to_target() == {"FINISHED"}
    scene = bpy.context.scene
    track = modules("footprint_addon.scene_io").read_track(step_track(rig))
    order = np.argsort(track.contact, kind="stable")
    step = order[2]  # the first footprint after the start stance's two: the first step's landing
    before = [i for i in order[:2] if track.feet[i] == track.feet[step]][0]
    frame = modules("footprint_addon.scene_clock").frame(scene, 0.5 * (track.liftoff[before] + track.contact[step]))
    demo = modules("footprint_addon.demo")
    demo.body_capsules(rig, *demo.body_materials())
    cam = demo.setup_render(scene, (300, 380))
    cam.data.type, cam.data.ortho_scale = "ORTHO", 2.6
    scene.frame_set(frame)
    pelvis = demo.pelvis_position(rig)
    aim = np.array([pelvis[0], pelvis[1], 1.0])
    headings = feet_on_rig(modules, rig, [frame])[1][0]
    facing = math.atan2(np.sin(headings).sum(), np.cos(headings).sum())  # (their mean on the circle)
    forward = np.array([-math.sin(facing), math.cos(facing), 0.0])
    right = np.array([math.cos(facing), math.sin(facing), 0.0])
    for name, direction in (("side", right), ("front", forward)):
        demo.aim(cam, aim + 20.0 * (direction + np.array([0.0, 0.0, 0.07])), aim)
        path = tmp_path / f"mid-step-{name}.png"
        scene.render.filepath = str(path)
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(str(path))
        pixels = np.array(image.pixels[:]).reshape(-1, 4)[:, :3]
        bpy.data.images.remove(image)
        body = (np.abs(pixels - pixels[0]).sum(axis=1) > 0.1).mean()  # (the corner: background)
        assert 0.03 < body < 0.6, (name, body)


def test_mark_step_example_toggles_the_active_action(rig):
    with pytest.raises(RuntimeError, match="'rig' has no active action to mark"):
        bpy.ops.footprint.mark_step_example()
    rig.pose.bones["chest"].keyframe_insert("rotation_quaternion", frame=1)
    action = rig.animation_data.action
    assert bpy.ops.footprint.mark_step_example() == {"FINISHED"} and action.footprint_step.is_example
    assert bpy.ops.footprint.mark_step_example() == {"FINISHED"} and not action.footprint_step.is_example
    assert bpy.ops.footprint.mark_step_example(action=action.name) == {"FINISHED"}
    assert action.footprint_step.is_example
    with pytest.raises(RuntimeError, match="No action 'Nope'"):
        bpy.ops.footprint.mark_step_example(action="Nope")
    assert bpy.types.FOOTPRINT_PT_stepping.bl_category == "Footprints"  # the panel that lists them
