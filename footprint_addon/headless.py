"""Headless baking: one scene, or a batch of (file, track, rig) jobs. Inputs are never overwritten unless
asked, outputs are written whole or not at all, and every job reports its own status."""

import json
import os

import bpy

from ..solver.errors import FootprintError
from ..solver.motion import report_warnings
from . import bake, rig_quality
from .rigs import MissingBonesError
from .scene_io import NoTerrainError

JOB_ERRORS = (FootprintError, NoTerrainError, MissingBonesError, bake.BakeError, OSError, RuntimeError,
              KeyError)


class JobError(Exception):
    """A job that cannot run as given (file, track, rig or output); the message names it."""


def open_scene(path):
    if not os.path.isfile(path):
        raise JobError(f"{path}: no such .blend file")
    bpy.ops.wm.open_mainfile(filepath=os.path.abspath(path), load_ui=False)


def check_output(output, inputs, overwrite):
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):
        raise JobError(f"{output}: the folder {folder} does not exist")
    if not output.endswith(".blend"):
        raise JobError(f"{output}: the output must be a .blend file")
    if not overwrite and any(os.path.abspath(output) == os.path.abspath(i) for i in inputs if i):
        raise JobError(f"{output}: would overwrite the input file (pass --overwrite to allow it)")


def bake_current(track_name, rig_name, measure=False):
    """Bake a track of the open file onto a rig; returns the motion's quality report and, when asked to
    measure, the foot skate measured on the evaluated rig (else None), which is also kept on the track."""
    coll = bpy.data.collections.get(track_name)
    if coll is None or not coll.footprint_track.is_track:
        tracks = [c.name for c in bpy.data.collections if c.footprint_track.is_track]
        raise JobError(f"no footprint track {track_name!r} in this file (tracks: {', '.join(tracks) or 'none'})")
    rig = bpy.data.objects.get(rig_name)
    if rig is None or rig.type != "ARMATURE":
        rigs = [o.name for o in bpy.data.objects if o.type == "ARMATURE"]
        raise JobError(f"no armature {rig_name!r} in this file (armatures: {', '.join(rigs) or 'none'})")
    bpy.context.scene.footprint.active_track = coll
    _strip, motion = bake.bake(bpy.context, coll, rig)  # (the scene's frame range extended to it)
    return motion.report, rig_quality.measure_track(bpy.context, coll, rig, motion) if measure else None


def save_copy(output):
    """Save the open file to output, via a temporary file so a failure leaves no partial .blend."""
    tmp = output + ".part.blend"
    try:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(tmp), copy=True, check_existing=False)
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def run_job(scene, track, rig, output, overwrite=False, measure=False):
    """Bake (and optionally measure) one job and save the result; returns bake_current's reports."""
    check_output(output, [scene, bpy.data.filepath], overwrite)
    if scene:
        open_scene(scene)
    reports = bake_current(track, rig, measure)
    save_copy(output)
    return reports


def summary(report, rig_report):
    """One line: the solver's non-physical force and, when measured, on the rig: the skate, how straight
    the legs get and how deep the feet sink."""
    text = f"non-physical force mean {report['non_physical_force']['mean']:.3f} body weight"
    for warning in report_warnings(report):
        text += f"; {warning[0].lower()}{warning[1:]}"
    if rig_report is not None:
        skate = ", ".join(f"{foot} {value * 1000:.2f} mm" for foot, value in rig_report["ball_skate"].items())
        text += (f"; ball skate on the rig {skate}; legs at most {max(rig_report['leg_extension'].values()):.1%} "
                 f"straight; feet at most {max(rig_report['below_ground'].values()) * 1000:.1f} mm below ground")
    return text


def load_jobs(path):
    try:
        with open(path, encoding="utf-8") as fh:
            jobs = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise JobError(f"{path}: cannot read the job list: {exc}") from None
    if not isinstance(jobs, list) or not all(isinstance(j, dict) and {"file", "track", "rig"} <= set(j) for j in jobs):
        raise JobError(f'{path}: expected a list of {{"file", "track", "rig"[, "output"]}} objects')
    return jobs


def make_output_dir(path):
    """Create the batch's output folder with its parents, before any job runs (a folder that is missing is
    the usual case for a fresh batch, not an error)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise JobError(f"--output-dir {path}: is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise JobError(f"--output-dir {path}: cannot create the folder: {exc.strerror or exc}") from None


def job_output(job, output_dir, jobs_path):
    """Where a job's result goes: its "output" (a relative one inside output_dir, else beside the job list,
    never the current directory), else <input name>.<track>.baked.blend in output_dir or beside its input."""
    if job.get("output"):
        return os.path.join(output_dir or os.path.dirname(os.path.abspath(jobs_path)), job["output"])
    stem = os.path.splitext(os.path.basename(job["file"]))[0]
    folder = output_dir or os.path.dirname(os.path.abspath(job["file"]))
    return os.path.join(folder, f"{stem}.{job['track']}.baked.blend")
