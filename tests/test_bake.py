"""Baking onto a real Rigify human generated from Blender's bundled metarig, measured on the evaluated rig
after Blender's own IK solve."""

import importlib
import json
import os
import sys

import bpy
import numpy as np
import pytest

from conftest import FIG1, ROOT
from blender_scenes import footprint_objects, raise_and_resolve
from scene_state import snapshot

# A preview's constraints on the Rigify rig: body and feet (6), and with the walking attributes the chest, the
# head, the FK arms and the toes (8).
PREVIEW_CONSTRAINTS = 14


def bake_module(addon):
    return sys.modules[f"{addon}.footprint_addon.bake"]


def baked_for(action):
    """The name of the track an action was baked for (it points at the track's collection; an earlier
    version wrote the name itself), or None."""
    track = action.get("footprint_track")
    return track if track is None or isinstance(track, str) else track.name


def fcurves(addon, action):
    """An action's F-curves on Blender 5.0 (its channelbag) and 4.2 (action.fcurves), as the extension reads them."""
    return sys.modules[f"{addon}.footprint_addon.animation"].action_fcurves(action)


def character_module(addon):
    return sys.modules[f"{addon}.solver.character"]


def evaluated_points(rig, frames, bones):
    """World head positions (frames, bones, 3) of pose bones on the evaluated rig, frame by frame."""
    scene = bpy.context.scene
    out = np.zeros((len(frames), len(bones), 3))
    for i, frame in enumerate(frames):
        scene.frame_set(int(frame))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        m = np.array(evaluated.matrix_world)
        for j, name in enumerate(bones):
            out[i, j] = (m @ np.append(np.array(evaluated.pose.bones[name].head), 1.0))[:3]
    return out


RIGIFY_BONES = ["torso", "DEF-foot.L", "DEF-toe.L", "DEF-foot.R", "DEF-toe.R"]


def check_bake(addon, rig, bones=RIGIFY_BONES):
    """Bake, then measure on the evaluated rig: body (bones[0]) on the COM path, feet (ankle, ball pairs)."""
    coll = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.bake(rig=rig.name) == {"FINISHED"}
    bake = bake_module(addon)
    frames, motion = bake.solve_for_rig(bpy.context, coll, bake.bind(rig))
    points = evaluated_points(rig, frames, bones)
    # The body control follows the solver's COM path (its offset is zero for Rigify's torso).
    assert np.linalg.norm(points[:, 0] - motion.com, axis=1).max() < 0.01
    slips, flats = [], []
    for leg, (ankle, ball) in enumerate(((1, 2), (3, 4))):
        for fp in np.unique(motion.footprint[:, leg][motion.contact[:, leg]]):
            on = motion.contact[:, leg] & (motion.footprint[:, leg] == fp)
            balls = points[on & (motion.toe_pivot[:, leg] >= 0.0), ball]  # once down after the heel strike,
            slips.append(np.linalg.norm(balls - balls[0], axis=1).max())  # the ball of the foot never moves
            flat = on & (motion.toe_pivot[:, leg] == 0.0)
            if flat.sum() > 1:
                ankles = points[flat, ankle]
                flats.append(np.linalg.norm(ankles - ankles[0], axis=1).max())  # nor does the heel, until it lifts
    assert len(slips) == 12 and max(slips) <= 1e-3
    assert flats and max(flats) <= 1e-3
    return motion


def test_bake_keeps_stance_feet_still_and_body_on_the_com_path(addon, rig_scene):
    motion = check_bake(addon, rig_scene)
    anim = rig_scene.animation_data
    assert [t.name for t in anim.nla_tracks] == ["Footprints: fig1"]
    strip = anim.nla_tracks[0].strips[0]
    assert strip.name == "fig1" and baked_for(strip.action) == "fig1"
    assert motion.report["non_physical_force"]["mean"] <= 0.05
    settings = bpy.context.scene.footprint.active_track.footprint_track
    assert settings.rig == rig_scene and json.loads(settings.last_report) == json.loads(json.dumps(motion.report))
    panels = sys.modules[f"{addon}.footprint_addon.ui.panels"]
    lines = panels.report_lines(settings.last_report)
    assert lines[0].startswith("Non-physical force: mean") and any("Stance slip" in line for line in lines)
    swing = motion.report["leg_length"]["L"]["swing_max"]
    assert any(line.startswith("Leg L:") and f"swing up to {swing:.3f}" in line for line in lines)
    assert f"Feet below ground: {motion.report['feet_below_ground'] * 1000:.2f} mm" in lines
    # An optimiser that stopped unconverged is the panel's first line, and in the batch summary.
    stopped = dict(motion.report, optimizer=dict(motion.report["optimizer"], converged=False, iterations=100))
    warning = "Optimiser stopped after 100 iterations, not converged"
    assert panels.report_lines(json.dumps(stopped))[0] == warning and warning not in lines
    headless = importlib.import_module(f"{addon}.footprint_addon.headless")
    assert headless.summary(stopped, None).endswith("; optimiser stopped after 100 iterations, not converged")
    assert "converged" not in headless.summary(motion.report, None)


def test_bake_on_a_moved_rotated_scaled_rig_facing_plus_y(addon, rig_scene):
    rig_scene.location = (1.5, -2.0, 0.3)
    rig_scene.rotation_euler = (0.0, 0.0, np.pi)  # Rigify faces -Y; turned round it faces +Y
    rig_scene.scale = (1.3, 1.3, 1.3)
    bpy.context.view_layer.update()
    check_bake(addon, rig_scene)


def test_rebake_replaces_only_its_own_strip_and_undo_restores(addon, rig_scene):
    anim = rig_scene.animation_data_create()
    below = anim.nla_tracks.new()
    below.name = "Artist below"
    below.strips.new("idle", 1, bpy.data.actions.new("idle"))
    bpy.ops.ed.undo_push(message="artist layer")
    before = [(t.name, [(s.name, s.action.name) for s in t.strips]) for t in anim.nla_tracks]
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = bpy.data.objects["rig"].animation_data
    above = anim.nla_tracks.new()  # the artist layers on top of the bake
    above.name = "Artist above"
    above.strips.new("wave", 1, bpy.data.actions.new("wave"))
    bpy.ops.ed.undo_push(message="bake")
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = bpy.data.objects["rig"].animation_data
    names = [t.name for t in anim.nla_tracks]
    assert names == ["Artist below", "Footprints: fig1", "Artist above"]  # the stack keeps its order
    ours = [a for a in bpy.data.actions if baked_for(a) == "fig1"]
    assert len(ours) == 1
    bpy.ops.ed.undo_push(message="rebake")
    bpy.ops.ed.undo()  # back to the first bake, with the artist's layer above it
    anim = bpy.data.objects["rig"].animation_data
    assert [t.name for t in anim.nla_tracks] == ["Artist below", "Footprints: fig1", "Artist above"]
    bpy.ops.ed.undo()  # back to before any bake
    anim = bpy.data.objects["rig"].animation_data
    assert [(t.name, [(s.name, s.action.name) for s in t.strips]) for t in anim.nla_tracks] == before
    assert not [a for a in bpy.data.actions if baked_for(a) == "fig1"]


def test_rebake_next_to_another_tracks_bake_leaves_that_one_alone(addon, rig_scene):
    """Two tracks baked onto one rig: re-baking the first replaces its strip and action only."""
    scene = bpy.context.scene
    fig1 = scene.footprint.active_track
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    assert bpy.ops.footprint.import_json(filepath=os.path.join(ROOT, "tests", "data", "straight_walk.json")) == {"FINISHED"}
    walk = scene.footprint.active_track
    assert walk != fig1
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = bpy.data.objects["rig"].animation_data
    assert [t.name for t in anim.nla_tracks] == ["Footprints: fig1", "Footprints: straight_walk"]

    def keys(action_owner):
        action = anim.nla_tracks[f"Footprints: {action_owner}"].strips[0].action
        return action.name, sorted(action.keys()), [tuple(k.co) for fc in fcurves(addon, action) for k in fc.keyframe_points]

    walk_before = keys("straight_walk")
    assert len(walk_before[2]) > 100
    scene.footprint.active_track = fig1
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = bpy.data.objects["rig"].animation_data
    assert [t.name for t in anim.nla_tracks] == ["Footprints: fig1", "Footprints: straight_walk"]
    assert keys("straight_walk") == walk_before  # the other bake: same action, same keys
    assert [baked_for(a) for a in bpy.data.actions].count("fig1") == 1
    assert [baked_for(a) for a in bpy.data.actions].count("straight_walk") == 1
    assert baked_for(anim.nla_tracks["Footprints: fig1"].strips[0].action) == "fig1"


