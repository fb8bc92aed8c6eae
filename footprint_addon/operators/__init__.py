"""Operators, one module per concern; each ends with a `classes` tuple."""

from . import bake_ops, body_ops, conform, edit, generate, io, place, running_ops, scrub, track_ops, transition_ops
from . import step_target_ops
from . import planning_ops
from . import extract_ops

classes = (
    track_ops.classes + place.classes + conform.classes + generate.classes + edit.classes + io.classes
    + bake_ops.classes + body_ops.classes + running_ops.classes + scrub.classes + transition_ops.classes
    + step_target_ops.classes
    + planning_ops.classes
    + extract_ops.classes
)
