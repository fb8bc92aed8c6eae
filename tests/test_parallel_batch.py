"""`batch --jobs N`: worker processes, each its own Blender (here Python with the bpy module), baking a shared
queue of jobs; the same summary, exit status and baked animation as one after another in one process; a
worker killed mid-job fails that job alone and leaves no output."""

import json
import os
import re
import signal
import subprocess
import time

import bpy
import numpy as np
import pytest

from cli_run import cli_command, needs_module_install, run_cli

pytestmark = needs_module_install


def job_list(tmp_path, scene, count, broken=None):
    jobs = [{"file": str(scene), "track": "fig1", "rig": "rig", "output": f"shot{n}.blend"} for n in range(1, count + 1)]
    if broken is not None:
        jobs[broken - 1]["rig"] = "ghost"  # fails alone, in the middle
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(jobs))
    return path


def baked_keys(path):
    """Every key the bake wrote, by action, F-curve and index: (frame, value) arrays, and the NLA strips."""
    bpy.ops.wm.open_mainfile(filepath=str(path))
    rig = bpy.data.objects["rig"]
    strips = [(track.name, strip.name, strip.frame_start, strip.frame_end)
              for track in rig.animation_data.nla_tracks for strip in track.strips]
    keys = {}
    for action in bpy.data.actions:
        for curve in action.fcurves if hasattr(action, "fcurves") else []:
            co = np.zeros(2 * len(curve.keyframe_points))
            curve.keyframe_points.foreach_get("co", co)
            keys[(action.name, curve.data_path, curve.array_index)] = co
    if not keys:  # Blender 5's layered actions: the channels live in the action's slots' channel bags
        for action in bpy.data.actions:
            for layer in action.layers:
                for strip in layer.strips:
                    for bag in strip.channelbags:
                        for curve in bag.fcurves:
                            co = np.zeros(2 * len(curve.keyframe_points))
                            curve.keyframe_points.foreach_get("co", co)
                            keys[(action.name, curve.data_path, curve.array_index)] = co
    return strips, keys, (bpy.context.scene.frame_start, bpy.context.scene.frame_end)


def test_jobs_2_and_jobs_1_report_and_bake_the_same(fig1_scene, tmp_path):
    jobs = job_list(tmp_path, fig1_scene, 4, broken=2)
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"out{workers}"
        proc = run_cli("batch", jobs, "--output-dir", out, "--jobs", workers)
        lines = [line.replace(str(out), "OUT") for line in proc.stdout.splitlines()
                 if line.startswith(("[", "batch:"))]
        runs[workers] = (proc.returncode, lines, out)
    (code1, lines1, out1), (code2, lines2, out2) = runs[1], runs[2]
    assert code1 == code2 == 1
    assert lines1 == lines2, (lines1, lines2)  # the same lines, in job order
    assert "FAILED: no armature 'ghost'" in lines2[1] and lines2[-1] == "batch: 3 of 4 jobs baked"
    assert sorted(os.listdir(out1)) == sorted(os.listdir(out2)) == ["shot1.blend", "shot3.blend", "shot4.blend"]
    # The baked animation is the same to the bit. (The files are not byte for byte: Blender writes a few
    # bytes of uninitialised memory and pointers into every .blend, 31 bytes differ between two saves of
    # one scene by two processes.)
    for name in ("shot1.blend", "shot3.blend", "shot4.blend"):
        strips1, keys1, range1 = baked_keys(out1 / name)
        strips2, keys2, range2 = baked_keys(out2 / name)
        assert strips1 == strips2 and range1 == range2 and keys1.keys() == keys2.keys() and len(keys1) > 50
        assert all(np.array_equal(keys1[k], keys2[k]) for k in keys1)
    bpy.ops.wm.read_homefile(use_empty=True)


