"""Live update (vdP97 is interactive): moving, rotating or retiming a footprint, changing the track's
settings, its terrain, its rig's turn or scale, or the scene's frame rate or start frame re-solves the
track and refreshes its preview on its rig. The depsgraph handler only notes which tracks changed (for the
overlay too); the re-solve runs once per burst of edits from a timer (never from the draw path), and the
handler ignores every update that is not a footprint, a track, a terrain solved on, a rig's transform or a
scene, so the preview's own writes never trigger it again."""

import bpy
from bpy.app.handlers import persistent

from . import preview, scene_clock, scene_io, solved, terrain

DEBOUNCE = 0.08  # seconds: a drag produces many updates; the re-solve waits for a pause
_dirty = set()  # session ids of tracks edited since the last re-solve (a rename keeps them)
stats = {"solves": 0}  # how many re-solves ran (tests and the status bar read it)
errors = {}  # track session id -> why its last re-solve failed (shown in the Rig panel)


@persistent
def on_depsgraph_update(scene, depsgraph):
    for update in depsgraph.updates:
        data = update.id.original
        if (isinstance(data, bpy.types.Object) and (update.is_updated_geometry or update.is_updated_transform)
                and terrain.solved_on(data)):
            terrain.forget(data)  # a terrain changed: every track on it is stale
            _stale_where(lambda settings: data in terrain.track_terrain(settings.id_data))
        if isinstance(data, bpy.types.Scene):
            _clock_changed(data)
        # A rig moved, turned or scaled. (Its rest pose is in the signature too, but an edit of it reaches
        # the handler just as every pose does, on the armature data: it shows at the track's next edit.)
        if isinstance(data, bpy.types.Object) and data.type == "ARMATURE" and update.is_updated_transform:
            _stale_where(lambda settings: settings.rig == data)
        if isinstance(data, bpy.types.Collection) and data.footprint_track.is_track:
            _note(data)  # its settings (character, terrain), or footprints added or removed
        elif isinstance(data, bpy.types.Collection):
            _terrain_collection_changed(data)
        elif isinstance(data, bpy.types.Object) and scene_io.is_footprint(data):
            coll = scene_io.track_of(data)
            if coll is not None:
                _note(coll)
    if _dirty and not bpy.app.background and not bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.register(_on_timer, first_interval=DEBOUNCE)


def _note(coll):
    """The track or one of its footprints changed: the overlay lays it out again, the live update (if on)
    re-solves it."""
    solved.touched(coll)
    _stale(coll)


def _stale(coll):
    """Something the track's solve reads, and its overlay does not draw, changed: the live update (if on)
    re-solves it."""
    if coll.footprint_track.live and coll.footprint_track.rig is not None:
        _dirty.add(coll.session_uid)


def _stale_where(reads):
    """Something changed that the tracks whose settings it reads (reads(settings): their terrain, their
    rig) are stale for."""
    for coll in bpy.data.collections:
        if coll.footprint_track.is_track and reads(coll.footprint_track):
            _stale(coll)


def _terrain_collection_changed(coll):
    """Objects were linked to or unlinked from the collection, or hidden or shown in it (its updates are
    those, also for its child collections'): if it is a track's terrain collection, its objects' samples
    go and the tracks on it are stale. (Objects added or removed change the tracks' terrain itself.)"""
    on_it = [c for c in bpy.data.collections
             if c.footprint_track.is_track and c.footprint_track.terrain_collection == coll]
    if on_it:
        for obj in coll.all_objects:
            if terrain.solved_on(obj):
                terrain.forget(obj)
        for track in on_it:
            _stale(track)


def _clock_changed(scene):
    """A scene setting changed (a selection does too): if it was the frame rate or the start frame, the
    live previews of the scene's tracks keyed on another clock's frames are stale."""
    off_clock = solved.previews_off(scene_clock.clock(scene))
    if off_clock:  # (most scene updates: none, and no walk over the collections)
        for coll in scene.collection.children_recursive:
            if coll.session_uid in off_clock and coll.footprint_track.is_track:
                _stale(coll)


def _on_timer():
    flush(bpy.context)
    return None


def flush(context):
    """Re-solve every track edited since the last time whose solve's inputs really changed (footprints,
    settings, terrain, the rig's form, the scene's clock); returns how many."""
    count = 0
    edited = [coll for coll in bpy.data.collections if coll.session_uid in _dirty]
    for coll in sorted(edited, key=lambda c: c.name):
        uid = coll.session_uid
        if not coll.footprint_track.is_track or coll.footprint_track.rig is None:
            continue
        current = solved.signature(coll)
        if solved.previewed_signature(coll) == current:  # nothing the solver reads changed (selection, our
            errors.pop(uid, None)  # own writes), or an invalid edit was undone: the preview shows this state
            continue
        try:
            preview.refresh(context, coll, coll.footprint_track.rig, solved.last_motion(coll),
                                     solved.changed_span(solved.last_signature(coll), current), current)
        except (ValueError, RuntimeError) as exc:  # an invalid edit mid-drag: keep the last good preview
            errors[uid] = str(exc)
            continue
        errors.pop(uid, None)  # (the refresh recorded the solve)
        stats["solves"] += 1
        count += 1
    _dirty.clear()
    return count


def _forget():
    for state in (_dirty, errors):
        state.clear()
    solved.forget()
    terrain.forget()


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
