"""A running cycle (two steps) from RUNNER's state constraints (Bruderlin & Calvert 1996, §3.2), sampled
as a Motion: the pelvis follows the support curve and the flight parabola, with lateral displacement and
a forward torso tilt; the feet stand on footprints laid out by the same parameters and swing between them
(legs.py), so a rig can play it with root motion or in place, as a seamless loop."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..body import legs as legs_module
from ..body.transforms import smoothstep
from ..character import Character
from ..core.orientation import hip_offsets_in_world
from ..core.schedule import build_schedule
from ..core.spline import hermite_basis
from ..motion import Motion
from ..track import make_track
from .attributes import Attributes, natural_attributes
from .parameters import RunningParameters
from .pelvis import LegGeometry, StepConstraints, step

WARMUP_STEPS = 4  # footprints before the sampled cycle, so its feet arrive from a running stride


def cycle_track(params: RunningParameters, constraints: StepConstraints, character: Character, steps: int,
                step_width: float, turn_out: float = 0.0):
    """Footprints under the running pelvis: footprint k lands at k t_step, one step length apart, its
    support point half a foot ahead of the heel, which lands `overstride` ahead of the pelvis."""
    k = np.arange(steps)
    feet = np.where(k % 2 == 0, "R", "L")
    x = np.where(feet == "L", -0.5 * step_width, 0.5 * step_width)
    y = k * params.step_length + constraints.overstride + 0.5 * character.foot_length
    contact = k * params.step_time
    headings = np.where(feet == "L", turn_out, -turn_out)  # toes turned outwards
    return make_track(feet, np.column_stack([x, y, np.zeros(steps)]), headings, contact,
                      contact + constraints.t_stance, character=character.name)


def swing_keys(targets, schedule, times, hips, constraints, legs, attributes, ankle_offset, window):
    """The swing's phase constraints (§3.3.2), applied to the swinging foot's path: at the other leg's
    mid-support the thigh hangs vertical with the knee folded by the swing knee-flexion attribute; at the
    other leg's toe-off the thigh is forward by the hip-extension attribute with the toe under the knee.
    The foot passes through these two keys between its own toe-off and heel-strike on a C1 cubic path
    (Catmull-Rom through toe-off, the keys and the landing), starting and ending at rest."""
    tr = schedule.track
    thigh = shank = 0.5 * legs.reach
    flex, lift = np.radians(attributes.knee_flexion_swing), np.radians(attributes.hip_extension)
    t_flight, t_stance = constraints.t_flight, constraints.t_stance
    taus = np.array([0.0, t_flight + 0.5 * t_stance, t_flight + t_stance, 2.0 * t_flight + t_stance])
    for leg in range(targets.position.shape[1]):  # a handful of legs
        mine = np.flatnonzero(schedule.leg_of_footprint == leg)
        for a, b in zip(mine[:-1], mine[1:]):  # each swing of this foot that reaches into the window
            if tr.contact[b] < window[0] or tr.liftoff[a] > window[1]:
                continue
            inside = (times > tr.liftoff[a]) & (times < tr.contact[b])
            if not inside.any():
                continue
            key_times = tr.liftoff[a] + taus
            key_times[-1] = tr.contact[b]
            start = targets.position[inside, leg][0] if inside.any() else tr.positions[a]
            left = np.flatnonzero(times <= tr.liftoff[a])
            if left.size:
                start = targets.position[left[-1], leg]
            hip = np.stack([np.interp(key_times[1:3], times, hips[:, leg, k]) for k in range(3)], axis=1)
            knee_mid = hip[0] + [0.0, 0.0, -thigh]
            ankle_mid = knee_mid + shank * np.array([0.0, -np.sin(flex), -np.cos(flex)])
            knee_to = hip[1] + thigh * np.array([0.0, np.sin(lift), -np.cos(lift)])
            toe_ahead = legs.foot_length * 0.75
            drop = np.sqrt(max(shank**2 - toe_ahead**2, 1e-6))
            ankle_to = knee_to + np.array([0.0, -toe_ahead, -drop])
            x = tr.positions[b, 0]
            keys = np.array([start, ankle_mid - ankle_offset, ankle_to - ankle_offset, tr.positions[b]])
            keys[1:3, 0] = x
            targets.position[inside, leg] = _catmull_rom(key_times, keys, times[inside])


def _catmull_rom(key_times, keys, t):
    """C1 cubic through the keys, at rest at both ends (non-uniform Catmull-Rom tangents inside)."""
    n = len(key_times)
    slopes = np.zeros_like(keys)
    for i in range(1, n - 1):  # four keys: two inner tangents
        slopes[i] = (keys[i + 1] - keys[i - 1]) / (key_times[i + 1] - key_times[i - 1])
    seg = np.clip(np.searchsorted(key_times, t, side="right") - 1, 0, n - 2)
    h = key_times[seg + 1] - key_times[seg]
    position, _velocity, _acceleration = hermite_basis((t - key_times[seg]) / h, h)
    controls = np.stack([keys[seg], slopes[seg], keys[seg + 1], slopes[seg + 1]], axis=1)
    return np.einsum("nk,nkd->nd", position, controls)


def rock_onto_flat(targets, schedule, times, reach, strike, flat_after):
    """Early stance (§3.3.1): the foot lands with its toes up and rolls about the heel (strike > 0, a heel
    strike) or lands heel up and rolls about the ball (strike < 0, a toe strike), flat by mid-support.
    The swing turns the foot to that angle on its way down (over as long, at most its second half), so it
    lands as it will roll, without a snap. Changes the targets in place; the point the foot rolls about
    stays where it landed: `reach` metres along the foot behind the support point for a heel strike (the
    back of the heel, which must not go through the ground), ahead of it for a toe strike (the ball)."""
    tr = schedule.track
    for leg in range(targets.position.shape[1]):  # a handful of legs
        on = targets.contact[:, leg]
        fp = np.where(on, targets.footprint[:, leg], 0)
        since = times - tr.contact[fp]
        rolling = on & (since < flat_after)
        mine = np.flatnonzero(schedule.leg_of_footprint == leg)
        following = mine[np.minimum(np.searchsorted(tr.contact[mine], times), len(mine) - 1)]
        before = np.searchsorted(tr.liftoff[mine], times, side="right") - 1
        lifted = tr.liftoff[mine[np.maximum(before, 0)]]
        until = tr.contact[following] - times
        turn_in = np.minimum(flat_after, 0.5 * (tr.contact[following] - lifted))
        landing = ~on & (until > 0.0) & (until < turn_in) & (before >= 0)
        if not (rolling.any() or landing.any()):
            continue
        angle = np.zeros(len(times))
        angle[rolling] = strike * (1.0 - since[rolling] / flat_after)  # about the foot's own X axis
        ease = 1.0 - until[landing] / turn_in[landing]
        angle[landing] = strike * smoothstep(ease)
        turning = rolling | landing
        rot = targets.rotation[turning, leg]
        pos = targets.position[turning, leg]
        sign = np.sign(strike)
        pivot = pos - sign * reach * rot[:, :, 1]  # the heel for a heel strike, the ball for a toe strike
        new_rot = legs_module.about_own_x(rot, angle[turning])
        targets.rotation[turning, leg] = new_rot
        targets.position[turning, leg] = pivot + sign * reach * new_rot[:, :, 1]
        targets.toe_pivot[rolling, leg] = -angle[rolling]  # + heel up about the ball, - toes up (legs.LegTargets)


def keep_swing_bent(targets, schedule, times, hips, character, landing=0.2):
    """Swinging feet (in place) within legs.RUN_REACH of the leg's reach, easing to the whole reach over the
    swing's last `landing` fraction, the sole never under the ground: the swing keys' path reaches ahead to the
    footprint early, and a leg straight for a sixth of the stride with the sole skimming under the ground
    (Catmull-Rom's overshoot) is no runner's; the knee straightens only as the foot lands."""
    tr = schedule.track
    lifted = ~targets.contact
    fraction = np.ones(lifted.shape)
    for leg in range(lifted.shape[1]):  # a handful of legs
        mine = np.flatnonzero(schedule.leg_of_footprint == leg)
        before = np.clip(np.searchsorted(tr.liftoff[mine], times, side="right") - 1, 0, len(mine) - 1)
        after = np.clip(before + 1, 0, len(mine) - 1)
        u = np.clip((times - tr.liftoff[mine[before]]) / np.maximum(tr.contact[mine[after]] - tr.liftoff[mine[before]],
                                                                     1e-9), 0.0, 1.0)
        fraction[:, leg] = legs_module.RUN_REACH + (1.0 - legs_module.RUN_REACH) * smoothstep((u - 1.0 + landing) / landing)
    legs_module.keep_within_reach(targets.position, targets.rotation, hips, lifted, character, fraction)
    ground = tr.positions[:, 2].min()  # the cycle runs on level ground: the sole, heel to toe tip, above it
    forward_z = targets.rotation[..., 2, 1]
    lowest = targets.position[..., 2] + np.minimum(-character.heel * forward_z, character.toe * forward_z)
    targets.position[..., 2] += np.where(lifted, np.maximum(ground - lowest, 0.0), 0.0)


def running_cycle(params: RunningParameters, character: Character, legs: LegGeometry, fps: float,
                  attributes: Attributes | None = None, in_place: bool = False):
    """One stride (right step, then left) sampled at fps, exactly periodic: (Motion, constraints, cycle).

    Times start at a right heel-strike; the last sample is one full cycle later, equal to the first up to
    the forward progress of one stride (removed entirely with in_place=True). The attributes (§3.1.2)
    shape it: overstride, bounciness, stride width, lateral displacement, torso tilt and sway, pelvic
    rotation and list, foot turn-out, and the swing's knee flexion (how high the foot is carried).
    """
    attributes = natural_attributes(params) if attributes is None else attributes
    constraints = step(params, legs, overstride=attributes.overstride * params.body_height / 1.8,
                       bounciness=attributes.bounciness)
    t_step = params.step_time
    cycle = 2.0 * t_step
    frames = max(2, int(round(cycle * fps)))
    start = WARMUP_STEPS * t_step
    # Sample a cycle before the one returned and one after: a swing starts from the pose its stance ended
    # in and passes through keys set by the hips later on, so both must be inside the sampled span for the
    # first swing of the cycle to match its last.
    k = np.arange(-frames, 2 * frames + 1)
    times = start + k * (cycle / frames)
    steps_in = np.floor(k / (frames / 2.0) + 1e-9).astype(int)  # step index from the cycle's start
    local = (k - steps_in * frames / 2.0) * (cycle / frames)
    index = steps_in
    fwd, up, v_fwd, v_up = constraints.pelvis(local)
    fwd = fwd + (WARMUP_STEPS + index) * params.step_length
    side = np.where(index % 2 == 0, 1.0, -1.0)  # right stance: the body shifts right (+X)
    phase = np.pi * (local - 0.5 * constraints.t_stance) / t_step  # 0 at mid-support
    lat = attributes.lateral_displacement * side * np.cos(phase)  # most at mid-support (§3.2, Fig. 7)
    hip_drop = float(character.hip_offsets[:, 2].mean())
    com = np.column_stack([lat, fwd, up - hip_drop])
    acc_up = np.gradient(v_up, times)
    # Pelvic rotation: most at toe-off, none at mid-support, swinging the stance hip back (Fig. 7); list
    # and sway: most at mid-support, towards the stance side.
    yaw = np.radians(attributes.pelvic_rotation) * side * np.sin(phase)
    pitch = np.full(len(times), -np.radians(attributes.torso_tilt))  # leaning forward lowers the front
    roll = np.radians(attributes.pelvic_list + attributes.torso_sway) * side * np.cos(phase)
    hips = com[:, None, :] + hip_offsets_in_world(yaw, pitch, roll, character.hip_offsets)
    track = cycle_track(params, constraints, character, WARMUP_STEPS + 6, attributes.stride_width,
                        np.radians(attributes.foot_turn_out))
    # The more the knee folds in swing, the higher the foot is carried (60 to 140 degrees: 5 to 25 % of l_nom).
    carry = 0.05 + 0.2 * (attributes.knee_flexion_swing - 60.0) / 80.0
    character = replace(character, swing_clearance=carry)
    schedule = build_schedule(track, character)
    liftoff_hips = legs_module.hips_at_liftoff(track, times, hips, schedule.leg_of_footprint)
    targets = legs_module.leg_targets(schedule, character, times, hips, liftoff_hips)
    ankle_offset = np.array(character.ankle_offset if character.ankle_offset is not None
                            else (0.0, -0.1 * character.foot_length, 0.045 * params.body_height))
    swing_keys(targets, schedule, times, hips, constraints, legs, attributes, ankle_offset,
               (start, start + cycle))
    strike = np.radians(attributes.hidden(params)["ankle_impact"])
    rock_onto_flat(targets, schedule, times, character.heel if strike > 0 else 0.5 * character.foot_length, strike,
                   0.5 * constraints.t_stance)
    keep_swing_bent(targets, schedule, times, hips, character)
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
                    targets.toe_pivot[keep], targets.contact[keep], targets.footprint[keep], character,
                    track=schedule.track.replace(contact=schedule.track.contact - start,  # on the motion's clock:
                                                 liftoff=schedule.track.liftoff - start))  # its footprint indices
    return motion, constraints, cycle
