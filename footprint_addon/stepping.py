"""Step to Target on a rig (Wu, Medina and Zordan, "Simple Steps for Simply Stepping"; issue 19).

The rig's stance is read from its evaluated pose at the current frame, the target's from an empty or the 3D
cursor; solver.stepping.step_to_stance plans the steps as an ordinary footprint track marked "motion":
"stepping", which is written as a track collection and baked by the product's bake (so editing a footprint
and baking again, or the live update, solves it with the stepping solver again).

The step database (WMZ §3, §7): actions on the rig marked as step examples. For each step the example
closest by the stepping foot's displacement in the support foot's frame shapes the step's end pose: the
example's last frame's upper body (pose-bone local rotations), slerped in over the step with an
ease-in/ease-out weight (WMZ §6), keyed into a strip of its own above the bake's (a re-bake after an edit
keeps it). Without examples the upper body is the walk's (solver.body.walking: arms hanging and swinging with
the steps, the chest counter-turning, the head steadied toward where the feet will head), but for the bones the
rig's own animation turns: those are held as the rig had them at the start frame.
"""

from contextlib import contextmanager
from dataclasses import dataclass

import bpy
import numpy as np

from ..solver.body.transforms import ease_in_out, quaternion_from_matrix, quaternion_matrices, slerp
from ..solver.body.walking import WalkingAttributes
from ..solver.character import character_from_json
from ..solver.stepping import Stance, step_to_stance
from ..solver.stepping.steps import step_plan
from ..solver.track import validate
from . import animation, bake, body_pose, ownership, preview, scene_clock, scene_io, upper_body_layer
from .rig_quality import carried, rest_local
from .rigs import MissingBonesError, bind

FEET = ("L", "R")
STEP_KEY = "footprint_step_rig"  # on the track collection Step to Target made: the rig it made it for
UPPER_KEY = "footprint_step_upper_body"  # on the upper body's action: the track it belongs to
UPPER_TRACK = "Stepping upper body: {}"  # the NLA track of that action's strip, after the track's name


class SteppingError(ValueError):
    """Step to Target cannot run as the scene is (the message names what to change)."""


# --- the rig's stance and pose --------------------------------------------------------------------------------


def biped_binding(rig):
    """The rig's binding, refused (naming the rig) unless it is an armature with two legs the product binds."""
    if rig is None or rig.type != "ARMATURE":
        raise SteppingError(f"{getattr(rig, 'name', 'the active object')!r} is not an armature: select the "
                            f"rig to step (a Rigify human, or a rig set up with Set up Leg IK)")
    binding = bind(rig)  # MissingBonesError names the rig and what it lacks
    if set(binding.feet) != set(FEET):
        raise MissingBonesError(f"armature {rig.name!r} has feet {', '.join(binding.feet)}: stepping is for "
                                f"a biped's two feet, L and R")
    return binding


def rig_stance(context, binding) -> Stance:
    """The rig's feet as it stands now (evaluated): each foot's support point (the binding's, on the rest
    sole between ankle and ball) carried by its ankle bone, and its heading, the rig's rest facing turned as
    the ankle bone turned about the vertical (so a footprint of that heading bakes the foot as it is)."""
    rig, m = binding.rig, binding.measurements
    evaluated = rig.evaluated_get(context.evaluated_depsgraph_get())
    world = np.array(evaluated.matrix_world, dtype=float)
    positions, headings = np.zeros((2, 3)), np.zeros(2)
    for i, foot in enumerate(FEET):
        ankle = binding.ankles[foot]
        matrix = world @ np.array(evaluated.pose.bones[ankle].matrix, dtype=float)
        positions[i] = carried(matrix, rest_local(rig, ankle, m["support"][foot], m["upright"]))
        toes = m["balls"][foot] - m["ankles"][foot]  # upright space: the rest world's directions
        rest = np.array(rig.data.bones[ankle].matrix_local, dtype=float)[:3, :3]
        now = matrix[:3, :3] @ rest.T @ m["upright"].T @ toes
        headings[i] = m["facing"] + _heading(now) - _heading(toes)
    return Stance(positions=positions, headings=np.arctan2(np.sin(headings), np.cos(headings)))


