"""The whole body on a Rigify human from the bundled metarig, walking on terrain with the default walking
attributes: straight up a 15 degree slope and up a flight of stairs (6 steps of 0.15 m rise and 0.30 m
tread, then a landing). Footprints come from Footprints Along Curve (on the slope then Conform to Terrain;
on the stairs with the track's terrain set, which lands them on the treads), the bake is measured on the
evaluated rig frame by frame: the sole (heel, ball, toe tip) never under the terrain (Blender's own ray
cast down at each point), the planted ball and heel still, the arms swinging against the thighs, no knee
hyperextension; and Measure on Rig agrees. The knee and pelvis follow the terrain there, as people's do:
no flat-ground knee or pelvis norms are asserted."""

import json
import math
import sys

import bpy
import numpy as np
import pytest

from blender_scenes import poly_line, raycast_down, stairs
from test_whole_body import sagittal

STEP = 0.6  # metres along the path, walk gait (timing from the step length)
SLOPE = 15.0  # degrees
RISE, TREAD, STAIR_STEPS, STAIRS_START = 0.15, 0.30, 6, 1.0
BELOW, DRIFT = 0.002, 0.001  # metres: the bars


def module(addon, name):
    return sys.modules[f"{addon}.{name}"]


def slope_plane(name="Slope"):
    """A 40 m plane through the origin turned 15 degrees about X: z = y tan(15 degrees), rising along +Y."""
    bpy.ops.mesh.primitive_plane_add(size=40.0, location=(0.0, 0.0, 0.0))
    plane = bpy.context.active_object
    plane.name = name
    plane.rotation_euler = (math.radians(SLOPE), 0.0, 0.0)
    bpy.context.view_layer.update()
    return plane


