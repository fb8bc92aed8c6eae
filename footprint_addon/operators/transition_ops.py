"""Transition Between Strips (WMZ §6, issue 19): the rig steps from the end of one NLA strip to the start of the
next in a transition strip made in the gap between them."""

import bpy
import numpy as np
from bpy.props import StringProperty

from .. import transition
from ..rigs import MissingBonesError
from .common import USER_ERRORS

TRANSITION_ERRORS = USER_ERRORS + (MissingBonesError,)
OFF_PATH = 0.01  # m: a solve whose centre of mass strays further from its path is reported as a warning


def _strip_names(self, context, text):
    """The active rig's action strips, for the strip fields' search."""
    rig = bpy.data.objects.get(self.rig) if self.rig else context.active_object
    if rig is None or rig.type != "ARMATURE":
        return []
    return [s.name for s in transition.action_strips(rig) if text.lower() in s.name.lower()]


class FOOTPRINT_OT_transition_between_strips(bpy.types.Operator):
    """Make a transition strip in the gap between two NLA strips of the rig: it steps from the first strip's last pose to the second's first, the feet planted, no foot sliding"""

    # Empty strip fields: the two selected strips, else the two around the current frame. Running it again
    # replaces the transition it made in that gap.

    bl_idname = "footprint.transition_between_strips"
    bl_label = "Transition Between Strips"
    bl_options = {"REGISTER", "UNDO"}

    rig: StringProperty(name="Rig", description="Armature object; empty: the active object")
    from_strip: StringProperty(name="From Strip", search=_strip_names,
                               description="The strip before the gap (it ends standing); empty: the selected "
                                           "strips, else the strips around the current frame")
    to_strip: StringProperty(name="To Strip", search=_strip_names,
                             description="The strip after the gap (it starts standing elsewhere)")

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type == "ARMATURE"

    def execute(self, context):
        rig = bpy.data.objects.get(self.rig) if self.rig else context.active_object
        if rig is None or rig.type != "ARMATURE":
            self.report({"ERROR"}, f"{self.rig or 'The active object'!r} is not an armature: nothing changed")
            return {"CANCELLED"}
        first, second = self.from_strip, self.to_strip
        if not (first and second):
            around = transition.default_strips(rig, context.scene.frame_current)
            if around is None:
                self.report({"ERROR"}, f"{rig.name} has no two action strips with a gap between them around frame "
                                       f"{context.scene.frame_current}: name the strips")
                return {"CANCELLED"}
            first, second = first or around[0], second or around[1]
        try:
            strip, motion = transition.make_transition(context, rig, first, second)
        except TRANSITION_ERRORS as exc:
            self.report({"ERROR"}, f"Transition Between Strips: {exc}: nothing changed")
            return {"CANCELLED"}
        feet = [transition.FEET[step.foot] for step in motion.steps if step.foot >= 0]
        stepping = f"steps with {', then '.join(feet)}" if feet else "shifts its weight (no foot has to move)"
        message = (f"{rig.name} {stepping} from {first!r} to {second!r}: strip {strip.name!r}, frames "
                   f"{strip.frame_start:.0f}-{strip.frame_end:.0f}; pelvis lowered at most "
                   f"{100 * motion.lowered.max(initial=0.0):.1f} cm")
        off = np.linalg.norm(motion.com[:, :2] - motion.com_target, axis=1).max(initial=0.0)
        if off > OFF_PATH:
            self.report({"WARNING"}, f"{message}. The legs cannot carry the body's centre of mass onto its path "
                                     f"(up to {100 * off:.1f} cm off): the strips' stances are too far apart for "
                                     f"one step each")
        else:
            self.report({"INFO"}, message)
        return {"FINISHED"}


classes = (FOOTPRINT_OT_transition_between_strips,)
