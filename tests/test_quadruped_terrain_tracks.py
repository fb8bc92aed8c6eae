"""Quadruped gait tracks on terrain and over jumps (issue 18; Torkos §3.4 footprints along a path, §6 the
jump onto and off a ramp): footprints stand on the terrain at the requested speed along the ground; a gap,
an obstacle or a ledge on the path becomes a flight of the gait's own kind, timed by ballistics; the
tracks solve; bad jumps and terrains are refused by name, from the API and the command line."""

import importlib
import json
import math
import re

import numpy as np
import pytest

from cli_run import needs_module_install, run_cli

G = 9.81


@pytest.fixture(scope="module")
def solver(addon):
    def module(name):
        return importlib.import_module(f"{addon}.solver.{name}")

    return module


def laid_out(solver, name, sections, **kwargs):
    gait_track = solver("quadruped.gait_track")
    character = solver("character").preset(name)
    laid = gait_track.layout(character, [gait_track.Section(*section) for section in sections], **kwargs)
    solver("track").validate(laid.track, allowed_feet=character.feet)
    return character, laid


def hips_of(character, track):
    return character.hip_offsets[[character.feet.index(f) for f in track.feet]]


def test_footprints_stand_on_a_hill_and_the_ramp_at_the_speed_along_the_ground(solver):
    terrains = solver("quadruped.terrains")
    # Up 15 degrees, a level top, down 15 degrees: every foot advances a stride along the ground per period.
    hill = terrains.hill(15.0, 3.0, 2.0, 1.0)
    dog, laid = laid_out(solver, "dog", [("trot", 2.0, 12.0)], terrain=hill)
    track = laid.track
    assert np.abs(track.positions[:, 2] - hill.heights(track.positions[:, :2])).max() <= 1e-3
    assert track.positions[:, 2].max() == pytest.approx(2.0 * math.tan(math.radians(15.0)), abs=1e-3)
    gaits = solver("quadruped.gaits")
    period = gaits.stride_of(gaits.GAITS["trot"], 2.0, dog) / 2.0
    for foot in dog.feet:
        mine = track.positions[track.feet == foot][np.argsort(track.contact[track.feet == foot])]
        advance = np.linalg.norm(np.diff(mine, axis=0), axis=1) / period
        assert np.abs(advance / 2.0 - 1.0).max() <= 0.03, (foot, advance)
    # The track carries its terrain, and the solver reads it from there.
    doc = solver("track").track_to_json(track)
    assert doc["terrain"] == hill.to_json()
    _character, terrain = solver("biped").resolve(solver("track").track_from_json(json.loads(json.dumps(doc))))
    assert np.array_equal(terrain.values, hill.values)
    # Torkos' ramp: on the ground or on the platform, never on a riser, at the speed along the path.
    ramp, jumps = terrains.ramp(4.0, 3.0, 0.35)
    dog, laid = laid_out(solver, "dog", [("trot", 2.5, 10.0)], terrain=ramp, jumps=jumps)
    track = laid.track
    z = track.positions[:, 2]
    assert np.abs(z - ramp.heights(track.positions[:, :2])).max() <= 1e-3
    assert np.all((np.abs(z) <= 1e-3) | (np.abs(z - 0.35) <= 1e-3))
    y = track.positions[:, 1]
    on = (y > 4.0) & (y < 7.0)
    assert on.sum() >= 4 and np.all(np.abs(z[on] - 0.35) <= 1e-3) and np.all(np.abs(z[~on]) <= 1e-3)
    for edge in (3.98, 7.02):  # the risers' middles: no foot on or over them
        assert np.abs(y - edge).min() >= 0.01 + dog.foot_length / 2
    # The body keeps its speed, on the ground, on the platform and in the air: a footprint lies under its
    # hip where the body is at mid-stance, 2.5 m/s times the time.
    mid = 0.5 * (track.contact + track.liftoff)
    assert np.abs(y - hips_of(dog, track)[:, 1] - 2.5 * mid).max() <= 1e-9


JUMPS = [("dog", "trot", 2.0, 1.0), ("dog", "pace", 2.0, 1.0), ("dog", "canter", 4.0, 1.0),
         ("dog", "rotary_gallop", 7.0, 1.5), ("horse", "gallop", 9.0, 2.0), ("dog", "bound", 4.0, 1.0),
         ("dog", "pronk", 2.5, 0.3), ("dog", "walk", 1.0, 0.2)]
