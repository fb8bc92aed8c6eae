"""The Planning panel's settings, kept with the scene (`scene.footprint_planning`): the surfaces feet may land
on, the obstacles, the walled area, the start, goal and target, and each tool's numbers (issue 20)."""

import bpy
from bpy.props import EnumProperty, FloatProperty, IntProperty, PointerProperty

from .properties import PRESET_ITEMS


def _is_marker(_self, obj):
    """An empty that is not a footprint: a start, a goal or a target."""
    return obj.type == "EMPTY" and not obj.footprint.is_footprint


def _is_mesh(_self, obj):
    return obj.type == "MESH"


def _not_a_track(_self, coll):
    return not coll.footprint_track.is_track


class PlanningSettings(bpy.types.PropertyGroup):
    character: EnumProperty(name="Character", items=PRESET_ITEMS, default="human",
                            description="Character preset of the planned tracks: its reach, step and body radius")
    surfaces: PointerProperty(name="Surfaces", type=bpy.types.Collection, poll=_not_a_track,
                              description="Collection of the objects feet may land on (stones, a path, a "
                                          "bridge): Plan Across Stones steps on their upward faces only")
    obstacles: PointerProperty(name="Obstacles", type=bpy.types.Collection, poll=_not_a_track,
                               description="Collection of objects the feet keep off and the body clear of "
                                           "(walls, posts, furniture): those between the ground and the head")
    start: PointerProperty(name="Start", type=bpy.types.Object, poll=_is_marker,
                           description="Empty the crossing starts from, standing (on a surface)")
    goal: PointerProperty(name="Goal", type=bpy.types.Object, poll=_is_marker,
                          description="Empty the crossing ends at, standing (on a surface); none: the 3D cursor")
    area: PointerProperty(name="Area", type=bpy.types.Object, poll=_is_mesh,
                          description="Mesh whose outline in plan (its convex hull) walls in the wanderer and "
                                      "the follower")
    target: PointerProperty(name="Target", type=bpy.types.Object, poll=_is_marker,
                            description="Animated empty the follower follows (sampled over the scene's frames)")
    seconds: FloatProperty(name="Seconds", default=60.0, min=0.5, soft_max=600.0, max=3600.0,
                           description="How long the wanderer or the follower walks")
    seed: IntProperty(name="Seed", default=0, min=0, description="The wanderer's random turns: another seed, "
                                                                 "another walk")
    slack: FloatProperty(name="Slack", default=0.1, soft_min=0.0, soft_max=0.5, precision=3, step=1,
                         unit="TIME_ABSOLUTE",
                         description="Optimise Timing: how far each contact and lift-off may move, seconds")
    # The tracks each tool made last: running it again replaces their footprints, not other tracks'.
    crossing_track: PointerProperty(type=bpy.types.Collection, options={"HIDDEN"})
    wander_track: PointerProperty(type=bpy.types.Collection, options={"HIDDEN"})
    follow_track: PointerProperty(type=bpy.types.Collection, options={"HIDDEN"})


classes = (PlanningSettings,)


def attach():
    bpy.types.Scene.footprint_planning = PointerProperty(type=PlanningSettings)


def detach():
    del bpy.types.Scene.footprint_planning
