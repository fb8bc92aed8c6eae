"""The viewport overlay of a quadruped track (issue 18 point 5): the draw handlers run headless against
stand-ins for gpu, gpu_extras and blf that record what would be drawn (Blender's own refuse to draw in
background mode), on a dog's gallop imported from JSON and solved as a bake records it: the COM path with
the hind and fore mass paths after it (toggled with it by the track's Show Overlay), and a timing diagram
of four rows LH, RH, LF, RF top to bottom, labelled, each bar a footprint's stance."""

import importlib
import sys
from types import ModuleType, SimpleNamespace

import bpy
import numpy as np
import pytest


class Recorder:
    """gpu, gpu_extras.batch and blf as far as the overlay uses them: batches and text kept in order."""

    def __init__(self):
        self.batches, self.texts, self.font = [], [], {}

    def modules(self):
        gpu = ModuleType("gpu")
        gpu.shader = SimpleNamespace(from_builtin=lambda name: name)
        gpu.state = SimpleNamespace(line_width_set=lambda width: None, blend_set=lambda mode: None)
        extras, batch = ModuleType("gpu_extras"), ModuleType("gpu_extras.batch")
        batch.batch_for_shader = self.batch_for_shader
        extras.batch = batch
        blf = ModuleType("blf")
        blf.size = lambda font, size: self.font.update(size=size)
        blf.dimensions = lambda font, text: (6.0 * len(text), 8.0)
        blf.position = lambda font, x, y, z: self.font.update(position=(x, y))
        blf.color = lambda font, *rgba: self.font.update(color=rgba)
        blf.draw = lambda font, text: self.texts.append((text, self.font["position"], self.font["color"]))
        return {"gpu": gpu, "gpu_extras": extras, "gpu_extras.batch": batch, "blf": blf}

    def batch_for_shader(self, shader, kind, content):
        record = SimpleNamespace(shader=shader, kind=kind, pos=np.asarray(content["pos"]),
                                 color=np.asarray(content["color"]), drawn=0)
        self.batches.append(record)

        def draw(_shader):
            record.drawn += 1

        return SimpleNamespace(draw=draw)


@pytest.fixture
def gallop_track(addon, clean, tmp_path):
    """A dog's rotary gallop imported as the active track, solved, and recorded as a bake records it."""
    def module(name):
        return importlib.import_module(f"{addon}.{name}")

    track_module, solved = module("solver.track"), module("footprint_addon.solved")
    scene_io = module("footprint_addon.scene_io")
    dog = module("solver.character").preset("dog")
    track = module("solver.quadruped.gait_track").gait_track(dog, "rotary_gallop", 6.0, 3.0, preset_name="dog")
    path = tmp_path / "gallop.json"
    path.write_text(track_module.dumps(track_module.track_to_json(track)))
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    assert coll.footprint_track.character == "dog"
    read = scene_io.read_track(coll)
    motion = module("solver.biped").solve(read, scene_io.character_of(coll))
    solved.record(coll, motion, False)
    overlay = module("footprint_addon.ui.overlay")
    overlay._cache.clear()
    overlay._diagrams.clear()
    return SimpleNamespace(coll=coll, motion=motion, track=read, overlay=overlay, drawing=module("solver.drawing"))


