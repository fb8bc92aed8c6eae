"""A running cycle (two steps) from RUNNER's state constraints (Bruderlin & Calvert 1996, §3.2), sampled
as a Motion: the pelvis follows the support curve and the flight parabola, with lateral displacement and
a forward torso tilt; the feet stand on footprints laid out by the same parameters and swing between them
(legs.py), so a rig can play it with root motion or in place, as a seamless loop."""

from __future__ import annotations

import numpy as np

from . import legs as legs_module
from .character import Character
from .motion import Motion
from .running import RunningParameters
from .running_pelvis import LegGeometry, StepConstraints, step
from .schedule import build_schedule
from .track import make_track

WARMUP_STEPS = 4  # footprints before the sampled cycle, so its feet arrive from a running stride


def cycle_track(params: RunningParameters, constraints: StepConstraints, character: Character, steps: int,
                step_width: float):
    """Footprints under the running pelvis: footprint k lands at k t_step, one step length apart, its
    support point half a foot ahead of the heel, which lands `overstride` ahead of the pelvis."""
    k = np.arange(steps)
    feet = np.where(k % 2 == 0, "R", "L")
    x = np.where(feet == "L", -0.5 * step_width, 0.5 * step_width)
    y = k * params.step_length + constraints.overstride + 0.5 * character.foot_length
    contact = k * params.step_time
    return make_track(feet, np.column_stack([x, y, np.zeros(steps)]), np.zeros(steps), contact,
                      contact + constraints.t_stance, character=character.name)


def running_cycle(params: RunningParameters, character: Character, legs: LegGeometry, fps: float,
                  lateral: float = 0.025, torso_tilt: float = np.radians(6.0), in_place: bool = False):
    """One stride (right step, then left) sampled at fps, exactly periodic: (times, Motion, cycle seconds).

    Times start at a right heel-strike; the last sample is one full cycle later, equal to the first up to
    the forward progress of one stride (removed entirely with in_place=True).
    """
    constraints = step(params, legs)
    t_step = params.step_time
    cycle = 2.0 * t_step
    frames = max(2, int(round(cycle * fps)))
    start = WARMUP_STEPS * t_step
    # Sample a cycle before the one returned too: a swing starts from the pose its stance ended in, so the
    # stance before the cycle must be sampled for the first swing to match the last.
    k = np.arange(-frames, frames + 1)
    times = start + k * (cycle / frames)
    steps_in = np.floor(k / (frames / 2.0) + 1e-9).astype(int)  # step index from the cycle's start
    local = (k - steps_in * frames / 2.0) * (cycle / frames)
    index = steps_in
    fwd, up, v_fwd, v_up = constraints.pelvis(local)
    fwd = fwd + (WARMUP_STEPS + index) * params.step_length
    side = np.where(index % 2 == 0, 1.0, -1.0)  # right stance: the body shifts right (+X)
    phase = np.pi * (local - 0.5 * constraints.t_stance) / t_step
    lat = lateral * side * np.cos(phase)
    hip_drop = float(character.hip_offsets[:, 2].mean())
    com = np.column_stack([lat, fwd, up - hip_drop])
    acc_up = np.gradient(v_up, times)
    yaw = np.zeros(len(times))
    pitch = np.full(len(times), -torso_tilt)  # leaning forward lowers the front
    roll = np.zeros(len(times))
    from .orientation import rotation_matrices

    rot = rotation_matrices(yaw, pitch, roll)
    hips = com[:, None, :] + np.einsum("nij,lj->nli", rot, character.hip_offsets)
    track = cycle_track(params, constraints, character, WARMUP_STEPS + 4, 2.0 * abs(character.hip_offsets[0, 0]))
    schedule = build_schedule(track, character)
    targets = legs_module.leg_targets(schedule, character, times, hips)
    feet = targets.position
    if in_place:
        progress = np.column_stack([np.zeros(len(times)), (times - start) * params.velocity / 60.0,
                                    np.zeros(len(times))])
        com = com - progress
        hips = hips - progress[:, None, :]
        feet = feet - progress[:, None, :]
    velocity = np.column_stack([np.gradient(lat, times), v_fwd, v_up])
    acceleration = np.column_stack([np.zeros(len(times)), np.zeros(len(times)), acc_up])
    keep = slice(frames, 2 * frames + 1)
    motion = Motion(fps, times[keep] - start, com[keep], velocity[keep], acceleration[keep], yaw[keep],
                    pitch[keep], roll[keep], hips[keep], feet[keep], targets.rotation[keep],
                    targets.toe_pivot[keep], targets.contact[keep], targets.footprint[keep], character)
    return motion, constraints, cycle
