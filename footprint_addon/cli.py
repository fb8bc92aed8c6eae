"""The command line, shared by `python -m footprint_locomotion` and `blender --command footprint`."""

import argparse
import json
import math
import os
import sys
from contextlib import contextmanager

import bpy
import numpy as np

from ..solver import biped
from ..solver.character import QUADRUPEDS
from ..solver.errors import FootprintError
from ..solver.motion import report_warnings
from ..solver.quadruped.gaits import GAIT_NAMES
from ..solver.track import MAX_DISTANCE, MAX_FPS, load_track
from .files import write_atomically

_handle = None


def _demo(args):
    from . import demo

    blend, png = demo.run(args.output_dir, render=not args.no_render)
    print(f"demo: saved {blend}" + (f" and {png}" if png else ""))
    return 0


def _validate(args):
    track = _load(args.track, args.fps)
    with _naming(args.track):
        biped.check(track, args.fps)
    print(f"{args.track}: {len(track)} footprints, {track.contact.min():.3f} s to {track.liftoff.max():.3f} s: valid")
    return 0


def _load(path, fps):
    """The track at path, once --fps is known good (the option named in the error)."""
    _check_fps(fps)
    return load_track(path)


def _check_fps(fps):
    if not 0 < fps <= MAX_FPS:  # (also false for NaN)
        raise FootprintError(f"--fps must be in (0, {MAX_FPS}], not {fps}")


@contextmanager
def _naming(what):
    """Errors from checking or solving a loaded track, prefixed with its file's name (or the option that gave
    the input)."""
    try:
        yield
    except FootprintError as exc:
        raise type(exc)(f"{what}: {exc}") from None


def _solve(args):
    track = _load(args.track, args.fps)
    with _naming(args.track):  # solve makes every check validate makes (biped.check) on its way
        motion = biped.solve(track, fps=args.fps, method=args.method)
    write_atomically(args.output, json.dumps(motion.to_json(), allow_nan=False) + "\n", inputs=[args.track])
    report = motion.report
    print(f"solve: {len(track)} footprints -> {len(motion.times)} samples at {args.fps:g} fps; non-physical force "
          f"mean {report['non_physical_force']['mean']:.3f} of body weight; wrote {args.output}")
    print(f"solve: {motion.solve_seconds * 1e3:.1f} ms in the solver", file=sys.stderr)
    for warning in report_warnings(report):
        print(f"solve: warning: {warning}", file=sys.stderr)
    return 0


def _plot(args):
    from ..solver import json_input, plot

    doc = json_input.load(args.motion, json_input.MAX_MOTION_BYTES, what="motion")
    write_atomically(args.output, plot.render(doc, args.output), inputs=[args.motion])
    print(f"plot: {args.motion} -> {args.output}")
    return 0


def _running(args):
    from ..solver.running import parameters
    from ..solver.track import dumps, track_to_json

    params = parameters.natural(args.speed_kmh, args.level, args.body_height)
    if args.step_frequency is not None:
        params = parameters.change(params, "step_frequency", args.step_frequency, locked=("velocity",))
    track = parameters.running_track(params, args.steps, start_standing=args.start_standing,
                                  stop_standing=args.stop_standing)
    write_atomically(args.output, dumps(track_to_json(track)))
    print(f"running: {parameters.kmh(params.velocity):.1f} km/h, step length {params.step_length:.3f} m, "
          f"{params.step_frequency:.1f} steps/min, flight {params.flight_time:.3f} s; "
          f"{len(track)} footprints -> {args.output}")
    return 0


def _gait(args):
    from ..solver.character import character_from_json
    from ..solver.quadruped import gait_track as quadruped_gaits
    from ..solver.track import dumps, track_to_json

    names, speeds, distances = args.gait.split(","), _numbers(args.speed, "--speed"), _numbers(args.distance,
                                                                                               "--distance")
    if not len(names) == len(speeds) == len(distances):
        raise FootprintError(f"--gait, --speed and --distance give {len(names)}, {len(speeds)} and {len(distances)} "
                             "values; give one of each per section")
    sections = [quadruped_gaits.Section(*values) for values in zip(names, speeds, distances)]
    terrain, jumps = _gait_ground(args)
    laid = quadruped_gaits.layout(character_from_json(args.character), sections, args.turn_radius, terrain=terrain,
                                  jumps=jumps, stand=(args.start_standing, args.stop_standing))
    track = laid.track
    write_atomically(args.output, dumps(track_to_json(track)), inputs=[args.terrain] if args.terrain else ())
    span = track.liftoff.max() - track.contact.min()
    print(f"gait: {args.character} {args.gait} at {args.speed} m/s, {len(track)} footprints over {span:.2f} s "
          f"-> {args.output}")
    for flight in laid.flights:
        print(f"gait: {flight.jump.describe(flight.number)}: a {flight.gait} flight of {flight.duration:.3f} s at "
              f"{flight.speed:.3g} m/s, rising {flight.rise:.2f} m, landing {flight.dz:+.2f} m")
    return 0


