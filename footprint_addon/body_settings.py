"""The Body panel's settings: the walking attributes of a track (solver.body.walking), edited live.

They shape every gait the COM solver makes of the track (walk, hop, leap, stairs, slopes); RUNNER's
running cycle keeps its own nineteen (the Running panel). Editing one re-solves the track's live preview
(the track's signature holds them) and the next bake uses them."""

import bpy
from bpy.props import BoolProperty, FloatProperty

from ..solver.body import walking
from .scene_io import tag_update

# name: (label, description, unit, soft minimum, soft maximum)
ATTRIBUTES = {
    "arm_swing": ("Arm Swing", "Shoulder swing forward and back, peak to peak at 1.3 m/s, opposite the same-side "
                  "leg; it grows with speed and is zero standing, degrees", "deg", 0.0, 90.0),
    "elbow_flexion": ("Elbow Flexion", "Mean bend of the elbows, degrees", "deg", 0.0, 120.0),
    "elbow_swing": ("Elbow Swing", "How much more the elbow bends as the arm swings forward, peak to peak, "
                    "degrees", "deg", 0.0, 60.0),
    "arm_abduction": ("Arm Abduction", "How far the arms hang out from the body, degrees", "deg", 0.0, 45.0),
    "torso_lean": ("Torso Lean", "Forward lean of the trunk at 1.3 m/s (more when faster), degrees", "deg",
                   -10.0, 30.0),
    "slope_lean": ("Lean into Slopes", "Fraction of the path's slope the trunk leans into, climbing and "
                   "descending", "", 0.0, 1.0),
    "torso_bounce": ("Torso Bounce", "Trunk flexion at each loading, peak to peak, degrees", "deg", 0.0, 15.0),
    "pelvic_rotation": ("Pelvic Rotation", "Pelvis turning about the vertical, the landing side forward, peak "
                        "to peak, degrees (the hips move with it: the solver sees it)", "deg", 0.0, 25.0),
    "pelvic_list": ("Pelvic List", "Pelvis rolling down on the swing side, peak to peak, degrees (the hips move "
                    "with it: the solver sees it)", "deg", 0.0, 20.0),
    "chest_rotation": ("Chest Rotation", "Thorax turning against the pelvis, peak to peak, degrees", "deg",
                       0.0, 25.0),
    "head_steady": ("Head Steadiness", "How much of the trunk's pitch and roll the head cancels: 0 none, 1 all",
                    "", 0.0, 1.0),
    "look_ahead": ("Look Ahead", "The head turns toward where the path will be this many seconds later",
                   "s", 0.0, 3.0),
    "heel_strike": ("Heel Strike", "Toes up as the heel lands, rolling down to flat, degrees (toe roll at "
                    "heel-off follows the heel by itself)", "deg", 0.0, 30.0),
}
GROUPS = (("Arms", ("arm_swing", "elbow_flexion", "elbow_swing", "arm_abduction")),
          ("Trunk", ("torso_lean", "slope_lean", "torso_bounce", "chest_rotation")),
          ("Pelvis", ("pelvic_rotation", "pelvic_list")), ("Head", ("head_steady", "look_ahead")),
          ("Feet", ("heel_strike",)))  # the Body panel's boxes: every attribute in one
assert set(ATTRIBUTES) == set(walking.ATTRIBUTE_NAMES) == {name for _title, names in GROUPS for name in names}


def _annotations():
    defaults = walking.WalkingAttributes()
    notes = {"enabled": BoolProperty(name="Walking Attributes", default=True, update=tag_update,
                                     description="Animate arms, trunk, head, heel strike and toe roll from the "
                                     "gait (off: legs and body only, as the solver leaves them)")}
    for name, (label, description, unit, low, high) in ATTRIBUTES.items():
        notes[name] = FloatProperty(name=label, description=description, default=getattr(defaults, name),
                                    soft_min=low, soft_max=high, update=tag_update,
                                    precision=2 if unit in ("", "s") else 1)
    return notes


class BodySettings(bpy.types.PropertyGroup):
    __annotations__ = _annotations()

    def attributes(self):
        """The WalkingAttributes these settings hold, or None when switched off."""
        if not self.enabled:
            return None
        return walking.WalkingAttributes(**{name: getattr(self, name) for name in walking.ATTRIBUTE_NAMES})

    def signature(self):
        return (self.enabled, *(round(getattr(self, name), 6) for name in walking.ATTRIBUTE_NAMES))


classes = (BodySettings,)
