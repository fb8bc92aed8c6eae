"""Blender glue: properties, operators, panels, the command line. Registered from one place, here."""

import bpy

import os

from . import body_settings, cli, live, operators, planning_settings, properties, running_settings, ui

classes = (running_settings.classes + body_settings.classes + properties.classes + planning_settings.classes
           + operators.classes + ui.classes)
# The extension root: Blender looks for presets/<subdir> below each registered preset path.
PRESET_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    properties.attach()
    planning_settings.attach()
    ui.register()
    operators.scrub.register_keymap()
    live.register()
    cli.register()
    bpy.utils.register_preset_path(PRESET_ROOT)  # running and body presets; users add their own beside them


def unregister():
    bpy.utils.unregister_preset_path(PRESET_ROOT)
    cli.unregister()
    live.unregister()
    operators.scrub.unregister_keymap()
    ui.unregister()
    planning_settings.detach()
    properties.detach()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
