"""Online planning (issue 20, item 3; Torkos §3.5: footprints planned a few steps ahead while the motion plays):
for each step of a minute's wandering in a room with obstacles, the StepPlanner's next footprint plus a cold
solve of the track of the last footprints (the stretch the new one can change), sampled at 24 fps. Target: at
most one frame's time at 24 fps (41.7 ms) per step."""

import statistics
import time

import numpy as np

LAST = 6  # footprints solved after each new one: the new one, and the steps it follows on from
FPS = 24.0


def room():
    from footprint_locomotion.solver.planning import wander
    from footprint_locomotion.solver.planning.obstacles import Obstacles

    def box(x, y, width, depth):
        return np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, depth / 2] + [x, y]

    obstacles = Obstacles((box(1.0, 0.5, 0.8, 0.8), box(-1.5, -1.0, 0.3, 1.5), box(-0.5, 1.5, 0.3, 0.3)),
                          ("table", "screen", "post"))
    return wander.Area(box(0.0, 0.0, 6.0, 5.0), obstacles)


def run(seconds=60.0, seed=0):
    import bpy  # noqa: F401  (as in Blender: its modules first)

    from footprint_locomotion.solver import biped
    from footprint_locomotion.solver.character import preset
    from footprint_locomotion.solver.planning import wander

    character = preset("human")
    planner = wander.StepPlanner(character, room(), (0.0, -1.8), 0.0)
    rng = np.random.default_rng(seed)
    length = wander.STEP_LENGTH * character.leg_length_nominal
    planning, solving = [], []
    while planner.contact[-1] < seconds:  # as wander() does, a step at a time
        wish = planner.heading + rng.normal(0.0, wander.WANDER_TURN)
        start = time.perf_counter()
        planner.next_footprint(wish, length)
        planned = time.perf_counter()
        track = planner.track()
        biped.solve(track.take(np.arange(max(len(track) - LAST, 0), len(track))), character, fps=FPS)
        solving.append(time.perf_counter() - planned)
        planning.append(planned - start)
    per_step = np.add(planning, solving)
    frame = 1.0 / FPS
    print(f"Planning a step and solving the last {LAST} footprints, {len(per_step)} steps of {seconds:g} s of "
          f"wandering among obstacles ({FPS:g} fps):")
    print(f"  median {statistics.median(per_step) * 1e3:5.1f} ms per step (planning "
          f"{statistics.median(planning) * 1e3:.2f} ms, solving {statistics.median(solving) * 1e3:.1f} ms), "
          f"95th percentile {np.percentile(per_step, 95) * 1e3:5.1f} ms, worst {per_step.max() * 1e3:5.1f} ms; "
          f"target one frame, {frame * 1e3:.1f} ms: median {statistics.median(per_step) / frame:.2f} x")


if __name__ == "__main__":
    run()