def slope_walk(rigify_blend):
    """Footprints Along Curve on a Poly curve laid up the slope (no terrain yet), then the track's terrain
    set to the slope and Conform to Terrain: footprints on the plane, tilted with it."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    plane = slope_plane()
    rise = math.tan(math.radians(SLOPE))
    path = poly_line("Up the slope", [(0.0, -1.0, -1.0 * rise), (0.0, 6.5, 6.5 * rise)])
    assert bpy.ops.footprint.generate_along_curve(curve=path.name, step_length=STEP, step_width=0.2,
                                                  gait="walk") == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    coll.footprint_track.terrain = plane
    assert bpy.ops.footprint.conform() == {"FINISHED"}
    return coll, bpy.data.objects["rig"], plane


def stairs_walk(rigify_blend):
    """Footprints Along Curve up the stairs with the stairs as terrain: those across a riser moved onto a
    tread."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    flight = stairs(tread=TREAD, rise=RISE, steps=STAIR_STEPS, start=STAIRS_START, end=7.0)
    path = poly_line("Up the stairs", [(0.0, -1.0, 0.0), (0.0, 5.5, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve=path.name, terrain=flight.name, step_length=STEP,
                                                  step_width=0.2, gait="walk") == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    assert coll.footprint_track.terrain == flight
    return coll, bpy.data.objects["rig"], flight


def terrain_heights(points, terrain):
    """Terrain heights (...) under world points (..., 3): Blender's own ray cast straight down at each x, y,
    against the terrain object alone."""
    flat = points.reshape(-1, 3)
    heights = np.array([raycast_down(x, y, only=terrain)[0][2] for x, y, _z in flat])
    return heights.reshape(points.shape[:-1])


def measured_walk(addon, coll, rig, terrain):
    """Bake the track onto the rig and measure the evaluated rig frame by frame, then Measure on Rig: every
    criterion's value (printed: run with -s to see them all), its frame and point, Measure on Rig's report,
    and the feet."""
    assert bpy.ops.footprint.bake(rig=rig.name) == {"FINISHED"}
    rig_quality = module(addon, "footprint_addon.rig_quality")
    bake = module(addon, "footprint_addon.bake")
    scene_clock = module(addon, "footprint_addon.scene_clock")
    motion = module(addon, "footprint_addon.solved").last_motion(coll)
    binding = bake.bind(rig)
    feet = list(binding.feet)
    frames = np.array([scene_clock.frame(bpy.context.scene, t) for t in motion.times])
    shins = {f: rig.data.bones[binding.ankles[f]].parent.name for f in feet}
    bones = list(dict.fromkeys(
        [binding.hips[f] for f in feet] + [shins[f] for f in feet] + [binding.ankles[f] for f in feet]
        + [binding.balls[f] for f in feet] + [binding.heels[f] for f in feet if f in binding.heels]
        + ["DEF-upper_arm.L", "DEF-upper_arm.R", "DEF-thigh.L", "DEF-thigh.R", "DEF-spine.006"]))
    index = {bone: i for i, bone in enumerate(bones)}
    matrices = rig_quality.evaluated_matrices(bpy.context, rig, bones, frames)
    soles = rig_quality.sole_points(matrices, index, binding, feet)  # (4, N, L, 3): heel, ball, ball, toe
    depth = terrain_heights(soles, terrain) - soles[..., 2]  # (4, N, L), positive: under the terrain
    values = {"frames": [int(frames[0]), int(frames[-1])], "footprints": len(motion.track)}
    for leg, foot in enumerate(feet):
        point, row = np.unravel_index(np.argmax(depth[:, :, leg]), depth[:, :, leg].shape)
        values[f"below {foot}"] = (float(depth[point, row, leg]), int(frames[row]), rig_quality.SOLE_POINTS[point])
        ball_down = motion.contact[:, leg] & (motion.toe_pivot[:, leg] >= 0.0)
        heel_down = motion.contact[:, leg] & (motion.toe_pivot[:, leg] <= 0.0)
        for name, k, down in (("ball", 2, ball_down), ("heel", 0, heel_down)):
            move, row = rig_quality.stance_drift(soles[k, :, leg], np.where(down, motion.footprint[:, leg], -1))
            values[f"{name} drift {foot}"] = (move, None if row is None else int(frames[row]))
        knee = rig_quality.knee_flexion(matrices[:, index[binding.hips[foot]]], matrices[:, index[shins[foot]]],
                                        rig_quality.knee_bend_axis(binding, foot))
        values[f"knee min {foot}"] = (float(knee.min()), int(frames[np.argmin(knee)]))
    step_time = np.median(np.diff(np.sort(motion.track.contact)))
    steady = (motion.times > motion.track.contact.min() + 2 * step_time) & \
             (motion.times < motion.track.liftoff.max() - 2 * step_time)
    for side in "LR":
        arm = sagittal(matrices[:, index[f"DEF-upper_arm.{side}"], :3, 1])[steady]
        thigh = sagittal(matrices[:, index[f"DEF-thigh.{side}"], :3, 1])[steady]
        values[f"arm swing {side}"] = float(np.ptp(arm))
        values[f"arm-thigh correlation {side}"] = float(np.corrcoef(arm, thigh)[0, 1])
    head = matrices[:, index["DEF-spine.006"], :3, :3]
    rest = np.array(rig.data.bones["DEF-spine.006"].matrix_local.to_3x3())  # the head as it faces at rest
    face = (head @ rest.T @ np.array([0.0, -1.0, 0.0]))  # the rest face's direction (Rigify's heads face -Y)
    face /= np.linalg.norm(face, axis=1, keepdims=True)
    values["head pitch"] = float(np.degrees(np.abs(np.arcsin(face[:, 2])).max()))  # up or down, at worst
    assert bpy.ops.footprint.measure_rig(rig=rig.name) == {"FINISHED"}
    report = json.loads(coll.footprint_track.last_rig_report)
    for foot in feet:
        values[f"measure_rig below_ground {foot}"] = (report["below_ground"][foot],
                                                      report["feet"][foot]["below_ground"]["frame"],
                                                      report["feet"][foot]["below_ground"]["point"])
        values[f"measure_rig ball/heel skate {foot}"] = (report["ball_skate"][foot], report["heel_skate"][foot])
    print(f"\n{coll.name}: " + "\n  ".join(f"{k}: {v}" for k, v in values.items()))
    return values, report, feet


@pytest.fixture(scope="module")
def walked(addon, rigify_blend):
    """measured(kind) -> (values, Measure on Rig's report, feet) of the walk up the slope or the stairs,
    built, baked and measured once for all the criteria's tests."""
    cache = {}

    def measured(kind):
        if kind not in cache:
            coll, rig, terrain = {"slope": slope_walk, "stairs": stairs_walk}[kind](rigify_blend)
            heights = np.array([o.location.z for o in coll.objects if o.footprint.is_footprint])
            if kind == "slope":  # up the slope: the footprints climb with it
                assert np.ptp(heights) > 1.5
            else:  # up the whole flight, onto the landing
                assert np.ptp(heights) == pytest.approx(STAIR_STEPS * RISE)
            cache[kind] = measured_walk(addon, coll, rig, terrain)
        return cache[kind]
    return measured


TERRAINS = ["slope", "stairs"]


@pytest.mark.parametrize("kind", TERRAINS)
def test_no_sole_point_goes_under_the_terrain(walked, kind):
    """Heel, ball and toe tip, at every frame, stance and swing: at most 2 mm under Blender's own ray cast."""
    values, _report, feet = walked(kind)
    for foot in feet:
        assert values[f"below {foot}"][0] <= BELOW, (foot, values[f"below {foot}"])


@pytest.mark.parametrize("kind", TERRAINS)
def test_the_planted_ball_and_heel_stay_put(walked, kind):
    """The ball from the foot's roll-down to its lift-off, the heel from its strike to its heel-off: at most
    1 mm from where each was planted on each footprint."""
    values, _report, feet = walked(kind)
    for foot in feet:
        for part in ("ball", "heel"):
            assert values[f"{part} drift {foot}"][0] <= DRIFT, (foot, part, values[f"{part} drift {foot}"])


@pytest.mark.parametrize("kind", TERRAINS)
def test_the_arms_swing_against_the_legs(walked, kind):
    """Over the steady steps the left upper arm swings 20-40 degrees in the sagittal plane, each arm against
    its own side's thigh (Murray et al. 1967)."""
    values, _report, _feet = walked(kind)
    assert 20.0 <= values["arm swing L"] <= 40.0
    assert values["arm-thigh correlation L"] < -0.5 and values["arm-thigh correlation R"] < -0.5


@pytest.mark.parametrize("kind", TERRAINS)
def test_the_head_stays_level(walked, kind):
    """Issue 28: climbing stairs tilted the face up 6-11 degrees (a Rigify head follows the torso, not the
    leaning chest). Up the slope and the stairs the face stays within 3 degrees of level."""
    values, _report, _feet = walked(kind)
    assert values["head pitch"] <= 3.0, values["head pitch"]


@pytest.mark.parametrize("kind", TERRAINS)
def test_no_knee_bends_backwards(walked, kind):
    values, _report, feet = walked(kind)
    for foot in feet:
        assert values[f"knee min {foot}"][0] > -1.0, (foot, values[f"knee min {foot}"])


@pytest.mark.parametrize("kind", TERRAINS)
def test_measure_on_rig_agrees_the_feet_stay_on_the_terrain(walked, kind):
    _values, report, feet = walked(kind)
    for foot in feet:
        assert report["below_ground"][foot] <= BELOW, (foot, report["feet"][foot]["below_ground"])
