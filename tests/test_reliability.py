"""Never lose an artist's file (docs/reliability.md): hostile input, full disks, killed processes, colliding
batch jobs. Every case runs the real command line on real .blend files and checks that the inputs and any
earlier output are byte for byte as they were, that no temporary is left, and that the error names the
culprit."""

import json
import os
import random
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager

import bpy
import pytest

from cli_run import cli_command, digest, needs_module_install, run_cli
from conftest import FIG1

pytestmark = needs_module_install


def fig1_doc():
    with open(FIG1, encoding="utf-8") as fh:
        return json.load(fh)


def leftovers(folder):
    return sorted(name for name in os.listdir(folder) if ".footprint-" in name or name.endswith("@"))


def assert_refused(proc, *fragments):
    assert proc.returncode == 1, (proc.stdout[-800:], proc.stderr[-800:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr[-800:])


def blend_opens(path):
    with bpy.data.libraries.load(str(path)) as (data_from, _data_to):
        return "rig" in data_from.objects


# --- hostile tracks ------------------------------------------------------------------------------------


def _with(**changes):
    doc = fig1_doc()
    doc.update(changes)
    return json.dumps(doc)


HOSTILE_TRACKS = {
    # numbers that overflow the physics: refused, naming the field, instead of a motion full of NaN
    "flat NaN": (_with(terrain={"flat": float("nan")}), "terrain: flat height nan"),
    "flat Infinity": (_with(terrain={"flat": float("inf")}), "terrain: flat height inf"),
    "flat 1e20": (_with(terrain={"flat": 1e20}), "terrain: flat height 1e+20"),
    "hip 1e308": (_with(character={"preset": "human", "hip_offsets": {"L": [1e308, 0, 0], "R": [0.09, 0, -0.08]}}),
                  "character hip_offsets"),
    "leg 1e10": (_with(character={"preset": "human", "leg_length_nominal": 1e10, "leg_length_max": 2e10}),
                 "character leg_length_nominal 1e+10"),
    # once tracebacks
    "nested 5000 deep": ("[" * 5000 + "]" * 5000, "nested 5000 deep"),
    "400-digit integer": (json.dumps(fig1_doc()).replace('"contact": 0.0', '"contact": ' + "9" * 400, 1),
                          "footprint 0: contact is not a finite number"),
    "height field NaN origin": (_with(terrain={"heightfield": {"origin": [float("nan"), 0], "spacing": 1.0,
                                                               "heights": [[0, 0], [0, 0]]}}), "heightfield origin nan"),
    "height field of one element": (_with(terrain={"heightfield": {"origin": [0, 0], "spacing": 1.0, "heights": [[0]]}}),
                                    "at least 2 x 2"),
    "height field spacing 1e-300": (_with(terrain={"heightfield": {"origin": [0, 0], "spacing": 1e-300,
                                                                   "heights": [[0, 0], [0, 0]]}}),
                                    "heightfield spacing 1e-300"),
    "zero footprints": (_with(footprints=[]), "the track has no footprints"),
    "heel strike of 3 radians": (_with(character={"preset": "human", "heel_strike": 3.0}),
                                 "character heel_strike 3 is outside [0, 1.5708]"),
    "a foot 10 um wide": (_with(character={"preset": "human", "foot_width": 1e-5}),
                          "character foot_width 1e-05 is outside [0.001, 100]"),
    "a terrain named, not given": (_with(terrain="Ground"), "terrain must be an object"),
    "fps true": (_with(fps=True), '"fps" must be a number in (0, 1000], not true'),
    "nested 33 deep": ("[" * 33 + "]" * 33, "nested 33 deep, more than the limit of 32"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_TRACKS))
def test_hostile_tracks_are_refused_by_validate_and_solve_naming_file_and_field(tmp_path, case):
    text, message = HOSTILE_TRACKS[case]
    track = tmp_path / "track.json"
    track.write_text(text)
    motion = tmp_path / "motion.json"
    motion.write_text("an earlier motion")
    for args in (("validate", track), ("solve", track, "--output", motion)):
        proc = run_cli(*args)
        assert_refused(proc, f"error: {track}: ", message)
    assert track.read_text() == text and motion.read_text() == "an earlier motion"
    assert sorted(os.listdir(tmp_path)) == ["motion.json", "track.json"]


def test_brackets_inside_strings_do_not_count_toward_the_nesting_limit(tmp_path):
    doc = fig1_doc()
    doc["note"] = "[[[[{{{{" * 20 + '\\"[[' * 10  # 170 brackets and escaped quotes, all inside one string
    track = tmp_path / "noted.json"
    track.write_text(json.dumps(doc))
    proc = run_cli("validate", track)
    assert proc.returncode == 0 and ": valid" in proc.stdout, proc.stderr


def test_validate_caps_the_input_size_before_reading_it_whole():
    proc = run_cli("validate", "/dev/zero")
    assert_refused(proc, "error: /dev/zero: the track file is larger than the limit of 64 MiB")


def test_plot_refuses_a_motion_with_non_finite_numbers_and_keeps_the_old_plot(tmp_path):
    motion, svg = tmp_path / "motion.json", tmp_path / "plot.svg"
    assert run_cli("solve", FIG1, "--fps", "30", "--output", motion).returncode == 0
    assert run_cli("plot", motion, "--output", svg).returncode == 0
    before = digest(svg)
    doc = json.loads(motion.read_text())
    doc["com"][3][2] = float("nan")
    motion.write_text(json.dumps(doc))  # NaN, as Python writes it
    assert_refused(run_cli("plot", motion, "--output", svg), "com hold NaN or infinity")
    assert digest(svg) == before and leftovers(tmp_path) == []


def test_solve_and_plot_never_write_over_their_input(tmp_path):
    track = tmp_path / "t.json"
    shutil.copy(FIG1, track)
    before = digest(track)
    assert_refused(run_cli("solve", track, "--output", track), "is the input")
    os.link(track, tmp_path / "alias.json")  # the same file by another name: caught by identity
    assert_refused(run_cli("solve", track, "--output", tmp_path / "alias.json"), "is the input")
    motion = tmp_path / "m.svg"  # a motion (JSON) under a plot's name
    assert run_cli("solve", track, "--output", motion).returncode == 0
    motion_before = digest(motion)
    assert_refused(run_cli("plot", motion, "--output", motion), "is the input")
    assert digest(track) == before and digest(motion) == motion_before and leftovers(tmp_path) == []


def test_outputs_get_the_umask_mode_or_keep_the_replaced_files(tmp_path):
    fresh, kept = tmp_path / "fresh.json", tmp_path / "kept.json"
    kept.write_text("old")
    os.chmod(kept, 0o640)
    old_umask = os.umask(0o022)
    os.umask(old_umask)
    for out in (fresh, kept):
        assert run_cli("solve", FIG1, "--fps", "24", "--output", out).returncode == 0
    assert os.stat(fresh).st_mode & 0o777 == 0o666 & ~old_umask  # as any new file, not 0600
    assert os.stat(kept).st_mode & 0o777 == 0o640


# --- bake and batch ------------------------------------------------------------------------------------


def test_an_input_named_like_a_temporary_survives_its_bake(fig1_scene, tmp_path):
    odd = tmp_path / "X.blend.part.blend"  # the old temporary name of X.blend's save
    shutil.copy(fig1_scene, odd)
    before = digest(odd)
    proc = run_cli("bake", odd, "--track", "fig1", "--rig", "rig", "--output", tmp_path / "X.blend")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert digest(odd) == before and blend_opens(tmp_path / "X.blend") and leftovers(tmp_path) == []


def write_jobs(path, jobs):
    path.write_text(json.dumps(jobs))
    return path


def batch_lines(proc):
    return [line for line in proc.stdout.splitlines() if line.startswith("[")]


def test_batch_refuses_colliding_outputs_and_outputs_over_inputs_and_runs_the_rest(fig1_scene, tmp_path):
    one, two = tmp_path / "a" / "scene.blend", tmp_path / "b" / "scene.blend"  # same name, two folders
    for path in (one, two):
        path.parent.mkdir()
        shutil.copy(fig1_scene, path)
    victim = tmp_path / "out" / "victim.blend"
    victim.parent.mkdir()
    shutil.copy(fig1_scene, victim)
    inputs = {path: digest(path) for path in (one, two, victim)}
    jobs = write_jobs(tmp_path / "jobs.json", [
        {"file": str(one), "track": "fig1", "rig": "rig"},
        {"file": str(two), "track": "fig1", "rig": "rig"},
        {"file": str(one), "track": "fig1", "rig": "rig", "output": "victim.blend"},  # another job's input
        {"file": str(victim), "track": "fig1", "rig": "rig", "output": "fine.blend"},
        {"file": "", "track": "fig1", "rig": "rig", "output": "empty.blend"},
        {"file": None, "track": "fig1", "rig": "rig"},
        {"file": str(one), "track": 7, "rig": "rig"},
        {"file": str(one), "track": "fig1", "rig": "rig", "output": "/tmp/elsewhere.blend"},
        {"file": str(one), "track": "fig1", "rig": "rig", "output": "../escaped.blend"},
        {"file": str(one), "track": "fig1", "rig": "rig", "ouput": "typo.blend"},
    ])
    proc = run_cli("batch", jobs, "--output-dir", tmp_path / "out")
    lines = batch_lines(proc)
    assert proc.returncode == 1 and len(lines) == 10, proc.stdout + proc.stderr[-2000:]
    assert "also the output of job 2" in lines[0] and "also the output of job 1" in lines[1]
    assert "is the input of job 4" in lines[2]
    assert ": ok," in lines[3]
    assert '"file" must be a non-empty string' in lines[4] and '"file" must be a non-empty string' in lines[5]
    assert '"track" must be a non-empty string, not 7' in lines[6]
    assert "is absolute" in lines[7] and "leaves --output-dir" in lines[8] and "unknown field 'ouput'" in lines[9]
    assert "batch: 1 of 10 jobs baked" in proc.stdout
    assert {path: digest(path) for path in inputs} == inputs
    assert sorted(os.listdir(tmp_path / "out")) == ["fine.blend", "victim.blend"]
    assert not (tmp_path / "escaped.blend").exists() and not os.path.exists("/tmp/elsewhere.blend")


def test_a_job_writing_its_own_input_needs_overwrite(fig1_scene, tmp_path):
    scene = tmp_path / "own" / "scene.blend"
    scene.parent.mkdir()
    shutil.copy(fig1_scene, scene)
    before = digest(scene)
    jobs = write_jobs(tmp_path / "own" / "jobs.json", [{"file": "scene.blend", "track": "fig1", "rig": "rig",
                                                         "output": "scene.blend"}])
    proc = run_cli("batch", jobs, "--jobs", 1)
    assert proc.returncode == 1 and "is its own input (pass --overwrite to replace it)" in batch_lines(proc)[0]
    assert digest(scene) == before
    proc = run_cli("batch", jobs, "--jobs", 1, "--overwrite")
    assert proc.returncode == 0 and ": ok," in batch_lines(proc)[0] and digest(scene) != before
    assert blend_opens(scene) and leftovers(scene.parent) == []


def test_a_track_named_like_a_path_stays_in_the_output_dir(fig1_scene, tmp_path):
    bpy.ops.wm.open_mainfile(filepath=str(fig1_scene))
    bpy.data.collections["fig1"].name = "../../../x"
    sneaky = tmp_path / "in" / "sneaky.blend"
    sneaky.parent.mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(sneaky))
    bpy.ops.wm.read_homefile(use_empty=True)
    jobs = write_jobs(tmp_path / "in" / "jobs.json", [{"file": "sneaky.blend", "track": "../../../x", "rig": "rig"}])
    out = tmp_path / "in" / "deep" / "out"
    proc = run_cli("batch", jobs, "--output-dir", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    (name,) = os.listdir(out)  # the track's name made safe for a file name, not a path
    assert name.startswith("sneaky.") and name.endswith("x.baked.blend") and "/" not in name
    assert not any(p.name.endswith("x.baked.blend") for p in tmp_path.rglob("*") if p.parent != out)


def test_a_bad_rig_mapping_fails_its_own_job_only(fig1_scene, tmp_path):
    bpy.ops.wm.open_mainfile(filepath=str(fig1_scene))
    bpy.data.objects["rig"].data["footprint_mapping"] = '{"body": "torso", "feet": '
    broken = tmp_path / "broken.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(broken))
    bpy.data.objects["rig"].data["footprint_mapping"] = '{"body": "torso", "feet": 3}'
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "mistyped.blend"))
    bpy.ops.wm.read_homefile(use_empty=True)
    jobs = write_jobs(tmp_path / "jobs.json", [
        {"file": "broken.blend", "track": "fig1", "rig": "rig", "output": "o1.blend"},
        {"file": "mistyped.blend", "track": "fig1", "rig": "rig", "output": "o2.blend"},
        {"file": str(fig1_scene), "track": "fig1", "rig": "rig", "output": "o3.blend"},
    ])
    proc = run_cli("batch", jobs)
    lines = batch_lines(proc)
    assert "Traceback" not in proc.stderr and len(lines) == 3, proc.stdout + proc.stderr[-2000:]
    assert "'footprint_mapping' property that is not valid JSON" in lines[0]
    assert 'has no "feet" object naming one bone for each foot' in lines[1]
    assert ": ok," in lines[2] and "batch: 1 of 3 jobs baked" in proc.stdout


