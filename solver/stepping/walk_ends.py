"""A walk that starts and stops standing (issue 19, item 4; a track marked "motion": "standing_ends"): its
first and last steps are Wu, Medina and Zordan's steps, the COM optimisation's walk between them.

- The start: both feet stand on their first footprints from the track's start (the other foot's added beside the
  first footprint where it is a step away: standing_track). The first step is WMZ §5's path: the
  COM from rest over the middle of the feet on the quadratic Bezier over the support foot, its speed rising
  linearly from rest to the step's middle and on to the walk's at the touchdown (EndStep: the middle speed the
  one that covers the path's length); its path ends where the walk's COM is at the touchdown (the walk solved
  alone first). At the touchdown the COM solver takes over with its first knot held
  at the step's position and velocity (biped.solve's start_state): no jump in either.
- The stop: the walk ends at the lift-off of the last step (the foot that lands last, beside the other). The last
  step starts from the walk's position and velocity there: the Bezier's middle control point is the support
  foot brought onto the line of that velocity (so the path leaves along it: WMZ's step starts from rest, toward
  the pivot), at that speed, a uniform acceleration over the swing (its slope set so that the path's length is
  covered) and Fig. 2's landing to rest over the middle of the final stance.
- The feet of the two steps move as in any stepping motion (feet.py: eq. 1's straight line, the lift arc); the
  height runs from standing height to the walk's (and back) on a cubic in time matching heights and vertical
  speeds at both ends. The body's pitch and roll, the walk's oscillations, fade in and out over FADE.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..character import BIPED_FEET
from ..core.orientation import body_yaw, hip_offsets_in_world
from ..body import legs
from ..core.schedule import build_schedule
from ..core.spline import hermite_basis
from ..errors import SteppingError
from ..motion import POSE, Motion, frame_measures, frames_of, quality_report
from ..track import STEPPING, frame_count, make_track
from . import height as height_module
from .feet import feet_at, footprint_rotations
from .layout import swing_time
from .profiles import bezier_arc_length, bezier_motion
from .stance import forward, require_biped, right, stance_width, standing_height
from .steps import step_plan

FADE = 0.3  # seconds over which the walk's pitch and roll oscillations fade in after the first step (out before
# the last)
BESIDE = 0.5  # foot lengths: the other foot's end footprint this close along the heading stands beside the end one
SETTLE = 0.5  # swing times: the stance a walk stands in before its first step's lift-off, after its last landing
HELD = 0.05  # seconds the mini stepping tracks of the end steps hold their last stance (step_plan needs one)


@dataclass(frozen=True)
class Ends:
    """The walk's first and last steps, footprint indices in time order."""

    start: float  # both feet down from here
    first_leave: int  # the first step lifts off this footprint...
    first_land: int  # ...lands on this one...
    first_support: int  # ...while the other foot stands on this
    last_leave: int
    last_land: int
    last_support: int
    end: float  # both feet down until here


def _ends(track) -> Ends:
    """The first and last steps of a walk track in time order: the first foot to lift from its first footprint,
    the last foot to land on its last; SteppingError where the walk has no step between them or a foot
    leaves its support early."""
    names = np.asarray(track.feet)
    firsts = [int(np.flatnonzero(names == foot)[0]) for foot in BIPED_FEET]
    lasts = [int(np.flatnonzero(names == foot)[-1]) for foot in BIPED_FEET]
    start, end = float(track.contact.min()), float(track.liftoff.max())
    leaving = min(firsts, key=lambda k: track.liftoff[k])
    first_land = int(np.flatnonzero(names == names[leaving])[1]) if (names == names[leaving]).sum() > 1 else -1
    landing = max(lasts, key=lambda k: track.contact[k])
    mine = np.flatnonzero(names == names[landing])
    last_leave = int(mine[-2]) if len(mine) > 1 else -1
    if first_land < 0 or last_leave < 0:
        raise SteppingError("a walk that starts and stops standing needs each foot to step at least once")
    first_support, last_support = firsts[1 - firsts.index(leaving)], lasts[1 - lasts.index(landing)]
    if track.liftoff[first_support] <= track.contact[first_land]:
        raise SteppingError(f"footprint {first_support}: the other foot lifts off before the first step lands, so "
                            "the walk cannot start from standing through a step")
    if track.contact[last_support] >= track.liftoff[last_leave]:
        raise SteppingError(f"footprint {last_support}: the other foot lands after the last step lifts off, so "
                            "the walk cannot stop standing through a step")
    if track.contact[first_land] >= track.liftoff[last_leave]:
        raise SteppingError("a walk that starts and stops standing needs a walk between its first and last steps: "
                            f"its first step lands at {track.contact[first_land]:.4g} s, its last lifts off at "
                            f"{track.liftoff[last_leave]:.4g} s")
    return Ends(start, leaving, first_land, first_support, last_leave, landing, last_support, end)


