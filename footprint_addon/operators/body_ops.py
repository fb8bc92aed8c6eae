"""The Body panel's presets: neutral, brisk, tired, cautious (shipped) and the artist's own."""

import bpy
from bl_operators.presets import AddPresetBase

from ...solver.body.walking import ATTRIBUTE_NAMES


class FOOTPRINT_MT_body_presets(bpy.types.Menu):
    bl_label = "Body Presets"
    preset_subdir = "footprint_body"
    preset_operator = "script.execute_preset"
    draw = bpy.types.Menu.draw_preset


class FOOTPRINT_OT_body_preset_add(AddPresetBase, bpy.types.Operator):
    """Save the active track's walking attributes as a preset"""

    bl_idname = "footprint.body_preset_add"
    bl_label = "Add Body Preset"
    preset_menu = "FOOTPRINT_MT_body_presets"
    preset_subdir = "footprint_body"
    preset_defines = ["settings = bpy.context.scene.footprint.active_track.footprint_track.body"]
    preset_values = ["settings.enabled"] + [f"settings.{name}" for name in ATTRIBUTE_NAMES]

    @classmethod
    def poll(cls, context):
        return context.scene.footprint.active_track is not None


classes = (FOOTPRINT_MT_body_presets, FOOTPRINT_OT_body_preset_add)
