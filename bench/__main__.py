"""./dev bench [--quick]: every benchmark, printed as ratios against baselines measured in the same run."""

import argparse
import sys

from . import (bake_bench, live_bench, parallel_bench, planning_bench, quadruped_bench, running_bench, solver_bench,
               stepping_bench)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="bench")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    solver_bench.run(repeats=3 if args.quick else 7)
    running_bench.run()
    live_bench.run()
    live_bench.windowed()
    live_bench.overlay_check()
    bake_bench.run()
    parallel_bench.run()
    quadruped_bench.run()
    planning_bench.run()
    stepping_bench.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
