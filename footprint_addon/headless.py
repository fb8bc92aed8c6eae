"""Headless baking: one scene, or a batch of (file, track, rig) jobs. Inputs are never overwritten unless
asked, outputs are written whole or not at all, and every job reports its own status."""

import os

import bpy

from ..solver.errors import FootprintError
from ..solver.motion import report_warnings
from . import bake, files, rig_quality
from .rigs import MissingBonesError
from .scene_io import NoTerrainError

JOB_ERRORS = (FootprintError, NoTerrainError, MissingBonesError, bake.BakeError, OSError, RuntimeError,
              KeyError)


class JobError(Exception):
    """A job that cannot run as given (file, track, rig or output); the message names it."""


def open_scene(path):
    """Open a user's .blend with its scripts off whatever their Auto Run preference: a batch tool never runs
    code a file carries."""
    if not os.path.isfile(path):
        raise JobError(f"{path}: no such .blend file")
    bpy.ops.wm.open_mainfile(filepath=os.path.abspath(path), load_ui=False, use_scripts=False)


def check_output(output, inputs, overwrite):
    if not output.endswith(".blend"):
        raise JobError(f"{output}: the output must be a .blend file")
    files.check_target(output, () if overwrite else inputs, remedy="pass --overwrite to replace it")


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


def save_copy(output, inputs=()):
    """Save the open file to output through files.replace_file: a .blend that Blender reads back whole, or
    no change at all (a full disk makes Blender write a truncated file and report success)."""
    def write(tmp):
        try:
            result = bpy.ops.wm.save_as_mainfile(filepath=tmp, copy=True, check_existing=False)
        except RuntimeError as exc:
            raise OSError(0, f"Blender could not save: {exc}") from None
        if result != {"FINISHED"} or not os.path.isfile(tmp):
            raise OSError(0, "Blender did not save the file")
        files.sync_file(tmp)

    files.replace_file(output, write, verify_blend, inputs, suffix=".tmp.blend")


def verify_blend(path):
    """Raise OSError unless path is a whole .blend: it ends with its ENDB block and Blender lists its data."""
    if not _ends_whole(path):
        raise OSError(0, "the saved file is cut short (no ENDB block at its end)")
    try:
        with bpy.data.libraries.load(path) as (_data_from, _data_to):
            pass
    except OSError as exc:
        raise OSError(0, f"the saved file does not read back: {exc}") from None


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # Blender 4.2+ may compress the whole file with Zstandard


def _ends_whole(path, tail_bytes=64):
    """Does the file (decompressed if it is Zstandard) end with the ENDB block Blender writes last?"""
    with open(path, "rb") as fh:
        compressed = fh.read(4) == ZSTD_MAGIC
        fh.seek(0)
        if not compressed:
            fh.seek(max(os.fstat(fh.fileno()).st_size - tail_bytes, 0))
            return b"ENDB" in fh.read()
        import zstandard  # bundled with Blender

        tail = b""
        try:
            with zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True) as reader:
                while chunk := reader.read(1 << 20):
                    tail = (tail + chunk)[-tail_bytes:]
        except zstandard.ZstdError:
            return False
        return b"ENDB" in tail


def run_job(scene, track, rig, output, overwrite=False, measure=False):
    """Bake (and optionally measure) one job and save the result; returns bake_current's reports."""
    inputs = [scene] if scene else [bpy.data.filepath]
    check_output(output, inputs, overwrite)
    if scene:
        open_scene(scene)
    reports = bake_current(track, rig, measure)
    save_copy(output, () if overwrite else inputs)
    return reports


def job_result(scene, track, rig, output, overwrite=False, measure=False):
    """(ok, text): bake one job, its summary line when baked, else why not. Nothing a job's data can raise
    escapes: in a batch, a job's failure is its own (the same text in-process and from a worker)."""
    try:
        return True, summary(*run_job(scene, track, rig, output, overwrite, measure))
    except (JobError,) + JOB_ERRORS as exc:
        return False, str(exc)
    except Exception as exc:  # a job's own data broke something unforeseen: that job fails, not the batch
        return False, f"internal error: {type(exc).__name__}: {exc}"


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