def test_user_files_open_with_their_scripts_off(addon, tmp_path):
    """A text block registered as a module runs when its file is loaded trusted (Auto Run on, or Trust);
    the batch tool's loader never trusts a file (the control, a trusted load of the same file, runs it)."""
    import importlib

    headless = importlib.import_module(addon + ".footprint_addon.headless")
    marker = tmp_path / "ran"
    bpy.ops.wm.read_homefile(use_empty=True)
    text = bpy.data.texts.new("payload.py")
    text.write(f"open({str(marker)!r}, 'w').write('ran')\n")
    text.use_module = True
    scene = tmp_path / "payload.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene))
    try:
        headless.open_scene(str(scene))
        assert not marker.exists()
        bpy.ops.wm.open_mainfile(filepath=str(scene), use_scripts=True)  # the control
        assert marker.exists()
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_two_bakes_to_one_output_at_once_leave_one_whole_file(fig1_scene, tmp_path):
    out = tmp_path / "out.blend"
    procs = [subprocess.Popen(cli_command("bake", fig1_scene, "--track", "fig1", "--rig", "rig", "--output", out),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    for proc in procs:
        _out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
    assert blend_opens(out) and leftovers(tmp_path) == []


# --- full disks ----------------------------------------------------------------------------------------


@contextmanager
def small_disk(folder, size_kib):
    """A tmpfs of size_kib mounted at folder (root only; skipped with a message elsewhere)."""
    folder.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill ({proc.stderr.strip() or 'mount failed'}): needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder, leave_bytes):
    """Fill the filesystem of folder until leave_bytes are free."""
    st = os.statvfs(folder)
    free = st.f_bavail * st.f_frsize
    with open(folder / "filler", "wb") as fh:
        fh.write(b"\0" * max(free - leave_bytes, 0))


def test_a_full_disk_fails_the_bake_and_keeps_the_old_output_and_the_input(fig1_scene, tmp_path):
    room = 2 * os.path.getsize(fig1_scene) // 1024 + 512  # the input and an earlier output (Blender 4.2
    with small_disk(tmp_path / "disk", room) as disk:  # saves uncompressed, 5.0 with Zstandard)
        scene = disk / "scene.blend"
        shutil.copy(fig1_scene, scene)
        out = disk / "baked.blend"
        shutil.copy(fig1_scene, out)  # a good earlier output
        before = {path: digest(path) for path in (scene, out)}
        fill(disk, 64 * 1024)  # far less than a baked file
        proc = run_cli("bake", scene, "--track", "fig1", "--rig", "rig", "--output", out)
        assert_refused(proc, f"error: {out}: could not write", "nothing was changed")
        proc = run_cli("bake", scene, "--track", "fig1", "--rig", "rig", "--output", scene, "--overwrite")
        assert_refused(proc, f"error: {scene}: could not write")
        assert {path: digest(path) for path in before} == before and leftovers(disk) == []
        assert blend_opens(scene) and blend_opens(out)


def test_a_full_disk_fails_solve_and_plot_and_keeps_their_old_outputs(tmp_path):
    motion = tmp_path / "motion.json"
    assert run_cli("solve", FIG1, "--output", motion).returncode == 0
    with small_disk(tmp_path / "disk", 1024) as disk:
        out, svg = disk / "motion.json", disk / "plot.svg"
        out.write_text("an earlier motion")
        svg.write_text("<svg>an earlier plot</svg>")
        fill(disk, 8 * 1024)
        assert_refused(run_cli("solve", FIG1, "--output", out), f"error: {out}: could not write",
                       "No space left on device")
        assert_refused(run_cli("plot", motion, "--output", svg), f"error: {svg}: could not write")
        assert out.read_text() == "an earlier motion" and svg.read_text() == "<svg>an earlier plot</svg>"
        assert leftovers(disk) == []


# --- killed writes -------------------------------------------------------------------------------------


def kill_at(args, delay=None, when_temporary_in=None, timeout=120):
    """Start the command and SIGKILL it after delay seconds, or as soon as a temporary appears in the
    folder (mid-write); returns whether it was killed before it finished."""
    proc = subprocess.Popen(cli_command(*args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.monotonic()
    while proc.poll() is None and time.monotonic() - started < timeout:
        if delay is not None and time.monotonic() - started >= delay:
            break
        if when_temporary_in is not None and leftovers(when_temporary_in):
            break
        time.sleep(0.002)
    killed = proc.poll() is None
    if killed:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    return killed


def test_sigkill_at_random_points_never_leaves_a_partial_output_and_the_next_run_cleans_up(fig1_scene, tmp_path):
    rng = random.Random(16)
    motion = tmp_path / "motion.json"
    motion.write_text("an earlier motion")
    baked = tmp_path / "baked.blend"
    shutil.copy(fig1_scene, baked)
    solve = ("solve", FIG1, "--fps", "1000", "--output", motion)
    bake = ("bake", fig1_scene, "--track", "fig1", "--rig", "rig", "--output", baked)
    kills = [kill_at(solve, when_temporary_in=tmp_path), kill_at(bake, when_temporary_in=tmp_path)]
    assert leftovers(tmp_path)  # the two killed mid-write left their temporaries: the next runs must take them
    kills += [kill_at(solve, delay=rng.uniform(0.5, 4.0)) for _ in range(3)]
    kills += [kill_at(bake, delay=rng.uniform(1.0, 8.0)) for _ in range(3)]
    assert kills[:2] == [True, True]  # the two killed mid-write
    # Whatever the kill hit, each output is the earlier one or a whole new one.
    text = motion.read_text()
    assert text == "an earlier motion" or json.loads(text)["format"] == "footprint-motion"
    assert blend_opens(baked)
    # The next runs succeed and take the dead processes' temporaries with them.
    assert run_cli(*solve).returncode == 0 and run_cli(*bake).returncode == 0
    assert json.loads(motion.read_text())["fps"] == 1000 and blend_opens(baked)
    assert leftovers(tmp_path) == []


def test_stale_temporaries_of_dead_processes_are_removed_and_no_others(addon, tmp_path):
    """Every temporary the write path names (JSON, .blend, the demo's PNGs) is one the clean-up knows; only
    those of processes of this host that have ended go."""
    import importlib

    files = importlib.import_module(addon + ".footprint_addon.files")
    target = tmp_path / ("shot-" + "x" * 240 + ".blend")  # a long name: the temporary keeps its head
    dead = subprocess.Popen(["true"])
    dead.wait()
    planted = {}
    for suffix in (".tmp", ".tmp.blend", ".tmp.blend@", ".cell.png", ".tmp.png"):
        name = os.path.basename(files.temporary_name(str(target), suffix))
        assert files.TEMPORARY.match(name) and len(name.encode()) < 255, name
        for owner, pid in (("dead", dead.pid), ("alive", os.getpid())):
            path = tmp_path / name.replace(f"-{os.getpid()}-", f"-{pid}-")
            path.write_text(owner)
            planted[path] = owner
    other_host = tmp_path / ".x.blend.footprint-00000000-1-0123abcd.tmp"  # (hash 00000000: not this host)
    other_host.write_text("elsewhere")
    files.remove_stale_temporaries(str(tmp_path), again=True)
    assert all(path.exists() == (owner == "alive") for path, owner in planted.items())
    assert other_host.exists()