def test_foot_skate_is_measured_on_the_evaluated_rig(addon, rig_scene):
    """Measure on Rig: the baked feet hold still on the rig Blender evaluates; a key nudged by hand in the
    middle of a stance shows up as skate of that foot only. The scene's frame is left where it was."""
    scene = bpy.context.scene
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    scene.frame_set(42)
    bake = bake_module(addon)
    solve_for_rig, solves = bake.solve_for_rig, []
    bake.solve_for_rig = lambda *args: solves.append(args) or solve_for_rig(*args)
    try:
        assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
        assert not solves  # the bake's own solve, recorded for this rig and these footprints, is measured
        scene.render.fps += 1  # the clock changed: that solve is not the rig's motion any more
        assert bpy.ops.footprint.measure_rig() == {"FINISHED"} and len(solves) == 1
        scene.render.fps -= 1
    finally:
        bake.solve_for_rig = solve_for_rig
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    assert scene.frame_current == 42
    settings = scene.footprint.active_track.footprint_track
    report = json.loads(settings.last_rig_report)
    assert report["frames"] > 100
    for foot in ("L", "R"):
        assert report["ball_skate"][foot] <= 1e-4 and report["heel_skate"][foot] <= 1e-3
        assert report["ball_off_footprint"][foot] <= 1e-3
        reach = sys.modules[f"{addon}.footprint_addon.rigs.binding"].REACH_FRACTION
        assert 0.9 <= report["leg_extension"][foot] <= reach + 1e-3  # the heel lifts before the knee locks
        assert report["below_ground"][foot] <= 1e-3
    panels = sys.modules[f"{addon}.footprint_addon.ui.panels"]
    assert any(line.startswith("On the rig, foot L: ball moves") for line in panels.rig_report_lines(settings.last_rig_report))
    # Nudge the left foot's control 5 cm in the middle of its longest stance.
    frames, motion = bake.solve_for_rig(bpy.context, scene.footprint.active_track, bake.bind(rig_scene))
    left = motion.contact[:, 0]
    longest = max(np.unique(motion.footprint[left, 0]), key=lambda f: (motion.footprint[:, 0] == f).sum())
    stance = frames[motion.footprint[:, 0] == longest]
    nudged = set(stance[len(stance) // 3: 2 * len(stance) // 3].tolist())
    action = rig_scene.animation_data.nla_tracks["Footprints: fig1"].strips[0].action
    curve = next(fc for fc in fcurves(addon, action) if fc.data_path == 'pose.bones["foot_ik.L"].location' and fc.array_index == 0)
    for key in curve.keyframe_points:
        if round(key.co[0]) in nudged:
            key.co[1] += 0.05
    curve.update()
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    report = json.loads(settings.last_rig_report)
    assert 0.04 <= report["ball_skate"]["L"] <= 0.06 and report["ball_skate"]["R"] <= 1e-4
    # Sink the right foot's control 4 cm, and lift the body 10 cm, over the whole motion.
    for fc in fcurves(addon, action):
        if fc.data_path == 'pose.bones["foot_ik.R"].location' and fc.array_index == 2:
            sunk = fc
        if fc.data_path == 'pose.bones["torso"].location' and fc.array_index == 2:
            lifted = fc
    for curve, shift in ((sunk, -0.04), (lifted, 0.10)):
        for key in curve.keyframe_points:
            key.co[1] += shift
        curve.update()
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    report = json.loads(settings.last_rig_report)
    assert 0.035 <= report["below_ground"]["R"] <= 0.045 and report["below_ground"]["L"] <= 1e-3
    assert min(report["leg_extension"].values()) > 1.02  # Rigify's IK stretches the bones to follow
    assert any("stretched" in line for line in panels.rig_report_lines(settings.last_rig_report))
    # Bad input: no such rig, or an armature without the bones: an error, and the last report stays.
    kept = settings.last_rig_report
    with pytest.raises(RuntimeError, match="ghost is not an armature"):
        bpy.ops.footprint.measure_rig(rig="ghost")
    plain = bpy.data.objects.new("plain", bpy.data.armatures.new("plain"))
    scene.collection.objects.link(plain)
    with pytest.raises(RuntimeError, match="armature 'plain' is neither a generated Rigify rig nor an Auto-Rig Pro rig: .*'Set up Leg IK'.*nothing measured"):
        bpy.ops.footprint.measure_rig(rig="plain")
    assert settings.last_rig_report == kept and scene.frame_current == 42


def test_a_track_too_long_to_bake_is_refused_and_nothing_written(addon, rig_scene):
    """A footprint standing for ten days is a valid track, but at the scene's 24 fps it would be 2e7
    frames: the bake refuses, naming the size, before allocating them, and the scene stays as it was."""
    coll = bpy.context.scene.footprint.active_track
    last = max((o for o in coll.objects if o.footprint.is_footprint), key=lambda o: o.footprint.liftoff)
    last.footprint.liftoff = 9e5
    bpy.ops.ed.undo_push(message="long stance")
    before = snapshot()
    with pytest.raises(RuntimeError, match=r"the track lasts .* frames, more than the limit of 1,000,000: nothing baked"):
        bpy.ops.footprint.bake(rig="rig")
    assert snapshot() == before


def test_missing_bones_are_listed_and_nothing_is_written(addon, rig_scene):
    bpy.context.view_layer.objects.active = rig_scene
    bpy.ops.object.mode_set(mode="EDIT")
    for name in ("foot_ik.L", "ORG-toe.R"):
        rig_scene.data.edit_bones.remove(rig_scene.data.edit_bones[name])
    bpy.ops.object.mode_set(mode="OBJECT")
    before = snapshot()
    actions = len(bpy.data.actions)
    with pytest.raises(RuntimeError, match="missing bones: foot_ik.L, ORG-toe.R"):
        bpy.ops.footprint.bake(rig="rig")
    assert snapshot() == before and len(bpy.data.actions) == actions
    assert rig_scene.animation_data is None or len(rig_scene.animation_data.nla_tracks) == 0


def mixamo_armature(prefix="mixamorig:", facing=-1.0):
    """A plain Mixamo-named armature (no IK), facing -Y like an imported Mixamo character (facing=-1) or +Y."""
    arm = bpy.data.armatures.new("Mixamo")
    obj = bpy.data.objects.new("Mixamo", arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    eb = arm.edit_bones

    def bone(name, head, tail, parent=None):
        b = eb.new(prefix + name)
        b.head, b.tail = head, tail
        if parent:
            b.parent = eb[prefix + parent]
        return b

    f = -facing  # Mixamo's left is +X when it faces -Y
    bone("Hips", (0, 0, 1.0), (0, 0, 1.1))
    bone("Spine", (0, 0, 1.1), (0, 0, 1.5), "Hips")
    for side, x in (("Left", 0.1 * f), ("Right", -0.1 * f)):
        bone(f"{side}UpLeg", (x, 0, 0.95), (x, 0.02 * facing, 0.52), "Hips")
        bone(f"{side}Leg", (x, 0.02 * facing, 0.52), (x, 0, 0.09), f"{side}UpLeg").use_connect = True
        bone(f"{side}Foot", (x, 0, 0.09), (x, 0.12 * facing, 0.02), f"{side}Leg").use_connect = True
        bone(f"{side}ToeBase", (x, 0.12 * facing, 0.02), (x, 0.2 * facing, 0.02), f"{side}Foot").use_connect = True
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


@pytest.mark.parametrize("facing", [-1.0, 1.0])
def test_mixamo_rig_needs_leg_ik_then_bakes(addon, clean, facing):
    rig = mixamo_armature(facing=facing)
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    with pytest.raises(RuntimeError, match="Mixamo rig without foot IK controls"):
        bpy.ops.footprint.bake(rig=rig.name)
    assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
    ik = rig.pose.bones["mixamorig:LeftLeg"].constraints["Footprint IK"]
    assert ik.subtarget == "FP-foot_ik.L" and ik.pole_subtarget == "FP-knee_pole.L"
    bones = ["mixamorig:Hips", "mixamorig:LeftFoot", "mixamorig:LeftToeBase", "mixamorig:RightFoot",
             "mixamorig:RightToeBase"]
    motion = check_bake(addon, rig, bones)
    # Knees bend forwards (the body's facing), never sideways or backwards.
    frames = np.arange(1, 120, 7)
    points = evaluated_points(rig, frames, ["mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot"])
    bend = points[:, 1] - 0.5 * (points[:, 0] + points[:, 2])
    forward = np.stack([-np.sin(motion.yaw), np.cos(motion.yaw)], axis=1)[frames - 1]
    assert (np.einsum("nd,nd->n", bend[:, :2], forward) > 0).all()


def test_setup_leg_ik_refuses_an_armature_without_legs(addon, clean):
    arm = bpy.data.armatures.new("Snake")
    obj = bpy.data.objects.new("Snake", arm)
    bpy.context.scene.collection.objects.link(obj)
    before = snapshot()
    with pytest.raises(RuntimeError, match="no leg chains found; missing: mixamorig|no leg chains found"):
        bpy.ops.footprint.setup_leg_ik(rig="Snake")
    assert snapshot() == before


def pose_matrices(rig):
    bpy.context.view_layer.update()
    return {b.name: np.array(b.matrix) for b in rig.pose.bones}


def test_preview_follows_the_solution_and_removes_cleanly(addon, rig_scene):
    rest = pose_matrices(rig_scene)
    objects, actions = set(bpy.data.objects.keys()), set(bpy.data.actions.keys())
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    assert rig_scene.animation_data is None or not rig_scene.animation_data.nla_tracks  # nothing baked
    constrained = [b.name for b in rig_scene.pose.bones if any(c.name.startswith("Footprint Preview") for c in b.constraints)]
    assert sorted(constrained) == ["chest", "foot_ik.L", "foot_ik.R", "forearm_fk.L", "forearm_fk.R", "head", "toe_ik.L",
                                   "toe_ik.R", "torso", "upper_arm_fk.L", "upper_arm_fk.R"]
    bake = bake_module(addon)
    coll = bpy.context.scene.footprint.active_track
    frames, motion = bake.solve_for_rig(bpy.context, coll, bake.bind(rig_scene))
    points = evaluated_points(rig_scene, frames[::3], ["torso", "DEF-toe.L"])
    assert np.linalg.norm(points[:, 0] - motion.com[::3], axis=1).max() < 0.01
    on = motion.contact[::3, 0] & (motion.footprint[::3, 0] == 0)
    assert np.linalg.norm(points[on, 1] - points[on, 1][0], axis=1).max() < 1e-3
    assert bpy.ops.footprint.preview(rig="rig", remove=True) == {"FINISHED"}
    bpy.context.scene.frame_set(1)
    assert set(bpy.data.objects.keys()) == objects and set(bpy.data.actions.keys()) == actions
    assert not any(c.name.startswith("Footprint Preview") for b in rig_scene.pose.bones for c in b.constraints)
    after = pose_matrices(rig_scene)
    assert all(np.allclose(after[name], rest[name], atol=1e-6) for name in rest)


def test_auto_rig_pro_names_are_recognised(addon, clean):
    arm = bpy.data.armatures.new("ARP")
    obj = bpy.data.objects.new("ARP", arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for name in ("c_root_master.x", "c_foot_ik.l", "c_foot_ik.r", "c_thigh_fk.l", "c_thigh_fk.r"):
        bone = arm.edit_bones.new(name)
        bone.head, bone.tail = (0, 0, 1), (0, 0.1, 1)
    bpy.ops.object.mode_set(mode="OBJECT")
    binding = sys.modules[f"{addon}.footprint_addon.rigs.binding"]
    with pytest.raises(binding.MissingBonesError, match=r"\(Auto-Rig Pro\) is missing bones: c_foot_fk.l, c_foot_fk.r"):
        binding.bind(obj)


def test_com_offset_set_by_hand_moves_the_body_control(addon, rig_scene):
    binding = sys.modules[f"{addon}.footprint_addon.rigs.binding"]
    mapping = dict(binding.RIGIFY, com_offset=[0.0, 0.0, 0.08])  # the COM 8 cm above the torso control
    rig_scene.data[binding.MAPPING_KEY] = json.dumps(mapping)
    coll = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    bake = bake_module(addon)
    frames, motion = bake.solve_for_rig(bpy.context, coll, bake.bind(rig_scene))
    points = evaluated_points(rig_scene, frames[::5], ["torso"])[:, 0]
    rot = np.stack([np.array(m) for m in bake_module(addon).bone_targets(
        bake.bind(rig_scene), motion, bake.world_rest(bake.bind(rig_scene)))["torso"][0][::5]])
    expected = motion.com[::5] - (rot @ np.linalg.inv(np.array(rig_scene.data.bones["torso"].matrix_local)[:3, :3])
                                  @ np.array([0.0, 0.0, 0.08]))
    assert np.linalg.norm(points - expected, axis=1).max() < 0.01
    assert np.linalg.norm(points - motion.com[::5], axis=1).min() > 0.07


def evaluated_at(rig, frames, bones):
    """Like evaluated_points, at fractional frames (keys of a running cycle fall between frames)."""
    scene = bpy.context.scene
    out = np.zeros((len(frames), len(bones), 3))
    for i, frame in enumerate(frames):
        scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        m = np.array(evaluated.matrix_world)
        for j, name in enumerate(bones):
            out[i, j] = (m @ np.append(np.array(evaluated.pose.bones[name].head), 1.0))[:3]
    return out


def test_running_cycle_loops_seamlessly_in_place(addon, rig_scene):
    assert bpy.ops.footprint.run_cycle(rig="rig", speed_kmh=12.0, in_place=True) == {"FINISHED"}
    anim = rig_scene.animation_data
    (track,) = [t for t in anim.nla_tracks if t.name.startswith("Footprints: run cycle")]
    action = track.strips[0].action
    first, last = None, None
    for fc in fcurves(addon, action):
        keys = fc.keyframe_points
        if len(keys) > 2:
            assert abs(keys[0].co[1] - keys[-1].co[1]) <= 1e-4, fc.data_path  # the loop closes
            assert any(m.type == "CYCLES" for m in fc.modifiers)
            first, last = keys[0].co[0], keys[-1].co[0]
    # On the evaluated rig (the strip repeats the stride), the motion is periodic right across the seam:
    # one stride later the pose is the same, also just before and just after the seam, so position and
    # velocity both match where the loop closes.
    period = last - first
    probes = np.array([first, first + 0.5, last - 0.5, last, last + 0.5, first + 0.3 * period])
    here = evaluated_at(rig_scene, probes, ["torso", "DEF-toe.L", "DEF-toe.R"])
    later = evaluated_at(rig_scene, probes + period, ["torso", "DEF-toe.L", "DEF-toe.R"])
    assert np.abs(here - later).max() <= 1e-4
    seam_velocity = here[4] - here[2]  # across the seam, from half a frame before to half after
    assert np.abs(seam_velocity - (later[4] - later[2])).max() <= 1e-4
    assert np.abs(here[3] - here[0]).max() <= 1e-4  # first and last frames of the stride


def test_running_cycle_with_root_motion_plants_feet_and_flies_ballistically(addon, rig_scene):
    bpy.context.scene.render.fps = 60
    assert bpy.ops.footprint.run_cycle(rig="rig", speed_kmh=12.0, in_place=False) == {"FINISHED"}
    running_bake = sys.modules[f"{addon}.footprint_addon.running_bake"]
    running = sys.modules[f"{addon}.solver.running.parameters"]
    bake = bake_module(addon)
    binding = bake.bind(rig_scene)
    character = bake.rig_character(binding)
    params = running.natural(12.0)
    cycle_module = sys.modules[f"{addon}.solver.running.cycle"]
    motion, constraints, _cycle = cycle_module.running_cycle(
        params, character, running_bake.rig_leg_geometry(character, min(binding.measurements["chains"].values()),
                                                          10.5), 60.0)
    frames = bpy.context.scene.frame_start + motion.times * 60.0
    points = evaluated_at(rig_scene, frames, ["torso", "DEF-toe.R", "DEF-toe.L"])
    flat_from = 0.5 * constraints.t_stance  # before mid-support the foot rolls onto its sole about the heel
    ankles = evaluated_at(rig_scene, frames, ["DEF-foot.L", "DEF-foot.R"])
    for leg, column in ((0, 2), (1, 1)):  # legs in the character's order (L, R)
        for fp in np.unique(motion.footprint[:, leg][motion.contact[:, leg]]):
            on = motion.contact[:, leg] & (motion.footprint[:, leg] == fp)
            landed = motion.times[on][0] if on.any() else 0.0
            flat = on & (motion.times - landed >= flat_from - 1e-9)
            if flat.sum() > 1:
                balls = points[flat, column]
                assert np.linalg.norm(balls - balls[0], axis=1).max() <= 1e-3  # the stance foot stays put
            rolling = on & ~flat
            if rolling.sum() > 1:  # the heel's back stays put while the foot rolls: the ankle keeps its distance
                heel = motion.feet[rolling, leg][0] - character.heel * motion.foot_rotation[rolling, leg][0][:, 1]
                reach = np.linalg.norm(ankles[rolling, leg] - heel, axis=1)
                assert np.ptp(reach) <= 1e-3
    flying = ~motion.contact.any(axis=1)
    t = motion.times
    z = points[:, 0, 2]
    acc = (z[2:] - 2 * z[1:-1] + z[:-2]) / np.diff(t)[:-1] ** 2
    inner = flying[1:-1] & flying[:-2] & flying[2:]
    assert inner.sum() >= 3
    assert np.abs(acc[inner] + 9.81).max() <= 0.02 * 9.81  # the pelvis flies on a parabola


@pytest.mark.parametrize("speed_kmh", [12.0, 18.0])
def test_a_running_cycle_keeps_its_soles_above_the_ground_and_never_locks_a_knee(addon, rig_scene, speed_kmh):
    """Issue 28: the Running panel's cycle put the soles 39-56 mm under the ground in half its frames (the toes
    were never bent at push-off, the heel rolled about a point ahead of its back, the swing path overshot under
    the ground) and held the knees straight for 20-22 frames a stride (the swing reached for its footprint
    early). Over the stride on the evaluated rig: every sole point (heel, ball, toe tip) at most 2 mm under the
    ground, every knee bent at least 5 degrees."""
    bpy.context.scene.render.fps = 60
    assert bpy.ops.footprint.run_cycle(rig="rig", speed_kmh=speed_kmh, in_place=False) == {"FINISHED"}
    (track,) = [t for t in rig_scene.animation_data.nla_tracks if t.name.startswith("Footprints: run cycle")]
    strip = track.strips[0]
    frames = np.arange(int(strip.frame_start), int(strip.frame_end) + 1)
    quality = sys.modules[f"{addon}.footprint_addon.rig_quality"]
    binding = bake_module(addon).bind(rig_scene)
    feet = list(binding.feet)
    bones = list(dict.fromkeys([binding.ankles[f] for f in feet] + [binding.balls[f] for f in feet]
                               + [binding.heels[f] for f in feet] + [f"DEF-{b}.{f}" for f in feet for b in ("thigh", "shin")]))
    index = {name: i for i, name in enumerate(bones)}
    m = quality.evaluated_matrices(bpy.context, rig_scene, bones, frames)
    soles = quality.sole_points(m, index, binding, feet)
    assert soles[..., 2].min() > -0.002, soles[..., 2].min()
    for foot in feet:
        knee = quality.knee_flexion(m[:, index[f"DEF-thigh.{foot}"]], m[:, index[f"DEF-shin.{foot}"]],
                                    quality.knee_bend_axis(binding, foot))
        assert knee.min() > 5.0, (foot, knee.min())


def test_running_panel_keeps_the_equations_and_previews_live(addon, rig_scene):
    settings = bpy.context.scene.footprint_running
    settings.live = False
    settings.velocity_kmh = 12.0
    assert settings.step_length == pytest.approx(1.07, abs=0.01)
    assert settings.step_frequency == pytest.approx(187, abs=1)
    settings.lock_velocity = True
    settings.step_frequency = 210.0
    assert settings.step_length == pytest.approx(0.95, abs=0.01) and settings.velocity_kmh == pytest.approx(12.0)
    settings.lock_velocity = False
    overstride_before = settings.overstride
    settings.bounciness = 0.9  # set by hand: stays
    settings.velocity_kmh = 20.0
    assert settings.bounciness == pytest.approx(0.9)
    assert settings.overstride < overstride_before  # not set by hand: follows the velocity (falls)
    settings.rig = rig_scene
    settings.live = True
    settings.velocity_kmh = 15.0  # live: the rig's running cycle is re-made at once
    tracks = [t for t in rig_scene.animation_data.nla_tracks if t.name.startswith("Footprints: run cycle")]
    assert len(tracks) == 1 and "15.0 km/h" in tracks[0].strips[0].action.name
    settings.velocity_kmh = 16.0
    tracks = [t for t in rig_scene.animation_data.nla_tracks if t.name.startswith("Footprints: run cycle")]
    assert len(tracks) == 1 and "16.0 km/h" in tracks[0].strips[0].action.name  # replaced, not added
    assert bpy.ops.footprint.running_reset() == {"FINISHED"}
    assert settings.chosen == "" and settings.bounciness != pytest.approx(0.9)


def test_running_presets_ship_and_users_can_add(addon, rig_scene, tmp_path):
    settings = bpy.context.scene.footprint_running
    settings.live = False
    sprint = bpy.utils.preset_find("sprint", "footprint_running")
    assert sprint and sprint.endswith("sprint.py")
    bpy.ops.script.execute_preset(filepath=sprint, menu_idname="FOOTPRINT_MT_running_presets")
    assert settings.velocity_kmh == pytest.approx(26.0)
    assert settings.step_length == pytest.approx(0.1394 + 0.00565 * 400.0, abs=1e-3)  # beyond v_norm: constant
    settings.velocity_kmh = 10.5
    assert bpy.ops.footprint.running_preset_add(name="My Jog") == {"FINISHED"}
    mine = bpy.utils.preset_find("My Jog", "footprint_running", display_name=True)
    assert mine and "settings.velocity_kmh = 10.5" in open(mine).read()


def test_running_upper_body_swings_arms_with_the_opposite_hip(addon, rig_scene):
    bpy.context.scene.render.fps = 60
    assert bpy.ops.footprint.run_cycle(rig="rig", speed_kmh=14.0, in_place=True) == {"FINISHED"}
    running = sys.modules[f"{addon}.solver.running.parameters"]
    attributes = sys.modules[f"{addon}.solver.running.attributes"].natural_attributes(running.natural(14.0))
    cycle = 2 * 60.0 / running.natural(14.0).step_frequency
    frames = 1 + np.linspace(0, cycle * 60.0, 24, endpoint=False)
    names = ["DEF-upper_arm.L", "DEF-forearm.L", "DEF-hand.L", "DEF-shoulder.L", "DEF-foot.R", "DEF-thigh.R",
             "DEF-upper_arm.R", "DEF-shoulder.R", "DEF-hand.R", "DEF-foot.L", "DEF-thigh.L"]
    p = evaluated_at(rig_scene, frames, names)
    forward = np.array([0.0, 1.0, 0.0])  # the run goes along +Y
    for hand, shoulder, foot, hip in ((2, 3, 4, 5), (8, 7, 9, 10)):  # each arm against the opposite leg
        hand_ahead = (p[:, hand] - p[:, shoulder]) @ forward
        foot_ahead = (p[:, foot] - p[:, hip]) @ forward
        assert np.corrcoef(hand_ahead, foot_ahead)[0, 1] > 0.8
    upper = p[:, 1] - p[:, 0]
    lower = p[:, 2] - p[:, 1]
    elbow = np.degrees(np.arccos(np.einsum("nd,nd->n", upper, lower)
                                 / (np.linalg.norm(upper, axis=1) * np.linalg.norm(lower, axis=1))))
    assert np.abs(elbow - attributes.elbow_flexion).max() < 12.0
    # The shoulders turn against the hips.
    shoulders = p[:, 3] - p[:, 7]
    hips = p[:, 10] - p[:, 5]
    shoulder_yaw = np.arctan2(shoulders[:, 1], shoulders[:, 0])
    hip_yaw = np.arctan2(hips[:, 1], hips[:, 0])
    assert np.ptp(shoulder_yaw) > np.radians(2.0) and np.corrcoef(shoulder_yaw, hip_yaw)[0, 1] < -0.5


def test_running_swing_leg_meets_its_phase_constraints(addon, rig_scene):
    """At the other leg's mid-support the swing thigh hangs vertical with the knee folded by the
    knee-flexion attribute (B&C §3.3.2), on the evaluated rig."""
    bpy.context.scene.render.fps = 120
    assert bpy.ops.footprint.run_cycle(rig="rig", speed_kmh=14.0, in_place=False) == {"FINISHED"}
    running = sys.modules[f"{addon}.solver.running.parameters"]
    params = running.natural(14.0)
    attributes = sys.modules[f"{addon}.solver.running.attributes"].natural_attributes(params)
    pelvis = sys.modules[f"{addon}.solver.running.pelvis"]
    bake = bake_module(addon)
    binding = bake.bind(rig_scene)
    character = bake.rig_character(binding)
    legs = sys.modules[f"{addon}.footprint_addon.running_bake"].rig_leg_geometry(
        character, min(binding.measurements["chains"].values()), attributes.knee_bend_heel_strike)
    constraints = pelvis.step(params, legs, overstride=attributes.overstride, bounciness=attributes.bounciness)
    mid_support = 0.5 * constraints.t_stance  # the right leg stands, the left one swings
    frame = bpy.context.scene.frame_start + mid_support * 120.0
    p = evaluated_at(rig_scene, [frame], ["DEF-thigh.L", "DEF-shin.L", "DEF-foot.L"])[0]
    thigh, shin = p[1] - p[0], p[2] - p[1]
    knee = np.degrees(np.arccos(thigh @ shin / (np.linalg.norm(thigh) * np.linalg.norm(shin))))
    assert knee == pytest.approx(attributes.knee_flexion_swing, abs=8.0)
    assert np.degrees(np.arccos(-thigh[2] / np.linalg.norm(thigh))) < 20.0  # the thigh hangs near vertical


def test_moving_a_footprint_re_solves_once_and_refreshes_the_preview(addon, rig_scene, tmp_path):
    live = sys.modules[f"{addon}.footprint_addon.live"]
    assert live.on_depsgraph_update in bpy.app.handlers.depsgraph_update_post
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}  # the track's rig and preview
    assert solved.last_motion(bpy.data.collections["fig1"]) is not None  # the overlay draws it at once; the live update starts there
    com = bpy.data.objects["fig1 COM"]

    def com_keys():
        return [tuple(k.co) for k in fcurves(addon, com.animation_data.action)[1].keyframe_points]

    before = com_keys()
    solves = live.stats["solves"]
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start + 60)

    def com_now():  # where the COM empty is at this frame, as Blender evaluates it
        return np.array(com.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world.translation)

    shown = com_now()
    objs = sorted((o for o in bpy.data.collections["fig1"].objects if o.footprint.is_footprint),
                  key=lambda o: o.footprint.contact)
    objs[5].location.y += 0.03
    bpy.context.view_layer.update()
    objs[5].location.y += 0.03  # a drag: two updates, one re-solve
    bpy.context.view_layer.update()
    com_before = bpy.data.objects["fig1 COM"].as_pointer()
    assert live.flush(bpy.context) == 1 and live.stats["solves"] == solves + 1
    com = bpy.data.objects["fig1 COM"]
    assert com_keys() != before  # the preview shows the new solution
    assert com.as_pointer() == com_before  # rewritten in place, not rebuilt
    bpy.context.view_layer.update()
    assert np.linalg.norm(com_now() - shown) > 1e-3  # ...at once, without changing frame
    report = json.loads(bpy.data.collections["fig1"].footprint_track.last_report)
    assert report["optimizer"]["warm_start"]
    bpy.data.objects["fig1 COM"].location.x += 0.01  # our own objects: the handler does not even note them
    bpy.context.view_layer.update()
    assert not live._dirty and live.flush(bpy.context) == 0
    # Handlers survive loading a file, and the live update still works there.
    path = str(tmp_path / "live.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    assert live.on_depsgraph_update in bpy.app.handlers.depsgraph_update_post
    objs = sorted((o for o in bpy.data.collections["fig1"].objects if o.footprint.is_footprint),
                  key=lambda o: o.footprint.contact)
    objs[7].footprint.liftoff += 0.02  # retiming counts too
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1


def test_a_bake_hands_its_motion_to_the_overlay_and_the_live_update(addon, rig_scene):
    """After a bake the overlay draws the baked motion, and the first live edit starts from it (a warm
    start) instead of solving from scratch."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    coll = bpy.context.scene.footprint.active_track
    assert solved.last_motion(coll) is None
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    baked = solved.last_motion(coll)
    assert baked is not None and baked.report == json.loads(coll.footprint_track.last_report)
    assert solved.last_signature(coll) == solved.signature(coll)
    objs = footprint_objects(coll)
    objs[4].location.x += 0.03
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    assert json.loads(coll.footprint_track.last_report)["optimizer"]["warm_start"]
    assert solved.last_motion(coll) is not baked
    # Kept per track, not per name: a renamed track keeps its record, a new one under the old name has none.
    motion, name = solved.last_motion(coll), coll.name
    coll.name = "renamed"
    assert solved.last_motion(coll) is motion
    assert solved.last_motion(bpy.data.collections.new(name)) is None


def test_a_preview_left_behind_by_a_bake_is_refreshed_by_the_live_update(addon, rig_scene):
    """With Live off, footprints moved and the track baked: the bake records its solve but leaves the
    preview as it was, so once Live is on, the next update re-solves and the preview catches up."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    coll = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    assert live.flush(bpy.context) == 0  # the preview shows the footprints as they are
    shown = solved.previewed_signature(coll)
    coll.footprint_track.live = False
    objs = footprint_objects(coll)
    objs[4].location.x += 0.05
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0  # Live off: nothing noted
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    assert solved.last_signature(coll) == solved.signature(coll) != solved.previewed_signature(coll) == shown
    coll.footprint_track.live = True
    objs[0].location = objs[0].location  # any update of a footprint
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1 and solved.previewed_signature(coll) == solved.signature(coll)


def test_the_solver_sees_the_terrain_mesh(addon, rig_scene, monkeypatch):
    """A 15 cm ridge across the path between two footprints on level ground: the solve reads the terrain
    mesh (a height field sampled from it), so the swing foot passes over the ridge, heel, mid-foot and
    toe; the footprints alone say nothing of it (the arc would stay at the 7 cm swing clearance: 6.4 cm
    into the ridge). Moving the terrain makes the solver sample it again."""
    scene_io = sys.modules[f"{addon}.footprint_addon.scene_io"]
    terrain_module = sys.modules[f"{addon}.footprint_addon.terrain"]
    bake = bake_module(addon)
    mesh = bpy.data.meshes.new("ridge")
    ys = [-2.0, 0.95, 0.95, 1.15, 1.15, 6.0]
    zs = [0.0, 0.0, 0.15, 0.15, 0.0, 0.0]
    verts = [(x, y, z) for y, z in zip(ys, zs) for x in (-2.0, 2.0)]
    deck = [(-2.0, 2.2, 2.5), (2.0, 2.2, 2.5), (2.0, 2.6, 2.5), (-2.0, 2.6, 2.5)]  # a bridge overhead
    faces = [(2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2) for i in range(len(ys) - 1)]
    mesh.from_pydata(verts + deck, [], faces + [tuple(range(len(verts), len(verts) + 4))])
    ground = bpy.data.objects.new("ridge", mesh)
    bpy.context.scene.collection.objects.link(ground)
    coll = scene_io.new_track(bpy.context, "over the ridge", terrain=ground)
    track_module = sys.modules[f"{addon}.solver.track"]
    positions = [(-0.1, 0.0, 0.0), (0.1, 0.45, 0.0), (-0.1, 1.6, 0.0), (0.1, 2.05, 0.0)]
    scene_io.write_track(coll, track_module.make_track(["L", "R", "L", "R"], positions, [0.0] * 4,
                                                       [0.0, 0.6, 1.2, 1.8], [0.9, 1.5, 2.1, 2.7]))
    frames, motion = bake.solve_for_rig(bpy.context, coll, bake.bind(rig_scene))
    probe = terrain_module.TerrainProbe(ground, bpy.context.evaluated_depsgraph_get())
    half = 0.5 * motion.character.foot_length
    over = (motion.times > 0.9) & (motion.times < 1.2)  # the left foot's swing across the ridge
    for end in (-1.0, 0.0, 1.0):
        sole = motion.feet[over, 0] + end * half * motion.foot_rotation[over, 0, :, 1]
        hit, below, _normals = probe.project(sole[:, :2])
        assert hit.all() and (sole[:, 2] - below[:, 2]).min() >= -1e-3
    assert motion.feet[over, 0, 2].max() > 0.15 + 0.05
    field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    assert np.isclose(field.heights(np.array([[0.1, 2.4]]))[0], 0.0, atol=1e-6)  # under the bridge: the ground
    # A footprint put up on the bridge: the cells around it are cast again from above the deck, and back
    # down, from under it: the same footprints give the same field whatever the edits before.
    last = footprint_objects(coll)[3]
    for z, deck_or_ground in ((2.5, 2.5), (0.0, 0.0)):
        last.location = (0.1, 2.4, z)
        bpy.context.view_layer.update()
        field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
        assert np.isclose(field.heights(np.array([[0.1, 2.3]]))[0], deck_or_ground, atol=1e-6)
    last.location = (0.1, 2.05, 0.0)
    bpy.context.view_layer.update()
    # Sampled once per terrain state: moving the terrain drops it; a footprint moved anywhere (here off
    # the line, where nothing was sampled yet) is sampled there; past the mesh's edge the ground is the
    # lowest footprint's, not the mesh's lowest point.
    field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    assert bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll)) is field
    ground.location.z += 0.1
    bpy.context.view_layer.update()
    moved = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    assert moved is not field and np.isclose(moved.heights(np.array([[0.0, 1.05]]))[0], 0.25, atol=1e-6)
    objs = footprint_objects(coll)
    objs[2].location = (1.5, 1.05, 0.0)  # onto the ridge, 1.6 m off the line
    bpy.context.view_layer.update()
    field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    assert np.isclose(field.heights(np.array([[1.5, 1.05]]))[0], 0.25, atol=1e-6)
    objs[3].location = (0.1, 7.0, 0.05)  # past the mesh (it ends at y = 6)
    bpy.context.view_layer.update()
    field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    assert np.isclose(field.heights(np.array([[0.1, 7.0]]))[0], 0.0, atol=1e-6)
    # A footprint moved past the sampled region casts rays only around itself: the cells lie on a lattice
    # fixed in the world, and the samples already taken are kept (all were cast again: 0.9 s on 300 steps).
    cast = []
    project = terrain_module.TerrainProbe.project
    monkeypatch.setattr(terrain_module.TerrainProbe, "project",
                        lambda probe, xy, tops=None: cast.append(len(xy)) or project(probe, xy, tops))
    back = objs[1].location.copy()
    objs[1].location = (0.1, 9.5, 0.0)  # the region grows by 2.5 m
    bpy.context.view_layer.update()
    field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    reach = int(np.ceil(terrain_module.MARGIN / terrain_module.SPACING))
    assert 0 < sum(cast) <= (2 * reach + 1) ** 2 and np.isclose(field.heights(np.array([[1.5, 1.05]]))[0], 0.25)
    objs[1].location = back
    bpy.context.view_layer.update()
    field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    assert sum(cast) <= (2 * reach + 1) ** 2  # back where it was sampled: no ray
    monkeypatch.undo()
    # Another track on the same terrain keeps its own samples: solving the two in turn samples nothing again.
    other = scene_io.new_track(bpy.context, "elsewhere", terrain=ground)
    scene_io.write_track(other, track_module.make_track(["L", "R"], [(-1.5, 4.0, 0.0), (-1.3, 4.5, 0.0)], [0.0] * 2,
                                                        [0.0, 0.6], [0.9, 1.5]))
    elsewhere = bake.solver_terrain(bpy.context, other, scene_io.read_track(other))
    assert bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll)) is field
    assert bake.solver_terrain(bpy.context, other, scene_io.read_track(other)) is elsewhere
    # A terrain that is not evaluated (disabled in viewports): the solve takes the ground from the footprints.
    ground.hide_viewport = True
    bpy.context.view_layer.update()
    assert bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll)) is None
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    ground.hide_viewport = False
    # Rays start HEADROOM above the highest footprint within reach (under a bridge: the ground below), and
    # only within reach of a footprint.
    rng = np.random.default_rng(0)
    for spacing in (0.05, 0.37):
        positions = np.column_stack([rng.uniform(0.0, 10.0, (7, 2)), rng.uniform(0.0, 2.0, 7)])
        low, shape, reach = np.floor(positions[:, :2].min(axis=0) - 1.0), (300, 260), int(np.ceil(1.0 / spacing))
        cell = np.clip(np.round((positions[:, :2] - low) / spacing).astype(int), 0, np.array(shape)[::-1] - 1)
        rows, columns = np.mgrid[0:shape[0], 0:shape[1]]
        squares = [np.where((np.abs(columns - x) <= reach) & (np.abs(rows - y) <= reach), z + terrain_module.HEADROOM,
                            -np.inf) for (x, y), z in zip(cell, positions[:, 2])]
        tops = terrain_module._tops(positions, low, spacing, shape, reach)
        assert np.array_equal(tops, np.max(squares, axis=0))
        # After a footprint moved, worked out again only around its old and new places: the same.
        moved = positions.copy()
        moved[3] += [2.0, -1.5, 0.7]
        again = terrain_module._tops(moved, low, spacing, shape, reach, (tops, positions))
        assert np.array_equal(again, terrain_module._tops(moved, low, spacing, shape, reach))


