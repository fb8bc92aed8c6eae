"""Transition Between Strips (Wu, Medina and Zordan §6; issue 19): two action strips on a rig's NLA, the first
ending standing and the second starting standing elsewhere, joined by a transition strip in the gap between
them in which the rig steps from the one stance to the other (solver.stepping.transition does the numbers).

Blender's side: the two poses are read off the evaluated rig at the first strip's last frame and the second's
first (the controls', the legs' and the deform bones' world matrices, and the local transform of every bone
either strip animates); the result is keyed into a new action, in a strip that fills the frames strictly
between the two, on an NLA track above them. Every channel either strip animates is keyed there (blended from
the one pose to the other), the pelvis and foot controls from the solve, so nothing of the two strips shows
through in the gap and nothing outside it changes. The action is marked as the tool's (TRANSITION_KEY):
running again replaces what the tool made in that gap, and only that.
"""

import math
import os
import re

import bpy
import numpy as np

from ..solver.body.transforms import quaternion_from_matrix, quaternion_matrices
from ..solver.stepping import transition as solver
from ..solver.stepping.transition import TransitionError
from . import animation, headless, scene_clock
from .rigs import MissingBonesError, bind

TRANSITION_KEY = "footprint_transition"  # on a transition's action: "first strip -> second strip"
TRACK_NAME = "Footprint transitions"  # the NLA track a transition goes on, unless one of them already has one
FEET = ("L", "R")
TRANSFORMS = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle", "scale")
_BONE_PATH = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\](?:\.(\w+)|\["((?:[^"\\]|\\.)*)"\])$')
_OBJECT_TRANSFORMS = {"location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale",
                      "delta_location", "delta_rotation_euler", "delta_rotation_quaternion", "delta_scale"}
# The upper body's segments on a Rigify human's deform bones (Winter's Table 4.1, solver SEGMENTS): each end
# the mean of bone heads or tails. The trunk from the hip joints to the shoulder joints; the head and neck
# from C7 (the neck's base) to the ear canal (the middle of the head bone); the hand to the knuckles.
RIGIFY_UPPER = (
    ("trunk", (("DEF-thigh.L", "head"), ("DEF-thigh.R", "head")), (("DEF-upper_arm.L", "head"),
                                                                      ("DEF-upper_arm.R", "head"))),
    ("head_neck", (("DEF-spine.004", "head"),), (("DEF-spine.006", "head"), ("DEF-spine.006", "tail"))),
    *((kind, ((f"DEF-{bone}.{side}", "head"),), ((f"DEF-{distal}.{side}", end),))
      for side in FEET for kind, bone, distal, end in (("upper_arm", "upper_arm", "forearm", "head"),
                                                        ("forearm", "forearm", "hand", "head"),
                                                        ("hand", "hand", "hand", "tail"))),
)


# --- which strips -----------------------------------------------------------------------------------------------


def is_transition(strip):
    """Whether the strip holds a transition this tool made."""
    return strip.action is not None and TRANSITION_KEY in strip.action


def action_strips(rig):
    """The rig's action strips on every NLA track, the tool's own transitions left out."""
    anim = rig.animation_data
    if anim is None:
        return []
    return [s for track in anim.nla_tracks for s in track.strips
            if s.type == "CLIP" and s.action is not None and not is_transition(s)]


def default_strips(rig, frame):
    """The names of the two strips to join when none are named: the two selected ones, else those around the
    frame (the first strip starting after it and the strip that ends last before that one starts); None
    when there is no such pair."""
    strips = action_strips(rig)
    selected = sorted((s for s in strips if s.select), key=lambda s: s.frame_start)
    if len(selected) == 2:
        return selected[0].name, selected[1].name
    later = [s for s in strips if s.frame_start > frame]
    if later:
        second = min(later, key=lambda s: s.frame_start)
    elif strips:  # the frame is past every strip's start: the gap before the last strip
        second = max(strips, key=lambda s: s.frame_start)
    else:
        return None
    before = [s for s in strips if s.frame_end < second.frame_start]
    if not before:
        return None
    return max(before, key=lambda s: s.frame_end).name, second.name


