"""Quadruped gaits (Torkos §3.3; Hildebrand's footfall phases, Alexander's dynamic similarity): the tracks
`gait` makes keep the footfall order and phases, the speed (along the ground, up and down 15 degree slopes
too) and the flights of the gait they name, and solve into motion that is physical (flat ground; terrain and
jumps: test_quadruped_terrain_tracks.py)."""

import importlib
import json

import numpy as np
import pytest

from cli_run import needs_module_install, run_cli
from conftest import FIG1

CASES = [("dog", "walk", 0.8), ("dog", "trot", 2.0), ("dog", "trot", 4.0), ("dog", "pace", 2.0),
         ("dog", "rotary_gallop", 6.0), ("horse", "gallop", 9.0), ("horse", "canter", 5.0), ("dog", "bound", 4.0),
         ("dog", "pronk", 2.5), ("cat", "trot", 1.2)]


@pytest.fixture(scope="module")
def solver(addon):
    def module(name):
        return importlib.import_module(f"{addon}.solver.{name}")

    return module


def has_flight(gait, duty):
    """Is there a moment of the stride with no foot down? (the template sampled finely over one stride)"""
    t = np.linspace(0.0, 1.0, 2001, endpoint=False)
    down = ((t[:, None] - np.array(list(gait.phases.values()))[None]) % 1.0) < duty
    return bool((~down.any(axis=1)).any())


def make(solver, name, gait, speed, distance=25.0, turn_radius=None, terrain=None):
    character = solver("character").preset(name)
    track = solver("quadruped.gait_track").gait_track(character, gait, speed, distance, turn_radius, terrain=terrain)
    return character, track


def track_hips(solver, character, track, gait, speed):
    """Each footprint's hip offset with its across-the-body part at the gait's track width at this speed (the
    footprints' lateral place: gaits.Gait.width_at)."""
    gaits = solver("quadruped.gaits")
    width = gaits.GAITS[gait].width_at(gaits.froude(speed, character.leg_length_nominal))
    return character.hip_offsets[[character.feet.index(f) for f in track.feet]] * [width, 1.0, 1.0]


def stride_of(solver, character, gait, speed):
    gaits = solver("quadruped.gaits")
    return gaits.stride_of(gaits.GAITS[gait], speed, character), gaits.GAITS[gait]


@pytest.mark.parametrize("slope", [None, 15.0, -15.0], ids=["flat", "up15", "down15"])
@pytest.mark.parametrize("name, gait, speed", CASES)
def test_footfall_order_phases_and_speed_are_the_gaits(solver, name, gait, speed, slope):
    """On flat ground and up and down a 15 degree slope: the footfalls, and the speed along the ground."""
    terrain = None if slope is None else solver("quadruped.terrains").slope(slope)
    character, track = make(solver, name, gait, speed, terrain=terrain)
    stride, template = stride_of(solver, character, gait, speed)
    period = stride / speed
    # Alexander 1976: stride / hip height = 2.3 Fr^0.3, or shorter where a stance of the gait's duty factor
    # would sweep a leg past its reach with the girdle at GIRDLE_AT_ENDS of standing (gaits.stance_reach)
    gaits = solver("quadruped.gaits")
    h = character.leg_length_nominal
    froude = speed ** 2 / (9.81 * h)
    reach = gaits.stance_reach(character)
    assert np.all(reach ** 2 / 4 + (gaits.GIRDLE_AT_ENDS * character.nominal_lengths) ** 2
                  == pytest.approx(character.max_lengths ** 2))
    duty = template.duty_at(froude)
    assert stride == pytest.approx(min(2.3 * froude ** 0.3 * h, reach.min() / duty), rel=1e-9)
    first = {foot: np.sort(track.contact[track.feet == foot]) for foot in template.phases}
    reference = min(template.phases, key=template.phases.get)
    for foot, phase in template.phases.items():  # each stride's touchdowns, relative to the first foot's
        offsets = ((first[foot] - first[reference]) / period) % 1.0
        expected = (phase - template.phases[reference]) % 1.0
        error = np.abs((offsets - expected + 0.5) % 1.0 - 0.5)
        assert error.max() <= 0.03, (foot, offsets, expected)
    # The footfall order within a stride is the template's.
    stride0 = np.argsort(track.contact, kind="stable")[:4]
    assert [template.phases[f] for f in track.feet[stride0]] == sorted(template.phases.values())
    # Mean speed along the ground: each foot's footprints advance one stride (on the ground: in 3D) per period,
    # and each stands on the terrain.
    for foot in template.phases:
        positions = track.positions[track.feet == foot][np.argsort(track.contact[track.feet == foot])]
        advance = np.linalg.norm(np.diff(positions, axis=0), axis=1) / period
        assert np.abs(advance / speed - 1.0).max() <= 0.03
    ground = np.zeros(len(track)) if terrain is None else terrain.heights(track.positions[:, :2])
    assert np.abs(track.positions[:, 2] - ground).max() <= 1e-3
    if slope is not None:  # in plan the body covers v cos 15 (the speed is along the slope, not across the map)
        lh = track.positions[track.feet == "LH"][np.argsort(track.contact[track.feet == "LH"])]
        plan = np.diff(lh[:, 1]) / period
        assert np.allclose(plan, speed * np.cos(np.radians(15.0)), rtol=0.01)
        assert np.all(np.sign(np.diff(lh[:, 2])) == np.sign(slope))