JUMP_AT = 6.0  # metres along the path (the horse's gallop, 5.4 m a stride, jumps at 3 strides: 16 m)
# The first feet down after each gait's own flight (Hildebrand's templates): a pair of the trot or the pace,
# the gallop's and canter's gathered flight onto the hinds (the trailing hind first), the bound's either pair,
# the pronk's four; a walk has no flight, so its jump stride is a trot's.
LANDINGS = {"trot": [{"LH", "RF"}, {"RH", "LF"}], "pace": [{"LH", "LF"}, {"RH", "RF"}], "canter": [{"RH"}],
            "rotary_gallop": [{"RH"}], "gallop": [{"RH"}], "bound": [{"LH", "RH"}, {"LF", "RF"}],
            "pronk": [{"LH", "RH", "LF", "RF"}]}
LANDINGS["walk"] = LANDINGS["trot"]


def own_flight(solver, character, template, speed):
    """The gait's longest pause with no foot down at this speed (seconds), from its template."""
    gaits = solver("quadruped.gaits")
    h = character.leg_length_nominal
    duty, period = template.duty_at(gaits.froude(speed, h)), gaits.stride_of(template, speed, character) / speed
    t = np.linspace(0.0, 2.0, 400001)
    down = (((t[:, None] - np.array(list(template.phases.values()))[None]) % 1.0) < duty).any(axis=1)
    edges = np.flatnonzero(np.diff(down.astype(int)))
    return max(b - a for a, b in zip(edges[:-1], edges[1:]) if not down[a + 1]) * (t[1] - t[0]) * period


def groups(track, rows):
    """(time, feet) of the touchdowns at rows, in time order, simultaneous ones together."""
    rows = rows[np.argsort(track.contact[rows], kind="stable")]
    out = []
    for i in rows:
        if out and abs(out[-1][0] - track.contact[i]) < 1e-9:
            out[-1][1].add(str(track.feet[i]))
        else:
            out.append((track.contact[i], {str(track.feet[i])}))
    return out


def follows(template, sequence):
    """Do the touchdown groups come in the template's cyclic order?"""
    cycle = [{f for f, p in template.phases.items() if p == phase} for phase in sorted(set(template.phases.values()))]
    start = [i for i, group in enumerate(cycle) if group == sequence[0]]
    return bool(start) and all(sequence[k] == cycle[(start[0] + k) % len(cycle)] for k in range(len(sequence)))


