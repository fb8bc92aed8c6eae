"""PropertyGroups: a footprint on its empty, a track's settings on its collection, the scene's choices."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty, StringProperty

from ..solver.character import ALL_FEET, BIPED_FEET, PRESETS
from ..solver.footprints.timing import GAITS
from ..solver.track import MOTIONS
from . import scene_io
from .body_settings import BodySettings
from .running_settings import RunningSettings
from .scene_io import tag_update

FOOT_ITEMS = [
    ("L", "Left", "Left foot"),
    ("R", "Right", "Right foot"),
    ("LH", "Left Hind", "Left hind foot"),
    ("RH", "Right Hind", "Right hind foot"),
    ("LF", "Left Front", "Left front foot"),
    ("RF", "Right Front", "Right front foot"),
]
assert [item[0] for item in FOOT_ITEMS] == list(ALL_FEET)
# Every preset: the bipeds (feet L, R) and the quadrupeds (LH, RH, LF, RF: dog, cat, horse). On a rig the
# character is measured from the rig's rest pose; the preset gives what a rest pose cannot (the body's
# pitch and roll, its clearance), and the feet a track's footprints are for.
PRESET_ITEMS = [(name, name.title(), f"The {name} character preset "
                 f"({'quadruped' if preset.feet != BIPED_FEET else 'biped'}: feet {', '.join(preset.feet)})")
                for name, preset in PRESETS.items()]
GAIT_ITEMS = [
    ("walk", "Walk", "Double stance between steps; a leap where a step exceeds the threshold (vdP97 §4.1)"),
    ("run", "Run", "A flight phase between every two steps"),
    ("hop", "Hop", "Both feet leave and land together"),
]
assert [item[0] for item in GAIT_ITEMS] == list(GAITS)
MOTION_ITEMS = [
    (scene_io.DEFAULT_MOTION, "Footprints", "The COM optimisation (vdP97): walks, runs, hops and gaits"),
    ("stepping", "Stepping", "Standing to standing, one foot at a time (Wu, Medina and Zordan): the track's "
                             "\"motion\": \"stepping\", made by Step to Target"),
    ("standing_ends", "Walk from Standing", "A walk that starts and stops standing: its first and last steps Wu, "
                                            "Medina and Zordan's, the COM optimisation between (\"motion\": "
                                            "\"standing_ends\")"),
]
assert [item[0] for item in MOTION_ITEMS[1:]] == list(MOTIONS)


def _get_stance(self):
    return self.liftoff - self.contact


def _set_stance(self, value):
    self.liftoff = self.contact + max(value, 1e-3)


def _get_step_time(self):
    following = scene_io.next_footfall(self.id_data)
    return 0.0 if following is None else following - self.contact


def _set_step_time(self, value):
    scene_io.set_step_time(self.id_data, value)


class FootprintProperties(bpy.types.PropertyGroup):
    is_footprint: BoolProperty(name="Is Footprint", default=False, options={"HIDDEN"})
    foot: EnumProperty(name="Foot", items=FOOT_ITEMS, default="L", update=tag_update,
                       description="The character's foot that stands on this footprint")
    contact: FloatProperty(name="Contact", description="Time the foot touches down (seconds)",
                           precision=3, step=1, update=tag_update)
    liftoff: FloatProperty(name="Lift-off", description="Time the foot leaves the ground (seconds)",
                           precision=3, step=1, default=0.6, update=tag_update)
    stance_duration: FloatProperty(
        name="Stance", description="Time on this footprint (the dagger's bar, vdP97 Fig. 3), seconds",
        get=_get_stance, set=_set_stance, precision=3, step=1, min=0.001,
    )
    step_time: FloatProperty(
        name="Step Time",
        description="Time to the next footfall (the dagger's crossbar, vdP97 Fig. 3); setting it moves every "
        "later footprint of the track by the same amount",
        get=_get_step_time, set=_set_step_time, precision=3, step=1, min=0.0,
    )


def _is_mesh(_self, obj):
    return obj.type == "MESH"


def _is_armature(_self, obj):
    return obj.type == "ARMATURE"


def _is_track(_self, coll):
    return coll.footprint_track.is_track


class TrackProperties(bpy.types.PropertyGroup):
    is_track: BoolProperty(name="Is Footprint Track", default=False, options={"HIDDEN"})
    character: EnumProperty(name="Character", items=PRESET_ITEMS, default="human", update=tag_update,
                            description="Character preset: leg lengths, hip width, foot size")
    character_json: StringProperty(
        name="Character Parameters", options={"HIDDEN"}, update=tag_update,
        description="Explicit character parameters from an imported track (JSON), kept for export",
    )
    terrain: PointerProperty(name="Terrain", type=bpy.types.Object, poll=_is_mesh,
                             description="Mesh the footprints rest on (with the terrain collection's, if any)")
    terrain_collection: PointerProperty(
        name="Terrain Collection", type=bpy.types.Collection,
        poll=lambda _self, coll: not coll.footprint_track.is_track,
        description="Collection whose meshes the footprints also rest on: ground, stairs, rocks as separate "
        "objects (child collections too)",
    )
    gait: EnumProperty(name="Gait", items=GAIT_ITEMS, default="walk",
                       description="How footprints added to the track are timed from their step lengths; "
                       "footprints already placed keep their times")
    rig: PointerProperty(name="Rig", type=bpy.types.Object, poll=_is_armature,
                         description="Armature the track is previewed on and baked onto")
    live: BoolProperty(name="Live Update", default=True,
                       description="Re-solve and refresh the preview when a footprint moves or is retimed")
    show_overlay: BoolProperty(name="Show Overlay", default=True,
                               description="Draw footprints, timing daggers and the COM path in the viewport")
    show_ghost: BoolProperty(name="Ghost", default=False,
                             description="Draw the body's pose a little before and after the current frame")
    last_report: StringProperty(name="Quality Report", options={"HIDDEN"},
                                description="The quality report of the last bake or preview (JSON)")
    last_rig_report: StringProperty(name="Rig Quality Report", options={"HIDDEN"},
                                    description="Foot skate measured on the evaluated rig (JSON)")
    body: PointerProperty(type=BodySettings, name="Body",
                          description="Walking attributes: arms, trunk, head, heel strike and toe roll")
    motion: EnumProperty(name="Motion", items=MOTION_ITEMS, default=scene_io.DEFAULT_MOTION, update=tag_update,
                         description="How the track is solved (the track file's \"motion\"): the COM "
                         "optimisation, or the stepping model of a character that stands between steps")


def _is_step_target(_self, obj):
    return obj.type == "EMPTY" and not obj.footprint.is_footprint


class SteppingSettings(bpy.types.PropertyGroup):
    """Step to Target's choices, kept with the scene (the Stepping panel)."""

    target: PointerProperty(name="Target", type=bpy.types.Object, poll=_is_step_target,
                            description="Empty the character steps to: its feet centred on it, its toes along "
                            "the empty's +Y; none: the 3D cursor")
    auto_duration: BoolProperty(name="Automatic Duration", default=True,
                                description="Each step timed from its length; off: every step takes Step Duration")
    step_duration: FloatProperty(name="Step Duration", default=0.6, min=0.0, soft_min=0.2, soft_max=2.0,
                                 precision=3, step=1, description="Seconds per step")
    active_example: IntProperty(name="Active Step Example", default=0, min=0, options={"HIDDEN"},
                                description="The row of the step examples list under the cursor")


class StepExampleProperties(bpy.types.PropertyGroup):
    is_example: BoolProperty(name="Step Example", default=False,
                             description="A step of the rig (standing, one foot steps, standing): Step to Target "
                             "takes the upper body of its last frame for steps like it (WMZ §3)")


class SceneProperties(bpy.types.PropertyGroup):
    active_track: PointerProperty(name="Track", type=bpy.types.Collection, poll=_is_track,
                                  description="The footprint track the tools work on")


classes = (FootprintProperties, TrackProperties, SceneProperties, SteppingSettings, StepExampleProperties)

ATTACHED = (
    (bpy.types.Object, "footprint", FootprintProperties),
    (bpy.types.Collection, "footprint_track", TrackProperties),
    (bpy.types.Scene, "footprint", SceneProperties),
    (bpy.types.Scene, "footprint_running", RunningSettings),
    (bpy.types.Scene, "footprint_stepping", SteppingSettings),
    (bpy.types.Action, "footprint_step", StepExampleProperties),
)


def attach():
    for owner, attribute, group in ATTACHED:
        setattr(owner, attribute, PointerProperty(type=group))


def detach():
    for owner, attribute, _group in reversed(ATTACHED):
        delattr(owner, attribute)
