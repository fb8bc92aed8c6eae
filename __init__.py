"""Footprint Locomotion: footprints in, physically plausible locomotion out.

The extension root. Blender calls register()/unregister(); the Blender glue lives in footprint_addon,
the Blender-free science in solver. Importing this package does not import bpy, so the solver and its
tests run without Blender.
"""


def register():
    from . import footprint_addon

    footprint_addon.register()


def unregister():
    from . import footprint_addon

    footprint_addon.unregister()
