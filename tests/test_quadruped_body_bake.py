"""The spine, neck, head and tail of quadruped rigs (issue 18 points 4-5): generated Rigify wolf, cat and horse
rigs, moved, turned and scaled, bake and preview solver.quadruped.reconstruct's body from the motion's two
mass points, measured on the evaluated rigs: each turned bone where reconstruct puts it, the girdles on the
masses, every key and evaluated rotation continuous, the head leading on left and right turns, the tail
trailing out of a turn from its first frame, the paws still planted; re-bake, preview, a mapped armature,
and the command line."""

import importlib
import json
import math

import bpy
import numpy as np
import pytest

from blender_scenes import (QUADRUPED_KINDS, QUADRUPED_PLACE, QUADRUPED_SPEED, evaluated_matrices,
                            import_track, paw_deform_bones, paw_tips, quadruped_trot_scene, stance_drift)
from cli_run import needs_module_install, run_cli
from footprint_locomotion.solver.quadruped.reconstruct import motion_turn_per_frame, turn_per_frame

KINDS = QUADRUPED_KINDS
RADIUS = 6.0  # hip heights: the turn's radius (> 0 left)
TURNS = [("wolf", 1), ("wolf", -1), ("cat", 1), ("horse", -1)]  # left (+1) and right (-1) turns baked
# What the bake turns on each rig: the hips and chest controls (Rigify spreads them along the spine), the
# neck and head controls, the tail's FK controls root to tip (the master stays the artist's).
TURNED = {"wolf": ["hips", "chest", "neck", "head", "spine.003", "spine.002", "spine.001", "spine"],
          "cat": ["hips", "chest", "neck", "head", "tail.001", "tail.002", "tail.003", "tail.004"],
          "horse": ["hips", "chest", "neck", "head", "tail.001", "tail.002", "tail.003", "tail.004", "tail.005"]}


def module(addon, name):
    return importlib.import_module(f"{addon}.{name}")


def trot_scene(addon, blend, kind, folder, side=None, strides=4):
    """The rig placed, a trot imported as the active track: on a circle of RADIUS hip heights to the side
    (+1 left, -1 right), or straight (None); the rig and the track's collection."""
    return quadruped_trot_scene(addon, blend, kind, folder, QUADRUPED_SPEED[kind] * QUADRUPED_PLACE[kind][2],
                                strides, None if side is None else side * RADIUS)


@pytest.fixture(scope="module")
def baked(addon, quadruped_blends, tmp_path_factory):
    """Each TURNS trot baked, and what the tests read of it (kept as arrays: each bake opens another file):
    the motion, the body the bake turned, the evaluated world matrices of the turned bones, the hips and
    the paws, the action's F-curves, the rig's rest matrices and placement."""
    results = {}
    bake = module(addon, "footprint_addon.bake")
    animation = module(addon, "footprint_addon.animation")
    for kind, side in TURNS:
        rig, coll = trot_scene(addon, quadruped_blends[kind], kind, tmp_path_factory.mktemp(kind), side)
        assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
        binding = bake.bind(rig)
        frames, motion = bake.solve_for_rig(bpy.context, coll, binding)
        _targets, body = bake.targets_and_body(binding, motion, bake.world_rest(binding))
        turned = list(body.parts)
        feet = list(motion.character.feet)
        paws = [paw_deform_bones(rig, binding.balls[foot]) for foot in feet]
        hips = [binding.hips[foot] for foot in feet]
        bones = turned + hips + [name for group in paws for name in group]
        matrices = evaluated_matrices(rig, frames, bones)
        action = rig.animation_data.nla_tracks[f"Footprints: {coll.name}"].strips[0].action
        curves = {}
        for fcurve in animation.action_fcurves(action):
            values = np.zeros(2 * len(fcurve.keyframe_points))
            fcurve.keyframe_points.foreach_get("co", values)
            curves[fcurve.data_path, fcurve.array_index] = values[1::2]
        results[kind, side] = {
            "frames": frames, "motion": motion, "body": body, "fps": bpy.context.scene.render.fps,
            "turned": {name: matrices[:, j] for j, name in enumerate(turned)},
            "hips": matrices[:, len(turned):len(turned) + 4, :3, 3],
            "paws": matrices[:, len(turned) + 4:, :3, 3], "paw_counts": [len(group) for group in paws],
            "tips": paw_tips(rig, matrices[:, len(turned) + 4:], paws),
            "curves": curves, "rest": {b.name: np.array(b.matrix_local) for b in rig.data.bones},
            "tails": {b.name: np.array(b.tail_local) for b in rig.data.bones},
            "rotation": np.array(rig.matrix_world.to_3x3().normalized()),
            "align": binding.measurements["align"], "upright": binding.measurements["upright"],
        }
    return results


