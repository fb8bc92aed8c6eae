"""Baking the active track onto an armature as an NLA strip."""

import bpy
from bpy.props import StringProperty

from ...solver.motion import report_warnings
from ...solver.running import parameters
from .. import bake, preview, rig_quality, running_bake
from ..rigs import MissingBonesError, leg_ik
from .common import USER_ERRORS, OnActiveTrack

BAKE_ERRORS = USER_ERRORS + (MissingBonesError, bake.BakeError)


def chosen_rig(op, context, fallback=None):
    """The armature named by the operator, else the fallback (the track's rig), else the active object;
    None after reporting when that is not an armature."""
    rig = bpy.data.objects.get(op.rig) if op.rig else (fallback or context.active_object)
    if rig is None or rig.type != "ARMATURE":
        op.report({"ERROR"}, f"{op.rig or 'The active object'} is not an armature")
        return None
    return rig


class OnTrackAndRig(OnActiveTrack):
    """Mixin for operators on the active track and a rig: the armature named, else the track's rig, else the
    active object; run_on_rig(context, track, rig) does the work."""

    rig: StringProperty(name="Rig", description="Armature object; empty: the track's rig, or the active object")

    def run(self, context, coll):
        rig = chosen_rig(self, context, coll.footprint_track.rig)
        return {"CANCELLED"} if rig is None else self.run_on_rig(context, coll, rig)


class FOOTPRINT_OT_bake(OnTrackAndRig, bpy.types.Operator):
    """Solve the active footprint track for an armature and bake it into an NLA strip named after the track"""

    bl_idname = "footprint.bake"
    bl_label = "Bake Footprints to Rig"
    bl_options = {"REGISTER", "UNDO"}

    def run_on_rig(self, context, coll, rig):
        wm = context.window_manager
        wm.progress_begin(0, 100)
        try:
            frame_end = context.scene.frame_end
            strip, motion = bake.bake(context, coll, rig, lambda fraction: wm.progress_update(int(100 * fraction)))
        except BAKE_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing baked")
            return {"CANCELLED"}
        finally:
            wm.progress_end()
        scene = context.scene
        message = (f"Baked {coll.name!r} onto {rig.name} (strip {strip.name!r}, frames {strip.frame_start:.0f}-"
                   f"{strip.frame_end:.0f}); non-physical force mean "
                   f"{motion.report['non_physical_force']['mean']:.3f} body weight")
        if scene.frame_end != frame_end:  # the bake extended it to the strip
            message += f"; scene frame range extended to {scene.frame_start}-{scene.frame_end}"
        level, message = _with_warnings(motion.report, message)
        if strip.frame_start < scene.frame_start:
            level, message = {"WARNING"}, (f"{message}. The strip starts before the scene's start frame "
                                           f"{scene.frame_start} (the tracks' time 0, left where it is): retime "
                                           "the track to start at 0 s to play all of it")
        self.report(level, message)
        return {"FINISHED"}


def _with_warnings(report, message):
    """The operator's report: information, or a warning when the motion could not do all it should."""
    warnings = report_warnings(report)
    return ({"INFO"}, message) if not warnings else ({"WARNING"}, ". ".join([message, *warnings]))


class FOOTPRINT_OT_measure_rig(OnTrackAndRig, bpy.types.Operator):
    """Measure the baked rig as Blender evaluates it, frame by frame: foot skate, leg extension, feet below ground"""

    # Measured after the rig's IK and constraints: the ball and heel of a stance foot should not move, a leg
    # should not straighten past thigh + shin, and the feet should not sink below the ground.

    bl_idname = "footprint.measure_rig"
    bl_label = "Measure on Rig"
    bl_options = {"REGISTER", "UNDO"}

    def run_on_rig(self, context, coll, rig):
        try:
            report = rig_quality.measure_track(context, coll, rig)
        except BAKE_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing measured")
            return {"CANCELLED"}
        worst = max(report["ball_skate"].values(), default=0.0)
        self.report({"INFO"}, f"{rig.name}: over {report['frames']} frames the ball of a stance foot moves at "
                              f"most {worst * 1000:.2f} mm")
        return {"FINISHED"}