@pytest.mark.parametrize("name, gait, speed, gap", JUMPS)
def test_a_jump_is_a_flight_of_the_gaits_own_kind_timed_by_ballistics(solver, name, gait, speed, gap):
    jumps = solver("quadruped.jumps")
    start = 16.0 if name == "horse" else JUMP_AT
    end = start + gap
    character, laid = laid_out(solver, name, [(gait, speed, start + 8.0 + 2 * gap)], jumps=[jumps.Jump(start, gap)])
    track, (flight,) = laid.track, laid.flights
    y, half = track.positions[:, 1], character.foot_length / 2
    # No foot lands in the gap, nor hangs over its edge.
    assert not np.any((y > start - half) & (y < end + half))
    # One flight spans it: every footprint before the gap is lifted before any after it touches down.
    before, after = np.flatnonzero(y < start), np.flatnonzero(y > end)
    takeoff, landing = track.liftoff[before].max(), track.contact[after].min()
    assert track.contact[before].max() < landing and landing - takeoff > 0.0
    assert (takeoff, landing) == pytest.approx((flight.takeoff, flight.landing), abs=1e-12)
    # Of the gait's own kind: its own landing, and its footfall order kept for two strides either side.
    template = solver("quadruped.gaits").GAITS["trot" if gait == "walk" else gait]
    ahead, behind = groups(track, before)[-2 * len(set(template.phases.values())):], groups(track, after)
    assert behind[0][1] in LANDINGS[gait]
    assert follows(template, [feet for _t, feet in ahead])
    assert follows(template, [feet for _t, feet in behind[:2 * len(set(template.phases.values()))]])
    if gait == "walk":  # the walk resumes after the jump stride
        assert follows(solver("quadruped.gaits").GAITS["walk"], [feet for _t, feet in behind[-4:]])
    assert flight.gait == template.name
    # Ballistic for the body's speed: the body keeps its speed through the approach and the flight (each
    # footprint under its hip where the body is at mid-stance, speed x time), and the flight is the shortest
    # that carries the feet over: the take-off's last footprint at the gap's margin, the landing's first at
    # the far margin (1 mm), both half a foot and 2 cm clear; or, where the gait's own flight is longer
    # than that (the pronk's), that flight unstretched.
    mid = 0.5 * (track.contact + track.liftoff)  # (the events merged at most EVENT_SPACING)
    merged = speed * solver("quadruped.gait_track").EVENT_SPACING
    assert np.abs(y - hips_of(character, track)[:, 1] - speed * mid).max() <= merged + 1e-9
    margin = half + 0.02
    assert y[before].max() == pytest.approx(start - margin, abs=1e-3)
    duration = landing - takeoff
    if y[after].min() > end + margin + 1e-3:
        assert duration == pytest.approx(own_flight(solver, character, template, speed), rel=1e-3)
    else:
        assert y[after].min() == pytest.approx(end + margin, abs=1e-3)
    # Level ground: the centre of mass leaves and lands at one height, vz0 = g T / 2, the apex g T^2 / 8 up,
    # at most a hip height.
    assert flight.duration == pytest.approx(duration, abs=1e-12)
    assert flight.vz0 == pytest.approx(G * duration / 2, rel=1e-3)
    assert flight.rise == pytest.approx(G * duration ** 2 / 8, rel=2e-3)
    assert flight.rise <= character.leg_length_nominal


def test_a_jump_on_a_turn_keeps_every_foot_out_of_the_gap(solver):
    """On a left turn of 4 m the gap is a stretch of the curved path: measured along the centreline (each
    footprint's angle about the turn's centre times its radius), no foot lands in it, inside or outside feet."""
    jumps = solver("quadruped.jumps")
    dog, laid = laid_out(solver, "dog", [("trot", 2.5, 15.0)], turn_radius=4.0, jumps=[jumps.Jump(6.0, 0.8)])
    track, (flight,) = laid.track, laid.flights
    order = np.argsort(track.contact)
    angle = np.unwrap(np.arctan2(track.positions[order, 1], track.positions[order, 0] + 4.0))
    along = np.empty(len(track))
    along[order] = 4.0 * angle
    assert not np.any((along > 6.0 - dog.foot_length / 2) & (along < 6.8 + dog.foot_length / 2))
    before, after = along < 6.0, along > 6.8
    assert track.liftoff[before].max() == pytest.approx(flight.takeoff)
    assert track.contact[after].min() == pytest.approx(flight.landing) and flight.landing > flight.takeoff


