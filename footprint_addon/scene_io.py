"""The seam between the Blender scene and the solver: track collections and footprint empties <-> arrays.

A track is a collection flagged footprint_track.is_track; its footprints are the empties in it flagged
footprint.is_footprint. A footprint's rotation is Euler 'YXZ' (pitch, roll, heading): rotation_euler.z is
exactly the heading and the first two tilt the footprint flush with the terrain.
"""

import math

import bpy
import numpy as np

from ..solver import character as solver_character
from ..solver import drawing, json_input
from ..solver.footprints import footpath
from ..solver.track import Track, make_track, validate

ROTATION_MODE = "YXZ"
DEFAULT_MOTION = "footprints"  # a track without a "motion" field: the COM solver's


# --- finding tracks and footprints ----------------------------------------------------------------


def is_footprint(obj) -> bool:
    return obj is not None and obj.type == "EMPTY" and obj.footprint.is_footprint


def track_of(obj):
    """The track collection a footprint belongs to, or None."""
    for coll in obj.users_collection:
        if coll.footprint_track.is_track:
            return coll
    return None


def footprints(coll) -> list:
    """The track's footprint empties in time order (contact, then foot, then name)."""
    objs = [o for o in coll.objects if is_footprint(o)]
    return sorted(objs, key=lambda o: (o.footprint.contact, o.footprint.foot, o.name))


def active_track(context):
    coll = context.scene.footprint.active_track
    if coll is not None and coll.footprint_track.is_track:
        return coll
    return None


def character_of(coll) -> solver_character.Character:
    return solver_character.character_from_json(character_field(coll))


def tag_update(settings, _context):
    """A property's update: an edit reaches the depsgraph handlers (the live re-solve, the overlay) as a
    footprint's move does (the signature of a track holds its settings)."""
    settings.id_data.update_tag()


def character_field(coll):
    """The track's character as the track format holds it: explicit parameters (JSON a file may have
    mangled, so read as hostile) or a preset's name."""
    settings = coll.footprint_track
    if not settings.character_json:
        return settings.character
    return json_input.loads(settings.character_json, f"track {coll.name!r}: character")


def new_track(context, name="Footprints", character="human", terrain=None, gait="walk", terrain_collection=None):
    coll = bpy.data.collections.new(name)
    context.scene.collection.children.link(coll)
    settings = coll.footprint_track
    settings.is_track = True
    settings.character = character
    settings.terrain = terrain
    settings.terrain_collection = terrain_collection
    settings.gait = gait
    context.scene.footprint.active_track = coll
    return coll


# --- reading ---------------------------------------------------------------------------------------


def heading_of(obj) -> float:
    if obj.rotation_mode == ROTATION_MODE and obj.parent is None:
        return obj.rotation_euler.z
    return obj.matrix_world.to_euler(ROTATION_MODE).z


def position_of(obj):
    return tuple(obj.location) if obj.parent is None else tuple(obj.matrix_world.translation)


def read_track(coll, objs=None) -> Track:
    """The footprints of a track collection (time order, or the given objects' order) as a solver Track,
    with the track's motion mark (extras["motion"]: "stepping" sends it to the stepping solver)."""
    objs = footprints(coll) if objs is None else objs
    character = character_field(coll)
    return make_track(
        [o.footprint.foot for o in objs],
        [position_of(o) for o in objs],
        [heading_of(o) for o in objs],
        [o.footprint.contact for o in objs],
        [o.footprint.liftoff for o in objs],
        character=character,
        extras=motion_extras(coll),
    )


def motion_extras(coll) -> dict:
    """The track file's "motion" field as the collection keeps it: absent for the COM solver's footprints."""
    motion = coll.footprint_track.motion
    return {} if motion == DEFAULT_MOTION else {"motion": motion}


def set_motion(coll, track: Track):
    """Keep a track's motion mark (its extras["motion"], from a file or a generator) on its collection."""
    coll.footprint_track.motion = track.extras.get("motion", DEFAULT_MOTION)


def validate_objects(coll, track, objs):
    """Validate a track whose footprints are the given objects; errors name the objects."""
    validate(track, allowed_feet=character_of(coll).feet, labels=[o.name for o in objs])


# --- timing edits through the dagger properties ----------------------------------------------------


