"""Blender glue: properties, operators, panels, the command line. Registered from one place, here."""

import bpy

from . import cli, operators, properties, ui

classes = properties.classes + operators.classes + ui.classes


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    properties.attach()
    ui.register()
    cli.register()


def unregister():
    cli.unregister()
    ui.unregister()
    properties.detach()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