def test_a_terrain_field_over_a_wide_region_is_sampled_coarser(addon, rig_scene, monkeypatch):
    """Two footprints 300 m apart span 91,000 m^2: at 5 cm that would be 36 million cells. The field takes
    the coarsest whole-centimetre spacing that keeps within MAX_CELLS, casts rays only near the footprints,
    and still gives the ground's height there (a plane rising 5 % along x: exact on any lattice)."""
    terrain_module = sys.modules[f"{addon}.footprint_addon.terrain"]
    scene_io = sys.modules[f"{addon}.footprint_addon.scene_io"]
    mesh = bpy.data.meshes.new("plain")
    mesh.from_pydata([(x, y, 0.05 * x) for y in (-10.0, 310.0) for x in (-10.0, 310.0)], [], [(0, 1, 3, 2)])
    ground = bpy.data.objects.new("plain", mesh)
    bpy.context.scene.collection.objects.link(ground)
    coll = scene_io.new_track(bpy.context, "far apart", terrain=ground)
    cast = []
    project = terrain_module.TerrainProbe.project
    monkeypatch.setattr(terrain_module.TerrainProbe, "project",
                        lambda probe, xy, tops=None: cast.append(len(xy)) or project(probe, xy, tops))
    positions = np.array([(0.0, 0.0, 0.0), (300.0, 300.0, 15.0)])
    field = terrain_module.height_field(bpy.context, ground, positions, coll)
    area = 302.0 ** 2
    assert field.spacing == np.ceil(100 * np.sqrt(area / terrain_module.MAX_CELLS)) / 100 == 0.22
    assert field.values.size <= terrain_module.MAX_CELLS
    reach = int(np.ceil(terrain_module.MARGIN / field.spacing))
    assert 0 < sum(cast) <= 2 * (2 * reach + 1) ** 2
    near = positions[:, :2] + [[0.3, -0.4], [-0.5, 0.2]]
    assert np.allclose(field.heights(near), 0.05 * near[:, 0], atol=1e-5)