def _gait_ground(args):
    """The terrain and jumps of the gait command's --slope, --terrain, --ramp and --jump (errors name them)."""
    from ..solver.quadruped import jumps as quadruped_jumps, terrains

    terrain, jumps = None, []
    if args.turn_radius is not None and args.ramp is not None:
        raise FootprintError("--ramp lies across the straight path along +Y: give no --turn-radius with it")
    try:
        if args.slope is not None:
            terrain = terrains.slope(args.slope)
    except FootprintError as exc:
        raise type(exc)(f"--slope {args.slope:g}: {exc}") from None
    if args.terrain is not None:
        terrain = _terrain_file(args.terrain)
    for k, values in enumerate(args.jump or [], 1):
        try:
            numbers = [float(value) for value in values]
        except ValueError:
            numbers = []
        if len(numbers) not in (2, 3):
            raise FootprintError(f"--jump {' '.join(values)}: give START LENGTH [HEIGHT], numbers of metres")
        jumps.append(quadruped_jumps.Jump(*numbers, name=f"--jump {k}"))
    if args.ramp is not None:
        try:
            terrain, ramp_jumps = terrains.ramp(*args.ramp)
        except FootprintError as exc:
            raise type(exc)(f"--ramp {' '.join(f'{v:g}' for v in args.ramp)}: {exc}") from None
        jumps += ramp_jumps
    return terrain, jumps


def _terrain_file(path):
    """A terrain JSON: a track's "terrain" ({"flat": z} or {"heightfield": {...}}), or a track holding one."""
    from ..solver import json_input
    from ..solver.terrain import terrain_from_json

    data = json_input.load(path, what="terrain file")
    if isinstance(data, dict) and "terrain" in data and not {"flat", "heightfield"} & set(data):
        data = data["terrain"]
    with _naming(path):
        terrain = terrain_from_json(data)
    if terrain is None:
        raise FootprintError(f'{path}: not a terrain: expected {{"flat": z}} or {{"heightfield": {{"origin": [x, y], '
                             f'"spacing": d, "heights": [[...], ...]}}}}')
    return terrain


def _numbers(text, option):
    try:
        return [float(value) for value in text.split(",")]
    except ValueError:
        raise FootprintError(f"{option} {text!r}: expected numbers separated by commas") from None


def _step(args):
    """Steps from standing at the origin facing +Y to a stance centred on --to, or recovers from --push."""
    from ..solver.character import character_from_json
    from ..solver.stepping import Stance, recover_from_push, step_to_stance
    from ..solver.track import dumps, track_to_json

    _check_fps(args.fps)
    if args.track_output and os.path.abspath(args.track_output) == os.path.abspath(args.output):
        raise FootprintError(f"--track-output {args.track_output}: the same file as --output")
    with _naming("--character"):
        character = character_from_json(args.character)
    start = Stance.centred(character, 0.0, 0.0, 0.0)
    option = f"--{'to' if args.to else 'push'} {_shown(args.to or args.push)}"
    with _naming(option):
        if args.to:
            x, y, heading = args.to
            track = step_to_stance(character, start, Stance.centred(character, x, y, math.radians(heading)))
        else:
            track = recover_from_push(character, start, args.push)
    motion = biped.solve(track, fps=args.fps)
    motion_text = json.dumps(motion.to_json(), allow_nan=False) + "\n"
    write_atomically(args.output, motion_text)
    if args.track_output:
        write_atomically(args.track_output, dumps(track_to_json(track)))
    stepping = motion.report["stepping"]
    print(f"step: {args.character}, {option}: {stepping['steps']} steps ({stepping['pivots']} pivots) over "
          f"{motion.times[-1] - motion.times[0]:.2f} s -> {args.output}"
          + (f" and {args.track_output}" if args.track_output else ""))
    for warning in report_warnings(motion.report):
        print(f"step: warning: {warning}", file=sys.stderr)
    return 0