def _heading(vector):
    """The heading of a direction's horizontal part (0 along +Y, counter-clockwise)."""
    return float(np.arctan2(-vector[0], vector[1]))


def local_rotations(context, rig, bones):
    """{bone: (3, 3)} local (basis) rotations of the pose bones on the evaluated rig, whatever their
    rotation modes."""
    evaluated = rig.evaluated_get(context.evaluated_depsgraph_get())
    out = {}
    for name in bones:
        basis = np.array(evaluated.pose.bones[name].matrix_basis, dtype=float)[:3, :3]
        out[name] = basis / np.linalg.norm(basis, axis=0)
    return out


def upper_body_bones(binding):
    """The binding's chest, neck, head and arm bones: what the upper body's strip keys, examples or not (with
    the upper body's other bones the examples or the rig's own animation turn)."""
    upper = binding.upper_body
    names = [upper[part] for part in ("chest", "neck", "head") if part in upper]
    return names + [bone for pair in upper.get("arms", {}).values() for bone in pair]


# --- the target ------------------------------------------------------------------------------------------------


def target_of(context, settings):
    """(name, x, y, z, heading) of the target: the settings' empty, else the 3D cursor; the heading is its +Y
    axis's horizontal direction (0 along world +Y)."""
    obj = settings.target
    name = f"empty {obj.name!r}" if obj is not None else "the 3D cursor"
    matrix = np.array(obj.matrix_world if obj is not None else context.scene.cursor.matrix, dtype=float)
    forward = matrix[:3, 1]
    if np.hypot(forward[0], forward[1]) < 1e-6 * max(np.linalg.norm(forward), 1e-300):
        raise SteppingError(f"{name} points its +Y axis straight up or down: turn it so its +Y lies along the "
                            f"ground, the way the character should face")
    x, y, z = matrix[:3, 3]
    return name, float(x), float(y), float(z), _heading(forward)


# --- the step database (WMZ §3, §7) -------------------------------------------------------------------------


@dataclass(frozen=True)
class StepExample:
    action: object
    foot: str  # the foot that steps
    displacement: np.ndarray  # (2,) where it steps, in the support foot's frame: (outward, forward)
    upper_body: dict  # bone -> (3, 3) local rotation at the action's last frame


def relative_step(foot, step, support_heading):
    """A step's displacement (2,) in the support foot's frame (WMZ §3: "the (relative) desired step
    location"): forward along the support foot's toes, sideways outward from it (a left step's left), so
    left and right steps compare."""
    c, s = np.cos(support_heading), np.sin(support_heading)
    sideways, forward = c * step[0] + s * step[1], -s * step[0] + c * step[1]
    return np.array([-sideways if foot == "L" else sideways, forward])


def closest_example(examples, displacement):
    """The example whose step is nearest (WMZ §7: "closest based on the (relative) desired step location")."""
    distances = [np.linalg.norm(example.displacement - displacement) for example in examples]
    return examples[int(np.argmin(distances))]


def marked_examples(rig):
    """The actions marked as step examples that key bones of this rig."""
    bones = set(rig.pose.bones.keys())
    return [action for action in bpy.data.actions
            if action.footprint_step.is_example and _keyed_bones(action) & bones]


def turned_bones(upper_body, actions):
    """The bones of the upper body (upper_body_layer.upper_body_bones: none that moves the legs or the body)
    that the actions turn."""
    return sorted({bone for action in actions for bone in _keyed_bones(action, rotation_only=True)
                   if bone in upper_body})


def _playing(rig, skipped):
    """The actions that animate the rig (its action and its NLA strips'), but the skipped ones."""
    anim = rig.animation_data
    if anim is None:
        return []
    actions = [anim.action] + [strip.action for track in anim.nla_tracks for strip in track.strips]
    return [action for action in dict.fromkeys(actions) if action is not None and action not in skipped]


def _keyed_bones(action, rotation_only=False):
    names = set()
    for fcurve in _fcurves(action):
        path = fcurve.data_path
        if path.startswith('pose.bones["') and (not rotation_only or ".rotation_" in path):
            names.add(path.split('"')[1])
    return names


def _fcurves(action):
    if not animation.SLOTTED:
        return list(action.fcurves)
    return [fc for layer in action.layers for strip in layer.strips for bag in strip.channelbags for fc in bag.fcurves]


