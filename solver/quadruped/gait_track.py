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

Track width: each gait places its feet nearer the midline than its hips (gaits.Gait.width_at at the section's
speed: a trot's a quarter of the hips' width, gaits.py), so a trot's diagonal support no longer pushes the hind
and fore masses apart sideways every step; `width` gives one fraction for all instead (1: under the hips).

Standing start and stop (`stand`: off by default here, where a track is a stretch of a longer motion and the
footfall phases are the gait's throughout; on in the add-on's tools): the animal stands on all four feet at the
path's start, each foot's first footprint under its hip (along the body; across it nearly square, at
gaits.STAND_WIDTH of the hips' or the gait's track width if wider: at a trot's quarter the wolf stood with its fore
paws 6 cm apart under shoulders 25 cm apart; with the quick first step below, a dog's trot at 2 m/s keeps its
body's line within 2.8 degrees of the path, 1.4 at the trot's width), held from time 0 until the lift-off the
gait asks for, the first lift-off STAND stride periods after 0; the first feet to lift are held on until a quick step (QUICK_STEP) before their next
touchdown where that keeps the footfalls' order, so the others stand alone only briefly. The body stays at
rest until that first step lands (the solver ties the first knot's velocity to the next one's: at rest at
both, it starts at rest; where every foot is up before it, a flight, only until the first lift-off), then
gathers speed over RAMP_PERIODS strides or more (at most RAMP_ACCELERATION at the ramp's steepest) in the
gait's own cadence, shorter strides first, each footprint under its hip where the body is at its mid-stance.
A standing stop is the mirror image: the speed falls to rest by the last touchdown but one, the last feet to
land come down a quick step after they lift, each foot's last footprint lies where the body rests, and all
four stand STAND periods after the last touchdown. The travel the stands and ramps leave out is made up by
whole strides, so a section still covers about its distance (GaitLayout.along: where the body is when each
footprint is placed, at rest for a standing one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY
from ..errors import FootprintError
from ..motion import SWING_MIN
from ..track import MAX_FOOTPRINTS, Track, make_track
from . import gaits, jumps as jumps_module
from .ground import PathGround, Polyline

STAND = 1.0  # stride periods all four feet stand before the first lift-off (after the last touchdown): the body
# at rest over a whole segment of the solver's spline; with half a stride a dog's rotary gallop at 6 m/s
# started with the spine bent 9 degrees, with a stride 1 (trots: within a degree either way; design, measured)
QUICK_STEP = 0.6  # time units sqrt(l_nom / g): the first swing from a standing start and the last onto a standing
# stop, 1.5 times the quickest (motion.SWING_MIN): with the gait's own swing the other trot diagonal stands
# alone on its standing footprints that long and sways the masses apart (a dog's trot at 2 m/s started 2.3
# degrees askew, with this 1.6; 5.1 and 1.3 with a half-stride stand; design, measured)
MIN_GAP = 0.01  # seconds: a quick first or last step is taken only where it leaves its lift-off (touchdown) this far
# from the next (previous) one's: it never reorders the gait's footfalls (a gallop's lead)
RAMP_PERIODS = 1.0  # stride periods the speed takes at least to rise from rest to the gait's (or fall to rest)
RAMP_ACCELERATION = 0.5  # g: the ramp's steepest acceleration at most (a half-cosine's peak, pi/2 v / its time):
# the gallop's 6 m/s takes three strides, a trot's 2 m/s one (design: a dog can start harder, but the gait's
# own footfall pattern at a fraction of its speed is what the animal would walk or trot then)
RAMP_STEPS = 16  # the ramp's speed is held in this many even steps (the path's distance stays piecewise linear
# in time, as jumps.place shifts it); the footprints follow it within a millimetre of a smooth ramp
MIN_TURN_RADIUS = 0.5  # hip heights: tighter, the inside feet would walk backwards
EVENT_SPACING = 0.002  # seconds: the generator's events (touchdowns, lift-offs) closer than this are merged into
# one time. A stand's held lift-off, a new gait's shifted start or a jump's stretched flight can fall a fraction of
# a millisecond from another foot's event: a phase the solver refuses (schedule.MIN_PHASE) and no 60 fps frame
# could show (an eighth of a frame; design: twice the solver's limit)
LEAD_TURN = 0.05  # radians: a run of a leading gait turning right by more goes on the right lead (design: a few
# degrees over a section is a straight line's wander, not a turn)
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
               preset_name: str | None = None, terrain=None, jumps=(), path=None, stand=(False, False),
               width=None) -> Track:
    """Footprints for `distance` metres of `gait_name` at `speed` m/s; turn_radius > 0 turns left, < 0 right;
    or along `path` (a ground.Polyline or its points (N, 2 or 3), plan positions; the body starts at its first
    point); on `terrain` (None: flat at 0), over `jumps` (jumps.Jump, or (start, length[, height]) tuples).
    stand (start, stop), or one bool for both: start from and stop at standing square on all four feet (the
    module's docstring). width: the footprints' lateral offset as a fraction of the hips' (None: each gait's
    own at its speed, gaits.Gait.width_at; 1: under the hips)."""
    return sections_track(character, [Section(gait_name, speed, distance)], turn_radius, preset_name, terrain, jumps,
                          path, stand, width)


def sections_track(character, sections, turn_radius: float | None = None, preset_name: str | None = None,
                   terrain=None, jumps=(), path=None, stand=(False, False), width=None) -> Track:
    """Footprints for the sections one after another along one path (each its gait, speed and distance)."""
    return layout(character, sections, turn_radius, preset_name, terrain, jumps, path, stand, width).track


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
    strides, s = [], 0.0
    while s < distance - 1e-9:
        v = start_speed
        for _ in range(4):  # the speed at the stride's middle: its stride depends on it (converges in a few)
            stride = gaits.stride_of(gaits.choose(gait_name, v, character), v, character)
            v = start_speed + (end_speed - start_speed) * min((s + 0.5 * stride) / distance, 1.0)
        gait = gaits.choose(gait_name, v, character)
        strides.append((gait.name, v))
        s += gaits.stride_of(gait, v, character)
        if len(strides) * 4 > MAX_FOOTPRINTS:
            raise FootprintError(f"{distance:g} m of gaits is more than the limit of {MAX_FOOTPRINTS:,} footprints")
    return stride_sections(character, strides)


def stride_sections(character, strides):
    """Sections for strides one after another, each a (gait, speed): the strides of one gait and speed together,
    each section (count - 0.5) strides long (_plan's ceiling gives exactly count strides)."""
    sections, count = [], 0
    for k, (gait, v) in enumerate(strides):
        count += 1
        if k + 1 == len(strides) or strides[k + 1] != (gait, v):
            sections.append(Section(gait, v, (count - 0.5) * gaits.stride_of(gaits.choose(gait, v, character), v,
                                                                              character)))
            count = 0
    return sections


def layout(character, sections, turn_radius: float | None = None, preset_name: str | None = None,
           terrain=None, jumps=(), path=None, stand=(False, False), width=None) -> GaitLayout:
    """sections_track's track and what each jump became (jumps.Flight: its flight's take-off, landing and
    duration, the ballistics it was timed by)."""
    if not sections:
        raise FootprintError("no gait sections given")
    stand = _stand(stand)
    if width is not None and (isinstance(width, bool) or not isinstance(width, (int, float))
                              or not 0.0 <= width <= 1.0):
        raise FootprintError(f"track width must be a fraction of the hips' width from 0 to 1, not {width!r}")
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
    runs = _with_stand_strides(character, [_plan(character, section) for section in sections], stand)
    _check_size(runs, sections)
    ground = PathGround(turn_radius, terrain, [(j.start, j.length) for _n, j in numbered], path)
    runs = _on_inside_leads(runs, ground)
    placed, flights = [], {}
    lay = _Layout(character, runs, ground, stand, width)
    for number, jump in numbered:
        r = lay.run_at(jump.start)
        if r is not None and not runs[r]["flights"]:  # a walk: the jump's stride is a trot's
            runs = _with_jump_stride(character, runs, r, lay, jump)
            _check_size(runs, sections)
            lay = _Layout(character, runs, ground, stand, width)
            for done in placed:  # as before: the split is after them
                flights[done[0]] = lay.place(*done)
        flights[number] = lay.place(number, jump)
        placed.append((number, jump))
    xy, heading = lay.positions()
    s_mid = lay.s_at(lay.placed())
    sigma = ground.sigma(xy, s_mid)
    ground.check_walkable(max(float(sigma.min()), 0.0), float(sigma.max()), STEP * h)
    positions = np.column_stack([xy, ground.height(xy)])
    # The footprints where the body put them; their times, a millisecond or two apart, merged.
    lay.merge_close_events([t for f in flights.values() for t in (f.takeoff, f.landing)])
    extras = {"terrain": terrain.to_json()} if hasattr(terrain, "to_json") else {}
    track = make_track(lay.feet, positions, heading, lay.contact, lay.liftoff,
                       character=preset_name or character.name, extras=extras)
    return GaitLayout(track, tuple(flights[n] for n in sorted(flights)), s_mid)


def _stand(stand):
    """(start, stop) from a pair of bools or one bool for both."""
    pair = (stand, stand) if isinstance(stand, (bool, np.bool_)) else tuple(stand)
    if len(pair) != 2 or not all(isinstance(value, (bool, np.bool_)) for value in pair):
        raise FootprintError(f"stand must be True, False or a pair of them (start, stop), not {stand!r}")
    return bool(pair[0]), bool(pair[1])


def _ramp_time(run):
    """How long the speed takes to rise from rest to the run's (or fall to rest): RAMP_PERIODS strides, longer
    where the half-cosine's peak acceleration (pi/2 v / T) would pass RAMP_ACCELERATION."""
    return max(RAMP_PERIODS * run["period"], 0.5 * math.pi * run["speed"] / (RAMP_ACCELERATION * GRAVITY))


def _with_stand_strides(character, runs, stand):
    """The runs with whole strides added to the first (last) for the travel a standing start (stop) leaves
    out: the body at rest through the first stride (from the last stride's last touchdown but one on) and
    half the ramp's time at the gait's speed; at least one, so the gait is walked between the stands."""
    runs = list(runs)
    for end, on in zip((0, -1), stand):
        if not on:
            continue
        run = runs[end]
        template = np.array([run["gait"].phases[f] for f in character.feet])
        template = template - template.min()
        groups = np.unique(template)  # the body at rest until the second stride's first touchdown (from the
        # last stride's last touchdown but one)
        still = 1.0 if end == 0 else 1.0 - groups[-2 if len(groups) > 1 else -1]  # of a period
        lost = run["speed"] * (still * run["period"] + 0.5 * _ramp_time(run))
        runs[end] = dict(run, strides=run["strides"] + max(1, math.floor(lost / (run["speed"] * run["period"]))))
    return runs


def _on_inside_leads(runs, ground):
    """The runs of gaits with a lead (gaits.LEADING) on the lead inside the turn they take, the template's left
    or its mirror: a horse on a right circle canters and gallops on the right lead (a counter-canter on the
    left one strains it), and changes lead where the path turns the other way from one run to the next."""
    out, start = [], 0.0
    for run in runs:
        length = run["strides"] * run["speed"] * run["period"]
        _points, (first, last) = ground.centre(np.array([start, start + length]))
        start += length
        if run["gait"].name in gaits.LEADING and last - first < -LEAD_TURN:
            gait = gaits.mirrored(run["gait"])
            run = dict(run, gait=gait, flights=jumps_module.flight_groups(gait))
        out.append(run)
    return out


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
    duty = gait.duty_at(gaits.froude(section.speed, h))
    stride = gaits.stride_within_reach(section.speed, duty, character)
    if strides is None:
        strides = max(math.ceil(section.distance / stride), 1)
    return {"gait": gait, "speed": section.speed, "period": stride / section.speed, "duty": duty, "strides": strides,
            "flights": jumps_module.flight_groups(gait), "section": section}


def _with_jump_stride(character, runs, r, lay, jump):
    """The runs with run r (a gait without flights: a walk) split around the jump: its strides up to about
    two strides before the jump, a trot at the same speed over the jump and a stride past it, the rest."""
    run = runs[r]
    stride = run["speed"] * run["period"]
    trot = _plan(character, run["section"], gaits.GAITS[jumps_module.JUMP_STRIDE_GAIT], 1)
    trotting = trot["speed"] * trot["period"]  # (its own stride: gaits.stride_of, at the trot's duty factor)
    start = float(lay.s_at(np.array([lay.run_starts[r]]))[0])
    before = int(np.clip(math.floor((jump.start - 2 * trotting - start) / stride), 0, run["strides"]))
    over = math.ceil((jump.start - start - before * stride + jump.length) / trotting) + 1  # and a stride past
    after = max(run["strides"] - before - math.ceil(over * trotting / stride), 1)
    trot["strides"] = over
    parts = ([dict(run, strides=before)] if before else []) + [trot, dict(run, strides=after)]
    return runs[:r] + parts + runs[r + 1:]


class _Layout:
    """The footprints' timing for the runs one after another, the body's speed along the path, and where each
    footprint lies (under its hip at mid-stance); jumps.place shifts it."""

    def __init__(self, character, runs, ground, stand=(False, False), width=None):
        self.character, self.runs, self.ground, self.width = character, runs, ground, width
        self.cuts = []
        feet, contact, liftoff, run_of, flights = [], [], [], [], []
        start, last_liftoff = 0.0, {}
        starts, speeds, run_starts = [0.0], [runs[0]["speed"]], []  # the body's speed changes at these times
        swing = SWING_MIN * character.time_unit
        for r, plan in enumerate(runs):
            template = np.array([plan["gait"].phases[f] for f in character.feet])
            # Touch down no foot before it has swung from the old gait's last footprint (the quickest swing),
            # the new gait's stride begun at whichever of its footfalls waits least for that (the one at phase 0
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
        self.standing = np.zeros(len(self.feet), dtype=np.int8)  # 1: a standing start's, 2: a standing stop's
        if any(stand):
            self._stand(*stand)

    def _stand(self, start, stop):
        """A standing start and stop (the module's docstring): the first (last) stride's footprints stretched
        back to 0 (on to the end), the body at rest until the first touchdown after the stand (from the last
        touchdown but one), the speed ramped up from (down to) rest in RAMP_STEPS steps of a half-cosine."""
        feet = len(self.character.feet)
        up = down = None
        if start:
            first = np.arange(feet)  # the first run's first stride, a footprint per foot
            rest = STAND * self.runs[0]["period"]
            offset = rest - self.liftoff[first].min()
            self.contact += offset
            self.liftoff += offset
            self.starts[1:] += offset
            self.run_starts += offset
            self.run_starts[0] = 0.0  # the first run from the start (its footprints there: standing)
            self.contact[first] = 0.0
            self.flights[first] = False
            self.standing[first] = 1
            # The first feet to lift are held until a quick swing before their next touchdown, if that keeps
            # the footfalls' order: the others then stand alone only that long.
            lift = self.liftoff[first]
            held = self.contact[first + feet] - QUICK_STEP * self.character.time_unit
            early = lift <= lift.min() + 1e-9
            later = lift[~early].min() if (~early).any() else np.inf
            if held[early].max() < later - MIN_GAP:
                self.liftoff[first] = np.where(early, np.maximum(lift, held), lift)
            # At rest until the first step's touchdown; where every foot is up before it (a flight: a pronk's,
            # a bound's, a gallop's), only until the first lift-off (a flight cannot stand still).
            touch = float(self.contact[feet:].min())
            up = (touch if self.liftoff[first].max() >= touch else float(self.liftoff[first].min()),
                  _ramp_time(self.runs[0]))
        if stop:
            last = np.arange(len(self.feet) - feet, len(self.feet))
            # The last feet to land come down a quick swing after they lifted, if that keeps the footfalls'
            # order: the others then stand alone on their last footprints only that long.
            down_at = self.contact[last]
            landed = self.liftoff[last - feet] + QUICK_STEP * self.character.time_unit
            late = down_at >= down_at.max() - 1e-9
            earlier = down_at[~late].max() if (~late).any() else -np.inf
            if landed[late].min() > earlier + MIN_GAP:
                self.contact[last] = np.where(late, np.minimum(down_at, landed), down_at)
            still = float(self.contact[last].max())
            self.liftoff[last] = still + STAND * self.runs[-1]["period"]
            self.standing[last] = 2
            # At rest from the last touchdown but one; where every foot is up before the last (a flight), from
            # the last.
            before = self.contact < still - 1e-9
            flies = not before.any() or self.liftoff[before].max() < still
            down = (still if flies else float(self.contact[before].max()), _ramp_time(self.runs[-1]))
        # The speed: each run's own, times the ramps' factors, held over steps (piecewise constant as before).
        edges = [self.starts]
        for ramp, sign in ((up, 1.0), (down, -1.0)):
            if ramp is not None:
                at, span = ramp
                edges.append(at + sign * span * np.linspace(0.0, 1.0, RAMP_STEPS + 1))
        edges = np.unique(np.concatenate(edges))
        edges = edges[edges >= 0.0]
        middle = np.append(0.5 * (edges[:-1] + edges[1:]), edges[-1] + 1.0)
        base = self.speeds[np.searchsorted(self.starts, middle, side="right") - 1]
        factor = np.ones(len(edges))
        for ramp, sign in ((up, 1.0), (down, -1.0)):
            if ramp is not None:
                at, span = ramp
                x = np.clip(sign * (middle - at) / span, 0.0, 1.0)  # 0 at rest, 1 at the gait's speed
                step = np.where(x >= 1.0, 1.0, (np.floor(x * RAMP_STEPS) + 0.5) / RAMP_STEPS)
                factor = np.minimum(factor, np.where(x <= 0.0, 0.0, 0.5 - 0.5 * np.cos(np.pi * step)))
        self.starts, self.speeds = edges, base * factor

    def merge_close_events(self, kept=()):
        """Every run of events less than EVENT_SPACING apart, one after another, moved to its first's time (a
        standing start's 0 stays 0), or to a kept time in it (a jump's take-off or landing, its ballistics');
        each foot's own events are a swing or a stance apart, far more."""
        times = np.concatenate([self.contact, self.liftoff])
        order = np.argsort(times, kind="stable")
        ordered = times[order]
        starts = np.concatenate([[True], np.diff(ordered) >= EVENT_SPACING])
        run = np.cumsum(starts) - 1
        at = ordered[starts]
        for t in kept:  # a handful of jumps
            hit = np.flatnonzero(ordered == t)
            if hit.size:
                at[run[hit[0]]] = t
        merged = np.empty_like(times)
        merged[order] = at[run]
        self.contact, self.liftoff = merged[:len(self.contact)], merged[len(self.contact):]

    def placed(self, rows=None):
        """When the body is where each footprint at rows lies under its hip: mid-stance; a standing start's
        at its contact (the body at rest at the path's start), a standing stop's at its lift-off (at rest)."""
        rows = slice(None) if rows is None else rows
        kind, contact, liftoff = self.standing[rows], self.contact[rows], self.liftoff[rows]
        return np.where(kind == 1, contact, np.where(kind == 2, liftoff, 0.5 * (contact + liftoff)))

    def widths(self, rows=None):
        """Each footprint's lateral offset as a fraction of its hip's: `width`, or its gait's at its section's
        speed (gaits.Gait.width_at; a ramp's and a stand's footprints too: the gait's own, measured in
        tests/test_quadruped_gaits.py: square standing footprints left a trot's ends 8 to 20 degrees askew)."""
        rows = slice(None) if rows is None else rows
        run = self.run[rows]
        if self.width is not None:
            return np.full(len(run), float(self.width))
        h = self.character.leg_length_nominal
        width = np.array([plan["gait"].width_at(gaits.froude(plan["speed"], h)) for plan in self.runs])[run]
        return np.where(self.standing[rows] > 0, np.maximum(width, gaits.STAND_WIDTH), width)

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
            return knots[-1] + (s - at[-1]) / self.speeds[-1] if self.speeds[-1] > 0 else math.inf
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
        s = self.s_at(self.placed(rows)) + shift
        base, heading, along = self.ground.frames(s)
        hip = self.hip[rows]
        across = hip[:, 0] * self.widths(rows)
        right = np.stack([np.cos(heading), np.sin(heading)], axis=-1)
        forward = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
        return base + across[:, None] * right + (hip[:, 1] * along)[:, None] * forward, heading

    def sigma(self, rows=None, shift=0.0):
        """The footprints' places along the path (metres on the ground), their bodies `shift` further."""
        rows = slice(None) if rows is None else rows
        xy, _heading = self.positions(rows, shift)
        s = self.s_at(self.placed(rows)) + shift
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