def unit_rotations(matrices):
    rotation = matrices[..., :3, :3]
    return rotation / np.linalg.norm(rotation, axis=-2, keepdims=True)


def angles_between(a, b):
    relative = np.swapaxes(a, -1, -2) @ b
    return np.arccos(np.clip((np.trace(relative, axis1=-2, axis2=-1) - 1) / 2, -1, 1))


def world_yaw(result, name):
    """The evaluated bone's heading (N,) in the world: its rest facing (the rig's) carried by its turn."""
    rest = result["rotation"] @ result["rest"][name][:3, :3]
    turn = unit_rotations(result["turned"][name]) @ rest.T @ result["align"].T
    return np.unwrap(np.arctan2(-turn[:, 0, 1], turn[:, 1, 1]))


def side_name(side):
    return "left" if side > 0 else "right"


@pytest.mark.parametrize("kind, side", TURNS)
def test_each_turned_bone_is_where_the_reconstruction_puts_it(baked, kind, side):
    result = baked[kind, side]
    body, motion = result["body"], result["motion"]
    assert list(body.parts) == TURNED[kind]
    errors = {name: math.degrees(angles_between(unit_rotations(m), body.world[name]).max())
              for name, m in result["turned"].items()}
    print(f"\n{kind} {side_name(side)}: largest angle from the reconstruction (deg):",
          {name: round(e, 3) for name, e in errors.items()})
    assert max(errors.values()) < 0.5
    # The girdles (the hips' midpoints) on the two masses, within 3 % of the body's length.
    hips = result["hips"]
    length = np.linalg.norm(motion.body_points[:, 1] - motion.body_points[:, 0], axis=1).mean()
    for k, girdle in enumerate((hips[:, :2].mean(axis=1), hips[:, 2:].mean(axis=1))):
        off = np.linalg.norm(girdle - motion.body_points[:, k], axis=1).max()
        print(f"  {('hind', 'fore')[k]} girdle off its mass by at most {1000 * off:.1f} mm ({off / length:.1%})")
        assert off <= 0.03 * length
    # The rig's measured proportions, not the wolf's defaults scaled: the head ahead of and above the neck.
    neck, head = np.array(body.params.neck_offset), np.array(body.params.head_offset)
    assert head[1] > neck[1] > 0 and head[2] > 0 and body.params.tail_segments == len(TURNED[kind]) - 4


@pytest.mark.parametrize("kind, side", TURNS)
def test_keys_and_evaluated_rotations_are_continuous(baked, kind, side):
    """No keyed channel of a turned bone, and no turned bone's evaluated world rotation, changes in a frame
    by more than 3 x the motion's own largest frame-to-frame change of direction (issue 18)."""
    result = baked[kind, side]
    own = motion_turn_per_frame(*np.moveaxis(result["motion"].body_points, 1, 0), result["fps"])
    keyed = {key: values for key, values in result["curves"].items()
             if any(key[0].startswith(f'pose.bones["{name}"].rotation') for name in TURNED[kind])}
    assert {path.split('"')[1] for path, _k in keyed} == set(TURNED[kind])
    key_jump = max(np.abs(np.diff(values)).max() for values in keyed.values())
    turn_jump = max(turn_per_frame(unit_rotations(m)).max() for m in result["turned"].values())
    print(f"\n{kind} {side_name(side)}: the motion's own {math.degrees(own):.2f} deg/frame; largest key step "
          f"{key_jump / own:.2f}x, evaluated turn {turn_jump / own:.2f}x of it")
    assert key_jump <= 3 * own and turn_jump <= 3 * own
    # The measure catches a snap: the head turned from half way on by what the bound allows, and a little.
    head = unit_rotations(result["turned"]["head"]).copy()
    half, snap = len(head) // 2, 3.1 * own + turn_per_frame(head).max()
    head[half:] = head[half:] @ np.array([[math.cos(snap), -math.sin(snap), 0], [math.sin(snap), math.cos(snap), 0],
                                          [0, 0, 1]])
    assert turn_per_frame(head).max() > 3 * own