def test_ledges_obstacles_and_slopes_are_timed_by_the_parabola(solver):
    jumps, terrains = solver("quadruped.jumps"), solver("quadruped.terrains")
    # Onto the platform the parabola's apex is the ledge: the shortest flight not still rising when it lands,
    # T = sqrt(2 dz / g); off it the body leaves level (vz0 = 0) and falls dz in the same time.
    ramp, on_off = terrains.ramp(4.0, 3.0, 0.35)
    dog, laid = laid_out(solver, "dog", [("trot", 2.5, 10.0)], terrain=ramp, jumps=on_off)
    onto, off = laid.flights
    fall = math.sqrt(2 * 0.35 / G)
    assert (onto.dz, off.dz) == pytest.approx((0.35, -0.35), abs=1e-3)
    assert (onto.duration, off.duration) == pytest.approx((fall, fall), rel=1e-6)
    assert (onto.vz0, off.vz0) == pytest.approx((math.sqrt(2 * G * 0.35), 0.0), abs=1e-6)
    track = laid.track
    for flight in (onto, off):  # every foot down before the flight stands on one level, every one after on the other
        up = track.liftoff <= flight.takeoff + 1e-9
        z = track.positions[:, 2]
        assert np.ptp(z[up & (track.contact > flight.takeoff - 0.5)]) < 1e-3
    # An obstacle 0.5 m high over a 0.3 m stretch: the apex clears it, T = 2 sqrt(2 h / g).
    dog, laid = laid_out(solver, "dog", [("trot", 3.0, 12.0)], jumps=[jumps.Jump(6.0, 0.3, 0.5)])
    (log,) = laid.flights
    assert log.duration == pytest.approx(2 * math.sqrt(2 * 0.5 / G), rel=1e-6) and log.rise == pytest.approx(0.5)
    y = laid.track.positions[:, 1]
    assert not np.any((y > 6.0 - dog.foot_length / 2) & (y < 6.3 + dog.foot_length / 2))
    # A gap 0.6 m along a 15 degree slope, up and down: measured along the ground, the body keeping its speed
    # along it; the parabola timed against the slope's line (a uniform slope is no ledge): the shortest flight
    # that carries the feet over, symmetric about that line (vz0 = v sin 15 + g T / 2 up the slope).
    for degrees in (15.0, -15.0):
        slope = terrains.slope(degrees)
        dog, laid = laid_out(solver, "dog", [("trot", 2.0, 12.0)], terrain=slope, jumps=[jumps.Jump(5.0, 0.6)])
        track, (flight,) = laid.track, laid.flights
        sine, cos = math.sin(math.radians(degrees)), math.cos(math.radians(degrees))
        along = track.positions[:, 1] / cos  # the plane passes through the origin: metres along the ground
        half = dog.foot_length / 2
        assert not np.any((along > 5.0 - half) & (along < 5.6 + half))
        mid = 0.5 * (track.contact + track.liftoff)
        assert np.abs(along - hips_of(dog, track)[:, 1] - 2.0 * mid).max() <= 1e-6
        after = along[track.contact >= flight.landing - 1e-9]
        assert after.min() == pytest.approx(5.6 + half + 0.02, abs=1e-3)
        assert np.sign(flight.dz) == np.sign(degrees) and flight.ledge == pytest.approx(0.0, abs=1e-3)
        assert flight.rise == pytest.approx(G * flight.duration ** 2 / 8, rel=1e-3)
        up_the_line = flight.vz0 - G * flight.duration / 2  # the slope's own rise under the body
        assert up_the_line == pytest.approx(2.0 * sine, rel=1e-3)


def test_solved_slope_and_ramp_are_finite_with_ballistic_flights(solver):
    """The current solver (one mass; the two-mass body is coming): finite motion, the speed along the
    slope, the body above the terrain, flights exactly ballistic, little non-physical force."""
    terrains, biped = solver("quadruped.terrains"), solver("biped")
    slope = terrains.slope(15.0)
    dog, laid = laid_out(solver, "dog", [("trot", 2.0, 8.0)], terrain=slope)
    motion = biped.solve(laid.track, fps=120)
    assert np.isfinite(motion.com).all() and np.isfinite(motion.com_acceleration).all()
    t = motion.times
    steady = np.flatnonzero((t > 0.25 * t[-1]) & (t < 0.75 * t[-1]))
    first, last = steady[[0, -1]]
    speed = np.linalg.norm(motion.com[last] - motion.com[first]) / (t[last] - t[first])
    assert speed == pytest.approx(2.0, rel=0.03)  # along the slope, in 3D
    assert np.all(motion.com[:, 2] - slope.heights(motion.com[:, :2]) > 0.5 * dog.leg_length_nominal)
    assert motion.report["non_physical_force"]["mean"] <= 0.05
    ramp, on_off = terrains.ramp(4.0, 3.0, 0.35)
    dog, laid = laid_out(solver, "dog", [("trot", 2.5, 10.0)], terrain=ramp, jumps=on_off)
    motion = biped.solve(laid.track, fps=120)
    assert np.isfinite(motion.com).all() and np.isfinite(motion.com_acceleration).all()
    for flight in laid.flights:
        inside = (motion.times > flight.takeoff + 1e-6) & (motion.times < flight.landing - 1e-6)
        assert inside.sum() >= 0.9 * flight.duration * 120 and not motion.contact[inside].any()
        falling = motion.com_acceleration[inside]
        assert np.all(np.abs(falling[:, 2] + G) <= 0.02 * G) and np.all(np.abs(falling[:, :2]) <= 0.02 * G)
    assert np.all(motion.com[:, 2] - ramp.heights(motion.com[:, :2]) > 0.3 * dog.leg_length_nominal)
    assert motion.report["non_physical_force"]["mean"] <= 0.05


