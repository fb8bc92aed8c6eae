"""Scrubbing: click or drag on the timing diagram in the 3D view's corner to set the current frame."""

import bpy
from bpy.props import FloatProperty

from ...solver import drawing
from .. import scene_clock
from ..ui.overlay import timing_diagram

_keymaps = []  # (keymap, item) pairs this module added to the add-on key configuration


class FOOTPRINT_OT_scrub_timing(bpy.types.Operator):
    """Set the current frame from the timing diagram: click or drag along it (Esc puts the frame back)"""

    bl_idname = "footprint.scrub_timing"
    bl_label = "Scrub Timing Diagram"
    bl_options = {"REGISTER", "UNDO"}

    # Where the mouse is, set by the click and drag: internal, so kept out of the redo panel.
    x: FloatProperty(name="X", description="Region pixel column on the timing diagram",
                     options={"HIDDEN", "SKIP_SAVE"})
    y: FloatProperty(name="Y", description="Region pixel row on the timing diagram", options={"HIDDEN", "SKIP_SAVE"})

    def execute(self, context):
        diagram = timing_diagram(context)
        if diagram is None:
            self.report({"ERROR"}, "No timing diagram: the active track needs footprints and its overlay on")
            return {"CANCELLED"}
        if not diagram.contains(self.x, self.y):
            self.report({"ERROR"}, f"({self.x:.0f}, {self.y:.0f}) is not on the timing diagram")
            return {"CANCELLED"}
        self._diagram = diagram
        self._scrub(context, self.x)
        return {"FINISHED"}

    def invoke(self, context, event):
        # A click anywhere else in the view is not ours: let selection and the other tools have it, at
        # once (most clicks are nowhere near the corner: no need to read the track).
        x, y = event.mouse_region_x, event.mouse_region_y
        if context.region is None or not drawing.may_be_on_timing_diagram(x, y):
            return {"PASS_THROUGH"}
        self._diagram = timing_diagram(context)
        if self._diagram is None or not self._diagram.contains(x, y):
            return {"PASS_THROUGH"}
        self._original = context.scene.frame_current
        self.y = y  # so that Redo and Repeat Last land on the diagram too
        self._scrub(context, x)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "MOUSEMOVE":
            self._scrub(context, event.mouse_region_x)
        elif event.type == "LEFTMOUSE" and event.value == "RELEASE":
            return {"FINISHED"}
        elif event.type in {"ESC", "RIGHTMOUSE"}:
            context.scene.frame_set(self._original)
            return {"CANCELLED"}
        return {"RUNNING_MODAL"}

    def _scrub(self, context, x):
        self.x = x
        context.scene.frame_set(scene_clock.frame(context.scene, self._diagram.time_at(x)))


def register_keymap():
    """Left click in the 3D view tries the diagram first (and passes through when it is elsewhere)."""
    keyconfig = bpy.context.window_manager.keyconfigs.addon
    if keyconfig is None:  # some background runs have no key configurations
        return
    keymap = keyconfig.keymaps.new(name="3D View", space_type="VIEW_3D")
    _keymaps.append((keymap, keymap.keymap_items.new(FOOTPRINT_OT_scrub_timing.bl_idname, "LEFTMOUSE", "PRESS")))


def unregister_keymap():
    while _keymaps:
        keymap, item = _keymaps.pop()
        keymap.keymap_items.remove(item)


classes = (FOOTPRINT_OT_scrub_timing,)
