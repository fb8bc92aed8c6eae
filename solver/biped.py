"""Footprints to motion (vdP97 §2): schedule, COM optimisation, body orientation, legs, report.

The machinery is written for any number of legs; bipeds are the first user. solve() handles one track,
solve_batch() many independent tracks in one vectorised optimisation.
"""

from __future__ import annotations

import time

import numpy as np

from .body import legs as legs_module
from .character import Character, character_from_json
from .core import orientation, spline, threads
from .core.optimize import greedy_descent, levenberg_marquardt
from .core.problem import Problem, Weights, Window
from .core.schedule import build_schedule
from .errors import RangeError
from .motion import POSE, Motion, first_non_finite, frame_measures, frames_of, quality_report
from .quadruped.two_mass import TwoMassProblem
from .stepping import solve_steps
from .stepping import walk_ends
from .stepping.steps import step_plan
from .terrain import terrain_from_json
from .track import Track, frame_count

METHODS = {"lm": levenberg_marquardt, "greedy": greedy_descent}


def resolve(track: Track, character=None, terrain=None):
    """The character and terrain a track asks for, unless given explicitly."""
    character = character_from_json(track.character) if character is None else character
    if terrain is None:
        terrain = terrain_from_json(track.extras.get("terrain"))
    return character, terrain


def solve(track: Track, character: Character | None = None, terrain=None, fps: float = 60.0,
          method: str = "lm", weights: Weights | None = None, times=None, warm=None, changed=None,
          previous=None, start_state=None) -> Motion:
    """One track to a Motion sampled at fps from its first contact, or at the given times (seconds).

    warm: the `solution` of an earlier Motion of a track with the same contact schedule (footprints moved
    or turned, not retimed): the optimiser starts there, a few iterations from the new optimum.
    changed: with warm, the span (start, end) in seconds of the footprints that moved or turned since;
    on a long track only the free states near it are re-optimised (see WINDOW_MIN_FREE).
    previous: with warm and changed, the Motion warm came from, sampled at the same times: when only a
    window was re-optimised, only the times it can reach are sampled again.
    start_state: (position, velocity) of a biped's COM at the track's first contact, held there (the motion
    carries on from another's: stepping.walk_ends); every later knot optimised (Levenberg-Marquardt).
    A stepping track ("motion": "stepping") is solved by solver.stepping (no optimisation: method, weights,
    warm, changed and previous do not apply); a walk that starts and stops standing ("motion":
    "standing_ends") by stepping.walk_ends, the COM solver between its first and last steps.
    """
    if track.is_stepping:
        return solve_steps(track, character, terrain, fps, times)
    if track.has_standing_ends:  # its walk between the end steps solved here: this function passed in
        character, terrain = resolve(track, character, terrain)
        return walk_ends.solve_with_standing_ends(track, character, terrain, fps, times, solve_walk=solve)
    return _solve_group([track], [character], [terrain], [times], fps, method, weights, warm, changed, previous,
                        start_state)[0]


def check(track: Track, fps: float = 60.0) -> None:
    """Every check solve() makes before it optimises: the character and terrain the track asks for, its
    schedule, and the rate and how many frames it samples at fps. `validate` runs it, so that a track it
    calls valid is one that solve accepts."""
    character, _terrain = resolve(track)
    if track.has_standing_ends:
        _standing, ends = walk_ends.standing_ends(track, character)
        frame_count(ends.start, ends.end, fps)
        return
    schedule = step_plan(track, character).schedule if track.is_stepping else build_schedule(track, character)
    frame_count(schedule.start, schedule.end, fps)


WINDOW_MIN_FREE = 40  # free states: below this a whole warm re-solve is as fast as a window's
WINDOW_MARGIN = 4  # free states re-optimised on each side of an edit's span: its effect has died out there
BATCH_GROUP = 16  # tracks optimised together: enough to share numpy's per-call cost, few enough to stay
# in cache and to let each group stop as soon as its own tracks have converged (bench/solver_bench.py)