def test_bad_jumps_and_terrains_are_refused_naming_them(solver):
    jumps, terrains = solver("quadruped.jumps"), solver("quadruped.terrains")
    gait_track, errors = solver("quadruped.gait_track"), solver("errors")
    dog = solver("character").preset("dog")

    def trot(*given, terrain=None, distance=10.0):
        return gait_track.layout(dog, [gait_track.Section("trot", 2.0, distance)], terrain=terrain, jumps=given)

    with pytest.raises(jumps.JumpError, match=r"jump 1 \(gap 4 to 7 m along the path\) is longer than a trot at "
                                              r"2 m/s can fly: .* at this speed it clears at most about") as caught:
        trot(jumps.Jump(4.0, 3.0))
    longest = float(re.search(r"clears at most about ([0-9.]+) m", str(caught.value)).group(1))
    trot(jumps.Jump(4.0, 0.99 * longest))  # the longest named is the longest it clears (within 1 %)
    with pytest.raises(jumps.JumpError, match="longer than a trot"):
        trot(jumps.Jump(4.0, 1.01 * longest))
    for given, message in (
            ((jumps.Jump(4.0, 1.0), jumps.Jump(4.5, 1.0)),
             r"jump 2 \(gap 4.5 to 5.5 m along the path\) overlaps jump 1 \(gap 4 to 5 m"),
            ((jumps.Jump(4.0, 0.5), jumps.Jump(4.6, 0.5)), r"jump 2 \(gap 4.6 to 5.1 m .*\) comes too soon after"),
            ((jumps.Jump(0.1, 0.5),), r"jump 1 \(gap 0.1 to 0.6 m .*\) is too near the path's start"),
            ((jumps.Jump(50.0, 1.0),), r"jump 1 \(gap 50 to 51 m .*\): the path ends before a stride has landed"),
            ((jumps.Jump(float("nan"), 1.0),), "jump 1: start must be a finite number"),
            ((jumps.Jump(4.0, -1.0),), "jump 1: length must be positive"),
            ((jumps.Jump(4.0, 0.3, 0.9),), r"clearing 0.90 m takes a rise of 0.90 m; a dog \(hip height 0.71 m\) "
                                          r"rises at most 0.71 m")):
        with pytest.raises(jumps.JumpError, match=message):
            trot(*given)
    with pytest.raises(errors.FootprintError, match="a slope of 80 degrees is steeper than the 45 degrees"):
        terrains.slope(80.0)
    high, on_off = terrains.ramp(4.0, 3.0, 0.9)
    with pytest.raises(jumps.JumpError, match=r"the jump onto the ramp \(gap .*\): the ground after it is 0.90 m "
                                              r"higher than before it; a dog \(hip height 0.71 m\) jumps at most"):
        trot(*on_off, terrain=high)
    low, _on_off = terrains.ramp(4.0, 3.0, 0.35)
    with pytest.raises(errors.FootprintError, match=r"the ground 3.9\d m along the path is 8\d degrees steep"):
        trot(terrain=low)  # the ramp without its jumps: a riser is no ground to trot up
    with pytest.raises(errors.TrackFormatError, match="heightfield heights must be a grid"):
        solver("terrain").terrain_from_json({"heightfield": {"origin": [0, 0], "spacing": 1, "heights": [[0, 1], [2]]}})


