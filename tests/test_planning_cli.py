"""The `plan` command (issue 20, item 6): `python -m footprint_locomotion plan --stones STONES.json --from X Y --to X Y
--output TRACK.json` writes a valid track whose footprints stand on the stones; with no crossing it exits 1 naming
the gap and writes nothing."""

import importlib
import json

import numpy as np
import pytest

from cli_run import needs_module_install, run_cli

RIVER = [([0.0, 0.0, 0.0], 0.7), ([0.1, 1.3, 0.05], 0.3), ([-0.1, 2.3, 0.0], 0.3), ([0.2, 3.9, 0.1], 0.3),
         ([0.0, 5.3, 0.0], 0.7)]  # a bank, two stones a walk apart, one a leap on, the far bank


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def stones_file(path, stones):
    path.write_text(json.dumps({"format": "footprint-stones", "version": 1,
                                "stones": [{"position": p, "radius": r} for p, r in stones]}))
    return path


@needs_module_install
def test_plan_writes_a_valid_track_on_the_stones(tmp_path, solver):
    stones, output = stones_file(tmp_path / "river.json", RIVER), tmp_path / "crossing.json"
    proc = run_cli("plan", "--stones", stones, "--from", 0, 0, "--to", 0, 5.3, "--output", output)
    assert proc.returncode == 0, proc.stderr
    assert "1 leap" in proc.stdout and str(output) in proc.stdout, proc.stdout
    check = run_cli("validate", output)
    assert check.returncode == 0, check.stderr
    track = solver("track").load_track(output)
    centres, radii = np.array([p for p, _r in RIVER]), np.array([r for _p, r in RIVER])
    offset = np.linalg.norm(track.positions[:, None, :2] - centres[None, :, :2], axis=2)
    on = (offset <= radii - solver("planning.stones").MARGIN + 1e-6) & (
        np.abs(track.positions[:, None, 2] - centres[None, :, 2]) < 1e-6)
    assert on.any(axis=1).all(), track.positions[~on.any(axis=1)]
    assert set(np.flatnonzero(on.any(axis=0))) == set(range(len(RIVER)))  # every stone of the only way across
    assert track.character == "human"


@needs_module_install
def test_no_crossing_exits_1_naming_the_gap_and_writes_nothing(tmp_path):
    gap = RIVER[:3] + [([0.2, 5.6, 0.1], 0.3), ([0.0, 7.0, 0.0], 0.7)]  # 3 m from the middle stone's edge
    stones, output = stones_file(tmp_path / "river.json", gap), tmp_path / "crossing.json"
    proc = run_cli("plan", "--stones", stones, "--from", 0, 0, "--to", 0, 7.0, "--character", "human",
                   "--output", output)
    assert proc.returncode == 1
    assert "no crossing" in proc.stderr and "end at stone 2 " in proc.stderr and "stone 3 " in proc.stderr
    assert "leaps" in proc.stderr, proc.stderr
    assert not output.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["river.json"]
    off = run_cli("plan", "--stones", stones, "--from", 3, 0, "--to", 0, 7.0, "--output", output)
    assert off.returncode == 1 and "the start (3.00, 0.00) is on no stone: the nearest, stone 0" in off.stderr
    assert not output.exists()


def grid_of_stones(path):
    """Stones 0.3 m across every 0.6 m, 5 wide and 11 long: ground to walk anywhere on."""
    xs, ys = np.meshgrid(np.arange(-1.2, 1.21, 0.6), np.arange(0.0, 6.01, 0.6))
    return stones_file(path, [([x, y, 0.0], 0.3) for x, y in zip(xs.ravel(), ys.ravel())])


def obstacles_file(path, obstacles):
    path.write_text(json.dumps({"format": "footprint-obstacles", "version": 1,
                                "obstacles": [{"name": n, "outline": o} for n, o in obstacles]}))
    return path


@needs_module_install
def test_plan_goes_round_the_obstacles_file(tmp_path):
    stones, output = grid_of_stones(tmp_path / "stones.json"), tmp_path / "crossing.json"
    wall = [[-1.6, 2.9], [0.7, 2.9], [0.7, 3.1], [-1.6, 3.1]]  # open on the right
    obstacles = obstacles_file(tmp_path / "obstacles.json", [("wall", wall)])
    proc = run_cli("plan", "--stones", stones, "--from", 0, 0, "--to", 0, 6, "--obstacles", obstacles,
                   "--output", output)
    assert proc.returncode == 0, proc.stderr
    positions = np.array([f["position"] for f in json.loads(output.read_text())["footprints"]])[:, :2]
    outside = np.maximum(np.abs(positions - [-0.45, 3.0]) - [1.15, 0.1], 0.0)  # from the wall's rectangle
    assert np.linalg.norm(outside, axis=1).min() >= 0.13 - 1e-6  # half a human foot: its sole off the wall
    assert positions[np.abs(positions[:, 1] - 3.0) < 0.4, 0].min() > 0.7  # through the opening
    closed = obstacles_file(tmp_path / "closed.json", [("wall", wall), ("gate", [[0.7, 2.9], [1.6, 2.9], [1.6, 3.1]])])
    output.unlink()
    proc = run_cli("plan", "--stones", stones, "--from", 0, 0, "--to", 0, 6, "--obstacles", closed,
                   "--output", output)
    assert proc.returncode == 1 and "keeps clear of the obstacles: wall stands in the way" in proc.stderr, proc.stderr
    assert not output.exists()
    bad = obstacles_file(tmp_path / "bad.json", [("wall", wall), ("post", [[0, 0], [1, 1]])])
    proc = run_cli("plan", "--stones", stones, "--from", 0, 0, "--to", 0, 6, "--obstacles", bad, "--output", output)
    assert proc.returncode == 1 and "bad.json: obstacles[1].outline must be 3 to" in proc.stderr, proc.stderr
    assert not output.exists()