@pytest.mark.parametrize("name, gait, speed", CASES)
def test_the_solved_motion_is_physical_with_flights_only_where_the_gait_has_them(solver, name, gait, speed):
    character, track = make(solver, name, gait, speed)
    motion = solver("biped").solve(track, fps=120)
    gaits = solver("quadruped.gaits")
    template = gaits.GAITS[gait]
    duty = template.duty_at(gaits.froude(speed, character.leg_length_nominal))
    t = motion.times
    steady = (t > 0.25 * t[-1]) & (t < 0.75 * t[-1])
    flight = ~motion.contact.any(axis=1)
    assert bool((flight & steady).any()) == has_flight(template, duty)
    assert not (gait == "walk" and flight.any())
    # Mean speed of the centre of mass over the steady strides within 3 % of the request.
    first, last = np.flatnonzero(steady)[[0, -1]]
    mean_speed = np.linalg.norm(motion.com[last, :2] - motion.com[first, :2]) / (t[last] - t[first])
    assert mean_speed == pytest.approx(speed, rel=0.03)
    # Flights are ballistic: g within 2 % vertically and 0.02 g horizontally.
    falling = motion.com_acceleration[flight]
    assert np.all(np.abs(falling[:, 2] + 9.81) <= 0.02 * 9.81) and np.all(np.abs(falling[:, :2]) <= 0.02 * 9.81)
    report = motion.report
    assert report["non_physical_force"]["mean"] <= 0.05
    assert motion.com[:, 2].min() > 0.0 and motion.com[steady, 2].min() > 0.5 * character.leg_length_nominal
    if gait != "canter":  # the horse's canter reaches 1 cm past l_max: its three-beat stance wants the two-mass body
        assert all(leg["max"] <= leg["max_allowed"] + 1e-3 for leg in report["leg_length"].values())


def test_auto_picks_the_gait_by_froude_number(solver):
    gaits = solver("quadruped.gaits")
    dog, horse = solver("character").preset("dog"), solver("character").preset("horse")
    h = dog.leg_length_nominal
    for froude, expected in ((0.2, "walk"), (1.0, "trot"), (4.0, "rotary_gallop")):
        assert gaits.choose("auto", np.sqrt(froude * 9.81 * h), dog).name == expected
    assert gaits.choose("auto", np.sqrt(4.0 * 9.81 * horse.leg_length_nominal), horse).name == "gallop"


def test_a_turn_is_honoured_by_every_foot(solver):
    character, track = make(solver, "dog", "trot", 3.0, distance=8.0, turn_radius=4.0)
    # Every footprint's heading is the path's at its mid-stance, turning left (counter-clockwise).
    order = np.argsort(track.contact)
    stride = solver("quadruped.gaits").stride_of(solver("quadruped.gaits").GAITS["trot"], 3.0, character)
    assert np.all(np.diff(track.headings[order]) >= -1e-12)
    assert track.headings.max() == pytest.approx(2.0, abs=stride / 4.0)  # (whole strides: up to one more)
    # ...and each foot lands under its hip (across the path at the trot's track width), turned with the path:
    # the inside feet on a smaller circle.
    centre = np.array([-4.0, 0.0])
    radius = np.linalg.norm(track.positions[:, :2] - centre, axis=1)
    hips = track_hips(solver, character, track, "trot", 3.0)
    assert np.allclose(radius, np.hypot(4.0 + hips[:, 0], hips[:, 1]), atol=1e-9)
    assert radius[np.isin(track.feet, ["LH", "LF"])].max() < radius[np.isin(track.feet, ["RH", "RF"])].min()
    # A right turn (negative radius): headings fall, the right feet on the inner circle.
    _character, right = make(solver, "dog", "trot", 3.0, distance=8.0, turn_radius=-4.0)
    order = np.argsort(right.contact)
    assert np.all(np.diff(right.headings[order]) <= 1e-12)
    assert right.headings.min() == pytest.approx(-2.0, abs=stride / 4.0)
    radius = np.linalg.norm(right.positions[:, :2] - np.array([4.0, 0.0]), axis=1)
    assert radius[np.isin(right.feet, ["RH", "RF"])].max() < radius[np.isin(right.feet, ["LH", "LF"])].min()