def test_a_worker_killed_mid_job_fails_that_job_alone_and_leaves_no_output(fig1_scene, tmp_path):
    jobs = job_list(tmp_path, fig1_scene, 3)
    out = tmp_path / "out"
    batch = subprocess.Popen(cli_command("batch", jobs, "--output-dir", out, "--jobs", 2, "--measure"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    victim = None
    deadline = time.monotonic() + 300
    while victim is None and batch.poll() is None and time.monotonic() < deadline:
        for name in os.listdir(out) if out.exists() else []:  # a worker saving: its temporary names it
            match = re.match(r"^\.(shot\d)\.blend\.footprint-[0-9a-f]{8}-(\d+)-", name)
            if match:
                victim = match[1], int(match[2])
                os.kill(victim[1], signal.SIGKILL)
                break
        time.sleep(0.002)
    stdout, stderr = batch.communicate(timeout=600)
    assert victim is not None, "no worker was caught saving"
    lines = [line for line in stdout.splitlines() if line.startswith("[")]
    assert batch.returncode == 1 and len(lines) == 3, stdout + stderr[-2000:]
    number = int(victim[0][len("shot"):])
    for line in lines:  # the victim's job failed, the others (one of them after it, on a new worker) baked
        mine = line.startswith(f"[{number}/3]")
        assert ("FAILED: the worker was killed (SIGKILL)" in line) == mine and (": ok," in line) != mine, lines
    assert stdout.rstrip().endswith("batch: 2 of 3 jobs baked")
    left = sorted(os.listdir(out))
    assert f"{victim[0]}.blend" not in left and len(left) == 2 and not any(".footprint-" in n for n in left), left


def test_jobs_and_only_refuse_what_is_not_a_count(tmp_path):
    jobs = tmp_path / "jobs.json"
    jobs.write_text("[]")
    for args, message in ((("--jobs", "0"), "must be at least 1"), (("--jobs", "two"), "expected a whole number"),
                          (("--only", "3"), "--only 3: the job list has 0 jobs")):
        proc = run_cli("batch", jobs, *args)
        assert proc.returncode in (1, 2) and message in proc.stderr, proc.stderr


@pytest.mark.parametrize("only", [1, 2])
def test_only_bakes_one_job_of_the_list_and_still_checks_the_whole_list(fig1_scene, tmp_path, only):
    jobs = job_list(tmp_path, fig1_scene, 2)
    doc = json.loads(jobs.read_text())
    doc.append(dict(doc[0]))  # job 3 writes job 1's output: both refused, job 2 still fine
    jobs.write_text(json.dumps(doc))
    out = tmp_path / "out"
    proc = run_cli("batch", jobs, "--output-dir", out, "--only", only)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == 1 and lines[0].startswith(f"[{only}/3]")
    if only == 1:
        assert proc.returncode == 1 and "also the output of job 3" in lines[0] and not out.joinpath("shot1.blend").exists()
    else:
        assert proc.returncode == 0 and ": ok," in lines[0] and os.listdir(out) == ["shot2.blend"]
    assert proc.stdout.rstrip().endswith(f"batch: {int(only == 2)} of 1 jobs baked")


def test_a_worker_that_cannot_start_fails_its_jobs_without_hanging(addon, fig1_scene, tmp_path, monkeypatch, capsys):
    """In-process, with the worker command pointing at nothing: every job fails with the reason, the batch
    ends and says so."""
    import importlib

    workers = importlib.import_module(addon + ".footprint_addon.batch_workers")
    cli = importlib.import_module(addon + ".footprint_addon.cli")
    monkeypatch.setattr(workers, "command_line", lambda: [str(tmp_path / "no-such-blender")])
    jobs = job_list(tmp_path, fig1_scene, 3)
    assert cli.main(["batch", str(jobs), "--output-dir", str(tmp_path / "out"), "--jobs", "2"]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("[", "batch:"))]
    assert len(lines) == 4 and all("FAILED: could not run a worker (FileNotFoundError" in l for l in lines[:3])
    assert lines[3] == "batch: 0 of 3 jobs baked" and not list((tmp_path / "out").iterdir())
