"""Speed of the COM solver against vdP97's greedy descent, scipy's least_squares, length and batch size."""

import dataclasses
import os
import statistics
import time

import numpy as np

from footprint_locomotion.solver import biped, character
from footprint_locomotion.solver.core import optimize
from footprint_locomotion.solver.core.problem import Problem, clear_timing_cache
from footprint_locomotion.solver.footprints import footpath, timing
from footprint_locomotion.solver.track import load_track, make_track

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data")


TOLERANCES = 10.0 ** -np.arange(6, 14)  # LM's stopping gains tried until its energy is at or below scipy's
LOOSE_TOLERANCES = (0.5, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-5, 1e-6)  # ...or the greedy's


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def straight_walk(steps):
    human = character.preset("human")
    pos, head, feet = footpath.footprints_along_path([(0, 0, 0), (0, 0.7 * (steps - 1), 0)], 0.7, 0.2)
    contact, liftoff = timing.timing_for_sequence(pos, "walk", human.time_unit, human.leg_length_nominal)
    return make_track(feet, pos, head, contact, liftoff)


def loosest_reaching(problem, tolerances, energy):
    """The loosest of the LM stopping gains tried (loosest first) that ends at or below `energy`, with its
    result; (None, None) when none does."""
    for tolerance in tolerances:
        result = optimize.levenberg_marquardt(problem, tolerance=tolerance)
        if result.energies[0] <= energy:
            return tolerance, result
    return None, None


def cold_solve(track, character=None):
    """A first solve of a track: nothing derived from its timing is remembered from an earlier run."""
    clear_timing_cache()
    return biped.solve(track, character)


def heel_walker():
    """The human walking heel to toe, as a rig's walking attributes bake it (legs ending at an ankle): knots at
    every lift-off, the heel's support, the straight stance (schedule.knots_at_liftoffs)."""
    return dataclasses.replace(character.preset("human"), heel_strike=np.radians(15.0),
                               ankle_offset=(0.0, -0.05, 0.08), ankle_reach=0.8)


def scipy_least_squares(problem):
    """scipy.optimize.least_squares on the very same residuals, given the same analytic Jacobian."""
    from scipy.optimize import least_squares

    n_free = problem.n_free
    rows = len(problem.times)
    basis, _offset, pair = problem.sample_basis()

    def unpack(x):
        return x.reshape(n_free, 6)

    ends = problem.end_jacobian()

    def fun(x):
        p, a = problem.sample_states(unpack(x))
        return np.concatenate([problem.residuals(p, a).ravel(), problem.end_residuals(unpack(x)).ravel()])

    def jac(x):
        p, a = problem.sample_states(unpack(x))
        _r, dp, da = problem.residuals(p, a, jacobian=True)
        local = np.concatenate([dp, da], axis=2) @ basis  # (S, R, 12)
        dense = np.zeros((rows, local.shape[1], n_free, 6))
        idx = np.arange(rows)
        dense[idx, :, pair[:, 0], :] += local[:, :, :6]
        dense[idx, :, pair[:, 1], :] += local[:, :, 6:]
        return np.vstack([dense.reshape(rows * local.shape[1], n_free * 6), ends])

    result = least_squares(fun, problem.initial_free().ravel(), jac=jac, method="trf", x_scale="jac")
    return float(2.0 * result.cost)


