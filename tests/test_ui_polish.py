"""What an animator meets around the tools: operator tooltips, property descriptions, the redo panel, and the
scene's frame range after a bake."""

import math

import bpy


def footprint_operators():
    """Every registered footprint.* operator's RNA, by name."""
    return {name: getattr(bpy.ops.footprint, name).get_rna_type() for name in dir(bpy.ops.footprint)}


def is_clean_line(text):
    """A tooltip Blender shows as written: something, on one line, without a docstring's indentation."""
    return bool(text.strip()) and "\n" not in text and "  " not in text and text == text.strip()


def undescribed(struct):
    """Properties of an RNA struct (and items of its enums) that a user sees without a description."""
    missing = []
    for prop in struct.properties:
        if prop.identifier == "rna_type" or prop.is_hidden:
            continue
        if not is_clean_line(prop.description):
            missing.append(prop.identifier)
        if prop.type == "ENUM":
            missing += [f"{prop.identifier}.{item.identifier}" for item in prop.enum_items
                        if not is_clean_line(item.description)]
    return missing


def test_operator_tooltips_are_single_clean_lines(addon):
    operators = footprint_operators()
    assert {"bake", "measure_rig", "setup_leg_ik", "preview", "run_cycle", "add_on_terrain"} <= set(operators)
    assert {name: rna.description for name, rna in operators.items() if not is_clean_line(rna.description)} == {}


def test_every_visible_operator_property_has_a_description(addon):
    operators = footprint_operators()
    assert len(operators) >= 15 and "generate_along_curve" in operators
    assert {name: undescribed(rna) for name, rna in operators.items() if undescribed(rna)} == {}


def test_every_visible_setting_of_the_extension_has_a_description(addon):
    groups = {f"{owner.__name__}.{attribute}": owner.bl_rna.properties[attribute].fixed_type
              for owner, attribute in ((bpy.types.Object, "footprint"), (bpy.types.Collection, "footprint_track"),
                                       (bpy.types.Scene, "footprint"), (bpy.types.Scene, "footprint_running"))}
    groups["Collection.footprint_track.body"] = groups["Collection.footprint_track"].properties["body"].fixed_type
    assert len(groups["Scene.footprint_running"].properties) > 19  # the nineteen attributes and more
    assert len(groups["Collection.footprint_track.body"].properties) > 13  # the walking attributes and more
    assert {name: undescribed(group) for name, group in groups.items() if undescribed(group)} == {}


def test_internal_ray_and_mouse_properties_stay_out_of_the_redo_panel(addon):
    for operator, names in (("add_on_terrain", ("ray_origin", "ray_direction")), ("scrub_timing", ("x", "y"))):
        properties = getattr(bpy.ops.footprint, operator).get_rna_type().properties
        for name in names:
            assert properties[name].is_hidden and properties[name].is_skip_save, (operator, name)


def baked_strip():
    return bpy.data.objects["rig"].animation_data.nla_tracks["Footprints: fig1"].strips[0]


def test_bake_extends_the_frame_range_to_the_strip_and_undo_takes_it_back(addon, rig_scene):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 101, 110  # the track's time 0 is frame 101
    bpy.ops.ed.undo_push(message="short range")
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    strip = baked_strip()
    assert strip.frame_start == 101 and strip.frame_end > 250
    assert (scene.frame_start, scene.frame_end) == (101, math.ceil(strip.frame_end))
    bpy.ops.ed.undo_push(message="Bake Footprints to Rig")
    bpy.ops.ed.undo()
    assert (bpy.context.scene.frame_start, bpy.context.scene.frame_end) == (101, 110)


def test_bake_never_shrinks_the_frame_range_nor_moves_the_tracks_time_0(addon, rig_scene):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5000
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    assert (scene.frame_start, scene.frame_end) == (1, 5000)
    # A track that starts before time 0 is baked from before the start frame; the start frame stays, as
    # moving it would retime every track in the scene (and the next bake would start earlier still).
    scene.frame_end = 2
    for obj in (o for o in bpy.data.collections["fig1"].objects if o.footprint.is_footprint):
        obj.footprint.contact -= 0.5
        obj.footprint.liftoff -= 0.5
    assert bpy.ops.footprint.bake(rig="rig") == {"FINISHED"}
    strip = baked_strip()
    assert strip.frame_start == 1 - 12
    assert (scene.frame_start, scene.frame_end) == (1, math.ceil(strip.frame_end))
