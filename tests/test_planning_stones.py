"""Stepping stones (issue 20, item 1; vdP97 §4.2, Fig. 13): plans across generated stone fields put every
footprint on a stone, take no step beyond the character's reach, leap where stones are far and walk where they
are close; a field without a crossing gets an error naming the gap; the stones file is read as hostile input."""

import importlib
import json
import math
import re

import numpy as np
import pytest


@pytest.fixture(scope="module")
def solver(addon):
    return lambda name: importlib.import_module(f"{addon}.solver.{name}")


def river(seed, gap_at=None):
    """A river crossed on 5-8 stones: a bank stone at each end, a chain of stones between them whose gaps
    (edge to edge) are 0.2-1.1 m (some only a leap crosses), and distractors scattered around. gap_at: the chain's
    stone after which the next is 3.5 m on (no crossing)."""
    rng = np.random.default_rng(seed)
    positions, radii = [[0.0, 0.0, 0.0]], [0.7]
    y = 0.7
    for k in range(rng.integers(5, 9)):
        radius = rng.uniform(0.15, 0.3)
        y += rng.uniform(0.2, 1.1) + radius + (3.5 if k == gap_at else 0.0)
        positions.append([rng.uniform(-0.4, 0.4), y, rng.uniform(-0.1, 0.1)])
        radii.append(radius)
        y += radius
    y += rng.uniform(0.2, 0.8) + 0.7
    positions.append([0.0, y, 0.0])
    radii.append(0.7)
    for _ in range(8):  # distractors off to the sides of the river's first stretch (no way around a gap)
        positions.append([rng.choice([-1, 1]) * rng.uniform(1.6, 3.0), rng.uniform(0.0, 2.0), 0.0])
        radii.append(rng.uniform(0.1, 0.3))
    return np.array(positions), np.array(radii), (0.0, 0.0), (0.0, y)


@pytest.mark.parametrize("seed", range(5))
def test_a_plan_crosses_on_stones_within_reach(solver, seed):
    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    positions, radii, start, goal = river(seed)
    stones = solver("planning.footholds").Stones(positions, radii)
    track = stones_module.plan_crossing(stones, start, goal, character)
    reach = solver("planning.footholds").Reach.of(character)
    # Every footprint's support point on a stone's top face (inside its edge, at its height).
    offset = np.linalg.norm(track.positions[:, None, :2] - positions[None, :, :2], axis=2)
    on = (offset <= radii[None] - solver("planning.footholds").MARGIN + 1e-9) & (np.abs(track.positions[:, None, 2] - positions[None, :, 2]) < 1e-9)
    assert on.any(axis=1).all(), np.flatnonzero(~on.any(axis=1))
    # It starts standing at the start and ends standing at the goal.
    assert np.linalg.norm(track.positions[:2, :2].mean(axis=0) - start) < 0.1
    assert np.linalg.norm(track.positions[-2:, :2].mean(axis=0) - goal) < 0.1
    assert track.contact[0] == track.contact[1] == 0.0
    hip_width = 2 * abs(character.hip_offsets[0, 0])  # the banks hold both feet side by side
    for stance in (track.positions[:2], track.positions[-2:]):
        assert np.linalg.norm(stance[0, :2] - stance[1, :2]) == pytest.approx(hip_width, abs=1e-6)
    # The feet alternate; no step longer than a leap or higher than a climb.
    order = np.argsort(track.contact, kind="stable")
    feet, where, contact, liftoff = (a[order] for a in (track.feet, track.positions, track.contact, track.liftoff))
    assert (feet[1:] != feet[:-1]).all()
    step = np.linalg.norm(np.diff(where[:, :2], axis=0), axis=1)
    assert step.max() <= reach.leap + 1e-9 and np.abs(np.diff(where[:, 2])).max() <= reach.climb + 1e-9
    # Leaps (a flight: the feet both up) exactly where a step is longer than a walking step.
    flight = liftoff[:-1] < contact[1:]
    long = step > reach.walk
    assert np.array_equal(flight[1:], long[1:]), (step, flight)


