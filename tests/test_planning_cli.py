"""The `plan` command (issue 20, items 3 and 6): `python -m footprint_locomotion plan --stones STONES.json --from X Y
--to X Y --output TRACK.json` writes a valid track whose footprints stand on the stones; with no crossing it exits 1
naming the gap and writes nothing. `plan --wander SECONDS --area X0 Y0 X1 Y1` keeps every sole in the area and off the
obstacles; `plan --follow TARGET.json` keeps within 2 m of the target; every refusal exits 1, names the culprit and
leaves the output as it was."""

import importlib
import json

import numpy as np
import pytest

from cli_run import digest, needs_module_install, run_cli

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


# --- plan --wander and plan --follow (issue 20, items 3 and 6) ---------------------------------------------------

ROOM = (0.0, 0.0, 6.0, 5.0)  # --area X0 Y0 X1 Y1: a 6 x 5 m room
FURNITURE = [("table", [[3.6, 1.0], [4.4, 1.0], [4.4, 1.8], [3.6, 1.8]]),
             ("post", [[1.3, 3.3], [1.7, 3.3], [1.7, 3.7], [1.3, 3.7]])]


def target_file(path, times, positions, **fields):
    document = {"format": "footprint-target", "version": 1, "times": list(times),
                "positions": [list(p) for p in positions]}
    path.write_text(json.dumps({**document, **fields}))
    return path


def circling(times, speed=1.3, radius=4.0):
    """A target walking round a circle at walking pace."""
    angle = speed * (np.asarray(times) - times[0]) / radius
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)


@needs_module_install
def test_plan_wander_stays_in_the_area_off_the_obstacles(tmp_path, solver):
    obstacles, output = obstacles_file(tmp_path / "room.json", FURNITURE), tmp_path / "wander.json"
    proc = run_cli("plan", "--wander", 20, "--area", *ROOM, "--obstacles", obstacles, "--output", output)
    assert proc.returncode == 0, proc.stderr
    assert "wandering 20 s in (0, 0)-(6, 5) from (3, 2.5)" in proc.stdout and str(output) in proc.stdout, proc.stdout
    assert run_cli("validate", output).returncode == 0
    track = solver("track").load_track(output)
    assert track.contact.max() >= 20.0 and track.character == "human"
    planning_obstacles, wander = solver("planning.obstacles"), solver("planning.wander")
    room = wander.Area(np.array([[0.0, 0.0], [6.0, 0.0], [6.0, 5.0], [0.0, 5.0]]),
                       planning_obstacles.load_obstacles(obstacles))
    soles = planning_obstacles.foot_outline(track.positions, track.headings,
                                            solver("character").preset("human")).reshape(-1, 2)
    assert room.clearance(soles).min() > 0.0  # every sole inside the walls and off the table and the post
    assert np.ptp(track.positions[:, 0]) > 1.5 or np.ptp(track.positions[:, 1]) > 1.5  # it goes somewhere
    # --from, --heading and --seed: it starts standing there, facing that way, and walks another walk.
    other = tmp_path / "other.json"
    proc = run_cli("plan", "--wander", 5, "--area", *ROOM, "--from", 4.5, 2.5, "--heading", 90, "--seed", 7,
                   "--output", other)
    assert proc.returncode == 0, proc.stderr
    start = solver("track").load_track(other)
    assert np.allclose(start.positions[:2, :2].mean(axis=0), [4.5, 2.5])
    assert np.allclose(start.headings[:2], np.pi / 2) and start.positions[2, 0] < 4.3  # facing -X, stepping off
    assert 5.0 <= start.contact.max() < 7.0


@needs_module_install
def test_plan_follow_keeps_within_two_metres_of_the_target(tmp_path, solver):
    times = np.arange(1.0, 31.01, 0.5)  # from t0 = 1 s: the track starts then
    target = target_file(tmp_path / "target.json", times, circling(times))
    output = tmp_path / "follow.json"
    proc = run_cli("plan", "--follow", target, "--from", 4, -1, "--output", output)
    assert proc.returncode == 0, proc.stderr
    assert "for 30 s from (4, -1)" in proc.stdout, proc.stdout
    track = solver("track").load_track(output)
    assert track.contact.min() == pytest.approx(1.0) and track.contact.max() >= 31.0  # the target's span
    mid_stance = 0.5 * (track.contact + track.liftoff)
    where = solver("planning.target").load_target(target)(mid_stance)
    apart = np.linalg.norm(track.positions[:, :2] - where, axis=1)
    assert apart[mid_stance >= 3.0].max() <= 2.0, apart.max()
    # Without --from it starts where the target starts; --seconds shortens it.
    proc = run_cli("plan", "--follow", target, "--seconds", 6, "--output", output)
    assert proc.returncode == 0, proc.stderr
    track = solver("track").load_track(output)
    assert np.allclose(track.positions[:2, :2].mean(axis=0), [4.0, 0.0]) and 7.0 <= track.contact.max() < 9.0


