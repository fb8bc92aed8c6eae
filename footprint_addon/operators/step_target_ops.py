"""Step to Target (WMZ, issue 19) and the step database's mark on actions."""

import bpy
from bpy.props import StringProperty

from .. import bake, stepping
from ..rigs import MissingBonesError
from .common import USER_ERRORS

STEP_ERRORS = USER_ERRORS + (MissingBonesError, bake.BakeError, stepping.SteppingError)


class FOOTPRINT_OT_step_to_target(bpy.types.Operator):
    """Step the active rig from its pose at the current frame to the target (the Stepping panel's empty, or the 3D cursor): an editable footprint track, baked into an NLA strip"""

    # The steps are an ordinary footprint track marked "motion": "stepping": moving a footprint and baking
    # again solves it with the stepping solver again. Running it again replaces what it made for the rig.

    bl_idname = "footprint.step_to_target"
    bl_label = "Step to Target"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        rig = context.active_object
        try:
            planned = stepping.plan(context, rig, context.scene.footprint_stepping)
            coll, strip, upper = stepping.apply(context, rig, planned)
        except STEP_ERRORS as exc:
            self.report({"ERROR"}, f"Step to Target: {exc}: nothing changed")
            return {"CANCELLED"}
        steps = len(planned.steps)
        used = sorted({example.action.name for example in planned.chosen if example is not None})
        shaped = (f"upper body from step example{'s' if len(used) > 1 else ''} {', '.join(used)}" if used
                  else "the walk's upper body" + (f", the bones the rig's own animation turns held as at frame "
                                                  f"{context.scene.frame_current}"
                                                  if len(planned.walked) < len(planned.start_pose) else ""))
        self.report({"INFO"}, f"{rig.name} takes {steps} step{'s' if steps != 1 else ''} to {planned.target}: "
                              f"track {coll.name!r}, strip {strip.name!r} (frames {strip.frame_start:.0f}-"
                              f"{strip.frame_end:.0f}), {shaped} (strip {upper.name!r})")
        return {"FINISHED"}


class FOOTPRINT_OT_mark_step_example(bpy.types.Operator):
    """Mark the active rig's action as a step example (or unmark it): Step to Target takes the upper body of its last frame for steps like it"""

    bl_idname = "footprint.mark_step_example"
    bl_label = "Mark Step Example"
    bl_options = {"REGISTER", "UNDO"}

    action: StringProperty(name="Action", description="Action to mark or unmark; empty: the active object's action")

    def execute(self, context):
        if self.action:
            action = bpy.data.actions.get(self.action)
            if action is None:
                self.report({"ERROR"}, f"No action {self.action!r} in this file")
                return {"CANCELLED"}
        else:
            obj = context.active_object
            anim = getattr(obj, "animation_data", None)
            action = anim.action if anim is not None else None
            if action is None:
                self.report({"ERROR"}, f"{getattr(obj, 'name', 'No active object')!r} has no active action to "
                                       f"mark: give the rig a step (standing, one foot steps, standing) as its action")
                return {"CANCELLED"}
        mark = action.footprint_step
        mark.is_example = not mark.is_example
        self.report({"INFO"}, f"{action.name!r} {'is' if mark.is_example else 'is no longer'} a step example")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_step_to_target, FOOTPRINT_OT_mark_step_example)
