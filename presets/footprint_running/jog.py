import bpy
settings = bpy.context.scene.footprint_running
settings.level = 0.0
settings.velocity_kmh = 9.0