def next_footfall(obj):
    coll = track_of(obj)
    if coll is None:
        return None
    later = [o.footprint.contact for o in coll.objects if is_footprint(o) and o.footprint.contact > obj.footprint.contact]
    return min(later, default=None)


def set_step_time(obj, value):
    """Move every later footprint so the next footfall comes `value` seconds after this contact.

    The shift is clamped so no foot touches down before it lifted off its previous footprint.
    """
    coll = track_of(obj)
    following = next_footfall(obj)
    if coll is None or following is None:
        return
    here = obj.footprint.contact
    later = [o for o in coll.objects if is_footprint(o) and o.footprint.contact > here]
    earlier = [o for o in coll.objects if is_footprint(o) and o.footprint.contact <= here]
    shift = here + value - following
    for o in later:  # a later footprint may not land before its foot left an earlier footprint
        blocking = [e.footprint.liftoff for e in earlier if e.footprint.foot == o.footprint.foot]
        if blocking:
            shift = max(shift, max(blocking) - o.footprint.contact)
    for o in later:
        o.footprint.contact += shift
        o.footprint.liftoff += shift


# --- writing ---------------------------------------------------------------------------------------


def create_footprint(coll, foot, character):
    obj = bpy.data.objects.new(f"{coll.name}.{foot}", None)
    obj.empty_display_type = "CONE"  # the cone points along local +Y: the toes
    obj.empty_display_size = character.foot_length * 0.5
    obj.rotation_mode = ROTATION_MODE
    obj.footprint.is_footprint = True
    obj.footprint.foot = foot
    obj.color = drawing.foot_color(foot)
    coll.objects.link(obj)
    return obj


def write_footprint(obj, foot, position, heading, contact, liftoff, pitch=0.0, roll=0.0):
    if obj.parent is not None:
        obj.parent = None
    obj.rotation_mode = ROTATION_MODE
    obj.location = position
    obj.rotation_euler = (pitch, roll, heading)
    obj.footprint.foot = foot
    obj.color = drawing.foot_color(foot)
    obj.footprint.contact = contact
    obj.footprint.liftoff = liftoff


def write_track(coll, track: Track, objs=None, tilt=None):
    """Write a validated Track into the collection: into the given objects (same order), or new empties.

    tilt: optional (pitch, roll) arrays; without it, existing objects keep their tilt and new ones lie flat.
    """
    character = character_of(coll)
    if objs is None:
        objs = [create_footprint(coll, str(f), character) for f in track.feet]
    for i, obj in enumerate(objs):
        pitch, roll = (tilt[0][i], tilt[1][i]) if tilt is not None else tuple(obj.rotation_euler)[:2]
        write_footprint(obj, str(track.feet[i]), track.positions[i], track.headings[i],
                        track.contact[i], track.liftoff[i], pitch, roll)
    return objs


# --- terrain ---------------------------------------------------------------------------------------


class NoTerrainError(ValueError):
    """Footprints with no terrain below them."""


def conform_track(track: Track, probe, labels, keep_height=None):
    """Heights from the terrain and tilts from its normals, for every footprint; all or nothing.

    keep_height: footprints whose height stays as given (3D positions from a file); they still tilt.
    Raises NoTerrainError naming the footprints with no terrain below.
    """
    hit, points, normals = probe.project(track.positions[:, :2])
    if not hit.all():
        missing = [labels[i] for i in np.flatnonzero(~hit)]
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise NoTerrainError(f"no terrain under {shown} (terrain {probe.name!r})")
    positions = track.positions.copy()
    lower = np.ones(len(track), dtype=bool) if keep_height is None else ~np.asarray(keep_height)
    positions[lower, 2] = points[lower, 2]
    tilt = footpath.tilt_from_normals(normals, track.headings)
    return track.replace(positions=positions), tilt


def stored_decimal(value: float, kind: str) -> float:
    """The shortest decimal that Blender stores back as exactly the same float32 (headings in degrees).

    Blender keeps locations, rotations and times as float32; writing the shortest decimal that reads back
    to the same float32 makes export -> import -> export exact and keeps the numbers readable.
    """
    stored = np.float32(value)
    shown = math.degrees(value) if kind == "heading" else float(value)
    to_storage = math.radians if kind == "heading" else float
    for digits in range(1, 18):
        candidate = float(f"{shown:.{digits}g}")
        if np.float32(to_storage(candidate)) == stored:
            return candidate + 0.0
    return shown + 0.0
