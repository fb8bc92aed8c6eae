import bpy
settings = bpy.context.scene.footprint.active_track.footprint_track.body
settings.enabled = True
settings.arm_swing = 12.0
settings.elbow_flexion = 30.0
settings.elbow_swing = 6.0
settings.arm_abduction = 14.0
settings.torso_lean = 6.0
settings.slope_lean = 0.4
settings.torso_bounce = 1.0
settings.pelvic_rotation = 5.0
settings.pelvic_list = 4.0
settings.chest_rotation = 3.0
settings.head_steady = 1.0
settings.look_ahead = 0.3
settings.heel_strike = 6.0