@needs_module_install
def test_gait_command_writes_a_track_that_solves_and_refuses_bad_input(tmp_path):
    out = tmp_path / "trot.json"
    proc = run_cli("gait", "--character", "dog", "--gait", "trot", "--speed", "2.0", "--distance", "10",
                   "--output", out)
    assert proc.returncode == 0 and "gait: dog trot at 2.0 m/s" in proc.stdout, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["character"] == "dog" and {fp["foot"] for fp in doc["footprints"]} == {"LH", "RH", "LF", "RF"}
    assert run_cli("solve", out, "--output", tmp_path / "m.json").returncode == 0
    # Standing at both ends by default (all four down at 0, all four lifting at the end); off: mid-gait.
    ends = lambda d: (sum(fp["contact"] == 0 for fp in d["footprints"]),  # noqa: E731
                      sum(fp["liftoff"] == max(f["liftoff"] for f in d["footprints"]) for fp in d["footprints"]))
    assert ends(doc) == (4, 4)
    plain = tmp_path / "plain.json"
    assert run_cli("gait", "--character", "dog", "--gait", "trot", "--speed", "2.0", "--distance", "10",
                   "--no-start-standing", "--no-stop-standing", "--output", plain).returncode == 0
    assert ends(json.loads(plain.read_text())) == (2, 2)  # a trot's diagonal pair
    bad = tmp_path / "bad.json"
    for args, code, message in (
            (("--gait", "hop", "--speed", "2"), 1, "unknown gait 'hop'; expected one of"),
            (("--gait", "walk,trot", "--speed", "2"), 1, "give 2, 1 and 1 values"),
            (("--gait", "walk", "--speed", "fast"), 1, "--speed 'fast': expected numbers"),
            (("--gait", "walk", "--speed", "20"), 1, "20 m/s is outside what a walk of 'dog'"),
            (("--gait", "gallop", "--speed", "0.5"), 1, "0.5 m/s is outside what a gallop of 'dog'"),
            (("--gait", "trot", "--speed", "2", "--turn-radius", "0.1"), 1, "turn radius 0.1 m is tighter")):
        proc = run_cli("gait", "--character", "dog", "--distance", "5", "--output", bad, *args)
        assert proc.returncode == code and message in proc.stderr, (args, proc.stderr)
        assert not bad.exists()
    proc = run_cli("gait", "--character", "human", "--gait", "walk", "--speed", "1", "--distance", "5", "--output", bad)
    assert proc.returncode == 1 and "quadruped gaits need the four feet" in proc.stderr and not bad.exists()
    # Three legs given for a quadruped preset, in a track: refused, naming the feet.
    three = json.loads(out.read_text())
    three["character"] = {"preset": "dog", "feet": ["LH", "RH", "LF"]}
    bad.write_text(json.dumps(three))
    proc = run_cli("validate", bad)
    assert proc.returncode == 1 and "'dog' is a quadruped: its feet must be the four" in proc.stderr


def test_the_optimiser_starts_a_quadruped_where_its_hips_put_its_body(solver):
    """The starting knots take each footprint's hip offset along the body off it (a dog's hind feet stand
    0.4 m behind its centre of mass, the fore 0.26 m ahead): the 12-stride trot of the bench converges in
    16 iterations (22 evaluations; 15 and 17 with the feet on the hips' lines, before the trot's narrower track)
    instead of 20 (29), and a biped, whose hips are beside its centre, starts where it did
    (Problem.initial_free)."""
    character = solver("character").preset("dog")
    gaits = solver("quadruped.gaits")
    stride = gaits.stride_of(gaits.GAITS["trot"], 2.0, character)
    _character, track = make(solver, "dog", "trot", 2.0, distance=12 * stride - 1e-6)
    optimizer = solver("biped").solve(track).report["optimizer"]
    assert optimizer["converged"] and optimizer["iterations"] <= 17 and optimizer["evaluations"] <= 23, optimizer
    # The starting knots lie on the body's path: across it at 0, along it where the speed has carried it
    # (median 0.021 m off); the feet alone would put them 0.045 m behind, and in a bound 0.4 m at the hinds.
    schedule = solver("core.schedule").build_schedule(track, character)
    centres = solver("core.problem")._knot_centres(schedule, character)
    along = centres[:, 1] - 2.0 * schedule.knot_times
    assert np.abs(centres[:, 0]).max() < 1e-9 and abs(np.median(along)) < 0.03  # unshifted: 0.045
    human = solver("character").preset("human")
    walk = solver("track").load_track(FIG1)
    schedule = solver("core.schedule").build_schedule(walk, human)
    centres = solver("core.problem")._knot_centres(schedule, human)
    stood = schedule.active_footprints(schedule.knot_times)
    single = (stood >= 0).sum(axis=1) == 1  # over the one footprint stood on
    assert np.allclose(centres[single], schedule.track.positions[stood[single].max(axis=1)])