@pytest.mark.parametrize("kind, side", TURNS)
def test_the_head_leads_the_pelvis_into_the_turn(baked, kind, side):
    """On a circle the evaluated head's yaw leads the evaluated hips': by the spine's bend and the head's
    look ahead along the fore mass's path (lookahead seconds on a circle of radius r at speed v: half the
    angle travelled, v lookahead / 2 r), to the side of the turn."""
    result = baked[kind, side]
    body, motion = result["body"], result["motion"]
    middle = slice(len(motion.times) // 4, -len(motion.times) // 4)
    lead = (world_yaw(result, "head") - world_yaw(result, "hips"))[middle].mean()
    expected = (body.pose.bend + body.pose.head_lead)[middle].mean()
    fore = motion.body_points[:, 1]
    speed = np.linalg.norm(np.diff(fore[:, :2], axis=0), axis=1).mean() / np.diff(motion.times).mean()
    look = speed * body.params.lookahead / (2 * RADIUS * motion.character.leg_length_nominal)
    print(f"\n{kind} {side_name(side)}: the head leads the hips by {math.degrees(lead):.1f} deg (the spine's bend "
          f"{math.degrees(body.pose.bend[middle].mean()):.1f}, the head's look ahead "
          f"{math.degrees(body.pose.head_lead[middle].mean()):.1f}; v lookahead / 2 r {math.degrees(look):.1f})")
    assert np.sign(lead) == side and abs(lead) > math.radians(3)
    assert lead == pytest.approx(expected, abs=math.radians(0.5))
    assert side * body.pose.head_lead[middle].mean() == pytest.approx(look, rel=0.35)


@pytest.mark.parametrize("kind, side", TURNS)
def test_the_tail_trails_out_of_the_turn_and_starts_steady(baked, kind, side):
    """Pushed round the circle toward its centre, the tail swings out (opposite the acceleration) on the
    evaluated rig, as far as the reconstruction swings it; and it starts at rest in its steady state for the
    first frame's push (no pop): the first frames turn it no faster than the frames after."""
    result = baked[kind, side]
    body, name = result["body"], TURNED[kind][-1]
    tip, hips = result["turned"][name], result["turned"]["hips"]
    # The tail's tip bone's direction in the hips' frame against its rest direction there, along the
    # animal's right (armature space: the body frame's +X brought back through align and the object's turn).
    hips_rest = result["rest"]["hips"][:3, :3]
    along = (np.swapaxes(unit_rotations(hips), 1, 2) @ unit_rotations(tip))[:, :, 1]
    rest = (hips_rest.T @ result["rest"][name][:3, :3])[:, 1]
    right = hips_rest.T @ result["rotation"].T @ result["align"].T @ [1.0, 0.0, 0.0]
    outward = side * np.arcsin(np.clip((along - rest) @ right, -1, 1))  # a left turn's outside is the right
    swung = side * body.pose.tail_side.sum(axis=1)  # the reconstruction's: the joints' bends added up
    middle = slice(len(outward) // 4, -len(outward) // 4)
    print(f"\n{kind} {side_name(side)}: the tail's tip swung out of the turn by {np.degrees(outward[middle].mean()):.2f} "
          f"deg on average (the reconstruction's joints {np.degrees(swung[middle].mean()):.2f}); at the first frame "
          f"{np.degrees(outward[0]):.2f}")
    assert outward[middle].mean() > math.radians(0.3)
    assert outward[middle].mean() == pytest.approx(swung[middle].mean(), abs=math.radians(0.2))
    assert np.abs(body.pose.tail_state[0, :, :, 1]).max() == 0.0  # at rest at the first frame ...
    assert body.pose.tail_state[0, :, 0, 0] == pytest.approx(body.pose.tail_state[1, :, 0, 0], abs=2e-3)  # ... held
    relative = np.swapaxes(unit_rotations(hips), 1, 2) @ unit_rotations(tip)
    steps = turn_per_frame(relative)
    assert steps[:3].max() <= max(steps[3:].max(), 1e-3)


@pytest.mark.parametrize("kind, side", TURNS)
def test_stance_paws_stay_planted_with_the_spine_turned(baked, kind, side):
    result = baked[kind, side]
    motion = result["motion"]
    drifts = {}
    for leg, foot in enumerate(motion.character.feet):  # the tip, which a paw rolls onto late in a stance
        drifts[foot], stances = stance_drift(motion, leg, result["tips"][:, leg])
        assert stances >= 3
    print(f"\n{kind} {side_name(side)}: stance drift of the paws' tips (mm)",
          {foot: round(1000 * d, 3) for foot, d in drifts.items()})
    assert max(drifts.values()) <= 1e-3


def turned_rotations(addon, rig, frames, body):
    """The evaluated world rotations {bone: (N, 3, 3)} of the bones the body turns."""
    names = list(body.parts)
    matrices = evaluated_matrices(rig, frames, names)
    return {name: unit_rotations(matrices[:, j]) for j, name in enumerate(names)}


def test_rebake_replaces_only_what_it_made(addon, quadruped_blends, tmp_path):
    """An artist's own layer keying the neck stays under the bake, untouched; baking again replaces the
    bake's action (with its spine, neck, head and tail keys) and nothing else."""
    rig, coll = trot_scene(addon, quadruped_blends["wolf"], "wolf", tmp_path, strides=2)
    anim = rig.animation_data_create()
    own = bpy.data.actions.new("nod")
    below = anim.nla_tracks.new()
    below.name = "Artist below"
    rig.pose.bones["neck"].rotation_quaternion = (0.98, 0.2, 0.0, 0.0)
    anim.action = own
    rig.pose.bones["neck"].keyframe_insert("rotation_quaternion", frame=1)
    anim.action = None
    below.strips.new("nod", 1, own)
    rig.pose.bones["neck"].rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    before = [(t.name, [(s.name, s.action.name) for s in t.strips]) for t in anim.nla_tracks]
    animation = module(addon, "footprint_addon.animation")
    own_keys = [(f.data_path, f.array_index, f.keyframe_points[0].co[1]) for f in animation.action_fcurves(own)]
    for _attempt in range(2):
        assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    tracks = [(t.name, [(s.name, s.action.name) for s in t.strips]) for t in rig.animation_data.nla_tracks]
    assert tracks[:1] == before and [name for name, _strips in tracks] == ["Artist below", f"Footprints: {coll.name}"]
    ours = [a for a in bpy.data.actions if a.get("footprint_track") is not None]
    assert len(ours) == 1
    paths = {f.data_path for f in animation.action_fcurves(ours[0])}
    assert {f'pose.bones["{name}"].rotation_quaternion' for name in TURNED["wolf"]} <= paths
    assert [(f.data_path, f.array_index, f.keyframe_points[0].co[1]) for f in animation.action_fcurves(own)] == own_keys


def test_preview_and_live_update_turn_the_same_body(addon, quadruped_blends, tmp_path):
    """The preview turns each bone as the bake does (the rotation it ends with, after the rig's own
    constraints), follows a moved footprint, and leaves the rig at rest when removed."""
    rig, coll = trot_scene(addon, quadruped_blends["horse"], "horse", tmp_path, side=1, strides=3)
    rest = {b.name: np.array(b.matrix) for b in rig.pose.bones}
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    live = module(addon, "footprint_addon.live")
    solved = module(addon, "footprint_addon.solved")
    bake = module(addon, "footprint_addon.bake")
    live.flush(bpy.context)
    binding = bake.bind(rig)
    motion = solved.last_motion(coll)
    _targets, body = bake.targets_and_body(binding, motion, bake.world_rest(binding))
    frames = bake.frame_times(bpy.context.scene, motion.times[0], motion.times[-1])[0]
    for name, rotations in turned_rotations(addon, rig, frames, body).items():
        assert math.degrees(angles_between(rotations, body.world[name]).max()) < 0.5, name
    footprint = [o for o in coll.objects if o.footprint.is_footprint and o.footprint.foot == "LF"][2]
    footprint.location.x += 0.05
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    moved = solved.last_motion(coll)
    _targets, earlier = bake.targets_and_body(binding, motion, bake.world_rest(binding))
    _targets, body = bake.targets_and_body(binding, moved, bake.world_rest(binding))
    # The move turns the body by more than the tolerance below: a preview left as it was would fail it.
    assert max(math.degrees(angles_between(body.world[name], earlier.world[name]).max()) for name in body.world) > 0.5
    for name, rotations in turned_rotations(addon, rig, frames, body).items():
        assert math.degrees(angles_between(rotations, body.world[name]).max()) < 0.5, name
    assert bpy.ops.footprint.preview(rig="rig", remove=True) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert all(np.allclose(np.array(b.matrix), rest[b.name], atol=1e-5) for b in rig.pose.bones)
    assert rig.pose.bones["torso"]["neck_follow"] == pytest.approx(0.5)  # the follow switch put back


def test_a_mapped_quadruped_turns_the_spine_bones_its_mapping_names(addon, clean, tmp_path):
    """A plain quadruped armature (the wolf metarig with Set up Leg IK) whose mapping names neck, head and
    tail bones: the bake turns them (the tail bone and its connected descendants) as reconstruct says; the
    bones that carry the body control are left to it."""
    import addon_utils

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.object.armature_wolf_metarig_add()
    rig = bpy.context.active_object
    rig.location, rig.rotation_euler, rig.scale = (0.5, 0.5, 0.0), (0.0, 0.0, 0.6), (1.2, 1.2, 1.2)
    bpy.context.view_layer.update()
    assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
    binding_module = module(addon, "footprint_addon.rigs.binding")
    mapping = json.loads(rig.data[binding_module.MAPPING_KEY])
    mapping["spine"] = {"hips": "spine.004", "neck": "spine.009", "head": "spine.011", "tail": "spine.003"}
    rig.data[binding_module.MAPPING_KEY] = json.dumps(mapping)
    bake = module(addon, "footprint_addon.bake")
    binding = bake.bind(rig)
    character = bake.rig_character(binding, "dog")
    gait_track = module(addon, "solver.quadruped.gait_track")
    h = character.leg_length_nominal
    track = gait_track.gait_track(character, "trot", 2.0, 3 * 2.3 * h, turn_radius=RADIUS * h, preset_name="dog")
    coll = import_track(module(addon, "solver.track"), track, tmp_path / "trot.json")
    assert bpy.ops.footprint.bake(rig=rig.name) == {"FINISHED"}
    frames, motion = bake.solve_for_rig(bpy.context, coll, binding)
    _targets, body = bake.targets_and_body(binding, motion, bake.world_rest(binding))
    carried = {binding.body}
    bone = rig.data.bones[binding.body]
    while bone.parent is not None:
        bone = bone.parent
        carried.add(bone.name)
    expected = [name for name in ("spine.004", "spine.009", "spine.011") if name not in carried]
    assert list(body.parts) == expected + ["spine.003", "spine.002", "spine.001", "spine"]
    for name, rotations in turned_rotations(addon, rig, frames, body).items():
        assert math.degrees(angles_between(rotations, body.world[name]).max()) < 0.5, name


@needs_module_install
def test_the_command_line_bakes_and_batches_a_rigify_wolf(addon, quadruped_blends, tmp_path):
    """`python -m footprint_locomotion bake` and `batch` on a scene with a Rigify wolf and a quadruped track:
    the baked file's action turns the spine, neck, head and tail."""
    _rig, coll = trot_scene(addon, quadruped_blends["wolf"], "wolf", tmp_path, side=-1, strides=2)
    track = coll.name
    scene = tmp_path / "wolf scene.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene))
    out = tmp_path / "baked.blend"
    proc = run_cli("bake", str(scene), "--track", track, "--rig", "rig", "--output", str(out))
    assert proc.returncode == 0, proc.stderr[-1500:]
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps([{"file": str(scene), "track": track, "rig": "rig", "output": "batched.blend"}]))
    proc = run_cli("batch", str(jobs), "--output-dir", str(tmp_path / "out"))
    assert proc.returncode == 0 and "batch: 1 of 1 jobs baked" in proc.stdout, proc.stdout[-1500:] + proc.stderr[-1500:]
    animation = module(addon, "footprint_addon.animation")
    for path in (out, tmp_path / "out" / "batched.blend"):
        bpy.ops.wm.open_mainfile(filepath=str(path))
        strip = bpy.data.objects["rig"].animation_data.nla_tracks[f"Footprints: {track}"].strips[0]
        curves = {(f.data_path, f.array_index): f for f in animation.action_fcurves(strip.action)}
        for name in TURNED["wolf"]:
            values = np.zeros(2 * len(curves[f'pose.bones["{name}"].rotation_quaternion', 3].keyframe_points))
            curves[f'pose.bones["{name}"].rotation_quaternion', 3].keyframe_points.foreach_get("co", values)
            assert np.ptp(values[1::2]) > 1e-3, (path.name, name)  # turned, not left at rest