def _transition(args):
    from .headless import JobError
    from .transition import transition_file

    try:
        strip, _transition_motion = transition_file(args.scene, args.rig, args.from_strip, args.to_strip, args.output)
    except (ValueError, OSError, JobError) as exc:  # bad input, named (a missing or unwritable file: headless's)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"transition: {args.from_strip} -> {args.to_strip} on {args.rig}: strip {strip!r} -> {args.output}")
    return 0


_PLAN_MODES = {"stones": "--stones", "wander": "--wander", "follow": "--follow"}
_PLAN_OPTIONS = {  # dest: (option, the modes it goes with); --from, --obstacles, --character go with all three
    "goal": ("--to", ("stones",)),
    "area": ("--area", ("wander", "follow")),
    "heading": ("--heading", ("wander", "follow")),
    "seed": ("--seed", ("wander",)),
    "seconds": ("--seconds", ("follow",)),
}
MAX_PLAN_SECONDS = 3600.0  # an hour of footprints planned a step at a time (about 7000 steps, 15 s to plan)


def _plan_mode(args) -> str:
    """Which of --stones, --wander and --follow was given (exactly one), its options checked as argparse would
    (an option of another mode named with it): refused with exit status 1 like any bad input of plan."""
    given = [mode for mode in _PLAN_MODES if getattr(args, mode) is not None]
    if not given:
        raise FootprintError("plan: give one of --stones STONES.json, --wander SECONDS or --follow TARGET.json")
    if len(given) > 1:
        raise FootprintError(f"argument {_PLAN_MODES[given[1]]}: not allowed with argument {_PLAN_MODES[given[0]]} "
                             "(give one of --stones, --wander, --follow)")
    mode = given[0]
    for dest, (option, modes) in _PLAN_OPTIONS.items():
        if getattr(args, dest) is not None and mode not in modes:
            raise FootprintError(f"argument {option}: not allowed with argument {_PLAN_MODES[mode]} ({option} goes "
                                 f"with {' and '.join(_PLAN_MODES[m] for m in modes)})")
    needed = {"stones": (("start", "--from X Y"), ("goal", "--to X Y")), "wander": (("area", "--area X0 Y0 X1 Y1"),),
              "follow": ()}[mode]
    missing = [text for dest, text in needed if getattr(args, dest) is None]
    if missing:
        raise FootprintError(f"argument {_PLAN_MODES[mode]}: needs {' and '.join(missing)}")
    return mode


def _shown(values):
    return " ".join(f"{v:g}" for v in values)


def _point(option, point):
    if point is not None and not all(math.isfinite(v) and abs(v) <= MAX_DISTANCE for v in point):
        raise FootprintError(f"{option} {_shown(point)}: give a point's X Y, finite numbers of metres within "
                             f"{MAX_DISTANCE:.0e}")
    return None if point is None else np.array(point, dtype=float)


def _plan(args):
    """Footprints planned by the solver (issue 20): across stepping stones from --from to --to (vdP97 §4.2),
    wandering in an --area (vdP97 §4.2, Torkos §3.5) or following a moving target; clear of --obstacles."""
    from ..solver.character import character_from_json
    from ..solver.planning import obstacles as planning_obstacles
    from ..solver.track import dumps, track_to_json

    mode = _plan_mode(args)
    start, goal = _point("--from", args.start), _point("--to", args.goal)
    if args.heading is not None and not math.isfinite(args.heading):
        raise FootprintError(f"--heading {args.heading:g}: give degrees, a finite number (0 faces +Y, 90 faces -X)")
    with _naming("--character"):
        character = character_from_json(args.character)
    obstacles = planning_obstacles.load_obstacles(args.obstacles) if args.obstacles else None
    inputs = [args.obstacles] if args.obstacles else []
    if mode == "stones":
        track, summary = _plan_crossing(args, character, start, goal, obstacles)
        inputs.append(args.stones)
    elif mode == "wander":
        track, summary = _plan_wander(args, character, start, obstacles)
    else:
        track, summary = _plan_follow(args, character, start, obstacles)
        inputs.append(args.follow)
    write_atomically(args.output, dumps(track_to_json(track)), inputs=inputs)  # never over an input
    print(f"plan: {args.character}, {summary} -> {args.output}")
    return 0


