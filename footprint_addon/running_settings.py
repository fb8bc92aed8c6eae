"""The Running panel's settings: RUNNER's parameters (each with a lock) and nineteen attributes, kept
consistent with the paper's equations as they are edited, and previewed live on the chosen rig."""

import bpy
from bpy.props import BoolProperty, FloatProperty, PointerProperty, StringProperty

from ..solver.running import parameters
from ..solver.running.attributes import ATTRIBUTE_NAMES, RANGES, natural_attributes

PARAMETER_PROPS = {"velocity": "velocity_kmh", "step_length": "step_length", "step_frequency": "step_frequency",
                   "flight_height": "flight_height"}
_updating = set()  # settings being written back by the equations: their update callbacks stand aside

# What each of RUNNER's attributes does to the stride (B&C 1996 §3.1.2); the unit is added from RANGES.
ATTRIBUTE_DESCRIPTIONS = {
    "arm_swing": "How far the arms swing forward and back, each with the opposite leg",
    "elbow_flexion": "How far the elbows bend",
    "shoulder_rotation": "How far the shoulders turn against the pelvis about the vertical",
    "arm_abduction": "How far the arms are held out to the side",
    "shoulder_height": "How far the shoulders are raised (positive) or dropped (negative)",
    "torso_tilt": "Forward lean of the torso (negative leans back)",
    "torso_sway": "Side-to-side roll of the torso with each step",
    "pelvic_rotation": "How far the pelvis turns about the vertical with each step",
    "pelvic_list": "How far the pelvis rolls to the side with each step",
    "lateral_displacement": "Side-to-side shift of the pelvis over the supporting foot",
    "toe_strike": "Which part of the foot lands first: 0 the heel, 1 the toes",
    "bounciness": "How far the pelvis dips at mid-support: 0 little, 1 a lot",
    "overstride": "How far ahead of the pelvis the foot lands",
    "stride_width": "Sideways distance between the left and right footprints",
    "knee_flexion_swing": "Largest knee bend of the swinging leg",
    "hip_extension": "How far the thigh swings forward of vertical as the other foot leaves the ground",
    "knee_bend_heel_strike": "Knee bend as the foot lands",
    "knee_angle_toe_off": "Knee bend as the foot leaves the ground",
    "foot_turn_out": "How far the toes point outward (negative: inward)",
}
assert set(ATTRIBUTE_DESCRIPTIONS) == set(ATTRIBUTE_NAMES)
UNIT_WORDS = {"deg": ", degrees", "m": ", metres", "": ""}  # unitless ones say their scale


def current(settings):
    """RunningParameters from the settings as they stand."""
    v = parameters.m_per_min(settings.velocity_kmh)
    return parameters.RunningParameters(v, settings.step_length, settings.step_frequency, settings.flight_height,
                                     settings.flight_time, settings.level, settings.body_height)


def chosen_attributes(settings):
    return {name: getattr(settings, name) for name in settings.chosen.split(",") if name}


def write_back(settings, params):
    """Store parameters and the attributes that follow them, without re-entering the update callbacks."""
    key = settings.as_pointer()
    _updating.add(key)
    try:
        settings.velocity_kmh = parameters.kmh(params.velocity)
        settings.step_length = params.step_length
        settings.step_frequency = params.step_frequency
        settings.flight_height = params.flight_height
        settings.flight_time = params.flight_time
        attributes = natural_attributes(params, **chosen_attributes(settings))
        for name in ATTRIBUTE_NAMES:
            setattr(settings, name, getattr(attributes, name))
        settings.error = ""
    finally:
        _updating.discard(key)


def preview(settings, context):
    """Re-make the running cycle on the rig (debounced in the UI; at once without one)."""
    if not (settings.live and settings.rig is not None):
        return
    if bpy.app.background:
        run_preview(context.scene)
        return
    if not bpy.app.timers.is_registered(_timer_preview):
        bpy.app.timers.register(_timer_preview, first_interval=0.05)


def _timer_preview():
    run_preview(bpy.context.scene)
    return None


def run_preview(scene):
    from . import running_bake
    from .rigs import MissingBonesError

    settings = scene.footprint_running
    if settings.rig is None:
        return
    try:
        attributes = natural_attributes(current(settings), **chosen_attributes(settings))
        running_bake.bake_cycle(bpy.context, settings.rig, current(settings), settings.in_place, attributes)
        settings.error = ""
    except (parameters.RunningError, MissingBonesError, ValueError) as exc:
        settings.error = str(exc)


