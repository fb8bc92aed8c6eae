"""Footprint authoring through the installed extension's operators, measured on the scene data."""

import json
import math
import os
import sys

import bpy
import numpy as np
import pytest
from mathutils import Vector, geometry

from blender_scenes import (angle_degrees, bezier_circle, displaced_terrain, footprint_objects, local_axes,
                            poly_line, raycast_down, stairs)
from scene_state import snapshot

ROOT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MM = 1e-3


def toe_heading_error(obj, tangent):
    """Degrees between the footprint's toe direction (local +Y, on the ground plane) and a tangent."""
    toe = local_axes(obj)[1][:2]
    return angle_degrees(toe, np.asarray(tangent)[:2])


def assert_on_terrain(objs):
    for obj in objs:
        location, normal = raycast_down(obj.location.x, obj.location.y)
        assert np.linalg.norm(np.array(obj.matrix_world.translation) - location) < MM, obj.name
        assert angle_degrees(local_axes(obj)[2], normal) < 1.0, obj.name


@pytest.fixture
def terrain(clean):
    return displaced_terrain()


def test_add_at_cursor_conforms_alternates_and_times_increase(terrain):
    bpy.ops.footprint.track_new(name="Walk", terrain=terrain.name)
    spots = [(0.0, 0.0), (0.15, 0.65), (-0.05, 1.3), (0.2, 1.95), (0.0, 2.6)]
    for x, y in spots:
        bpy.context.scene.cursor.location = (x, y, 5.0)
        assert bpy.ops.footprint.add_at_cursor() == {"FINISHED"}
    objs = footprint_objects()
    assert [o.footprint.foot for o in objs] == ["L", "R", "L", "R", "L"]
    assert np.allclose([(o.location.x, o.location.y) for o in objs], spots, atol=1e-6)
    assert_on_terrain(objs)
    contacts = [o.footprint.contact for o in objs]
    assert all(b > a for a, b in zip(contacts, contacts[1:]))
    assert all(o.footprint.liftoff > o.footprint.contact for o in objs)
    # Walking timing: each footprint's stance outlasts its step, so both feet share the ground for a while.
    assert all(a.footprint.liftoff > b.footprint.contact for a, b in zip(objs, objs[1:]))


def test_click_on_terrain_adds_and_a_miss_changes_nothing(terrain):
    bpy.ops.footprint.track_new(name="Clicks", terrain=terrain.name)
    origin = Vector((1.0, 0.5, 20.0))
    direction = Vector((0.05, 0.02, -1.0)).normalized()
    assert bpy.ops.footprint.add_on_terrain(ray_origin=origin, ray_direction=direction) == {"FINISHED"}
    (obj,) = footprint_objects()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    hit, location, normal, *_ = bpy.context.scene.ray_cast(depsgraph, origin, direction)
    assert hit and (obj.matrix_world.translation - location).length < MM
    assert angle_degrees(local_axes(obj)[2], normal) < 1.0
    before = snapshot()
    with pytest.raises(RuntimeError, match="No terrain under the cursor"):
        bpy.ops.footprint.add_on_terrain(ray_origin=(300.0, 0.0, 20.0), ray_direction=(0.0, 0.0, -1.0))
    assert snapshot() == before


