"""Drawing geometry (vdP97 Fig. 3 daggers, Fig. 15 colours) and the plot command, without Blender's GPU."""

import json
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

from footprint_locomotion.solver import biped, drawing, plot
from footprint_locomotion.solver.character import QUADRUPED_FEET, preset
from footprint_locomotion.solver.motion import BODY_POINTS
from footprint_locomotion.solver.quadruped import two_mass
from footprint_locomotion.solver.quadruped.gait_track import gait_track
from footprint_locomotion.solver.track import load_track

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@pytest.fixture(scope="module")
def fig1():
    return biped.solve(load_track(os.path.join(DATA, "fig1.json")), fps=60.0)


@pytest.fixture(scope="module")
def gallop():
    """A dog's rotary gallop (8 footprints, 0.3 s to solve): each pair of legs has one foot down, both and
    neither (the flights) in turn."""
    dog = preset("dog")
    return biped.solve(gait_track(dog, "rotary_gallop", 6.0, 3.0), dog, fps=60.0)


def test_com_path_coloured_by_support_phase(fig1):
    segments, colors = drawing.com_path(fig1.com, fig1.contact, fig1.character.feet)
    assert segments.shape == (len(fig1.times) - 1, 2, 3) and colors.shape == (len(fig1.times) - 1, 4)
    left, right = fig1.contact[:-1, 0], fig1.contact[:-1, 1]
    expect = {"right": right & ~left, "left": left & ~right, "double": left & right, "flight": ~left & ~right}
    for phase, mask in expect.items():
        assert mask.any(), phase  # Fig. 1 has all four: the hop gives a flight
        assert np.allclose(colors[mask], drawing.PHASE_COLORS[phase])


def test_dagger_lengths_are_stance_and_step_times(fig1):
    tr = fig1.track
    segments, owner = drawing.daggers(tr.positions, tr.headings, tr.feet, tr.contact, tr.liftoff)
    assert len(segments) == 2 * len(tr) - 1  # a bar each, a crossbar for all but the last footprint
    bars = segments[: len(tr)]
    lengths = np.linalg.norm(bars[:, 1] - bars[:, 0], axis=1)
    assert np.allclose(lengths, drawing.DAGGER_SCALE * (tr.liftoff - tr.contact))
    crosses = segments[len(tr):]
    centres = crosses.mean(axis=1)
    step = np.diff(tr.contact)
    distances = np.linalg.norm(centres - tr.positions[owner[len(tr):]], axis=1)
    assert np.allclose(distances, drawing.DAGGER_SCALE * step)
    side = np.sign(bars[:, 1, 0] - bars[:, 0, 0])  # headings are 0: left feet's daggers point to -X
    assert np.all(side[tr.feet == "L"] < 0) and np.all(side[tr.feet == "R"] > 0)


def test_timing_bars_one_row_per_foot(fig1):
    tr = fig1.track
    rows, bars = drawing.timing_bars(tr.feet, tr.contact, tr.liftoff)
    assert rows == ["L", "R"] and bars.shape == (12, 3)
    assert np.array_equal(bars[:, 0], (tr.feet == "R").astype(float))
    assert np.allclose(bars[:, 2] - bars[:, 1], tr.liftoff - tr.contact)


def test_plot_svg_and_png(fig1):
    doc = json.loads(json.dumps(fig1.to_json()))
    text = plot.render(doc, "p.svg").decode("utf-8")
    assert text.count('class="footprint"') == 12 and text.count('class="contact"') == 12
    assert text.count('class="dagger"') == 23 and text.count('class="com"') == len(fig1.times) - 1
    assert "#8cbfff" in text  # the pale blue of the hop's flight (vdP97 Fig. 15)
    data = plot.render(doc, "p.png")
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    idat = data[data.index(b"IDAT") + 4:data.index(b"IEND") - 8]
    pixels = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, width * 3 + 1)[:, 1:]
    assert (width, height) == (plot.WIDTH, plot.PLAN_HEIGHT + plot.TIMING_HEIGHT)
    assert (pixels < 250).mean() > 0.02  # drawn, not blank
    with pytest.raises(plot.PlotError, match="must end in .svg or .png"):
        plot.render(doc, "p.gif")