def standing_ends(track, character):
    """(the track standing at both ends, its Ends), or the refusals solve_with_standing_ends makes before it
    solves (biped.check runs them): a biped, both feet, a step at each end and a walk between."""
    require_biped(character)
    track = standing_track(track, character)
    return track, _ends(track)


def standing_track(track, character):
    """The track in time order standing at both ends: each end's first (last) footprint with the other foot beside
    it, both down from the track's start (to its end). Where the other foot's first (last) footprint already stands
    beside it (less than BESIDE foot lengths ahead or behind), that one; else a footprint is added there, the
    stance width to its side with its heading: the walk's first step then starts from it (its lift-off a swing
    time, layout.swing_time, before the other foot's first footprint lands), the last lands on it (a swing time
    after that foot's last lift-off)."""
    track = track.take(track.time_order())
    feet = np.asarray(track.feet)
    start, end = float(track.contact.min()), float(track.liftoff.max())
    added = []
    for at_end in (False, True):
        k = len(track) - 1 if at_end else 0
        mine = np.flatnonzero(feet != feet[k])
        if not len(mine):
            raise SteppingError(f"foot {feet[k]} alone: a walk that starts and stops standing needs both feet")
        partner = int(mine[-1] if at_end else mine[0])
        ahead = forward(track.headings[k]) @ (track.positions[partner, :2] - track.positions[k, :2])
        if abs(ahead) <= BESIDE * character.foot_length:
            continue  # the other foot already stands beside it
        side = 1.0 if feet[k] == "L" else -1.0  # the partner to the right of a left foot
        place = track.positions[k].copy()
        place[:2] += side * stance_width(character) * right(track.headings[k])
        swing = swing_time(character, float(np.linalg.norm(track.positions[partner, :2] - place[:2])))
        if at_end:
            landing = float(track.liftoff[partner]) + swing
            end = max(end, landing + SETTLE * swing)
            added.append((feet[partner], place, track.headings[k], landing, end))
        else:
            lifting = max(float(track.contact[partner]) - swing, start + SETTLE * swing)
            added.append((feet[partner], place, track.headings[k], start, lifting))
    if added:
        names, places, headings, contacts, liftoffs = zip(*added)
        track = track.replace(feet=np.concatenate([track.feet, names]).astype(track.feet.dtype),
                              positions=np.concatenate([track.positions, places]),
                              headings=np.concatenate([track.headings, headings]),
                              contact=np.concatenate([track.contact, contacts]),
                              liftoff=np.concatenate([track.liftoff, liftoffs]),
                              has_height=np.concatenate([track.has_height, np.ones(len(added), dtype=bool)]))
        track = track.take(track.time_order())
    feet = np.asarray(track.feet)
    contact, liftoff = track.contact.copy(), track.liftoff.copy()
    for foot in BIPED_FEET:
        mine = np.flatnonzero(feet == foot)
        contact[mine[0]], liftoff[mine[-1]] = start, end
    return track.replace(contact=contact, liftoff=liftoff)