@needs_module_install
def test_gait_command_takes_terrain_and_jumps_and_refuses_bad_ones(addon, tmp_path, capsys):
    out = tmp_path / "ramp.json"
    proc = run_cli("gait", "--character", "dog", "--gait", "trot", "--speed", "2.5", "--distance", "12",
                   "--ramp", "4", "3", "0.35", "--jump", "9", "0.4", "--output", out)
    assert proc.returncode == 0, proc.stderr
    assert "gait: the jump onto the ramp (gap 3.97 to 4.01 m along the path): a trot flight of 0.267 s" in proc.stdout
    assert "gait: --jump 1 (gap 9 to 9.4 m along the path): a trot flight of" in proc.stdout
    doc = json.loads(out.read_text())
    assert "heightfield" in doc["terrain"]
    heights = sorted({round(fp["position"][2], 3) for fp in doc["footprints"]})
    assert heights == [0.0, 0.35]
    assert run_cli("solve", out, "--output", tmp_path / "m.json").returncode == 0
    # A terrain file: a track's "terrain" object.
    terrain = tmp_path / "terrain.json"
    terrain.write_text(json.dumps({"heightfield": {"origin": [-5, -5], "spacing": 20, "heights": [[-1, -1], [1, 1]]}}))
    out = tmp_path / "hill.json"
    proc = run_cli("gait", "--character", "dog", "--gait", "trot", "--speed", "2", "--distance", "6",
                   "--terrain", terrain, "--output", out)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["terrain"] == json.loads(terrain.read_text())
    assert all(fp["position"][2] == pytest.approx(-1 + (fp["position"][1] + 5) / 10) for fp in doc["footprints"])
    malformed, ragged = tmp_path / "malformed.json", tmp_path / "ragged.json"
    malformed.write_text('{"heightfield": ')
    ragged.write_text(json.dumps({"heightfield": {"origin": [0, 0], "spacing": 1, "heights": [[0, 1], [2]]}}))
    bad = tmp_path / "bad.json"
    cli = importlib.import_module(f"{addon}.footprint_addon.cli")  # the same main(), in this process: quicker
    for args, message in (
            (("--jump", "4", "3"), "--jump 1 (gap 4 to 7 m along the path) is longer than a trot at 2 m/s can fly"),
            (("--jump", "4", "1", "--jump", "4.5", "1"),
             "--jump 2 (gap 4.5 to 5.5 m along the path) overlaps --jump 1 (gap 4 to 5 m along the path)"),
            (("--slope", "80"), "--slope 80: a slope of 80 degrees is steeper than the 45 degrees a gait walks on"),
            (("--terrain", malformed), f"{malformed}: malformed JSON at line 1"),
            (("--terrain", ragged), f"{ragged}: terrain: heightfield heights must be a grid"),
            (("--jump", "4", "x"), "--jump 4 x: give START LENGTH [HEIGHT]"),
            (("--ramp", "4", "3", "0.35", "--turn-radius", "5"), "--ramp lies across the straight path")):
        code = cli.main(["gait", "--character", "dog", "--gait", "trot", "--speed", "2", "--distance", "10",
                         "--output", str(bad), *map(str, args)])
        stderr = capsys.readouterr().err
        assert code == 1 and message in stderr, (args, stderr)
        assert not bad.exists()


def test_a_jump_on_a_curved_path_keeps_every_foot_out_of_the_gap(solver):
    """Along an S-curve given as points (two 4 m arcs, left then right), a 0.8 m gap astride the inflection:
    measured along the exact curve (each footprint's body, less its hip, placed on it), no foot lands within
    half a foot of the gap; one flight spans it, its take-off's last footprints 2 cm and half a foot short of
    it and its landing's first as far past it."""
    jumps = solver("quadruped.jumps")
    radius, turn = 4.0, np.pi / 3
    s1 = radius * turn
    centre2 = np.array([radius * (np.cos(turn) - 1.0), radius * np.sin(turn)]) + radius * np.array([np.cos(turn), np.sin(turn)])

    def at(s):
        first = s <= s1
        h = np.where(first, s / radius, turn - (s - s1) / radius)
        p1 = np.stack([radius * (np.cos(h) - 1.0), radius * np.sin(h)], axis=-1)
        return np.where(first[:, None], p1, centre2 - radius * np.stack([np.cos(h), np.sin(h)], axis=-1))

    length = 2 * s1
    points = at(np.linspace(0.0, length, 400))
    start, gap = s1 - 0.4, 0.8
    dog, laid = laid_out(solver, "dog", [("trot", 2.5, length - 1.5)], path=points, jumps=[jumps.Jump(start, gap)])
    track, (flight,) = laid.track, laid.flights
    dense_s = np.linspace(-1.0, length, 40001)
    dense = at(np.clip(dense_s, 0.0, length))
    dense[dense_s < 0] = np.column_stack([np.zeros((dense_s < 0).sum()), dense_s[dense_s < 0]])  # straight behind
    along = dense_s[np.argmin(np.linalg.norm(dense[None] - track.positions[:, None, :2], axis=-1), axis=1)]
    half = dog.foot_length / 2
    assert not np.any((along > start - half) & (along < start + gap + half))
    before, after = along < start, along > start + gap
    assert track.liftoff[before].max() == pytest.approx(flight.takeoff)
    assert track.contact[after].min() == pytest.approx(flight.landing) and flight.landing > flight.takeoff
    # (within a centimetre: on the curve a footprint's place along the path is its hip's, across the turn)
    assert along[before].max() == pytest.approx(start - half - 0.02, abs=1e-2)
    assert along[after].min() == pytest.approx(start + gap + half + 0.02, abs=1e-2)
    assert flight.vz0 == pytest.approx(G * flight.duration / 2, rel=1e-3)