def test_quadruped_view_overlay_draws_the_com_and_both_mass_paths(gallop_track, monkeypatch):
    g = gallop_track
    recorder = Recorder()
    for name, stand_in in recorder.modules().items():
        monkeypatch.setitem(sys.modules, name, stand_in)
    bpy.context.scene.frame_set(bpy.context.scene.frame_start + 10)  # inside the motion: markers too
    g.overlay._draw_view()
    view, markers = recorder.batches[:2]
    assert view.kind == markers.kind == "LINES" and view.drawn == 1 and markers.drawn == 1
    n, footprints = len(g.motion.times) - 1, len(g.track)
    rings = footprints * 16
    daggers = 2 * footprints - 1
    assert view.pos.shape == (2 * (rings + daggers + 3 * n), 3) and view.color.shape == (len(view.pos), 4)
    assert view.pos.dtype == view.color.dtype == np.float32
    lines, colors = view.pos.reshape(-1, 2, 3), view.color.reshape(-1, 2, 4)
    assert np.array_equal(colors[:, 0], colors[:, 1])  # one colour per segment
    com, hind, fore = (lines[rings + daggers + k * n:rings + daggers + (k + 1) * n] for k in range(3))
    assert np.allclose(com[:, 0], g.motion.com[:-1], atol=1e-6)
    assert np.allclose(hind[:, 0], g.motion.body_points[:-1, 0], atol=1e-6)
    assert np.allclose(hind[:, 1], g.motion.body_points[1:, 0], atol=1e-6)
    assert np.allclose(fore[:, 0], g.motion.body_points[:-1, 1], atol=1e-6)
    assert np.allclose(fore[:, 1], g.motion.body_points[1:, 1], atol=1e-6)
    expect = g.drawing.mass_paths(g.motion.body_points, g.motion.contact, g.motion.character.feet)[1]
    assert np.allclose(colors[rings + daggers + n:, 0], expect)
    flight = ~g.motion.contact[:-1].any(axis=1)
    com_colors = colors[rings + daggers:rings + daggers + n, 0]
    assert flight.any() and np.allclose(com_colors[flight], g.drawing.PHASE_COLORS["flight"])

    # A redraw with nothing changed builds no new view batch (only the current frame's markers).
    recorder.batches.clear()
    g.overlay._draw_view()
    assert len(recorder.batches) == 1 and recorder.batches[0] is not view

    # Show Overlay off: neither the COM path nor the mass paths (nothing of the track) is drawn.
    g.coll.footprint_track.show_overlay = False
    recorder.batches.clear()
    g.overlay._draw_view()
    assert recorder.batches == []


def test_quadruped_timing_diagram_draws_four_labelled_rows(gallop_track, monkeypatch):
    g = gallop_track
    recorder = Recorder()
    for name, stand_in in recorder.modules().items():
        monkeypatch.setitem(sys.modules, name, stand_in)
    g.overlay._draw_timing()
    (tris,) = recorder.batches
    diagram = g.overlay.timing_diagram(bpy.context)
    assert diagram.rows == ("LH", "RH", "LF", "RF")
    tr = g.track
    assert tris.kind == "TRIS" and tris.drawn == 1 and tris.pos.shape == (6 * len(tr) + 6, 2)
    assert tris.pos.dtype == np.float32
    # Each bar's triangles span its footprint's stance on its foot's row; rows from the top LH, RH, LF, RF.
    bars = tris.pos[:-6].reshape(len(tr), 6, 2)
    assert np.allclose([diagram.time_at(x) for x in bars[:, :, 0].min(axis=1)], tr.contact, atol=1e-5)
    assert np.allclose([diagram.time_at(x) for x in bars[:, :, 0].max(axis=1)], tr.liftoff, atol=1e-5)
    heights = {f: bars[tr.feet == f, :, 1].min() for f in diagram.rows}
    assert heights["LH"] > heights["RH"] > heights["LF"] > heights["RF"]
    assert np.allclose(tris.color[:-6:6], g.drawing.foot_colors(tr.feet))
    # Labels: each row's foot name, right-aligned left of the diagram and centred on its row, in its colour.
    assert [t[0] for t in recorder.texts] == ["LH", "RH", "LF", "RF"] and recorder.font["size"] > 0
    for text, (x, y), color in recorder.texts:
        assert x + 6.0 * len(text) == pytest.approx(diagram.box[0] - g.drawing.LABEL_GAP)
        assert y + 4.0 == pytest.approx(heights[text] + 0.5 * diagram.row_height)
        assert tuple(color) == g.drawing.foot_color(text)
    # The scrub operator reads the same diagram: a click on the RF row's first bar lands on its contact.
    scene = bpy.context.scene
    first = int(np.flatnonzero(tr.feet == "RF")[0])
    x, y = diagram.bars[first, 0], 0.5 * (diagram.bars[first, 1] + diagram.bars[first, 3])
    assert bpy.ops.footprint.scrub_timing(x=x, y=y) == {"FINISHED"}
    fps = scene.render.fps / scene.render.fps_base
    assert scene.frame_current == round(scene.frame_start + tr.contact[first] * fps)
