"""The Running panel's operators: make the cycle from the panel, reset attributes, add presets."""

import bpy
from bl_operators.presets import AddPresetBase

from ...solver.running.attributes import ATTRIBUTE_NAMES
from .. import running_settings


class FOOTPRINT_OT_running_apply(bpy.types.Operator):
    """Make the running cycle on the panel's rig from the panel's parameters and attributes"""

    bl_idname = "footprint.running_apply"
    bl_label = "Make Running Cycle"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return context.scene.footprint_running.rig is not None

    def execute(self, context):
        settings = context.scene.footprint_running
        running_settings.run_preview(context.scene)
        if settings.error:
            self.report({"ERROR"}, settings.error)
            return {"CANCELLED"}
        return {"FINISHED"}


class FOOTPRINT_OT_running_reset(bpy.types.Operator):
    """Let every attribute follow the parameters again (forget the values set by hand)"""

    bl_idname = "footprint.running_reset"
    bl_label = "Reset Attributes"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        settings = context.scene.footprint_running
        settings.chosen = ""
        running_settings.write_back(settings, running_settings.current(settings))
        running_settings.preview(settings, context)
        return {"FINISHED"}


class FOOTPRINT_MT_running_presets(bpy.types.Menu):
    bl_label = "Running Presets"
    preset_subdir = "footprint_running"
    preset_operator = "script.execute_preset"
    draw = bpy.types.Menu.draw_preset


class FOOTPRINT_OT_running_preset_add(AddPresetBase, bpy.types.Operator):
    """Save the running parameters and attributes as a preset"""

    bl_idname = "footprint.running_preset_add"
    bl_label = "Add Running Preset"
    preset_menu = "FOOTPRINT_MT_running_presets"
    preset_subdir = "footprint_running"
    preset_defines = ["settings = bpy.context.scene.footprint_running"]
    preset_values = ["settings.level", "settings.body_height", "settings.velocity_kmh", "settings.chosen"] + [
        f"settings.{name}" for name in ATTRIBUTE_NAMES]


classes = (FOOTPRINT_OT_running_apply, FOOTPRINT_OT_running_reset, FOOTPRINT_MT_running_presets,
           FOOTPRINT_OT_running_preset_add)
