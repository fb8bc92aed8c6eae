"""Footprints from animation you already have (issue 20, item 4), in Blender: the foot plants of an action on a
rig (mocap or keyframed; Rigify, or any rig the product binds) as an ordinary footprint track, and the track
baked again with the original's upper body layered over the re-solved legs and body.

Reading: the action plays alone on the rig (its active action, the NLA off) while every frame of its range is
evaluated; each foot's heel, mid-foot (the binding's support point) and toe tip are carried by the bones that
carry them on the sole (rig_quality.sole_layout), its toe direction is the rig's rest facing turned as the foot
bone turned. solver.planning.extraction finds the plants. The rig's animation data and the scene's frame are
put back exactly as they were.

Writing: a track collection marked with the rig and the action it came from (RIG_KEY, ACTION_KEY); extracting
the same action from the same rig again rewrites that track's footprints and nothing else.

Re-solving: the product's bake of the track (the legs and body solved on the footprints as they are now), then
the original's upper-body F-curves in an action of their own, in an NLA strip above the bake's (upper_body_layer).
A strip rather than keys merged into the baked action: the bake stays the product's own (Bake again after
moving a footprint replaces only its strip, the layer stays), the layer holds no channel of the legs or the body
so they stay exactly as baked (feet on their footprints) while the upper-body bones take the original's values
(Replace, full influence), and the artist can mute it or lower its influence in the NLA editor. The original
action stops being the rig's active action (an active action plays over every strip); the track keeps it.
"""

import math
import os
from contextlib import contextmanager
from dataclasses import dataclass

import bpy
import numpy as np

from ..solver.errors import FootprintError
from ..solver.planning.extraction import extract_track
from ..solver.track import dumps, track_to_json, validate
from . import animation, bake, files, headless, scene_clock, scene_io, upper_body_layer
from .rig_quality import carried, evaluated_matrices, ground_by_rays, rest_local, sole_layout
from .rigs import bind
from .terrain import TerrainProbe, terrain_objects

RIG_KEY = "footprint_extracted_rig"  # on a track collection made by extraction: the rig it came from
ACTION_KEY = "footprint_extracted_action"  # ... and the action (a pointer: the original stays in the file)
SLOT_KEY = "footprint_extracted_slot"  # ... and the action's slot the rig played (Blender 4.4+), its identifier


class ExtractionError(ValueError):
    """Footprints cannot be extracted (or re-solved) as the scene is; the message names the culprit."""


@dataclass
class FootSamples:
    """Each foot on every frame of an action: frames (N,), their track seconds, sole points (N, L, 3, 3) heel,
    mid-foot and toe tip, toe directions (N, L, 3) in the world; the action's slot the rig played (or None)."""

    frames: np.ndarray
    times: np.ndarray
    sole: np.ndarray
    forward: np.ndarray
    slot: object


# --- reading the action -----------------------------------------------------------------------------------------


def find_action(rig, name=None):
    """The action named (any in the file), else the rig's active one; ExtractionError naming what is missing."""
    if name:
        action = bpy.data.actions.get(name)
        if action is None:
            known = ", ".join(sorted(a.name for a in bpy.data.actions)[:8]) or "none"
            raise ExtractionError(f"no action {name!r} in this file (actions: {known})")
        return action
    anim = rig.animation_data
    if anim is None or anim.action is None:
        raise ExtractionError(f"armature {rig.name!r} has no action: assign the walk to it (Action Editor) or "
                              f"name the action to extract")
    return anim.action


