"""Bad input is refused with a message naming the culprit, leaving the scene as it was; undo restores."""

import json
import math

import bpy
import pytest

from blender_scenes import displaced_terrain, footprint_objects, poly_line
from scene_state import snapshot

GOOD = {
    "format": "footprint-track", "version": 1, "character": "human",
    "footprints": [
        {"foot": "L", "position": [0.0, 0.1, 0.0], "heading": 0.0, "contact": 0.0, "liftoff": 0.7},
        {"foot": "R", "position": [0.35, -0.1, 0.0], "heading": 0.0, "contact": 0.45, "liftoff": 1.15},
        {"foot": "L", "position": [0.7, 0.1, 0.0], "heading": 0.0, "contact": 0.9, "liftoff": 1.6},
    ],
}


def variant(changes):
    doc = json.loads(json.dumps(GOOD))
    for (index, field), value in changes.items():
        doc["footprints"][index][field] = value
    return json.dumps(doc)


BAD_FILES = {
    "malformed": ('{"format": "footprint-track", "footprints": [', "malformed JSON at line 1"),
    "foreign": (json.dumps({"asset": {"version": "2.0"}, "scenes": []}), "not a footprint track"),
    "overlap": (variant({(2, "contact"): 0.5}), "footprint 2: foot L touches down at 0.5 s while still on footprint 0"),
    "reversed": (variant({(1, "liftoff"): 0.45}), "footprint 1: liftoff 0.45 s is not after contact 0.45 s"),
    "nan": (variant({(1, "contact"): float("nan")}), "footprint 1: contact is not a finite number"),
    "infinite": (variant({(0, "position"): [1e400, 0.0, 0.0]}), "footprint 0: position is not a finite number"),
    "unknown_preset": (json.dumps({**GOOD, "character": "elephant"}), "unknown character preset 'elephant'"),
    "unknown_foot": (variant({(1, "foot"): "X"}), "footprint 1: unknown foot 'X'"),
    "missing_field": (json.dumps({**GOOD, "footprints": [{"foot": "L"}]}), "footprint 0: missing field 'position'"),
    "absurd_position": (variant({(2, "position"): [3e9, 0.0, 0.0]}),
                        "footprint 2: position 3e+09 m is beyond the limit of 1e+06 m"),
    "absurd_time": (variant({(2, "liftoff"): 5e7}), "footprint 2: liftoff 5e+07 s is beyond the limit of 1e+06 s"),
}


@pytest.fixture
def scene_with_track(clean, tmp_path):
    terrain = displaced_terrain()
    line = poly_line("Line", [(0, -2, 0), (0, 2, 0)])
    bpy.ops.footprint.generate_along_curve(curve=line.name, terrain=terrain.name)
    return tmp_path


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_track_file_is_refused_and_scene_unchanged(scene_with_track, case):
    text, message = BAD_FILES[case]
    path = scene_with_track / f"{case}.json"
    path.write_text(text)
    before = snapshot()
    with pytest.raises(RuntimeError) as err:
        bpy.ops.footprint.import_json(filepath=str(path))
    assert message in str(err.value)
    assert str(path) in str(err.value)
    assert snapshot() == before
    assert path.read_text() == text


def test_missing_file_is_refused(scene_with_track):
    before = snapshot()
    with pytest.raises(RuntimeError, match="cannot read the track file"):
        bpy.ops.footprint.import_json(filepath=str(scene_with_track / "nowhere.json"))
    assert snapshot() == before


def test_zero_length_curve_is_refused(scene_with_track):
    dot = poly_line("Dot", [(1.0, 1.0, 0.0), (1.0, 1.0, 0.0)])
    before = snapshot()
    with pytest.raises(RuntimeError, match="Curve 'Dot': the path has zero length"):
        bpy.ops.footprint.generate_along_curve(curve=dot.name)
    assert snapshot() == before


def test_path_leaving_the_terrain_is_refused(scene_with_track):
    far = poly_line("Far", [(0.0, 0.0, 0.0), (0.0, 40.0, 0.0)])
    terrain = bpy.data.objects["Terrain"]
    before = snapshot()
    with pytest.raises(RuntimeError, match="no terrain under step"):
        bpy.ops.footprint.generate_along_curve(curve=far.name, terrain=terrain.name)
    assert snapshot() == before