def find_strips(rig, first, second):
    """The two strips named, checked: both exist (not the tool's own), the first ends before the second
    starts, and at least one frame lies between them. Raises TransitionError naming the culprit."""
    strips = {s.name: s for s in action_strips(rig)}
    anim = rig.animation_data
    if anim is not None and anim.use_tweak_mode:
        raise TransitionError(f"rig {rig.name!r} is in NLA tweak mode: leave it (Tab in the NLA editor) first")
    if anim is not None and anim.action is not None:  # it plays over every strip, the transition's too
        raise TransitionError(f"rig {rig.name!r} has action {anim.action.name!r} on top of its NLA strips: push it "
                              f"down into a strip or unlink it first")
    for name in (first, second):
        if name not in strips:
            ours = anim is not None and any(s.name == name and is_transition(s) for t in anim.nla_tracks
                                            for s in t.strips)
            if ours:
                raise TransitionError(f"strip {name!r} is a transition this tool made: name the strips it joins")
            raise TransitionError(f"rig {rig.name!r} has no action strip {name!r} (its strips: "
                                  f"{', '.join(sorted(strips)) or 'none'})")
    a, b = strips[first], strips[second]
    if a.name == b.name:
        raise TransitionError(f"strip {first!r} is named twice: name the strip before the gap and the one after it")
    if a.frame_end >= b.frame_start:
        raise TransitionError(f"strips {a.name!r} (frames {a.frame_start:g}-{a.frame_end:g}) and {b.name!r} "
                              f"(frames {b.frame_start:g}-{b.frame_end:g}) overlap: the transition goes in a gap "
                              f"between the end of the first and the start of the second")
    if not gap_frames(a, b).size:
        raise TransitionError(f"no whole frame between strip {a.name!r} (ends at {a.frame_end:g}) and strip "
                              f"{b.name!r} (starts at {b.frame_start:g}): leave a gap for the transition")
    return a, b


def gap_frames(a, b):
    """The whole frames strictly between the end of strip a and the start of strip b."""
    return np.arange(math.floor(a.frame_end + 1e-6) + 1, math.ceil(b.frame_start - 1e-6))


# --- reading the rig -------------------------------------------------------------------------------------------


def _fcurves(strip):
    """The F-curves a strip plays: its slot's channelbag (Blender 4.4+) or its action's own list."""
    if animation.SLOTTED:
        from bpy_extras import anim_utils

        bag = anim_utils.action_get_channelbag_for_slot(strip.action, strip.action_slot)
        return [] if bag is None else list(bag.fcurves)
    return list(strip.action.fcurves)


def animated_channels(rig, strips):
    """What the strips animate on the rig's bones: {bone: {transform property or ("prop", name)}}. A strip
    that moves the rig object itself is refused: the transition moves the rig's bones."""
    channels = {}
    for strip in strips:
        for fcurve in _fcurves(strip):
            path = fcurve.data_path
            match = _BONE_PATH.match(path)
            if match is None:
                if path in _OBJECT_TRANSFORMS:
                    raise TransitionError(f"strip {strip.name!r} animates the rig object's own {path}: the "
                                          f"transition moves the rig's bones; move the rig's root bone instead")
                continue
            bone = _unescape(match.group(1))
            if bone not in rig.pose.bones:
                continue  # a channel of a bone the rig no longer has: Blender ignores it too
            prop = match.group(2)
            if prop in TRANSFORMS:
                channels.setdefault(bone, set()).add("rotation" if prop.startswith("rotation") else prop)
            elif match.group(3) is not None:
                channels.setdefault(bone, set()).add(("prop", _unescape(match.group(3))))
    return channels


def _unescape(text):
    return re.sub(r"\\(.)", r"\1", text)


def _segments(rig, binding):
    """The body's segments as (kind, proximal ends, distal ends), each end [(bone, "head" | "tail"), ...]
    averaged: the legs from the binding's hip, knee, ankle and ball bones; the upper body from a Rigify
    human's deform bones, or, on a rig without them, one mass at the pelvis control's head."""
    legs = []
    for kind, proximal, distal in (("thigh", "hip", "knee"), ("leg", "knee", "ankle"), ("foot", "ankle", "toe")):
        for f in FEET:
            legs.append((kind, (_leg_point(rig, binding, f, proximal),), (_leg_point(rig, binding, f, distal),)))
    bones = rig.data.bones
    if all(b in bones for _kind, *ends in RIGIFY_UPPER for end in ends for b, _which in end):
        return legs, list(RIGIFY_UPPER)
    return legs, [("upper_body", ((binding.body, "head"),), ((binding.body, "head"),))]


