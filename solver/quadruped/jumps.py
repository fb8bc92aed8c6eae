"""Jumps: a gap or an obstacle on a quadruped's path becomes a flight phase of the gait's own kind (issue 18).

A Jump is a stretch of the path no foot may land in: a gap (a ditch, the edge of a ledge) or an obstacle
`height` metres high above the take-off ground (a log, a fence). The gait keeps its footfalls and its speed;
one of its own flights is stretched until the body has carried every foot across: the trot's suspension
(take-off from one diagonal pair, landing on the other), the pace's, the canter's, the gallop's gathered
flight (after the fore feet, landing on the hinds), the bound's flights (either), the pronk's. A walk has
no flight: the stride of the jump is a trot's (the next gait up by Froude number, Alexander and Jayes 1983,
at the walk's speed), and the walk resumes after it (gait_track does the switch).

Which flight: the gait's flights are the touchdowns that end the longest pause in its footfall template at
its fastest duty factor (`flight_groups`). The take-off is the latest such touchdown that leaves every
earlier footprint at least `margin` (half a foot and CLEARANCE) short of the jump's start; the APPROACH (the
gait's own two flights before it) is lengthened, or where that is less shortened to take the next one,
so that the last footprint before the jump lies at that margin (animals adjust their strides before a
fence; without it the take-off could fall up to a stride short and the flight carry the rest). Then
everything from the landing on is moved later by one time dT, so the body, keeping its speed v, flies
v dT further and every later footprint lies v dT further along the path. dT is the least that:
- lands every footprint at least `margin` past the jump's end (distance: T >= the flight that carries
  the body that far at v);
- makes the flight ballistic (vdP97, Torkos §4: the solver makes it an exact parabola; here the timing):
  the centre of mass, at the same height over the feet at take-off and landing, rises dz (the ground under
  the first feet down less under the last feet to push off, from the terrain), so on level ground its
  take-off speed upwards is vz0 = dz / T + g T / 2. The parabola is timed against the ground's line at the take-off (its
  slope continued over the jump; on level ground, the level): a shear that keeps g, so on a uniform slope
  a gap is timed as on the level and only a ledge above that line, dz less the slope's own rise, counts.
  The landing is not made while still rising across that line (T >= sqrt(2 ledge / g) onto a ledge), a
  drop does not start downwards across it (T >= sqrt(-2 ledge / g) off a ledge), and over an obstacle the
  apex rises at least the obstacle's height above it (the feet, hanging under the body as in stance, are
  lifted that high), the terrain inside the stretch counting as an obstacle too;
- leaves the gait's own flight at least as long as it was (never shorter), and at least MIN_FLIGHT.

`find` reads the jumps a path needs off the ground's heights along it (the add-on's ray casts under a curve).

Bounds, across the ground's line: the apex at most MAX_RISE hip heights above the take-off and the landing
at most MAX_FALL below the apex (our limits: a dog clears about its own hip height, Agility's 65 cm bars for
a 60 cm dog); a jump that needs more is refused with the longest this gait clears at this speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..character import GRAVITY
from ..errors import FootprintError
from ..motion import SWING_MIN
from .ground import MAX_SLOPE

MAX_RISE = 1.0  # hip heights (leg_length_nominal) the centre of mass rises at most above take-off
MAX_FALL = 2.0  # hip heights it falls at most from the apex to the landing
CLEARANCE = 0.02  # metres between a foot's end and the jump's stretch
MIN_FLIGHT = 0.1  # time units sqrt(l_nom / g): the shortest flight a jump makes
JUMP_STRIDE_GAIT = "trot"  # a walk's jump stride
NEAR = 12  # footprints after a take-off among which the one nearest the jump is (three strides)
APPROACH = 2  # the gait's own flights before a take-off that share out the approach's adjustment


class JumpError(FootprintError):
    """A jump that cannot be made: overlapping another, too near an end, too long or too high to fly."""


@dataclass(frozen=True)
class Jump:
    start: float  # metres along the path (on the ground) to the stretch's near end
    length: float  # metres along the path no foot lands in
    height: float = 0.0  # an obstacle's height above the take-off ground the body clears (0: a gap)
    name: str = ""  # what errors call it (default: "jump N", N its place in the list given)

    def describe(self, number):
        what = f"{self.height:g} m obstacle" if self.height else "gap"
        who = self.name or f"jump {number}"
        return f"{who} ({what} {self.start:g} to {self.start + self.length:g} m along the path)"


@dataclass(frozen=True)
class Flight:
    """What a jump became: its number, the jump, the gait that flies it and the body's speed (m/s), take-off
    and landing (s), the flight's duration T (s), the shortest that carries every foot over (s), dz (the
    ground's rise from the last feet up to the first down, m), the ledge (dz less the take-off slope's own
    rise over the jump, m), the take-off's upward speed (m/s: ledge / T + g T / 2 across the ground's line,
    plus the line's own rise at the body's speed in plan; on level ground dz / T + g T / 2) and the apex's
    rise over the take-off across the ground's line (m; on level ground, over the take-off)."""

    number: int
    jump: Jump
    gait: str
    speed: float
    takeoff: float
    landing: float
    duration: float
    carrying: float
    dz: float
    ledge: float
    vz0: float
    rise: float