def test_generate_along_circle_headings_feet_and_sides(clean):
    circle = bezier_circle(radius=5.0)
    result = bpy.ops.footprint.generate_along_curve(curve=circle.name, step_length=0.7, step_width=0.3, fill=True)
    assert result == {"FINISHED"}
    objs = footprint_objects()
    n_expected = int(2 * math.pi * 5.0 / 0.7) + 1
    assert abs(len(objs) - n_expected) <= 1
    assert [o.footprint.foot for o in objs] == ["L", "R"] * (len(objs) // 2) + ["L"] * (len(objs) % 2)
    positions = np.array([tuple(o.location) for o in objs])
    ccw = np.cross(positions[0, :2], positions[2, :2]) > 0  # direction of travel around the circle
    for obj, p in zip(objs, positions):
        tangent = np.array([-p[1], p[0]]) * (1 if ccw else -1)
        assert toe_heading_error(obj, tangent) < 1.0, obj.name
        radius = np.linalg.norm(p[:2])
        inward = (obj.footprint.foot == "L") == bool(ccw)  # the left foot is on the inside of a left turn
        assert radius == pytest.approx(5.0 - 0.15 if inward else 5.0 + 0.15, abs=0.01), obj.name
    contacts = [o.footprint.contact for o in objs]
    assert all(b > a for a, b in zip(contacts, contacts[1:]))


def dense_bezier(obj, resolution=2000):
    spline = obj.data.splines[0]
    m = obj.matrix_world
    pts = spline.bezier_points
    samples = []
    for a, b in zip(pts[:-1], pts[1:]):
        samples += geometry.interpolate_bezier(m @ a.co, m @ a.handle_right, m @ b.handle_left, m @ b.co, resolution)
    return np.array([tuple(v) for v in samples])


def s_curve(name="S"):
    curve = bpy.data.curves.new(name, "CURVE")
    spline = curve.splines.new("BEZIER")
    spline.bezier_points.add(2)
    for bp, co in zip(spline.bezier_points, [(-3.0, -4.0, 0.0), (1.0, 0.0, 0.0), (-2.0, 4.0, 0.0)]):
        bp.co = co
        bp.handle_left_type = bp.handle_right_type = "AUTO"
    obj = bpy.data.objects.new(name, curve)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def test_generate_on_displaced_terrain_conforms_and_follows_tangent(terrain):
    path = s_curve()
    assert bpy.ops.footprint.generate_along_curve(curve=path.name, terrain=terrain.name, step_length=0.6,
                                                  step_width=0.25) == {"FINISHED"}
    objs = footprint_objects()
    assert len(objs) > 10
    assert_on_terrain(objs)
    # The terrain is really displaced: heights vary and footprints tilt.
    assert np.ptp([o.location.z for o in objs]) > 0.1
    assert max(angle_degrees(local_axes(o)[2], (0, 0, 1)) for o in objs) > 5.0
    dense = dense_bezier(path)
    for obj in objs:
        k = int(np.argmin(np.linalg.norm(dense[:, :2] - np.array(obj.location)[:2], axis=1)))
        tangent = dense[min(k + 1, len(dense) - 1)] - dense[max(k - 1, 0)]
        assert toe_heading_error(obj, tangent) < 1.0, obj.name


def test_run_and_hop_gaits_have_flight_phases(clean):
    line = poly_line("Line", [(0, 0, 0), (0, 10, 0)])
    bpy.ops.footprint.generate_along_curve(curve=line.name, step_length=1.4, gait="run")
    objs = footprint_objects()
    assert all(a.footprint.liftoff < b.footprint.contact for a, b in zip(objs, objs[1:]))  # flight
    bpy.ops.footprint.generate_along_curve(curve=line.name, step_length=0.8, gait="hop")
    objs = footprint_objects()
    pairs = list(zip(objs[0::2], objs[1::2]))
    assert all(a.footprint.contact == b.footprint.contact and a.footprint.foot != b.footprint.foot for a, b in pairs)
    assert all(p[0].footprint.liftoff < q[0].footprint.contact for p, q in zip(pairs, pairs[1:]))


def test_resnap_after_terrain_edit_and_missing_terrain_reported(terrain):
    path = s_curve()
    bpy.ops.footprint.generate_along_curve(curve=path.name, terrain=terrain.name)
    terrain.modifiers["Displace"].strength = 1.4
    terrain.location.z += 0.3
    bpy.context.view_layer.update()
    assert bpy.ops.footprint.conform() == {"FINISHED"}
    assert_on_terrain(footprint_objects())
    stray = footprint_objects()[3]
    stray.location.x += 100.0
    before = snapshot()
    with pytest.raises(RuntimeError, match=f"no terrain under {stray.name}"):
        bpy.ops.footprint.conform()
    assert snapshot() == before


def test_timing_daggers_edit_stance_and_step_time(clean):
    line = poly_line("Line", [(0, 0, 0), (0, 5, 0)])
    bpy.ops.footprint.generate_along_curve(curve=line.name, step_length=0.7)
    objs = footprint_objects()
    first, second = objs[0], objs[1]
    assert first.footprint.stance_duration == pytest.approx(first.footprint.liftoff - first.footprint.contact)
    assert first.footprint.step_time == pytest.approx(second.footprint.contact - first.footprint.contact)
    first.footprint.stance_duration = 0.8
    assert first.footprint.liftoff == pytest.approx(first.footprint.contact + 0.8)
    later_before = [o.footprint.contact for o in objs[1:]]
    delta = 0.1
    first.footprint.step_time = first.footprint.step_time + delta
    assert [o.footprint.contact for o in objs[1:]] == pytest.approx([c + delta for c in later_before])
    # A step time too short to be valid is clamped: no foot lands before it left its previous footprint.
    objs[2].footprint.step_time = 0.0
    assert objs[3].footprint.contact >= objs[1].footprint.liftoff - 1e-6


def select(objs):
    for o in bpy.context.view_layer.objects:
        o.select_set(o in objs)


def test_retime_mirror_delete(clean):
    line = poly_line("Line", [(0, 0, 0), (0, 6, 0)])
    bpy.ops.footprint.generate_along_curve(curve=line.name, step_length=0.7)
    objs = footprint_objects()
    times = [(o.footprint.contact, o.footprint.liftoff) for o in objs]
    select(objs[4:])
    pivot = times[4][0]
    assert bpy.ops.footprint.retime(scale=2.0, offset=0.5) == {"FINISHED"}
    for o, (c, l) in zip(objs[4:], times[4:]):
        assert o.footprint.contact == pytest.approx(pivot + 2 * (c - pivot) + 0.5, abs=1e-5)
        assert o.footprint.liftoff == pytest.approx(pivot + 2 * (l - pivot) + 0.5, abs=1e-5)

    before = snapshot()
    with pytest.raises(RuntimeError, match="liftoff .* is not after contact"):
        bpy.ops.footprint.retime(scale=-1.0)
    assert snapshot() == before

    feet = [o.footprint.foot for o in objs]
    xs = [o.location.x for o in objs]
    select(objs)
    assert bpy.ops.footprint.mirror() == {"FINISHED"}
    assert [o.footprint.foot for o in objs] == [{"L": "R", "R": "L"}[f] for f in feet]
    centre = float(np.mean(xs))
    assert [o.location.x for o in objs] == pytest.approx([2 * centre - x for x in xs], abs=1e-5)

    objs = footprint_objects()
    contacts = [o.footprint.contact for o in objs]
    names_after = [o.name for o in objs[4:]]
    feet = [o.footprint.foot for o in objs]
    select(objs[2:4])
    gap = contacts[4] - contacts[2]
    assert bpy.ops.footprint.delete(close_gap=True) == {"FINISHED"}
    remaining = footprint_objects()
    assert len(remaining) == len(objs) - 2
    shifted = {o.name: o.footprint.contact for o in remaining}
    assert [shifted[n] for n in names_after] == pytest.approx([c - gap for c in contacts[4:]], abs=1e-5)
    assert [o.footprint.foot for o in remaining] == feet[:2] + feet[4:]


def test_json_round_trip_is_exact(terrain, tmp_path):
    bpy.ops.footprint.generate_along_curve(curve=s_curve().name, terrain=terrain.name, step_length=0.55)
    original = footprint_objects()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert bpy.ops.footprint.export_json(filepath=str(first)) == {"FINISHED"}
    assert bpy.ops.footprint.import_json(filepath=str(first)) == {"FINISHED"}
    imported = footprint_objects()
    assert imported[0].users_collection[0] != original[0].users_collection[0]
    assert bpy.ops.footprint.export_json(filepath=str(second)) == {"FINISHED"}
    assert first.read_text() == second.read_text()
    for a, b in zip(original, imported):
        assert tuple(a.location) == tuple(b.location)
        assert a.rotation_euler.z == b.rotation_euler.z
        assert (a.footprint.foot, a.footprint.contact, a.footprint.liftoff) == \
            (b.footprint.foot, b.footprint.contact, b.footprint.liftoff)
    doc = json.loads(first.read_text())
    assert doc["format"] == "footprint-track" and doc["version"] == 1 and doc["character"] == "human"
    assert len(doc["footprints"]) == len(original)
    # Every number is the shortest decimal for Blender's float32: short enough to read.
    assert max(len(repr(fp["contact"])) for fp in doc["footprints"]) <= 12


def test_import_fills_heights_from_terrain_and_keeps_explicit_character(terrain, tmp_path):
    doc = {
        "format": "footprint-track", "version": 1,
        "character": {"preset": "bird", "leg_length_nominal": 0.3, "leg_length_max": 0.36},
        "footprints": [
            {"foot": "L", "position": [0.1, 0.2], "heading": 10.0, "contact": 0.0, "liftoff": 0.5},
            {"foot": "R", "position": [0.3, 0.5], "heading": 10.0, "contact": 0.3, "liftoff": 0.8},
        ],
    }
    bpy.ops.footprint.track_new(name="Host", terrain=terrain.name)
    path = tmp_path / "bird.json"
    path.write_text(json.dumps(doc))
    assert bpy.ops.footprint.import_json(filepath=str(path)) == {"FINISHED"}
    objs = footprint_objects()
    assert_on_terrain(objs)
    assert objs[0].rotation_euler.z == pytest.approx(math.radians(10.0))
    settings = bpy.context.scene.footprint.active_track.footprint_track
    assert json.loads(settings.character_json)["leg_length_max"] == 0.36
    out = tmp_path / "out.json"
    bpy.ops.footprint.export_json(filepath=str(out))
    assert json.loads(out.read_text())["character"] == doc["character"]


def test_runner_run_along_a_curve_takes_its_stride_from_the_equations(clean):
    circle = bezier_circle(radius=8.0)
    assert bpy.ops.footprint.generate_along_curve(curve=circle.name, runner=True, speed_kmh=14.0,
                                                  step_width=0.15) == {"FINISHED"}
    objs = footprint_objects()
    centre = np.array([(o.location.x, o.location.y) for o in objs])
    gaps = np.linalg.norm(np.diff(centre, axis=0), axis=1)
    v = 14.0 * 1000 / 60
    step_length = 0.1394 + 0.00465 * v  # B&C eq. 2
    assert np.median(gaps) == pytest.approx(step_length, rel=0.02)
    contacts = np.array([o.footprint.contact for o in objs])
    assert np.allclose(np.diff(contacts), 60.0 / (v / step_length), atol=1e-4)  # one step every 1 / sf
    assert all(a.footprint.liftoff < b.footprint.contact for a, b in zip(objs, objs[1:]))  # flights
    assert bpy.context.scene.footprint.active_track.footprint_track.gait == "run"


def test_runner_run_along_a_curve_starts_and_stops_standing(addon, clean):
    line = s_curve()
    assert bpy.ops.footprint.generate_along_curve(curve=line.name, runner=True, speed_kmh=12.0,
                                                  run_start=True, run_stop=True) == {"FINISHED"}
    objs = footprint_objects()
    contacts = [o.footprint.contact for o in objs]
    assert contacts[0] == contacts[1]  # both feet down at the start
    assert objs[-1].footprint.liftoff == objs[-2].footprint.liftoff  # and at the end
    gaps = np.linalg.norm(np.diff(np.array([tuple(o.location)[:2] for o in objs[1:-1]]), axis=0), axis=1)
    assert gaps[0] < gaps[len(gaps) // 2] > gaps[-1]  # accelerating, running, slowing down
    # The COM solver turns it into motion: flights are ballistic.
    coll = bpy.context.scene.footprint.active_track
    scene_io = sys.modules[f"{addon}.footprint_addon.scene_io"]
    biped = sys.modules[f"{addon}.solver.biped"]
    motion = biped.solve(scene_io.read_track(coll))
    assert motion.report["flight"]["samples"] > 0
    assert motion.report["flight"]["vertical_acceleration_error"] <= 0.02


def test_overlay_geometry_for_a_track_and_no_drawing_headless(addon, clean):
    fig1 = os.path.join(ROOT_DIR, "tests", "data", "fig1.json")
    assert bpy.ops.footprint.import_json(filepath=fig1) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    overlay = sys.modules[f"{addon}.footprint_addon.ui.overlay"]
    scene_io = sys.modules[f"{addon}.footprint_addon.scene_io"]
    biped = sys.modules[f"{addon}.solver.biped"]
    drawing = sys.modules[f"{addon}.solver.drawing"]
    motion = biped.solve(scene_io.read_track(coll))
    lines, colors = overlay.overlay_lines(coll, motion)
    outline_segments = 12 * 16
    assert lines.shape == (outline_segments + 23 + len(motion.times) - 1, 2, 3) and colors.shape[0] == len(lines)
    com = colors[outline_segments + 23:]
    flight = ~motion.contact[:-1].any(axis=1)
    assert flight.any() and np.allclose(com[flight], drawing.PHASE_COLORS["flight"])
    assert overlay._handlers == []  # background mode: nothing is drawn, nothing registered


def test_the_overlay_is_laid_out_again_only_when_its_track_changes(addon, clean):
    """The overlay redraws every frame from a revision the depsgraph handler bumps (reading every
    footprint's signature cost 13 ms per redraw at 1000 footprints): the same layout while nothing
    changes, a new one after a move, a tilt, a retime, a footprint deleted, another character (the outlines'
    size), or a new solve."""
    fig1 = os.path.join(ROOT_DIR, "tests", "data", "fig1.json")
    assert bpy.ops.footprint.import_json(filepath=fig1) == {"FINISHED"}
    coll = bpy.context.scene.footprint.active_track
    overlay = sys.modules[f"{addon}.footprint_addon.ui.overlay"]
    solved = sys.modules[f"{addon}.footprint_addon.solved"]
    objs = footprint_objects(coll)
    diagram = overlay.timing_diagram(bpy.context)
    objs[3].select_set(True)
    bpy.context.view_layer.update()
    assert overlay.timing_diagram(bpy.context) is diagram  # nothing the overlay shows changed

    changes = [("move", lambda: setattr(objs[0].location, "x", 0.3)),
               ("tilt", lambda: setattr(objs[1].rotation_euler, "x", 0.2)),
               ("retime", lambda: setattr(objs[2].footprint, "liftoff", objs[2].footprint.liftoff + 0.05)),
               ("delete", lambda: bpy.data.objects.remove(objs[11])),
               ("character", lambda: setattr(coll.footprint_track, "character", "bird")),
               ("solve", lambda: solved.record(coll, None, False))]
    for name, change in changes:
        revision = solved.revision(coll)
        change()
        bpy.context.view_layer.update()
        assert solved.revision(coll) != revision, name
        again = overlay.timing_diagram(bpy.context)
        assert again is not diagram, name
        diagram = again
    assert len(diagram.bars) == 11  # laid out from the track as it is now


def test_clicking_the_timing_diagram_sets_the_frame(addon, clean):
    fig1 = os.path.join(ROOT_DIR, "tests", "data", "fig1.json")
    assert bpy.ops.footprint.import_json(filepath=fig1) == {"FINISHED"}
    scene = bpy.context.scene
    coll = scene.footprint.active_track
    overlay = sys.modules[f"{addon}.footprint_addon.ui.overlay"]
    scene_io = sys.modules[f"{addon}.footprint_addon.scene_io"]
    track = scene_io.read_track(coll)
    diagram = overlay.timing_diagram(bpy.context)
    fps = scene.render.fps / scene.render.fps_base
    for i in (3, 8):  # a click on the left end of a contact bar lands on that footprint's contact frame
        x, y = diagram.bars[i, 0], 0.5 * (diagram.bars[i, 1] + diagram.bars[i, 3])
        assert bpy.ops.footprint.scrub_timing(x=x, y=y) == {"FINISHED"}
        assert scene.frame_current == round(scene.frame_start + track.contact[i] * fps)
    before = scene.frame_current
    with pytest.raises(RuntimeError, match="not on the timing diagram"):
        bpy.ops.footprint.scrub_timing(x=diagram.box[0], y=diagram.box[3] + 50.0)
    assert scene.frame_current == before
    coll.footprint_track.show_overlay = False  # no overlay, no diagram to click
    with pytest.raises(RuntimeError, match="No timing diagram"):
        bpy.ops.footprint.scrub_timing(x=x, y=y)


def heading_error_degrees(headings, directions):
    """|heading - direction of travel| in degrees, wrapped to [0, 180]."""
    travel = np.arctan2(-directions[..., 0], directions[..., 1])
    return np.degrees(np.abs(np.angle(np.exp(1j * (np.asarray(headings) - travel)))))


def test_footprints_turn_at_a_poly_corner_and_the_body_follows(addon, clean):
    """A Poly curve with one 90 degree corner, walked: each footprint points where the walk goes there,
    the direction from the footprint before it to the one after it (the centre line through it: left and
    right offsets cancel), 0.9 degrees off on average; the vertex tangents interpolated along whole
    segments crab-walked 20.6 on average, 38 at most. The solved body's yaw follows the COM's horizontal
    velocity averaged over a stride centred on each frame (the side-to-side sway over each stance foot
    cancels over a stride; against the instantaneous velocity even a straight walk is 6 degrees off):
    3.1 degrees off on average, 23.5 before."""
    corner = poly_line("Corner", [(0.0, 0.0, 0.0), (0.0, 5.0, 0.0), (5.0, 5.0, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve=corner.name, step_length=0.7, step_width=0.2,
                                                  gait="walk") == {"FINISHED"}
    objs = footprint_objects()
    positions = np.array([tuple(o.matrix_world.translation) for o in objs])
    toes = np.array([local_axes(o)[1] for o in objs])
    headings = np.arctan2(-toes[:, 0], toes[:, 1])
    errors = heading_error_degrees(headings[1:-1], positions[2:, :2] - positions[:-2, :2])
    assert errors.mean() <= 5.0 and errors.max() <= 15.0
    assert np.degrees(np.ptp(headings)) == pytest.approx(90.0, abs=0.01)  # it does turn the corner
    scene_io = sys.modules[f"{addon}.footprint_addon.scene_io"]
    biped = sys.modules[f"{addon}.solver.biped"]
    track = scene_io.read_track(bpy.context.scene.footprint.active_track)
    motion = biped.solve(track, scene_io.character_of(bpy.context.scene.footprint.active_track))
    stride = np.mean(track.contact[2:] - track.contact[:-2])
    t = motion.times

    def com_at(times):
        times = np.clip(times, t[0], t[-1])
        return np.stack([np.interp(times, t, motion.com[:, k]) for k in range(2)], axis=-1)

    yaw_errors = heading_error_degrees(motion.yaw, com_at(t + stride / 2) - com_at(t - stride / 2))
    assert yaw_errors.mean() <= 5.0


def sole_heights(obj, foot_length, beyond=0.0):
    """Terrain heights (Blender's own ray casts) under the heel, mid-foot and toe of a footprint, and
    beyond the heel and toe by that much."""
    toe = local_axes(obj)[1][:2]
    toe = toe / np.linalg.norm(toe)
    mid = np.array(obj.matrix_world.translation)[:2]
    along = [-foot_length / 2 - beyond, -foot_length / 2, 0.0, foot_length / 2, foot_length / 2 + beyond]
    return np.array([raycast_down(*(mid + a * toe))[0][2] for a in along])


def test_footprints_along_a_curve_land_on_stair_treads(addon, clean, capfd):
    """Up 6 steps (0.15 m rise, 0.30 m treads) at 0.65 m a step: footprints falling across a riser move
    along the path until the whole foot (0.26 m, and 5 mm beyond heel and toe) is on one tread, back
    rather than forward; before, four of them straddled a riser (toes 0.15 m up or heels in the air).
    Treads shorter than the foot: the footprints stay where they fall, and the warning names them."""
    character = sys.modules[f"{addon}.solver.character"]
    foot = character.preset("human").foot_length
    flight = stairs()
    path = poly_line("Up", [(0.0, -1.0, 0.0), (0.0, 5.5, 0.0)])
    assert bpy.ops.footprint.generate_along_curve(curve=path.name, terrain=flight.name, step_length=0.65,
                                                  step_width=0.2) == {"FINISHED"}
    objs = footprint_objects()
    ys = np.array([o.location.y for o in objs])
    assert np.all(np.diff(ys) > 0.2)  # still in order, steps apart
    spread = np.array([np.ptp(sole_heights(o, foot, beyond=0.005)) for o in objs])
    assert spread.max() <= MM, [o.name for o in objs if np.ptp(sole_heights(o, foot)) > MM]
    assert np.ptp([o.location.z for o in objs]) == pytest.approx(0.9)  # up the whole flight
    stations = -1.0 + 0.65 * np.arange(len(objs))
    moved = np.abs(ys - stations) > 1e-4
    assert moved.sum() >= 3 and np.all(ys[moved] < stations[moved])  # (these stairs: all moved back)
    # Treads of 0.2 m take no 0.26 m foot: a warning names the footprints left across a step.
    for obj in list(bpy.data.objects):
        if obj.type != "CURVE":
            bpy.data.objects.remove(obj)
    short = stairs("Short", tread=0.2)
    capfd.readouterr()
    assert bpy.ops.footprint.generate_along_curve(curve=path.name, terrain=short.name, step_length=0.65,
                                                  step_width=0.2) == {"FINISHED"}
    printed = capfd.readouterr()
    warned = [line for line in (printed.out + printed.err).splitlines() if line.startswith("Warning: ")]
    across = [o.name for o in footprint_objects() if np.ptp(sole_heights(o, foot)) > MM]
    assert len(warned) == 1 and across and "left across a step" in warned[0]
    assert warned[0].split(": ", 1)[1].split(": no tread")[0] == ", ".join(across)