@needs_module_install
def test_plan_refusals_exit_1_name_the_culprit_and_write_nothing(tmp_path):
    times = np.arange(0.0, 10.01, 1.0)
    target = target_file(tmp_path / "target.json", times, circling(times))
    backwards = target_file(tmp_path / "backwards.json", times[::-1], circling(times))
    nan = target_file(tmp_path / "nan.json", times, [[float("nan"), 0.0]] + circling(times)[1:].tolist())
    obstacles = obstacles_file(tmp_path / "room.json", FURNITURE)
    output = tmp_path / "track.json"
    output.write_text("an earlier track\n")
    before = digest(output)
    room = ["--area", *ROOM]
    for args, message in (
            ([], "give one of --stones STONES.json, --wander SECONDS or --follow TARGET.json"),
            (["--wander", 5, "--follow", target, *room], "argument --follow: not allowed with argument --wander"),
            (["--follow", target, "--seed", 2], "argument --seed: not allowed with argument --follow"),
            (["--wander", 5], "argument --wander: needs --area X0 Y0 X1 Y1"),
            (["--follow", backwards], "backwards.json: times[1] (9 s) is not after times[0] (10 s)"),
            (["--follow", nan], "nan.json: positions[0] holds a number that is NaN or infinite"),
            (["--wander", "nan", *room], "--wander nan: give seconds in (0, 3600]"),
            (["--wander", 5, *room, "--from", 7, 1], "--from 7 1 is outside --area 0 0 6 5"),
            (["--wander", 5, *room, "--obstacles", obstacles, "--from", 4, 1.4],
             "--from 4 1.4: the start (4.00, 1.40) is within 0.43 m of a wall or an obstacle")):
        proc = run_cli("plan", *args, "--output", output)
        assert proc.returncode == 1 and message in proc.stderr, (args, proc.stderr[-500:])
        assert digest(output) == before
    output.unlink()
    proc = run_cli("plan", "--follow", target, "--area", -1, -1, 1, 1, "--output", output)
    assert proc.returncode == 1, proc.stderr
    assert "the target's start (4, 0), the default --from, is outside --area -1 -1 1 1" in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backwards.json", "nan.json", "room.json", "target.json"]


def test_target_file_fields_are_checked_by_name(solver, tmp_path):
    target, errors = solver("planning.target"), solver("errors")
    good = {"format": "footprint-target", "version": 1, "times": [0.0, 1.0, 2.5], "positions": [[0, 0], [1, 0], [1, 3]]}
    loaded = target.target_from_json(good, "t.json")
    assert np.allclose(loaded([-1.0, 0.5, 1.75, 9.0]), [[0, 0], [0.5, 0], [1, 1.5], [1, 3]])  # linear, held at ends
    assert loaded.span == 2.5 and loaded.start_heading() == pytest.approx(-np.pi / 2)  # first move: +X
    for change, message in (
            ({"format": "footprint-track"}, 't.json: not a "footprint-target" document'),
            ({"version": 2}, 't.json: "version" must be 1, not 2'),
            ({"times": [0.0]}, 't.json: "times" must be a list of 2 to 100,000 numbers'),
            ({"times": [0.0, 1.0]}, 't.json: "positions" has 3 points and "times" 2 times'),
            ({"times": [0.0, True, 2.0]}, "t.json: times[1] must be a number (seconds), not True"),
            ({"times": [0.0, float("nan"), 2.0]}, "t.json: times[1] holds a number that is NaN or infinite"),
            ({"times": [0.0, 2.0, 2.0]}, "t.json: times[2] (2 s) is not after times[1] (2 s)"),
            ({"times": [0.0, 2e6, 3e6]}, "t.json: times[1] 2e+06 s is beyond the limit of 1e+06 s"),
            ({"positions": [[0, 0], [1, 0, 0], [1, 3]]}, "t.json: positions[1] must be a point [x, y]"),
            ({"positions": [[0, 0], [1, float("inf")], [1, 3]]}, "t.json: positions[1] holds a number that is NaN"),
            ({"positions": [[0, 0], [1, 0], [1, -3e6]]},
             "t.json: positions[2] -3e+06 m is beyond the limit of 1e+06 m")):
        with pytest.raises(errors.FootprintError) as caught:
            target.target_from_json({**good, **change}, "t.json")
        assert message in str(caught.value), (change, str(caught.value))


@needs_module_install
def test_plan_passes_a_quadruped_through(tmp_path, solver):
    obstacles, output = obstacles_file(tmp_path / "room.json", FURNITURE), tmp_path / "dog.json"
    proc = run_cli("plan", "--wander", 10, "--area", 0, 0, 8, 6, "--obstacles", obstacles, "--character", "dog",
                   "--output", output)
    assert proc.returncode == 0, proc.stderr
    track, dog = solver("track").load_track(output), solver("character").preset("dog")
    assert track.character == "dog" and set(track.feet) == {"LF", "RF", "LH", "RH"} and track.contact.max() >= 10.0
    planning_obstacles, wander = solver("planning.obstacles"), solver("planning.wander")
    room = wander.Area(np.array([[0.0, 0.0], [8.0, 0.0], [8.0, 6.0], [0.0, 6.0]]),
                       planning_obstacles.load_obstacles(obstacles))
    soles = planning_obstacles.foot_outline(track.positions, track.headings, dog).reshape(-1, 2)
    assert room.clearance(soles).min() > 0.0  # every paw inside the walls, off the table and the post
    times = np.arange(0.0, 12.01, 0.5)
    target = target_file(tmp_path / "target.json", times, circling(times, speed=1.0))
    proc = run_cli("plan", "--follow", target, "--from", 4, -1, "--character", "dog", "--output", output)
    assert proc.returncode == 0, proc.stderr
    track = solver("track").load_track(output)
    mid_stance = 0.5 * (track.contact + track.liftoff)
    where = solver("planning.target").load_target(target)(mid_stance)
    assert track.character == "dog"
    assert np.linalg.norm(track.positions[:, :2] - where, axis=1)[mid_stance >= 2.0].max() <= 2.0