@dataclass(frozen=True)
class Stretch:
    """A stretch of a path's plan (u0 to u1, metres along it) no foot may land in, as `find` read it: a gap
    (no ground, or a dip deeper than a step that comes back), an obstacle (ground higher than a step that
    comes back; height: its top above the ground before it) or a ledge (a riser higher than a step)."""

    kind: str
    u0: float
    u1: float
    height: float = 0.0


def find(u, z, step, short, slope=MAX_SLOPE):
    """The stretches a gait must jump along a path, from the ground's heights under it.

    u (n,): increasing plan metres along the path; z (lines, n): the ground's height under each of a few lines
    along it (the centreline and the feet's lines either side), NaN where there is none. Where the ground
    between two samples of any line is missing or steeper than `slope` degrees (gait_track walks no steeper:
    ground.MAX_SLOPE) is a break; consecutive breaks are one, from the last sample before it to the first after
    (so a stretch is at most a sample longer at either end than what it holds). A break with no ground in it
    is a gap. A break that rises (falls) more than `step` metres under any line, followed by one that comes
    back to within `step` of the ground before it under every line, no more than `short` metres from where
    the first began, is one obstacle (one gap: a ditch) over both; otherwise it is a ledge (onto it or down
    off it). Breaks of at most `step` are walked (gait_track steps such a riser). Breaks that touch the first or last sample are left out
    (no ground to take off from or land on: the footprints there have no terrain)."""
    u = np.asarray(u, dtype=float)
    z = np.atleast_2d(np.asarray(z, dtype=float))
    missing = np.isnan(z)
    steep = np.abs(np.diff(z, axis=1)) > np.diff(u) * math.tan(math.radians(slope))
    broken = (missing[:, :-1] | missing[:, 1:] | steep).any(axis=0)
    edges = np.diff(np.concatenate([[0], broken.astype(np.int8), [0]]))
    breaks = [(int(a), int(b)) for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1))
              if a > 0 and b < len(u) - 1]  # samples a and b: the ground before and after it

    def change(a, b):
        """The ground's rise from sample a to b on the line where it changes most (NaN lines left out)."""
        rises = z[:, b] - z[:, a]
        return float(rises[np.nanargmax(np.abs(rises))]) if np.isfinite(rises).any() else 0.0

    stretches, k = [], 0
    while k < len(breaks):
        a, b = breaks[k]
        rise, gap = change(a, b), bool(missing[:, a + 1:b].any())
        if k + 1 < len(breaks) and abs(rise) > step:
            a2, b2 = breaks[k + 1]
            if u[b2] - u[a] <= short and abs(change(a, b2)) <= step and change(b, b2) * rise < 0:
                kind = "obstacle" if rise > 0 and not missing[:, a:b2 + 1].any() else "gap"
                top = float(np.nanmax(np.nanmax(z[:, a:b2 + 1], axis=1) - z[:, a])) if kind == "obstacle" else 0.0
                stretches.append(Stretch(kind, float(u[a]), float(u[b2]), max(top, 0.0)))
                k += 2
                continue
        if gap:
            stretches.append(Stretch("gap", float(u[a]), float(u[b])))
        elif abs(rise) > step:
            stretches.append(Stretch("ledge", float(u[a]), float(u[b])))
        k += 1
    return stretches