def read_examples(context, binding, actions, upper_body):
    """Each example action played alone on the rig: which foot steps and where to (its first and last frame),
    and at its last frame the local rotations of the upper_body bones it turns. The rig's animation, the values the examples key and the scene's
    frame are put back."""
    rig = binding.rig
    created = rig.animation_data is None
    anim = rig.animation_data or rig.animation_data_create()
    if anim.use_tweak_mode:
        raise SteppingError(f"{rig.name!r} is in NLA tweak mode: leave it to read the step examples")
    saved = (anim.action, anim.action_slot if animation.SLOTTED else None, anim.use_nla, anim.action_influence,
             anim.action_blend_type)
    values = _values(rig, {fcurve.data_path for action in actions for fcurve in _fcurves(action)})
    scene = context.scene
    frame, subframe = scene.frame_current, scene.frame_subframe
    examples = []
    try:
        anim.use_nla, anim.action_influence, anim.action_blend_type = False, 1.0, "REPLACE"
        for action in actions:
            anim.action = action
            if animation.SLOTTED and anim.action_slot is None:
                slots = [slot for slot in action.slots if slot.target_id_type == "OBJECT"]
                if not slots:
                    raise SteppingError(f"step example {action.name!r} has no slot for an object")
                anim.action_slot = slots[0]
            first, last = (int(round(f)) for f in action.frame_range)
            scene.frame_set(first)
            before = rig_stance(context, binding)
            scene.frame_set(last)
            after = rig_stance(context, binding)
            upper = local_rotations(context, rig, turned_bones(upper_body, [action]))
            moved = np.linalg.norm(after.positions - before.positions, axis=1)
            step = int(np.argmax(moved))
            foot, support = FEET[step], 1 - step
            examples.append(StepExample(action, foot, relative_step(
                foot, (after.positions[step] - before.positions[step])[:2], before.headings[support]), upper))
    finally:
        if created:
            rig.animation_data_clear()
        else:
            anim.action = saved[0]
            if animation.SLOTTED and saved[0] is not None:
                anim.action_slot = saved[1]
            anim.use_nla, anim.action_influence, anim.action_blend_type = saved[2:]
        scene.frame_set(frame, subframe=subframe)
        _put_back(rig, values)  # (playing the examples wrote their values into the rig's pose)
    return examples


def _values(rig, paths):
    """{data path: value} of the rig's properties at those paths (arrays copied)."""
    out = {}
    for path in paths:
        try:
            value = rig.path_resolve(path)
        except ValueError:  # (a path of another rig's bone)
            continue
        out[path] = tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value
    return out


def _put_back(rig, values):
    for path, value in values.items():
        if path.endswith('"]'):  # a custom property: owner["name"]
            owner, key = path[:path.rindex('["')], path[path.rindex('["') + 2:-2]
            rig.path_resolve(owner)[key] = value
        else:
            owner, _dot, attribute = path.rpartition(".")  # ("location": the object's own)
            setattr(rig.path_resolve(owner) if owner else rig, attribute, value)


# --- the upper body over the steps (WMZ §6) ----------------------------------------------------------------


def steps_of(track, character=None):
    """The steps of a stepping track, in time order: (foot, start, end, displacement in the support foot's
    frame), its swings as solver.stepping.steps.step_plan reads them (a support foot's pivot is no step). The
    support foot is the one standing at mid-swing (after any pivot: where the step lands relative to it). A step
    starts where the one before it ends (the track's start for the first) and ends when the next one lifts off
    (the track's end for the last): push-off, swing and landing (WMZ Fig. 2). character: the track's own when
    not given."""
    plan = step_plan(track, character_from_json(track.character) if character is None else character)
    tr, swings = plan.track, plan.swings
    ends = [swing.t1 for swing in swings[1:]] + [plan.end]
    starts = [plan.start] + ends[:-1]
    steps = []
    for swing, start, end in zip(swings, starts, ends):
        foot = FEET[swing.foot]
        support = plan.standing_on(1 - swing.foot, 0.5 * (swing.t1 + swing.t2))
        displacement = (tr.positions[swing.land] - tr.positions[swing.leave])[:2]
        steps.append((foot, start, end, relative_step(foot, displacement, tr.headings[support])))
    return steps