def _leg_point(rig, binding, foot, point):
    ankle = binding.ankles[foot]
    return {"hip": (binding.hips[foot], "head"), "knee": (rig.data.bones[ankle].parent.name, "head"),
            "ankle": (ankle, "head"), "toe": (binding.balls[foot], "tail")}[point]


def _ends(evaluated, world, segments):
    """World points (K, 3) of the segments' proximal and distal ends on the evaluated rig."""
    def point(end):
        bones = evaluated.pose.bones
        return np.mean([np.array(getattr(bones[b], which), dtype=float) for b, which in end], axis=0)

    proximal = np.array([point(p) for _k, p, _d in segments]).reshape(-1, 3)
    distal = np.array([point(d) for _k, _p, d in segments]).reshape(-1, 3)
    return [(world[:3, :3] @ p.T).T + world[:3, 3] for p in (proximal, distal)]


def evaluated_com(context, rig, frames):
    """The rig's COM (F, 3) at the frames as Blender evaluates it: its segments (Winter's fractions) on the
    evaluated bones. The scene's frame is put back afterwards."""
    binding = _biped(rig)
    legs, upper = _segments(rig, binding)
    segments = legs + upper
    kinds = [k for k, _p, _d in segments]
    scene = context.scene
    current, subframe = scene.frame_current, scene.frame_subframe
    out = np.zeros((len(frames), 3))
    try:
        for i, frame in enumerate(frames):
            evaluated = _evaluated_at(context, rig, frame)
            proximal, distal = _ends(evaluated, np.array(evaluated.matrix_world, dtype=float), segments)
            out[i] = solver.body_com(kinds, proximal, distal)
    finally:
        scene.frame_set(current, subframe=subframe)
    return out


def _evaluated_at(context, rig, frame):
    whole = math.floor(frame + 1e-9)
    context.scene.frame_set(int(whole), subframe=float(frame - whole))
    return rig.evaluated_get(context.evaluated_depsgraph_get())


def _rigid(matrix):
    """A world matrix with its scale taken out (the solver's transforms are rigid)."""
    m = np.array(matrix, dtype=float)
    m[:3, :3] /= np.linalg.norm(m[:3, :3], axis=0)
    return m


class _Snapshot:
    """What the transition reads of the evaluated rig at one frame: the solver's Pose, the animated bones'
    local transforms (location, quaternion, scale) and custom properties, and the driven controls' parents'
    armature-space matrices."""

    def __init__(self, evaluated, binding, segments, animated, driven):
        world = np.array(evaluated.matrix_world, dtype=float)
        bones = evaluated.pose.bones
        legs, upper = segments
        leg_proximal, leg_distal = _ends(evaluated, world, legs)
        centres, _masses = solver.segment_centres([k for k, _p, _d in upper], *_ends(evaluated, world, upper))
        # legs are [thigh L, thigh R, leg L, leg R, foot L, foot R]: hips, knees, ankles, toe tips
        self.pose = solver.Pose(
            torso=_rigid(world @ np.array(bones[binding.body].matrix)),
            feet=np.array([_rigid(world @ np.array(bones[binding.feet[f]].matrix)) for f in FEET]),
            hips=leg_proximal[0:2], knees=leg_proximal[2:4], ankles=leg_proximal[4:6], toes=leg_distal[4:6],
            upper=centres)
        basis = np.array([np.array(bones[b].matrix_basis, dtype=float) for b in animated]).reshape(-1, 4, 4)
        self.location = basis[:, :3, 3]
        self.scale = np.linalg.norm(basis[:, :3, :3], axis=1)
        self.quaternion = quaternion_from_matrix(basis[:, :3, :3] / self.scale[:, None, :]) if len(basis) else \
            np.zeros((0, 4))
        self.props = {}
        for bone, props in animated.items():
            for prop in props:
                if isinstance(prop, tuple):
                    self.props[(bone, prop[1])] = bones[bone].get(prop[1])
        self.parents = {name: (np.array(bones[name].parent.matrix, dtype=float) if bones[name].parent else None)
                        for name in driven}


def _biped(rig):
    """The rig's binding, refused unless it is a biped with feet L and R."""
    if rig is None or rig.type != "ARMATURE":
        raise TransitionError(f"{getattr(rig, 'name', rig)!r} is not an armature")
    binding = bind(rig)  # MissingBonesError names the rig and what it lacks
    if set(binding.feet) != set(FEET):
        raise MissingBonesError(f"armature {rig.name!r} has feet {', '.join(binding.feet)}: a transition steps a "
                                f"biped's two feet, L and R")
    return binding


