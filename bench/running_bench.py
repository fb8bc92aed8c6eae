"""RUNNER's speed: one running step's parameters and state constraints, and a sampled stride
(the paper ran at 30 fps on a 1996 workstation; the target is at most 1 ms per step)."""

from footprint_locomotion.solver import character
from footprint_locomotion.solver.running import cycle, parameters, pelvis

from .solver_bench import median_seconds as per_call


def run():
    legs = pelvis.LegGeometry.for_height(1.8)
    human = character.preset("human")

    def one_step():
        params = parameters.natural(12.0)
        return pelvis.step(params, legs)

    params = parameters.natural(12.0)
    t_step = per_call(one_step, 200)
    t_stride = per_call(lambda: cycle.running_cycle(params, human, legs, 30.0), 50)
    print("RUNNER (B&C 1996):")
    print(f"  one step's parameters and state constraints   {t_step * 1e3:7.3f} ms")
    print(f"  one step sampled for a rig at 30 fps (stride/2) {t_stride * 1e3 / 2:7.3f} ms")