def _walk_between(track, ends: Ends):
    """The walk's own track from the first step's touchdown t2 to the last step's lift-off: the footprints
    standing in that span, clamped to it; and the index in `track` of each of its footprints in time order."""
    t2, t_last = track.contact[ends.first_land], track.liftoff[ends.last_leave]
    keep = np.flatnonzero((track.contact < t_last) & (track.liftoff > t2))
    walk = track.take(keep).replace(contact=np.maximum(track.contact[keep], t2),
                                    liftoff=np.minimum(track.liftoff[keep], t_last), extras={})
    return walk, keep[walk.time_order()]  # the solver numbers footprints in its track's time order


def _end_step_track(track, leave, land, support, start, end):
    """A stepping track of one step (plan for feet.py): the support stands from start to end, `leave` until its
    lift-off, `land` from its touchdown to end."""
    rows = [leave, support, land]
    contact = [start, start, track.contact[land]]
    liftoff = [track.liftoff[leave], end, end]
    return make_track(track.feet[rows], track.positions[rows], track.headings[rows], contact, liftoff,
                      character=track.character, extras={"motion": STEPPING}), np.array(rows)


def _hermite(t, t0, t1, z0, v0, z1, v1):
    """A cubic in time from (z0, v0) at t0 to (z1, v1) at t1: (z, z', z'') at t (clamped)."""
    h = max(t1 - t0, 1e-9)
    basis = hermite_basis(np.clip((np.asarray(t, dtype=float) - t0) / h, 0.0, 1.0), h)
    return tuple(b @ np.array([z0, v0, z1, v1]) for b in basis)


@dataclass(frozen=True)
class EndStep:
    """An end step's COM in plan: along the Bezier (p0, control, p2) by arc length at a speed linear between
    knots: start_speed at times[0], a middle speed at times[1] (the one unknown: the path's length fixes it,
    never below 0), end_speed at times[2]."""

    times: tuple
    start_speed: float
    end_speed: float
    p0: np.ndarray
    control: np.ndarray
    p2: np.ndarray

    @cached_property
    def curve(self):
        """(q0, q1, q2, taus, lengths): the Bezier's points in 3D and its arc-length table
        (profiles.bezier_arc_length), made once for every evaluation."""
        q0, q1, q2 = (np.append(p, 0.0) for p in (self.p0, self.control, self.p2))
        return (q0, q1, q2, *bezier_arc_length(q0, q1, q2))

    def evaluate(self, t):
        q0, q1, q2, taus, lengths = self.curve
        (ta, tb, tc), first, last = self.times, self.start_speed, self.end_speed
        # The areas of the two trapezoids sum to the path's length: the middle knot's speed.
        middle = max((2.0 * lengths[-1] - first * (tb - ta) - last * (tc - tb)) / max(tc - ta, 1e-300), 0.0)
        t = np.asarray(t, dtype=float)
        one, two = max(tb - ta, 1e-300), max(tc - tb, 1e-300)
        a, c = np.clip(t - ta, 0.0, tb - ta), np.clip(t - tb, 0.0, tc - tb)
        slope_one, slope_two = (middle - first) / one, (last - middle) / two
        s = np.where(t < tb, first * a + 0.5 * slope_one * a * a,
                     0.5 * (first + middle) * (tb - ta) + middle * c + 0.5 * slope_two * c * c)
        speed = np.where(t < tb, first + slope_one * a, middle + slope_two * c)
        along = np.where(t < tb, slope_one, slope_two)
        position, velocity, acceleration = bezier_motion(q0, q1, q2, s, speed, along, (taus, lengths))
        return position[:, :2], velocity[:, :2], acceleration[:, :2]


def _height(plan, character, step, cubic, span, rotations, terrain, times):
    """(z, z', z'') at times: the end step's height cubic (t0, t1, z0, z0', z1, z1'), lowered (never raised)
    where a standing leg would pass l_max (height.py, as the stepping motion's), on its grid over the span."""
    grid = height_module.grid(*span)
    feet = feet_at(plan, character, grid, rotations, terrain)
    xy = step.evaluate(grid)[0]
    yaw = body_yaw(grid, plan.track.contact, plan.track.liftoff, plan.track.headings)
    zero = np.zeros_like(yaw)
    offsets = hip_offsets_in_world(yaw, zero, zero, character.hip_offsets)
    limit = height_module.height_limit(xy[:, None] + offsets[..., :2], -offsets[..., 2], feet.position, feet.contact,
                                       character.standing_reach)
    z, vz, az = height_module.lowered(grid, _hermite(grid, *cubic)[0], limit)
    return tuple(np.interp(times, grid, values) for values in (z, vz, az))


