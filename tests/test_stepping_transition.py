"""Transition Between Strips on a Rigify human (Wu, Medina and Zordan §6; issue 19): two standing strips, the
second's stance 0.4 m away and turned 45 degrees, joined by a transition strip in which the rig steps from
the one to the other: the seams match, the support foot stays planted, the stepping foot lands where the
second strip stands, the COM follows its Bezier, nothing outside the gap changes; bad input is refused with
the scene untouched."""

import importlib
import math

import bpy
import numpy as np
import pytest

FOOT_BONES = ("DEF-foot.L", "DEF-toe.L", "DEF-foot.R", "DEF-toe.R")  # per foot: the foot and the toes
LENGTH, GAP = 20, 40  # strip A on frames 1-20, strip B on 61-80: 40 frames strictly between them
FIRST_GAP, LAST_GAP = LENGTH + 1, LENGTH + GAP  # 21 and 60
B_START = LENGTH + GAP + 1
MOVE = 0.4 * np.array([math.sin(math.radians(30.0)), -math.cos(math.radians(30.0))])  # 0.4 m, forward-left
TURN = 45.0  # degrees, to the left (the rig faces -Y)
OUTSIDE = (1, 10, LENGTH, B_START, B_START + 10, B_START + LENGTH - 1)


def _module(addon, name):
    return importlib.import_module(f"{addon}.{name}")


def _quaternion_z(degrees):
    half = math.radians(degrees) / 2.0
    return np.array([math.cos(half), 0.0, 0.0, math.sin(half)])


def _standing_action(addon, rig, name, chest_sway, root=None, feet=None):
    """A standing action over LENGTH frames: the legs on IK, the arms on FK (as the product's bake keys them),
    the chest swaying (the upper body's blend shows), and optionally the root bone moved and turned
    (root: armature-space 4 x 4) or the foot IK controls moved (feet: {bone: armature-space offset})."""
    animation = _module(addon, "footprint_addon.animation")
    transforms = _module(addon, "solver.body.transforms")
    writer = animation.ChannelWriter(name, rig)
    frames = np.arange(1, LENGTH + 1)
    n = len(frames)
    switches = {"thigh_parent.L": 0.0, "thigh_parent.R": 0.0, "upper_arm_parent.L": 1.0, "upper_arm_parent.R": 1.0}
    for bone, value in switches.items():
        writer.write(f'pose.bones["{bone}"]["IK_FK"]', 0, frames, np.full(n, value))
    sway = chest_sway * np.sin(np.linspace(0.0, math.pi, n))
    chest = np.column_stack([np.cos(sway / 2), np.zeros(n), np.sin(sway / 2), np.zeros(n)])
    writer.write_transform('pose.bones["chest"].', frames, np.zeros((n, 3)), chest)
    if root is not None:
        rest = np.array(rig.data.bones["root"].matrix_local)
        basis = np.linalg.inv(rest) @ root @ rest
        quaternion = transforms.quaternion_from_matrix(basis[None, :3, :3])[0]
        writer.write_transform('pose.bones["root"].', frames, np.tile(basis[:3, 3], (n, 1)),
                               np.tile(quaternion, (n, 1)))
    for bone, offset in (feet or {}).items():
        rest = np.array(rig.data.bones[bone].matrix_local)
        location = rest[:3, :3].T @ np.asarray(offset)  # an armature-space move in the bone's own axes
        writer.write_transform(f'pose.bones["{bone}"].', frames, np.tile(location, (n, 1)),
                               np.tile([1.0, 0.0, 0.0, 0.0], (n, 1)))
    return writer


def _strips(addon, rig, b_writer):
    """Strips A (frames 1-20, standing where the rig stands) and B (from B_START, b_writer's action)."""
    a_writer = _standing_action(addon, rig, "Stand here", 0.1)
    anim = rig.animation_data or rig.animation_data_create()
    track = anim.nla_tracks.new()
    track.name = "Clips"
    a = track.strips.new("A", 1, a_writer.action)
    b = track.strips.new("B", B_START, b_writer.action)
    if a_writer.slot is not None:
        bpy.context.view_layer.update()
        a.action_slot, b.action_slot = a_writer.slot, b_writer.slot
    return a, b


