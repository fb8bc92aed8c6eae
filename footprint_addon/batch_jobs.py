"""A batch's job list, checked whole before any job runs: every field's type, every input's existence,
every output inside --output-dir, no two jobs writing one file, no job writing another's input.

A job that fails a check is not run and gets its own FAILED line; the others run (docs/reliability.md).
Paths in a job list are taken relative to the job list's folder (a farm runs it from anywhere), outputs
relative to --output-dir when it is given.
"""

import os
import re
from dataclasses import dataclass

from ..solver import json_input

JOB_FIELDS = {"file", "track", "rig", "output"}
MAX_JOBS = 100_000
_UNSAFE = re.compile(r"[^\w.+-]")  # what may not go into a file name made from a track's name


class JobListError(Exception):
    """A job list that cannot be read at all; nothing runs."""


@dataclass
class Job:
    number: int  # 1-based, as the summary shows it
    file: str  # the input .blend (absolute), or the raw value when it is not usable
    track: str
    rig: str
    output: str  # absolute, or "" when it cannot be worked out
    problem: str = ""  # why the job cannot run, empty when it can

    @property
    def label(self):
        return f"{self.file} {self.track} -> {self.rig}"


def load_jobs(path, output_dir=None, overwrite=False):
    """The jobs of a job list, each checked (Job.problem), the whole list checked for collisions; the
    output folder is created once the list reads."""
    doc = _read(path)
    if output_dir:
        make_output_dir(output_dir)
    base = os.path.dirname(os.path.abspath(path))
    jobs = [_job(number, entry, base, output_dir) for number, entry in enumerate(doc, start=1)]
    _refuse_collisions(jobs, overwrite)
    return jobs


def select(jobs, only):
    """The jobs to run: all, or job number `only` (checked against the whole list, so its collisions with
    the others still count)."""
    if only is None:
        return jobs
    if not 1 <= only <= len(jobs):
        raise JobListError(f"--only {only}: the job list has {len(jobs)} jobs")
    return [jobs[only - 1]]


def _read(path):
    try:
        doc = json_input.load(path, what="job list")
    except json_input.JsonInputError as exc:
        raise JobListError(str(exc)) from None
    if not isinstance(doc, list):
        raise JobListError(f'{path}: expected a list of {{"file", "track", "rig"[, "output"]}} objects')
    if len(doc) > MAX_JOBS:
        raise JobListError(f"{path}: {len(doc)} jobs is more than the limit of {MAX_JOBS}")
    return doc


def _job(number, entry, base, output_dir):
    if not isinstance(entry, dict):
        return Job(number, "?", "?", "?", "", f"a job must be an object, not {type(entry).__name__}")
    shown = {key: entry.get(key) if isinstance(entry.get(key), str) else "?" for key in ("file", "track", "rig")}
    job = Job(number, shown["file"], shown["track"], shown["rig"], "")
    unknown = sorted(set(entry) - JOB_FIELDS)
    wrong = [key for key in ("file", "track", "rig") if not isinstance(entry.get(key), str) or not entry[key]]
    if unknown:
        job.problem = f"unknown field {unknown[0]!r} (a job has {', '.join(sorted(JOB_FIELDS))})"
    elif wrong:
        job.problem = f'"{wrong[0]}" must be a non-empty string, not {_shown(entry.get(wrong[0]))}'
    elif "output" in entry and (not isinstance(entry["output"], str) or not entry["output"]):
        job.problem = f'"output" must be a non-empty string, not {_shown(entry["output"])}'
    if job.problem:
        return job
    job.file = os.path.join(base, entry["file"])
    if not os.path.isfile(job.file):
        job.problem = f"{job.file}: no such .blend file"
        return job
    job.output, job.problem = _output(entry, job.file, base, output_dir)
    return job


def _shown(value):
    return "nothing" if value is None else repr(value)[:40]


def _output(entry, input_file, base, output_dir):
    """(absolute output, problem): the job's "output", else <input name>.<track>.baked.blend, in
    output_dir (which it may not leave) or, without one, beside the job list (an "output") or its input."""
    if "output" in entry:
        name = entry["output"]
        folder = output_dir or base
        if output_dir and os.path.isabs(name):
            return "", f'"output" {name!r} is absolute: with --output-dir it must be a path inside it'
    else:
        stem = os.path.splitext(os.path.basename(input_file))[0]
        name = f"{stem}.{_UNSAFE.sub('_', entry['track']).lstrip('.')}.baked.blend"
        folder = output_dir or os.path.dirname(input_file)
    output = os.path.join(os.path.abspath(folder), name)
    if output_dir and not _inside(output, output_dir):
        return "", f'"output" {name!r} leaves --output-dir {output_dir}'
    if not output.endswith(".blend"):
        return "", f"{output}: the output must be a .blend file"
    return output, ""


def _inside(path, folder):
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([real, root]) == root and real != root


def _identity(path):
    """What makes two paths one file: device and inode where it exists, else its resolved path."""
    try:
        st = os.stat(path)
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


def _refuse_collisions(jobs, overwrite):
    """Fail every job whose output another job also writes, or that is another job's input (or its own,
    unless overwrite)."""
    runnable = [job for job in jobs if not job.problem]
    writers, readers = {}, {}
    for job in runnable:
        writers.setdefault(_identity(job.output), []).append(job.number)
        readers.setdefault(_identity(job.file), []).append(job.number)
    for job in runnable:
        key = _identity(job.output)
        others = [n for n in writers[key] if n != job.number]
        read_by = [n for n in readers.get(key, []) if n != job.number or not overwrite]
        if others:
            job.problem = f"{job.output}: also the output of job {', '.join(map(str, others))}; give each an \"output\""
        elif read_by:
            whose = "its own input (pass --overwrite to replace it)" if read_by == [job.number] else \
                f"the input of job {', '.join(map(str, read_by))}"
            job.problem = f"{job.output}: is {whose}"


def make_output_dir(path):
    """Create the batch's output folder with its parents, before any job runs (a folder that is missing is
    the usual case for a fresh batch, not an error)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise JobListError(f"--output-dir {path}: is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise JobListError(f"--output-dir {path}: cannot create the folder: {exc.strerror or exc}") from None