def upper_body_rotations(times, steps, start_pose, end_poses):
    """{bone: (N, 3, 3)} local rotations at times (N,): the start pose until the first step, then over each
    step (start, end) a slerp from the pose the step before ended in to its end pose with ease-in/ease-out
    (WMZ §6), the last one reached by the last time; a bone an end pose lacks keeps the pose before."""
    starts = np.array([start for _foot, start, _end, _d in steps])
    ends = np.array([end for _foot, _start, end, _d in steps])
    ends[-1] = min(ends[-1], times[-1])  # (the track's end may fall between frames)
    k = np.clip(np.searchsorted(ends, times), 0, len(steps) - 1)
    weight = ease_in_out((times - starts[k]) / np.maximum(ends[k] - starts[k], 1e-9))
    out = {}
    for bone, rotation in start_pose.items():
        poses = [rotation]
        for pose in end_poses:
            poses.append(pose.get(bone, poses[-1]))
        q = quaternion_from_matrix(np.array(poses))  # sign-continuous from pose to pose
        out[bone] = quaternion_matrices(slerp(q[k], q[k + 1], weight))
    return out


# --- what the tool made -----------------------------------------------------------------------------------


def made_for(rig):
    """The track collections Step to Target made for the rig."""
    return [coll for coll in bpy.data.collections if coll.get(STEP_KEY) == rig]


def _strips_of(rig, colls):
    """(NLA track, strip) of the rig whose actions were made for those tracks (the bake's and the upper body's)."""
    anim = rig.animation_data
    if anim is None:
        return []
    return [(track, strip) for track in anim.nla_tracks for strip in track.strips if strip.action is not None
            and any(ownership.owned(strip.action, key, coll) for coll in colls
                    for key in (ownership.BAKE_KEY, UPPER_KEY))]


@contextmanager
def muted(context, strips):
    """The strips muted while the rig is read (the pose it had before the tool's own strips), then as they were."""
    was = [strip.mute for _track, strip in strips]
    scene = context.scene
    try:
        for _track, strip in strips:
            strip.mute = True
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
        yield
    finally:
        for (_track, strip), mute in zip(strips, was):
            strip.mute = mute
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)


def remove_made(rig, colls):
    """Remove what the tool made for those tracks on the rig: their strips (and their NLA tracks when that
    empties them, their actions when unused), their previews, footprints and collections."""
    for track, strip in _strips_of(rig, colls):
        action = strip.action
        track.strips.remove(strip)
        if action.users == 0:
            bpy.data.actions.remove(action)
        if len(track.strips) == 0:
            rig.animation_data.nla_tracks.remove(track)
    for coll in colls:
        if any(ownership.owned(obj, ownership.PREVIEW_KEY, coll) for obj in bpy.data.objects):
            preview.remove(coll)
        for obj in list(coll.objects):
            bpy.data.objects.remove(obj)
        bpy.data.collections.remove(coll)


# --- Step to Target ---------------------------------------------------------------------------------------


@dataclass
class Plan:
    """Everything Step to Target writes, computed before anything is."""

    track: object  # solver Track, marked "motion": "stepping"
    target: str  # the target's name, for the report
    start_pose: dict  # upper-body bone -> (3, 3) local rotation at the start frame
    walked: tuple  # without examples, the upper-body bones that take the walk's upper body: the binding's
    # chest, neck, head and arms that the rig's own animation does not turn (those hold their start pose)
    steps: list  # steps_of(track)
    chosen: list  # per step the closest StepExample, or None without examples
    earlier: list  # the track collections the tool made for this rig before


