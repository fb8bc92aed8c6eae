"""Measure on Rig measures what the eye sees: the sole of each foot (heel, ball, toe tip, carried by the bones
that carry them) against the ground, the ankle at mid-stance, the planted ball and heel, the knees; each
worst value with its frame. On a real Rigify human (and a Mixamo armature given Set up Leg IK), after
Blender's own IK solve."""

import json
import sys

import bpy
import numpy as np
import pytest

from conftest import FIG1
from test_bake import mixamo_armature



def module(addon, name):
    return sys.modules[f"{addon}.{name}"]


def baked(addon, rig):
    """Bake the active track onto the rig; its binding, frames and motion (as the bake solved them)."""
    coll = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.bake(rig=rig.name) == {"FINISHED"}
    bake = module(addon, "footprint_addon.bake")
    binding = bake.bind(rig)
    frames, motion = bake.solve_for_rig(bpy.context, coll, binding)
    return binding, np.asarray(frames), motion


def measured_on(addon, binding, motion, frames, rows):
    """The rig report over some of the motion's frames only (rows: a mask)."""
    bake = module(addon, "footprint_addon.bake")
    terrain = bake.solver_terrain(bpy.context, bpy.context.scene.footprint.active_track, motion.track)
    part = module(addon, "solver.motion").frames_of(motion, rows)
    report = module(addon, "footprint_addon.rig_quality").measure(bpy.context, binding, part, frames[rows], terrain)
    return json.loads(json.dumps(report))  # as kept on the track


def baked_curve(addon, rig, data_path, index):
    action = rig.animation_data.nla_tracks["Footprints: fig1"].strips[0].action
    curves = module(addon, "footprint_addon.animation").action_fcurves(action)
    return next(fc for fc in curves if fc.data_path == data_path and fc.array_index == index)


def rig_report():
    return json.loads(bpy.context.scene.footprint.active_track.footprint_track.last_rig_report)


def test_a_sunk_foot_is_measured_at_its_sole_with_its_frame(addon, rig_scene):
    """The right foot's control keyed 17 mm lower over the whole bake: its sole goes 17 mm under the
    ground, the left foot's stays on it; the report names the point and a frame of the motion, and the
    right ankle rides 17 mm low at mid-stance."""
    binding, frames, motion = baked(addon, rig_scene)
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    before = rig_report()
    assert max(before["below_ground"].values()) < 1e-3
    assert max(abs(before["feet"][foot]["ankle_height"]["error"]) for foot in "LR") < 1e-3
    curve = baked_curve(addon, rig_scene, 'pose.bones["foot_ik.R"].location', 2)
    for key in curve.keyframe_points:
        key.co[1] -= 0.017
    curve.update()
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    after = rig_report()
    assert 0.016 <= after["below_ground"]["R"] <= 0.019 and after["below_ground"]["L"] < 1e-3
    deepest = after["feet"]["R"]["below_ground"]
    assert deepest["depth"] == after["below_ground"]["R"] and deepest["frame"] in frames
    assert deepest["point"] in ("heel", "ball", "toe")
    ankle = after["feet"]["R"]["ankle_height"]
    assert ankle["error"] == pytest.approx(-0.017, abs=1e-3)
    assert ankle["frame"] in frames[module(addon, "footprint_addon.rig_quality").heel_down(motion)[:, 1]]
    lines = module(addon, "footprint_addon.ui.panels").rig_report_lines(json.dumps(after))
    assert f"  {deepest['point']} R sinks {deepest['depth'] * 1000:.1f} mm into the ground (frame {deepest['frame']})" in lines
    assert f"  ankle R at mid-stance {ankle['error'] * 1000:+.1f} mm from its rest height (frame {ankle['frame']})" in lines


