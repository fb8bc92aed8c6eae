"""The solver's BLAS threads: one, wherever it runs (Blender, the command line, tests, benches).

The solver's matrices are small (6 x 6 blocks, a few hundred rows), so OpenBLAS's threads buy nothing on an
idle machine and cost ten times the solve on a busy one: its threads spin waiting for cores that a render,
another Blender or a farm's other workers hold (Fig. 1: 14.7-15.6 ms limited, 128-137 ms with the default
two threads beside one busy process; bench/parallel_bench.py's limit_cost). threadpoolctl sets the limit for the length
of a solve and puts it back after, so Blender's and other add-ons' numpy keep their own; entering and
leaving the limit costs about 10 us. The extension bundles its wheel (blender_manifest.toml).
"""

from contextlib import contextmanager

_controller = None


@contextmanager
def single_blas_thread():
    """Run the block with every BLAS library numpy loaded limited to one thread."""
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController  # inspects the loaded libraries: on first use only

        _controller = ThreadpoolController()
    with _controller.limit(limits=1, user_api="blas"):
        yield


def blas_threads() -> list:
    """(library, threads) of each BLAS library loaded now, as threadpoolctl reports them."""
    from threadpoolctl import threadpool_info

    return [(info["internal_api"], info["num_threads"]) for info in threadpool_info() if info["user_api"] == "blas"]
