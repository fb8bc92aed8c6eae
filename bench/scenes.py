"""Blender scenes the benchmarks share: the extension registered and a Rigify human from the metarig."""


def rigify_human():
    """An empty file with the extension's operators and a generated Rigify human; returns the rig."""
    import bpy  # first: Blender's own modules (addon_utils) come with it
    import addon_utils

    import footprint_locomotion

    if not hasattr(bpy.types, "FOOTPRINT_OT_bake"):
        footprint_locomotion.register()
    addon_utils.enable("rigify", default_set=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.object.armature_human_metarig_add()
    bpy.ops.pose.rigify_generate()
    return bpy.context.active_object


def save_walk(path, steps):
    """Save a .blend with the Rigify human, a ground plane and a straight walk of `steps` footprints (track
    "walk") for the batch benchmarks."""
    import bpy

    from footprint_locomotion.footprint_addon import scene_io

    from .solver_bench import straight_walk

    rig = rigify_human()
    bpy.ops.mesh.primitive_plane_add(size=4 * steps)
    coll = scene_io.new_track(bpy.context, "walk", terrain=bpy.context.active_object)
    scene_io.write_track(coll, straight_walk(steps))
    assert rig.name == "rig"
    bpy.ops.wm.save_as_mainfile(filepath=path)


if __name__ == "__main__":  # python -m bench.scenes walk PATH STEPS
    import sys

    if sys.argv[1:2] == ["walk"]:
        save_walk(sys.argv[2], int(sys.argv[3]))