def test_a_toe_bent_into_the_ground_is_measured_at_its_tip(addon, rig_scene):
    """The toe control turned 30 degrees down while the foot stands flat: the toe tip digs in (the ball and
    ankle heads, which the measure used to look at, do not move)."""
    binding, frames, motion = baked(addon, rig_scene)
    flat = module(addon, "footprint_addon.rig_quality").heel_down(motion)[:, 1]
    assert flat.sum() > 10
    before = measured_on(addon, binding, motion, frames, flat)
    assert before["below_ground"]["R"] < 1e-3
    toe = rig_scene.pose.bones["toe_ik.R"]
    rest = np.array(toe.bone.matrix_local)
    down = -np.sign(rest[2, 2]) * np.radians(30.0)  # about the bone's x: its y (toes) towards -z (world down)
    toe.rotation_mode = "QUATERNION"
    toe.rotation_quaternion = (np.cos(down / 2), np.sin(down / 2), 0.0, 0.0)
    toe.keyframe_insert("rotation_quaternion", frame=int(frames[0]))  # the active action, over the bake's strip
    after = measured_on(addon, binding, motion, frames, flat)
    deepest = after["feet"]["R"]["below_ground"]
    # The sole under the tail of a 67 mm toe, 17 mm below its joint, turned 30 degrees down about a joint
    # 17 mm over the ground: about 31 mm under it.
    assert 0.02 <= after["below_ground"]["R"] <= 0.04 and deepest["point"] == "toe"
    assert deepest["frame"] in frames[flat] and after["below_ground"]["L"] < 1e-3


def geometric_flexion(rig, frame, forward):
    """The knee angle from the leg's joints alone (hip, knee, ankle heads): the turn from thigh to shin,
    positive when the knee stands in front of the hip-ankle line (the leg bends the way knees do)."""
    bpy.context.scene.frame_set(frame)
    world = np.array(rig.matrix_world)
    hip, knee, ankle = (world[:3, :3] @ np.array(rig.pose.bones[name].head) + world[:3, 3]
                        for name in ("ORG-thigh.L", "ORG-shin.L", "ORG-foot.L"))
    thigh, shin = knee - hip, ankle - knee
    angle = np.degrees(np.arccos(thigh @ shin / np.linalg.norm(thigh) / np.linalg.norm(shin)))
    line = (ankle - hip) / np.linalg.norm(ankle - hip)
    ahead = (knee - hip - line * ((knee - hip) @ line)) @ forward
    return angle if ahead > 0 else -angle


@pytest.mark.parametrize("target", [45.0, -15.0])
def test_knee_flexion_is_measured_from_thigh_and_shin(addon, rig_scene, target):
    """The left leg switched to FK and its shin turned so the knee stands at a known angle on every frame:
    the report gives that angle (negative: hyperextended), and so do the reusable measuring functions."""
    binding, frames, motion = baked(addon, rig_scene)
    rig_quality = module(addon, "footprint_addon.rig_quality")
    row = len(frames) // 2
    frame = int(frames[row])
    forward = np.array([-np.sin(motion.yaw[row]), np.cos(motion.yaw[row]), 0.0])  # the body's facing there
    baked_flexion = geometric_flexion(rig_scene, frame, forward)  # on IK
    switch = rig_scene.pose.bones["thigh_parent.L"]
    switch["IK_FK"] = 1.0
    switch.keyframe_insert('["IK_FK"]', frame=frame)  # the active action, over the bake's strip: every frame
    shin = rig_scene.pose.bones["shin_fk.L"]
    shin.rotation_mode = "QUATERNION"
    shin.keyframe_insert("rotation_quaternion", frame=frame)
    rest_flexion = geometric_flexion(rig_scene, frame, forward)  # the FK leg at rest
    swing_back = np.sign(np.array(shin.bone.matrix_local)[0, 0])  # the shin's x is the rig's left (+X): + bends
    turn = np.radians(target - rest_flexion) * swing_back
    shin.rotation_quaternion = (np.cos(turn / 2), np.sin(turn / 2), 0.0, 0.0)
    shin.keyframe_insert("rotation_quaternion", frame=frame)
    assert geometric_flexion(rig_scene, frame, forward) == pytest.approx(target, abs=0.5)  # the pose is known
    assert abs(baked_flexion - target) > 5.0
    matrices = rig_quality.evaluated_matrices(bpy.context, rig_scene, ["ORG-thigh.L", "ORG-shin.L"], [frame])
    flexion = rig_quality.knee_flexion(matrices[:, 0], matrices[:, 1], rig_quality.knee_bend_axis(binding, "L"))
    assert flexion[0] == pytest.approx(target, abs=1.0)
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    knee = rig_report()["feet"]["L"]["knee"]
    for name in ("min", "stance_max", "swing_peak", "late_stance_max"):
        assert knee[name] == pytest.approx(target, abs=1.0)
    assert knee["min_frame"] in frames and knee["late_stance_frame"] in frames
    right = rig_report()["feet"]["R"]["knee"]  # the right leg still walks on IK: bent, never hyperextended
    assert 0.0 < right["min"] < right["stance_max"] < right["swing_peak"]
    lines = module(addon, "footprint_addon.ui.panels").rig_report_lines(json.dumps(rig_report()))
    bent = "hyperextended to" if target < 0 else "least bent"
    assert any(line.startswith(f"  knee L {bent} {knee['min']:.1f}") for line in lines)


