"""Viewport overlay (vdP97 Fig. 3 and 15): footprint outlines, timing daggers, the COM path coloured by
support phase (a quadruped's hind and fore mass paths with it, each coloured by its own pair of legs) and
markers on the current frame's COM, hips and feet in the 3D view, and a timing diagram with the current
frame in its corner, one labelled row per foot of the track's character (click or drag on it to scrub).
The geometry comes from solver.drawing (tested headless); GPU batches are rebuilt only when the footprints
or the solution change, and nothing is drawn or registered in background mode. The draw handlers import
gpu and blf when they run, and hand them arrays made by the functions above them."""

import bpy
import numpy as np

from ...solver import drawing
from ...solver.errors import FootprintError
from .. import scene_clock, scene_io, solved

_handlers = []
_cache = {}  # track session id -> (revision, batch)
_diagrams = {}  # track session id -> (revision, timing diagram)


def overlay_lines(coll, motion=None):
    """Line segments (M, 2, 3) and colours (M, 4) for a track: outlines, daggers, and the motion's COM path
    followed by a quadruped's hind and fore mass paths (drawing.mass_paths; none for a biped)."""
    objs = scene_io.footprints(coll)
    if not objs:
        return np.zeros((0, 2, 3)), np.zeros((0, 4))
    character = scene_io.character_of(coll)
    track = scene_io.read_track(coll, objs)
    matrices = np.array([np.array(o.matrix_world) for o in objs])
    outlines = drawing.outlines_in_world(matrices, character.foot_length, character.foot_width, lift=0.005)
    rings = np.stack([outlines, np.roll(outlines, -1, axis=1)], axis=2).reshape(-1, 2, 3)
    ring_colors = np.repeat(drawing.foot_colors(track.feet), outlines.shape[1], axis=0)
    daggers, owner = drawing.daggers(track.positions + [0.0, 0.0, 0.01], track.headings, track.feet,
                                     track.contact, track.liftoff)
    dagger_colors = drawing.foot_colors(track.feet[owner])
    parts = [(rings, ring_colors), (daggers, dagger_colors)]
    if motion is not None:
        parts.append(drawing.com_path(motion.com, motion.contact, motion.character.feet))
        parts.append(drawing.mass_paths(motion.body_points, motion.contact, motion.character.feet))  # none: (0,)
    return (np.concatenate([p[0] for p in parts]).astype(np.float32),
            np.concatenate([np.asarray(p[1]).reshape(-1, 4) for p in parts]).astype(np.float32))


def _draw_view():
    import gpu
    from gpu_extras.batch import batch_for_shader

    shader = gpu.shader.from_builtin("FLAT_COLOR")
    for coll in bpy.data.collections:
        settings = coll.footprint_track
        if not (settings.is_track and settings.show_overlay):
            continue
        motion = solved.last_motion(coll)
        revision = solved.revision(coll)  # the footprints' and the motion's
        cached = _cache.get(coll.session_uid)
        if cached is None or cached[0] != revision:
            lines, colors = overlay_lines(coll, motion)
            batch = batch_for_shader(shader, "LINES", {"pos": lines.reshape(-1, 3),
                                                      "color": np.repeat(colors, 2, axis=0)})
            cached = _cache[coll.session_uid] = (revision, batch)
        gpu.state.line_width_set(2.0)
        cached[1].draw(shader)
        if motion is None:
            continue
        now = scene_clock.seconds(bpy.context.scene)
        lines, colors = drawing.frame_markers(motion, now, size=0.2 * motion.character.foot_length)
        if len(lines):  # the current frame's COM, hips and feet: a few lines, rebuilt every frame
            batch_for_shader(shader, "LINES", {"pos": lines.reshape(-1, 3).astype(np.float32),
                                              "color": np.repeat(colors, 2, axis=0).astype(np.float32)}).draw(shader)
        if settings.show_ghost:
            lines, alphas = drawing.ghost_lines(motion, now)
            if len(lines):
                colors = np.repeat(np.column_stack([np.full((len(alphas), 3), 0.9), alphas]), 2, axis=0)
                gpu.state.blend_set("ALPHA")
                batch_for_shader(shader, "LINES", {"pos": lines.reshape(-1, 3).astype(np.float32),
                                                  "color": colors.astype(np.float32)}).draw(shader)
                gpu.state.blend_set("NONE")


def timing_diagram(context):
    """The active track's timing diagram as laid out in the 3D view's corner, or None (no overlay)."""
    coll = scene_io.active_track(context)
    if coll is None or not coll.footprint_track.show_overlay:
        return None
    revision = solved.revision(coll)  # redrawn every frame: laid out again only when the track changed
    cached = _diagrams.get(coll.session_uid)
    if cached is None or cached[0] != revision:
        objs = scene_io.footprints(coll)
        diagram = None
        if objs:  # a row for each of the character's feet, a foot without footprints yet too
            track = scene_io.read_track(coll, objs)
            feet = _character_feet(coll)
            diagram = drawing.timing_diagram(track.feet, track.contact, track.liftoff, rows=feet)
        cached = _diagrams[coll.session_uid] = (revision, diagram)
    return cached[1]


def _character_feet(coll):
    """The track's character's feet, or None when its character cannot be read (the footprints' feet then)."""
    try:
        return scene_io.character_of(coll).feet
    except FootprintError:
        return None


LABEL_SIZE = 11  # points


def _draw_timing():
    import blf
    import gpu
    from gpu_extras.batch import batch_for_shader

    diagram = timing_diagram(bpy.context)
    if diagram is None:
        return
    verts, colors = diagram.triangles(scene_clock.seconds(bpy.context.scene))  # bars laid out once per change
    shader = gpu.shader.from_builtin("FLAT_COLOR")
    batch_for_shader(shader, "TRIS", {"pos": verts.astype(np.float32), "color": colors.astype(np.float32)}).draw(shader)
    font = 0
    blf.size(font, LABEL_SIZE)
    for name, x, y, color in diagram.labels:  # each row's foot, right-aligned against the diagram
        width, height = blf.dimensions(font, name)
        blf.position(font, x - width, y - 0.5 * height, 0.0)
        blf.color(font, *color)
        blf.draw(font, name)


def register():
    if bpy.app.background:  # no GPU drawing without a window
        return
    _handlers.append(bpy.types.SpaceView3D.draw_handler_add(_draw_view, (), "WINDOW", "POST_VIEW"))
    _handlers.append(bpy.types.SpaceView3D.draw_handler_add(_draw_timing, (), "WINDOW", "POST_PIXEL"))


def unregister():
    while _handlers:
        bpy.types.SpaceView3D.draw_handler_remove(_handlers.pop(), "WINDOW")
    _cache.clear()
    _diagrams.clear()
