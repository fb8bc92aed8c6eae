"""Live update (vdP97 is interactive): moving, rotating or retiming a footprint re-solves its track and
refreshes the track's preview on its rig. The depsgraph handler only notes which tracks changed; the
re-solve runs once per burst of edits from a timer (never from the draw path), and the handler ignores
every update that is not a footprint, so the preview's own writes never trigger it again."""

import bpy
from bpy.app.handlers import persistent

from . import preview, scene_io

DEBOUNCE = 0.08  # seconds: a drag produces many updates; the re-solve waits for a pause
_dirty = set()  # names of tracks edited since the last re-solve
stats = {"solves": 0}  # how many re-solves ran (tests and the status bar read it)
errors = {}  # track name -> why its last re-solve failed (shown in the Rig panel)


def signature(coll):
    """What a solve of the track reads: its settings (character preset or parameters, terrain, rig) and, per
    footprint, its name, place, heading, contact, lift-off and foot."""
    settings = coll.footprint_track
    return ((settings.character, settings.character_json, getattr(settings.terrain, "name", None),
             getattr(settings.rig, "name", None)),
            tuple((o.name, tuple(round(v, 6) for v in o.matrix_world.translation), round(o.rotation_euler.z, 6),
                   round(o.footprint.contact, 6), round(o.footprint.liftoff, 6), o.footprint.foot)
                  for o in scene_io.footprints(coll)))


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


_last = {}  # track name -> the footprints as last solved
_motions = {}  # track name -> the last motion: the overlay draws it, the next re-solve starts from it


def last_motion(name):
    return _motions.get(name)


@persistent
def on_depsgraph_update(scene, depsgraph):
    for update in depsgraph.updates:
        obj = update.id
        if isinstance(obj, bpy.types.Object) and scene_io.is_footprint(obj.original):
            coll = scene_io.track_of(obj.original)
            if coll is not None and coll.footprint_track.live and coll.footprint_track.rig is not None:
                _dirty.add(coll.name)
    if _dirty and not bpy.app.background and not bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.register(_on_timer, first_interval=DEBOUNCE)


def _on_timer():
    flush(bpy.context)
    return None


def flush(context):
    """Re-solve every track edited since the last time whose footprints really changed; returns how many."""
    solved = 0
    for name in sorted(_dirty):
        coll = bpy.data.collections.get(name)
        if coll is None or not coll.footprint_track.is_track or coll.footprint_track.rig is None:
            continue
        current = signature(coll)
        if _last.get(name) == current:  # nothing the solver reads changed (selection, our own writes), or
            errors.pop(name, None)  # an invalid edit was undone: the preview shows this state already
            continue
        try:
            motion = preview.refresh(context, coll, coll.footprint_track.rig, _motions.get(name),
                                     changed_span(_last.get(name), current))
        except (ValueError, RuntimeError) as exc:  # an invalid edit mid-drag: keep the last good preview
            errors[name] = str(exc)
            continue
        errors.pop(name, None)
        _last[name] = current
        _motions[name] = motion
        stats["solves"] += 1
        solved += 1
    _dirty.clear()
    return solved


def _forget():
    for state in (_dirty, _last, _motions, errors):
        state.clear()


@persistent
def on_load(_dummy):
    _forget()


HANDLERS = ((bpy.app.handlers.depsgraph_update_post, on_depsgraph_update), (bpy.app.handlers.load_post, on_load))


def register():
    for handlers, fn in HANDLERS:
        if fn not in handlers:
            handlers.append(fn)


def unregister():
    for handlers, fn in HANDLERS:
        while fn in handlers:
            handlers.remove(fn)
    if bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.unregister(_on_timer)
    _forget()