# --- making the transition ------------------------------------------------------------------------------------


def make_transition(context, rig, first, second):
    """Make (or make again) the transition between the strips named first and second on the rig: returns
    (strip, solver Transition). Everything is read and computed before anything is written; bad input raises
    TransitionError or MissingBonesError naming the culprit, with the scene as it was."""
    binding = _biped(rig)
    a, b = find_strips(rig, first, second)
    frames = gap_frames(a, b)
    driven = [binding.body, *(binding.feet[f] for f in FEET)]
    for name in driven:
        if rig.pose.bones[name].rotation_mode != "QUATERNION":
            raise TransitionError(f"bone {name!r} of {rig.name!r} must use quaternion rotation for a transition")
    animated = animated_channels(rig, (a, b))
    for name in driven:
        animated.setdefault(name, set()).update({"location", "rotation"})
    segments = _segments(rig, binding)
    start, end = _read_ends(context, rig, (a.frame_end, b.frame_start), binding, segments, animated, driven)
    _check_legs(rig, binding, start, end, a, b)
    rate = scene_clock.fps(context.scene)
    body = solver.Body(solver.segment_masses([kind for kind, _p, _d in segments[1]]),
                       _rest_lengths(rig, segments[0], "thigh"), _rest_lengths(rig, segments[0], "leg"))
    duration = (b.frame_start - a.frame_end) / rate
    motion = solver.solve(start.pose, end.pose, body, duration, (frames - a.frame_end) / rate)
    blended = solver.blend_bases(np.stack([start.location, end.location]),
                                 np.stack([start.quaternion, end.quaternion]), np.stack([start.scale, end.scale]),
                                 motion.weight)
    bones = list(animated)
    controls = _control_channels(rig, driven, motion, start, end, bones, blended)
    writer = animation.ChannelWriter(f"Transition {a.name} to {b.name} ({rig.name})", rig)
    writer.action[TRANSITION_KEY] = f"{a.name} -> {b.name}"
    try:
        _write(writer, rig, frames, animated, bones, blended, controls, start, end, motion.weight)
        strip = _place(rig, writer, a, b, frames, context.view_layer)
    except BaseException:
        bpy.data.actions.remove(writer.action)
        raise
    return strip, motion


def _read_ends(context, rig, frames, binding, segments, animated, driven):
    """Snapshots of the evaluated rig at the two frames (the first strip's last, the second's first); the
    scene's frame is put back."""
    scene = context.scene
    current, subframe = scene.frame_current, scene.frame_subframe
    try:
        return [_Snapshot(_evaluated_at(context, rig, frame), binding, segments, animated, driven) for frame in frames]
    finally:
        scene.frame_set(current, subframe=subframe)


def _check_legs(rig, binding, start, end, a, b):
    """Both legs on IK at both ends, or the feet would not follow their controls: the binding's leg switches
    (Rigify's on thigh_parent.L/R, Auto-Rig Pro's on the foot controls; the arms' are the strips' business)."""
    feet = set(binding.feet.values())
    for (bone, prop), value in binding.switches.items():
        if bone not in feet and not bone.startswith("thigh_parent"):
            continue
        for snapshot, strip, when in ((start, a, "last"), (end, b, "first")):
            got = snapshot.props.get((bone, prop), rig.pose.bones[bone].get(prop))  # animated, else as set
            if isinstance(got, (int, float)) and abs(float(got) - value) > 1e-3:
                raise TransitionError(f"at the {when} frame of strip {strip.name!r} the leg switch {bone}[{prop!r}] "
                                      f"is {float(got):g}, not {value:g} (IK): a transition steps the legs by IK")


def _rest_lengths(rig, legs, kind):
    """Each leg's bone of that kind (thigh, leg) at rest, hip to knee or knee to ankle (world metres)."""
    scale = float(np.mean(np.linalg.norm(np.array(rig.matrix_world, dtype=float)[:3, :3], axis=0)))
    bones = rig.data.bones
    ends = [(p[0][0], d[0][0]) for k, p, d in legs if k == kind]
    return np.array([scale * np.linalg.norm(np.array(bones[d].head_local) - np.array(bones[p].head_local))
                     for p, d in ends])


