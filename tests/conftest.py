"""Test harness: real Blender (the bpy module, or a Blender binary through pytest-blender).

The extension is built with Blender's own tooling (blender_ext.py), installed from the zip into a
throwaway extension repository and enabled, exactly as an artist's Blender would. Tests drive it through
bpy.ops and read the scene data back.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

# Blender-as-a-module reads its user configuration from HOME: keep the developer's own untouched.
if "bpy" not in sys.modules:
    os.environ["HOME"] = tempfile.mkdtemp(prefix="footprint-test-home-")

import bpy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENSION_ID = "footprint_locomotion"
TEST_REPO = "footprint_test_repo"
FIG1 = os.path.join(ROOT, "tests", "data", "fig1.json")  # vdP97 Fig. 1, the track most tests bake


def blender_ext_script():
    return os.path.join(bpy.utils.system_resource("SCRIPTS"), "addons_core", "bl_pkg", "cli", "blender_ext.py")


def run_blender_ext(*args):
    """Run Blender's extension command-line tool with Blender's Python; returns the completed process."""
    python = sys.executable if "python" in os.path.basename(sys.executable) else bpy.app.binary_path_python
    return subprocess.run([python, blender_ext_script(), *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def built_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    proc = run_blender_ext("build", "--source-dir", ROOT, "--output-dir", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (zip_path,) = out.glob("*.zip")
    return str(zip_path)


@pytest.fixture(scope="session")
def addon(built_zip, tmp_path_factory):
    """The extension installed from its zip into a temporary repository, enabled; its module name."""
    directory = str(tmp_path_factory.mktemp("extensions"))
    repos = bpy.context.preferences.extensions.repos
    repo = repos.new(name=TEST_REPO, module=TEST_REPO, custom_directory=directory, source="USER")
    result = bpy.ops.extensions.package_install_files(filepath=built_zip, repo=repo.module, enable_on_install=True)
    assert result == {"FINISHED"}
    module = f"bl_ext.{repo.module}.{EXTENSION_ID}"
    assert module in bpy.context.preferences.addons
    yield module
    import addon_utils

    addon_utils.disable(module, default_set=True)
    repos.remove(repos[TEST_REPO])
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def rigify_blend(addon, tmp_path_factory):
    """A .blend with a Rigify human generated from Blender's bundled metarig (generated once, ~5 s)."""
    import addon_utils

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.object.armature_human_metarig_add()
    bpy.ops.pose.rigify_generate()
    assert bpy.context.active_object.name == "rig"
    path = str(tmp_path_factory.mktemp("rigs") / "rigify_human.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    return path


@pytest.fixture
def rig_scene(rigify_blend):
    """The Rigify human and vdP97's Fig. 1 track (12 footprints, 7.4 s), an undo step after them; the rig."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    bpy.ops.ed.undo_push(message="scene ready")
    return bpy.data.objects["rig"]


@pytest.fixture
def fig1_scene(rigify_blend, tmp_path):
    """A saved .blend with the Rigify human and the Fig. 1 track imported; its path."""
    bpy.ops.wm.open_mainfile(filepath=rigify_blend)
    assert bpy.ops.footprint.import_json(filepath=FIG1) == {"FINISHED"}
    path = tmp_path / "scene.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.read_homefile(use_empty=True)
    return path


@pytest.fixture
def clean(addon):
    """An empty scene with the extension enabled and an undo stack that starts here."""
    bpy.ops.wm.read_homefile(use_empty=True)
    assert addon in bpy.context.preferences.addons
    bpy.ops.ed.undo_push(message="test start")
    return bpy.context


# Blender 4.2 as a Python module crashes in its own exit handler when any Python-defined property
# callback was ever registered (it happens with the bundled Rigify too). Leave without that handler,
# keeping pytest's exit status; Blender 4.3 and newer exit normally.
_exit_status = None


def pytest_sessionfinish(session, exitstatus):
    global _exit_status
    _exit_status = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if bpy.app.version < (4, 3, 0) and bpy.app.binary_path == "" and _exit_status is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status)


@pytest.fixture(scope="session")
def quadruped_blends(addon, tmp_path_factory):
    """A .blend per generated Rigify quadruped (blender_scenes.QUADRUPED_KINDS), made once for the session."""
    from blender_scenes import QUADRUPED_KINDS, rigify_quadruped_blend

    folder = tmp_path_factory.mktemp("quadrupeds")
    return {kind: rigify_quadruped_blend(kind, folder / f"{kind}.blend") for kind in QUADRUPED_KINDS}