def test_gait_changes_along_one_path_are_one_track(solver):
    """Walk, then trot, then gallop as the speed rises: one track, each section's footfalls its gait's, every
    foot given at least the quickest swing between the gaits, the whole solving physically."""
    module = solver("quadruped.gait_track")
    dog = solver("character").preset("dog")
    sections = [module.Section("walk", 1.2, 4.0), module.Section("trot", 3.0, 6.0),
                module.Section("rotary_gallop", 7.0, 12.0)]
    track = module.sections_track(dog, sections)
    gaits = solver("quadruped.gaits")
    h = dog.leg_length_nominal
    order = np.argsort(track.contact, kind="stable")
    per_section = [max(int(np.ceil(s.distance / gaits.stride_of(gaits.GAITS[s.gait], s.speed, dog))), 1) * 4
                   for s in sections]
    assert len(track) == sum(per_section)
    first = 0
    for section, count in zip(sections, per_section):
        rows = order[first:first + count]
        first += count
        template = gaits.GAITS[section.gait]
        period = gaits.stride_of(gaits.GAITS[section.gait], section.speed, dog) / section.speed
        lh = np.sort(track.contact[rows][track.feet[rows] == "LH"])
        for foot, phase in template.phases.items():
            mine = np.sort(track.contact[rows][track.feet[rows] == foot])
            offsets = ((mine - lh) / period - (phase - template.phases["LH"])) % 1.0
            assert np.all(np.minimum(offsets, 1.0 - offsets) <= 0.03), (section.gait, foot, offsets)
        stance = track.liftoff[rows] - track.contact[rows]  # (within the events merged: EVENT_SPACING)
        duty = template.duty_at(gaits.froude(section.speed, h))
        assert np.allclose(stance, duty * period, rtol=0.0, atol=solver("quadruped.gait_track").EVENT_SPACING)
        for foot in template.phases:  # each foot advances a stride of this section's gait per period
            mine = rows[track.feet[rows] == foot]
            mine = mine[np.argsort(track.contact[mine])]
            advance = np.diff(track.positions[mine, 1])
            assert np.allclose(advance, section.speed * period, rtol=0.03), (section.gait, foot, advance)
    swing_min = solver("motion").SWING_MIN * dog.time_unit
    for foot in dog.feet:
        mine = np.argsort(track.contact[track.feet == foot])
        gaps = track.contact[track.feet == foot][mine][1:] - track.liftoff[track.feet == foot][mine][:-1]
        assert gaps.min() >= swing_min - 1e-9
    motion = solver("biped").solve(track, fps=120)
    assert motion.report["non_physical_force"]["mean"] <= 0.05
    t = motion.times  # the galloping end runs at its own speed
    end = (t > t[-1] - 1.0) & (t < t[-1] - 0.3)
    first_row, last_row = np.flatnonzero(end)[[0, -1]]
    assert (motion.com[last_row, 1] - motion.com[first_row, 1]) / (t[last_row] - t[first_row]) == pytest.approx(7.0, rel=0.05)


def s_curve(radius=3.0, turn=np.pi / 2):
    """A left arc then a right arc of the same radius, each `turn` radians (Torkos Fig. 2's kind of path):
    (points at arc lengths s, headings at s, total length), exact."""
    def at(s):
        s = np.asarray(s, dtype=float)
        first = s <= radius * turn
        h1 = s / radius
        p1 = np.stack([radius * (np.cos(h1) - 1.0), radius * np.sin(h1)], axis=-1)
        corner = np.array([radius * (np.cos(turn) - 1.0), radius * np.sin(turn)])
        centre2 = corner + radius * np.array([np.cos(turn), np.sin(turn)])
        h2 = turn - (s - radius * turn) / radius
        p2 = centre2 - radius * np.stack([np.cos(h2), np.sin(h2)], axis=-1)
        return np.where(first[..., None], p1, p2), np.where(first, h1, h2)

    return at, 2 * radius * turn


def hip_places(character, track, centre, along, hips):
    """Where each footprint's hip is at its mid-stance: the body at `along` metres on the exact path, turned
    with it, the hip's offset (`hips`, per footprint) across and along it; and the path's heading there."""
    body, heading = centre(along)
    right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
    forward = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
    return body + hips[:, :1] * right + hips[:, 1:2] * forward, heading