@contextmanager
def playing(context, rig, action, slot_identifier=None):
    """The action played alone on the rig for the block (its active action, the NLA off; slot_identifier or the
    first slot that suits the rig, on Blender 4.4+), yielding that slot; afterwards the rig exactly as it was: its
    action, slot and NLA switch (no animation data at all if it had none), every property the action animates
    (playing writes them: the rig's own location, a bone nothing else keys), and the scene evaluated at its frame."""
    created = rig.animation_data is None
    anim = rig.animation_data or rig.animation_data_create()
    if anim.use_tweak_mode:
        raise ExtractionError(f"armature {rig.name!r} is in NLA tweak mode: leave it (Tab in the NLA editor) first")
    before = anim.action, getattr(anim, "action_slot", None), anim.use_nla
    scene, kept = context.scene, []
    try:
        try:
            anim.action = action
        except (TypeError, RuntimeError) as exc:
            raise ExtractionError(f"action {action.name!r} cannot play on armature {rig.name!r}: {exc}") from None
        slot = _play_slot(anim, action, rig, slot_identifier) if animation.SLOTTED else None
        kept = _values(rig, _played_fcurves(action, slot))  # (nothing is evaluated until the first frame is set)
        anim.use_nla = False
        yield slot
    finally:
        anim.use_nla = before[2]
        anim.action = before[0]
        if animation.SLOTTED and before[0] is not None:
            anim.action_slot = before[1]
        if created:
            rig.animation_data_clear()
        for value in kept:
            _assign(*value)
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)


def _played_fcurves(action, slot):
    """The action's F-curves that play on an ID through the slot (Blender 4.4+), or all of them (4.2)."""
    if not animation.SLOTTED:
        return list(action.fcurves)
    from bpy_extras import anim_utils

    bag = anim_utils.action_get_channelbag_for_slot(action, slot)
    return [] if bag is None else list(bag.fcurves)


def _values(rig, fcurves):
    """(owner, name, custom, index, value) of every property of the rig the F-curves animate: an attribute of the
    owner or its custom property (custom), one item of it (index) or all; paths that lead nowhere on this rig
    animate nothing and are left out."""
    kept = []
    for fcurve in fcurves:
        path = fcurve.data_path
        custom = path.endswith('"]') and path.rfind('["') > path.rfind('"].')  # ...["name"], not ...["bone"].name
        head, name = (path[:path.rfind('["')], path[path.rfind('["') + 2:-2]) if custom else path.rpartition(".")[::2]
        try:
            owner = rig.path_resolve(head) if head else rig
            value = owner[name] if custom else getattr(owner, name)
        except (ValueError, KeyError, AttributeError):
            continue
        index = fcurve.array_index if hasattr(value, "__len__") and not isinstance(value, str) else None
        if index is None or index < len(value):
            kept.append((owner, name, custom, index, value if index is None else value[index]))
    return kept


def _assign(owner, name, custom, index, value):
    """Put a value _values read back."""
    if index is not None:
        (owner[name] if custom else getattr(owner, name))[index] = value
    elif custom:
        owner[name] = value
    else:
        setattr(owner, name, value)


def _play_slot(anim, action, rig, identifier):
    """The slot the action plays on the rig with: the one named, else the one Blender picked, else the first that
    suits an object; ExtractionError when the action has none for it."""
    wanted = action.slots.get(identifier) if identifier else None
    if wanted is not None:
        anim.action_slot = wanted
    if anim.action_slot is None and len(anim.action_suitable_slots):
        anim.action_slot = anim.action_suitable_slots[0]
    if anim.action_slot is None:
        raise ExtractionError(f"action {action.name!r} has no slot that animates an object like {rig.name!r}")
    return anim.action_slot


def _carrier(binding, foot):
    """The bone that carries a foot's mid-sole point (the footprint's): the foot's, a quadruped's paw."""
    return binding.balls[foot] if binding.is_quadruped else binding.ankles[foot]


