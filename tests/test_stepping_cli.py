"""The `step` command (issue 19, item 6) as users run it: `python -m footprint_locomotion step ...`, and the
`transition` command's refusals (its work is footprint_addon/transition.py's, tested with it)."""

import json

import numpy as np
import pytest

from cli_run import needs_module_install, run_cli

pytestmark = needs_module_install


def test_step_to_a_stance_writes_the_motion_and_the_track(tmp_path):
    motion_path, track_path = tmp_path / "motion.json", tmp_path / "track.json"
    proc = run_cli("step", "--character", "human", "--to", "0.5", "1.5", "90", "--fps", "30", "--output", motion_path,
                   "--track-output", track_path)
    assert proc.returncode == 0, proc.stderr
    assert "steps" in proc.stdout
    motion = json.loads(motion_path.read_text())
    assert motion["format"] == "footprint-motion" and motion["fps"] == 30
    times = np.array(motion["times"])
    assert np.allclose(np.diff(times), 1 / 30, atol=2e-6)  # (6 decimals in the file)
    for key in ("com", "hips"):
        assert np.shape(motion[key] if key == "com" else motion[key]["L"]) == (len(times), 3)
    assert len(motion["support"]) == len(times) and motion["support"][0] == ["L", "R"]
    feet = {foot: np.array(motion["feet"][foot]) for foot in "LR"}
    # Standing at the origin facing +Y at the start, centred on (0.5, 1.5) facing +X... turned 90 degrees left
    # (toward -X) at the end, the feet a stance width apart across that facing.
    assert np.allclose(feet["L"][0], [-0.09, 0.0, 0.0]) and np.allclose(feet["R"][0], [0.09, 0.0, 0.0])
    assert np.allclose(0.5 * (feet["L"][-1] + feet["R"][-1]), [0.5, 1.5, 0.0], atol=1e-6)
    assert np.allclose(feet["R"][-1] - feet["L"][-1], [0.0, 0.18, 0.0], atol=1e-6)
    assert motion["report"]["stepping"]["steps"] >= 2
    track = json.loads(track_path.read_text())
    assert track["format"] == "footprint-track" and track["motion"] == "stepping"
    first = [fp for fp in track["footprints"] if fp["contact"] == 0.0]
    assert sorted(fp["foot"] for fp in first) == ["L", "R"]  # the starting stance's footprints are in it
    # The track solves to the same motion through `solve`.
    again = tmp_path / "again.json"
    assert run_cli("solve", track_path, "--fps", "30", "--output", again).returncode == 0
    assert json.loads(again.read_text())["com"] == motion["com"]


def test_step_recovers_from_a_push(tmp_path):
    out = tmp_path / "push.json"
    proc = run_cli("step", "--push", "0", "1.2", "--output", out)
    assert proc.returncode == 0, proc.stderr
    motion = json.loads(out.read_text())
    com, times = np.array(motion["com"]), np.array(motion["times"])
    assert np.allclose((com[1, :2] - com[0, :2]) / (times[1] - times[0]), [0.0, 1.2], atol=0.02)
    assert motion["report"]["stepping"]["captured"] is not None
    assert com[-1, 1] > 0.2  # it stepped the way of the push and stands there


@pytest.mark.parametrize("args, status, message", [
    (("--to", "1", "1", "0", "--push", "1", "0"), 2, "not allowed with"),
    ((), 2, "one of the arguments --to --push is required"),
    (("--to", "0", "nan", "0"), 1, "--to 0 nan 0: target stance: the feet's positions are not finite"),
    (("--character", "dog", "--to", "0", "1", "0"), 1, "stepping needs a biped"),
    (("--character", "giant", "--to", "0", "1", "0"), 1, "--character: unknown character preset 'giant'"),
    (("--push", "9", "0"), 1, "not recovered"),
    (("--to", "1", "1", "0", "--fps", "0"), 1, "--fps must be in"),
])
def test_step_refuses_bad_input_and_writes_nothing(tmp_path, args, status, message):
    out = tmp_path / "motion.json"
    proc = run_cli("step", *args, "--output", out, "--track-output", tmp_path / "track.json")
    assert proc.returncode == status
    assert message in proc.stderr
    assert not out.exists() and not (tmp_path / "track.json").exists()


def test_help_lists_step_and_transition():
    proc = run_cli("--help")
    assert proc.returncode == 0 and "step" in proc.stdout and "transition" in proc.stdout
    help_text = run_cli("step", "--help").stdout
    assert "--to X Y HEADING_DEG" in help_text and "--push VX VY" in help_text and "--track-output" in help_text


def test_transition_refuses_a_missing_scene(tmp_path):
    out = tmp_path / "out.blend"
    proc = run_cli("transition", tmp_path / "missing.blend", "--rig", "rig", "--from-strip", "A", "--to-strip", "B",
                   "--output", out)
    assert proc.returncode == 1
    assert "missing.blend" in proc.stderr
    assert not out.exists()
