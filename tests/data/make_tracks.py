"""Writes the scenario tracks of tests/data (run: ./dev python tests/data/make_tracks.py).

Each scenario is built from the solver's own path and timing functions, then saved as a track file so
the tests, benchmarks and CLI read exactly the same input.
"""

import math
import os

import numpy as np

from footprint_locomotion.solver.character import preset
from footprint_locomotion.solver.footprints import footpath, timing
from footprint_locomotion.solver.footprints.examples import fig1_track
from footprint_locomotion.solver.track import dumps, make_track, track_to_json

HERE = os.path.dirname(os.path.abspath(__file__))
HUMAN = preset("human")


def save(name, track, terrain=None, note=""):
    doc = track_to_json(track)
    if terrain is not None:
        doc["terrain"] = terrain
    if note:
        doc = {"note": note, **doc}
    with open(os.path.join(HERE, f"{name}.json"), "w") as fh:
        fh.write(dumps(doc))


def along(points, step, width, gait="walk", character=HUMAN, start_foot="L", start=0.0):
    pos, head, feet = footpath.footprints_along_path(points, step, width, start_foot, together=gait == "hop")
    contact, liftoff = timing.timing_for_sequence(pos, gait, character.time_unit, character.leg_length_nominal,
                                                  start, group_size=2 if gait == "hop" else 1)
    return make_track(feet, pos, head, contact, liftoff, character=character.name)


def heightfield(fn, x0, x1, y0, y1, spacing):
    xs = np.arange(x0, x1 + 1e-9, spacing)
    ys = np.arange(y0, y1 + 1e-9, spacing)
    gx, gy = np.meshgrid(xs, ys)
    return {"heightfield": {"origin": [x0, y0], "spacing": spacing, "heights": np.round(fn(gx, gy), 5).tolist()}}


def stairs_height(x, y):
    """Up 6 steps of 0.15 m (0.3 m treads) from y = 1, a 1 m landing, down 6 steps."""
    up = np.clip(np.floor((y - 1.0) / 0.3) + 1, 0, 6)
    down = np.clip(np.floor((y - 3.8) / 0.3) + 1, 0, 6)
    return 0.15 * (up - down)


def main():
    save("fig1", fig1_track(), note="vdP97 Fig. 1 sequence, lengthened to 12 footprints")
    save("straight_walk", along([(0, 0, 0), (0, 6, 0)], 0.7, 0.2))
    arc = [(3 - 3 * math.cos(a), 3 * math.sin(a), 0.0) for a in np.linspace(0, math.pi / 2, 60)]
    save("turn90", along([(0, -1.4, 0), (0, 0, 0)] + arc[1:], 0.6, 0.2), note="a 90 degree walking turn")
    # Stairs: footprints on the treads (one per tread), heights from the terrain. Going up, each sits a
    # little back on its tread so that the toe stays clear of the next riser, which the heightfield's
    # bilinear interpolation turns into a 5 cm ramp.
    ys = [0.0, 0.5, 1.11, 1.41, 1.71, 2.01, 2.31, 2.61, 3.1, 3.5, 3.95, 4.25, 4.55, 4.85, 5.15, 5.45, 5.95, 6.45]
    pos = np.array([(0.1 * (-1) ** (i + 1), y, 0.0) for i, y in enumerate(ys)])
    pos[:, 2] = stairs_height(pos[:, 0], pos[:, 1])
    c, l = timing.timing_for_sequence(pos, "walk", HUMAN.time_unit * 1.15, HUMAN.leg_length_nominal)
    feet = ["L", "R"] * (len(ys) // 2)
    save("stairs", make_track(feet, pos, np.zeros(len(ys)), c, l),
         terrain=heightfield(stairs_height, -1.0, 1.0, -1.0, 7.5, 0.05), note="stairs up and down")
    leap = np.array([(-0.1, 0, 0), (0.1, 0.6, 0), (-0.1, 1.25, 0), (0.1, 2.95, 0), (-0.1, 3.6, 0),
                     (0.1, 4.2, 0)])
    c, l = timing.timing_for_sequence(leap, "walk", HUMAN.time_unit, HUMAN.leg_length_nominal)
    save("leap", make_track(["L", "R"] * 3, leap, np.zeros(6), c, l), note="a leap with a long flight")

    def bumps(x, y):
        return 0.06 * np.sin(1.7 * y) * np.cos(1.3 * x) + 0.04 * np.sin(0.9 * y + 0.5)

    run = along([(0, 0, 0), (0, 12, 0)], 1.3, 0.16, gait="run")
    run_pos = run.positions.copy()
    run_pos[:, 2] = bumps(run_pos[:, 0], run_pos[:, 1])
    save("bumpy_run", run.replace(positions=run_pos), terrain=heightfield(bumps, -1.0, 1.0, -1.0, 13.0, 0.1),
         note="a run over bumpy terrain")
    slope = math.tan(math.radians(15.0))
    walk = along([(0, 0, 0), (0, 6, 0)], 0.6, 0.2)
    sp = walk.positions.copy()
    sp[:, 2] = slope * sp[:, 1]
    save("slope15", walk.replace(positions=sp), terrain={"heightfield": {
        "origin": [-2.0, -2.0], "spacing": 0.25,
        "heights": (slope * np.tile(np.arange(-2.0, 8.01, 0.25)[:, None], (1, 17))).round(6).tolist()}},
        note="a walk up a 15 degree slope")
    for name in ("bird", "dinosaur"):
        ch = preset(name)
        t = along([(0, 0, 0), (0, 12 * 0.8 * ch.leg_length_nominal, 0)], 0.8 * ch.leg_length_nominal,
                  0.4 * ch.leg_length_nominal, character=ch)
        save(f"{name}_walk", t, note=f"a {name} walking")


if __name__ == "__main__":
    main()