@pytest.mark.parametrize("name, gait, speed", [("dog", "trot", 2.5), ("horse", "walk", 1.5), ("cat", "rotary_gallop", 3.5)])
def test_a_path_given_as_a_polyline_is_honoured_by_every_foot(solver, name, gait, speed):
    """Torkos §3.4: footprints along a curved path. An S-curve (two 3 m arcs, left then right) given as
    points 5 cm apart (a Bezier's samples): every footprint lies under its hip where the body passes at its
    mid-stance on the exact curve (0.02 mm off; 1.4 mm on the S's inflection), turned with the path's tangent
    there (0.002 degrees; 0.21 on the inflection),
    and the body moves along the path at the speed asked (within 0.1 %, measured from the footprints alone:
    each foot's place along the exact curve, less its hip's offset, stride after stride). Across the path
    "under its hip" is at the gait's track width (gaits.Gait.width_at)."""
    character = solver("character").preset(name)
    module = solver("quadruped.gait_track")
    centre, length = s_curve()
    points, _heading = centre(np.linspace(0.0, length, int(length / 0.05) + 1))
    laid = module.layout(character, [module.Section(gait, speed, length - 2.0)], path=points)
    track = laid.track
    mid = 0.5 * (track.contact + track.liftoff)  # flat ground, one speed, from the curve's first point (the
    # events, merged, a millisecond off the body's place: gait_track.EVENT_SPACING)
    assert np.allclose(laid.along, speed * mid, rtol=0.0, atol=speed * module.EVENT_SPACING)
    hips = track_hips(solver, character, track, gait, speed)
    places, heading = hip_places(character, track, centre, laid.along, hips)
    assert np.abs(track.positions[:, :2] - places).max() <= 2e-3  # (0.02 mm but at the S's inflection, whose
    # step in curvature the spline through 5 cm samples rounds: a footprint there is up to 1.4 mm off)
    assert np.degrees(np.abs(np.angle(np.exp(1j * (track.headings - heading))))).max() <= 0.25  # (0.002 off it)
    assert np.ptp(track.headings) == pytest.approx(np.pi / 2, abs=0.3)  # it does turn, both ways
    # The speed along the path, from the footprints: the body each one stands under (the footprint less its
    # hip's offset, turned by its heading), placed on the exact curve, advances v per unit time.
    right = np.stack([np.cos(track.headings), np.sin(track.headings)], axis=-1)
    forward = np.stack([-np.sin(track.headings), np.cos(track.headings)], axis=-1)
    body = track.positions[:, :2] - hips[:, :1] * right - hips[:, 1:2] * forward
    dense_s = np.linspace(0.0, length, 40001)
    dense, _h = centre(dense_s)
    place = dense_s[np.argmin(np.linalg.norm(dense[None] - body[:, None], axis=-1), axis=1)]
    for foot in character.feet:
        rows = np.flatnonzero(track.feet == foot)
        rows = rows[np.argsort(track.contact[rows])]
        v = np.diff(place[rows]) / np.diff(mid[rows])
        assert np.abs(v / speed - 1.0).max() <= 1e-3, (foot, v)


def test_a_circle_given_as_a_polyline_is_the_turn_radius_track(solver):
    """A 4 m circle as 160 points (left and right) gives the track turn_radius gives: positions within
    0.02 mm, headings within 1e-5 rad, the same times."""
    character = solver("character").preset("dog")
    module = solver("quadruped.gait_track")
    for radius in (4.0, -4.0):
        angle = np.linspace(0.0, 1.8 * np.pi, 160) * np.sign(radius)
        points = np.column_stack([radius * (np.cos(angle) - 1.0), radius * np.sin(angle)])
        circle = module.gait_track(character, "trot", 3.0, 12.0, turn_radius=radius)
        polyline = module.gait_track(character, "trot", 3.0, 12.0, path=points)
        assert np.abs(circle.positions - polyline.positions).max() <= 2e-5
        assert np.abs(np.angle(np.exp(1j * (circle.headings - polyline.headings)))).max() <= 1e-5  # (at +-pi)
        assert np.array_equal(circle.contact, polyline.contact) and np.array_equal(circle.feet, polyline.feet)


def test_a_speed_ramp_walks_trots_and_gallops_as_one_track(solver):
    """ramp_sections: a dog from 1 to 6 m/s over 20 m, gait auto: walk, trot, rotary gallop in that order
    (Froude 0.5 and 2.5: 1.87 and 4.18 m/s), each stride faster, the whole one valid track along a curve;
    a fixed gait over speeds it cannot reach is refused naming the speed."""
    character = solver("character").preset("dog")
    module, gaits = solver("quadruped.gait_track"), solver("quadruped.gaits")
    sections = module.ramp_sections(character, "auto", 1.0, 6.0, 20.0)
    names = [s.gait for s in sections]
    assert [n for k, n in enumerate(names) if k == 0 or names[k - 1] != n] == ["walk", "trot", "rotary_gallop"]
    speeds = [s.speed for s in sections]
    assert np.all(np.diff(speeds) > 0) and speeds[0] > 1.0 and speeds[-1] <= 6.0
    for s in sections:
        assert s.gait == gaits.choose("auto", s.speed, character).name
    strides = [gaits.stride_of(gaits.GAITS[s.gait], s.speed, character) for s in sections]
    covered = sum(np.ceil(s.distance / stride) * stride for s, stride in zip(sections, strides))
    assert covered == pytest.approx(20.0, abs=strides[-1])
    centre, length = s_curve(radius=8.0)
    points, _h = centre(np.linspace(0.0, length, 1001))
    track = module.sections_track(character, sections, path=points)
    solver("track").validate(track, allowed_feet=character.feet)
    assert module.ramp_sections(character, "trot", 2.0, 2.0, 10.0) == [module.Section("trot", 2.0, 10.0)]
    with pytest.raises(gaits.GaitError, match="outside what a trot of 'dog'"):
        module.ramp_sections(character, "trot", 2.0, 12.0, 20.0)