def plan(context, rig, settings):
    """Read the rig, its target and the step examples and plan the steps; writes nothing (the rig's
    animation and the scene's frame are put back). Raises SteppingError, MissingBonesError or the solver's
    FootprintError for bad input."""
    binding = biped_binding(rig)
    if not settings.auto_duration and not settings.step_duration > 0.0:
        raise SteppingError(f"step duration {settings.step_duration:g} s: a step takes some time (or switch "
                            f"Automatic Duration on)")
    name, x, y, z, heading = target_of(context, settings)
    character = bake.rig_character(binding)
    earlier = made_for(rig)
    actions = marked_examples(rig)
    upper_body = upper_body_layer.upper_body_bones(binding, context.evaluated_depsgraph_get())
    ours = _strips_of(rig, earlier)
    playing = turned_bones(upper_body, _playing(rig, {strip.action for _track, strip in ours}))
    held = sorted(set(turned_bones(upper_body, actions)) | set(playing))
    walked = tuple(bone for bone in upper_body_bones(binding) if bone not in playing)
    with muted(context, ours):
        start = rig_stance(context, binding)
        start_pose = local_rotations(context, rig, dict.fromkeys(upper_body_bones(binding) + held))
    examples = read_examples(context, binding, actions, upper_body)
    target = Stance.centred(character, x, y, heading, z)
    track = step_to_stance(character, start, target, start_time=scene_clock.seconds(context.scene),
                           step_duration=None if settings.auto_duration else settings.step_duration)
    validate(track, allowed_feet=FEET)
    steps = steps_of(track, character)
    if not steps:
        raise SteppingError(f"{rig.name!r} already stands on {name}'s stance: no step to take")
    chosen = [closest_example(examples, d) if examples else None for _foot, _start, _end, d in steps]
    return Plan(track, name, start_pose, walked, steps, chosen, earlier)


def apply(context, rig, planned):
    """Write the planned steps: a track collection of footprints marked "motion": "stepping", baked by the
    product's bake from the current frame, the upper body's strip above it; then remove what the tool made
    for this rig before. All or nothing: a failure leaves the scene as it was. Returns (track collection,
    bake strip, upper body strip)."""
    scene = context.scene
    name = f"{rig.name} steps"
    active, frame_end = scene.footprint.active_track, scene.frame_end
    renamed = [(coll, coll.name) for coll in planned.earlier]
    for coll, old in renamed:  # out of the way of the new track's name until it is made
        coll.name = f"{old} (replaced)"
    coll = scene_io.new_track(context, name, "human")
    try:
        coll[STEP_KEY] = rig
        scene_io.set_motion(coll, planned.track)
        coll.footprint_track.body.enabled = False  # the walking attributes are a walk's: the upper body is ours
        scene_io.write_track(coll, planned.track)
        strip, motion = bake.bake(context, coll, rig)
        track = scene_io.read_track(coll)  # as stored (float32): the bake's frames
        frames, times = bake.frame_times(scene, float(track.contact.min()), float(track.liftoff.max()))
        end_poses = [example.upper_body if example else {} for example in planned.chosen]
        rotations = upper_body_rotations(times, planned.steps, planned.start_pose, end_poses)
        binding = bind(rig)
        if not any(planned.chosen):  # no examples: the arms hang and swing, the head steadies, as in the walk
            walk = body_pose.channels(binding, motion, WalkingAttributes())
            rotations.update({bone: walk[bone] for bone in planned.walked if bone in walk})
        rotations.update(body_pose.toe_channels(binding, motion))  # the toes flat as a heel lifts (a pivot's)
        upper = _write_upper_body(context, rig, coll, frames, rotations)
    except Exception:
        remove_made(rig, [coll])
        for earlier, old in renamed:
            earlier.name = old
        scene.footprint.active_track, scene.frame_end = active, frame_end
        raise
    remove_made(rig, planned.earlier)
    for made, label, layer in ((strip, coll.name, ownership.BAKE_TRACK), (upper, f"{coll.name} upper body",
                                                                           UPPER_TRACK)):
        made.name, made.action.name = label, f"{label} ({rig.name})"  # (made while the earlier ones had them)
        nla_track, = [t for t in rig.animation_data.nla_tracks if any(s == made for s in t.strips)]
        nla_track.name = layer.format(coll.name)
    return coll, strip, upper


def _write_upper_body(context, rig, coll, frames, rotations):
    writer = animation.ChannelWriter(f"{coll.name} upper body", rig)
    for (path, k), values in body_pose.rotation_channels(rig, rotations).items():
        writer.write(path, k, frames, values, group=path.split('"')[1])
    writer.action[UPPER_KEY] = coll
    _track, strip = animation.replace_strip(rig, writer, UPPER_TRACK.format(coll.name), coll.name, frames[0],
                                            context.view_layer, lambda action: ownership.owned(action, UPPER_KEY, coll))
    strip.extrapolation = "HOLD_FORWARD"  # before the steps the rig's own animation plays on
    return strip
