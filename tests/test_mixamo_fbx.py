"""A Mixamo character exactly as Blender's FBX importer brings it in (the armature object turned 90 degrees
about X, scale 0.01, bones in centimetres; tests/mixamo_rig.py makes the file with Blender's FBX exporter),
given Set up Leg IK and baked with the straight 1.3 m/s walk of tests/test_whole_body.py, measured on its
evaluated deform bones (Mixamo's bones are the deform bones) against the same gait norms as the Rigify
walk: arms, pelvis and chest, soles, ankles, planted ball and heel, knees; and the legs never cross."""

import json
import sys

import bpy
import numpy as np
import pytest

import mixamo_rig
from blender_scenes import walk_on_plane
from test_whole_body import (STEP_TIME, assert_gait_profile, assert_head_steady, assert_run_norms,
                             assert_walk_norms, gait_document, run_document, sagittal, walk_document)

P = mixamo_rig.PREFIX
SIDES = {"L": "Left", "R": "Right"}


@pytest.fixture(scope="module", params=[54.0, 52.0], ids=["knee-above-middle", "knee-at-middle"])
def mixamo_blend(addon, tmp_path_factory, request):
    """The FBX-imported Mixamo armature saved to a .blend (built once per module, about a second); its
    knee 1 cm above the middle of hip and ankle (the thigh shorter than the shin), or just at it (mixamo_rig:
    the knee's small offsets from the hip-ankle line are what misled the old knee poles)."""
    directory = tmp_path_factory.mktemp("mixamo")
    mixamo_rig.write_fbx(directory / "mixamo.fbx", knee=request.param)
    bpy.ops.wm.read_homefile(use_empty=True)
    rig = mixamo_rig.import_fbx(directory / "mixamo.fbx")
    # Exactly the importer's setup for a Mixamo file: turned +90 degrees about X, scale 0.01, centimetres.
    assert np.allclose(tuple(rig.rotation_euler), (np.pi / 2, 0.0, 0.0), atol=1e-6)
    assert np.allclose(tuple(rig.scale), (0.01, 0.01, 0.01), atol=1e-7)
    assert np.allclose(rig.data.bones[P + "Hips"].head_local, (0.0, 100.0, 0.0), atol=1e-3)  # Y up, cm
    assert np.allclose(rig.data.bones[P + "LeftToeBase"].head_local, (10.6, 2.5, 10.0), atol=1e-3)  # faces +Z
    head = np.array(rig.matrix_world) @ np.append(rig.data.bones[P + "HeadTop_End"].head_local, 1.0)
    assert abs(head[2] - 1.78) < 1e-4  # upright in the world, 1.8 m tall
    rig.name = "Mixamo"
    path = str(directory / "mixamo.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return path


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def module(addon, name):
    return sys.modules[f"{addon}.footprint_addon.{name}"]


@pytest.fixture
def mixamo_walk(addon, mixamo_blend, tmp_path):
    """Bake a track document onto the FBX-imported rig after Set up Leg IK: (rig, binding, motion,
    {bone: evaluated world matrices (frames, 4, 4)})."""
    def make(document, fps=None):
        coll = walk_on_plane(mixamo_blend, document, tmp_path)
        if fps:
            bpy.context.scene.render.fps = fps
        rig = bpy.data.objects["Mixamo"]
        assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
        assert bpy.ops.footprint.bake(rig=rig.name) == {"FINISHED"}
        binding = module(addon, "bake").bind(rig)
        motion = sys.modules[f"{addon}.footprint_addon.solved"].last_motion(coll)
        scene = bpy.context.scene
        frames = np.rint(scene.frame_start + motion.times * scene.render.fps).astype(int)
        bones = [P + name for name in ("Hips", "Spine2", "Head", "LeftArm", "LeftForeArm", "RightArm", "RightForeArm")]
        bones += [f"{P}{SIDES[f]}{part}" for f in "LR" for part in ("UpLeg", "Leg", "Foot", "ToeBase")]
        matrices = module(addon, "rig_quality").evaluated_matrices(bpy.context, rig, bones, frames)
        return rig, binding, motion, dict(zip(bones, np.moveaxis(matrices, 1, 0)))
    return make


def test_set_up_leg_ik_maps_the_fbx_rig_whole_but_its_heels(addon, mixamo_blend):
    bpy.ops.wm.open_mainfile(filepath=mixamo_blend)
    rig = bpy.data.objects["Mixamo"]
    assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
    mapping = json.loads(rig.data["footprint_mapping"])
    assert mapping["toes"] == {"L": P + "LeftToeBase", "R": P + "RightToeBase"}
    assert mapping["upper_body"] == {"chest": P + "Spine2", "neck": P + "Neck", "head": P + "Head",
                                     "arms": {"L": [P + "LeftArm", P + "LeftForeArm"],
                                              "R": [P + "RightArm", P + "RightForeArm"]}}
    binding = module(addon, "bake").bind(rig)
    assert binding.missing_parts == ("heel bone (L, R)",)  # Mixamo has none: the report says so
    for name in [*binding.toes.values(), *binding.upper_body["arms"]["L"], P + "Spine2", P + "Head"]:
        assert rig.pose.bones[name].rotation_mode == "QUATERNION"
    # Each knee's pole stands in front of its knee in the world (the character faces -Y), level with it,
    # on the knee's own side; at rest the IK keeps the legs exactly where they are.
    world = np.array(rig.matrix_world)
    bpy.context.view_layer.update()
    for side in "LR":
        knee = world @ np.append(rig.data.bones[f"{P}{SIDES[side]}Leg"].head_local, 1.0)
        pole = world @ np.append(rig.data.bones[f"FP-knee_pole.{side}"].head_local, 1.0)
        ahead = pole[:3] - knee[:3]
        assert ahead[1] < -0.3 and abs(ahead[0]) < 0.01 and abs(ahead[2]) < 0.01
        for part in ("UpLeg", "Leg", "Foot"):
            bone = rig.pose.bones[f"{P}{SIDES[side]}{part}"]
            assert np.allclose(np.array(bone.matrix), np.array(bone.bone.matrix_local), atol=1e-3)


def test_a_walk_on_the_fbx_rig_keeps_its_legs_apart_its_knees_forward_and_its_feet_planted(addon, mixamo_walk):
    rig, binding, motion, m = mixamo_walk(walk_document())
    quality = module(addon, "rig_quality")
    steady = (motion.times > 2 * STEP_TIME) & (motion.times < motion.times[-1] - 2 * STEP_TIME)
    feet = list(binding.feet)
    forward = np.stack([-np.sin(motion.yaw), np.cos(motion.yaw), np.zeros_like(motion.yaw)], axis=1)
    left = np.stack([-np.cos(motion.yaw), -np.sin(motion.yaw), np.zeros_like(motion.yaw)], axis=1)
    ankles = {f: m[f"{P}{SIDES[f]}Foot"][:, :3, 3] for f in feet}
    knees = {f: m[f"{P}{SIDES[f]}Leg"][:, :3, 3] for f in feet}
    # The legs never cross: the left ankle and knee stay left of the right ones in the body frame.
    for joint, points in (("ankle", ankles), ("knee", knees)):
        apart = np.einsum("nd,nd->n", points["L"] - points["R"], left)
        assert apart.min() > 0.05, (joint, apart.min())
    for foot in feet:
        # Knees: never hyperextended; they bend forward, never sideways: over the steady walk the knee stands
        # off the hip-ankle line within 25 degrees of the body's forward (the pelvis turns 8 degrees, the
        # hip sways over the stance foot), and never more than 45 degrees from it where the walk starts and
        # stops.
        thigh, shin = m[f"{P}{SIDES[foot]}UpLeg"], m[f"{P}{SIDES[foot]}Leg"]
        flexion = quality.knee_flexion(thigh, shin, quality.knee_bend_axis(binding, foot))
        assert flexion.min() > -1.0
        hip = thigh[:, :3, 3]
        line = unit(ankles[foot] - hip)
        bend = knees[foot] - hip - np.einsum("nd,nd->n", knees[foot] - hip, line)[:, None] * line
        off = np.degrees(np.arctan2(np.einsum("nd,nd->n", bend, left), np.einsum("nd,nd->n", bend, forward)))
        assert np.abs(off[steady]).max() < 25.0 and np.abs(off).max() < 45.0, (foot, np.abs(off).max())
    # Feet, on the rig's own sole points (no heel bone: the sole behind the ankle, carried by the foot).
    names = [f"{P}{SIDES[f]}{part}" for f in feet for part in ("Foot", "ToeBase")]
    index = {name: i for i, name in enumerate(names)}
    soles = quality.sole_points(np.stack([m[name] for name in names], axis=1), index, binding, feet)
    scale = rig.matrix_world.to_scale()[0]  # 0.01
    for leg, foot in enumerate(feet):
        # No sole point (heel, ball, toe tip) more than 2 mm under the ground at any frame.
        assert soles[:, :, leg, 2].min() > -0.002, (foot, soles[:, :, leg, 2].min())
        # The ankle at its rest height over the sole in flat-foot stance.
        flat = motion.contact[:, leg] & (motion.toe_pivot[:, leg] == 0.0)
        rest_height = scale * (binding.measurements["ankles"][foot][2] - binding.measurements["ground"])
        assert np.abs(ankles[foot][flat, 2] - rest_height).max() < 0.003
        # The ball still once down after the heel strike, the heel still until it lifts: no foot skate.
        ball_planted = motion.contact[:, leg] & (motion.toe_pivot[:, leg] >= 0.0)
        heel_planted = motion.contact[:, leg] & (motion.toe_pivot[:, leg] <= 0.0)
        ball, _row = quality.stance_drift(soles[2, :, leg], np.where(ball_planted, motion.footprint[:, leg], -1))
        heel, _row = quality.stance_drift(soles[0, :, leg], np.where(heel_planted, motion.footprint[:, leg], -1))
        assert ball <= 0.001 and heel <= 0.001, (foot, ball, heel)
    # The toes bend at heel-off (the toe bone keyed).
    y = {name: unit(mats[:, :3, 1]) for name, mats in m.items()}  # the bones' directions (scale 0.01 off)
    for side in ("Left", "Right"):
        toe_bend = np.degrees(np.arccos(np.clip(np.einsum("nd,nd->n", y[f"{P}{side}Foot"], y[f"{P}{side}ToeBase"]),
                                                -1, 1)))
        assert np.ptp(toe_bend) > 10.0


def test_a_walk_on_the_fbx_rig_swings_its_arms_turns_its_pelvis_and_steadies_its_head(addon, mixamo_walk):
    rig, _binding, motion, m = mixamo_walk(walk_document())
    steady = (motion.times > 2 * STEP_TIME) & (motion.times < motion.times[-1] - 2 * STEP_TIME)
    assert_head_steady(rig, m, P + "Head", P + "Spine2", bpy.context.scene.render.fps, steady)
    assert_walk_norms(m, steady, {"arm L": P + "LeftArm", "arm R": P + "RightArm", "forearm L": P + "LeftForeArm",
                                  "forearm R": P + "RightForeArm", "thigh L": P + "LeftUpLeg",
                                  "thigh R": P + "RightUpLeg", "pelvis": P + "Hips", "chest": P + "Spine2"})


@pytest.mark.parametrize("speed", [0.8, 1.3])
def test_the_fbx_rig_walks_with_the_knee_and_pelvis_of_people(addon, mixamo_walk, speed):
    """At 0.8 m/s every phase of the knee and the pelvis within the norms (issue 28: the loading knee peaked at
    56 degrees, the pelvis rode 125 mm low); at 1.3 m/s the knee at initial contact, in mid and terminal stance,
    at toe-off and in swing. Not yet within them at 1.3: the loading-response peak (35 degrees) and the pelvis
    (72 mm)."""
    _rig, binding, motion, m = mixamo_walk(gait_document(speed), fps=60)
    quality = module(addon, "rig_quality")
    knees = [quality.knee_flexion(m[f"{P}{SIDES[foot]}UpLeg"], m[f"{P}{SIDES[foot]}Leg"],
                                  quality.knee_bend_axis(binding, foot)) for foot in binding.feet]
    assert min(knee.min() for knee in knees) > -1.0  # never bent backwards (knee_flexion is signed)
    if speed < 1.0:
        assert_gait_profile(quality, knees, motion, m[P + "Hips"][:, 2, 3])
    else:
        assert_gait_profile(quality, knees, motion, None, ("initial contact", "mid stance", "terminal stance",
                                                           "toe-off", "swing peak"))


def test_a_run_on_the_fbx_rig_folds_its_swing_knee_and_bends_its_arms(addon, mixamo_walk):
    rig, binding, motion, m = mixamo_walk(run_document())
    assert_run_norms(m, motion, {f"{part} {side}": f"{P}{SIDES[side]}{bone}" for side in "LR" for part, bone in (
        ("thigh", "UpLeg"), ("shin", "Leg"), ("arm", "Arm"), ("forearm", "ForeArm"))})
    quality = module(addon, "rig_quality")
    feet = list(binding.feet)
    names = [f"{P}{SIDES[f]}{part}" for f in feet for part in ("Foot", "ToeBase")]
    soles = quality.sole_points(np.stack([m[name] for name in names], axis=1), {n: i for i, n in enumerate(names)},
                                binding, feet)
    assert soles[..., 2].min() > -0.002


def test_arms_are_still_when_the_fbx_rig_stands(addon, mixamo_walk):
    _rig, _binding, _motion, m = mixamo_walk(walk_document(stand=2.0))
    for side in ("Left", "Right"):
        direction = unit(m[f"{P}{side}Arm"][:, :3, 1])
        assert np.ptp(sagittal(direction)) < 1.0
        assert np.degrees(np.arccos(-direction[:, 2])).max() < 15.0  # hanging, not held out in the T-pose