def test_close_stones_are_walked_far_ones_leapt(solver):
    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    positions = np.array([[0, 0, 0], [0, 0.6, 0], [0, 1.2, 0], [0, 2.75, 0], [0, 3.35, 0], [0, 4.2, 0]], float)
    stones = solver("planning.footholds").Stones(positions, np.array([0.3, 0.15, 0.15, 0.15, 0.15, 0.3]))
    track = stones_module.plan_crossing(stones, (0, 0), (0, 4.2), character)
    order = np.argsort(track.contact, kind="stable")
    contact, liftoff, where = track.contact[order], track.liftoff[order], track.positions[order]
    flights = np.flatnonzero(liftoff[:-1] < contact[1:])
    # One flight: onto the stone 1.55 m on; every other step walked, one footprint per stone.
    assert len(flights) == 1 and abs(where[flights[0] + 1, 1] - 2.75) < 0.15
    on_stone = np.argmin(np.abs(where[:, None, 1] - positions[None, :, 1]), axis=1)
    assert set(on_stone[2:-2]) == {1, 2, 3, 4}
    # The solved motion: no stance leg past l_max, the flight ballistic.
    motion = solver("biped").solve(track)
    legs = motion.report["leg_length"]
    assert all(legs[f]["max"] <= legs[f]["max_allowed"] + 1e-3 for f in "LR"), legs
    assert motion.report["flight"]["samples"] > 0 and motion.report["flight"]["vertical_acceleration_error"] < 0.02


@pytest.mark.parametrize("seed", range(2))
def test_no_crossing_names_the_gap(solver, seed):
    stones_module, errors = solver("planning.stones"), solver("errors")
    character = solver("character").preset("human")
    positions, radii, start, goal = river(seed, gap_at=2)
    with pytest.raises(errors.PlanningError) as caught:
        stones_module.plan_crossing(solver("planning.footholds").Stones(positions, radii), start, goal, character)
    message = str(caught.value)
    # The gap is before the chain's third stone (index 3): the crossing ends at stone 2.
    assert "end at stone 2 " in message and "stone 3 " in message and "leaps" in message, message
    gap = float(message.split(", is ")[-1].split(" m away")[0])
    edge = np.linalg.norm(positions[3, :2] - positions[2, :2]) - (radii[3] + radii[2])
    assert gap == pytest.approx(edge + 2 * solver("planning.footholds").MARGIN, abs=1e-2)


def test_a_small_start_stone_holds_both_feet(solver):
    """Starting off-centre on a stone too small for the feet side by side: both stay on it."""
    stones_module = solver("planning.stones")
    stones = solver("planning.footholds").Stones(np.array([[0, 0, 0], [0, 0.8, 0], [0, 1.6, 0.0]]), np.array([0.2, 0.2, 0.6]))
    track = stones_module.plan_crossing(stones, (0.15, 0.0), (0.0, 1.6), solver("character").preset("human"))
    first = track.positions[:2]
    assert (np.linalg.norm(first[:, :2], axis=1) <= 0.2 - solver("planning.footholds").MARGIN + 1e-9).all()
    assert np.linalg.norm(first[0, :2] - first[1, :2]) > 0.05  # not on one spot


def test_a_start_off_the_stones_is_named(solver):
    stones_module, errors = solver("planning.stones"), solver("errors")
    stones = solver("planning.footholds").Stones(np.array([[0, 0, 0], [0, 1, 0.0]]), np.array([0.3, 0.3]))
    with pytest.raises(errors.PlanningError, match=r"the goal \(5.00, 0.00\) is on no stone: the nearest, stone 0"):
        stones_module.plan_crossing(stones, (0, 0), (5, 0), solver("character").preset("human"))


@pytest.mark.parametrize("document, culprit", [
    ({"format": "footprint-track", "version": 1, "stones": []}, '"footprint-stones" document'),
    ({"format": "footprint-stones", "version": 2, "stones": [{"position": [0, 0, 0], "radius": 1}]}, '"version"'),
    ({"format": "footprint-stones", "version": 1, "stones": []}, '"stones" must be a non-empty list'),
    ({"format": "footprint-stones", "version": 1, "stones": [{"position": [0, 0], "radius": 1}]}, r"stones\[0\].position"),
    ({"format": "footprint-stones", "version": 1,
      "stones": [{"position": [0, 0, 0], "radius": 1}, {"position": [0, 1, 0], "radius": "big"}]}, r"stones\[1\].radius"),
    ({"format": "footprint-stones", "version": 1, "stones": [{"position": [0, 0, 0], "radius": 0.0}]}, r"stones\[0\].radius 0 m"),
    ({"format": "footprint-stones", "version": 1, "stones": [{"position": [0, 1e300 * 10, 0], "radius": 1}]}, r"stones\[0\]"),
])
def test_bad_stones_files_name_the_culprit(solver, tmp_path, document, culprit):
    stones_module, errors = solver("planning.stones"), solver("errors")
    path = tmp_path / "stones.json"
    path.write_text(json.dumps(document, allow_nan=True))
    with pytest.raises(errors.TrackFormatError, match=culprit):
        solver("planning.footholds").load_stones(path)