def solve_batch(tracks, characters=None, terrains=None, fps: float = 60.0, method: str = "lm",
                weights: Weights | None = None, times=None, warm=None):
    """Solve independent tracks together, BATCH_GROUP at a time: one problem and one optimisation per
    group, one Motion per track."""
    characters = characters or [None] * len(tracks)
    terrains = terrains or [None] * len(tracks)
    times = times or [None] * len(tracks)
    own = [track.is_stepping or track.has_standing_ends for track in tracks]
    if any(own):  # stepping tracks and walks with standing ends each their own; the rest together
        stepping = [i for i, mine in enumerate(own) if mine]
        others = [i for i, mine in enumerate(own) if not mine]
        motions = [None] * len(tracks)
        for i in stepping:
            motions[i] = solve(tracks[i], characters[i], terrains[i], fps, times=times[i])
        if others:
            solved = solve_batch([tracks[i] for i in others], [characters[i] for i in others],
                                 [terrains[i] for i in others], fps, method, weights, [times[i] for i in others])
            for i, motion in zip(others, solved):
                motions[i] = motion
        return motions
    if warm is not None or len(tracks) <= BATCH_GROUP:  # a warm start is one group's solution
        return _solve_group(tracks, characters, terrains, times, fps, method, weights, warm, None)
    motions = []
    for a in range(0, len(tracks), BATCH_GROUP):
        group = slice(a, a + BATCH_GROUP)
        motions += _solve_group(tracks[group], characters[group], terrains[group], times[group], fps, method,
                                weights, None, None)
    return motions


@threads.single_blas_thread()
def _solve_group(tracks, characters, terrains, times, fps, method, weights, warm, changed, previous=None,
                 start_state=None):
    started = time.perf_counter()
    items = [(t,) + resolve(t, c, g) for t, c, g in zip(tracks, characters, terrains)]
    models = [_problem_class(character) for _track, character, _terrain in items]
    if len(set(models)) > 1:  # bipeds and quadrupeds (or feet in other orders): a problem each, in track order
        motions = [None] * len(items)
        for model in set(models):
            mine = [i for i, m in enumerate(models) if m == model]
            solved = _solve_group([items[i][0] for i in mine], [items[i][1] for i in mine],
                                  [items[i][2] for i in mine], [times[i] for i in mine], fps, method, weights,
                                  None, None)
            for i, motion in zip(mine, solved):
                motions[i] = motion
        return motions
    model = models[0][0]
    problem = model(items, weights)
    for part, t in zip(problem.parts, times):  # a track too long to sample fails before it is solved
        if t is None:
            frame_count(part.schedule.start, part.schedule.end, fps)
    start = None
    if warm is not None and np.shape(warm) == (problem.n_free, 2 * problem.dim) and method == "lm":
        start = np.asarray(warm, dtype=float)
    window = _window(problem, start, changed) if start is not None and changed is not None else None
    if start_state is not None:  # the first knot held where another motion leaves off, the rest optimised
        if problem.dim != 3:
            raise ValueError("a held start state is for a biped's COM (three components)")
        if method != "lm":  # the window is optimised by Levenberg-Marquardt; the report would name another
            raise ValueError(f"a held start state is optimised by Levenberg-Marquardt, not {method!r}")
        start = problem.initial_free()
        start[0] = np.concatenate([np.asarray(s, dtype=float).reshape(3) for s in start_state])
        window = Window(problem, start, 1, problem.n_free)
    reuse = (None, None)
    if window is not None:
        result = levenberg_marquardt(window, start[window.first:window.stop])
        result.free = window.full(result.free)
        if previous is not None:  # the COM changed only on the window's segments, the footprints in changed
            knots, segments = problem.parts[0].layout.knot_times, window.assembly.segments
            affected = (min(knots[segments.start], changed[0]), max(knots[segments.stop], changed[1]))
            reuse = (previous, (affected, changed))
    else:
        result = METHODS[method](problem) if start is None else METHODS[method](problem, start)
        if weights is None and problem.firmer_weights is not None and (problem.leg_overreach(result.free) > 0).any():
            # A leg past l_max: the barrier firmer, from where the solve stopped (penalty continuation).
            problem, before = model(items, problem.firmer_weights), result
            result = METHODS[method](problem, before.free)
            result.iterations += before.iterations
            result.evaluations += before.evaluations
    motions = [sample_motion(problem, part, result.free[part.free], fps, t, *reuse)
               for part, t in zip(problem.parts, times)]
    elapsed = time.perf_counter() - started
    terms = problem.energy_terms(result.free)
    for i, motion in enumerate(motions):
        motion.solve_seconds = elapsed / len(motions)
        motion.report["energy"] = {k: float(v[i]) for k, v in terms.items()}
        motion.report["optimizer"] = {"method": method, "iterations": result.iterations,
                                      "evaluations": result.evaluations, "converged": bool(result.converged[i]),
                                      "warm_start": start is not None and start_state is None,
                                      "window": None if window is None else [window.first, window.stop]}
        motion.solution = result.free[problem.parts[i].free]
        _refuse_non_finite(motion)
    return motions