def _control_channels(rig, driven, motion, start, end, bones, blended):
    """Bone-space (location (F, 3), quaternion (F, 4)) of the pelvis and foot controls that put them where
    the solve has them, each against its parent's armature-space matrix at every frame (_parent_poses)."""
    world = np.array(rig.matrix_world, dtype=float)
    scale = np.linalg.norm(world[:3, :3], axis=0)
    to_armature = np.linalg.inv(world)
    targets = {driven[0]: motion.torso, driven[1]: motion.feet[:, 0], driven[2]: motion.feet[:, 1]}
    channels = {}
    for name, target in targets.items():
        pose = to_armature @ target
        pose[:, :3, :3] *= scale  # rigid world axes -> the armature's (the object's scale undone)
        bone = rig.data.bones[name]
        space = np.linalg.inv(np.array(bone.matrix_local, dtype=float))
        if bone.parent is not None:
            parents = _parent_poses(rig, name, start, end, bones, blended)
            space = space @ np.array(bone.parent.matrix_local, dtype=float) @ np.linalg.inv(parents)
        basis = space @ pose
        rotation = basis[:, :3, :3] / np.linalg.norm(basis[:, :3, :3], axis=1, keepdims=True)
        channels[name] = (basis[:, :3, 3], quaternion_from_matrix(rotation))
    return channels


def _parent_poses(rig, name, start, end, bones, blended):
    """The armature-space matrix (F, 4, 4) of a driven control's parent through the gap. It stays put unless
    the rig's root moves between the two poses (a strip keys the root bone: a clip placed elsewhere); then it
    follows the root's blend rigidly, as Rigify's control parents follow the root through their parent
    switches. A parent that moves otherwise is refused, naming it."""
    before, after = start.parents[name], end.parents[name]
    frames = len(blended[0])
    if np.allclose(before, after, atol=1e-5):
        return np.broadcast_to(before, (frames, 4, 4))
    roots = [i for i, b in enumerate(bones) if rig.data.bones[b].parent is None and not rig.pose.bones[b].constraints
             and _moves(start, end, i)]
    if len(roots) == 1:
        i = roots[0]
        rest = np.array(rig.data.bones[bones[i]].matrix_local, dtype=float)
        root = rest @ _matrices(*(channel[:, i] for channel in blended))
        root_a, root_b = (rest @ _matrices(s.location[i], s.quaternion[i], s.scale[i]) for s in (start, end))
        follow = np.linalg.inv(root_a) @ before
        if np.allclose(root_b @ follow, after, atol=1e-4):
            return root @ follow
    raise TransitionError(f"bone {rig.data.bones[name].parent.name!r}, the parent of {name!r}, moves between the "
                          f"two strips other than with the rig's root bone: key the root bone or the controls "
                          f"themselves")


def _moves(start, end, i):
    """Whether animated bone i's local transform differs between the two poses."""
    return not (np.allclose(start.location[i], end.location[i], atol=1e-6)
                and np.allclose(start.scale[i], end.scale[i], atol=1e-6)
                and abs(float(start.quaternion[i] @ end.quaternion[i])) > 1.0 - 1e-9)


def _matrices(location, quaternion, scale):
    """Local transforms (..., 4, 4) from location (..., 3), quaternion (..., 4) and scale (..., 3)."""
    m = np.zeros(np.shape(location)[:-1] + (4, 4))
    m[..., :3, :3] = quaternion_matrices(quaternion) * np.asarray(scale)[..., None, :]
    m[..., :3, 3], m[..., 3, 3] = location, 1.0
    return m


# --- writing ----------------------------------------------------------------------------------------------------


def _write(writer, rig, frames, animated, bones, blended, controls, start, end, weight):
    """Key every animated channel over the gap frames: the driven controls from the solve, the other bones'
    transforms from the blend (rotations in each bone's own mode), custom properties interpolated (whole
    numbers and switches change halfway)."""
    location, quaternion, scale = blended
    for i, bone in enumerate(bones):
        props = animated[bone]
        group = bone
        prefix = f'pose.bones["{bpy.utils.escape_identifier(bone)}"]'
        loc, quat = controls.get(bone, (location[:, i], quaternion[:, i]))
        if "location" in props:
            for k in range(3):
                writer.write(f"{prefix}.location", k, frames, loc[:, k], group=group)
        if "rotation" in props:
            path, values = _rotation_channels(rig.pose.bones[bone], quat)
            for k in range(values.shape[1]):
                writer.write(f"{prefix}.{path}", k, frames, values[:, k], group=group)
        if "scale" in props:
            for k in range(3):
                writer.write(f"{prefix}.scale", k, frames, scale[:, i, k], group=group)
        for prop in props:
            if isinstance(prop, tuple):
                a, b = start.props.get((bone, prop[1])), end.props.get((bone, prop[1]))
                values = _property_values(a, b, weight)
                if values is not None:
                    writer.write(f'{prefix}["{bpy.utils.escape_identifier(prop[1])}"]', 0, frames, values,
                                 group=group)


