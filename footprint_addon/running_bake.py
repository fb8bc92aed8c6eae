"""A RUNNER running cycle (Bruderlin & Calvert 1996) on a bound rig: one stride as an action, in place
(looping with Cycles modifiers) or with root motion, in its own NLA track."""

import math


from ..solver.running import parameters
from ..solver.running.attributes import natural_attributes
from ..solver.running.cycle import running_cycle
from ..solver.running.pelvis import LegGeometry
from . import animation, bake, scene_clock
from .ownership import BAKE_TRACK
from .rigs import bind
from .running_upper_body import upper_body_channels

RUN_KEY = "footprint_run"  # on the actions this makes: "in place" or "root motion"
LOOPS = 4


def rig_leg_geometry(character, chain, knee_bend_degrees=10.0):
    """RUNNER's leg lengths from the rig: thigh + shin (chain), the knee bent at heel-strike by the attribute."""
    half = 0.5 * chain
    heel_strike = math.sqrt(2 * half * half * (1 + math.cos(math.radians(knee_bend_degrees))))
    ankle_height = character.ankle_offset[2]
    return LegGeometry(heel_strike + ankle_height, chain + ankle_height + 0.3 * character.foot_length,
                       character.foot_length, chain, ankle_height)


def bake_cycle(context, rig, params, in_place=True, attributes=None):
    """Write one running stride for the rig; returns (strip, motion, cycle seconds)."""
    binding = bind(rig)
    character = bake.rig_character(binding)
    attributes = natural_attributes(params) if attributes is None else attributes
    chain = min(binding.measurements["chains"].values()) * bake.world_rest(binding)["object"][2]
    legs = rig_leg_geometry(character, chain, attributes.knee_bend_heel_strike)
    scene = context.scene
    fps = scene_clock.fps(scene)
    motion, _constraints, cycle = running_cycle(params, character, legs, fps, attributes, in_place=in_place)
    channels = bake.control_channels(binding, motion)
    frames = scene.frame_start + motion.times * fps  # sub-frame keys: the loop is exactly one stride long
    mode = "in place" if in_place else "root motion"
    name = f"Run {parameters.kmh(params.velocity):.1f} km/h ({mode})"
    writer = bake.write_action(rig, binding, name, frames, channels, upper_body_channels(binding, motion, attributes))
    writer.action[RUN_KEY] = mode
    if in_place:
        for fcurve in writer.fcurves:
            fcurve.modifiers.new("CYCLES")

    def earlier(action):  # among this rig's strips (whatever the rig's name now)
        return action != writer.action and action.get(RUN_KEY) == mode

    _track, strip = animation.replace_strip(rig, writer, BAKE_TRACK.format(f"run cycle ({mode})"), name,
                                            int(scene.frame_start), context.view_layer, earlier)
    strip.frame_end = strip.frame_start + (frames[-1] - frames[0])
    if in_place:
        strip.repeat = LOOPS  # a few strides to scrub; the F-curves cycle beyond the strip too
    return strip, motion, cycle
