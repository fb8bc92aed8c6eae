"""What each track was last solved from and to: the footprints as solved (a signature of everything a solve
reads) and the motion. Whoever solves a track records it here (the preview, a bake, the live update): the
overlay draws the motion at once, and the live update's next re-solve starts from it, re-optimising only
around the footprints moved since. Kept per track collection (its session id: a renamed track keeps its
record, a new track under an old name does not inherit one)."""

import itertools

import bpy
import numpy as np

from . import scene_clock, scene_io, terrain

_signatures = {}  # track -> the footprints as last solved
_motions = {}  # track -> the last motion
_previewed = {}  # track -> the footprints as the track's preview shows them
_revisions = {}  # track -> a number that changes whenever the track or one of its footprints does
_numbers = itertools.count()  # never restarts: a number once given stands for one state only


def signature(coll):
    """What a solve of the track reads: its settings (character preset or parameters, terrain objects and how
    many times each changed, rig and its form: see rig_form, walking attributes), the scene's clock (the frames it is sampled at:
    solves run in the current scene) and, per footprint, its name, place, heading, contact, lift-off and
    foot."""
    settings = coll.footprint_track
    rig, ground = settings.rig, terrain.track_terrain(coll)

    def footprint(o):
        fp = o.footprint
        return (o.name, tuple(round(v, 6) for v in o.matrix_world.translation), round(o.rotation_euler.z, 6),
                round(fp.contact, 6), round(fp.liftoff, 6), fp.foot)

    return ((settings.character, settings.character_json, tuple(o.name for o in ground), terrain.revision(ground),
             getattr(rig, "name", None), rig_form(rig), settings.body.signature(), settings.motion,
             scene_clock.clock(bpy.context.scene)),  # the clock last: previews_off reads it there
            tuple(footprint(o) for o in scene_io.footprints(coll)))


def rig_form(rig):
    """What of a rig a solve for it reads: its turn and scale in the world (the scale sizes the character
    measured from it, the turn faces the preview; where it stands does not matter) and its rest pose (a
    digest of every bone's rest matrix: edited bones change the character); None without a rig."""
    if rig is None:
        return None
    turn = tuple(round(v, 6) for row in rig.matrix_world.to_3x3() for v in row)
    bones = rig.data.bones
    rest = np.empty(16 * len(bones))
    bones.foreach_get("matrix_local", rest)
    return turn, hash(np.round(rest, 6).tobytes())  # (in memory only: a process's hash is enough)


def changed_span(before, after):
    """(first contact, last lift-off) of the footprints moved or turned between two signatures, or None
    when anything else changed (the track's settings, timing, feet, footprints added or removed): then
    the whole track counts."""
    if before is None or before[0] != after[0] or len(before[1]) != len(after[1]):
        return None
    before, after = before[1], after[1]
    moved = [b for b, a in zip(before, after) if b != a]
    if any(b[0] != a[0] or b[3:] != a[3:] for b, a in zip(before, after)) or not moved:
        return None
    return min(m[3] for m in moved), max(m[4] for m in moved)


def record(coll, motion, previewed, current=None):
    """The track was just solved to motion from its footprints as they are now (current: their signature,
    when the caller has it); previewed: its preview shows that motion (a bake leaves a preview as it was)."""
    current = signature(coll) if current is None else current
    _signatures[coll.session_uid] = current
    _motions[coll.session_uid] = motion
    if previewed:
        _previewed[coll.session_uid] = current
    touched(coll)  # the overlay draws the new motion


def previewed_signature(coll):
    return _previewed.get(coll.session_uid)


def previews_off(clock):
    """The session ids of the tracks whose previews are keyed on another scene clock than this one."""
    return {uid for uid, shown in _previewed.items() if shown[0][-1] != clock}


def last_signature(coll):
    return _signatures.get(coll.session_uid)


def last_motion(coll):
    return _motions.get(coll.session_uid)


def touched(coll):
    """The track or one of its footprints changed (the depsgraph said so)."""
    _revisions[coll.session_uid] = next(_numbers)


def revision(coll):
    """A number that stays the same while nothing of the track changes, nor its motion: what the overlay
    redraws from, read in constant time (a signature reads every footprint: 13 ms for 1000 of them)."""
    if coll.session_uid not in _revisions:
        touched(coll)
    return _revisions[coll.session_uid]


def forget():
    for state in (_signatures, _motions, _previewed, _revisions):
        state.clear()