def test_export_of_an_invalid_track_writes_nothing(scene_with_track):
    objs = footprint_objects()
    objs[2].footprint.contact = objs[0].footprint.contact + 0.01  # same foot as footprint 0, overlapping
    target = scene_with_track / "existing.json"
    target.write_text("precious")
    with pytest.raises(RuntimeError, match=f"footprint '{objs[2].name}'.*touches down"):
        bpy.ops.footprint.export_json(filepath=str(target))
    assert target.read_text() == "precious"
    assert [p.name for p in scene_with_track.iterdir()] == ["existing.json"]


def test_generated_track_validates_timing_on_edit(scene_with_track):
    objs = footprint_objects()
    objs[3].select_set(True)  # the second right footprint, moved back onto the first one's stance
    before = snapshot()
    with pytest.raises(RuntimeError, match=f"footprint '{objs[3].name}'.*touches down .* while still on"):
        bpy.ops.footprint.retime(offset=objs[1].footprint.contact - objs[3].footprint.contact + 0.01)
    assert snapshot() == before


def test_unknown_terrain_and_no_track_are_refused(clean):
    before = snapshot()
    with pytest.raises(RuntimeError, match="Terrain 'Nope' is not a mesh object"):
        bpy.ops.footprint.track_new(terrain="Nope")
    assert not bpy.ops.footprint.add_at_cursor.poll()  # no active track: the tools are greyed out
    assert snapshot() == before


def run_and_undo(operator, **kwargs):
    """Run an operator between undo steps, as Blender's UI does for UNDO operators, then undo and redo.

    Blender-as-a-module pushes no undo step by itself after an operator (it has no UI event loop), so
    the test pushes it where the UI would; what is checked is that everything the operator changed lives
    in Blender data that undo restores exactly.
    """
    bpy.ops.ed.undo_push(message="before")
    before = snapshot()
    assert operator(**kwargs) == {"FINISHED"}
    after = snapshot()
    assert after != before
    bpy.ops.ed.undo_push(message=operator.idname_py())
    bpy.ops.ed.undo()
    assert snapshot() == before
    bpy.ops.ed.redo()
    assert snapshot() == after
    bpy.ops.ed.undo()


def select_footprints(indices):
    """Select footprints by time-order index (objects are looked up afresh: undo replaces them)."""
    objs = footprint_objects()
    for i, o in enumerate(objs):
        o.select_set(i in indices)


def test_every_scene_operator_undoes(scene_with_track):
    path = scene_with_track / "round.json"
    path.write_text(json.dumps(GOOD))
    bpy.context.scene.cursor.location = (0.3, 2.6, 0.0)
    run_and_undo(bpy.ops.footprint.add_at_cursor)
    run_and_undo(bpy.ops.footprint.add_on_terrain, ray_origin=(0.1, 2.7, 10.0), ray_direction=(0, 0, -1))
    select_footprints({1, 2})
    run_and_undo(bpy.ops.footprint.retime, scale=1.1, offset=0.1)
    run_and_undo(bpy.ops.footprint.delete, close_gap=True)
    select_footprints(set(range(100)))
    run_and_undo(bpy.ops.footprint.mirror)
    run_and_undo(bpy.ops.footprint.import_json, filepath=str(path))
    run_and_undo(bpy.ops.footprint.generate_along_curve, curve="Line", step_length=0.5)
    run_and_undo(bpy.ops.footprint.generate_along_curve, curve="Line", step_length=0.5, new_track=False)
    run_and_undo(bpy.ops.footprint.track_new, name="Other")
    bpy.data.objects["Terrain"].modifiers["Displace"].strength = 0.9
    bpy.context.view_layer.update()
    run_and_undo(bpy.ops.footprint.conform)
    assert math.isclose(bpy.data.objects["Terrain"].modifiers["Displace"].strength, 0.9, rel_tol=1e-6)