def _on_line(point, through, direction, behind: bool):
    """The point moved onto the line through `through` along the unit `direction`, kept behind `through` (or ahead
    of it): a path's control point on the wrong side would make it arrive (leave) against its velocity."""
    along = float((point - through) @ direction)
    return through + direction * (min(along, 0.0) if behind else max(along, 0.0))


def solve_with_standing_ends(track, character, terrain, fps: float, times, solve_walk) -> Motion:
    """The Motion of a walk track that starts and stops standing (module doc), sampled at fps over the track's
    span (both feet standing from its first contact to its last lift-off) or at the given times. The character
    and terrain are the track's own (biped.resolve); solve_walk is biped.solve, which solves the walk between
    the end steps (passed in: biped hands such a track to this function)."""
    track, ends = standing_ends(track, character)
    walk, kept = _walk_between(track, ends)
    t1, t2 = track.liftoff[ends.first_leave], track.contact[ends.first_land]
    u1, u2 = track.liftoff[ends.last_leave], track.contact[ends.last_land]
    if times is None:
        times = ends.start + np.arange(frame_count(ends.start, ends.end, fps)) / fps
    times = np.clip(np.asarray(times, dtype=float), ends.start, ends.end)
    height = standing_height(character)
    first_stance = track.positions[[ends.first_leave, ends.first_support]].mean(axis=0)  # between the feet
    last_stance = track.positions[[ends.last_land, ends.last_support]].mean(axis=0)
    ground_start, ground_end = first_stance[2], last_stance[2]

    # The first step ends where and as the COM optimisation of the whole walk (from standing) has its COM at the
    # touchdown: its path's control point the support foot brought onto the line of that velocity, so the path
    # arrives along it, at its speed.
    alone = solve_walk(track.replace(extras={}), character, terrain, fps, times=np.array([t2]))
    p0 = first_stance[:2]
    p2, v2 = alone.com[0, :2], alone.com_velocity[0, :2]
    speed = float(np.linalg.norm(v2))
    control = _on_line(track.positions[ends.first_support, :2], p2, v2 / max(speed, 1e-12), behind=True)
    t0 = max(ends.start, t1 - (t2 - t1))  # push-off at most as long as the swing (com.py)
    first = EndStep((t0, t1, t2), 0.0, speed, p0, control, p2)
    seam_z, seam_vz = alone.com[0, 2], alone.com_velocity[0, 2]
    start_state = (np.append(p2, seam_z), np.append(v2, seam_vz))
    inside = (times >= t2) & (times <= u1)
    solved = solve_walk(walk, character, terrain, fps, times=np.append(times[inside], u1), start_state=start_state)
    middle, leaving = frames_of(solved, slice(0, -1)), frames_of(solved, slice(-1, None))
    middle.report = solved.report

    # The last step from the walk's state at its lift-off.
    q0, v_end = leaving.com[0, :2], leaving.com_velocity[0, :2]
    q2 = last_stance[:2]
    speed = float(np.linalg.norm(v_end))
    control = _on_line(track.positions[ends.last_support, :2], q0, v_end / max(speed, 1e-12), behind=False)
    u3 = min(u2 + (u2 - u1), ends.end)  # the landing at most as long as the swing (com.py)
    last = EndStep((u1, u2, u3), speed, 0.0, q0, control, q2)

    motion = _assemble(track, character, terrain, fps, times, ends, first, last, middle, kept,
                       (t0, t2, height + ground_start, 0.0, seam_z, seam_vz),
                       (u1, u3, leaving.com[0, 2], leaving.com_velocity[0, 2], height + ground_end, 0.0),
                       (ground_start, ground_end))
    motion.report["walk_ends"] = {"seams": [float(t2), float(u1)], "middle": middle.report.get("optimizer")}
    return motion


