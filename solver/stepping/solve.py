"""A stepping track ("motion": "stepping") to a Motion: Wu, Medina and Zordan's steps one after another.

The feet (feet.py), the projected COM (com.py), the body's yaw from the feet (vdP97 §2.6, as the COM
solver's), the COM's height (height.py: the stance legs within reach), the hips from them, a swinging foot
drawn toward its hip where the leg would not reach it; measured by the COM solver's own frame
measures and quality report, so foot skate and leg over-extension read the same for either kind of track."""

from __future__ import annotations

import math
import time

import numpy as np

from ..body import legs
from ..character import character_from_json
from ..core.orientation import body_yaw, hip_offsets_in_world
from ..errors import RangeError
from ..motion import SWING_MIN, Motion, first_non_finite, frame_measures, quality_report
from ..terrain import terrain_from_json
from ..track import frame_count
from . import height as height_module
from .com import com_path
from .feet import feet_at, footprint_rotations
from .stance import standing_height
from .steps import step_plan


def solve_steps(track, character=None, terrain=None, fps: float = 60.0, times=None) -> Motion:
    """The WMZ motion of a stepping track, sampled at fps from its start to its end, or at the given times
    (seconds, clamped into that span). The track's "com_velocity" ([vx, vy], extras) starts the body moving
    (a push): a linear inverted pendulum until a step captures it (com.py)."""
    started = time.perf_counter()
    character = character_from_json(track.character) if character is None else character
    terrain = terrain_from_json(track.extras.get("terrain")) if terrain is None else terrain
    plan = step_plan(track, character)
    if times is None:
        times = plan.start + np.arange(frame_count(plan.start, plan.end, fps)) / fps
    times = np.clip(np.asarray(times, dtype=float), plan.start, plan.end)
    rotations = footprint_rotations(plan.track, terrain)
    path = com_path(plan, character, track.extras.get("com_velocity"))
    grid = height_module.grid(plan.start, plan.end)
    every = np.concatenate([times, grid])
    n = len(times)
    feet = feet_at(plan, character, every, rotations, terrain)
    xy, velocity_xy, acceleration_xy = path.evaluate(every)
    tr = plan.track
    yaw = body_yaw(every, tr.contact, tr.liftoff, tr.headings)
    zero = np.zeros_like(yaw)
    offsets = hip_offsets_in_world(yaw, zero, zero, character.hip_offsets)
    base = feet.ground.mean(axis=1) + standing_height(character)
    limit = height_module.height_limit(xy[n:, None] + offsets[n:, :, :2], -offsets[n:, :, 2], feet.position[n:],
                                       feet.contact[n:], character.standing_reach)
    z, vz, az = height_module.lowered(grid, base[n:], limit)
    com = np.column_stack([xy[:n], np.interp(times, grid, z)])
    hips = com[:, None] + offsets[:n]
    position, rotation, contact = feet.position[:n], feet.rotation[:n], feet.contact[:n]
    turned, drawn = legs.feet_within_reach(position, rotation, hips, contact, character)
    toe_pivot = feet.heel_lift[:n] + turned
    motion = Motion(
        fps, times, com,
        np.column_stack([velocity_xy[:n], np.interp(times, grid, vz)]),
        np.column_stack([acceleration_xy[:n], np.interp(times, grid, az)]),
        yaw[:n], zero[:n], zero[:n], hips, position, rotation, toe_pivot, contact, feet.footprint[:n],
        character=character, track=tr)
    ground = terrain.heights(com[:, :2]) if terrain is not None else feet.ground[:n].mean(axis=1)
    motion.measures = frame_measures(motion, plan.schedule, rotations, ground, terrain)
    motion.report = quality_report(motion, plan.schedule, motion.measures,
                                   character.com_clearance * character.leg_length_nominal)
    motion.report["swing"] = quickest_swing(plan, character)
    motion.report["ankle_reach"] = legs.reach_report(drawn, contact, character.feet)
    motion.report["stepping"] = {
        "steps": len(plan.swings), "pivots": len(plan.pivots),
        "lowest_com_drop": float((base[n:] - z).max()),
        "captured": path.captured,
    }
    hit = first_non_finite(motion)
    if hit is not None:  # numbers beyond what the geometry holds: an input error, never a file of NaN
        raise RangeError(f"the stepping motion has a non-finite {hit[0]}: the track's numbers overflow it (check the "
                         "character's sizes and the footprints' positions)")
    motion.solve_seconds = time.perf_counter() - started
    return motion


def quickest_swing(plan, character):
    """The report's quickest swing (motion.quality_report's entry) among the steps: a pivot turns its foot on
    the ground, it does not swing."""
    if not plan.swings:
        return None
    tr = plan.track
    swing = min(plan.swings, key=lambda s: s.t2 - s.t1)
    turn = abs(math.remainder(tr.headings[swing.land] - tr.headings[swing.leave], 2.0 * math.pi))
    return {"seconds": swing.t2 - swing.t1, "foot": str(tr.feet[swing.leave]), "liftoff": swing.t1, "contact": swing.t2,
            "distance": float(np.linalg.norm(tr.positions[swing.land] - tr.positions[swing.leave])),
            "turn_degrees": math.degrees(turn), "plausible_min": SWING_MIN * character.time_unit}
