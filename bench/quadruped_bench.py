"""Quadruped solves (issue 18's speed targets), as ratios in one run: a 12-stride trot against a biped walk
of as many footprints, and a 1000-footprint trot against a 100-footprint one (each solve cold: nothing
remembered of the track's timing)."""

import statistics
import time

from footprint_locomotion.solver import biped
from footprint_locomotion.solver.character import preset
from footprint_locomotion.solver.core.problem import clear_timing_cache
from footprint_locomotion.solver.quadruped import gaits
from footprint_locomotion.solver.quadruped.gait_track import gait_track

from .solver_bench import straight_walk


def cold_seconds(tracks, repeats):
    """The median cold solve time of each track, their runs interleaved (on a shared machine a slow spell
    then slows both sides of a ratio alike)."""
    times = [[] for _ in tracks]
    for _ in range(repeats):
        for track, measured in zip(tracks, times):
            clear_timing_cache()
            start = time.perf_counter()
            biped.solve(track)
            measured.append(time.perf_counter() - start)
    return [statistics.median(measured) for measured in times]


def run(repeats=7):
    import bpy  # noqa: F401  (as in Blender and every command line call)

    dog = preset("dog")
    stride = gaits.stride_of(gaits.GAITS["trot"], 2.0, dog)

    def trot(strides):
        return gait_track(dog, "trot", 2.0, strides * stride - 1e-6)

    twelve = trot(12)
    walk = straight_walk(len(twelve))
    a, b = cold_seconds([twelve, walk], repeats)
    print(f"12-stride dog trot ({len(twelve)} footprints) {a * 1e3:.1f} ms / biped walk of {len(walk)} footprints "
          f"{b * 1e3:.1f} ms = {a / b:.2f} x")
    small, large = trot(25), trot(250)
    a, b = cold_seconds([large, small], 3)
    print(f"trot of {len(large)} footprints {a:.2f} s / of {len(small)} footprints {b * 1e3:.0f} ms = {a / b:.1f} x")


if __name__ == "__main__":
    run()