def _parameter_updater(name):
    def update(settings, context):
        if settings.as_pointer() in _updating:
            return
        prop = PARAMETER_PROPS[name]
        value = getattr(settings, prop)
        value = parameters.m_per_min(value) if name == "velocity" else value
        locked = [n for n in PARAMETER_PROPS if getattr(settings, f"lock_{n}") and n != name]
        base = current(settings)  # the edited value is already in; change() recomputes the rest from it
        try:
            params = parameters.change(base, name, value, locked)
        except parameters.RunningError as exc:  # shown in the panel; the other values stay as they were
            settings.error = str(exc)
            return
        write_back(settings, params)
        preview(settings, context)
    return update


def _level_update(settings, context):
    if settings.as_pointer() in _updating:
        return
    try:
        params = parameters.natural(settings.velocity_kmh, settings.level, settings.body_height)
    except parameters.RunningError as exc:
        settings.error = str(exc)
        return
    write_back(settings, params)
    preview(settings, context)


def _attribute_updater(name):
    def update(settings, context):
        if settings.as_pointer() in _updating:
            return
        names = [n for n in settings.chosen.split(",") if n]
        if name not in names:
            settings.chosen = ",".join(names + [name])  # set by hand: it no longer follows the parameters
        preview(settings, context)
    return update


def _settings_annotations():
    notes = {
        "velocity_kmh": FloatProperty(name="Velocity (km/h)", default=12.0, min=2.0, max=45.0,
                                      description="Running speed, kilometres per hour (eq. 1: step length "
                                      "times step frequency)", update=_parameter_updater("velocity")),
        "step_length": FloatProperty(name="Step Length", default=1.0694, min=0.2, max=3.0, unit="LENGTH",
                                     description="Distance from one footprint to the next, metres",
                                     update=_parameter_updater("step_length")),
        "step_frequency": FloatProperty(name="Step Frequency", default=187.0, min=60.0, max=320.0,
                                        description="Steps per minute", update=_parameter_updater("step_frequency")),
        "flight_height": FloatProperty(name="Flight Height", default=0.0434, min=0.0005, max=0.5, unit="LENGTH",
                                       precision=4, update=_parameter_updater("flight_height"),
                                       description="How high the body rises while both feet are off the "
                                       "ground, metres (eq. 3)"),
        "flight_time": FloatProperty(name="Flight Time", default=0.188, options={"HIDDEN"}),
        "level": FloatProperty(name="Level", default=0.0, min=-0.001, max=0.001, precision=4, step=0.01,
                               description="Running expertise: -0.001 poor to 0.001 skilled (eq. 2)",
                               update=_level_update),
        "body_height": FloatProperty(name="Body Height", default=1.8, min=0.5, max=3.0, unit="LENGTH",
                                     description="The runner's standing height, metres: taller runners take "
                                     "longer steps at the same speed (eq. 2)", update=_level_update),
        "in_place": BoolProperty(name="In Place", default=True, update=lambda s, c: preview(s, c),
                                 description="Loop on the spot; off: move forward (root motion)"),
        "live": BoolProperty(name="Live Preview", default=True,
                             description="Re-make the cycle on the rig as values change"),
        "rig": PointerProperty(name="Rig", type=bpy.types.Object, poll=lambda _s, o: o.type == "ARMATURE",
                               description="Armature the running cycle is made on"),
        "chosen": StringProperty(name="Set by Hand", options={"HIDDEN"},
                                 description="Attributes set by hand (they no longer follow the parameters)"),
        "error": StringProperty(name="Problem", options={"HIDDEN"}),
    }
    for name in PARAMETER_PROPS:
        notes[f"lock_{name}"] = BoolProperty(
            name=f"Lock {name.replace('_', ' ')}", default=False,
            description=f"Keep the {name.replace('_', ' ')} fixed while the other parameters change")
    defaults = natural_attributes(parameters.natural(12.0))
    for name in ATTRIBUTE_NAMES:
        low, high, unit, _group = RANGES[name]
        notes[name] = FloatProperty(name=name.replace("_", " ").title() + (f" ({unit})" if unit else ""),
                                    default=getattr(defaults, name), min=low, max=high,
                                    description=f"{ATTRIBUTE_DESCRIPTIONS[name]}{UNIT_WORDS[unit]}; set by "
                                    "hand, it stops following the parameters",
                                    update=_attribute_updater(name))
    return notes


RunningSettings = type("RunningSettings", (bpy.types.PropertyGroup,), {"__annotations__": _settings_annotations()})

classes = (RunningSettings,)