def _plan_crossing(args, character, start, goal, obstacles):
    from ..solver.planning import footholds, stones

    ground = footholds.load_stones(args.stones)
    track = stones.plan_crossing(ground, start, goal, character, obstacles=obstacles)
    leaps = stones.leaps(track)
    return track, (f"{len(track)} footprints from ({start[0]:g}, {start[1]:g}) to ({goal[0]:g}, {goal[1]:g}), "
                   f"{leaps} leap{'s' if leaps != 1 else ''}, {track.liftoff.max() - track.contact.min():.2f} s")


def _plan_seconds(option, seconds):
    if not 0 < seconds <= MAX_PLAN_SECONDS:  # (also false for NaN)
        raise FootprintError(f"{option} {seconds:g}: give seconds in (0, {MAX_PLAN_SECONDS:g}]")
    return seconds


def _plan_area(args, obstacles):
    """The --area rectangle (any two opposite corners) as the walls of a wander.Area holding the obstacles;
    without --area, no walls (a follower's)."""
    from ..solver.planning import obstacles as planning_obstacles, wander

    obstacles = obstacles if obstacles is not None else planning_obstacles.Obstacles(())
    if args.area is None:
        return wander.Area.unbounded(obstacles)
    corners = np.array(args.area, dtype=float).reshape(2, 2)
    if not (np.isfinite(corners).all() and np.abs(corners).max() <= MAX_DISTANCE):
        raise FootprintError(f"--area {_shown(args.area)}: give two opposite corners X0 Y0 X1 Y1, finite numbers of "
                             f"metres within {MAX_DISTANCE:.0e}")
    low, high = corners.min(axis=0), corners.max(axis=0)
    if (high - low <= 0).any():
        raise FootprintError(f"--area {_shown(args.area)}: the rectangle has no area (its corners share an X or a Y)")
    return wander.Area(np.array([low, [high[0], low[1]], high, [low[0], high[1]]]), obstacles)


def _inside(args, area, start, what):
    """Refuse a start outside the --area rectangle, naming it (the planner names one merely too near a wall)."""
    low, high = area.outline.min(axis=0), area.outline.max(axis=0)
    if args.area is not None and ((start < low) | (start > high)).any():
        raise FootprintError(f"{what} is outside --area {_shown(args.area)}")


@contextmanager
def _naming_start(what):
    """The planner's refusal of a start (too near a wall or an obstacle) prefixed with the option that gave it."""
    try:
        yield
    except FootprintError as exc:
        if str(exc).startswith("the start "):
            raise type(exc)(f"{what.rstrip(',')}: {exc}") from None
        raise


def _plan_wander(args, character, start, obstacles):
    from ..solver.planning import wander

    seconds = _plan_seconds("--wander", args.wander)
    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise FootprintError(f"--seed {args.seed}: give a whole number from 0")
    area = _plan_area(args, obstacles)
    what = f"--from {_shown(start)}" if start is not None else None
    start = start if start is not None else area.outline.mean(axis=0)
    what = what or f"the area's centre ({start[0]:g}, {start[1]:g}), the default --from,"
    _inside(args, area, start, what)
    heading = math.radians(args.heading or 0.0)
    with _naming_start(what):
        track = wander.wander(character, area, start, heading, seconds, seed=args.seed or 0)
    (x0, y0), (x1, y1) = area.outline[0], area.outline[2]
    return track, (f"{len(track)} footprints wandering {seconds:g} s in ({x0:g}, {y0:g})-({x1:g}, {y1:g}) from "
                   f"({start[0]:g}, {start[1]:g}), {track.contact.min():.2f} s to {track.liftoff.max():.2f} s")