def test_a_path_too_tight_or_degenerate_is_refused(solver):
    character = solver("character").preset("dog")
    module, errors = solver("quadruped.gait_track"), solver("errors")
    # A hairpin 0.3 m wide: its spline through the points turns on a radius of 0.1 m or so.
    hairpin = np.array([[0.0, 0.0], [0.0, 3.0], [0.3, 3.0], [0.3, 0.0]])
    with pytest.raises(errors.FootprintError, match=r"the path turns tighter than 0.36 m \(0.5 hip heights\) "
                                                    r"3\.\d\d m along it \(a radius of 0\.\d\d m\)"):
        module.gait_track(character, "trot", 2.0, 5.0, path=hairpin)
    corner = hairpin[:3]
    with pytest.raises(errors.FootprintError, match="the path has no length in plan"):
        module.gait_track(character, "trot", 2.0, 5.0, path=[[1.0, 1.0, 0.0], [1.0, 1.0, 2.0]])
    with pytest.raises(errors.FootprintError, match="a turn radius or a path, not both"):
        module.gait_track(character, "trot", 2.0, 5.0, turn_radius=3.0, path=corner)


def body_line_yaw(motion):
    """(N,) degrees: the hind-to-fore mass line's yaw against the path's heading (+Y: a straight gait)."""
    axis = motion.body_points[:, 1] - motion.body_points[:, 0]
    return np.degrees(np.arctan2(-axis[:, 0], axis[:, 1]))


# Measured (Blender 5.0's numpy, 120 fps): the hind-to-fore line's yaw at the first and last frames, its largest
# over the middle half of the motion, and the spine's bend (reconstruct) there, on the hips' lines starting and
# ending mid-gait (the old tracks) -> standing start and stop at the gait's track width:
#   dog trot 2 m/s      ends -23.4 / +24.7 -> +1.6 / +0.2   middle 4.3 -> 1.5   bend 8.3 -> 2.2
#   horse trot 3.5 m/s  ends -15.5 / +17.6 -> -0.0 / -0.2   middle 3.3 -> 1.1   bend 5.1 -> 1.5
#   dog gallop 6 m/s    ends -51.0 / -21.5 -> +1.9 / -1.2   middle 8.8 -> 5.4   bend 2.2 -> 1.5
# (the rotary gallop's lead keeps its line a few degrees askew mid-stride). The bounds below sit between.
STANDING = [("dog", "trot", 2.0, 10.0, 2.0, 3.0), ("horse", "trot", 3.5, 14.0, 2.0, 3.0),
            ("dog", "rotary_gallop", 6.0, 15.0, 7.0, 2.5)]


@pytest.mark.parametrize("name, gait, speed, distance, line_bound, bend_bound", STANDING)
def test_a_standing_start_and_stop_keep_the_body_straight(solver, name, gait, speed, distance, line_bound,
                                                          bend_bound):
    """Issue 18's body at the ends of a track and mid-track. Started and stopped mid-gait on the hips' lines
    (the old tracks) one mass has nothing under it at the first contact and the last lift-off, and the two
    drift apart sideways: the hind-to-fore line is more than 10 degrees askew at an end. Standing on all four
    feet at both ends it is within 3 degrees, the body nearly at rest (under a quarter of the gait's speed); at
    the gait's track width the line and the spine's bend swing less mid-track; physical either way."""
    character = solver("character").preset(name)
    module = solver("quadruped.gait_track")
    reconstruct = solver("quadruped.reconstruct").reconstruct
    measured = {}
    for key, options in (("old", dict(width=1.0)), ("new", dict(stand=True))):
        motion = solver("biped").solve(module.gait_track(character, gait, speed, distance, **options), fps=120)
        t = motion.times
        middle = (t > 0.25 * t[-1]) & (t < 0.75 * t[-1])
        yaw = body_line_yaw(motion)
        bend = np.degrees(reconstruct(t, motion.body_points[:, 0], motion.body_points[:, 1], motion.yaw).bend)
        com_speed = np.linalg.norm(np.gradient(motion.com, t, axis=0)[:, :2], axis=1)
        measured[key] = (yaw[[0, -1]], np.abs(yaw[middle]).max(), np.abs(bend[middle]).max(), com_speed[[0, -1]])
        report = motion.report
        assert report["optimizer"]["converged"]
        assert report["non_physical_force"]["mean"] <= 0.05
        assert all(mass["non_physical_force"]["mean"] <= 0.05 for mass in report["mass_points"].values())
        assert all(leg["max"] <= leg["max_allowed"] for leg in report["leg_length"].values()), report["leg_length"]
    (old_ends, old_line, old_bend, old_speed), (ends, line, bend, rest) = measured["old"], measured["new"]
    assert np.all(old_speed > 0.9 * speed)  # the old ends: moving at full speed (and askew before the back's
    # sideways stiffness, two_mass.SPINE_STRAIGHT: -23 / +25 degrees; 8 / 2 degrees with it)
    assert np.abs(ends).max() < 3.0, ends
    assert np.all(rest < 0.25 * speed), rest  # (a dog's trot at 2 m/s, its stride shortened to its front legs'
    # reach: 0.22 at the first frame, 0.19 with Alexander's stride)
    assert line < line_bound, (line, old_line)
    assert bend < bend_bound, (bend, old_bend)


