"""The "Footprints" tab of the 3D View sidebar."""

import json

import bpy

from ...solver.errors import FootprintError
from ...solver.motion import report_warnings
from .. import live, scene_io
from ..body_settings import GROUPS

MAX_INTERVAL_ROWS = 12


class _FootprintsPanel:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Footprints"


class FOOTPRINT_PT_track(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Footprint Track"

    def draw(self, context):
        layout = self.layout
        row = layout.row(align=True)
        row.prop(context.scene.footprint, "active_track", text="")
        row.operator("footprint.track_new", text="", icon="ADD")
        coll = scene_io.active_track(context)
        if coll is None:
            layout.label(text="Create a track or generate one along a curve", icon="INFO")
            layout.operator("footprint.generate_along_curve", icon="CURVE_PATH")
            layout.operator("footprint.import_json", icon="IMPORT")
            return
        settings = coll.footprint_track
        col = layout.column()
        if settings.character_json:
            col.label(text="Character: imported parameters", icon="ARMATURE_DATA")
        else:
            col.prop(settings, "character")
        col.prop(settings, "terrain")
        col.prop(settings, "terrain_collection")
        col.prop(settings, "gait")


class FOOTPRINT_PT_place(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Place"
    bl_parent_id = "FOOTPRINT_PT_track"

    def draw(self, context):
        col = self.layout.column(align=True)
        col.operator("footprint.add_on_terrain", icon="RESTRICT_SELECT_OFF")
        col.operator("footprint.add_at_cursor", icon="PIVOT_CURSOR")
        col.operator("footprint.generate_along_curve", icon="CURVE_PATH")
        col.separator()
        col.operator("footprint.conform", icon="SNAP_FACE")


class FOOTPRINT_PT_edit(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Edit"
    bl_parent_id = "FOOTPRINT_PT_track"

    def draw(self, context):
        col = self.layout.column(align=True)
        col.operator("footprint.retime", icon="TIME")
        col.operator("footprint.mirror", icon="MOD_MIRROR")
        col.operator("footprint.delete", icon="TRASH")
        row = self.layout.row(align=True)
        row.operator("footprint.import_json", text="Import", icon="IMPORT")
        row.operator("footprint.export_json", text="Export", icon="EXPORT")


class FOOTPRINT_PT_rig(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Rig"
    bl_parent_id = "FOOTPRINT_PT_track"

    def draw(self, context):
        layout = self.layout
        coll = scene_io.active_track(context)
        if coll is None:
            return
        settings = coll.footprint_track
        layout.prop(settings, "rig")
        row = layout.row(align=True)
        row.prop(settings, "live")
        row.prop(settings, "show_overlay")
        row.prop(settings, "show_ghost")
        row = layout.row(align=True)
        row.operator("footprint.preview", icon="HIDE_OFF")
        row.operator("footprint.preview", text="", icon="X").remove = True
        layout.operator("footprint.bake", icon="NLA_PUSHDOWN")
        layout.operator("footprint.measure_rig", icon="DRIVER_DISTANCE")
        layout.operator("footprint.setup_leg_ik", icon="CON_KINEMATIC")
        layout.operator("footprint.run_cycle", icon="MOD_TIME")
        problem = live.errors.get(coll.session_uid)
        if problem:
            layout.label(text=problem, icon="ERROR")
        for line in report_lines(settings.last_report) + rig_report_lines(settings.last_rig_report):
            layout.label(text=line)


def report_lines(text):
    """A few readable lines from a quality report (JSON), for the panel."""
    if not text:
        return []
    report = json.loads(text)
    force = report["non_physical_force"]
    lines = report_warnings(report)
    lines.append(f"Non-physical force: mean {force['mean']:.1%}, peak {force['peak']:.1%} of weight")
    for foot, leg in report["leg_length"].items():
        if leg["max"] is not None:
            swing = f", swing up to {leg['swing_max']:.3f}" if leg.get("swing_max") is not None else ""
            lines.append(f"Leg {foot}: {leg['min']:.3f} to {leg['max']:.3f} m{swing} (max {leg['max_allowed']:.3f})")
    lines.append(f"Stance slip: {report['stance_slip'] * 1000:.2f} mm")
    if "feet_below_ground" in report:
        lines.append(f"Feet below ground: {report['feet_below_ground'] * 1000:.2f} mm")
    if report["flight"]["samples"]:
        lines.append(f"Flight: vertical acceleration within {report['flight']['vertical_acceleration_error']:.1%} of g")
    return lines


STRETCH_SHOWN = 0.005  # a deform bone's length off its rest length by more is named in the rig report's lines


def rig_report_lines(text):
    """Lines from a rig quality report (JSON), measured on the evaluated rig: what the rig lacks, then per
    foot the skate of the planted ball and heel, how straight the leg gets (stretched past straight, if it
    was), how deep the sole sinks (which point, where), the ankle at mid-stance against its rest height and
    the knee's flexion; each worst value with the frame to go and look at."""

    def at(frame):
        return "" if frame is None else f" (frame {frame})"

    if not text:
        return []
    report = json.loads(text)
    lines = [f"Rig lacks: {', '.join(report['missing'])}"] if report.get("missing") else []
    stretch = report.get("bone_stretch")
    if stretch is not None and abs(stretch["stretch"]) > STRETCH_SHOWN:  # IK stretching or squashing a bone
        lines.append(f"Deform bone {stretch['bone']} {'stretched' if stretch['stretch'] > 0 else 'squashed'} "
                     f"{abs(stretch['stretch']):.1%}{at(stretch['frame'])}")
    for foot, ball in report["ball_skate"].items():
        detail = report.get("feet", {}).get(foot)
        if detail is None:  # measured by an earlier version
            lines.append(f"On the rig, foot {foot}: ball moves {ball * 1000:.2f} mm, heel {report['heel_skate'][foot] * 1000:.2f} mm")
            if "leg_extension" in report:
                extension, depth = report["leg_extension"][foot], report["below_ground"][foot]
                leg = f"stretched to {extension:.1%}" if extension > 1.0 else f"at most {extension:.1%} straight"
                sunk = f", sinks {depth * 1000:.1f} mm into the ground" if depth > 1e-3 else ""
                lines.append(f"  leg {foot} {leg}{sunk}")
            continue
        heel = "heel" if detail["heel_point"] == "heel bone" else "sole behind the ankle (no heel bone)"
        lines.append(f"On the rig, foot {foot}: ball moves {ball * 1000:.2f} mm{at(detail['ball_drift']['frame'])}, "
                     f"{heel} {report['heel_skate'][foot] * 1000:.2f} mm{at(detail['heel_drift']['frame'])}")
        extension = detail["leg_extension"]
        leg = (f"stretched to {extension['max']:.1%}" if extension["max"] > 1.0
               else f"at most {extension['max']:.1%} straight")
        lines.append(f"  leg {foot} {leg}{at(extension['frame'])}")
        sole = detail["below_ground"]
        if sole["depth"] > 1e-3:
            lines.append(f"  {sole['point']} {foot} sinks {sole['depth'] * 1000:.1f} mm into the ground{at(sole['frame'])}")
        ankle = detail["ankle_height"]
        if ankle is not None:
            lines.append(f"  ankle {foot} at mid-stance {ankle['error'] * 1000:+.1f} mm from its rest height"
                         f"{at(ankle['frame'])}")
        knee = detail["knee"]
        if knee is not None:
            swing = f", swing peak {knee['swing_peak']:.0f}\N{DEGREE SIGN}" if knee["swing_peak"] is not None else ""
            late = (f", late stance up to {knee['late_stance_max']:.0f}\N{DEGREE SIGN}{at(knee['late_stance_frame'])}"
                    if knee["late_stance_max"] is not None else "")
            stance = f", stance up to {knee['stance_max']:.0f}\N{DEGREE SIGN}" if knee["stance_max"] is not None else ""
            bent = "hyperextended to" if knee["min"] < 0.0 else "least bent"
            lines.append(f"  knee {foot} {bent} {knee['min']:.1f}\N{DEGREE SIGN}{at(knee['min_frame'])}{stance}{late}{swing}")
    return lines


def preset_header(layout, menu, add_operator):
    """A panel header's preset menu with add (+) and remove (-) buttons."""
    row = layout.row(align=True)
    row.menu(menu, text="Presets")
    row.operator(add_operator, text="", icon="ADD")
    row.operator(add_operator, text="", icon="REMOVE").remove_active = True


class FOOTPRINT_PT_body(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Body"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return context.scene.footprint.active_track is not None

    def draw_header_preset(self, context):
        preset_header(self.layout, "FOOTPRINT_MT_body_presets", "footprint.body_preset_add")

    def draw(self, context):
        body = context.scene.footprint.active_track.footprint_track.body
        self.layout.prop(body, "enabled")
        for title, names in GROUPS:
            box = self.layout.box()
            box.enabled = body.enabled
            box.label(text=title)
            col = box.column(align=True)
            for name in names:
                col.prop(body, name)


class FOOTPRINT_PT_running(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Running"
    bl_options = {"DEFAULT_CLOSED"}

    def draw_header_preset(self, context):
        preset_header(self.layout, "FOOTPRINT_MT_running_presets", "footprint.running_preset_add")

    def draw(self, context):
        settings = context.scene.footprint_running
        layout = self.layout
        layout.prop(settings, "rig")
        row = layout.row(align=True)
        row.prop(settings, "live")
        row.prop(settings, "in_place")
        col = layout.column(align=True)
        for name, prop in (("velocity", "velocity_kmh"), ("step_length", "step_length"),
                           ("step_frequency", "step_frequency"), ("flight_height", "flight_height")):
            row = col.row(align=True)
            sub = row.row(align=True)
            sub.enabled = not getattr(settings, f"lock_{name}")
            sub.prop(settings, prop)
            row.prop(settings, f"lock_{name}", text="", icon="LOCKED" if getattr(settings, f"lock_{name}") else "UNLOCKED")
        layout.prop(settings, "level")
        layout.prop(settings, "body_height")
        if settings.error:
            layout.label(text=settings.error, icon="ERROR")
        layout.operator("footprint.running_apply", icon="MOD_TIME")


class FOOTPRINT_PT_running_attributes(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Attributes"
    bl_parent_id = "FOOTPRINT_PT_running"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        from ...solver.running.attributes import ATTRIBUTE_NAMES, RANGES

        settings = context.scene.footprint_running
        chosen = set(settings.chosen.split(","))
        for group in ("arms", "torso", "pelvis", "legs"):
            box = self.layout.box()
            box.label(text=group.title())
            col = box.column(align=True)
            for name in ATTRIBUTE_NAMES:
                if RANGES[name][3] == group:
                    col.prop(settings, name, icon="PINNED" if name in chosen else "NONE")
        self.layout.operator("footprint.running_reset", icon="LOOP_BACK")


class FOOTPRINT_PT_footprint(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Footprint"

    @classmethod
    def poll(cls, context):
        return scene_io.is_footprint(context.active_object)

    def draw(self, context):
        props = context.active_object.footprint
        col = self.layout.column()
        col.prop(props, "foot")
        col.prop(props, "contact")
        col.prop(props, "liftoff")
        col.separator()
        col.label(text="Timing dagger (vdP97 Fig. 3)")
        col.prop(props, "stance_duration")
        col.prop(props, "step_time")


class FOOTPRINT_PT_timing(_FootprintsPanel, bpy.types.Panel):
    bl_label = "Timing"
    bl_parent_id = "FOOTPRINT_PT_track"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        coll = scene_io.active_track(context)
        if coll is None:
            return
        objs = scene_io.footprints(coll)
        try:
            scene_io.validate_objects(coll, scene_io.read_track(coll, objs), objs)
        except FootprintError as exc:
            layout.label(text=str(exc), icon="ERROR")
        if objs:
            end = max(o.footprint.liftoff for o in objs)
            layout.label(text=f"{len(objs)} footprints, {objs[0].footprint.contact:.2f} s to {end:.2f} s")
        for foot, intervals in contact_intervals(objs).items():
            box = layout.box()
            box.label(text=f"Foot {foot}: {len(intervals)} contacts")
            col = box.column(align=True)
            for name, start, stop in intervals[:MAX_INTERVAL_ROWS]:
                col.label(text=f"{start:7.3f} – {stop:7.3f} s   {name}")
            if len(intervals) > MAX_INTERVAL_ROWS:
                col.label(text=f"… {len(intervals) - MAX_INTERVAL_ROWS} more")


def contact_intervals(objs):
    """Per foot, the (name, contact, liftoff) of its footprints in time order."""
    intervals = {}
    for o in objs:
        intervals.setdefault(o.footprint.foot, []).append((o.name, o.footprint.contact, o.footprint.liftoff))
    return intervals




class FOOTPRINT_MT_tools(bpy.types.Menu):
    """Every footprint tool, in the 3D View's Object menu, so F3 menu search finds them all"""

    bl_label = "Footprints"
    bl_idname = "FOOTPRINT_MT_tools"

    def draw(self, context):
        layout = self.layout
        for idname in MENU_OPERATORS:
            layout.operator(idname)


MENU_OPERATORS = (
    "footprint.track_new", "footprint.add_on_terrain", "footprint.add_at_cursor",
    "footprint.generate_along_curve", "footprint.conform", "footprint.retime", "footprint.mirror",
    "footprint.delete", "footprint.import_json", "footprint.export_json", "footprint.bake",
    "footprint.setup_leg_ik", "footprint.preview", "footprint.run_cycle", "footprint.running_apply",
    "footprint.running_reset", "footprint.running_preset_add", "footprint.step_to_target",
    "footprint.mark_step_example", "footprint.transition_between_strips", "footprint.plan_crossing",
    "footprint.plan_wander", "footprint.plan_follow", "footprint.optimise_timing", "footprint.extract_footprints",
    "footprint.bake_extracted",
)


def draw_object_menu(self, context):
    self.layout.menu(FOOTPRINT_MT_tools.bl_idname)


classes = (FOOTPRINT_PT_track, FOOTPRINT_PT_place, FOOTPRINT_PT_edit, FOOTPRINT_PT_rig, FOOTPRINT_PT_body,
           FOOTPRINT_PT_running, FOOTPRINT_PT_running_attributes, FOOTPRINT_PT_footprint, FOOTPRINT_PT_timing, FOOTPRINT_MT_tools)
MENU_HOOKS = ((bpy.types.VIEW3D_MT_object, draw_object_menu),)