def _problem_class(character):
    """The body model a character's motion is solved with, and what must match for tracks to share one
    problem: a quadruped's two masses (Torkos §4.2.1), its feet in the same order; else one mass (vdP97)."""
    return (TwoMassProblem, tuple(character.feet)) if character.is_quadruped else (Problem, None)


def _refuse_non_finite(motion):
    hit = first_non_finite(motion)
    if hit is not None:
        field_name, frame = hit
        when = f" at {motion.times[frame]:.4g} s" if frame is not None else ""
        raise RangeError(f"the solve gave a non-finite {field_name}{when}: the track's numbers overflow the "
                         "physics (check the character's sizes, the terrain and the footprints' positions)")


def _window(problem, warm, changed):
    """The free states to re-optimise after an edit spanning `changed` (seconds) of a long track, or None
    when the whole track is about as quick."""
    if problem.n_tracks != 1 or problem.n_free < WINDOW_MIN_FREE:
        return None
    part = problem.parts[0]
    knot_times = part.layout.knot_times[np.concatenate([[True], ~part.schedule.flight])]  # one per free state
    first = max(int(np.searchsorted(knot_times, changed[0], side="right")) - 1 - WINDOW_MARGIN, 0)
    stop = min(int(np.searchsorted(knot_times, changed[1], side="left")) + 1 + WINDOW_MARGIN, problem.n_free)
    if stop - first > problem.n_free // 2:
        return None
    return Window(problem, warm, first, stop)


def sample_motion(problem: Problem, part, free, fps: float, times=None, previous=None, spans=None) -> Motion:
    """Evaluate one track's solution at fps frames per second from its first contact to its last lift-off,
    or at the given times (clamped into that span).

    previous, spans: a Motion sampled at the same times from a solution whose COM differs from this one
    only within spans[0] (seconds), with footprints moved or turned only within spans[1]: the motion is
    the same elsewhere, so only the times they reach are sampled again (see _reached) and the rest is
    copied, with its per-frame measures; the report sums them up over the whole motion again.
    """
    sched, ch, terrain = part.schedule, part.character, part.terrain
    tr = sched.track
    if times is None:
        times = sched.start + np.arange(frame_count(sched.start, sched.end, fps)) / fps
    times = np.clip(np.asarray(times, dtype=float), sched.start, sched.end)
    footprint_poses = legs_module.soles_on_ground(terrain, tr, ch)
    inside = None
    if previous is not None and spans is not None and np.array_equal(previous.times, times):
        inside = _reached(sched, times, *spans)
        pose = {name: getattr(previous, name).copy() for name in POSE}
        for name, values in zip(POSE, _pose(problem, part, free, times[inside], footprint_poses)):
            pose[name][inside] = values
    else:
        pose = dict(zip(POSE, _pose(problem, part, free, times, footprint_poses)))
    motion = Motion(fps, times, **pose, character=ch, track=tr)

    def measured(frames):
        ground = _ground(problem, part, frames.times, frames.com, terrain)
        return frame_measures(frames, sched, footprint_poses[1], ground, terrain, footprint_poses[0])

    if inside is None or previous.measures is None:
        motion.measures = measured(motion)
    else:  # the frames copied measure as they did
        motion.measures = {name: values.copy() for name, values in previous.measures.items()}
        for name, values in measured(frames_of(motion, inside)).items():
            motion.measures[name][inside] = values
    motion.report = quality_report(motion, sched, motion.measures, ch.com_clearance * ch.leg_length_nominal)
    return motion


