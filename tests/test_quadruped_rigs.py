"""Quadrupeds on real Rigify rigs generated from Blender's bundled metarigs (wolf, cat, horse): bound with no
setup (four paw legs, their IK controls, heel rolls and switches; the torso and the spine's controls), the
character read from the rig's rest pose, a solved trot baked and measured on the evaluated rig after
Blender's own constraints and IK; re-bake, undo, preview, live update and bad input."""

import importlib
import json
import sys

import bpy
import numpy as np
import pytest

from blender_scenes import (QUADRUPED_KINDS, QUADRUPED_PLACE, QUADRUPED_PRESET, QUADRUPED_SPEED, footprint_objects,
                            import_track, place_rig, quadruped_trot_scene, rigify_quadruped_blend,
                            stance_drift)
from scene_state import snapshot

KINDS = QUADRUPED_KINDS
# Each rig's feet (left/right hind/fore) to its paw IK controls, as Rigify names them after the metarig.
CONTROLS = {
    "wolf": {"LH": "foot_ik.L", "RH": "foot_ik.R", "LF": "front_foot_ik.L", "RF": "front_foot_ik.R"},
    "cat": {"LH": "foot_ik.L", "RH": "foot_ik.R", "LF": "hand_ik.L", "RF": "hand_ik.R"},
    "horse": {"LH": "hind_foot_ik.L", "RH": "hind_foot_ik.R", "LF": "forefoot_ik.L", "RF": "forefoot_ik.R"},
}
# Each rig's tail FK controls, root to tip (the bake turns them; the master stays the artist's).
TAIL = {"wolf": ("spine.003", "spine.002", "spine.001", "spine"),
        "cat": ("tail.001", "tail.002", "tail.003", "tail.004"),
        "horse": ("tail.001", "tail.002", "tail.003", "tail.004", "tail.005")}


def module(addon, name):
    return importlib.import_module(f"{addon}.{name}")


def placed_rig(blend, kind):
    return place_rig(blend, *QUADRUPED_PLACE[kind])


def trot_scene(addon, blend, kind, folder, strides=4):
    """The rig placed, and a trot solved for the character read from it imported as the active track."""
    return quadruped_trot_scene(addon, blend, kind, folder, QUADRUPED_SPEED[kind], strides)


def evaluated_ends(rig, frames, bones):
    """World heads and tails (frames, bones, 2, 3) of pose bones on the evaluated rig, frame by frame."""
    scene = bpy.context.scene
    out = np.zeros((len(frames), len(bones), 2, 3))
    for i, frame in enumerate(frames):
        scene.frame_set(int(frame))
        evaluated = rig.evaluated_get(bpy.context.evaluated_depsgraph_get())
        world = np.array(evaluated.matrix_world)
        for j, name in enumerate(bones):
            pose_bone = evaluated.pose.bones[name]
            for k, point in enumerate((pose_bone.head, pose_bone.tail)):
                out[i, j, k] = (world @ np.append(np.array(point), 1.0))[:3]
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_a_generated_rigify_quadruped_binds_with_no_setup(addon, quadruped_blends, kind):
    rig = placed_rig(quadruped_blends[kind], kind)
    bake = module(addon, "footprint_addon.bake")
    binding = bake.bind(rig)
    assert binding.is_quadruped and binding.feet == CONTROLS[kind]
    assert binding.body == "torso" and not binding.missing_parts
    assert set(binding.spine) == {"hips", "chest", "neck", "head", "tail"}
    assert all(len(rolls) == (2 if kind == "horse" else 1) for rolls in binding.rolls.values())
    legs = {key: value for key, value in binding.switches.items() if key[1] == "IK_FK"}
    assert set(legs.values()) == {0.0} and len(legs) == 4
    # The neck, head and tail follow the torso (the horse's tail the root) wholly, with their follow at 0.
    follow = {key: value for key, value in binding.switches.items() if key[1] != "IK_FK"}
    tail_switch = "tail_master.001" if kind == "horse" else "torso"
    assert follow == {("torso", "neck_follow"): 0.0, ("torso", "head_follow"): 0.0, (tail_switch, "tail_follow"): 0.0}
    assert binding.tail_controls == TAIL[kind]
    character = bake.rig_character(binding, QUADRUPED_PRESET[kind])
    scale = QUADRUPED_PLACE[kind][2]
    assert character.feet == ("LH", "RH", "LF", "RF")
    hips = character.hip_offsets
    assert (hips[:2, 1] < 0).all() and (hips[2:, 1] > 0).all()  # hind behind the COM, fore ahead (+Y)
    assert hips[0, 0] < 0 < hips[1, 0] and hips[2, 0] < 0 < hips[3, 0]  # left at -X
    # The centre of mass 0.6 of the way from the hind hips to the fore hips, at their mean height.
    assert 0.4 * hips[:2, 1].mean() + 0.6 * hips[2:, 1].mean() == pytest.approx(0.0, abs=1e-6)
    assert hips[:, 2].mean() == pytest.approx(0.0, abs=1e-6)
    # Sized from the rig and its object's scale: the preset (from the same metarig) times the scale.
    preset = module(addon, "solver.character").preset(QUADRUPED_PRESET[kind])
    assert character.leg_length_nominal == pytest.approx(scale * preset.leg_length_nominal, rel=0.02)
    assert np.abs(hips - scale * preset.hip_offsets).max() < 0.02 * scale * preset.leg_length_nominal
    assert (character.leg_lengths[:, 0] < character.leg_lengths[:, 1]).all()
    assert character.leg_length_nominal < character.leg_length_max