def checked(jumps):
    """The jumps sorted along the path, each numbered as given; a JumpError for a bad or overlapping one."""
    numbered = []
    for number, jump in enumerate(jumps, 1):
        if not isinstance(jump, Jump):
            try:
                jump = Jump(*jump)
            except TypeError:
                raise JumpError(f"jump {number}: expected (start, length[, height]), not {jump!r}") from None
        who = jump.name or f"jump {number}"
        for name, value in (("start", jump.start), ("length", jump.length), ("height", jump.height)):
            if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value)):
                raise JumpError(f"{who}: {name} must be a finite number of metres, not {value!r}")
        if jump.start < 0:
            raise JumpError(f"{who}: start {jump.start:g} m is before the path's start")
        if not jump.length > 0:
            raise JumpError(f"{who}: length must be positive, not {jump.length:g} m")
        if jump.height < 0:
            raise JumpError(f"{who}: height must be zero (a gap) or positive (an obstacle), not {jump.height:g} m")
        numbered.append((number, jump))
    numbered.sort(key=lambda item: item[1].start)
    for (n0, j0), (n1, j1) in zip(numbered, numbered[1:]):
        if j1.start < j0.start + j0.length:
            raise JumpError(f"{j1.describe(n1)} overlaps {j0.describe(n0)}")
    return numbered


def flight_groups(gait) -> frozenset:
    """The touchdown phases that end the gait's own flights: the longest pauses with no foot down in its
    template at its fastest duty factor (the trot's two suspensions, the gallop's gathered flight); empty
    for a gait that never flies (the walk)."""
    duty = gait.duty[1]
    phases = np.array(list(gait.phases.values()))
    groups = np.unique(phases)
    pauses = []
    for p in groups:
        since = (p - phases) % 1.0
        since[since == 0.0] = 1.0  # the same group's touchdown a stride before
        down = since <= duty  # still down (or lifting exactly then) when the group touches down
        pauses.append(-(duty - since[down]).max() if down.any() else (since - duty).min())
    pauses = np.array(pauses)
    if pauses.max() <= 0:
        return frozenset()
    return frozenset(float(p) for p in groups[pauses >= pauses.max() - 1e-9])


def margin(character) -> float:
    """How far a footprint (its support point, mid-foot) stays from a jump's stretch."""
    return 0.5 * character.foot_length + CLEARANCE


def least_flight(dz, top):
    """The shortest ballistic flight (s) that rises dz (m) between take-off and landing, is not still
    rising when it lands nor pushed downwards at take-off, and whose apex rises top (m) over the take-off."""
    g = GRAVITY
    least = math.sqrt(2 * dz / g) if dz > 0 else 0.0
    v = math.sqrt(2 * g * max(top, 0.0))  # the upward take-off speed the apex needs (0: not downwards)
    if v * v >= 2 * g * dz:
        least = max(least, (v + math.sqrt(v * v - 2 * g * dz)) / g)
    return least


def upward_speed(dz, duration):
    return dz / duration + 0.5 * GRAVITY * duration


def longest_flight(dz, rise):
    """The longest flight rising dz whose apex rises at most `rise` over the take-off (None: dz is higher)."""
    g = GRAVITY
    v = math.sqrt(2 * g * rise)
    if v * v < 2 * g * dz:
        return None
    return (v + math.sqrt(v * v - 2 * g * dz)) / g


