"""A quadruped's footprints for a gait at a speed over a distance, straight, along a circular turn or along
any path in plan (a curve's samples: ground.Polyline), or for several gaits one after another along one path
(walk -> trot -> gallop as speed rises: `ramp_sections` makes them from a speed that changes along the path),
on a terrain and over jumps (Torkos §3.4: footprints along a path).

The body moves along the path at each section's speed; each footprint lies under its hip at the middle of
its stance (the body's position then, the hip's offset across and along the path), turned with the path:
a foot is planted where its hip passes over, so every foot honours the curve. Stride and period come from
the gait (gaits.py): stride lambda = 2.3 h Fr^0.3, period lambda / v, each foot down for its duty factor.
A new gait's first stride starts when the old one's would have; where a foot of the new gait would touch
down before it has had the quickest swing (motion.SWING_MIN) from its last footprint of the old, the new
gait starts that much later (the body keeping the old speed meanwhile), its stride begun at whichever of
its footfalls waits least (a trot after a walk starts with the diagonal pair whose feet lifted first).

On a terrain (solver/terrain.py: FlatTerrain or HeightField, as a track's "terrain") distances and speeds
are along the ground (ground.py): the body is pitched with it, so the hips' offsets along the body lie
along the slope; every footprint stands on the terrain (its height the terrain's under it; the track format
has no tilt: the solver tilts a foot flush with the terrain's normal), and the track carries the terrain.
A riser of at most STEP hip heights (a curb) is stepped over; a steeper, higher one is jumped.
Jumps (jumps.py) stretch one of the gait's own flights over each gap or obstacle; a walk's jump stride is a
trot's. A section still walks its distance in strides: what a jump's flight carries beyond the gait's own
flight lengthens the path by as much (jumps never shorten a section).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import FootprintError
from ..motion import SWING_MIN
from ..track import MAX_FOOTPRINTS, Track, make_track
from . import gaits, jumps as jumps_module
from .ground import PathGround, Polyline

MIN_TURN_RADIUS = 0.5  # hip heights: tighter, the inside feet would walk backwards
STEP = 0.25  # hip heights: a riser no higher is stepped up or down within a stride (a walking or trotting
# dog's paw swings well clear of a curb that high); a higher one is jumped (our choice, issue 18's "a step")


@dataclass(frozen=True)
class Section:
    gait: str
    speed: float  # m/s, along the ground
    distance: float  # metres along the path (on the ground)


@dataclass(frozen=True)
class GaitLayout:
    track: Track
    flights: tuple  # jumps.Flight per jump, in the order the jumps were given
    along: np.ndarray | None = None  # metres along the path (on the ground) the body is at each footprint's
    # mid-stance (the track's rows)


def gait_track(character, gait_name: str, speed: float, distance: float, turn_radius: float | None = None,
               preset_name: str | None = None, terrain=None, jumps=(), path=None) -> Track:
    """Footprints for `distance` metres of `gait_name` at `speed` m/s; turn_radius > 0 turns left, < 0 right;
    or along `path` (a ground.Polyline or its points (N, 2 or 3), plan positions; the body starts at its first
    point); on `terrain` (None: flat at 0), over `jumps` (jumps.Jump, or (start, length[, height]) tuples)."""
    return sections_track(character, [Section(gait_name, speed, distance)], turn_radius, preset_name, terrain, jumps,
                          path)


def sections_track(character, sections, turn_radius: float | None = None, preset_name: str | None = None,
                   terrain=None, jumps=(), path=None) -> Track:
    """Footprints for the sections one after another along one path (each its gait, speed and distance)."""
    return layout(character, sections, turn_radius, preset_name, terrain, jumps, path).track


def ramp_sections(character, gait_name: str, start_speed: float, end_speed: float, distance: float):
    """Sections for `distance` metres whose speed changes evenly along the path from start_speed to end_speed
    (m/s): one stride at a time, each at the speed its middle is due (its stride Alexander's at that speed),
    strides of one gait and speed together; `auto` gives each stride its gait by Froude number, so a rising
    speed walks, trots, then gallops where the animal would (Alexander and Jayes 1983). Equal speeds: one
    section."""
    for name, value in (("start speed", start_speed), ("end speed", end_speed), ("distance", distance)):
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
            raise FootprintError(f"{name} must be a positive number, not {value!r}")
    if start_speed == end_speed:
        return [Section(gait_name, float(start_speed), float(distance))]
    h = character.leg_length_nominal
    strides, s = [], 0.0
    while s < distance - 1e-9:
        v = start_speed
        for _ in range(4):  # the speed at the stride's middle: its stride depends on it (converges in a few)
            v = start_speed + (end_speed - start_speed) * min((s + 0.5 * gaits.stride_length(v, h)) / distance, 1.0)
        gait = gaits.choose(gait_name, v, character).name
        strides.append((gait, v))
        s += gaits.stride_length(v, h)
        if len(strides) * 4 > MAX_FOOTPRINTS:
            raise FootprintError(f"{distance:g} m of gaits is more than the limit of {MAX_FOOTPRINTS:,} footprints")
    sections, count = [], 0
    for k, (gait, v) in enumerate(strides):
        count += 1
        if k + 1 == len(strides) or strides[k + 1] != (gait, v):
            # (count - 0.5) strides' distance: _plan's ceiling gives exactly count strides
            sections.append(Section(gait, v, (count - 0.5) * gaits.stride_length(v, h)))
            count = 0
    return sections


def layout(character, sections, turn_radius: float | None = None, preset_name: str | None = None,
           terrain=None, jumps=(), path=None) -> GaitLayout:
    """sections_track's track and what each jump became (jumps.Flight: its flight's take-off, landing and
    duration, the ballistics it was timed by)."""
    if not sections:
        raise FootprintError("no gait sections given")
    h = character.leg_length_nominal
    if turn_radius is not None and path is not None:
        raise FootprintError("give a turn radius or a path, not both")
    if turn_radius is not None and not (np.isfinite(turn_radius) and abs(turn_radius) >= MIN_TURN_RADIUS * h):
        raise FootprintError(f"turn radius {turn_radius} m is tighter than {MIN_TURN_RADIUS * h:.2f} m "
                             f"({MIN_TURN_RADIUS:g} hip heights) or not a number")
    if path is not None:
        path = path if isinstance(path, Polyline) else Polyline(path)
        radius, where = path.tightest()
        if radius < MIN_TURN_RADIUS * h:
            raise FootprintError(f"the path turns tighter than {MIN_TURN_RADIUS * h:.2f} m ({MIN_TURN_RADIUS:g} hip "
                                 f"heights) {where:.2f} m along it (a radius of {radius:.2f} m): round the corner")
    numbered = jumps_module.checked(jumps)
    runs = [_plan(character, section) for section in sections]
    _check_size(runs, sections)
    ground = PathGround(turn_radius, terrain, [(j.start, j.length) for _n, j in numbered], path)
    placed, flights = [], {}
    lay = _Layout(character, runs, ground)
    for number, jump in numbered:
        r = lay.run_at(jump.start)
        if r is not None and not runs[r]["flights"]:  # a walk: the jump's stride is a trot's
            runs = _with_jump_stride(character, runs, r, lay, jump)
            _check_size(runs, sections)
            lay = _Layout(character, runs, ground)
            for done in placed:  # as before: the split is after them
                flights[done[0]] = lay.place(*done)
        flights[number] = lay.place(number, jump)
        placed.append((number, jump))
    xy, heading = lay.positions()
    mid = 0.5 * (lay.contact + lay.liftoff)
    s_mid = lay.s_at(mid)
    sigma = ground.sigma(xy, s_mid)
    ground.check_walkable(max(float(sigma.min()), 0.0), float(sigma.max()), STEP * h)
    positions = np.column_stack([xy, ground.height(xy)])
    extras = {"terrain": terrain.to_json()} if hasattr(terrain, "to_json") else {}
    track = make_track(lay.feet, positions, heading, lay.contact, lay.liftoff,
                       character=preset_name or character.name, extras=extras)
    return GaitLayout(track, tuple(flights[n] for n in sorted(flights)), s_mid)


def _check_size(runs, sections):
    if sum(run["strides"] for run in runs) * 4 > MAX_FOOTPRINTS:
        raise FootprintError(f"{sum(s.distance for s in sections):g} m of gaits is more than the limit of "
                             f"{MAX_FOOTPRINTS:,} footprints")


def _plan(character, section, gait=None, strides=None):
    h = character.leg_length_nominal
    if gait is None:
        gait = gaits.choose(section.gait, section.speed, character)
        if not (np.isfinite(section.distance) and section.distance > 0):
            raise FootprintError(f"distance must be a positive number of metres, not {section.distance}")
    stride = gaits.stride_length(section.speed, h)
    if strides is None:
        strides = max(math.ceil(section.distance / stride), 1)
    return {"gait": gait, "speed": section.speed, "period": stride / section.speed,
            "duty": gait.duty_at(gaits.froude(section.speed, h)), "strides": strides,
            "flights": jumps_module.flight_groups(gait), "section": section}


def _with_jump_stride(character, runs, r, lay, jump):
    """The runs with run r (a gait without flights: a walk) split around the jump: its strides up to about
    two strides before the jump, a trot at the same speed over the jump and a stride past it, the rest."""
    run = runs[r]
    stride = run["speed"] * run["period"]
    start = float(lay.s_at(np.array([lay.run_starts[r]]))[0])
    before = int(np.clip(math.floor((jump.start - 2 * stride - start) / stride), 0, run["strides"]))
    over = math.ceil((2 * stride + jump.length) / stride) + 1
    after = max(run["strides"] - before - over, 1)
    trot = _plan(character, run["section"], gaits.GAITS[jumps_module.JUMP_STRIDE_GAIT], over)
    parts = ([dict(run, strides=before)] if before else []) + [trot, dict(run, strides=after)]
    return runs[:r] + parts + runs[r + 1:]


class _Layout:
    """The footprints' timing for the runs one after another, the body's speed along the path, and where each
    footprint lies (under its hip at mid-stance); jumps.place shifts it."""

    def __init__(self, character, runs, ground):
        self.character, self.runs, self.ground = character, runs, ground
        self.cuts = []
        feet, contact, liftoff, run_of, flights = [], [], [], [], []
        start, last_liftoff = 0.0, {}
        starts, speeds, run_starts = [0.0], [runs[0]["speed"]], []  # the body's speed changes at these times
        swing = SWING_MIN * character.time_unit
        for r, plan in enumerate(runs):
            template = np.array([plan["gait"].phases[f] for f in character.feet])
            # Touch down no foot before it has swung from the old gait's last footprint (the quickest swing),
            # the new gait's stride begun at whichever of its footfalls waits least for that (the left hind's
            # when none waits: its first stride as it always began).
            ready = np.array([last_liftoff.get(f, -np.inf) for f in character.feet]) + swing
            late, phases = min(((max((ready - start - (template - phi) % 1.0 * plan["period"]).max(), 0.0),
                                 (template - phi) % 1.0) for phi in np.unique(template)), key=lambda c: c[0])
            start += late
            if contact:
                starts.append(start)
                speeds.append(plan["speed"])
            run_starts.append(start)
            k = np.arange(plan["strides"])
            down = (start + (k[:, None] + phases[None]) * plan["period"]).ravel()
            feet.append(np.tile(np.array(character.feet, dtype="<U2"), plan["strides"]))
            contact.append(down)
            liftoff.append(down + plan["duty"] * plan["period"])
            run_of.append(np.full(len(down), r))
            flights.append(np.tile(np.isin(template, list(plan["flights"])), plan["strides"]))
            for f, t in zip(feet[-1][-4:], liftoff[-1][-4:]):
                last_liftoff[f] = t
            start += plan["strides"] * plan["period"]
        self.feet, self.contact, self.liftoff = np.concatenate(feet), np.concatenate(contact), np.concatenate(liftoff)
        self.run, self.flights = np.concatenate(run_of), np.concatenate(flights)
        self.starts, self.speeds, self.run_starts = np.array(starts), np.array(speeds), np.array(run_starts)
        self.hip = np.tile(character.hip_offsets, (len(self.feet) // len(character.feet), 1))

    def place(self, number, jump):
        """Fly the jump (jumps.place) after the last one placed; its Flight."""
        cut, flight = jumps_module.place(self, number, jump, self.character, self.cuts[-1] if self.cuts else 0)
        self.cuts.append(cut)
        return flight

    def s_at(self, t):
        """Metres along the path at times t."""
        return _distance_at(np.asarray(t, dtype=float), self.starts, self.speeds)

    def time_at(self, s):
        """When the body is s metres along the path (before the first footfall: at 0)."""
        knots = np.concatenate([self.starts, [self.liftoff.max() + 1.0]])
        at = self.s_at(knots)
        if s >= at[-1]:
            return knots[-1] + (s - at[-1]) / self.speeds[-1]
        return float(np.interp(s, at, knots))

    def run_at(self, s):
        """The run the body is in when it reaches s metres along the path (None: past the path's end)."""
        t = self.time_at(s)
        if t > self.contact.max():
            return None
        return int(np.searchsorted(self.run_starts, t, side="right") - 1)

    def speed_before(self, t):
        return float(self.speeds[max(int(np.searchsorted(self.starts, t, side="left")) - 1, 0)])

    def gait_of(self, i):
        return self.runs[self.run[i]]["gait"].name

    def positions(self, rows=None, shift=0.0):
        """Plan positions (k, 2) and headings of the footprints at rows (all: None), their bodies `shift`
        metres further along the path."""
        rows = slice(None) if rows is None else rows
        s = self.s_at(0.5 * (self.contact[rows] + self.liftoff[rows])) + shift
        base, heading, along = self.ground.frames(s)
        hip = self.hip[rows]
        right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
        forward = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
        return base + hip[:, :1] * right + (hip[:, 1] * along)[:, None] * forward, heading

    def sigma(self, rows=None, shift=0.0):
        """The footprints' places along the path (metres on the ground), their bodies `shift` further."""
        rows = slice(None) if rows is None else rows
        xy, _heading = self.positions(rows, shift)
        s = self.s_at(0.5 * (self.contact[rows] + self.liftoff[rows])) + shift
        return self.ground.sigma(xy, s)

    def shift(self, rows, t_cut, dt):
        """Footprints at rows (all from a cut on) dt later; the body keeps its speed through the time put in."""
        self.contact[rows] += dt
        self.liftoff[rows] += dt
        self.starts[self.starts >= t_cut - 1e-12] += dt
        self.run_starts[self.run_starts >= t_cut - 1e-12] += dt


def _distance_at(t, starts, speeds):
    """Metres along the path at times t, the body moving at speeds[i] from starts[i] on."""
    travelled = np.concatenate([[0.0], np.cumsum(np.diff(starts) * speeds[:-1])])
    i = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, len(starts) - 1)
    return travelled[i] + speeds[i] * (t - starts[i])
