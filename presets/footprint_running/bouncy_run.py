import bpy
settings = bpy.context.scene.footprint_running
settings.level = 0.0
settings.velocity_kmh = 13.0
settings.bounciness = 0.9