def test_editing_the_terrain_re_solves_the_live_preview(addon, rig_scene):
    """The solve reads the terrain, so changing it (here: raised 50 cm) makes the live update solve the
    track again, on the new ground (before, it kept the old one: the terrain was not in its signature)."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    coll = bpy.context.scene.footprint.active_track
    mesh = bpy.data.meshes.new("ground")
    mesh.from_pydata([(-3, -3, 0), (3, -3, 0), (3, 10, 0), (-3, 10, 0)], [], [(0, 1, 2, 3)])
    ground = bpy.data.objects.new("ground", mesh)
    bpy.context.scene.collection.objects.link(ground)
    coll.footprint_track.terrain = ground
    raise_and_resolve(live, solved, coll, ground)  # solved and measured on the raised ground, once


def test_changing_the_scene_clock_re_solves_the_live_preview(addon, rig_scene):
    """The preview is keyed on the scene's frames: a new frame rate or start frame re-solves it on the new
    frames (before, its keys stayed where they were, and the motion played at the old clock's pace)."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    frame_times = bake_module(addon).frame_times
    coll, scene = bpy.data.collections["fig1"], bpy.context.scene
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    footprints = [o.footprint for o in coll.objects if o.footprint.is_footprint]
    first, last = min(f.contact for f in footprints), max(f.liftoff for f in footprints)

    def keyed_span():  # the COM empty's first and last keyed frames
        keys = fcurves(addon, bpy.data.objects["fig1 COM"].animation_data.action)[0].keyframe_points
        return keys[0].co.x, keys[-1].co.x

    def frames_now():  # the frames that cover the track on the scene's clock now
        frames, _times = frame_times(scene, first, last)
        return frames[0], frames[-1]

    assert keyed_span() == frames_now()
    for change in (lambda: setattr(scene.render, "fps", 2 * scene.render.fps),
                   lambda: setattr(scene, "frame_start", scene.frame_start + 7)):
        before = keyed_span()
        change()
        bpy.context.view_layer.update()
        assert live.flush(bpy.context) == 1
        assert keyed_span() == frames_now() != before
        assert live.flush(bpy.context) == 0  # and once only
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    bpy.context.view_layer.update()  # (the re-solve wrote the track's report: noted, nothing to solve)
    live.flush(bpy.context)
    revision = solved.revision(coll)
    scene.frame_end += 5  # the clock unchanged: nothing noted, nothing to solve again
    bpy.context.view_layer.update()
    assert not live._dirty and solved.revision(coll) == revision and live.flush(bpy.context) == 0
    # Another scene, on another clock and without the track: editing it leaves this preview alone.
    other = bpy.data.scenes.new("other")
    other.render.fps, other.frame_start = 50, 100
    span = keyed_span()
    with bpy.context.temp_override(scene=other):
        other.view_layers[0].update()  # its depsgraph built: the next update reports what changed
        other.frame_end += 1
        other.view_layers[0].update()
        assert not live._dirty and live.flush(bpy.context) == 0
    assert keyed_span() == span
    # Live off: a new clock neither re-solves nor makes the overlay lay out the track again.
    coll.footprint_track.live = False
    bpy.context.view_layer.update()
    revision = solved.revision(coll)
    scene.render.fps_base = 1.001
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0 and solved.revision(coll) == revision


def test_scaling_the_rig_or_editing_its_rest_pose_re_solves_the_live_preview(addon, rig_scene):
    """The character is measured from the rig, as it stands in the world and in its rest pose: scaled, its
    legs are longer, so the live preview is solved again for them at once (before, it waited for the next
    footprint edit). Bones made longer in edit mode count at the next edit (a rest edit reaches the
    depsgraph handler as any pose does). Moving the rig, or posing it, solves nothing."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    coll = bpy.data.collections["fig1"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    before = solved.last_motion(coll).character.leg_length_nominal
    revision = solved.revision(coll)
    rig_scene.scale = (1.1, 1.1, 1.1)
    bpy.context.view_layer.update()
    assert coll.session_uid in live._dirty and solved.revision(coll) == revision  # the overlay draws no rig
    assert live.flush(bpy.context) == 1
    assert solved.last_motion(coll).character.leg_length_nominal == pytest.approx(1.1 * before)
    bpy.context.view_layer.update()  # (the preview wrote the track's report: noted, nothing to solve)
    assert live.flush(bpy.context) == 0
    bpy.context.view_layer.objects.active = rig_scene
    bpy.ops.object.mode_set(mode="EDIT")
    for bone in rig_scene.data.edit_bones:
        bone.head *= 1.1
        bone.tail *= 1.1
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    assert solved.signature(coll) != solved.previewed_signature(coll)  # its rest pose changed
    bake = bake_module(addon)
    solve_for_rig, solves = bake.solve_for_rig, []
    bake.solve_for_rig = lambda *args: solves.append(args) or solve_for_rig(*args)
    try:  # Measure on Rig measures a motion solved for the rig as it is now, not the preview's
        assert bpy.ops.footprint.measure_rig() == {"FINISHED"} and len(solves) == 1
    finally:
        bake.solve_for_rig = solve_for_rig
    footprint_objects(coll)[5].location.x += 0.01
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    assert solved.last_motion(coll).character.leg_length_nominal == pytest.approx(1.21 * before, rel=1e-3)
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0
    rig_scene.location.x += 1.0  # where it stands: the bones follow the preview's targets all the same
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0
    rig_scene.rotation_mode = "XYZ"
    rig_scene.rotation_euler.z += 0.5  # turned: the preview faces another way
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    rig_scene.pose.bones["torso"].rotation_quaternion.w = 0.9  # a pose, as the preview or an animator sets
    bpy.context.view_layer.update()
    assert not live._dirty
    assert solved.signature(coll) == solved.previewed_signature(coll)


def test_a_rig_report_saved_by_an_earlier_version_still_shows(addon):
    panels = sys.modules[f"{addon}.footprint_addon.ui.panels"]
    old = {"frames": 10, "ball_skate": {"L": 1e-4}, "heel_skate": {"L": 2e-4}, "ball_off_footprint": {"L": 0.0},
           "unit": "metres"}
    assert panels.rig_report_lines(json.dumps(old)) == ["On the rig, foot L: ball moves 0.10 mm, heel 0.20 mm"]


def test_a_live_edit_of_a_long_track_samples_again_only_around_it(addon, rig_scene, tmp_path):
    """A 60-step walk: moving one footprint mid-track re-optimises a window and samples again only the
    frames it reaches; the preview's motion is the one sampled in full from the same solution."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    bake = bake_module(addon)
    biped = sys.modules[f"{addon}.solver.biped"]
    human = character_module(addon).preset("human")
    n = 60
    positions = np.stack([0.1 * (-1.0) ** (np.arange(n) + 1), 0.7 * np.arange(n), np.zeros(n)], axis=1)
    timing = sys.modules[f"{addon}.solver.footprints.timing"]
    contact, liftoff = timing.timing_for_sequence(positions, "walk", human.time_unit, human.leg_length_nominal)
    doc = {"format": "footprint-track", "version": 1, "footprints": [
        {"foot": "LR"[i % 2], "position": positions[i].tolist(), "contact": contact[i], "liftoff": liftoff[i]}
        for i in range(n)]}
    path = tmp_path / "walk60.json"
    path.write_text(json.dumps(doc))
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    assert coll.name == "walk60"
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    first = solved.last_motion(coll)
    first.com[0] += 100.0  # a mark: where the live update copies the earlier motion, it shows through
    objs = footprint_objects(coll)
    before = solved.signature(coll)
    objs[30].location.x += 0.04
    bpy.context.view_layer.update()
    span = solved.changed_span(before, solved.signature(coll))
    assert span == pytest.approx((objs[30].footprint.contact, objs[30].footprint.liftoff), abs=1e-6)
    assert live.flush(bpy.context) == 1
    motion = solved.last_motion(coll)
    assert motion.report["optimizer"]["window"] is not None
    # The same solve without the earlier motion samples every frame: the same motion, to the bit.
    binding = bake.bind(rig_scene)
    track = sys.modules[f"{addon}.footprint_addon.scene_io"].read_track(coll)
    full = biped.solve(track, bake.track_character(coll, binding), times=motion.times, warm=first.solution,
                       changed=span)
    assert np.allclose(motion.com[0] - full.com[0], 100.0)  # copied: frame 0 lies far from the edit
    assert np.allclose(motion.com[1:], full.com[1:], rtol=0, atol=1e-12)
    for name in biped.POSE[1:]:  # equal to rounding: the yaw's prefix sums see the edit to the last ulp
        assert np.allclose(getattr(motion, name), getattr(full, name), rtol=0, atol=1e-12), name


def test_a_live_edit_names_the_span_it_changed(addon):
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    settings = ("human", None, "rig")
    feet = (("L.000", (0.0, 0.0, 0.0), 0.0, 0.0, 0.6, "L"), ("R.000", (0.2, 0.5, 0.0), 0.0, 0.5, 1.1, "R"),
            ("L.001", (0.0, 1.0, 0.0), 0.0, 1.0, 1.6, "L"))
    before = (settings, feet)
    moved = (settings, (feet[0], ("R.000", (0.25, 0.5, 0.0), 0.1, 0.5, 1.1, "R"), feet[2]))
    assert solved.changed_span(before, moved) == (0.5, 1.1)  # moved and turned: that footprint's span
    retimed = (settings, (feet[0], ("R.000", (0.2, 0.5, 0.0), 0.0, 0.5, 1.2, "R"), feet[2]))
    assert solved.changed_span(before, retimed) is None  # timing changed: the whole track counts
    assert solved.changed_span(before, (settings, feet[:2])) is None and solved.changed_span(None, before) is None
    assert solved.changed_span(before, before) is None
    taller = (("bird",) + settings[1:], moved[1])  # another character: every state is stale
    assert solved.changed_span(before, taller) is None


def test_an_invalid_live_edit_keeps_the_last_preview_and_says_why(addon, rig_scene):
    """Mid-drag a footprint can overlap the next one of its foot: the re-solve refuses, the preview keeps
    the last good motion, the Rig panel shows why; putting the footprint back clears it (the preview is
    that state's already), and a valid edit re-solves."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    coll = bpy.context.scene.footprint.active_track
    good = solved.last_motion(coll)
    objs = footprint_objects(coll)
    contact = objs[2].footprint.contact
    objs[2].footprint.contact = objs[0].footprint.contact + 0.05  # lands while the same foot still stands
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0
    assert "touches down" in live.errors[coll.session_uid] and solved.last_motion(coll) is good
    objs[2].footprint.contact = contact
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0 and coll.session_uid not in live.errors
    objs[2].location.x += 0.02
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1 and solved.last_motion(coll) is not good


def test_an_unconverged_solve_warns_from_the_operators(addon, rig_scene, monkeypatch, capfd):
    """With the optimiser cut short, Preview and Bake still do their work but warn (Blender prints an
    operator's reports in the background), and the Rig panel's first report line says so."""
    optimize = sys.modules[f"{addon}.solver.core.optimize"]
    biped = sys.modules[f"{addon}.solver.biped"]
    monkeypatch.setitem(biped.METHODS, "lm", lambda problem, *start: optimize.levenberg_marquardt(
        problem, *start, max_iterations=3))
    capfd.readouterr()
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    printed = capfd.readouterr()
    text = printed.out + printed.err
    warned = [line for line in text.splitlines() if line.startswith("Warning: ")]
    assert [line.split(":")[1].split()[0] for line in warned] == ["Previewing", "Baked"]
    assert all(". Optimiser stopped after 3 iterations, not converged" in line for line in warned)
    panels = sys.modules[f"{addon}.footprint_addon.ui.panels"]
    settings = bpy.context.scene.footprint.active_track.footprint_track
    assert panels.report_lines(settings.last_report)[0] == "Optimiser stopped after 3 iterations, not converged"


def test_a_change_of_character_re_solves_the_live_preview(addon, rig_scene):
    """The track's own settings are what the live update reacts to when they change, not only its
    footprints: another character, explicit character parameters or a terrain each re-solve the preview
    once."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    coll = bpy.context.scene.footprint.active_track
    coll.footprint_track.character = "dinosaur"
    bpy.context.view_layer.update()
    assert coll.session_uid in live._dirty
    assert live.flush(bpy.context) == 1 and solved.last_motion(coll).character.name.startswith("dinosaur")
    character = character_module(addon).preset("human").to_json()
    character["leg_length_max"] = 0.98
    coll.footprint_track.character_json = json.dumps(character)
    bpy.context.view_layer.update()
    assert coll.session_uid in live._dirty and live.flush(bpy.context) == 1
    mesh = bpy.data.meshes.new("ground")
    mesh.from_pydata([(-9.0, -9.0, 0.0), (9.0, -9.0, 0.0), (9.0, 9.0, 0.0), (-9.0, 9.0, 0.0)], [], [(0, 1, 2, 3)])
    ground = bpy.data.objects.new("ground", mesh)
    bpy.context.scene.collection.objects.link(ground)
    live.flush(bpy.context)
    coll.footprint_track.terrain = ground
    bpy.context.view_layer.update()
    assert coll.session_uid in live._dirty and live.flush(bpy.context) == 1


def test_a_track_renamed_mid_drag_is_still_re_solved(addon, rig_scene):
    """The live update keeps edited tracks, and why their re-solve failed, by the collection itself: a
    rename between the edit and the re-solve loses neither, and the preview follows the rename (it was
    built again next to the old one, which Remove Preview then could not find)."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    coll = bpy.context.scene.footprint.active_track
    constraints = sum(len(bone.constraints) for bone in rig_scene.pose.bones)
    objs = footprint_objects(coll)
    objs[2].location.x += 0.02
    bpy.context.view_layer.update()
    coll.name = "renamed"
    assert live.flush(bpy.context) == 1 and solved.previewed_signature(coll) == solved.signature(coll)
    assert [c["footprint_preview"] for c in bpy.data.collections if c.get("footprint_preview")] == [coll]
    assert sum(len(bone.constraints) for bone in rig_scene.pose.bones) == constraints
    objs[2].footprint.contact = objs[0].footprint.contact + 0.05  # overlaps: refused
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 0
    coll.name = "renamed again"
    assert "touches down" in live.errors[coll.session_uid]
    assert bpy.ops.footprint.preview(rig="rig", remove=True) == {"FINISHED"}
    assert not [c for c in bpy.data.collections if c.get("footprint_preview")]
    assert not [o for o in bpy.data.objects if o.get("footprint_preview")]
    assert sum(len(bone.constraints) for bone in rig_scene.pose.bones) == constraints - PREVIEW_CONSTRAINTS


def test_a_renamed_track_or_rig_re_bakes_in_place_and_nothing_goes_by_name(addon, rig_scene):
    """A bake or a preview points at its track's collection, not at its name. Rename the track and the rig,
    copy the track (its settings come along) and give its old name to another track: the copy and the other
    bake and preview beside it, and re-baking and re-previewing the renamed track replace its own (by name,
    a second strip and preview were added, or the other track took them over). A bake of an earlier version
    (the track's name on the action) is still replaced."""
    fig1 = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = rig_scene.animation_data
    anim.nla_tracks[0].strips[0].action["footprint_track"] = "fig1"  # as an earlier version wrote it
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    assert [(t.name, [s.name for s in t.strips]) for t in anim.nla_tracks] == [("Footprints: fig1", ["fig1"])]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    constraints = sum(len(bone.constraints) for bone in rig_scene.pose.bones)  # with the preview's
    fig1.name, rig_scene.name = "walk", "hero"
    copy = fig1.copy()
    bpy.context.scene.collection.children.link(copy)
    assert bpy.ops.footprint.import_json(filepath=os.path.join(ROOT, "tests", "data", "straight_walk.json")) == {"FINISHED"}
    other = bpy.context.scene.footprint.active_track
    other.name = "fig1"  # the walk's old name, handed on
    for track in (copy, other, fig1):
        bpy.context.scene.footprint.active_track = track
        assert bpy.ops.footprint.bake(rig="hero") == {"FINISHED"}
        assert bpy.ops.footprint.preview(rig="hero") == {"FINISHED"}
    # One NLA track each, the renamed track's bake in place in the first (its name the artist's to change).
    assert [[baked_for(s.action) for s in t.strips] for t in anim.nla_tracks] == [["walk"], [copy.name], ["fig1"]]
    assert sum(len(bone.constraints) for bone in rig_scene.pose.bones) == constraints + 2 * PREVIEW_CONSTRAINTS  # three
    bpy.context.scene.footprint.active_track = fig1
    assert bpy.ops.footprint.preview(rig="hero", remove=True) == {"FINISHED"}
    assert sum(len(bone.constraints) for bone in rig_scene.pose.bones) == constraints + PREVIEW_CONSTRAINTS
    previews = [c["footprint_preview"] for c in bpy.data.collections if c.get("footprint_preview")]
    assert len(previews) == 2 and set(previews) == {copy, other}


def test_a_preview_ignores_copies_of_its_empties_and_clears_what_deleted_tracks_left(addon, rig_scene):
    """A copy of a preview empty (Shift+D copies its action too) is not what a live re-solve rewrites: the
    empty the rig follows is. A deleted track's preview would drive the rig on: the next preview or Remove
    Preview on that rig takes it away, constraints included; its bake stays (it is animation)."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    coll = bpy.context.scene.footprint.active_track
    com = next(o for o in bpy.data.objects if o.get("footprint_role") == "COM")
    copy = com.copy()
    copy.animation_data.action = com.animation_data.action.copy()
    coll_preview = com.users_collection[0]
    coll_preview.objects.link(copy)
    before = [tuple(k.co) for fc in fcurves(addon, com.animation_data.action) for k in fc.keyframe_points]
    objs = footprint_objects(coll)
    objs[5].location.x += 0.05
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    after = [tuple(k.co) for fc in fcurves(addon, com.animation_data.action) for k in fc.keyframe_points]
    assert before != after  # the followed COM was rewritten
    constraints = sum(len(bone.constraints) for bone in rig_scene.pose.bones)
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    twin = rig_scene.copy()  # a copy of the rig follows the same preview, through copies of its constraints
    twin.data = rig_scene.data.copy()
    bpy.context.scene.collection.objects.link(twin)

    def preview_constraints(rig):
        return [c for bone in rig.pose.bones for c in bone.constraints if c.name.startswith("Footprint Preview")]

    assert len(preview_constraints(twin)) == PREVIEW_CONSTRAINTS
    twin.data = rig_scene.data.copy()  # (constraints are on the object: copied again, empty)
    assert bpy.ops.footprint.preview(rig=twin.name) == {"FINISHED"}  # the track now previewed on the copy...
    assert not preview_constraints(rig_scene)  # ...follows nothing on the rig any more (once left targetless)
    assert len(preview_constraints(twin)) == PREVIEW_CONSTRAINTS
    bpy.data.collections.remove(coll)
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}  # the new track's, replacing the orphan
    assert sum(len(bone.constraints) for bone in rig_scene.pose.bones) == constraints
    assert not preview_constraints(twin)  # the orphans on the other rig go too (they were left with no target)
    assert bpy.ops.footprint.preview(rig="rig", remove=True) == {"FINISHED"}
    assert not [o for o in bpy.data.objects if "footprint_preview" in o.keys()]
    assert sum(len(bone.constraints) for bone in rig_scene.pose.bones) == constraints - PREVIEW_CONSTRAINTS
    assert len(rig_scene.animation_data.nla_tracks) == 1  # the deleted track's bake


def test_the_scene_rate_counts_its_fps_base(addon, rig_scene):
    """NTSC rates: 30 / 1.001 fps. A bake covers the track at that rate, frame for frame."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 30, 1.001
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    strip = bpy.data.objects["rig"].animation_data.nla_tracks["Footprints: fig1"].strips[0]
    coll = scene.footprint.active_track
    span = max(o.footprint.liftoff for o in coll.objects if o.footprint.is_footprint)
    assert strip.frame_end - strip.frame_start == np.floor(span * 30 / 1.001)  # 221 frames; 30 fps would be 222


def test_a_live_signature_covers_what_the_solve_reads(addon, rig_scene):
    """Explicit character parameters are read by the solve like the preset: changing them makes the whole
    track stale; selecting a footprint changes nothing."""
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    coll = bpy.context.scene.footprint.active_track
    before = solved.signature(coll)
    next(o for o in coll.objects if o.footprint.is_footprint).select_set(True)
    assert solved.signature(coll) == before
    character = character_module(addon).preset("human").to_json()
    character["leg_length_max"] = 0.98
    coll.footprint_track.character_json = json.dumps(character)
    after = solved.signature(coll)
    assert after != before and solved.changed_span(before, after) is None


def test_a_live_refresh_follows_a_changed_com_offset(addon, rig_scene):
    """The preview's body control hangs off the COM by the rig's rest offset: a refresh keeps it current."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    binding = sys.modules[f"{addon}.footprint_addon.rigs.binding"]
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live.flush(bpy.context)
    body = bpy.data.objects["fig1 body"]
    before = np.array(body.location)
    rig_scene.data[binding.MAPPING_KEY] = json.dumps({**binding.RIGIFY, "com_offset": [0.0, 0.0, 0.1]})
    objs = sorted((o for o in bpy.data.collections["fig1"].objects if o.footprint.is_footprint),
                  key=lambda o: o.footprint.contact)
    objs[5].location.y += 0.02
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    assert bpy.data.objects["fig1 body"].as_pointer() == body.as_pointer()  # refreshed, not rebuilt
    assert np.linalg.norm(np.array(body.location) - before) == pytest.approx(0.1, abs=1e-4)


def test_measure_on_another_rig_solves_for_that_rig(addon, rig_scene):
    """Measure on Rig reuses the track's last solve only on the rig it was solved for: a copy of the rig,
    scaled, gets a solve of its own."""
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    twin = rig_scene.copy()
    twin.data = rig_scene.data.copy()
    bpy.context.scene.collection.objects.link(twin)
    twin.scale = (1.1, 1.1, 1.1)
    bpy.context.view_layer.update()
    bake = bake_module(addon)
    solve_for_rig, solves = bake.solve_for_rig, []
    bake.solve_for_rig = lambda *args: solves.append(args) or solve_for_rig(*args)
    try:
        assert bpy.ops.footprint.measure_rig(rig=twin.name) == {"FINISHED"}
        assert len(solves) == 1  # not the motion solved for "rig"
    finally:
        bake.solve_for_rig = solve_for_rig


def test_remove_preview_takes_constraints_left_without_target(addon, rig_scene):
    """The artist deleted the preview's empties: Remove Preview takes the constraints left following
    nothing."""
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    for obj in [o for o in bpy.data.objects if "footprint_preview" in o.keys()]:
        bpy.data.objects.remove(obj)

    def preview_constraints():
        return [c for bone in rig_scene.pose.bones for c in bone.constraints if c.name.startswith("Footprint Preview")]

    assert len(preview_constraints()) == PREVIEW_CONSTRAINTS and all(c.target is None for c in preview_constraints())
    bpy.ops.footprint.preview(rig="rig", remove=True)
    assert not preview_constraints()


def test_a_live_refresh_rewrites_only_its_own_tracks_empties(addon, rig_scene):
    """Two tracks previewed on one rig: a live edit of one rewrites its own empties' keys only."""
    live = sys.modules[f"{addon}.footprint_addon.live"]
    fig1 = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    assert bpy.ops.footprint.import_json(filepath=os.path.join(ROOT, "tests", "data", "straight_walk.json")) == {"FINISHED"}
    walk = bpy.context.scene.footprint.active_track
    assert walk != fig1 and bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    bpy.context.view_layer.update()
    live.flush(bpy.context)

    def com_keys(track):
        com = next(o for o in bpy.data.objects if o.get("footprint_preview") == track and o.get("footprint_role") == "COM")
        return [tuple(k.co) for fc in fcurves(addon, com.animation_data.action) for k in fc.keyframe_points]

    walk_before, fig1_before = com_keys(walk), com_keys(fig1)
    footprint_objects(fig1)[5].location.x += 0.05
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    assert com_keys(walk) == walk_before and com_keys(fig1) != fig1_before


def test_terrain_cells_a_footprint_left_stand_at_the_lowest_footprint(addon, rig_scene):
    """A cell sampled for a footprint that has moved on is away from every footprint again: it stands at
    the lowest footprint's height, not at the ridge it was cast on."""
    scene_io, bake = sys.modules[f"{addon}.footprint_addon.scene_io"], bake_module(addon)
    track_module = sys.modules[f"{addon}.solver.track"]
    mesh = bpy.data.meshes.new("ridge")
    ys, zs = [-2.0, 0.95, 0.95, 1.15, 1.15, 6.0], [0.0, 0.0, 0.15, 0.15, 0.0, 0.0]
    verts = [(x, y, z) for y, z in zip(ys, zs) for x in (-2.0, 2.0)]
    mesh.from_pydata(verts, [], [(2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2) for i in range(len(ys) - 1)])
    ground = bpy.data.objects.new("ridge", mesh)
    bpy.context.scene.collection.objects.link(ground)
    coll = scene_io.new_track(bpy.context, "over the ridge", terrain=ground)
    positions = [(-0.1, 0.0, 0.0), (0.1, 0.45, 0.0), (-0.1, 1.6, 0.0), (0.1, 2.05, 0.0)]
    scene_io.write_track(coll, track_module.make_track(["L", "R", "L", "R"], positions, [0.0] * 4,
                                                       [0.0, 0.6, 1.2, 1.8], [0.9, 1.5, 2.1, 2.7]))
    objs = footprint_objects(coll)
    bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
    for place, height in (((1.5, 1.05, 0.0), 0.15), ((3.5, 1.6, 0.0), 0.0)):  # onto the ridge, then past the mesh
        objs[2].location = place
        bpy.context.view_layer.update()
        field = bake.solver_terrain(bpy.context, coll, scene_io.read_track(coll))
        assert np.isclose(field.heights(np.array([[1.5, 1.05]]))[0], height, atol=1e-6)


def test_a_re_bake_keeps_the_artists_name_for_its_nla_track(addon, rig_scene):
    """The NLA track a bake made is the artist's to rename: a re-bake, after the track itself was renamed,
    keeps that name."""
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = rig_scene.animation_data
    anim.nla_tracks[0].name = "Hero walk"
    bpy.context.scene.footprint.active_track.name = "walk"
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    assert [t.name for t in anim.nla_tracks] == ["Hero walk"]


def test_overlay_caches_follow_a_renamed_track(addon, rig_scene):
    """The timing diagram's cache is keyed by the track's session id: a rename keeps one entry."""
    overlay = sys.modules[f"{addon}.footprint_addon.ui.overlay"]
    coll = bpy.context.scene.footprint.active_track
    coll.footprint_track.show_overlay = True
    overlay._diagrams.clear()
    assert overlay.timing_diagram(bpy.context) is not None
    coll.name = "renamed"
    bpy.context.view_layer.update()
    overlay.timing_diagram(bpy.context)
    assert list(overlay._diagrams) == [coll.session_uid]
