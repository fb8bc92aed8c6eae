"""The Flamenco job type (farm/flamenco/footprint-batch.js): its job compiler, run under node with our own
stand-ins for Flamenco's author API (tests/flamenco_author_stub.js), makes one bake task per job with the
command line and the output names `batch` would use, refuses a job list `batch` would not run, and its
commands bake when the real command line runs them."""

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
BAKE = ["--background", "--command", "footprint", "bake"]
THREE = [
    {"file": "scenes/walk.blend", "track": "Walk", "rig": "rig"},
    {"file": "scenes/v2/street.v2.blend", "track": "../x", "rig": "hero"},
    {"file": "/library/crowd.blend", "track": "Run 1", "rig": "extra", "output": "shots/crowd-run.blend"},
]


def compile_job(tmp_path, jobs, **settings):
    """(exit status, compiled job or None, stderr) for a job list and settings; a setting given as None is
    left out, as a submitter that does not send it."""
    settings = {"jobs": jobs if isinstance(jobs, str) else json.dumps(jobs), "job_list_dir": "/farm/batch",
                "output_dir": "/farm/baked/", **settings}
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({key: value for key, value in settings.items() if value is not None}))
    proc = subprocess.run([NODE, STUB, JOB_TYPE, str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr  # 2: the harness or the script itself is broken
    return proc.returncode, json.loads(proc.stdout) if proc.returncode == 0 else None, proc.stderr


def compiled_tasks(tmp_path, jobs, **settings):
    code, compiled, stderr = compile_job(tmp_path, jobs, **settings)
    assert code == 0, stderr
    return compiled["tasks"]


def refusal(tmp_path, jobs, **settings):
    """The job compiler's message when it refuses the job."""
    code, compiled, stderr = compile_job(tmp_path, jobs, **settings)
    assert code == 1 and compiled is None
    return stderr.strip()


def refused_jobs(message):
    return {int(number) for number in re.findall(r"^job (\d+) \(", message, flags=re.MULTILINE)}


def commands(tasks):
    """Each task's (type, [(command, exe, args)], dependencies)."""
    return [(task["type"], [(c["name"], c["parameters"]["exe"], c["parameters"]["args"]) for c in task["commands"]],
             task["dependencies"]) for task in tasks]


def test_a_three_job_batch_makes_three_bake_tasks(tmp_path):
    tasks = compiled_tasks(tmp_path, THREE)
    assert commands(tasks) == [
        ("blender", [("exec", "{blender}", BAKE + [
            "/farm/batch/scenes/walk.blend", "--track=Walk", "--rig=rig",
            "--output=/farm/baked/walk.Walk.baked.blend"])], []),
        ("blender", [("exec", "{blender}", BAKE + [  # "../x": "/" replaced, the leading dots dropped
            "/farm/batch/scenes/v2/street.v2.blend", "--track=../x", "--rig=hero",
            "--output=/farm/baked/street.v2._x.baked.blend"])], []),
        ("blender", [("exec", "{blender}", BAKE + [  # an absolute input as it is, an "output" in output_dir
            "/library/crowd.blend", "--track=Run 1", "--rig=extra",
            "--output=/farm/baked/shots/crowd-run.blend"])], []),
    ]
    assert [task["name"] for task in tasks] == [
        "bake 1/3: walk.blend Walk -> rig", "bake 2/3: street.v2.blend ../x -> hero",
        "bake 3/3: crowd.blend Run 1 -> extra"]


def test_flags_and_the_blender_setting_pass_through(tmp_path):
    tasks = compiled_tasks(tmp_path, THREE, measure=True, overwrite=True, blender="/opt/blender-5.0/blender")
    assert [(exe, args[-2:]) for _, [(_, exe, args)], _ in commands(tasks)] == \
        [("/opt/blender-5.0/blender", ["--measure", "--overwrite"])] * 3
    tasks = compiled_tasks(tmp_path, THREE, measure=True, overwrite=False)
    assert [args[-2:] for _, [(_, _, args)], _ in commands(tasks)] == \
        [["--output=/farm/baked/walk.Walk.baked.blend", "--measure"],
         ["--output=/farm/baked/street.v2._x.baked.blend", "--measure"],
         ["--output=/farm/baked/shots/crowd-run.blend", "--measure"]]


def test_a_name_that_starts_with_a_dash_is_not_read_as_an_option(tmp_path):
    (task,) = compiled_tasks(tmp_path, [{"file": "a.blend", "track": "-walk", "rig": "--rig"}])
    args = task["commands"][0]["parameters"]["args"]
    assert args[5:7] == ["--track=-walk", "--rig=--rig"]


def test_an_empty_batch_is_refused(tmp_path):
    assert refusal(tmp_path, []) == ('the "jobs" setting is an empty list: a batch needs at least one '
                                     '{"file", "track", "rig"[, "output"]} job')
    assert refusal(tmp_path, "  [ ]\n").startswith('the "jobs" setting is an empty list')


@pytest.mark.parametrize("text, message", [
    ("", 'the "jobs" setting is missing'),
    ('{"file": "a.blend"}', 'the "jobs" setting must be a JSON list of {"file", "track", "rig"[, "output"]} objects'),
    ("[{]", 'the "jobs" setting is not JSON ('),
])
def test_a_jobs_setting_that_is_no_job_list_is_refused(tmp_path, text, message):
    assert refusal(tmp_path, text).startswith(message)


def test_a_job_without_a_rig_is_refused(tmp_path):
    jobs = [THREE[0], {"file": "scenes/b.blend", "track": "Walk"}, THREE[2]]
    assert refusal(tmp_path, jobs) == (
        "1 of the 3 jobs cannot run, so the batch is refused:\n"
        'job 2 (scenes/b.blend Walk -> ?): "rig" must be a non-empty string, not nothing')


def test_every_bad_job_is_listed(tmp_path):
    jobs = [{"file": "a.blend", "track": "", "rig": "r"}, 7, {"file": "a.blend", "track": "t", "rig": "r", "seed": 1},
            THREE[0], {"file": "a.blend", "track": "t", "rig": "r", "output": 3}]
    message = refusal(tmp_path, jobs)
    assert refused_jobs(message) == {1, 2, 3, 5}, message
    assert '"track" must be a non-empty string, not ""' in message
    assert "a job must be an object, not 7" in message
    assert 'unknown field "seed" (a job has file, output, rig, track)' in message
    assert '"output" must be a non-empty string, not 3' in message


def test_two_jobs_writing_one_output_are_refused(tmp_path):
    same_default = [{"file": "a.blend", "track": "Walk", "rig": "rig"}, {"file": "a.blend", "track": "Walk", "rig": "hero"}]
    message = refusal(tmp_path, same_default)
    assert message == (
        "2 of the 2 jobs cannot run, so the batch is refused:\n"
        'job 1 (a.blend Walk -> rig): /farm/baked/a.Walk.baked.blend: also the output of job 2; give each an "output"\n'
        'job 2 (a.blend Walk -> hero): /farm/baked/a.Walk.baked.blend: also the output of job 1; give each an "output"')
    spelled_twice = [{"file": "a.blend", "track": "t", "rig": "r", "output": "shots/x.blend"},
                     {"file": "b.blend", "track": "t", "rig": "r", "output": "shots/./old/../x.blend"},
                     {"file": "c.blend", "track": "t", "rig": "r", "output": "shots/y.blend"}]
    assert refused_jobs(refusal(tmp_path, spelled_twice)) == {1, 2}


@pytest.mark.parametrize("output, problem", [
    ("../escaped.blend", 'leaves output_dir /farm/baked'),
    ("shots/../../escaped.blend", 'leaves output_dir /farm/baked'),
    ("shots/..", 'leaves output_dir /farm/baked'),
    ("/tmp/escaped.blend", 'is absolute: it must be a path inside output_dir /farm/baked'),
    ("{storage}/escaped.blend", 'is absolute: it must be a path inside output_dir /farm/baked'),
    ("..\\escaped.blend", "has a backslash: use / between folders"),
    ("shots/take.txt", "/farm/baked/shots/take.txt: the output must be a .blend file"),
])
def test_an_output_outside_output_dir_is_refused(tmp_path, output, problem):
    message = refusal(tmp_path, THREE[:2] + [dict(THREE[2], output=output)])
    assert message.startswith("1 of the 3 jobs cannot run") and refused_jobs(message) == {3}, message
    assert problem in message, message


def test_an_output_that_is_an_input_is_refused_unless_overwrite(tmp_path):
    jobs = [{"file": "/farm/baked/a.blend", "track": "t", "rig": "r", "output": "a.blend"},
            {"file": "b.blend", "track": "t", "rig": "r", "output": "c.blend"},
            {"file": "/farm/baked/c.blend", "track": "t", "rig": "r"}]
    message = refusal(tmp_path, jobs)
    assert "job 1 (/farm/baked/a.blend t -> r): /farm/baked/a.blend: is its own input (set overwrite to replace it)" \
        in message and "job 2 (b.blend t -> r): /farm/baked/c.blend: is the input of job 3" in message
    assert refused_jobs(refusal(tmp_path, jobs, overwrite=True)) == {2}


def test_settings_are_checked(tmp_path):
    assert refusal(tmp_path, THREE, output_dir=None).startswith('the "output_dir" setting is missing: ')
    assert refusal(tmp_path, THREE, job_list_dir="batch").startswith(
        'the "job_list_dir" setting must be an absolute folder as the Workers see it')
    assert refusal(tmp_path, THREE, measure="yes") == 'the "measure" setting must be a bool, not "yes"'


def test_folders_may_start_with_a_flamenco_variable(tmp_path):
    tasks = compiled_tasks(tmp_path, THREE[:2], job_list_dir="{storage}/batch", output_dir="{render}/baked/")
    assert [args[4:8:3] for _, [(_, _, args)], _ in commands(tasks)] == [
        ["{storage}/batch/scenes/walk.blend", "--output={render}/baked/walk.Walk.baked.blend"],
        ["{storage}/batch/scenes/v2/street.v2.blend", "--output={render}/baked/street.v2._x.baked.blend"]]


def test_a_track_outside_ascii_needs_an_output(tmp_path):
    job = {"file": "a.blend", "track": "Gehen über", "rig": "rig"}
    assert 'track "Gehen über" has characters outside ASCII: give the job an "output"' in refusal(tmp_path, [job])
    (task,) = compiled_tasks(tmp_path, [dict(job, output="a-gehen.blend")])
    assert task["commands"][0]["parameters"]["args"][5:] == [
        "--track=Gehen über", "--rig=rig", "--output=/farm/baked/a-gehen.blend"]


def test_the_job_type_declares_exactly_the_settings_its_compiler_reads(tmp_path):
    code, compiled, stderr = compile_job(tmp_path, THREE)
    assert code == 0, stderr
    settings = compiled["job_type"]["settings"]
    assert sorted(s["key"] for s in settings) == compiled["settings_read"] == sorted(
        ["jobs", "job_list_dir", "output_dir", "blender", "measure", "overwrite"])
    # Held to Flamenco's AvailableJobSetting schema (its OpenAPI document), which the Manager exports it to.
    fields = {"key", "type", "subtype", "choices", "propargs", "description", "default", "eval", "evalInfo",
              "visible", "required", "editable", "label"}
    for s in settings:
        assert set(s) <= fields and s["type"] in ("string", "int32", "float", "bool") and s["description"], s
        assert s.get("subtype", "dir_path") in ("file_path", "dir_path", "file_name", "hashed_file_path"), s
    by_key = {s["key"]: s for s in settings}
    assert [key for key in by_key if by_key[key].get("required")] == ["jobs", "job_list_dir", "output_dir"]
    assert {key: by_key[key].get("default") for key in ("blender", "measure", "overwrite")} == \
        {"blender": "{blender}", "measure": False, "overwrite": False}
    assert compiled["job_type"]["label"]


def test_the_script_stays_plain_es5():
    """No ES2015+ syntax (node would run it, an older Manager's JavaScript engine would not) and no modules."""
    with open(JOB_TYPE, encoding="utf-8") as fh:
        code = "\n".join(line.split("//")[0] if not line.lstrip().startswith("//") else "" for line in fh)
    found = re.findall(r"\b(?:const|let|class|async|await|import|export|require)\b|=>|`|\.\.\.\w", code)
    assert not found, found


@needs_module_install
def test_names_and_paths_are_the_ones_batch_makes(tmp_path):
    """The same job list through batch_jobs.load_jobs (what `batch` runs) and through the job compiler: the
    same inputs and outputs, to the character."""
    from footprint_locomotion.footprint_addon import batch_jobs

    jobs = [{"file": "a.blend", "track": "Walk", "rig": "r"},
            {"file": "sub/b.v2.blend", "track": "../x", "rig": "r"},
            {"file": ".hidden.blend", "track": ".lead", "rig": "r"},
            {"file": "..blend", "track": "...", "rig": "r"},
            {"file": "noext", "track": "a b/c:d*e?f\t'\"", "rig": "r"},
            {"file": "dir.v1/scene", "track": "x+y-z.w~#%", "rig": "r"},
            {"file": "sub/../c.blend", "track": "Run_1", "rig": "r"},
            {"file": "a.blend", "track": "t", "rig": "r", "output": "shots/./e-out.blend"},
            {"file": "a.blend", "track": "t", "rig": "r", "output": "deep/er/f.blend"},
            {"file": str(tmp_path / "abs.blend"), "track": "abs", "rig": "r"}]
    for job in jobs:
        path = tmp_path / job["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    job_list = tmp_path / "jobs.json"
    job_list.write_text(json.dumps(jobs))
    out = tmp_path / "out"
    batch = batch_jobs.load_jobs(str(job_list), str(out))
    assert [job.problem for job in batch] == [""] * len(jobs)
    tasks = compiled_tasks(tmp_path, jobs, job_list_dir=str(tmp_path), output_dir=str(out) + "/")
    compiled = [(args[4], args[7]) for _, [(_, _, args)], _ in commands(tasks)]
    assert compiled == [(job.file, "--output=" + job.output) for job in batch]


@needs_module_install
@pytest.mark.parametrize("overwrite", [False, True])
def test_the_jobs_refused_are_the_ones_batch_fails(tmp_path, overwrite):
    from footprint_locomotion.footprint_addon import batch_jobs

    jobs = [{"file": "a.blend", "track": "t", "rig": "r"},
            {"file": "a.blend", "track": "t", "rig": "r2"},  # the same output as job 1
            {"file": "b.blend", "track": "t", "rig": "r", "output": "b.blend"},  # its own input
            {"file": "c.blend", "track": "t", "rig": "r", "output": "d.blend"},  # job 5's input
            {"file": "d.blend", "track": "t", "rig": "r"},
            {"file": "e.blend", "track": "t", "rig": "r", "output": "../e.blend"},
            {"file": "e.blend", "track": "t", "rig": "r", "output": "e.txt"},
            {"file": "e.blend", "track": "t"},
            {"file": "e.blend", "track": "t", "rig": "r", "size": 3},
            {"file": "e.blend", "track": "t", "rig": "r"}]
    for name in "abcde":
        (tmp_path / f"{name}.blend").touch()
    job_list = tmp_path / "jobs.json"
    job_list.write_text(json.dumps(jobs))
    failed_by_batch = {job.number for job in batch_jobs.load_jobs(str(job_list), str(tmp_path), overwrite)
                       if job.problem}
    assert failed_by_batch == {1, 2, 4, 6, 7, 8, 9} | ({3} if not overwrite else set())
    message = refusal(tmp_path, jobs, job_list_dir=str(tmp_path), output_dir=str(tmp_path), overwrite=overwrite)
    assert refused_jobs(message) == failed_by_batch, message


@needs_module_install
def test_the_compiled_command_bakes_with_the_real_command_line(fig1_scene, tmp_path):
    """The task's command run as a Worker would, with `python -m footprint_locomotion` standing in for
    `blender --background --command footprint`."""
    out = tmp_path / "baked"
    out.mkdir()
    (task,) = compiled_tasks(tmp_path, [{"file": fig1_scene.name, "track": "fig1", "rig": "rig"}],
                             job_list_dir=str(fig1_scene.parent), output_dir=str(out), measure=True)
    command = task["commands"][0]["parameters"]
    assert command["exe"] == "{blender}" and command["args"][:4] == BAKE
    proc = subprocess.run(cli_command(*command["args"][3:]), capture_output=True, text=True, timeout=300)
    baked = out / "scene.fig1.baked.blend"
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"bake: fig1 onto rig -> {baked}" in proc.stdout and "ball skate on the rig" in proc.stdout
    assert baked.is_file() and sorted(os.listdir(out)) == ["scene.fig1.baked.blend"]
