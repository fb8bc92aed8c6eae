"""Live update through the handler path: move a footprint of the Fig. 1 track, let the depsgraph handler
note it, flush (warm-started re-solve and in-place preview refresh); target: at most 16 ms median."""

import os
import statistics
import time

from .scenes import rigify_human


def run(moves=41):
    rigify_human()
    import bpy

    from footprint_locomotion.footprint_addon import live

    data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fig1.json")
    bpy.ops.footprint.import_json(filepath=data)
    bpy.ops.footprint.preview(rig="rig")
    live.flush(bpy.context)
    coll = bpy.context.scene.footprint.active_track
    foot = sorted((o for o in coll.objects if o.footprint.is_footprint), key=lambda o: o.footprint.contact)[5]
    times = []
    for i in range(moves):
        foot.location.y += 0.01 if i % 2 else -0.01
        start = time.perf_counter()
        bpy.context.view_layer.update()
        live.flush(bpy.context)
        times.append(time.perf_counter() - start)
    print("Live update, Fig. 1 (12 footprints), move -> depsgraph handler -> re-solve -> preview refreshed:")
    print(f"  median {statistics.median(times) * 1e3:6.1f} ms   (target 16 ms; {moves} moves)")
