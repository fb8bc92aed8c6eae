"""A Mixamo character's armature as Blender's FBX importer brings it in: written to an FBX file the way Mixamo
writes one (centimetres, Y up, the armature's node unrotated, the character facing +Z with its left at +X),
then imported with bpy.ops.import_scene.fbx at its default settings, so the armature object arrives turned
90 degrees about X with scale 0.01 and its bones in centimetres (the character upright, facing -Y).

The file is made with Blender's own FBX exporter: in a scene whose unit is the centimetre (scale_length
0.01, so the exporter writes UnitScaleFactor 1), an armature whose data is Mixamo's (Y up, centimetres) on
an object turned +90 degrees about X, which the exporter's default axis conversion (-Z forward, Y up) turns
back into an unrotated node."""

import math

import bpy
from mathutils import Matrix, Vector

PREFIX = "mixamorig:"
# Joint positions of a 1.8 m Mixamo-proportioned human in T-pose, centimetres, Blender's Z-up frame with the
# character facing -Y (its left at +X), feet on the ground (the toe joints 2.5 cm above it, as Mixamo's):
# (name, head, tail, parent). Tails point at the next joint; leaves keep Mixamo's short end bones.
LEFT = 1.0


def _joints(knee):
    bones = [
        ("Hips", (0, 0, 100), (0, 0, 110), None),
        ("Spine", (0, 0, 110), (0, -0.5, 122), "Hips"),
        ("Spine1", (0, -0.5, 122), (0, -0.5, 135), "Spine"),
        ("Spine2", (0, -0.5, 135), (0, 0, 150), "Spine1"),
        ("Neck", (0, 0, 150), (0, -1, 160), "Spine2"),
        ("Head", (0, -1, 160), (0, -1, 178), "Neck"),
        ("HeadTop_End", (0, -1, 178), (0, -1, 180), "Head"),
    ]
    for side, s in (("Left", LEFT), ("Right", -LEFT)):
        bones += [
            (f"{side}Shoulder", (6 * s, 0, 144), (17 * s, 0, 145), "Spine2"),
            (f"{side}Arm", (17 * s, 0, 145), (45 * s, 0, 145), f"{side}Shoulder"),
            (f"{side}ForeArm", (45 * s, 0, 145), (71 * s, 0, 145), f"{side}Arm"),
            (f"{side}Hand", (71 * s, 0, 145), (80 * s, 0, 145), f"{side}ForeArm"),
            # the legs splay a little (ankles wider than hips), the knee 2 mm inside the hip-ankle line and
            # 1-2 cm in front of it, as Mixamo's characters stand; the knee at the given height (cm)
            (f"{side}UpLeg", (9.2 * s, 0, 95), (9.6 * s, -1, knee), "Hips"),
            (f"{side}Leg", (9.6 * s, -1, knee), (10.4 * s, 1.5, 9), f"{side}UpLeg"),
            (f"{side}Foot", (10.4 * s, 1.5, 9), (10.6 * s, -10, 2.5), f"{side}Leg"),
            (f"{side}ToeBase", (10.6 * s, -10, 2.5), (10.8 * s, -17, 2.5), f"{side}Foot"),
            (f"{side}Toe_End", (10.8 * s, -17, 2.5), (10.8 * s, -19, 2.5), f"{side}ToeBase"),
        ]
    return bones


TO_FBX_DATA = Matrix.Rotation(-math.pi / 2, 4, "X")  # Blender Z-up -> Mixamo's Y-up armature data


def write_fbx(path, knee=52.0):
    """Write the Mixamo-style FBX file (a scene of its own, left empty afterwards); knee: the knee joint's
    height in centimetres (hip 95, ankle 9)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.unit_settings.system = "METRIC"
    scene.unit_settings.scale_length = 0.01  # one Blender unit = 1 cm: UnitScaleFactor 1 in the file
    arm = bpy.data.armatures.new("Armature")
    obj = bpy.data.objects.new("Armature", arm)
    scene.collection.objects.link(obj)
    obj.rotation_euler = (math.pi / 2, 0.0, 0.0)  # the exporter's Y-up conversion cancels it: node unrotated
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for name, head, tail, parent in _joints(knee):
        bone = arm.edit_bones.new(PREFIX + name)
        bone.head = TO_FBX_DATA @ Vector(head)
        bone.tail = TO_FBX_DATA @ Vector(tail)
        # Mixamo's joints: the limbs rolled so their X axis points forward or down, as its exports do
        bone.align_roll(TO_FBX_DATA @ Vector((0, -1, 0)) if "Arm" in name or "Hand" in name or "Shoulder" in name
                        else TO_FBX_DATA @ Vector((1, 0, 0)))
        if parent:
            bone.parent = arm.edit_bones[PREFIX + parent]
            bone.use_connect = (bone.parent.tail - bone.head).length < 1e-6
    bpy.ops.object.mode_set(mode="OBJECT")
    import addon_utils

    addon_utils.enable("io_scene_fbx", default_set=True)
    result = bpy.ops.export_scene.fbx(filepath=str(path), object_types={"ARMATURE"}, add_leaf_bones=False)
    assert result == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_empty=True)
    return path


def import_fbx(path):
    """Import the file with the FBX importer's default settings; the armature object."""
    import addon_utils

    addon_utils.enable("io_scene_fbx", default_set=True)
    assert bpy.ops.import_scene.fbx(filepath=str(path)) == {"FINISHED"}
    (rig,) = [obj for obj in bpy.context.scene.objects if obj.type == "ARMATURE"]
    return rig