def test_plot_command(fig1, tmp_path):
    motion = tmp_path / "m.json"
    motion.write_text(json.dumps(fig1.to_json()))
    out = tmp_path / "plot.svg"
    proc = subprocess.run([sys.executable, "-m", "footprint_locomotion", "plot", str(motion), "--output", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and out.read_text().startswith("<svg")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "footprint-motion"}')
    proc = subprocess.run([sys.executable, "-m", "footprint_locomotion", "plot", str(bad), "--output", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "missing" in proc.stderr


def test_ghost_poses_around_the_current_time(fig1):
    now = float(fig1.times[len(fig1.times) // 2])
    lines, alphas = drawing.ghost_lines(fig1, now)
    assert lines.shape == (4 * 4, 2, 3) and alphas.shape == (16,)  # 4 times x (COM-hip, hip-foot) x 2 legs
    assert np.allclose(lines[0, 0], fig1.com[np.argmin(np.abs(fig1.times - (now - 0.3)))])  # on a sample
    assert alphas[4] > alphas[0]  # 0.15 s away is drawn more strongly than 0.3 s away
    early, _ = drawing.ghost_lines(fig1, float(fig1.times[0]))
    assert len(early) == 2 * 4  # only the future poses exist at the very start


def test_timing_diagram_layout_maps_time_to_pixels_and_back(fig1):
    tr = fig1.track
    diagram = drawing.timing_diagram(tr.feet, tr.contact, tr.liftoff, origin=(60.0, 40.0), width=360.0,
                                     row_height=14.0, gap=4.0)
    assert diagram.rows == ("L", "R")
    x0, y0, x1, y1 = diagram.box
    assert (x0, y0, x1, y1) == (60.0, 40.0, 420.0, 72.0)  # two rows of 14 px and one 4 px gap
    # A bar spans its footprint's contact to lift-off, on its foot's row.
    span = tr.liftoff.max() - tr.contact.min()
    assert np.allclose(diagram.bars[:, 2] - diagram.bars[:, 0], (tr.liftoff - tr.contact) / span * 360.0)
    assert np.allclose(diagram.bars[:, 1], 40.0 + 18.0 * (tr.feet == "L"))  # left above right, as a plot reads
    assert [diagram.rows[r] for r in diagram.bar_rows] == list(tr.feet)
    # Clicking on a bar's left end gives that footprint's contact time; clicks are clamped to the track.
    for i in (0, 5, 11):
        assert diagram.time_at(diagram.bars[i, 0]) == pytest.approx(tr.contact[i])
        assert diagram.x_of(tr.contact[i]) == pytest.approx(diagram.bars[i, 0])
    assert diagram.time_at(0.0) == tr.contact.min() and diagram.time_at(1e4) == tr.liftoff.max()
    assert diagram.contains(100.0, 50.0) and not diagram.contains(100.0, 200.0) and not diagram.contains(10.0, 50.0)
    # The quick check before reading any track admits every pixel of any diagram, and not the rest of the view.
    for x, y in [(b[0], b[1]) for b in diagram.bars] + [(b[2], b[3]) for b in diagram.bars]:
        assert drawing.may_be_on_timing_diagram(x, y)
    assert not drawing.may_be_on_timing_diagram(600.0, 300.0) and not drawing.may_be_on_timing_diagram(100.0, 400.0)
    # The bars as triangles to fill: two per bar, covering exactly its rectangle, in its foot's colour.
    verts, colors = diagram.bar_triangles
    assert verts.shape == (6 * len(tr), 2) and colors.shape == (6 * len(tr), 4)
    for i in (0, 5, 11):
        corners = verts[6 * i:6 * i + 6]
        assert np.allclose(corners.min(axis=0), diagram.bars[i, :2]) and np.allclose(corners.max(axis=0), diagram.bars[i, 2:])
        area = sum(0.5 * abs(np.cross(t[1] - t[0], t[2] - t[0])) for t in corners.reshape(2, 3, 2))
        assert area == pytest.approx((diagram.bars[i, 2] - diagram.bars[i, 0]) * (diagram.bars[i, 3] - diagram.bars[i, 1]))
        assert np.all(colors[6 * i:6 * i + 6] == drawing.foot_color(tr.feet[i]))
    assert diagram.bar_triangles is diagram.bar_triangles  # made once


def test_current_frame_markers_on_com_hips_and_feet(fig1):
    i = len(fig1.times) // 3
    now = 0.5 * (fig1.times[i] + fig1.times[i + 1])  # between two samples: interpolated
    segments, colors = drawing.frame_markers(fig1, now, size=0.1)
    assert segments.shape == ((1 + 2 + 2) * 3, 2, 3) and colors.shape == (15, 4)
    centres = segments.mean(axis=1)[::3]
    expect = [0.5 * (a[i] + a[i + 1]) for a in (fig1.com, fig1.hips, fig1.feet)]
    assert np.allclose(centres, np.concatenate([expect[0][None], expect[1], expect[2]]))
    assert np.allclose(np.linalg.norm(segments[:, 1] - segments[:, 0], axis=1), 0.1)
    assert np.allclose(colors[:3], drawing.MARKER_COM)
    assert np.allclose(colors[3:6], drawing.foot_color("L")) and np.allclose(colors[9:12], drawing.foot_color("L"))
    assert len(drawing.frame_markers(fig1, fig1.times[-1] + 1.0)[0]) == 0  # after the motion: none


def test_quadruped_timing_diagram_has_four_labelled_rows_hind_pair_above_fore(gallop):
    """Issue 18 point 5: a row per foot as Hildebrand's gait diagrams, top to bottom LH, RH, LF, RF (hind pair
    then fore pair, left above right), each labelled with its foot's name in its colour; each bar one
    footprint's stance, its contact to its lift-off."""
    tr = gallop.track
    rows, table = drawing.timing_bars(tr.feet, tr.contact, tr.liftoff)
    assert rows == ["LH", "RH", "LF", "RF"] and table.shape == (len(tr), 3)
    assert [rows[int(r)] for r in table[:, 0]] == list(tr.feet)
    assert np.array_equal(table[:, 1], tr.contact) and np.array_equal(table[:, 2], tr.liftoff)

    diagram = drawing.timing_diagram(tr.feet, tr.contact, tr.liftoff, rows=gallop.character.feet)
    assert diagram.rows == ("LH", "RH", "LF", "RF")
    x0, y0, x1, y1 = diagram.box
    assert (x0, y0, x1, y1) == (60.0, 40.0, 420.0, 40.0 + 4 * 14.0 + 3 * 4.0)
    bottoms = {diagram.rows[r]: b for r, b in zip(diagram.bar_rows, diagram.bars[:, 1])}
    assert bottoms == {"LH": 94.0, "RH": 76.0, "LF": 58.0, "RF": 40.0}  # y up: the first row on top
    assert np.allclose(diagram.bars[:, 3] - diagram.bars[:, 1], 14.0)
    assert [diagram.rows[r] for r in diagram.bar_rows] == list(tr.feet)
    for i in range(len(tr)):  # a bar spans exactly its footprint's stance, in the diagram's time
        assert diagram.time_at(diagram.bars[i, 0]) == pytest.approx(tr.contact[i])
        assert diagram.time_at(diagram.bars[i, 2]) == pytest.approx(tr.liftoff[i])
    for x, y in diagram.bars.reshape(-1, 2):  # a click anywhere on the four rows can scrub
        assert drawing.may_be_on_timing_diagram(x, y)
    # Labels: the foot's name left of the diagram, centred on its row, in its foot's colour.
    assert [label[0] for label in diagram.labels] == ["LH", "RH", "LF", "RF"]
    for name, x, y, color in diagram.labels:
        assert x == x0 - drawing.LABEL_GAP and y == bottoms[name] + 7.0 and color == drawing.foot_color(name)
    # Four distinct colours, the bars' those of their feet; the hind pair's the biped's left and right.
    colors = {f: drawing.foot_color(f) for f in QUADRUPED_FEET}
    assert len(set(colors.values())) == 4 and drawing.PHASE_COLORS["other"] not in colors.values()
    assert colors["LH"] == drawing.foot_color("L") and colors["RH"] == drawing.foot_color("R")
    assert np.array_equal(drawing.foot_colors(tr.feet), [colors[f] for f in tr.feet])
    _verts, bar_colors = diagram.bar_triangles
    assert np.array_equal(bar_colors[::6], [colors[f] for f in tr.feet])


def test_every_foot_of_the_character_has_a_row_even_without_footprints(gallop):
    """A quadruped track being laid one footprint at a time keeps its four rows (the character's feet):
    the rows do not jump as feet get their first footprint."""
    tr = gallop.track
    some = tr.feet != "RF"
    diagram = drawing.timing_diagram(tr.feet[some], tr.contact[some], tr.liftoff[some], rows=QUADRUPED_FEET)
    assert diagram.rows == ("LH", "RH", "LF", "RF") and set(diagram.bar_rows) == {0, 1, 2}
    alone = drawing.timing_diagram(tr.feet[some], tr.contact[some], tr.liftoff[some])
    assert alone.rows == ("LH", "RH", "LF")  # without the character: the feet with footprints


def test_timing_triangles_are_the_bars_and_the_current_frame(gallop):
    tr = gallop.track
    diagram = drawing.timing_diagram(tr.feet, tr.contact, tr.liftoff)
    now = 0.5 * (tr.contact.min() + tr.liftoff.max())
    verts, colors = diagram.triangles(now)
    assert verts.shape == (6 * len(tr) + 6, 2) and colors.shape == (6 * len(tr) + 6, 4)
    assert np.array_equal(verts[:-6], diagram.bar_triangles[0]) and np.all(colors[-6:] == 1.0)
    cursor = verts[-6:]
    assert np.allclose(cursor[:, 0].mean(), diagram.x_of(now)) and np.ptp(cursor[:, 0]) == 2.0
    assert cursor[:, 1].min() == diagram.box[1] - 4.0 and cursor[:, 1].max() == diagram.box[3] + 4.0


def test_mass_paths_are_the_body_points_coloured_by_their_own_pair_of_legs(gallop):
    """Issue 18 point 5: the hind and fore mass paths are the motion's body points, sample to sample, each
    segment coloured by the legs that carry that mass (Torkos §4.3: hind legs the hind mass, fore legs the
    fore): one down, its foot's colour; both, the double-stance colour; neither, the flight colour."""
    body = two_mass.body_of(gallop.character)  # the legs the solver gives each mass, in body_points' order
    assert BODY_POINTS == ("hind", "fore")
    assert [tuple(gallop.character.feet[i] for i in legs) for legs in (body.hind_legs, body.fore_legs)] == list(
        drawing.MASS_LEGS)
    n = len(gallop.times) - 1
    segments, colors = drawing.mass_paths(gallop.body_points, gallop.contact, gallop.character.feet)
    assert segments.shape == (2 * n, 2, 3) and colors.shape == (2 * n, 4)
    for mass, legs in enumerate(drawing.MASS_LEGS):
        path = segments[mass * n:(mass + 1) * n]
        assert np.array_equal(path[:, 0], gallop.body_points[:-1, mass])
        assert np.array_equal(path[:, 1], gallop.body_points[1:, mass])
        left, right = (gallop.contact[:-1, list(gallop.character.feet).index(f)] for f in legs)
        expect = {drawing.PHASE_COLORS["double"]: left & right, drawing.foot_color(legs[0]): left & ~right,
                  drawing.foot_color(legs[1]): right & ~left, drawing.PHASE_COLORS["flight"]: ~left & ~right}
        for color, mask in expect.items():
            assert mask.any(), (legs, color)  # a rotary gallop has all four for both pairs
            assert np.all(colors[mass * n:(mass + 1) * n][mask] == color)
    # The single stances name the mass: the hind path's colours are not the fore path's.
    assert not {tuple(c) for c in colors[:n]} & {tuple(c) for c in colors[n:]} - {
        drawing.PHASE_COLORS["double"], drawing.PHASE_COLORS["flight"]}
    # The COM path is unchanged beside them: flights pale blue, a quadruped's stances neutral.
    com, com_colors = drawing.com_path(gallop.com, gallop.contact, gallop.character.feet)
    assert np.array_equal(com[:, 0], gallop.com[:-1]) and len(com_colors) == n


def test_a_biped_has_no_mass_paths_and_its_diagram_two_rows(fig1):
    assert fig1.body_points.shape[1] == 0
    segments, colors = drawing.mass_paths(fig1.body_points, fig1.contact, fig1.character.feet)
    assert segments.shape == (0, 2, 3) and colors.shape == (0, 4)
    tr = fig1.track
    diagram = drawing.timing_diagram(tr.feet, tr.contact, tr.liftoff, rows=fig1.character.feet)
    assert diagram.rows == ("L", "R") and [label[0] for label in diagram.labels] == ["L", "R"]
    assert diagram.box == (60.0, 40.0, 420.0, 72.0)
