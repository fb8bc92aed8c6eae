"""`batch --jobs N`: N worker processes (each a Blender, or Python with the bpy module), each baking job after
job from a shared queue, so a process starts once, not once per job (0.76 s for Python and bpy here).

Jobs are independent: a worker that fails, crashes or is killed fails its own job only, and its output is
never written (a bake writes through files.replace_file, whole or not at all). The parent prints each job's
line in job order as soon as it and the jobs before it are done, so the summary and exit status read as
a serial run's (docs/reliability.md).
"""

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import Future
from queue import Empty, Queue
from threading import Thread

import bpy

from . import files

RESULT_PREFIX = "footprint-result: "  # the lines of a worker's stdout the parent reads, one per job


def default_jobs() -> int:
    """Workers when --jobs is not given: the cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def command_line() -> list:
    """How to start the command line in a new process: this Blender in the background, or, for Blender as
    a Python module, this Python with the package this module belongs to."""
    if bpy.app.binary_path:  # empty for the module
        return [bpy.app.binary_path, "--background", "--command", "footprint"]
    package = __package__.rpartition(".")[0]  # this extension's top package, however it was installed
    return [sys.executable, "-m", package]


def job_line(job, overwrite, measure) -> str:
    """What the parent sends a worker for one job: one line of JSON on its stdin."""
    return json.dumps({"file": job.file, "track": job.track, "rig": job.rig, "output": job.output,
                       "overwrite": overwrite, "measure": measure}) + "\n"


def result_line(ok, text) -> str:
    """What a worker prints when a job is done: whether it was baked, and its summary or error."""
    return RESULT_PREFIX + json.dumps({"ok": ok, "text": text})


def serve(stdin, stdout, bake):
    """The worker's loop: a job per line of stdin, bake(job dict) -> (ok, text), a result line per job, until
    stdin ends."""
    for line in stdin:
        if line.strip():
            ok, text = bake(json.loads(line))
            print(result_line(ok, text), file=stdout, flush=True)


def _parse_result(line):
    try:
        result = json.loads(line[len(RESULT_PREFIX):])
        return bool(result["ok"]), str(result["text"])
    except (ValueError, KeyError, TypeError):
        return False, f"the worker's result was garbled: {line[:200]!r}"


def _death(returncode):
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return False, f"the worker was killed ({name}) before it finished; nothing was written"
    return False, f"the worker ended (exit status {returncode}) before it finished; nothing was written"


class _Worker:
    """One worker process, started on demand and again after it dies."""

    def __init__(self, command):
        self.command = command
        self.proc = None

    def bake(self, line):
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, errors="replace", bufsize=1)
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # it died: its stdout ends at once, below
        for output in self.proc.stdout:  # Blender's own messages, then the result
            if output.startswith(RESULT_PREFIX):
                return _parse_result(output)
        self.proc.wait()
        return _death(self.proc.returncode)

    def close(self, kill=False):
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            try:
                self.proc.stdin.close()  # the worker's loop ends with its stdin
            except OSError:
                pass  # it had died already
        self.proc.wait()


def run(jobs, workers, overwrite, measure, on_result):
    """Bake the runnable jobs with `workers` worker processes, each baking job after job (a process starts
    once, not per job); on_result(job, ok, text) is called in job order, a job with a problem in its place."""
    results = {job.number: Future() for job in jobs}
    queue = Queue()
    for job in jobs:
        if job.problem:
            results[job.number].set_result((False, job.problem))
        else:
            queue.put(job)
    pool = [_Worker(command_line() + ["batch-worker"]) for _ in range(workers)]

    def drain(worker):
        while True:
            try:
                job = queue.get_nowait()
            except Empty:
                return
            try:
                result = worker.bake(job_line(job, overwrite, measure))
            except Exception as exc:  # no worker could start (a missing executable): the job fails, no hang
                result = (False, f"could not run a worker ({type(exc).__name__}: {exc})")
            results[job.number].set_result(result)

    threads = [Thread(target=drain, args=(worker,), daemon=True) for worker in pool]
    for thread in threads:
        thread.start()
    finished = False
    try:
        for job in jobs:
            on_result(job, *results[job.number].result())
        finished = True
    finally:
        for worker in pool:  # done: let them end; interrupted: no worker outlives the batch
            worker.close(kill=not finished)
        for folder in {os.path.dirname(job.output) for job in jobs if job.output}:
            files.remove_stale_temporaries(folder, again=True)  # a killed worker's half-written temporary