def run(repeats=7):
    fig1 = load_track(os.path.join(DATA, "fig1.json"))
    problem = Problem([(fig1,) + biped.resolve(fig1)])
    lm = optimize.levenberg_marquardt(problem)
    greedy = optimize.greedy_descent(problem)
    t_lm = median_seconds(lambda: optimize.levenberg_marquardt(problem), repeats)
    t_greedy = median_seconds(lambda: optimize.greedy_descent(problem), max(1, repeats // 3))
    print("Fig. 1 track (12 footprints), optimiser only, same problem and start (vdP97 §2.4.3):")
    print(f"  Levenberg-Marquardt  {t_lm * 1e3:8.2f} ms  energy {lm.energies[0]:.4f}  ({lm.iterations} iterations)")
    print(f"  greedy (vdP97 Fig10) {t_greedy * 1e3:8.2f} ms  energy {greedy.energies[0]:.4f}  ({greedy.evaluations} evaluations)")
    print(f"  ratio greedy / LM    {t_greedy / t_lm:8.1f} x   (energy LM <= greedy: {lm.energies[0] <= greedy.energies[0]})")
    # Secondary, as against scipy below: LM with the loosest stopping gain that ends at or below the
    # greedy's final energy.
    loose, reach = loosest_reaching(problem, LOOSE_TOLERANCES, greedy.energies[0])
    if reach is None:
        print("  LM to the greedy's energy: not reached at any stopping gain tried")
    else:
        t_reach = median_seconds(lambda: optimize.levenberg_marquardt(problem, tolerance=loose), repeats)
        print(f"  LM to the greedy's energy {t_reach * 1e3:6.2f} ms  energy {reach.energies[0]:.4f}  ({reach.iterations} "
              f"iterations to a gain under {loose:g}): greedy / that {t_greedy / t_reach:.1f} x")
    try:
        energy_scipy = scipy_least_squares(problem)
    except ImportError:
        energy_scipy = None
        print("  scipy not installed: pip install -r requirements/bench.txt")
    if energy_scipy is not None:
        t_scipy = median_seconds(lambda: scipy_least_squares(problem), max(1, repeats // 2))
        print(f"  scipy least_squares  {t_scipy * 1e3:8.2f} ms  energy {energy_scipy:.7f}")
        # scipy stops at its default 1e-8 relative change, LM at a 1e-6 relative gain: for "at equal or
        # lower energy" LM runs on here with the loosest stopping gain that takes it to scipy's energy.
        tolerance, tight = loosest_reaching(problem, TOLERANCES, energy_scipy)
        if tight is None:
            print("  LM to scipy's energy: not reached at any stopping gain tried")
        else:
            t_tight = median_seconds(lambda: optimize.levenberg_marquardt(problem, tolerance=tolerance), repeats)
            gap = (tight.energies[0] - energy_scipy) / energy_scipy
            print(f"  LM to scipy's energy {t_tight * 1e3:8.2f} ms  energy {tight.energies[0]:.7f}  ({tight.iterations} "
                  f"iterations to a gain under {tolerance:.0e}, {gap:+.1e} relative to scipy's)")
            print(f"  ratio scipy / LM     {t_scipy / t_tight:8.1f} x   (energy LM <= scipy: {tight.energies[0] <= energy_scipy})")
    t_solve = median_seconds(lambda: cold_solve(fig1), repeats)
    print(f"  whole solve, cold (schedule, optimise, sample at 60 fps, report): {t_solve * 1e3:.2f} ms")

    short, long_ = straight_walk(100), straight_walk(1000)
    t_short = median_seconds(lambda: cold_solve(short), repeats)
    t_long = median_seconds(lambda: cold_solve(long_), max(1, repeats // 2))
    print("Track length (whole solve, cold: nothing cached from an earlier solve):")
    print(f"  100 steps {t_short * 1e3:8.1f} ms   1000 steps {t_long * 1e3:8.1f} ms   ratio {t_long / t_short:.1f} x")
    walker = heel_walker()
    t_heel = median_seconds(lambda: cold_solve(fig1, walker), repeats)
    t_heel_long = median_seconds(lambda: cold_solve(long_, walker), max(1, repeats // 2))
    print("Walking heel to toe (a rig's bake: knots at every lift-off), against the same tracks flat-footed:")
    print(f"  Fig. 1 {t_heel * 1e3:8.1f} ms  ratio {t_heel / t_solve:.2f} x   1000 steps {t_heel_long * 1e3:8.1f} ms  "
          f"ratio {t_heel_long / t_long:.2f} x")

    # 256 different tracks (each retimed a little), so nothing derived from one track's timing is reused.
    batch = [fig1.replace(contact=fig1.contact * (1 + 0.001 * i), liftoff=fig1.liftoff * (1 + 0.001 * i))
             for i in range(256)]
    t_batch = median_seconds(lambda: biped.solve_batch(batch), max(1, repeats // 3))
    t_singles = median_seconds(lambda: [biped.solve(t) for t in batch], max(1, repeats // 3))
    print("256 independent Fig. 1 tracks, each retimed:")
    print(f"  one call (16 optimisations of 16) {t_batch * 1e3:8.1f} ms   256 single solves {t_singles * 1e3:8.1f} ms   "
          f"ratio {t_singles / t_batch:.1f} x")