def _property_values(a, b, weight):
    """A custom property's values through the gap: floats interpolated by the blend's weight, whole numbers
    and booleans the first pose's until halfway, then the second's; None for what is not a number."""
    if not all(isinstance(v, (int, float)) for v in (a, b)):
        return None
    if isinstance(a, float) or isinstance(b, float):
        return float(a) + weight * (float(b) - float(a))
    return np.where(weight < 0.5, float(a), float(b))


def _rotation_channels(pose_bone, quaternion):
    """(data path, values (F, n)) of rotations (F, 4) in the bone's rotation mode."""
    mode = pose_bone.rotation_mode
    if mode == "QUATERNION":
        return "rotation_quaternion", quaternion
    from mathutils import Euler, Quaternion

    if mode == "AXIS_ANGLE":
        values = []
        for q in quaternion:
            axis, angle = Quaternion(q).to_axis_angle()
            values.append((angle, *axis))
        return "rotation_axis_angle", np.array(values)
    values, previous = [], Euler((0.0, 0.0, 0.0), mode)
    for q in quaternion:  # each Euler triple the nearest to the last (no 360 degree flips between frames)
        previous = Quaternion(q).to_euler(mode, previous)
        values.append(tuple(previous))
    return "rotation_euler", np.array(values)


def _place(rig, writer, a, b, frames, view_layer):
    """Put the action in a strip on the gap's frames: the tool's earlier transitions in this gap go (their
    actions too, when nothing else uses them); the strip goes on the track one of them was on, else on a
    track of the tool's transitions, else on a new track on top, the first of these with room. Replace, no
    extrapolation: outside its frames it changes nothing."""
    anim = rig.animation_data
    first, last = float(frames[0]), float(frames[-1])
    homes = []
    for track in anim.nla_tracks:
        for strip in list(track.strips):
            if is_transition(strip) and strip.frame_start < b.frame_start and strip.frame_end > a.frame_end:
                homes.append(track)
                action = strip.action
                track.strips.remove(strip)
                if action.users == 0:
                    bpy.data.actions.remove(action)
    homes += [t for t in anim.nla_tracks if any(is_transition(s) for s in t.strips)]
    home = next((t for t in homes if not any(s.frame_start <= last and s.frame_end >= first for s in t.strips)),
                None)
    if home is None:
        home = anim.nla_tracks.new()
        home.name = TRACK_NAME
    strip = home.strips.new(f"Transition {a.name} to {b.name}", int(frames[0]), writer.action)
    if writer.slot is not None:
        view_layer.update()  # Blender 5.0.1 crashes assigning a slot to a never-evaluated armature
        strip.action_slot = writer.slot
    if last == first:  # one key: Blender gives the strip a frame's length, which would reach the second strip
        strip.frame_end = first + 1e-3
    strip.blend_type = "REPLACE"
    strip.extrapolation = "NOTHING"
    return strip


# --- headless ---------------------------------------------------------------------------------------------------


def transition_file(scene_path, rig_name, from_strip, to_strip, output_path):
    """The command line's `transition`: open the .blend (scripts off), make the transition between the two
    strips on the rig and save the result to output_path (whole or not at all, never over the input). Bad
    input raises an error naming the culprit, and nothing is written. Returns (strip name, Transition)."""
    headless.check_output(output_path, [scene_path], overwrite=False)
    headless.open_scene(scene_path)
    rig = bpy.data.objects.get(rig_name)
    if rig is None or rig.type != "ARMATURE":
        rigs = [o.name for o in bpy.data.objects if o.type == "ARMATURE"]
        raise TransitionError(f"no armature {rig_name!r} in {os.path.basename(scene_path)} (armatures: "
                              f"{', '.join(rigs) or 'none'})")
    strip, motion = make_transition(bpy.context, rig, from_strip, to_strip)
    headless.save_copy(output_path, [scene_path])
    return strip.name, motion