def _pose(problem, part, free, times, footprint_poses):
    """The motion's POSE arrays, in that order, at the times (in any order)."""
    sched, ch, terrain = part.schedule, part.character, part.terrain
    # The times asked, then each footprint's lift-off and contact instants: a swing starts from the pose the
    # foot left in then, as the stance ends, and lands in the pose the stance starts in. One evaluation of the
    # COM (and of its velocity at the banking windows' ends)
    # and of the body for both.
    lift = np.maximum(np.nextafter(np.minimum(sched.track.liftoff, sched.end), -np.inf), sched.start)
    every = np.concatenate([times, lift, sched.track.contact])
    before, after = orientation.window_ends(every, sched.start, sched.end)  # the banking's windows
    k = len(every)
    positions, velocities, accelerations = spline.evaluate(part.layout, free, np.concatenate([every, before, after]))
    velocities = velocities[:, :3]  # the COM's (a quadruped's trajectory carries its spine vector after it)
    lean = orientation.mean_acceleration(before, after, velocities[k:2 * k], velocities[2 * k:])
    yaw, pitch, roll = orientation.body_angles(every, sched.track, ch, lean)
    com, pitch, hips, points, point_accelerations = problem.body_pose(part, positions[:k], accelerations[:k], yaw,
                                                                      pitch, roll)
    n = len(times)
    footprints = np.arange(len(lift))
    liftoff_hips = hips[n + footprints, sched.leg_of_footprint]
    contact_hips = hips[n + len(lift) + footprints, sched.leg_of_footprint]
    targets = legs_module.leg_targets(sched, ch, times, hips[:n], liftoff_hips, terrain, footprint_poses,
                                      contact_hips)
    return (com[:n], velocities[:n], accelerations[:n, :3], yaw[:n], pitch[:n], roll[:n], hips[:n], targets.position,
            targets.rotation, targets.toe_pivot, targets.contact, targets.footprint, points[:n],
            point_accelerations[:n])


def _reached(schedule, times, affected, moved):
    """After a re-solve that changed the COM within `affected` and moved or turned footprints within `moved`
    (seconds, moved inside affected): the times (N,) bool to sample again.

    The affected span widened by half the body's moving window (its yaw and banking); back to the lift-off
    of any foot's swing under way at its start that may land on a moved footprint; on to the landing of any
    swing under way at its end (the hip it left with may have changed). Near the track's ends (the feet's
    rest places depend on the first and last footprints): every time.
    """
    tr, legs = schedule.track, schedule.leg_of_footprint
    start0 = affected[0] - orientation.BODY_WINDOW / 2
    stop0 = affected[1] + orientation.BODY_WINDOW / 2
    start, stop = start0, stop0
    for leg in np.unique(legs):  # a handful of legs
        mine = np.flatnonzero(legs == leg)
        contact, liftoff = tr.contact[mine], tr.liftoff[mine]
        before = np.searchsorted(liftoff, start0, side="right") - 1  # its last lift-off by start0...
        after = np.searchsorted(liftoff, stop0, side="right") - 1  # ...and by stop0
        if before < 1 or after + 2 >= len(mine):
            return np.ones(len(times), dtype=bool)
        if contact[before + 1] > start0 and contact[before + 1] >= moved[0]:  # under way, maybe to a moved one
            start = min(start, liftoff[before])
        if contact[after + 1] > stop0:  # under way at the end: the rest of that swing
            stop = max(stop, contact[after + 1])
    return (times >= start) & (times <= stop)


def _ground(problem, part, times, com, terrain):
    if terrain is not None:
        return terrain.heights(com[:, :2])
    samples = np.flatnonzero(problem.regular[part.samples]) + part.samples.start  # in time order
    return np.interp(times, problem.times[samples], problem.ground[samples])