@pytest.mark.parametrize("kind", KINDS)
def test_a_trot_baked_keeps_every_stance_paw_planted(addon, quadruped_blends, kind, tmp_path):
    rig, coll = trot_scene(addon, quadruped_blends[kind], kind, tmp_path)
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = rig.animation_data
    assert [t.name for t in anim.nla_tracks] == [f"Footprints: {coll.name}"]
    bake = module(addon, "footprint_addon.bake")
    binding = bake.bind(rig)
    frames, motion = bake.solve_for_rig(bpy.context, coll, binding)
    assert motion.report["non_physical_force"]["mean"] <= 0.05
    feet = list(motion.character.feet)
    # The paws roll onto their tips late in a stance, where the hip has gone ahead past the bone chain's reach
    # (Character.leg_ends): never before mid-stance, and never back (the heel does not come down again).
    rolled = motion.toe_pivot > 1e-6
    assert rolled.any() and (motion.toe_pivot >= 0.0).all()
    for leg in range(len(feet)):
        for footprint in np.unique(motion.footprint[:, leg][motion.contact[:, leg]]):
            on = np.flatnonzero(motion.contact[:, leg] & (motion.footprint[:, leg] == footprint))
            pivot = motion.toe_pivot[on, leg]
            assert not pivot[: len(on) // 2].any() and (np.diff(pivot[len(on) // 2:]) >= -1e-9).all()
    groups = [[binding.balls[foot].replace("ORG-", "DEF-", 1)] for foot in feet]
    bones = ["torso"] + [name for group in groups for name in group]
    ends = evaluated_ends(rig, frames, bones)
    # The torso on its solved path: at the COM plus its rest offset turned with the body.
    rotation, head = bake.bone_targets(binding, motion, bake.world_rest(binding))["torso"]
    assert np.linalg.norm(ends[:, 0, 0] - head, axis=1).max() < 1e-3
    drifts = {}
    for leg, foot in enumerate(feet):  # the paw's tip, which it rolls about, stays planted
        drift, stances = stance_drift(motion, leg, ends[:, 1 + leg, 1:])
        assert stances >= 3
        drifts[foot] = drift
    print(f"\n{kind}: stance drift of the paws' tips (mm):", {foot: round(1000 * d, 4) for foot, d in drifts.items()})
    assert max(drifts.values()) <= 1e-3
    # Measure on Rig reads the quadruped as the bake left it.
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    report = json.loads(coll.footprint_track.last_rig_report)
    assert set(report["ball_skate"]) == set(feet) and max(report["ball_skate"].values()) <= 1e-3
    assert max(report["below_ground"].values()) <= 2e-3


def test_rebake_replaces_only_what_it_made_and_undo_restores(addon, quadruped_blends, tmp_path):
    rig, coll = trot_scene(addon, quadruped_blends["wolf"], "wolf", tmp_path, strides=2)
    anim = rig.animation_data_create()
    below = anim.nla_tracks.new()
    below.name = "Artist below"
    below.strips.new("idle", 1, bpy.data.actions.new("idle"))
    bpy.ops.ed.undo_push(message="artist layer")
    before = [(t.name, [(s.name, s.action.name) for s in t.strips]) for t in anim.nla_tracks]
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    bpy.ops.ed.undo_push(message="bake")
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    anim = bpy.data.objects["rig"].animation_data
    assert [t.name for t in anim.nla_tracks] == ["Artist below", f"Footprints: {coll.name}"]
    ours = [a for a in bpy.data.actions if a.get("footprint_track") is not None]
    assert len(ours) == 1 and "idle" in bpy.data.actions
    bpy.ops.ed.undo_push(message="rebake")
    bpy.ops.ed.undo()
    bpy.ops.ed.undo()  # back to before any bake
    anim = bpy.data.objects["rig"].animation_data
    assert [(t.name, [(s.name, s.action.name) for s in t.strips]) for t in anim.nla_tracks] == before
    assert not [a for a in bpy.data.actions if a.get("footprint_track") is not None]


def test_a_rig_missing_a_leg_bone_is_refused_naming_it(addon, quadruped_blends, tmp_path):
    rig, coll = trot_scene(addon, quadruped_blends["wolf"], "wolf", tmp_path, strides=2)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    rig.data.edit_bones.remove(rig.data.edit_bones["front_foot_ik.L"])
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.ed.undo_push(message="bone deleted")
    state, actions = snapshot(), set(bpy.data.actions.keys())
    with pytest.raises(RuntimeError, match=r"missing bones: front_foot_ik\.L: nothing baked"):
        bpy.ops.footprint.bake(rig="rig")
    with pytest.raises(RuntimeError, match=r"front_foot_ik\.L: nothing added"):
        bpy.ops.footprint.preview(rig="rig")
    assert snapshot() == state and set(bpy.data.actions.keys()) == actions
    assert rig.animation_data is None or not rig.animation_data.nla_tracks


def test_a_biped_track_on_a_quadruped_rig_is_refused(addon, quadruped_blends):
    from conftest import FIG1

    placed_rig(quadruped_blends["wolf"], "wolf")
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    state = snapshot()
    with pytest.raises(RuntimeError, match=r"feet L, R that rig 'rig' does not have .*quadruped rig takes a "
                                           r"quadruped track: nothing baked"):
        bpy.ops.footprint.bake(rig="rig")
    assert snapshot() == state


def test_preview_and_live_update_follow_a_moved_footprint(addon, quadruped_blends, tmp_path):
    rig, coll = trot_scene(addon, quadruped_blends["wolf"], "wolf", tmp_path, strides=3)
    live = sys.modules[f"{addon}.footprint_addon.live"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    rest = {b.name: np.array(b.matrix) for b in rig.pose.bones}
    assert bpy.ops.footprint.preview(rig="rig") == {"FINISHED"}
    followed = {b.name for b in rig.pose.bones for c in b.constraints if c.name.startswith("Footprint Preview")}
    assert followed == {"torso", *CONTROLS["wolf"].values(), "hips", "chest", "neck", "head", *TAIL["wolf"]}
    live.flush(bpy.context)
    before = solved.last_motion(coll)
    bake = module(addon, "footprint_addon.bake")
    binding = bake.bind(rig)
    # The previewed rig plants its paws as the bake does: a hind paw on its footprint.
    leg = list(before.character.feet).index("LH")
    on = before.contact[:, leg] & (before.footprint[:, leg] == before.footprint[:, leg][before.contact[:, leg]][2])
    frames = np.asarray([bpy.context.scene.frame_start + round(t * bpy.context.scene.render.fps)
                         for t in before.times])
    paw = evaluated_ends(rig, frames[on], [binding.balls["LH"].replace("ORG-", "DEF-", 1)])
    assert np.linalg.norm(paw - paw[:1], axis=-1).max() <= 1e-3
    # Move a fore footprint: the live update solves again, once, and the preview's paw follows it there.
    target = [o for o in footprint_objects(coll) if o.footprint.foot == "LF"][2]
    scene = bpy.context.scene
    mid_stance = 0.5 * (target.footprint.contact + target.footprint.liftoff)
    standing = [scene.frame_start + round(mid_stance * scene.render.fps)]
    fore_paw = [binding.balls["LF"].replace("ORG-", "DEF-", 1)]
    paw_before = evaluated_ends(rig, standing, fore_paw)[0, 0, 0]
    target.location.x += 0.05
    bpy.context.view_layer.update()
    assert live.flush(bpy.context) == 1
    after = solved.last_motion(coll)
    assert after is not before and live.flush(bpy.context) == 0
    moved = evaluated_ends(rig, standing, fore_paw)[0, 0, 0] - paw_before
    assert np.linalg.norm(moved - [0.05, 0.0, 0.0]) < 2e-3, moved
    # Removing the preview puts the rig back to rest.
    assert bpy.ops.footprint.preview(rig="rig", remove=True) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert not any(c.name.startswith("Footprint Preview") for b in rig.pose.bones for c in b.constraints)
    assert all(np.allclose(np.array(b.matrix), rest[b.name], atol=1e-5) for b in rig.pose.bones)


def test_the_quadruped_presets_are_offered(addon, clean):
    presets = [item.identifier for item in
               bpy.types.Collection.bl_rna.properties["footprint_track"].fixed_type.properties["character"].enum_items]
    assert {"human", "dog", "cat", "horse"} <= set(presets)


def test_an_explicit_quadruped_mapping_binds_another_armature(addon, quadruped_blends, tmp_path):
    """A quadruped armature Footprint Locomotion does not know, through the mapping JSON: here the wolf's
    own controls under a mapping written by hand (no heels, no rolls, no spine: all optional)."""
    rig, coll = trot_scene(addon, quadruped_blends["wolf"], "wolf", tmp_path, strides=2)
    binding = sys.modules[f"{addon}.footprint_addon.rigs.binding"]
    known = binding.bind(rig)
    mapping = {"name": "by hand", "body": "torso", "feet": CONTROLS["wolf"], "hips": known.hips,
               "ankles": known.ankles, "balls": known.balls,
               "switches": {bone: {prop: value} for (bone, prop), value in known.switches.items()}}
    rig.data[binding.MAPPING_KEY] = json.dumps(mapping)
    by_hand = binding.bind(rig)
    assert by_hand.is_quadruped and by_hand.feet == CONTROLS["wolf"] and not by_hand.heels
    assert set(by_hand.missing_parts) == {"hips control", "chest control", "neck control", "head control",
                                          "tail control"}
    bake = module(addon, "footprint_addon.bake")
    same, other = bake.rig_character(known, "dog"), bake.rig_character(by_hand, "dog")
    assert np.allclose(same.hip_offsets, other.hip_offsets) and same.leg_lengths == pytest.approx(other.leg_lengths)
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    assert bpy.ops.footprint.measure_rig() == {"FINISHED"}
    report = json.loads(coll.footprint_track.last_rig_report)
    assert report["feet"]["LF"]["heel_point"] == "the paw's back" and max(report["ball_skate"].values()) <= 1e-3
    # Three feet of four is refused, naming what is wrong.
    rig.data[binding.MAPPING_KEY] = json.dumps(dict(mapping, feet={k: v for k, v in CONTROLS["wolf"].items()
                                                                    if k != "RF"}))
    with pytest.raises(binding.MissingBonesError, match="some quadruped feet but not all four"):
        binding.bind(rig)


def test_set_up_leg_ik_gives_a_plain_quadruped_four_paw_controls(addon, clean, tmp_path):
    """A plain quadruped armature (the wolf metarig: bones, no controls) gets four paw IK controls from Set
    up Leg IK, binds through the mapping it stores, and bakes a trot with its stance paws planted."""
    import addon_utils

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.object.armature_wolf_metarig_add()
    rig = bpy.context.active_object
    rig.location, rig.rotation_euler, rig.scale = (0.5, 0.5, 0.0), (0.0, 0.0, 0.6), (1.2, 1.2, 1.2)
    bpy.context.view_layer.update()
    binding_module = sys.modules[f"{addon}.footprint_addon.rigs.binding"]
    with pytest.raises(binding_module.MissingBonesError, match="Set up Leg IK"):
        binding_module.bind(rig)  # no controls yet: what to do is named
    assert bpy.ops.footprint.setup_leg_ik(rig=rig.name) == {"FINISHED"}
    binding = binding_module.bind(rig)
    assert binding.is_quadruped and binding.feet == {f: f"FP-paw_ik.{f}" for f in ("LH", "RH", "LF", "RF")}
    assert binding.hips == {"LH": "thigh.L", "RH": "thigh.R", "LF": "front_thigh.L", "RF": "front_thigh.R"}
    assert binding.balls == {"LH": "toe.L", "RH": "toe.R", "LF": "front_toe.L", "RF": "front_toe.R"}
    bake = module(addon, "footprint_addon.bake")
    character = bake.rig_character(binding, "dog")
    gait_track = module(addon, "solver.quadruped.gait_track")
    track_module = module(addon, "solver.track")
    track = gait_track.gait_track(character, "trot", 2.0, 3 * 2.3 * character.leg_length_nominal, preset_name="dog")
    path = tmp_path / "trot.json"
    path.write_text(track_module.dumps(track_module.track_to_json(track)))
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    assert bpy.ops.footprint.bake(rig=rig.name) == {"FINISHED"}
    frames, motion = bake.solve_for_rig(bpy.context, coll, binding)
    feet = list(motion.character.feet)
    ends = evaluated_ends(rig, frames, [binding.balls[f] for f in feet])
    drifts = {foot: stance_drift(motion, leg, ends[:, leg, 1])[0] for leg, foot in enumerate(feet)}  # (the tip)
    print("\nwolf metarig with Set up Leg IK: stance drift (mm):", {f: round(1000 * d, 4) for f, d in drifts.items()})
    # Blender's iterative IK over three bones comes within a millimetre on the hind legs; the fore legs,
    # nearly straight at the end of a stance, within a centimetre (Rigify's paws solve it in closed form).
    assert max(drifts["LH"], drifts["RH"]) <= 2e-3 and max(drifts["LF"], drifts["RF"]) <= 1e-2


def test_rigifys_basic_quadruped_bakes_too(addon, clean, tmp_path):
    """The rig generated from Rigify's basic quadruped metarig (the wolf's legs and spine without its head's
    and tail's detail) binds with no setup and bakes a trot from standing with every stance paw's deform
    bones within 1 mm."""
    bpy.ops.wm.open_mainfile(filepath=rigify_quadruped_blend("basic_quadruped", tmp_path / "basic.blend"))
    rig = bpy.data.objects["rig"]
    bake = module(addon, "footprint_addon.bake")
    binding = bake.bind(rig)
    assert binding.is_quadruped and binding.body == "torso"
    assert binding.feet == {"LH": "foot_ik.L", "RH": "foot_ik.R", "LF": "front_foot_ik.L", "RF": "front_foot_ik.R"}
    character = bake.rig_character(binding, "dog")
    gait_track = module(addon, "solver.quadruped.gait_track")
    track = gait_track.gait_track(character, "trot", 1.5, 6 * character.leg_length_nominal, preset_name="dog",
                                  stand=True)
    coll = import_track(module(addon, "solver.track"), track, tmp_path / "trot.json")
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    frames, motion = bake.solve_for_rig(bpy.context, coll, binding)
    for leg, foot in enumerate(motion.character.feet):
        tip = evaluated_ends(rig, frames, [binding.balls[foot].replace("ORG-", "DEF-", 1)])[:, 0, 1]
        drift, stances = stance_drift(motion, leg, tip)
        assert stances >= 3 and drift <= 1e-3, (foot, drift)