def test_standing_footprints_and_the_track_width(solver):
    """The footprints of a standing start and stop (no solve): all four down at 0 under their hips with the
    body at the path's start, the first lift-off at least a stride period later; all four down together for the last
    stride period, under their hips where the body rests (GaitLayout.along); between them the gait's footfall
    phases (within 3 % of the stride) and its speed once the ramps are done. Across the path every footprint
    lies at the gait's track width (a trot's a quarter of the hips'), `width=1` puts them on the hips' lines;
    bad options are refused naming them."""
    module, gaits = solver("quadruped.gait_track"), solver("quadruped.gaits")
    dog = solver("character").preset("dog")
    speed = 2.0
    laid = module.layout(dog, [module.Section("trot", speed, 10.0)], stand=(True, True))
    track = laid.track
    period = gaits.stride_of(gaits.GAITS["trot"], speed, dog) / speed
    order = np.argsort(track.contact, kind="stable")
    first, last = order[:4], order[-4:]
    hips = track_hips(solver, dog, track, "trot", speed)
    standing = np.isin(np.arange(len(track)), np.concatenate([first, last]))
    hips[standing, 0] = dog.hip_offsets[[dog.feet.index(f) for f in track.feet[standing]], 0] * gaits.STAND_WIDTH
    assert sorted(track.feet[first]) == sorted(dog.feet) and np.all(track.contact[first] == 0.0)
    assert np.allclose(track.positions[first, :2], hips[first, :2], atol=1e-9)  # the body at the path's start
    # The first diagonal lifts a quick step before it lands again (no earlier than STAND periods), the other
    # when the gait asks, half a stride after STAND.
    assert track.liftoff[first].min() >= module.STAND * period - 1e-9
    assert track.liftoff[first].max() == pytest.approx((module.STAND + 0.5) * period)
    # The quick first and last steps: the first diagonal swings QUICK_STEP time units to its next footprint,
    # the last diagonal onto its standing footprint as quickly after its lift-off; the others take a stride's.
    quick = module.QUICK_STEP * dog.time_unit
    gaps = {}
    for foot in dog.feet:
        mine = np.flatnonzero(track.feet == foot)
        mine = mine[np.argsort(track.contact[mine])]
        gaps[foot] = (track.contact[mine[1]] - track.liftoff[mine[0]],
                      track.contact[mine[-1]] - track.liftoff[mine[-2]])
    assert sorted(np.isclose([g[0] for g in gaps.values()], quick, atol=1e-9)) == [False, False, True, True]
    assert sorted(np.isclose([g[1] for g in gaps.values()], quick, atol=1e-9)) == [False, False, True, True]
    assert sorted(track.feet[last]) == sorted(dog.feet) and np.ptp(track.liftoff[last]) == 0.0
    assert track.liftoff.max() - track.contact[last].max() == pytest.approx(module.STAND * period)
    rest = laid.along[last]
    assert np.ptp(rest) < 1e-9 and rest[0] == laid.along.max() and rest[0] == pytest.approx(10.0, abs=period * speed)
    assert np.allclose(track.positions[last, :2], hips[last, :2] + [0.0, rest[0]], atol=1e-9)
    inner = order[4:-4]  # the gait between the stands: the trot's phases, its stance, its stride once at speed
    template = gaits.GAITS["trot"]
    lh = np.sort(track.contact[inner][track.feet[inner] == "LH"])
    for foot, phase in template.phases.items():
        mine = np.sort(track.contact[inner][track.feet[inner] == foot])
        offsets = ((mine - lh[:len(mine)]) / period - phase) % 1.0
        assert np.all(np.minimum(offsets, 1.0 - offsets) <= 0.03), (foot, offsets)
    steady = inner[(track.contact[inner] > 3.0 * period)
                   & (track.liftoff[inner] < track.contact[last].min() - 2 * period)]
    lh = steady[track.feet[steady] == "LH"]
    assert len(lh) >= 3 and np.allclose(np.diff(np.sort(track.positions[lh, 1])), speed * period, rtol=1e-6)
    # The track width: a quarter of the hips' at a trot (Froude 0.57); standing, nearly square (STAND_WIDTH).
    assert np.allclose(np.abs(track.positions[~standing, 0]), gaits.TROT_WIDTH * 0.125, atol=1e-9)
    assert np.allclose(np.abs(track.positions[standing, 0]), gaits.STAND_WIDTH * 0.125, atol=1e-9)
    assert gaits.GAITS["trot"].width_at(0.0) == 1.0 and gaits.GAITS["walk"].width_at(0.25) == pytest.approx(0.9)
    square = module.gait_track(dog, "trot", speed, 10.0, width=1.0)
    assert np.allclose(np.abs(square.positions[:, 0]), 0.125, atol=1e-9)
    plain = module.gait_track(dog, "trot", speed, 10.0)  # the default: no stands, the gait's own phases from 0
    assert plain.contact.min() == 0.0 and len(plain) == len(square)
    errors = solver("errors")
    with pytest.raises(errors.FootprintError, match="stand must be True, False or a pair"):
        module.gait_track(dog, "trot", speed, 10.0, stand="yes")
    with pytest.raises(errors.FootprintError, match="track width must be a fraction of the hips' width"):
        module.gait_track(dog, "trot", speed, 10.0, width=1.5)
    # A standing start and stop with a jump and a gait change: valid, the jump flown, all four at each end.
    jumps = solver("quadruped.jumps")
    laid = module.layout(dog, [module.Section("trot", 2.5, 6.0), module.Section("rotary_gallop", 6.0, 10.0)],
                         jumps=[jumps.Jump(8.0, 1.0)], stand=True)
    solver("track").validate(laid.track, allowed_feet=dog.feet)
    y = laid.track.positions[:, 1]
    assert not np.any((y > 8.0 - dog.foot_length / 2) & (y < 9.0 + dog.foot_length / 2)) and len(laid.flights) == 1
    assert (laid.track.contact == 0.0).sum() == 4 and (laid.track.liftoff == laid.track.liftoff.max()).sum() == 4


