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