def test_a_curb_lower_than_a_step_is_walked_a_higher_one_refused(solver):
    """A riser of at most a quarter of the hip height (gait_track.STEP) is stepped up: a dog (0.71 m hips)
    trots up a 15 cm curb with no jump, every footprint on its side of it; a 25 cm one needs a jump."""
    terrain_module, errors = solver("terrain"), solver("errors")
    for height, walked in ((0.15, True), (0.25, False)):
        y = np.array([-10.0, 3.98, 4.02, 20.0])  # a riser 4 cm wide
        rows = np.arange(-10.0, 20.0 + 1e-9, 0.02)
        z = np.interp(rows, y, [0.0, 0.0, height, height])
        field = terrain_module.HeightField((-0.02, -10.0), 0.02, np.column_stack([z, z]))
        if walked:
            dog, laid = laid_out(solver, "dog", [("trot", 2.0, 8.0)], terrain=field)
            track = laid.track
            assert np.abs(track.positions[:, 2] - field.heights(track.positions[:, :2])).max() <= 1e-3
            assert track.positions[:, 2].max() == pytest.approx(height)
        else:
            with pytest.raises(errors.FootprintError, match=r"the ground 3.9\d m along the path is \d\d degrees steep"):
                laid_out(solver, "dog", [("trot", 2.0, 8.0)], terrain=field)


def test_jumps_are_found_from_the_grounds_heights_along_a_path(solver):
    """jumps.find on a profile sampled every centimetre under three lines (a dog: a step 0.18 m, a body 0.66 m):
    a gap (no ground) with a ledge across it, a 0.3 m box 0.4 m long (an obstacle, its height above the
    ground before it), a curb of 0.1 m (walked), a ditch 0.5 m wide and 0.4 m deep (a gap), a platform 0.3 m
    up and 2 m long (two ledges: onto it and off), a 0.5 m block under the left feet's line alone (an obstacle:
    every line counts); no ground at the ends is left to the footprints there."""
    jumps = solver("quadruped.jumps")
    u = np.round(np.arange(0.0, 20.0, 0.01), 10)
    z = np.zeros((3, len(u)))
    z[:, (u > 1.0) & (u < 1.8)] = np.nan  # gap
    z[:, u >= 1.8] += 0.05  # the far side 5 cm higher
    z[:, (u >= 4.0) & (u < 4.4)] += 0.3  # box
    z[:, u >= 6.0] += 0.1  # curb
    z[:, (u >= 8.0) & (u < 8.5)] -= 0.4  # ditch
    z[:, (u >= 10.0) & (u < 12.0)] += 0.3  # platform
    z[0, (u >= 14.0) & (u < 14.5)] += 0.5  # a bank under the left feet only
    z[:, u > 19.9] = np.nan
    found = jumps.find(u, z, 0.18, 0.66)
    kinds = [(f.kind, round(f.u0, 2), round(f.u1, 2), round(f.height, 2)) for f in found]
    assert kinds == [("gap", 1.0, 1.8, 0.0), ("obstacle", 3.99, 4.4, 0.3), ("gap", 7.99, 8.5, 0.0),
                     ("ledge", 9.99, 10.0, 0.0), ("ledge", 11.99, 12.0, 0.0), ("obstacle", 13.99, 14.5, 0.5)]
