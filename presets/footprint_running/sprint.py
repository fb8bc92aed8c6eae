import bpy
settings = bpy.context.scene.footprint_running
settings.level = 0.001
settings.velocity_kmh = 26.0
