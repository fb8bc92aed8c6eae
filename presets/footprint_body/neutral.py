import bpy
settings = bpy.context.scene.footprint.active_track.footprint_track.body
settings.enabled = True
settings.arm_swing = 30.0
settings.elbow_flexion = 25.0
settings.elbow_swing = 15.0
settings.arm_abduction = 8.0
settings.torso_lean = 3.0
settings.slope_lean = 0.4
settings.torso_bounce = 2.0
settings.pelvic_rotation = 8.0
settings.pelvic_list = 7.0
settings.chest_rotation = 7.0
settings.head_steady = 0.9
settings.look_ahead = 0.8
settings.heel_strike = 15.0