def place(layout, number, jump, character, previous_cut):
    """Fly the jump in the layout (in place): the approach adjusted, the flight stretched; the take-off cut's
    index in contact order and the Flight.

    layout: gait_track's _Layout (contact, liftoff, flight touchdowns, runs, the body's speed profile, the
    footprints' positions along the path, shift)."""
    g = GRAVITY
    m = margin(character)
    where = jump.describe(number)
    end = jump.start + jump.length
    cut = _approach(layout, jump, m, where, previous_cut, character)
    order = np.argsort(layout.contact, kind="stable")
    contact, liftoff = layout.contact[order], layout.liftoff[order]
    before, after = order[:cut], order[cut:]
    takeoff = float(liftoff[:cut].max())
    t_cut = float(contact[cut])
    natural = t_cut - takeoff  # the gait's own flight here (negative: feet still down, a walk's jump stride)
    v = layout.speed_before(t_cut)
    gait = layout.gait_of(order[cut])
    near = after[:NEAR]
    shift = max(0.0, end + m - layout.sigma(near).min())
    for _ in range(20):  # the path's metric and turn make the footprints' positions slightly nonlinear in it
        deficit = end + m - layout.sigma(near, shift).min()
        if deficit <= 1e-9:
            break
        shift += deficit
    carrying = max(natural + shift / v, natural, MIN_FLIGHT * character.time_unit)
    # The ground the body leaves (under the feet that push off last) and lands on (under the first down), as
    # a rise along the ground's line at the take-off (its slope continued over the jump: a uniform slope is
    # no ledge) and a ledge above that line; the parabola is timed against that line (a shear: g is the same).
    pushing = before[liftoff[:cut] >= takeoff - 1e-12]
    landing = after[contact[cut:] <= t_cut + 1e-12]
    pushed = layout.positions(pushing)[0]
    ground0 = float(layout.ground.height(pushed).mean())
    s_push = layout.s_at(layout.placed(pushing))
    u0 = float(layout.ground.project(pushed, layout.ground.u_of(s_push)).mean())
    rate = layout.ground.rate(jump.start)
    top = max(jump.height, layout.ground.highest(jump.start, end, u0, ground0, rate))
    duration = carrying
    for _ in range(50):
        landed = layout.positions(landing, v * (duration - natural))[0]
        s_land = layout.s_at(layout.placed(landing)) + v * (duration - natural)
        dz = float(layout.ground.height(landed).mean()) - ground0
        ledge = dz - rate * (float(layout.ground.project(landed, layout.ground.u_of(s_land)).mean()) - u0)
        again = max(carrying, least_flight(ledge, top))
        if abs(again - duration) < 1e-12:
            break
        duration = again
    lift = upward_speed(ledge, duration)  # the take-off's upward speed across the ground's line
    plan_speed = v * float(layout.ground.frames(layout.s_at(np.array([takeoff])))[2][0])
    vz0 = lift + rate * plan_speed  # and the line's own rise under the body
    rise = max(lift, 0.0) ** 2 / (2 * g)
    fall = (lift - g * duration) ** 2 / (2 * g)  # the landing's speed down across the line, as a height fallen
    _check(where, character, gait, v, jump, ledge, top, duration, carrying, rise, fall)
    layout.shift(after, t_cut, duration - natural)
    flight = Flight(number, jump, gait, v, takeoff, takeoff + duration, duration, carrying, dz, ledge, vz0, rise)
    return cut, flight


