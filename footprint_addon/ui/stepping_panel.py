"""The Stepping panel in the Footprints tab: Step to Target, Transition Between Strips, the step examples."""

import bpy

from .panels import _FootprintsPanel


class FOOTPRINT_UL_step_examples(bpy.types.UIList):
    """The actions marked as step examples, each with its mark to take it off again."""

    def draw_item(self, _context, layout, _data, action, _icon, _active_data, _active_property, _index=0, _flt_flag=0):
        row = layout.row(align=True)
        row.prop(action.footprint_step, "is_example", text="")
        row.label(text=action.name, icon="ACTION")

    def filter_items(self, _context, data, property_name):
        actions = getattr(data, property_name)
        flags = [self.bitflag_filter_item if action.footprint_step.is_example else 0 for action in actions]
        return flags, []


class FOOTPRINT_PT_stepping(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Stepping"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        settings = context.scene.footprint_stepping
        layout = self.layout
        col = layout.column()
        col.prop(settings, "target")
        if settings.target is None:
            col.label(text="Target: the 3D cursor", icon="PIVOT_CURSOR")
        col.prop(settings, "auto_duration")
        sub = col.column()
        sub.enabled = not settings.auto_duration
        sub.prop(settings, "step_duration")
        layout.operator("footprint.step_to_target", icon="TRACKING_FORWARDS_SINGLE")
        layout.operator("footprint.transition_between_strips", icon="NLA")
        box = layout.box()
        box.label(text="Step Examples (WMZ §3)")
        box.template_list("FOOTPRINT_UL_step_examples", "", bpy.data, "actions", settings, "active_example", rows=3)
        anim = getattr(context.active_object, "animation_data", None)
        action = anim.action if anim is not None else None
        row = box.row()
        row.enabled = action is not None
        marked = action is not None and action.footprint_step.is_example
        row.operator("footprint.mark_step_example", icon="CHECKBOX_HLT" if marked else "CHECKBOX_DEHLT",
                     text=f"{'Unmark' if marked else 'Mark'} {action.name}" if action else "Mark Active Action")


classes = (FOOTPRINT_UL_step_examples, FOOTPRINT_PT_stepping)