def test_any_surfaces_footholds_plan_too(solver):
    """A plank (a 4 m bridge 0.5 m wide, its footholds a grid as the add-on samples mesh objects) between two
    banks over a gap: the plan walks the plank, every footprint on a surface's foothold or by it."""
    stones_module = solver("planning.stones")
    character = solver("character").preset("human")
    grid = lambda x0, x1, y0, y1, z: np.array([[x, y, z] for x in np.arange(x0, x1 + 1e-9, 0.1)  # noqa: E731
                                               for y in np.arange(y0, y1 + 1e-9, 0.1)])
    surfaces = [grid(-1, 1, -1, 0, 0.0), grid(-0.2, 0.2, 0.1, 4.0, 0.3), grid(-1, 1, 4.1, 5.0, 0.0)]
    holds = solver("planning.footholds").Footholds(np.concatenate(surfaces), np.repeat([0, 1, 2], [len(s) for s in surfaces]),
                                    ("near bank", "plank", "far bank"), 0.1)
    track = stones_module.plan_crossing(holds, (0.0, -0.5), (0.0, 4.6), character)
    on_plank = (track.positions[:, 1] > 0.05) & (track.positions[:, 1] < 4.05)
    assert on_plank.sum() >= 4 and np.allclose(track.positions[on_plank, 2], 0.3)
    assert (np.abs(track.positions[on_plank, 0]) <= 0.2 + 1e-9).all()
    nearest = np.linalg.norm(track.positions[:, None, :2] - holds.points[None, :, :2], axis=2).min(axis=1)
    assert nearest.max() <= 0.05 + 1e-9
    plank_only = solver("planning.footholds").Footholds(surfaces[1], np.zeros(len(surfaces[1]), dtype=int), ("plank",), 0.1)
    with pytest.raises(solver("errors").PlanningError, match=r"is on no stone: the nearest, plank at \(0.00, 0.10\)"):
        stones_module.plan_crossing(plank_only, (0.0, -0.5), (0.0, 3.0), character)


def test_the_first_step_from_a_side_by_side_stance_is_within_a_leap(solver):
    """A stone a leap from the start's centre is more than a leap from the stance foot beside it: the first step
    goes by another stone rather than take that one."""
    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    reach = solver("planning.footholds").Reach.of(character)
    half = abs(character.hip_offsets[0, 0])
    ahead = 0.5 * (math.sqrt(reach.leap ** 2 - half ** 2) + reach.leap)  # within a leap of the centre, not of a foot
    positions = np.array([[0.0, 0.0, 0.0], [0.0, ahead, 0.0], [1.3, 0.86, 0.0], [0.0, ahead + 0.9, 0.0]])
    radii = np.array([0.11, 0.03, 0.03, 0.3])  # the small ones hold their centres only
    track = stones_module.plan_crossing(solver("planning.footholds").Stones(positions, radii), (0.0, 0.0), (0.0, ahead + 0.9),
                                        character)
    order = np.argsort(track.contact, kind="stable")
    step = np.linalg.norm(np.diff(track.positions[order, :2], axis=0), axis=1)
    assert step.max() <= reach.leap + 1e-9, step
    # By the side stone, two leaps: the one straight ahead (a leap and a step) is out of the stance foot's reach.
    assert np.allclose(track.positions[order[2], :2], (1.3, 0.86))


def test_pairs_within_match_every_pair(solver):
    pairs_within = solver("planning.neighbours").pairs_within
    rng = np.random.default_rng(3)
    points = np.concatenate([rng.uniform(-5.0, 5.0, (400, 2)), rng.normal(0.0, 0.05, (60, 2))])  # a dense knot
    i, j = pairs_within(points, 0.7)
    distance = np.linalg.norm(points[:, None] - points[None], axis=2)
    expected = np.argwhere((distance <= 0.7) & ~np.eye(len(points), dtype=bool))
    assert sorted(zip(i.tolist(), j.tolist())) == sorted(map(tuple, expected.tolist()))


