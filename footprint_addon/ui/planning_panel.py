"""The Planning panel in the Footprints tab: footprints that plan themselves (issue 20) and their settings
(`scene.footprint_planning`)."""

import bpy

from .panels import _FootprintsPanel


class FOOTPRINT_PT_planning(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Planning"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        settings = context.scene.footprint_planning
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        layout.prop(settings, "character")
        layout.prop(settings, "obstacles")

        box = layout.box()
        box.label(text="Across Stones", icon="OUTLINER_OB_POINTCLOUD")
        box.prop(settings, "surfaces")
        box.prop(settings, "start")
        box.prop(settings, "goal")
        if settings.goal is None:
            box.label(text="Goal: the 3D cursor", icon="PIVOT_CURSOR")
        box.operator("footprint.plan_crossing", icon="TRACKING_FORWARDS")
        along = box.operator("footprint.generate_along_curve", text="Along Curve Around Obstacles",
                             icon="CURVE_PATH")
        along.obstacles = settings.obstacles.name if settings.obstacles else ""

        box = layout.box()
        box.label(text="Wander and Follow", icon="MOD_PARTICLES")
        box.prop(settings, "area")
        box.prop(settings, "target")
        box.prop(settings, "seconds")
        box.prop(settings, "seed")
        active = context.active_object
        starts_at_empty = (active is not None and active.type == "EMPTY" and not active.footprint.is_footprint
                           and active != settings.target)
        box.label(text=f"Start: {active.name if starts_at_empty else 'the 3D cursor'}", icon="EMPTY_ARROWS")
        row = box.row(align=True)
        row.operator("footprint.plan_wander", icon="FORCE_TURBULENCE")
        row.operator("footprint.plan_follow", icon="CON_FOLLOWPATH")

        box = layout.box()
        box.label(text="Timing", icon="TIME")
        box.prop(settings, "slack")
        box.operator("footprint.optimise_timing", icon="PREFERENCES")

        box = layout.box()
        box.label(text="From Animation", icon="ACTION")
        row = box.row(align=True)
        row.operator("footprint.extract_footprints", icon="ACTION")
        row.operator("footprint.bake_extracted", icon="NLA")


classes = (FOOTPRINT_PT_planning,)
