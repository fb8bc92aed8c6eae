"""The extension as Blender sees it: validated, built, installed from the zip, enabled, disabled, enabled."""

import os
import sys
import zipfile

import addon_utils
import bpy

from conftest import ROOT, run_blender_ext

OPERATORS = [
    "track_new", "add_on_terrain", "add_at_cursor", "conform", "generate_along_curve",
    "retime", "mirror", "delete", "import_json", "export_json", "bake", "setup_leg_ik", "preview", "run_cycle",
    "running_apply", "running_reset", "running_preset_add", "scrub_timing", "step_to_target", "mark_step_example",
    "transition_between_strips", "plan_crossing", "plan_wander", "plan_follow", "optimise_timing",
    "extract_footprints", "bake_extracted",
]
CLICK_ONLY = {"scrub_timing"}  # a click or drag on the viewport's timing diagram: no menu entry
PANELS = ["FOOTPRINT_PT_track", "FOOTPRINT_PT_place", "FOOTPRINT_PT_edit", "FOOTPRINT_PT_rig",
          "FOOTPRINT_PT_running", "FOOTPRINT_PT_running_attributes", "FOOTPRINT_PT_footprint", "FOOTPRINT_PT_timing",
          "FOOTPRINT_PT_stepping", "FOOTPRINT_PT_planning"]


def object_menu_hooks():
    return [f for f in getattr(bpy.types.VIEW3D_MT_object.draw, "_draw_funcs", []) if "footprint" in f.__module__]


def test_every_operator_is_in_a_menu_for_f3_search(addon):
    menu = bpy.types.Menu.bl_rna_get_subclass_py("FOOTPRINT_MT_tools")
    module = sys.modules[menu.__module__]
    assert sorted(op.split(".")[1] for op in module.MENU_OPERATORS) == sorted(set(OPERATORS) - CLICK_ONLY)
    assert len(object_menu_hooks()) == 1


def footprint_keymap_items():
    keyconfig = bpy.context.window_manager.keyconfigs.addon
    return [item.idname for keymap in keyconfig.keymaps for item in keymap.keymap_items
            if item.idname.startswith("footprint.")]


def registered_footprint_types():
    return sorted(name for name in dir(bpy.types) if name.startswith("FOOTPRINT_"))


def test_validator_accepts_source_and_zip(built_zip):
    for target in (ROOT, built_zip):
        proc = run_blender_ext("validate", target)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "FATAL" not in proc.stdout + proc.stderr


def test_zip_holds_only_the_extension(built_zip):
    names = zipfile.ZipFile(built_zip).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names and "__main__.py" in names
    assert "footprint_addon/operators/place.py" in names and "solver/track.py" in names
    allowed_roots = {"blender_manifest.toml", "__init__.py", "__main__.py", "solver", "footprint_addon", "presets",
                     "wheels"}
    assert {n.split("/")[0] for n in names} <= allowed_roots, names
    assert "presets/footprint_running/sprint.py" in names
    assert [n for n in names if n.startswith("wheels/")] == ["wheels/threadpoolctl-3.8.0-py3-none-any.whl"]
    assert all(n.endswith((".py", ".toml", ".whl")) for n in names), names


def test_the_bundled_wheel_is_installed_with_the_extension(addon):
    """Blender installs the manifest's wheels beside its extension repositories: threadpoolctl comes with
    the extension, not from the developer's environment."""
    local = bpy.utils.user_resource("EXTENSIONS", path=".local")  # where Blender puts extensions' wheels
    installed = [os.path.join(folder, name) for folder, _dirs, names in os.walk(local)
                 for name in names if name == "threadpoolctl.py"]
    assert installed, "threadpoolctl.py not installed from the extension's wheel"


def test_installed_code_comes_from_the_zip(addon):
    module = sys.modules[addon]
    repo = bpy.context.preferences.extensions.repos["footprint_test_repo"]
    assert os.path.realpath(module.__file__).startswith(os.path.realpath(repo.custom_directory) + os.sep)
    assert not os.path.realpath(module.__file__).startswith(os.path.realpath(ROOT) + os.sep)
    for op in OPERATORS:
        assert getattr(bpy.ops.footprint, op).idname() == f"FOOTPRINT_OT_{op}"
    for panel in PANELS:
        assert getattr(bpy.types, panel).bl_category == "Footprints"


def test_operators_are_undoable_and_searchable(addon):
    for op in OPERATORS:
        cls = bpy.types.Operator.bl_rna_get_subclass_py(f"FOOTPRINT_OT_{op}")
        assert "REGISTER" in cls.bl_options, op
        if op not in ("export_json", "running_preset_add"):  # they write files, nothing in the scene to undo
            assert "UNDO" in cls.bl_options, op
        assert cls.__doc__, f"{op} needs a description for F3 search and tooltips"


def test_disable_leaves_nothing_behind_and_enable_restores(addon, clean):
    assert registered_footprint_types()
    addon_utils.disable(addon, default_set=True)
    try:
        assert registered_footprint_types() == []
        for owner, attribute in ((bpy.types.Object, "footprint"), (bpy.types.Scene, "footprint"),
                                 (bpy.types.Collection, "footprint_track")):
            assert not hasattr(owner, attribute)
        assert bpy.types.Operator.bl_rna_get_subclass_py("FOOTPRINT_OT_track_new") is None
        assert object_menu_hooks() == []
        assert not hasattr(bpy.types.Scene, "footprint_running")
        lists = [getattr(bpy.app.handlers, name) for name in dir(bpy.app.handlers) if not name.startswith("_")]
        handlers = [h for lst in lists if isinstance(lst, list) for h in lst]
        assert not [h for h in handlers if "footprint" in getattr(h, "__module__", "")]
        assert footprint_keymap_items() == []
    finally:
        addon_utils.enable(addon, default_set=True)
    assert addon in bpy.context.preferences.addons
    assert bpy.ops.footprint.track_new(name="Again") == {"FINISHED"}
    assert bpy.context.scene.footprint.active_track.name == "Again"
    assert len(object_menu_hooks()) == 1
    assert footprint_keymap_items() == ["footprint.scrub_timing"]