def _plan_follow(args, character, start, obstacles):
    from ..solver.planning import target as planning_target, wander

    target = planning_target.load_target(args.follow)
    if args.seconds is None and target.span > MAX_PLAN_SECONDS:
        raise FootprintError(f"{args.follow}: the target's span, {target.span:g} s, is longer than "
                             f"{MAX_PLAN_SECONDS:g} s: give --seconds")
    seconds = _plan_seconds("--seconds", args.seconds if args.seconds is not None else target.span)
    area = _plan_area(args, obstacles)
    where = target(target.start)
    what = f"--from {_shown(start)}" if start is not None else None
    start = start if start is not None else where
    what = what or f"the target's start ({start[0]:g}, {start[1]:g}), the default --from,"
    _inside(args, area, start, what)
    if args.heading is not None:
        heading = math.radians(args.heading)
    elif np.hypot(*(where - start)) > 0.01:  # facing the target
        heading = math.atan2(-(where - start)[0], (where - start)[1])
    else:  # on it: facing the way it first moves
        heading = target.start_heading()
    with _naming_start(what):
        track = wander.follow(character, target, start, heading, seconds,
                              area=area if args.area is not None or obstacles is not None else None,
                              start_time=target.start)
    mid_stance = 0.5 * (track.contact + track.liftoff)
    apart = np.linalg.norm(track.positions[:, :2] - target(mid_stance), axis=1)
    later = mid_stance >= target.start + 2.0  # once it has set off
    farthest = (f"after the first 2 s each footprint at most {apart[later].max():.2f} m" if later.any() else
                f"each footprint at most {apart.max():.2f} m")
    return track, (f"{len(track)} footprints following {args.follow} for {seconds:g} s from ({start[0]:g}, "
                   f"{start[1]:g}), {track.contact.min():.2f} s to {track.liftoff.max():.2f} s; {farthest} from the "
                   "target at mid-stance")


def _extract(args):
    """Footprints from an action on a rig of a .blend (issue 20, item 4): its foot plants as a track."""
    from .extraction import extract_file

    track = extract_file(args.scene, args.rig, args.action, args.output)
    print(f"extract: {len(track)} footprints from {args.action or 'the active action'} on {args.rig}, "
          f"{track.contact.min():.2f} s to {track.liftoff.max():.2f} s -> {args.output}")
    return 0


def _bake(args):
    from . import headless

    ok, text = headless.job_result(args.scene, args.track, args.rig, args.output, args.overwrite, args.measure)
    if not ok:
        print(f"error: {text}", file=sys.stderr)
        return 1
    print(f"bake: {args.track} onto {args.rig} -> {args.output} ({text})")
    return 0


def _batch_worker(_args):
    """A worker of batch --jobs: jobs as JSON lines on stdin, a result line each on stdout."""
    from . import batch_workers, headless

    def bake(job):
        return headless.job_result(job["file"], job["track"], job["rig"], job["output"], job["overwrite"],
                                   job["measure"])

    batch_workers.serve(sys.stdin, sys.stdout, bake)
    return 0


def _batch(args):
    from . import batch_jobs, batch_workers, headless

    try:
        jobs = batch_jobs.load_jobs(args.jobs, args.output_dir, args.overwrite)
        total = len(jobs)
        jobs = batch_jobs.select(jobs, args.only)
    except batch_jobs.JobListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    baked = 0

    def report(job, ok, text):
        nonlocal baked
        baked += ok
        label = f"[{job.number}/{total}] {job.label}"
        print(f"{label}: ok, {job.output} ({text})" if ok else f"{label}: FAILED: {text}", flush=True)

    workers = min(args.workers or batch_workers.default_jobs(), sum(not job.problem for job in jobs))
    try:
        if workers > 1:
            batch_workers.run(jobs, workers, args.overwrite, args.measure, report)
        else:  # one at a time, in this process
            for job in jobs:
                report(job, *((False, job.problem) if job.problem else headless.job_result(
                    job.file, job.track, job.rig, job.output, args.overwrite, args.measure)))
    finally:  # even when interrupted, say what was done
        print(f"batch: {baked} of {len(jobs)} jobs baked")
    return 0 if baked == len(jobs) else 1


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


class _GaitHelp(argparse.HelpFormatter):
    """gait --help: --jump takes START LENGTH [HEIGHT] (argparse would show an open-ended list)."""

    def _format_args(self, action, default_metavar):
        if action.dest == "jump":
            return "START LENGTH [HEIGHT]"
        return super()._format_args(action, default_metavar)


def _scene_and_rig(command):
    command.add_argument("scene", help=".blend to open")
    command.add_argument("--rig", required=True, help="name of the armature object")


