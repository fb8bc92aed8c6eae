"""The command line: `python -m footprint_locomotion ...` runs the same code as `blender --command footprint`."""

import importlib.util
import json
import subprocess
import sys

import bpy
import numpy as np
import pytest

from blender_scenes import footprint_objects, raycast_down
from conftest import ROOT

needs_module_install = pytest.mark.skipif(
    importlib.util.find_spec("footprint_locomotion") is None,
    reason="python -m footprint_locomotion needs the development install (./dev sets it up)",
)


def run_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "footprint_locomotion", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@needs_module_install
def test_demo_saves_blend_and_renders_png(tmp_path, clean):
    proc = run_cli("demo", "--output-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    blend, png = tmp_path / "demo.blend", tmp_path / "demo.png"
    assert blend.stat().st_size > 0 and png.stat().st_size > 0
    image = bpy.data.images.load(str(png))
    assert tuple(image.size) == (1280, 720)
    pixels = np.array(image.pixels[:]).reshape(720, 1280, 4)
    assert pixels[..., :3].std() > 0.05  # a picture, not a blank frame
    bpy.data.images.remove(image)
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    track = bpy.context.scene.footprint.active_track
    objs = footprint_objects(track)
    assert len(objs) > 20
    assert [o.footprint.foot for o in objs[:4]] == ["L", "R", "L", "R"]
    heights = [o.location.z for o in objs]
    assert max(heights) - min(heights) > 1.5  # up the slope and the stairs
    for obj in objs:
        location, _normal = raycast_down(obj.location.x, obj.location.y, only=track.footprint_track.terrain)
        assert abs(location[2] - obj.location.z) < 1e-3, obj.name


@needs_module_install
def test_validate_command_reports_bad_tracks(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"format": "footprint-track", "version": 1, "footprints": [
        {"foot": "L", "position": [0, 0], "contact": 0, "liftoff": 0.5}]}))
    proc = run_cli("validate", str(good))
    assert proc.returncode == 0 and "1 footprints" in proc.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(good.read_text().replace('"liftoff": 0.5', '"liftoff": -1'))
    proc = run_cli("validate", str(bad))
    assert proc.returncode == 1 and "footprint 0: liftoff" in proc.stderr and str(bad) in proc.stderr
    proc = run_cli("validate", str(tmp_path / "missing.json"))
    assert proc.returncode == 1 and "cannot read track file" in proc.stderr
    proc = run_cli("frobnicate")
    assert proc.returncode == 2
