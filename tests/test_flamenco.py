"""The Flamenco job type (farm/flamenco/footprint-batch.js): its job compiler, run under node with our own
stand-ins for Flamenco's author API (tests/flamenco_author_stub.js), makes one task per job, task K running
`batch JOB_LIST --only=K --jobs=1` so the command line checks the whole list and bakes job K; it checks only
its own settings; and its tasks bake, or fail a list `batch` refuses, when the real command line runs them."""

import json
import os
import re
import shutil
import subprocess

import pytest

from cli_run import cli_command, needs_module_install
from conftest import ROOT

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the Flamenco job compiler is "
                                                     "JavaScript, tested under node")
JOB_TYPE = os.path.join(ROOT, "farm", "flamenco", "footprint-batch.js")
STUB = os.path.join(ROOT, "tests", "flamenco_author_stub.js")
FOOTPRINT = ["--background", "--command", "footprint"]
SETTINGS = {"job_list": "/farm/shots/jobs.json", "output_dir": "/farm/baked", "job_count": 3}


def compile_job(tmp_path, **settings):
    """(exit status, compiled job or None, stderr) for SETTINGS changed by `settings`; a setting given as None
    is left out, as a submitter that does not send it."""
    settings = {**SETTINGS, **settings}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({key: value for key, value in settings.items() if value is not None}))
    proc = subprocess.run([NODE, STUB, JOB_TYPE, str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr  # 2: the harness or the script itself is broken
    return proc.returncode, json.loads(proc.stdout) if proc.returncode == 0 else None, proc.stderr


def compiled_tasks(tmp_path, **settings):
    code, compiled, stderr = compile_job(tmp_path, **settings)
    assert code == 0, stderr
    return compiled["tasks"]


def refusal(tmp_path, **settings):
    """The job compiler's message when it refuses the job."""
    code, compiled, stderr = compile_job(tmp_path, **settings)
    assert code == 1 and compiled is None
    return stderr.strip()


def commands(tasks):
    """Each task's (name, type, [(command, exe, args)], dependencies)."""
    return [(task["name"], task["type"],
             [(c["name"], c["parameters"]["exe"], c["parameters"]["args"]) for c in task["commands"]],
             task["dependencies"]) for task in tasks]


def batch_args(k, job_list="/farm/shots/jobs.json", output_dir="/farm/baked"):
    return FOOTPRINT + ["batch", job_list, f"--output-dir={output_dir}", f"--only={k}", "--jobs=1"]


def test_a_three_job_list_makes_three_batch_tasks(tmp_path):
    assert commands(compiled_tasks(tmp_path)) == [
        (f"job {k}/3", "blender", [("exec", "{blender}", batch_args(k))], []) for k in (1, 2, 3)]


def test_flags_and_the_blender_setting_pass_through(tmp_path):
    tasks = compiled_tasks(tmp_path, job_count=2, measure=True, overwrite=True, blender="/opt/blender-5.0/blender")
    assert [command for _, _, [command], _ in commands(tasks)] == [
        ("exec", "/opt/blender-5.0/blender", batch_args(k) + ["--measure", "--overwrite"]) for k in (1, 2)]
    tasks = compiled_tasks(tmp_path, job_count=1, measure=False, overwrite=True)
    assert commands(tasks) == [("job 1/1", "blender", [("exec", "{blender}", batch_args(1) + ["--overwrite"])], [])]


def test_paths_go_to_the_command_line_as_given(tmp_path):
    """No path rules here: a Flamenco variable, a space, a trailing slash reach `batch` untouched (the Manager
    replaces the variable for each Worker)."""
    (task,) = compiled_tasks(tmp_path, job_list="{storage}/shots/jobs list.json", output_dir="{render}/baked/",
                             job_count=1)
    assert task["commands"][0]["parameters"]["args"] == batch_args(1, "{storage}/shots/jobs list.json",
                                                                  "{render}/baked/")


def test_an_empty_job_list_is_refused(tmp_path):
    assert refusal(tmp_path, job_count=0) == ('the "job_count" setting is 0: the job list is empty, so there is '
                                              'nothing to bake')


@pytest.mark.parametrize("settings, message", [
    ({"job_list": None}, 'the "job_list" setting is missing: The job list (JSON: '),
    ({"job_list": ""}, 'the "job_list" setting is missing: '),
    ({"output_dir": None}, 'the "output_dir" setting is missing: The folder for the baked .blend files'),
    ({"output_dir": ""}, 'the "output_dir" setting is missing: '),
    ({"job_count": None}, 'the "job_count" setting is missing: How many jobs the job list holds'),
    ({"job_count": 2.5}, 'the "job_count" setting must be a whole number of at least 1 (how many jobs the job '
                         'list holds), not 2.5'),
    ({"job_count": -1}, 'the "job_count" setting must be a whole number of at least 1 '),
    ({"job_count": "3"}, 'the "job_count" setting must be a number, not "3"'),
    ({"job_count": True}, 'the "job_count" setting must be a number, not true'),
    ({"job_list": ["/farm/jobs.json"]}, 'the "job_list" setting must be a string, not ["/farm/jobs.json"]'),
    ({"measure": "yes"}, 'the "measure" setting must be a bool, not "yes"'),
])
def test_settings_are_checked(tmp_path, settings, message):
    assert refusal(tmp_path, **settings).startswith(message)


def test_the_job_type_declares_exactly_the_settings_its_compiler_reads(tmp_path):
    code, compiled, stderr = compile_job(tmp_path)
    assert code == 0, stderr
    settings = compiled["job_type"]["settings"]
    assert sorted(s["key"] for s in settings) == compiled["settings_read"] == sorted(
        ["job_list", "output_dir", "job_count", "blender", "measure", "overwrite"])
    # Held to Flamenco's AvailableJobSetting schema (its OpenAPI document), which the Manager exports it to.
    fields = {"key", "type", "subtype", "choices", "propargs", "description", "default", "eval", "evalInfo",
              "visible", "required", "editable", "label"}
    for s in settings:
        assert set(s) <= fields and s["type"] in ("string", "int32", "float", "bool") and s["description"], s
        assert s.get("subtype", "dir_path") in ("file_path", "dir_path", "file_name", "hashed_file_path"), s
    by_key = {s["key"]: s for s in settings}
    assert [key for key in by_key if by_key[key].get("required")] == ["job_list", "output_dir", "job_count"]
    assert {key: by_key[key]["type"] for key in by_key} == {
        "job_list": "string", "output_dir": "string", "job_count": "int32", "blender": "string", "measure": "bool",
        "overwrite": "bool"}
    assert {key: by_key[key].get("default") for key in ("blender", "measure", "overwrite")} == \
        {"blender": "{blender}", "measure": False, "overwrite": False}
    assert compiled["job_type"]["label"]


def test_the_script_stays_plain_es5():
    """No ES2015+ syntax (node would run it, an older Manager's JavaScript engine would not) and no modules."""
    with open(JOB_TYPE, encoding="utf-8") as fh:
        code = "\n".join(line.split("//")[0] if not line.lstrip().startswith("//") else "" for line in fh)
    found = re.findall(r"\b(?:const|let|class|async|await|import|export|require)\b|=>|`|\.\.\.\w", code)
    assert not found, found


def run_tasks(tasks):
    """Each task's command run at once as a Worker would, with `python -m footprint_locomotion` standing in for
    `blender --background --command footprint`; their finished processes, in task order."""
    procs = []
    for task in tasks:
        ((_, exe, args),) = [(c["name"], c["parameters"]["exe"], c["parameters"]["args"]) for c in task["commands"]]
        assert exe == "{blender}" and args[:3] == FOOTPRINT, (exe, args)
        procs.append(subprocess.Popen(cli_command(*args[3:]), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    for proc in procs:
        proc.stdout_text, proc.stderr_text = proc.communicate(timeout=300)
    return procs


@needs_module_install
def test_the_tasks_bake_their_own_jobs_with_the_real_command_line(fig1_scene, tmp_path):
    """A two-job list (relative "file" paths, taken from the list's folder): task K bakes job K alone, into an
    output folder that did not exist. A list with a collision: every task checks the whole list, so each
    colliding job's task fails, with batch's message in its log, and writes nothing."""
    lists = tmp_path / "lists"
    lists.mkdir()
    job_list = lists / "batch.json"
    job_list.write_text(json.dumps([{"file": "../scene.blend", "track": "fig1", "rig": "rig"},
                                    {"file": "../scene.blend", "track": "fig1", "rig": "rig",
                                     "output": "second.blend"}]))
    out = tmp_path / "baked"
    tasks = compiled_tasks(tmp_path, job_list=str(job_list), output_dir=str(out), job_count=2, measure=True)
    scene = os.path.join(lists, "../scene.blend")
    outputs = [out / "scene.fig1.baked.blend", out / "second.blend"]
    for k, task in enumerate(tasks, start=1):  # one after the other, to see what each one wrote
        (proc,) = run_tasks([task])
        log = proc.stdout_text + proc.stderr_text
        assert proc.returncode == 0, log
        assert f"[{k}/2] {scene} fig1 -> rig: ok, {outputs[k - 1]} (" in proc.stdout_text, log
        assert "ball skate on the rig" in proc.stdout_text and "batch: 1 of 1 jobs baked" in proc.stdout_text, log
        assert sorted(out.iterdir()) == sorted(outputs[:k])

    colliding = lists / "colliding.json"
    colliding.write_text(json.dumps([{"file": "../scene.blend", "track": "fig1", "rig": "rig", "output": "x.blend"},
                                     {"file": "../scene.blend", "track": "fig1", "rig": "rig", "output": "y.blend"},
                                     {"file": "../scene.blend", "track": "fig1", "rig": "rig2",
                                      "output": "./x.blend"}]))
    collided = tmp_path / "collided"
    tasks = compiled_tasks(tmp_path, job_list=str(colliding), output_dir=str(collided), job_count=3)
    first, third = run_tasks([tasks[0], tasks[2]])  # job 2 is fine; its task would bake
    for proc, k, output, other in ((first, 1, "x.blend", 3), (third, 3, "./x.blend", 1)):
        log = proc.stdout_text + proc.stderr_text
        assert proc.returncode == 1, log
        assert f"[{k}/3] {scene} fig1 -> " in proc.stdout_text and \
            f"FAILED: {collided}/{output}: also the output of job {other}; give each an \"output\"" in log, log
        assert "batch: 0 of 1 jobs baked" in proc.stdout_text, log
    assert os.listdir(collided) == []
