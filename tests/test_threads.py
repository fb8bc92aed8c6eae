"""The solver runs on one BLAS thread wherever it runs, here in a process that imported bpy, as Blender and
every command line call do; the threads numpy had before are back after the solve (solver/core/threads.py)."""

import importlib

from threadpoolctl import threadpool_limits

from conftest import FIG1


def test_a_solve_runs_on_one_blas_thread_and_puts_the_threads_back(addon, monkeypatch):
    biped = importlib.import_module(addon + ".solver.biped")
    threads = importlib.import_module(addon + ".solver.core.threads")
    track = importlib.import_module(addon + ".solver.track").load_track(FIG1)
    seen = []
    optimise = biped.METHODS["lm"]

    def watched(problem, *args, **kwargs):  # what threadpoolctl reports while the optimiser runs
        seen.append(threads.blas_threads())
        return optimise(problem, *args, **kwargs)

    monkeypatch.setitem(biped.METHODS, "lm", watched)
    with threadpool_limits(limits=4, user_api="blas"):  # more than one, whatever this machine's cores
        before = threads.blas_threads()
        assert before and all(count == 4 for _library, count in before)
        motion = biped.solve(track)
        assert threads.blas_threads() == before
    assert seen and all(count == 1 for _library, count in seen[0]), seen
    assert len(motion.times) > 400 and motion.report["optimizer"]["converged"]