def sample_feet(context, binding, action, slot_identifier=None) -> FootSamples:
    """Every whole frame of the action's range, played alone on the binding's rig and evaluated (constraints and
    IK included): each foot's heel, mid-foot and toe tip on its sole, and its toe direction."""
    rig, m = binding.rig, binding.measurements
    first, last = action.frame_range
    frames = np.arange(math.floor(first), math.ceil(last) + 1)
    feet = list(binding.feet)
    layout = {f: sole_layout(binding, f) for f in feet}  # heel, ball (foot), ball (toe), toe tip
    points = {f: [layout[f][0][1:], (_carrier(binding, f), m["support"][f]), layout[f][3][1:]] for f in feet}
    bones = list(dict.fromkeys(bone for f in feet for bone, _point in points[f]))
    index = {bone: i for i, bone in enumerate(bones)}
    with playing(context, binding.rig, action, slot_identifier) as slot:
        matrices = evaluated_matrices(context, rig, bones, frames)
    upright = m["upright"]
    facing = upright.T @ (m["align"].T @ np.array([0.0, 1.0, 0.0]))  # the rest toes' direction, armature space
    sole = np.zeros((len(frames), len(feet), 3, 3))
    forward = np.zeros((len(frames), len(feet), 3))
    for leg, foot in enumerate(feet):  # a handful of feet and points; frames are vectorised
        for k, (bone, point) in enumerate(points[foot]):
            sole[:, leg, k] = carried(matrices[:, index[bone]], rest_local(rig, bone, point, upright))
        carrier = _carrier(binding, foot)
        rest = np.array(rig.data.bones[carrier].matrix_local, dtype=float)[:3, :3]
        forward[:, leg] = matrices[:, index[carrier], :3, :3] @ (rest.T @ facing)  # turned as the foot turned
    return FootSamples(frames, scene_clock.seconds(context.scene, frames), sole, forward, slot)


def ground_under(context, terrain, sole):
    """Terrain heights under the sole points (N, L, P, 3) by ray casts on the terrain objects; None without any
    (the solver then takes the lowest point a foot reaches). Where no ray hits, that lowest point too."""
    if not terrain:
        return None
    probe = TerrainProbe(terrain, context.evaluated_depsgraph_get())
    return ground_by_rays(probe, sole, np.full(sole.shape[:-1], sole[..., 2].min()))


def extract(context, rig, action, terrain=(), slot_identifier=None):
    """The footprint track of the action's foot plants on the rig, the feet's samples, and the preset the track
    is for (human for a biped rig, dog for a quadruped); writes nothing. Raises MissingBonesError (a rig the
    product cannot bind), ExtractionError or FootprintError (no plant found) naming the rig and the action."""
    binding = bind(rig)
    preset = "dog" if binding.is_quadruped else "human"
    samples = sample_feet(context, binding, action, slot_identifier)
    leg_length = bake.rig_character(binding, preset).leg_length_nominal
    try:
        track = extract_track(samples.times, binding.feet, samples.sole, samples.sole[:, :, 1], samples.forward,
                              leg_length, ground_under(context, terrain, samples.sole), character=preset)
        validate(track, allowed_feet=tuple(binding.feet))
    except FootprintError as exc:
        raise type(exc)(f"action {action.name!r} on {rig.name!r} (frames {samples.frames[0]}-"
                        f"{samples.frames[-1]}): {exc}") from None
    return track, samples, preset


def default_terrain(context):
    """The terrain objects of the active track's terrain settings (a tuple, maybe empty) and those settings."""
    coll = scene_io.active_track(context)
    if coll is None:
        return (), None, None
    settings = coll.footprint_track
    return terrain_objects(settings.terrain, settings.terrain_collection), settings.terrain, settings.terrain_collection


# --- the track ---------------------------------------------------------------------------------------------------


def extracted_track(rig, action):
    """The track collection an earlier extraction of the action from the rig made, or None."""
    return next((c for c in bpy.data.collections
                 if c.footprint_track.is_track and c.get(RIG_KEY) == rig and c.get(ACTION_KEY) == action), None)