def test_every_speed_of_every_gait_writes_a_track_the_solver_takes(solver):
    """A sweep at 0.05 m/s over each animal's and gait's accepted speeds: every track's events are one time or at
    least EVENT_SPACING apart. Before the merge, 46 of these tracks (dog trot at 2.85 m/s, canter 2.40-2.45,
    gallop 11.15-11.4; cat trot 1.6; ...) held two events 0.1-0.9 ms apart, which `solve` refused."""
    gaits, gait_track = solver("quadruped.gaits"), solver("quadruped.gait_track")
    build_schedule = solver("core.schedule").build_schedule
    swept = 0
    for animal in ("dog", "cat", "horse"):
        character = solver("character").preset(animal)
        h = character.leg_length_nominal
        for name, gait in gaits.GAITS.items():
            low, high = (np.sqrt(f * gaits.GRAVITY * h) for f in gait.froude)
            for speed in np.arange(np.ceil(low / 0.05) * 0.05, high, 0.05):
                track = gait_track.gait_track(character, name, float(speed), 10 * h, stand=True)
                times = np.unique(np.concatenate([track.contact, track.liftoff]))
                assert np.diff(times).min() >= gait_track.EVENT_SPACING, (animal, name, speed)
                build_schedule(track, character)
                swept += 1
    assert swept > 3000
    character = solver("character").preset("dog")
    motion = solver("biped").solve(gait_track.gait_track(character, "trot", 2.85, 10.0, stand=True), character)
    assert motion.report["optimizer"]["converged"]


@pytest.mark.parametrize("name, gait, speed", [("horse", "canter", 6.0), ("horse", "gallop", 10.0),
                                               ("dog", "canter", 4.0)])
def test_the_lead_follows_the_turn(solver, name, gait, speed):
    """Canter and transverse gallop on circles of +12 and -12 m (left and right): the inside fore leads (lands
    last of the fores) in every stride; a straight path keeps the template's left lead. Before, every stride
    was on the left lead: on a right circle a counter-canter."""
    character = solver("character").preset(name)
    module = solver("quadruped.gait_track")
    for radius, inside in ((12.0, "LF"), (-12.0, "RF"), (None, "LF")):
        track = module.gait_track(character, gait, speed, 40.0, turn_radius=radius)
        feet = track.feet[np.argsort(track.contact, kind="stable")]
        fores = [f for f in feet if f in ("LF", "RF")]
        leads = [fores[k + 1] for k in range(0, len(fores) - 1, 2)]
        assert len(leads) >= 6 and all(lead == inside for lead in leads), (radius, leads)
