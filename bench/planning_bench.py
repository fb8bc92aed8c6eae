"""Online planning (issue 20, item 3; Torkos §3.5: footprints planned a few steps ahead while the motion plays):
for each step of a minute's wandering in a room with obstacles, the StepPlanner's next footprint plus a cold
solve of the track of the last footprints (the stretch the new one can change), sampled at 24 fps. Target: at
most one frame's time at 24 fps (41.7 ms) per step. A dog likewise (planning/four_legs): its body's path a stride at
a time, the walk laid along the last WINDOW strides and solved (the two-mass body), per stride (four footprints)."""

import statistics
import time

import numpy as np

LAST = 6  # footprints solved after each new one: the new one, and the steps it follows on from
WINDOW = 2  # a dog's strides laid and solved after each new one (eight footprints)
FPS = 24.0


def box(x, y, width, depth):
    return np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [width / 2, depth / 2] + [x, y]


def room(scale=1.0):
    """The tests' room (6 x 5 m with a table, a screen and a post; 1.5 times as large for a dog)."""
    from footprint_locomotion.solver.planning import wander
    from footprint_locomotion.solver.planning.obstacles import Obstacles

    obstacles = Obstacles(tuple(box(*np.multiply(b, scale)) for b in ((1.0, 0.5, 0.8, 0.8), (-1.5, -1.0, 0.3, 1.5),
                                                                        (-0.5, 1.5, 0.3, 0.3))),
                          ("table", "screen", "post"))
    return wander.Area(box(0.0, 0.0, 6.0 * scale, 5.0 * scale), obstacles)


def report(what, per_step, planning, solving):
    frame = 1.0 / FPS
    print(what)
    print(f"  median {statistics.median(per_step) * 1e3:5.1f} ms (planning {statistics.median(planning) * 1e3:.2f} ms, "
          f"solving {statistics.median(solving) * 1e3:.1f} ms), 95th percentile {np.percentile(per_step, 95) * 1e3:5.1f}"
          f" ms, worst {max(per_step) * 1e3:5.1f} ms; target one frame, {frame * 1e3:.1f} ms: median "
          f"{statistics.median(per_step) / frame:.2f} x")


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
    report(f"Planning a step and solving the last {LAST} footprints, {len(planning)} steps of {seconds:g} s of "
           f"wandering among obstacles ({FPS:g} fps):", np.add(planning, solving), planning, solving)


def run_quadruped(seconds=60.0, seed=0):
    import bpy  # noqa: F401  (as in Blender: its modules first)

    from footprint_locomotion.solver import biped
    from footprint_locomotion.solver.character import GRAVITY, preset
    from footprint_locomotion.solver.planning.four_legs import wander
    from footprint_locomotion.solver.quadruped import gait_track, gaits

    dog = preset("dog")
    h = dog.leg_length_nominal
    speed = (wander.WANDER_FROUDE * GRAVITY * h) ** 0.5
    stride = gaits.stride_length(speed, h)
    planner = wander.BodyPathPlanner(dog, room(1.5), (0.0, -2.3), 0.0)
    rng = np.random.default_rng(seed)
    planning, solving = [], []
    for _ in range(int(speed * seconds / stride)):  # as wander() does, a stride at a time
        start = time.perf_counter()
        planner.next_stride(planner.heading + rng.normal(0.0, wander.WANDER_TURN), stride)
        planned = time.perf_counter()
        path = planner.path()
        along = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(path, axis=0), axis=1))])
        if along[-1] < WINDOW * stride:
            continue
        window = path[along >= along[-1] - WINDOW * stride - 1e-9]
        track = gait_track.gait_track(dog, "walk", speed, (WINDOW - 0.5) * stride, path=window)
        biped.solve(track, dog, fps=FPS)
        solving.append(time.perf_counter() - planned)
        planning.append(planned - start)
    report(f"A dog: planning a stride and laying and solving the last {WINDOW} strides, {len(planning)} strides of "
           f"{seconds:g} s of wandering among obstacles ({FPS:g} fps):", np.add(planning, solving), planning, solving)


if __name__ == "__main__":
    run()
    run_quadruped()