def test_late_stance_is_the_second_half_of_single_support(addon):
    rig_quality = module(addon, "footprint_addon.rig_quality")
    contact = np.array([[1, 1], [1, 0], [1, 0], [1, 0], [1, 0], [1, 1], [0, 1], [1, 0], [1, 0], [1, 0]], dtype=bool)
    late = rig_quality.single_support_late(contact, 0)
    assert late.tolist() == [False, False, False, True, True, False, False, False, True, True]  # 3: 2 of 3
    assert np.flatnonzero(rig_quality.single_support_late(contact, 1)).tolist() == [6]  # one frame alone
    motion = type("Motion", (), {"contact": contact, "toe_pivot": np.array([[0.1, 0.0]] + [[0.0, -0.2]] * 9)})
    assert rig_quality.heel_down(motion)[:, 0].tolist() == [False] + [True] * 4 + [True, False] + [True] * 3
    assert rig_quality.heel_down(motion)[:, 1].tolist() == [True] + [False] * 9  # then rolling from a heel strike


def test_what_the_rig_lacks_is_reported(addon, clean):
    """A Mixamo armature given Set up Leg IK has no heel bone: the report says so, measures the heel on the
    sole behind the ankle, and its knees bend forwards."""
    rig = mixamo_armature()
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
    assert bpy.ops.footprint.measure_rig(rig=rig.name) == {"FINISHED"}
    report = rig_report()
    assert "heel bone (L, R)" in report["missing"]
    assert {detail["heel_point"] for detail in report["feet"].values()} == {"behind the ankle"}
    assert all(detail["knee"]["min"] > 0.0 for detail in report["feet"].values())
    lines = module(addon, "footprint_addon.ui.panels").rig_report_lines(json.dumps(report))
    assert lines[0].startswith("Rig lacks: ") and "heel bone (L, R)" in lines[0]
    assert any("sole behind the ankle (no heel bone)" in line for line in lines)


def test_a_terrain_disabled_in_viewports_is_measured_as_the_solve_stood_on_the_footprints(addon, rig_scene):
    """The solve stands a track whose terrain has no evaluated mesh on its footprints; Measure on Rig (and
    bake --measure) measures it so too, instead of failing after the bake."""
    coll = bpy.context.scene.footprint.active_track
    bpy.ops.mesh.primitive_plane_add(size=40, location=(0, 5, 0))
    plane = bpy.context.active_object
    coll.footprint_track.terrain = plane
    plane.hide_viewport = True
    bpy.context.view_layer.update()
    bpy.context.view_layer.objects.active = rig_scene
    assert bpy.ops.footprint.measure_rig(rig=rig_scene.name) == {"FINISHED"}
    report = rig_report()
    assert max(report["below_ground"].values()) < 0.002  # measured against the footprints' ground