def _approach(layout, jump, m, where, previous_cut, character):
    """The take-off: the cut (index in contact order) before one of the gait's own flights that leaves every
    earlier footprint short of the jump, its last footprints brought up to the jump's margin by lengthening
    (or, where that is less, shortening) the gait's own flights over the APPROACH before it, shared out
    evenly (as animals adjust their strides before a fence). Without this the take-off could fall up to a
    stride short and the flight carry the rest (a higher jump than the gap needs)."""
    order = np.argsort(layout.contact, kind="stable")
    contact = layout.contact[order]
    n = len(order)
    before_max = np.maximum.accumulate(layout.sigma()[order])
    index = np.arange(1, n)
    cuts = index[layout.flights[order][1:] & (contact[1:] > contact[:-1] + 1e-12) & (index > previous_cut)]
    excess = before_max[cuts - 1] - (jump.start - m)
    feasible = np.flatnonzero(excess <= 1e-9)
    if not feasible.size:
        if previous_cut > 0:
            raise JumpError(f"{where} comes too soon after the jump before it: no footfall of the gait to take "
                            "off from between them")
        raise JumpError(f"{where} is too near the path's start: no stride of the gait takes off before it")
    first = int(feasible[-1])
    if n - cuts[first] < 4:
        raise JumpError(f"{where}: the path ends before a stride has landed after it; lengthen the last "
                        "section's distance")
    swing = SWING_MIN * character.time_unit
    options = []
    for i in (first, first + 1):  # lengthen the approach to the last take-off short of it, or shorten to the next
        if i >= len(cuts) or n - cuts[i] < 4:
            continue
        v = layout.speed_before(contact[cuts[i]])
        ahead = [k for k in cuts[:i] if layout.run[order[k]] == layout.run[order[cuts[i]]]][-APPROACH:]
        dt = -excess[i] / v
        if not ahead or abs(dt) < 1e-9:
            continue
        room = np.array([_shortest(layout, order, k, swing) for k in ahead])
        if dt > 0:
            options.append((dt, cuts[i], ahead, np.full(len(ahead), dt / len(ahead))))
        elif -dt <= 0.9 * room.sum():
            options.append((-dt, cuts[i], ahead, dt * room / room.sum()))
    if not options:
        return int(cuts[first])
    _size, cut, ahead, steps = min(options, key=lambda option: option[0])
    for k, dt in zip(ahead, steps):
        layout.shift(order[k:], float(layout.contact[order[k]]), float(dt))
    return int(cut)


def _shortest(layout, order, k, swing):
    """How much earlier the footprints from contact-order index k on can come: their order kept, and every
    foot's swing across k at least the quickest (motion.SWING_MIN)."""
    contact, liftoff, feet = layout.contact[order], layout.liftoff[order], layout.feet[order]
    room = contact[k] - contact[k - 1] - 1e-3
    for foot in np.unique(feet):
        up = liftoff[:k][feet[:k] == foot]
        down = contact[k:][feet[k:] == foot]
        if up.size and down.size:
            room = min(room, down.min() - up.max() - swing)
    return max(room, 0.0)


def _check(where, character, gait, v, jump, ledge, top, duration, carrying, rise, fall):
    h = character.leg_length_nominal
    most = MAX_RISE * h
    who = f"a {character.name} (hip height {h:.2f} m)"
    if ledge > most:
        raise JumpError(f"{where}: the ground after it is {ledge:.2f} m higher than before it; {who} jumps at most "
                        f"{most:.2f} m up ({MAX_RISE:g} hip heights)")
    if top > most:
        raise JumpError(f"{where}: clearing {top:.2f} m takes a rise of {top:.2f} m; {who} rises at most "
                        f"{most:.2f} m ({MAX_RISE:g} hip heights)")
    if rise > most + 1e-9:
        longest = longest_flight(ledge, most)
        clears = jump.length - v * (duration - longest) if longest is not None and duration == carrying else None
        hint = f"; at this speed it clears at most about {clears:.2f} m" if clears is not None and clears > 0 else ""
        raise JumpError(f"{where} is longer than a {gait} at {v:g} m/s can fly: it needs a flight of "
                        f"{duration:.2f} s rising {rise:.2f} m, and {who} rises at most {most:.2f} m "
                        f"({MAX_RISE:g} hip heights){hint}")
    if fall > MAX_FALL * h + 1e-9:
        raise JumpError(f"{where}: the landing falls {fall:.2f} m from the apex; {who} lands from at most "
                        f"{MAX_FALL * h:.2f} m ({MAX_FALL:g} hip heights)")