def _assemble(track, character, terrain, fps, times, ends, first, last, middle, kept, rise, settle, grounds):
    """The whole motion: the end steps' COM, feet and hips around the walk's middle, measured as one. rise,
    settle: the first and the last step's height cubics (t0, t1, z0, z0', z1, z1'); grounds: the ground's height
    under the first and the last stance (without a terrain, the ground measured against)."""
    n = len(times)
    t2, u1 = rise[1], settle[0]
    before, after = times < t2, times > u1
    inside = ~before & ~after
    pose = {name: np.zeros((n,) + getattr(middle, name).shape[1:], dtype=getattr(middle, name).dtype)
            for name in POSE}
    for name in POSE:
        pose[name][inside] = getattr(middle, name)
    pose["footprint"][inside] = np.where(middle.footprint >= 0, kept[np.maximum(middle.footprint, 0)], -1)
    rotations = footprint_rotations(track, terrain)
    for rows, step, (leave, land, support), span, heights in (
            (before, first, (ends.first_leave, ends.first_land, ends.first_support), (ends.start, t2), rise),
            (after, last, (ends.last_leave, ends.last_land, ends.last_support), (u1, ends.end), settle)):
        if not rows.any():
            continue
        mini, rows_of = _end_step_track(track, leave, land, support, min(span[0], track.liftoff[leave] - HELD),
                                        span[1] + HELD)
        plan = step_plan(mini, character)
        order = rows_of[mini.time_order()]  # the plan's footprints (the mini track in time order) in the walk's
        feet = feet_at(plan, character, times[rows], rotations[order], terrain)
        xy, vxy, axy = step.evaluate(times[rows])
        z, vz, az = _height(plan, character, step, heights, span, rotations[order], terrain, times[rows])
        pose["com"][rows] = np.column_stack([xy, z])
        pose["com_velocity"][rows] = np.column_stack([vxy, vz])
        pose["com_acceleration"][rows] = np.column_stack([axy, az])
        pose["feet"][rows], pose["foot_rotation"][rows] = feet.position, feet.rotation
        pose["toe_pivot"][rows] = feet.heel_lift  # a pivot's heel up (the reach's turn added below)
        pose["contact"][rows] = feet.contact
        pose["footprint"][rows] = np.where(feet.footprint >= 0, order[np.maximum(feet.footprint, 0)], -1)
    yaw = body_yaw(times, track.contact, track.liftoff, track.headings)
    fade = np.clip(np.minimum(times - t2, u1 - times) / FADE, 0.0, 1.0)
    pose["yaw"] = np.where(inside, pose["yaw"], yaw)
    pose["pitch"], pose["roll"] = pose["pitch"] * fade, pose["roll"] * fade
    pose["hips"] = pose["com"][:, None] + hip_offsets_in_world(pose["yaw"], pose["pitch"], pose["roll"],
                                                               character.hip_offsets)
    # The end steps' legs within reach, as any stepping motion's (the walk between did its own).
    steps = ~inside
    drawn = np.zeros(pose["contact"].shape)
    position, rotation = pose["feet"][steps], pose["foot_rotation"][steps]
    turned, drawn[steps] = legs.feet_within_reach(position, rotation, pose["hips"][steps], pose["contact"][steps],
                                                  character)
    pose["feet"][steps], pose["foot_rotation"][steps] = position, rotation
    pose["toe_pivot"][steps] += turned
    motion = Motion(fps, times, **pose, character=character, track=track)
    schedule = build_schedule(track, character)
    ground = terrain.heights(motion.com[:, :2]) if terrain is not None else np.interp(
        times, [ends.start, ends.end], grounds)
    motion.measures = frame_measures(motion, schedule, rotations, ground, terrain)
    motion.report = quality_report(motion, schedule, motion.measures,
                                   character.com_clearance * character.leg_length_nominal)
    motion.report["ankle_reach"] = legs.reach_report(drawn, motion.contact, character.feet)  # the end steps'
    return motion