def extract_to_track(context, rig, action, terrain=None, terrain_collection=None):
    """Extract the action's footprints (on the terrain object and collection given, else the active track's)
    into a track collection: the one an earlier extraction of this action from this rig made (its footprints
    replaced, its other settings kept), else a new one; made the active track. Nothing is written unless the
    extraction succeeds. Returns (collection, track)."""
    if terrain is None and terrain_collection is None:
        objects, terrain, terrain_collection = default_terrain(context)
    else:
        objects = terrain_objects(terrain, terrain_collection)
    track, samples, preset = extract(context, rig, action, objects)
    coll = extracted_track(rig, action)
    if coll is None:
        coll = scene_io.new_track(context, f"{action.name} footprints", preset, terrain,
                                  terrain_collection=terrain_collection)
        coll[RIG_KEY], coll[ACTION_KEY] = rig, action
    else:
        for obj in scene_io.footprints(coll):
            bpy.data.objects.remove(obj)
        coll.footprint_track.terrain, coll.footprint_track.terrain_collection = terrain, terrain_collection
        context.scene.footprint.active_track = coll
    if samples.slot is not None:
        coll[SLOT_KEY] = samples.slot.identifier
    coll.footprint_track.rig = rig
    scene_io.write_track(coll, track)
    return coll, track


# --- re-solving with the original's upper body --------------------------------------------------------------------


def bake_with_upper_body(context, coll):
    """Bake an extracted track onto the rig it came from with the product's bake (the legs and body solved on its
    footprints as they are now: moved, on new terrain) and layer the original action's upper body over it
    (upper_body_layer); the original stops being the rig's active action (it would play over every strip; the
    track keeps it). Returns (bake strip, motion, layer strip or None, how many F-curves the layer plays).
    Raises ExtractionError for a track not extracted (or whose rig or action is gone) and what the bake raises,
    before anything is written."""
    rig, action = coll.get(RIG_KEY), coll.get(ACTION_KEY)
    if rig is None or action is None:
        missing = "was not extracted from an action" if RIG_KEY not in coll else "has lost its rig or its action"
        raise ExtractionError(f"track {coll.name!r} {missing}: Footprints from Animation makes the tracks this "
                              f"bakes (Bake Footprints to Rig bakes any track)")
    bones = upper_body_layer.upper_body_bones(bind(rig), context.evaluated_depsgraph_get())
    strip, motion = bake.bake(context, coll, rig)
    layer, curves = upper_body_layer.layer_upper_body(context, rig, coll, action, coll.get(SLOT_KEY), bones)
    if rig.animation_data.action == action:
        rig.animation_data.action = None
    return strip, motion, layer, curves


# --- headless ------------------------------------------------------------------------------------------------


def extract_file(scene_path, rig_name, action_name, output_path):
    """The command line's `extract`: open the .blend (scripts off), extract the action's footprints on the rig
    (on the active track's terrain, if the file has one) and write them as a track JSON (the scene's fps with
    them, so their times are its frames), whole or not at all, never over the input. Bad input raises an error
    naming the culprit and nothing is written. Returns the track."""
    if not output_path.endswith(".json"):
        raise ExtractionError(f"{output_path}: the output is a track, a .json file")
    files.check_target(output_path, [scene_path])
    try:
        headless.open_scene(scene_path)
    except headless.JobError as exc:
        raise ExtractionError(str(exc)) from None
    rig = bpy.data.objects.get(rig_name)
    if rig is None or rig.type != "ARMATURE":
        rigs = [o.name for o in bpy.data.objects if o.type == "ARMATURE"]
        raise ExtractionError(f"no armature {rig_name!r} in {os.path.basename(scene_path)} (armatures: "
                              f"{', '.join(rigs) or 'none'})")
    context = bpy.context
    track, _samples, _preset = extract(context, rig, find_action(rig, action_name), default_terrain(context)[0])
    track = track.replace(extras={"fps": scene_clock.fps(context.scene), **track.extras})
    text = dumps(track_to_json(track, number=scene_io.stored_decimal))
    files.write_atomically(output_path, text, inputs=[scene_path])
    return track