def parser():
    p = argparse.ArgumentParser(prog="footprint_locomotion", description="Footprint Locomotion")
    sub = p.add_subparsers(dest="command", required=True,
                           metavar="{demo,solve,plot,running,gait,step,transition,plan,extract,bake,batch,validate}")
    demo = sub.add_parser("demo", help="build the demo scene, save out/demo.blend, render out/demo.png, "
                                       "the 0.8, 1.3 and 1.8 m/s walks out/walk-0.8.png, out/walk.png, "
                                       "out/walk-1.8.png, the 3.5 m/s run out/run.png, two steps "
                                       "out/step-turn.png, out/step-push.png and the quadrupeds' gaits "
                                       "out/<animal>-<gait>.png")
    demo.add_argument("--output-dir", default="out")
    demo.add_argument("--no-render", action="store_true", help="skip the Workbench render")
    demo.set_defaults(run=_demo)
    solve = sub.add_parser("solve", help="solve a track: COM, orientation, feet, quality report (JSON)")
    solve.add_argument("track")
    solve.add_argument("--fps", type=float, default=60.0, help="samples per second (default 60)")
    solve.add_argument("--output", required=True, help="motion JSON to write")
    solve.add_argument("--method", choices=sorted(biped.METHODS), default="lm",
                       help="lm: Levenberg-Marquardt (default); greedy: vdP97's reference descent")
    solve.set_defaults(run=_solve)
    plot = sub.add_parser("plot", help="plan view and timing diagram of a solved motion, as SVG or PNG")
    plot.add_argument("motion")
    plot.add_argument("--output", required=True, help="an .svg or .png file")
    plot.set_defaults(run=_plot)
    run = sub.add_parser("running", help="a running footprint track from RUNNER's parameters (B&C 1996)")
    run.add_argument("--speed-kmh", type=float, required=True)
    run.add_argument("--step-frequency", type=float, help="steps/min, with the velocity locked")
    run.add_argument("--body-height", type=float, default=1.8)
    run.add_argument("--level", type=float, default=0.0, help="-0.001 (poor) to 0.001 (skilled)")
    run.add_argument("--steps", type=int, required=True)
    run.add_argument("--start-standing", action="store_true")
    run.add_argument("--stop-standing", action="store_true")
    run.add_argument("--output", required=True)
    run.set_defaults(run=_running)
    gait = sub.add_parser("gait", formatter_class=_GaitHelp,
                          help="a quadruped footprint track for a gait at a speed (Torkos 1998 §3.3; stride by "
                               "Alexander's dynamic similarity), on a terrain, over jumps")
    gait.add_argument("--character", required=True, help="a quadruped preset: " + ", ".join(QUADRUPEDS))
    gait.add_argument("--gait", required=True, metavar="GAIT[,GAIT...]",
                      help="one of " + ", ".join(GAIT_NAMES) + " (auto: by Froude number, as animals choose); "
                           "several, separated by commas, follow one another along the path")
    gait.add_argument("--speed", required=True, metavar="M/S[,M/S...]", help="m/s, one per gait")
    gait.add_argument("--distance", required=True, metavar="M[,M...]", help="metres along the path, one per gait")
    gait.add_argument("--turn-radius", type=float, help="metres; positive turns left, negative right "
                                                       "(default: straight along +Y)")
    ground = gait.add_mutually_exclusive_group()
    ground.add_argument("--slope", type=float, metavar="DEG",
                        help="the ground a plane rising DEG degrees along +Y (negative: falling), at most 45; "
                             "distances and speeds are along the ground")
    ground.add_argument("--terrain", metavar="FILE.json",
                        help='a terrain as a track\'s "terrain": {"flat": z} or {"heightfield": {"origin": [x, y], '
                             '"spacing": d, "heights": [[...], ...]}} (or a track file holding one)')
    ground.add_argument("--ramp", type=float, nargs=3, metavar=("START", "LENGTH", "HEIGHT"),
                        help="Torkos' ramp: a platform HEIGHT m high from START to START+LENGTH m along the path, "
                             "jumped onto and off (straight paths)")
    gait.add_argument("--jump", action="append", nargs="+",
                      help="repeatable: no foot lands from START to START+LENGTH m along the path (a gap; HEIGHT: "
                           "an obstacle that high to clear); the gait's own flight is stretched over it, timed by "
                           "ballistics at the gait's speed (a walk jumps with a trot's stride)")
    gait.add_argument("--start-standing", action=argparse.BooleanOptionalAction, default=True,
                      help="start standing on all four feet, the body at rest, and gather speed (default; "
                           "--no-start-standing: start mid-gait at speed)")
    gait.add_argument("--stop-standing", action=argparse.BooleanOptionalAction, default=True,
                      help="slow down to standing on all four feet (default; --no-stop-standing: end mid-gait)")
    gait.add_argument("--output", required=True, help="track JSON to write")
    gait.set_defaults(run=_gait)
    step = sub.add_parser("step", help="a biped stepping from standing at the origin facing +Y to a stance, or "
                                       "recovering from a push (Wu, Medina and Zordan's steps; the capture point)")
    step.add_argument("--character", default="human", help="a biped preset (default human)")
    goal = step.add_mutually_exclusive_group(required=True)
    goal.add_argument("--to", type=float, nargs=3, metavar=("X", "Y", "HEADING_DEG"),
                      help="step to standing with the feet centred on (X, Y) m facing HEADING_DEG (0 = +Y, positive "
                           "turns left), in the fewest steps the legs reach")
    goal.add_argument("--push", type=float, nargs=2, metavar=("VX", "VY"),
                      help="the COM pushed to (VX, VY) m/s while standing: step as the capture point asks, then "
                           "stand")
    step.add_argument("--fps", type=float, default=60.0, help="samples per second (default 60)")
    step.add_argument("--output", required=True, help="motion JSON to write (the format solve writes)")
    step.add_argument("--track-output", metavar="TRACK.json",
                      help="also write the stepping track (every footprint, the starting stance's included)")
    step.set_defaults(run=_step)
    transition = sub.add_parser("transition", help="a stepping transition strip between two action strips of a "
                                                   "rig's NLA, saved as a new .blend")
    _scene_and_rig(transition)
    transition.add_argument("--from-strip", required=True, help="the NLA strip that ends standing")
    transition.add_argument("--to-strip", required=True, help="the NLA strip that starts standing elsewhere")
    transition.add_argument("--output", required=True, help=".blend to write")
    transition.set_defaults(run=_transition)
    plan = sub.add_parser(
        "plan", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="footprints that plan themselves: across stepping stones (walking where close, leaping where far), "
             "wandering in an area, or following a moving target; clear of obstacles",
        usage="%(prog)s --stones STONES.json --from X Y --to X Y [common options]\n"
              "       %(prog)s --wander SECONDS --area X0 Y0 X1 Y1 [--from X Y] [--heading DEG]\n"
              "              [--seed N] [common options]\n"
              "       %(prog)s --follow TARGET.json [--seconds S] [--area X0 Y0 X1 Y1] [--from X Y]\n"
              "              [--heading DEG] [common options]\n"
              "common options: [--obstacles OBSTACLES.json] [--character NAME] --output TRACK.json",
        description="A track of footprints planned by the solver (vdP97 §4, Torkos §3.5), written to --output. "
                    "Give exactly one of\n--stones, --wander and --follow; an option of another mode is refused. "
                    "Bad input (a file, a number,\na start outside the area, no crossing): exit status 1, the "
                    "culprit named on stderr, nothing written\n(an existing --output left as it was). File formats: "
                    "docs/stones-format.md.")
    crossing = plan.add_argument_group("across stepping stones (vdP97 §4.2)")
    crossing.add_argument("--stones", metavar="STONES.json",
                          help='the stones: {"format": "footprint-stones", "version": 1, "stones": [{"position": '
                               '[x, y, z], "radius": r}, ...]}: each the centre of its top face and its radius')
    crossing.add_argument("--to", dest="goal", type=float, nargs=2, metavar=("X", "Y"),
                          help="where the crossing ends, standing: a point on a stone (--from: where it starts, "
                               "also on a stone; both required)")
    wandering = plan.add_argument_group("wandering (vdP97 §4.2, Torkos §3.5)")
    wandering.add_argument("--wander", type=float, metavar="SECONDS",
                           help=f"wander at random for SECONDS (at most {MAX_PLAN_SECONDS:g}), a step at a time, "
                                "inside --area (required) and clear of --obstacles: from --from (default: the "
                                "area's centre) facing --heading (default 0)")
    wandering.add_argument("--seed", type=int, metavar="N",
                           help="the random walk's seed, a whole number from 0 (default 0; another seed, another "
                                "walk)")
    following = plan.add_argument_group("following a moving target (Torkos §3.5)")
    following.add_argument("--follow", metavar="TARGET.json",
                           help='follow the target, a step at a time: {"format": "footprint-target", "version": 1, '
                                '"times": [t0, t1, ...], "positions": [[x, y], ...]} (seconds increasing, metres; '
                                "linear between samples, held at its ends); from --from (default: where the target "
                                "starts) facing --heading (default: facing the target, else the way it first "
                                "moves), from time t0; --area walls it in (optional)")
    following.add_argument("--seconds", type=float, metavar="S",
                           help=f"how long to follow (default: the target's span, t_last - t0; at most "
                                f"{MAX_PLAN_SECONDS:g})")
    walking = plan.add_argument_group("wandering and following")
    walking.add_argument("--area", type=float, nargs=4, metavar=("X0", "Y0", "X1", "Y1"),
                         help="the walled rectangle between two opposite corners (metres): no foot leaves it and "
                              "the body's path keeps its clearance from the walls (0.43 m for the human, 0.60 m "
                              "for the dog)")
    walking.add_argument("--heading", type=float, metavar="DEG",
                         help="the starting facing in degrees (0 faces +Y, 90 faces -X: positive turns left)")
    common = plan.add_argument_group("common options")
    common.add_argument("--from", dest="start", type=float, nargs=2, metavar=("X", "Y"),
                        help="where the character starts, standing (required with --stones: a point on a stone)")
    common.add_argument("--obstacles", metavar="OBSTACLES.json",
                        help='walls, posts, furniture the feet keep off and the body clear of: {"format": '
                             '"footprint-obstacles", "version": 1, "obstacles": [{"name": n, "outline": [[x, y], '
                             "...]}, ...]}")
    common.add_argument("--character", default="human", metavar="NAME",
                        help="a biped or quadruped preset (default human)")
    common.add_argument("--output", required=True, metavar="TRACK.json",
                        help="track JSON to write, atomically; nothing written on any error")
    plan.set_defaults(run=_plan)
    extract = sub.add_parser("extract", help="footprints from an action on a rig of a .blend (mocap or keyframed): "
                                             "its foot plants as a track JSON, to move and bake again")
    _scene_and_rig(extract)
    extract.add_argument("--action", help="name of the action to read the feet from (default: the rig's own)")
    extract.add_argument("--output", required=True,
                         help="track JSON to write (with the scene's fps: the times are its frames); the ground is "
                              "the active track's terrain, if the file has one; no foot plant: exit status 1, "
                              "nothing written")
    extract.set_defaults(run=_extract)
    bake = sub.add_parser("bake", help="bake a track of a .blend onto a rig, save the result as a new .blend")
    bake.add_argument("scene", nargs="?", help=".blend to open (omit inside `blender -b scene.blend --command`)")
    bake.add_argument("--track", required=True, help="name of the footprint track collection")
    bake.add_argument("--rig", required=True, help="name of the armature object")
    bake.add_argument("--output", required=True, help=".blend to write")
    bake.add_argument("--overwrite", action="store_true", help="allow the output to replace the input file")
    bake.add_argument("--measure", action="store_true", help="also measure foot skate on the evaluated rig")
    bake.set_defaults(run=_bake)
    batch = sub.add_parser("batch", help='bake many jobs: a JSON list of {"file", "track", "rig"[, "output"]}')
    batch.add_argument("jobs", help='the job list (JSON); its "file" paths are taken from its folder, a job\'s '
                                    'relative "output" inside --output-dir, else in the job list\'s folder')
    batch.add_argument("--output-dir", help="folder for the outputs, created with its parents if missing "
                                            '(default: a job without "output" writes '
                                            "<input>.<track>.baked.blend beside its input)")
    batch.add_argument("--overwrite", action="store_true", help="allow outputs to replace input files")
    batch.add_argument("--measure", action="store_true", help="also measure foot skate on each evaluated rig")
    batch.add_argument("--jobs", dest="workers", type=_positive_int, metavar="N",
                       help="bake N jobs at a time, each in a worker process of its own (a Blender, or Python "
                            "with bpy); default: the number of cores. 1 bakes one after another in this process")
    batch.add_argument("--only", type=_positive_int, metavar="K",
                       help="bake only job K (1-based) of the list, after checking the whole list: one farm "
                            "task per job (farm/)")
    batch.set_defaults(run=_batch)
    worker = sub.add_parser("batch-worker")  # batch --jobs' worker processes (not listed: see the metavar)
    worker.set_defaults(run=_batch_worker)
    check = sub.add_parser("validate", help="check a footprint track JSON file as solve would (every check "
                                            "solve makes before it optimises)")
    check.add_argument("track")
    check.add_argument("--fps", type=float, default=60.0, help="the rate solve will sample at (default 60)")
    check.set_defaults(run=_validate)
    return p


def main(argv) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (FootprintError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def register():
    global _handle
    _handle = bpy.utils.register_cli_command("footprint", main)


def unregister():
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
