"""The render-farm template (farm/openjd): Open Job Description, the format AWS Deadline Cloud runs natively,
checked by the reference tool and run end to end on this machine with real bakes, one task per job."""

import json
import os
import subprocess
import sys

import bpy

from cli_run import needs_module_install
from conftest import ROOT

TEMPLATE = os.path.join(ROOT, "farm", "openjd", "footprint-batch.yaml")
pytestmark = needs_module_install


def openjd(*args):
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), "openjd"), *map(str, args)],
                          capture_output=True, text=True, timeout=600)


def test_the_template_passes_openjd_check():
    proc = openjd("check", TEMPLATE)
    assert proc.returncode == 0 and "passes validation checks" in proc.stdout, proc.stdout + proc.stderr


def test_openjd_run_bakes_one_task_per_job(fig1_scene, tmp_path):
    jobs = tmp_path / "jobs" / "batch.json"
    jobs.parent.mkdir()
    jobs.write_text(json.dumps([{"file": str(fig1_scene), "track": "fig1", "rig": "rig", "output": f"shot{n}.blend"}
                                for n in (1, 2)]))
    out = tmp_path / "baked"
    proc = openjd("run", TEMPLATE, "-p", f"JobList={jobs}", "-p", "JobCount=2", "-p", f"OutputDir={out}",
                  "-p", f"Executable={sys.executable}", "-p", "ExecutableKind=python", "-p", "Measure=true")
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Session ended successfully" in log, log[-3000:]
    for n in (1, 2):  # each task baked its own job, and said so in its log
        assert f"openjd_status: baking job {n} of 2" in log and f"[{n}/2] {fig1_scene} fig1 -> rig: ok" in log
        assert "ball skate on the rig" in log
    assert sorted(os.listdir(out)) == ["shot1.blend", "shot2.blend"]
    bpy.ops.wm.open_mainfile(filepath=str(out / "shot2.blend"))
    assert bpy.data.objects["rig"].animation_data.nla_tracks  # the bake is in it
    bpy.ops.wm.read_homefile(use_empty=True)