def _turned_and_moved():
    c, s = math.cos(math.radians(TURN)), math.sin(math.radians(TURN))
    m = np.eye(4)
    m[:3, :3] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    m[:2, 3] = MOVE
    return m


def _foot_points(rig, frames):
    """Heads and tails of the deform foot and toe bones (F, 4, 2, 3), world, evaluated."""
    out = np.zeros((len(frames), len(FOOT_BONES), 2, 3))
    for i, frame in enumerate(frames):
        bpy.context.scene.frame_set(int(frame))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        world = np.array(evaluated.matrix_world)
        for k, name in enumerate(FOOT_BONES):
            bone = evaluated.pose.bones[name]
            out[i, k] = [(world @ np.append(np.array(p), 1.0))[:3] for p in (bone.head, bone.tail)]
    return out


def _deform_matrices(rig, frames):
    """World matrices (F, B, 4, 4) of every deform bone, evaluated."""
    names = [b.name for b in rig.data.bones if b.use_deform]
    out = np.zeros((len(frames), len(names), 4, 4))
    for i, frame in enumerate(frames):
        bpy.context.scene.frame_set(int(frame))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        out[i] = np.array(evaluated.matrix_world) @ np.array([np.array(evaluated.pose.bones[n].matrix) for n in names])
    return out


def _keys(addon, action_name):
    """Every key of one of the test's actions (frames and values), for comparing before and after."""
    fcurves = _module(addon, "footprint_addon.animation").action_fcurves(bpy.data.actions[action_name])
    return {(fc.data_path, fc.array_index): [tuple(k.co) for k in fc.keyframe_points] for fc in fcurves}


def _tracks(rig):
    return {t.name: [(s.name, s.frame_start, s.frame_end) for s in t.strips] for t in rig.animation_data.nla_tracks}


def _nla_state(rig):
    """The rig's NLA (tracks, strips with their frames and actions), the actions and the objects."""
    anim = rig.animation_data
    tracks = [] if anim is None else [
        (t.name, [(s.name, round(s.frame_start, 4), round(s.frame_end, 4), s.action.name if s.action else None)
                  for s in t.strips]) for t in anim.nla_tracks]
    return tracks, sorted(a.name for a in bpy.data.actions), sorted(o.name for o in bpy.data.objects)


