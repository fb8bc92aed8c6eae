"""Live update through the handler path: move a footprint of the Fig. 1 track, let the depsgraph handler
note it, flush (warm-started re-solve and in-place preview refresh); target: at most 16 ms median.
And on long tracks: re-optimising and sampling again only around the edit against the whole track, both
warm-started."""

import os
import statistics
import time

import numpy as np

from .scenes import rigify_human
from .solver_bench import DATA, median_seconds, straight_walk


def run(moves=101):
    rigify_human()
    import bpy

    from footprint_locomotion.footprint_addon import live

    data = os.path.join(DATA, "fig1.json")
    bpy.ops.footprint.import_json(filepath=data)
    bpy.ops.footprint.preview(rig="rig")
    live.flush(bpy.context)
    coll = bpy.context.scene.footprint.active_track
    foot = sorted((o for o in coll.objects if o.footprint.is_footprint), key=lambda o: o.footprint.contact)[5]
    times, baseline = [], []
    for i in range(moves):
        foot.location.y += 0.01 if i % 2 else -0.01
        start = time.perf_counter()
        bpy.context.view_layer.update()  # the move reaches the handler
        live.flush(bpy.context)  # what the debounce timer runs: re-solve, keys rewritten
        bpy.context.view_layer.update()  # Blender evaluates the preview and the rig following it
        times.append(time.perf_counter() - start)
        # The same run's baseline: Blender alone re-evaluating the scene (no re-solve), which shows how
        # fast this shared machine is running at the moment.
        start = time.perf_counter()
        bpy.context.scene.frame_set(bpy.context.scene.frame_current)
        baseline.append(time.perf_counter() - start)
    median = statistics.median(times)
    print("Live update, Fig. 1 (12 footprints), move -> depsgraph handler -> re-solve -> preview and rig "
          f"evaluated (after the {live.DEBOUNCE * 1e3:.0f} ms pause the live update waits for in a drag):")
    print(f"  median {median * 1e3:6.1f} ms   (target 16 ms; {moves} moves)   "
          f"Blender re-evaluating the scene alone {statistics.median(baseline) * 1e3:5.1f} ms, "
          f"ratio {median / statistics.median(baseline):.1f} x")


def windowed(steps_list=(60, 100, 300), repeats=7):
    from footprint_locomotion.solver import biped

    print("Edit of a long track (one footprint moved 6 cm), warm re-solve at 24 fps: whole track vs window "
          "(re-optimised and sampled again around the edit, as the live update does):")
    for steps in steps_list:
        track = straight_walk(steps)
        first = biped.solve(track, fps=24)
        j = steps // 2
        moved = track.replace(positions=track.positions + np.where(np.arange(len(track))[:, None] == j,
                                                                   [0.05, 0.03, 0.0], 0.0))
        t_whole = median_seconds(lambda: biped.solve(moved, fps=24, warm=first.solution), repeats)
        t_window = median_seconds(lambda: biped.solve(moved, fps=24, warm=first.solution, previous=first,
                                                      changed=(track.contact[j], track.liftoff[j])), repeats)
        print(f"  {steps:4d} steps   whole {t_whole * 1e3:7.1f} ms   window {t_window * 1e3:7.1f} ms   "
              f"ratio {t_whole / t_window:.1f} x")


def overlay_check(footprints=1000, repeats=50):
    """What the overlay reads on every redraw to know whether to lay a track out again: the track's
    revision (bumped by the depsgraph handler) against a signature of all its footprints."""
    import bpy

    from footprint_locomotion.footprint_addon import scene_io, solved

    coll = scene_io.new_track(bpy.context, "overlay check")
    scene_io.write_track(coll, straight_walk(footprints))
    t_signature = median_seconds(lambda: solved.signature(coll), repeats)
    t_revision = median_seconds(lambda: solved.revision(coll), repeats)
    print(f"Overlay redraw, {footprints} footprints: has the track changed? signature {t_signature * 1e3:.2f} ms, "
          f"revision {t_revision * 1e6:.1f} us, ratio {t_signature / t_revision:.0f} x")
