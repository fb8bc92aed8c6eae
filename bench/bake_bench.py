"""Baking a 10,000-frame track onto a Rigify human: bulk foreach_set against a keyframe_insert loop that
writes the very same channel values, in the same run."""

import time

import numpy as np

from .scenes import rigify_human


def run():
    rig = rigify_human()
    import bpy

    from footprint_locomotion.footprint_addon import bake, scene_io
    from footprint_locomotion.footprint_addon.rigs import bind
    from footprint_locomotion.solver import character
    from footprint_locomotion.solver.footprints import footpath, timing

    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    human = character.preset("human")
    steps = 760  # about 10,000 frames at 24 fps
    pos, head, feet = footpath.footprints_along_path([(0, 0, 0), (0, 0.7 * (steps - 1), 0)], 0.7, 0.2)
    contact, liftoff = timing.timing_for_sequence(pos, "walk", human.time_unit, human.leg_length_nominal)
    coll = scene_io.new_track(bpy.context, "Long walk")
    from footprint_locomotion.solver.track import make_track

    scene_io.write_track(coll, make_track(feet, pos, head, contact, liftoff))

    start = time.perf_counter()
    strip, _motion = bake.bake(bpy.context, coll, rig)
    t_bake = time.perf_counter() - start
    frames = int(strip.frame_end - strip.frame_start) + 1

    binding = bind(rig)
    frame_numbers, motion = bake.solve_for_rig(bpy.context, coll, binding)
    channels = bake.control_channels(binding, motion)
    start = time.perf_counter()
    writer = bake.animation.ChannelWriter("bulk", rig)
    for name, (location, quaternion) in channels.items():
        writer.write_transform(f'pose.bones["{name}"].', frame_numbers, location, quaternion)
    t_bulk = time.perf_counter() - start

    rig.animation_data_create().action = None
    start = time.perf_counter()
    for i, frame in enumerate(frame_numbers):
        for name, (location, quaternion) in channels.items():
            bone = rig.pose.bones[name]
            bone.location = location[i]
            bone.rotation_quaternion = quaternion[i]
            bone.keyframe_insert("location", frame=float(frame))
            bone.keyframe_insert("rotation_quaternion", frame=float(frame))
    t_loop = time.perf_counter() - start
    print(f"Bake onto the Rigify human, {frames} frames ({len(channels)} bones, {7 * len(channels)} channels):")
    print(f"  whole bake (solve {steps} steps, transforms, F-curves, NLA strip) {t_bake * 1e3:8.1f} ms")
    print(f"  writing the channels with foreach_set                      {t_bulk * 1e3:8.1f} ms")
    print(f"  keyframe_insert loop writing the same channels             {t_loop * 1e3:8.1f} ms")
    print(f"  ratio loop / whole bake {t_loop / t_bake:6.1f} x   loop / bulk writing {t_loop / t_bulk:6.1f} x")
    return np.array([t_bake, t_bulk, t_loop])