def test_a_field_of_large_stones_plans_in_little_memory(solver):
    """60 stones a metre across offer 3,660 footholds: 13 million pairs, 563 MB (tracemalloc) when every pair was weighed at
    once; the grid of neighbour cells weighs only those near enough (tracemalloc counts numpy's arrays)."""
    import tracemalloc

    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    rng = np.random.default_rng(1)
    positions = np.column_stack([rng.uniform(0.0, 12.0, 60), rng.uniform(0.0, 8.0, 60), np.zeros(60)])
    positions[0], positions[-1] = (0.0, 0.0, 0.0), (12.0, 8.0, 0.0)
    stones = solver("planning.footholds").Stones(positions, np.full(60, 0.55))
    assert len(solver("planning.footholds").stone_footholds(stones).points) == 3660
    tracemalloc.start()
    try:
        track = stones_module.plan_crossing(stones, (0.0, 0.0), (12.0, 8.0), character)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.linalg.norm(track.positions[-2:, :2].mean(axis=0) - (12.0, 8.0)) < 0.1
    assert peak < 150e6, f"{peak / 1e6:.0f} MB"


def test_a_large_field_without_a_crossing_names_the_gap_in_little_memory(solver):
    """5,000 stones either side of a 4 m river: the gap named from the surfaces near enough to matter (the
    bottleneck route over pairs within a doubling bound), not from all 25 million pairs."""
    import tracemalloc

    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    rng = np.random.default_rng(2)
    positions = np.column_stack([rng.uniform(0.0, 40.0, 1500), rng.uniform(0.0, 40.0, 1500), np.zeros(1500)])
    positions[positions[:, 0] > 20.0, 0] += 4.0
    positions[0], positions[1] = (1.0, 1.0, 0.0), (43.0, 30.0, 0.0)
    stones = solver("planning.footholds").Stones(positions, np.full(1500, 0.05))  # one foothold each
    tracemalloc.start()
    try:
        with pytest.raises(solver("errors").PlanningError) as error:
            stones_module.plan_crossing(stones, (1.0, 1.0), (43.0, 30.0), character)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(error.value)
    near, far = (int(n) for n in re.findall(r"stone (\d+) \(", message))
    assert positions[near, 0] <= 20.0 < 24.0 <= positions[far, 0], message  # the two banks of the river
    gap = float(message.split(", is ")[-1].split(" m away")[0])
    assert gap >= 4.0 - 2 * 0.05 and peak < 150e6, (message, peak)


def test_the_gap_named_is_the_least_out_of_reach(solver):
    """Stone 1 is 1.77 m from each bank but 3 m up; the banks are 4.52 m apart: the least-bad way across is the
    long leap, and the message names it (a bound on the pairs weighed that stopped at the first route found named
    the 1.77 m one)."""
    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    stones = solver("planning.footholds").Stones(np.array([[0, 0, 0], [0, 2.75, 3.0], [0, 5.5, 0]], float), np.full(3, 0.5))
    with pytest.raises(solver("errors").PlanningError) as error:
        stones_module.plan_crossing(stones, (0.0, 0.0), (0.0, 5.5), character)
    assert re.search(r"stone 2 \(-?0\.00, 5\.50\), is 4\.52 m away, farther than the 1\.72 m", str(error.value)), error.value


def test_a_walk_across_one_big_bank(solver):
    """A bank 16 m across from its centre to near its edge: rings of footholds out to the edge a comfortable step
    apart (four rings spread over 8 m parted by 2 m, more than a leap: "its footholds part by more than...")."""
    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    bank = solver("planning.footholds").Stones(np.zeros((1, 3)), np.array([8.0]))
    track = stones_module.plan_crossing(bank, (0.0, 0.0), (0.0, 7.0), character)
    order = np.argsort(track.contact, kind="stable")
    step = np.linalg.norm(np.diff(track.positions[order, :2], axis=0), axis=1)
    assert stones_module.leaps(track) == 0 and step.max() <= solver("planning.footholds").Reach.of(character).walk
    assert np.linalg.norm(track.positions[-2:, :2].mean(axis=0) - (0.0, 7.0)) < 0.1


def test_a_field_of_too_many_footholds_is_refused_by_name(solver):
    stones_module, character = solver("planning.stones"), solver("character").preset("human")
    rng = np.random.default_rng(4)
    stones = solver("planning.footholds").Stones(np.column_stack([rng.uniform(0, 500, 2000), rng.uniform(0, 500, 2000),
                                                   np.zeros(2000)]), np.full(2000, 10.0))
    with pytest.raises(solver("errors").PlanningError, match=r"the stones offer [\d,]+ footholds, more than the 50,000"):
        stones_module.plan_crossing(stones, tuple(stones.positions[0, :2]), tuple(stones.positions[1, :2]), character)