@pytest.fixture(scope="module")
def strips_blend(addon, rigify_blend, tmp_path_factory):
    """The Rigify human with strips A (standing) and B (the root moved 0.4 m and turned 45 degrees)."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    rig = bpy.data.objects["rig"]
    _strips(addon, rig, _standing_action(addon, rig, "Stand there", -0.1, root=_turned_and_moved()))
    path = str(tmp_path_factory.mktemp("transition") / "strips.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return path


@pytest.fixture(scope="module")
def made(addon, strips_blend):
    """The transition made once; what the tests measure of it, before and after."""
    transition = _module(addon, "footprint_addon.transition")
    bpy.ops.wm.open_mainfile(filepath=strips_blend)
    rig = bpy.data.objects["rig"]
    before = _deform_matrices(rig, OUTSIDE)
    keys = {name: _keys(addon, name) for name in ("Stand here", "Stand there")}
    strip, motion = transition.make_transition(bpy.context, rig, "A", "B")
    frames = np.arange(LENGTH, B_START + 1)
    return {"strip": (strip.frame_start, strip.frame_end, strip.extrapolation, strip.blend_type), "motion": motion,
            "before": before, "after": _deform_matrices(rig, OUTSIDE), "keys": keys, "tracks": _tracks(rig),
            "frames": frames, "feet": _foot_points(rig, frames),
            "com": transition.evaluated_com(bpy.context, rig, np.arange(FIRST_GAP, LAST_GAP + 1)),
            "seams": _deform_matrices(rig, (LENGTH, FIRST_GAP, LAST_GAP, B_START)),
            "fps": bpy.context.scene.render.fps / bpy.context.scene.render.fps_base}


def _frames_of(made, t0, t1):
    """Indices into made['frames'] of the frames whose times (from A's end) lie in [t0, t1]."""
    seconds = (made["frames"] - LENGTH) / made["fps"]
    return np.flatnonzero((seconds >= t0 - 1e-9) & (seconds <= t1 + 1e-9))


def test_two_steps_fill_the_gap_in_one_strip(made):
    motion = made["motion"]
    assert made["strip"] == (FIRST_GAP, LAST_GAP, "NOTHING", "REPLACE")
    assert sorted(step.foot for step in motion.steps) == [0, 1]  # both feet move: one step each
    assert all(step.support == 1 - step.foot for step in motion.steps)
    assert motion.steps[0].times[3] == pytest.approx(motion.steps[1].times[0])


def test_the_seams_match_each_strip(made):
    """At A's last frame and B's first the feet are as each strip has them, and the first and last frames of
    the gap join on: no bone jumps there."""
    feet = made["feet"]
    before = made["before"]
    after = made["after"]
    a_last, b_first = OUTSIDE.index(LENGTH), OUTSIDE.index(B_START)
    for index in (a_last, b_first):
        assert np.abs(after[index] - before[index]).max() < 1e-3
    assert np.abs(feet[1] - feet[0]).max() < 1e-3  # frame 21 against 20: the feet have not moved yet
    assert np.abs(feet[-2] - feet[-1]).max() < 1e-3  # frame 60 against 61: they have landed
    seams = made["seams"][..., :3, 3]  # deform bone heads at frames 20, 21, 60, 61
    assert np.linalg.norm(seams[1] - seams[0], axis=-1).max() < 0.005
    assert np.linalg.norm(seams[3] - seams[2], axis=-1).max() < 0.005


def test_support_foot_planted_stepping_foot_lifted_and_landing_on_b(made):
    feet, motion = made["feet"], made["motion"]
    target = feet[-1]  # B's first frame
    for step in motion.steps:
        t0, t1, t2, t3 = step.times
        during = _frames_of(made, t0, t3)
        support = feet[during][:, 2 * step.support:2 * step.support + 2]
        assert np.abs(support - support[0]).max() < 1e-3, f"support foot {step.support} drifts"
        stepping = feet[:, 2 * step.foot:2 * step.foot + 2]
        swing = _frames_of(made, t1, t2)
        lift = stepping[swing][..., 2].min(axis=(1, 2)) - stepping[during[0]][..., 2].min()
        assert lift.max() > 0.03  # the sole clears the ground in swing
        landed = _frames_of(made, t2, t3)
        assert np.linalg.norm(stepping[landed] - target[2 * step.foot:2 * step.foot + 2], axis=-1).max() < 0.005


def test_nothing_outside_the_gap_changes(addon, made, strips_blend):
    assert np.abs(made["after"] - made["before"]).max() < 1e-6
    assert made["tracks"]["Clips"] == [("A", 1.0, LENGTH), ("B", B_START, B_START + LENGTH - 1)]
    transition = _module(addon, "footprint_addon.transition")
    bpy.ops.wm.open_mainfile(filepath=strips_blend)
    transition.make_transition(bpy.context, bpy.data.objects["rig"], "A", "B")
    for name, keys in made["keys"].items():  # the clips' own actions, key for key
        assert _keys(addon, name) == keys


def test_projected_com_follows_its_bezier(made):
    """The evaluated rig's COM (Winter's segments on its deform bones) on the Bezier through the COM at A's
    end, the support foot and the COM at the step's end (WMZ §5): within 2 cm, and closer to the support foot
    than the straight way between its ends (the weight shifts over it)."""
    motion = made["motion"]
    com = made["com"]
    assert np.linalg.norm(com[:, :2] - motion.com_target, axis=1).max() < 0.02
    taus = np.linspace(0.0, 1.0, 2001)[:, None]
    for step in motion.steps:
        start, pivot, end = step.com_path
        curve = (1 - taus) ** 2 * start + 2 * (1 - taus) * taus * pivot + taus ** 2 * end
        inside = (motion.times >= step.times[0]) & (motion.times <= step.times[3])
        on_curve = np.linalg.norm(motion.com_target[inside][:, None] - curve[None], axis=-1).min(axis=1)
        assert on_curve.max() < 1e-3
        chord = start + np.clip((pivot - start) @ (end - start) / ((end - start) @ (end - start)), 0, 1) * (end - start)
        closest = np.linalg.norm(com[inside][:, :2] - pivot, axis=1).min()
        assert closest < np.linalg.norm(pivot - chord) - 0.02


def test_one_foot_steps_and_the_other_stays(addon, rigify_blend):
    """B with only the right foot moved (its IK control keyed 0.3 m forward): one step, with that foot; the
    left foot does not move through the gap."""
    transition = _module(addon, "footprint_addon.transition")
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    rig = bpy.data.objects["rig"]
    _strips(addon, rig, _standing_action(addon, rig, "Right foot forward", -0.1, feet={"foot_ik.R": (0.0, -0.3, 0.0)}))
    _strip, motion = transition.make_transition(bpy.context, rig, "A", "B")
    assert [(step.foot, step.support) for step in motion.steps] == [(1, 0)]
    feet = _foot_points(rig, np.arange(LENGTH, B_START + 1))
    assert np.abs(feet[:, :2] - feet[0, :2]).max() < 1e-3  # the left foot and toes
    assert np.linalg.norm(feet[-1, 2:, :, :2] - feet[0, 2:, :, :2], axis=-1).min() > 0.29  # the right one stepped


def test_a_long_step_lowers_the_pelvis_rather_than_stretch_a_leg(addon, rigify_blend):
    """B 0.9 m ahead: each step spans more than the legs reach standing tall. The pelvis goes down (WMZ §6)
    and no evaluated leg gets longer than its thigh and shin; the feet still land on B's."""
    transition = _module(addon, "footprint_addon.transition")
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    rig = bpy.data.objects["rig"]
    ahead = np.eye(4)
    ahead[1, 3] = -0.9  # the rig faces -Y
    _strips(addon, rig, _standing_action(addon, rig, "Far ahead", -0.1, root=ahead))
    _strip, motion = transition.make_transition(bpy.context, rig, "A", "B")
    assert motion.lowered.max() > 0.05
    legs = {side: sum(rig.data.bones[name].length for name in (f"DEF-thigh.{side}", f"DEF-thigh.{side}.001",
                                                               f"DEF-shin.{side}", f"DEF-shin.{side}.001"))
            for side in "LR"}  # Rigify splits each in two
    for frame in range(FIRST_GAP, LAST_GAP + 1):
        bpy.context.scene.frame_set(frame)
        bones = rig.evaluated_get(bpy.context.evaluated_depsgraph_get()).pose.bones
        for side, length in legs.items():
            reach = np.linalg.norm(np.array(bones[f"DEF-foot.{side}"].head) - np.array(bones[f"DEF-thigh.{side}"].head))
            assert reach < length + 1e-4, (frame, side)
    feet = _foot_points(rig, (LAST_GAP, B_START))
    assert np.abs(feet[0] - feet[1]).max() < 1e-3


def _controls_moved(addon, rig, name, bones, move):
    """An action over LENGTH frames keying the (parentless) bones where the world transform move puts them."""
    transforms = _module(addon, "solver.body.transforms")
    writer = _module(addon, "footprint_addon.animation").ChannelWriter(name, rig)
    world = np.array(rig.matrix_world)
    frames = np.arange(1, LENGTH + 1)
    for bone in bones:
        rest = np.array(rig.data.bones[bone].matrix_local)
        basis = np.linalg.inv(rest) @ np.linalg.inv(world) @ move @ world @ rest
        rotation = basis[:3, :3] / np.linalg.norm(basis[:3, :3], axis=0)
        writer.write_transform(f'pose.bones["{bone}"].', frames, np.tile(basis[:3, 3], (LENGTH, 1)),
                               np.tile(transforms.quaternion_from_matrix(rotation[None])[0], (LENGTH, 1)))
    return writer


def test_a_mixamo_rig_steps_too(addon, clean, tmp_path):
    """A Mixamo character as the FBX importer brings it in (the object turned and scaled 0.01), set up with
    Set up Leg IK: no Rigify bones (its upper body one mass on the hips). The same two steps: the support
    foot planted, the stepping foot on B's, the COM on its path."""
    import mixamo_rig

    transition = _module(addon, "footprint_addon.transition")
    rig = mixamo_rig.import_fbx(mixamo_rig.write_fbx(tmp_path / "mixamo.fbx"))
    assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
    controls = ("mixamorig:Hips", "FP-foot_ik.L", "FP-foot_ik.R")  # Set up Leg IK's body and foot controls
    writers = [_controls_moved(addon, rig, name, controls, move)
               for name, move in (("Here", np.eye(4)), ("There", _turned_and_moved()))]
    track = rig.animation_data_create().nla_tracks.new()
    strips = [track.strips.new(name, start, w.action) for name, start, w in (("A", 1, writers[0]),
                                                                           ("B", B_START, writers[1]))]
    if writers[0].slot is not None:
        bpy.context.view_layer.update()
        for strip, writer in zip(strips, writers):
            strip.action_slot = writer.slot
    _strip, motion = transition.make_transition(bpy.context, rig, "A", "B")
    assert sorted(step.foot for step in motion.steps) == [0, 1]
    frames = np.arange(LENGTH, B_START + 1)
    feet = np.zeros((len(frames), 4, 3))  # ankles and toes, left and right
    for i, frame in enumerate(frames):
        bpy.context.scene.frame_set(int(frame))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        world = np.array(evaluated.matrix_world)
        feet[i] = [(world @ np.append(np.array(evaluated.pose.bones[f"mixamorig:{bone}"].head), 1.0))[:3]
                   for bone in ("LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase")]
    seconds = (frames - LENGTH) / (bpy.context.scene.render.fps / bpy.context.scene.render.fps_base)
    for step in motion.steps:
        during = (seconds >= step.times[0] - 1e-9) & (seconds <= step.times[3] + 1e-9)
        support = feet[during][:, 2 * step.support:2 * step.support + 2]
        assert np.abs(support - support[0]).max() < 1e-3
        landed = feet[(seconds >= step.times[2] - 1e-9) & during][:, 2 * step.foot:2 * step.foot + 2]
        assert np.linalg.norm(landed - feet[-1, 2 * step.foot:2 * step.foot + 2], axis=-1).max() < 0.005
    com = transition.evaluated_com(bpy.context, rig, np.arange(FIRST_GAP, LAST_GAP + 1))
    assert np.linalg.norm(com[:, :2] - motion.com_target, axis=1).max() < 0.02


def test_running_again_replaces_its_own_strip_and_undo_takes_it_back(addon, strips_blend):
    """The operator with no strips named takes the two around the current frame; again, it replaces the
    transition it made (one strip, one action), leaving the clips; undo takes it all back."""
    transition = _module(addon, "footprint_addon.transition")
    bpy.ops.wm.open_mainfile(filepath=strips_blend)
    bpy.context.view_layer.objects.active = bpy.data.objects["rig"]
    bpy.context.scene.frame_set(30)
    bpy.ops.ed.undo_push(message="before")  # Blender-as-a-module pushes no undo step itself: as the UI would
    before = _nla_state(bpy.data.objects["rig"])
    for _ in range(2):
        assert bpy.ops.footprint.transition_between_strips() == {"FINISHED"}
    rig = bpy.data.objects["rig"]
    made = [(t.name, s.name) for t in rig.animation_data.nla_tracks for s in t.strips if transition.is_transition(s)]
    assert len(made) == 1
    assert len([a for a in bpy.data.actions if transition.TRANSITION_KEY in a]) == 1
    assert [s.name for s in rig.animation_data.nla_tracks["Clips"].strips] == ["A", "B"]
    assert bpy.context.scene.frame_current == 30
    bpy.ops.ed.undo_push(message="transition")
    bpy.ops.ed.undo()
    assert _nla_state(bpy.data.objects["rig"]) == before


@pytest.mark.parametrize("case", ["overlap", "unknown strip", "no legs", "leg on FK", "rig object moved",
                                  "action on top"])
def test_bad_input_is_refused_and_changes_nothing(addon, strips_blend, case):
    bpy.ops.wm.open_mainfile(filepath=strips_blend)
    rig = bpy.data.objects["rig"]
    first, second, named = "A", "B", None
    fcurves = _module(addon, "footprint_addon.animation").action_fcurves(bpy.data.actions["Stand there"])
    if case == "leg on FK":  # B's left leg switched to FK
        for key in fcurves.find('pose.bones["thigh_parent.L"]["IK_FK"]').keyframe_points:
            key.co[1] = 1.0
        named = "thigh_parent.L"
    elif case == "rig object moved":  # B moves the armature object itself
        fcurves.new("location", index=0).keyframe_points.insert(1.0, 0.5)
        named = "'B'"
    elif case == "action on top":
        rig.animation_data.action = bpy.data.actions["Stand here"]
        named = "'Stand here'"
    elif case == "overlap":  # B moved onto another track, starting inside A
        strip = rig.animation_data.nla_tracks["Clips"].strips["B"]
        track = rig.animation_data.nla_tracks.new()
        moved = track.strips.new("B2", 10, strip.action)
        if bpy.app.version >= (4, 4, 0):
            bpy.context.view_layer.update()
            moved.action_slot = strip.action_slot
        second, named = "B2", "'A'"
    elif case == "unknown strip":
        second, named = "Nowhere", "'Nowhere'"
    else:  # an armature of one bone, with the two strips' actions
        data = bpy.data.armatures.new("Stick")
        legless = bpy.data.objects.new("Stick", data)
        bpy.context.scene.collection.objects.link(legless)
        bpy.context.view_layer.objects.active = legless
        bpy.ops.object.mode_set(mode="EDIT")
        data.edit_bones.new("spine").tail = (0.0, 0.0, 1.0)
        bpy.ops.object.mode_set(mode="OBJECT")
        track = legless.animation_data_create().nla_tracks.new()
        track.strips.new("A", 1, bpy.data.actions["Stand here"])
        track.strips.new("B", B_START, bpy.data.actions["Stand there"])
        rig, named = legless, "'Stick'"
    bpy.context.view_layer.objects.active = rig
    state = _nla_state(rig)
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.footprint.transition_between_strips(from_strip=first, to_strip=second)
    assert named in str(refused.value)
    assert _nla_state(rig) == state


def test_transition_file_writes_the_result_or_nothing(addon, strips_blend, tmp_path):
    transition = _module(addon, "footprint_addon.transition")
    refused = tmp_path / "refused.blend"
    with pytest.raises(transition.TransitionError, match="'Elsewhere'"):
        transition.transition_file(strips_blend, "rig", "A", "Elsewhere", str(refused))
    assert not refused.exists()
    with pytest.raises(transition.TransitionError, match="'nobody'"):
        transition.transition_file(strips_blend, "nobody", "A", "B", str(refused))
    assert not refused.exists()
    out = tmp_path / "out.blend"
    name, motion = transition.transition_file(strips_blend, "rig", "A", "B", str(out))
    assert len(motion.steps) == 2
    bpy.ops.wm.open_mainfile(filepath=str(out))
    strips = [s for t in bpy.data.objects["rig"].animation_data.nla_tracks for s in t.strips]
    assert [s.name for s in strips if transition.is_transition(s)] == [name]


def test_renders_mid_transition_side_and_front(addon, strips_blend, tmp_path):
    """Workbench pictures of the first step's mid-swing, from the character's side and from its front: the
    body is there (the frames are not empty). Look at them: the weight over the support foot, the stepping
    foot lifted, no knee popping."""
    demo = _module(addon, "footprint_addon.demo")
    bpy.ops.wm.open_mainfile(filepath=strips_blend)
    rig = bpy.data.objects["rig"]
    _strip, motion = _module(addon, "footprint_addon.transition").make_transition(bpy.context, rig, "A", "B")
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    demo.body_capsules(rig, *demo.body_materials())
    scene = bpy.context.scene
    cell = (300, 380)
    cam = demo.setup_render(scene, cell)
    cam.data.type = "ORTHO"
    cam.data.ortho_scale = 2.3 * max(cell) / cell[1]
    step = motion.steps[0]
    frame = int(round(LENGTH + 0.5 * (step.times[1] + step.times[2]) * fps))
    scene.frame_set(frame)
    pelvis = demo.pelvis_position(rig)
    target = np.array([pelvis[0], pelvis[1], 0.95])
    sides = ((1.0, 0.0, 0.05), (0.0, -1.0, 0.05))  # its left side (it faces -Y) and its front
    shots = [(frame, target + 20.0 * np.array(direction), target) for direction in sides]
    path = tmp_path / "mid-transition.png"
    demo.render_sheet(scene, cam, shots, str(path), 2, cell)
    image = bpy.data.images.load(str(path))
    pixels = np.array(image.pixels[:]).reshape(cell[1], 2 * cell[0], 4)
    print(f"mid-transition (frame {frame}), side and front: {path}")
    for k in range(2):  # the body's capsules: bright pixels above the ground in each picture
        assert (pixels[cell[1] // 3:, k * cell[0]:(k + 1) * cell[0], :3].mean(axis=-1) > 0.4).sum() > 2000