class FOOTPRINT_OT_setup_leg_ik(bpy.types.Operator):
    """Give a plain armature (Mixamo, thigh/shin/foot/toe bones, or a quadruped's four legs) foot IK controls and knee poles to bake onto"""

    # IK constraints come with them, and the bone mapping is stored on the armature for the bake to find.

    bl_idname = "footprint.setup_leg_ik"
    bl_label = "Set up Leg IK"
    bl_options = {"REGISTER", "UNDO"}

    rig: StringProperty(name="Rig", description="Armature object; empty: the active object")

    def execute(self, context):
        rig = chosen_rig(self, context)
        if rig is None:
            return {"CANCELLED"}
        try:
            leg_ik.find_legs(rig.data)
        except MissingBonesError as exc:
            self.report({"ERROR"}, f"{rig.name}: {exc}: nothing changed")
            return {"CANCELLED"}
        mapping = leg_ik.set_up(rig)
        self.report({"INFO"}, f"{rig.name}: foot IK controls {', '.join(mapping['feet'].values())}")
        return {"FINISHED"}


class FOOTPRINT_OT_preview(OnTrackAndRig, bpy.types.Operator):
    """Preview the solved motion on a rig without baking; Remove takes the preview away again exactly"""

    # The rig follows animated target empties through constraints the preview adds; Remove deletes exactly
    # those (with what previews of deleted tracks left behind).

    bl_idname = "footprint.preview"
    bl_label = "Preview on Rig"
    bl_options = {"REGISTER", "UNDO"}

    remove: bpy.props.BoolProperty(name="Remove", default=False, description="Remove the preview instead")

    def run_on_rig(self, context, coll, rig):
        if self.remove:
            if not preview.remove(coll):
                self.report({"WARNING"}, f"No preview of {coll.name!r} on {rig.name}")
                return {"CANCELLED"}
            return {"FINISHED"}
        try:
            _coll, motion = preview.add(context, coll, rig)
        except BAKE_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing added")
            return {"CANCELLED"}
        self.report(*_with_warnings(motion.report, f"Previewing {coll.name!r} on {rig.name}: non-physical "
                                                      f"force mean {motion.report['non_physical_force']['mean']:.3f} "
                                                      "body weight"))
        return {"FINISHED"}


class FOOTPRINT_OT_run_cycle(bpy.types.Operator):
    """Make a running cycle on the rig from RUNNER's parameters (Bruderlin, Calvert 1996); tweak them after"""

    # Adjust Last Operation re-runs the operator with the tweaked values: the rig updates at once.

    bl_idname = "footprint.run_cycle"
    bl_label = "Running Cycle"
    bl_options = {"REGISTER", "UNDO"}

    rig: StringProperty(name="Rig", description="Armature object; empty: the active object")
    speed_kmh: bpy.props.FloatProperty(name="Velocity (km/h)", default=12.0, min=3.0, max=40.0,
                                       description="Running speed, kilometres per hour")
    step_frequency: bpy.props.FloatProperty(
        name="Step Frequency", default=0.0, min=0.0, max=300.0,
        description="Steps per minute with the velocity locked; 0: the natural one for the velocity (eq. 2)")
    level: bpy.props.FloatProperty(name="Level", default=0.0, min=-0.001, max=0.001, step=0.01, precision=4,
                                   description="Running expertise, -0.001 (poor) to 0.001 (skilled)")
    in_place: bpy.props.BoolProperty(name="In Place", default=True,
                                     description="Loop on the spot; off: move forward (root motion)")

    def execute(self, context):
        rig = chosen_rig(self, context)
        if rig is None:
            return {"CANCELLED"}
        try:
            params = parameters.natural(self.speed_kmh, self.level)
            if self.step_frequency > 0.0:
                params = parameters.change(params, "step_frequency", self.step_frequency, locked=("velocity",))
            strip, _motion, cycle = running_bake.bake_cycle(context, rig, params, self.in_place)
        except BAKE_ERRORS as exc:
            self.report({"ERROR"}, f"{exc}: nothing made")
            return {"CANCELLED"}
        self.report({"INFO"}, f"{strip.name}: step length {params.step_length:.2f} m, "
                              f"{params.step_frequency:.0f} steps/min, one stride {cycle:.3f} s")
        return {"FINISHED"}


classes = (FOOTPRINT_OT_bake, FOOTPRINT_OT_measure_rig, FOOTPRINT_OT_setup_leg_ik, FOOTPRINT_OT_preview,
           FOOTPRINT_OT_run_cycle)
