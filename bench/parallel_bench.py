"""Where the product really runs (issue 17), as ratios in one run: the solver beside a busy core, its thread
limit's cost at 1, 16 and 256 tracks, the first solve of a fresh command line, and batch --jobs 2 against
--jobs 1. Processes are started as users start them: bpy imported, the default environment."""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data")
FIG1 = os.path.join(DATA, "fig1.json")

SOLVES = """
import statistics, time
if {bpy}:
    import bpy
from footprint_locomotion.solver import biped
from footprint_locomotion.solver.track import load_track
track = load_track({fig1!r})
biped.solve(track)
times = []
for _ in range({repeats}):
    start = time.perf_counter()
    biped.solve(track)
    times.append(time.perf_counter() - start)
print(statistics.median(times))
"""


@contextmanager
def busy_core():
    """Another process keeping one core busy, as a render or another Blender would."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        yield
    finally:
        spinner.kill()
        spinner.wait()


def median_solve(bpy, repeats=15):
    """Fig. 1's median solve time in a fresh process with the default environment."""
    code = SOLVES.format(bpy=bpy, fig1=FIG1, repeats=repeats)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout.split()[-1])


def beside_a_busy_core(rounds=3):
    """Fig. 1 solved with bpy imported, as the product runs, and in a clean process without bpy, interleaved,
    both beside one busy core, no thread variable set anywhere. The solver holds itself to one BLAS thread in
    both (solver/core/threads.py); limit_cost measures what that limit saves."""
    product, baseline = [], []
    with busy_core():
        for _ in range(rounds):
            product.append(median_solve(True))
            baseline.append(median_solve(False))
    ratio = [p / b for p, b in zip(product, baseline)]
    print(f"Fig. 1 beside a busy core: bpy imported {_ms(product)} / clean process without bpy {_ms(baseline)}: "
          f"{min(ratio):.2f}-{max(ratio):.2f} x")


def limit_cost(counts=(1, 16, 256)):
    """solve_batch of n tracks with the one-thread limit and without it (numpy's default threads), on an
    idle machine and beside a busy core: what the limit costs or saves."""
    import bpy  # noqa: F401  (as in Blender)

    from footprint_locomotion.solver import biped

    from .solver_bench import straight_walk

    tracks = [straight_walk(8 + i % 5) for i in range(max(counts))]
    limited = biped._solve_group
    unlimited = limited.__wrapped__

    def seconds(group, n):
        biped._solve_group = group
        try:
            start = time.perf_counter()
            biped.solve_batch(tracks[:n])
            return time.perf_counter() - start
        finally:
            biped._solve_group = limited

    for label, load in (("idle", nullcontext), ("beside a busy core", busy_core)):
        with load():
            for n in counts:
                pairs = [(seconds(limited, n), seconds(unlimited, n)) for _ in range(3)]
                with_limit, without = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
                print(f"solve_batch of {n} tracks, {label}: default threads {without * 1e3:.1f} ms / one thread "
                      f"{with_limit * 1e3:.1f} ms = {without / with_limit:.2f} x")


def cold_start(rounds=5):
    """The solver's time for Fig. 1 in a fresh command line process (`solve` prints it on stderr) against a
    warm solve in a process that has solved it before."""
    firsts = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            proc = subprocess.run([sys.executable, "-m", "footprint_locomotion", "solve", FIG1, "--output",
                                   os.path.join(folder, "m.json")], capture_output=True, text=True, check=True)
            firsts.append(float(re.search(r"([\d.]+) ms in the solver", proc.stderr)[1]) / 1e3)
    warm = median_solve(True)
    print(f"first solve in a fresh CLI process {_ms(firsts)} / warm solve {warm * 1e3:.1f} ms: "
          f"{min(firsts) / warm:.2f}-{max(firsts) / warm:.2f} x")


def batch_speedup(jobs=8, steps=60, measure=True):
    """`batch --jobs 2` against `--jobs 1` (wall time of the whole command) on `jobs` bakes of a
    `steps`-step walk onto the Rigify human, with --measure (the rig evaluated frame by frame) or without."""
    with tempfile.TemporaryDirectory() as folder:
        scene = os.path.join(folder, "walk.blend")
        subprocess.run([sys.executable, "-m", "bench.scenes", "walk", scene, str(steps)], check=True,
                       capture_output=True)
        job_list = os.path.join(folder, "jobs.json")
        with open(job_list, "w", encoding="utf-8") as fh:
            json.dump([{"file": scene, "track": "walk", "rig": "rig", "output": f"shot{n}.blend"}
                       for n in range(jobs)], fh)
        wall = {}
        for workers in (1, 2, 1, 2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "footprint_locomotion", "batch", job_list, "--output-dir",
                            os.path.join(folder, f"out{workers}"), "--jobs", str(workers)]
                           + (["--measure"] if measure else []), check=True, capture_output=True)
            wall.setdefault(workers, []).append(time.perf_counter() - start)
            with os.scandir(os.path.join(folder, f"out{workers}")) as entries:
                for entry in entries:
                    os.unlink(entry.path)
        one, two = min(wall[1]), min(wall[2])
        what = "with --measure" if measure else "bake only"
        print(f"batch of {jobs} bakes ({steps}-step walk, {what}): --jobs 1 {one:.1f} s / --jobs 2 {two:.1f} s "
              f"= {one / two:.2f} x")


SPIN = "x = 0\nfor i in range(20_000_000):\n    x += i\n"


def machine_ceiling():
    """What two cores give here: two CPU-bound processes at once against one after another (2.0 x on two
    real cores; less where the cores are hyperthreads of one or the machine's share is capped)."""
    def wall(count):
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - start

    one = min(wall(1) for _ in range(2))
    two = min(wall(2) for _ in range(2))
    print(f"this machine's parallel ceiling: two CPU-bound processes at once {two:.2f} s, one {one:.2f} s: "
          f"{2 * one / two:.2f} x the work per second (os.cpu_count() = {os.cpu_count()})")


def _ms(seconds):
    return f"{min(seconds) * 1e3:.1f}-{max(seconds) * 1e3:.1f} ms"


def run():
    beside_a_busy_core()
    limit_cost()
    cold_start()
    machine_ceiling()
    batch_speedup(measure=False)
    batch_speedup(measure=True)
    batch_speedup(steps=400, measure=False)


if __name__ == "__main__":
    run()
