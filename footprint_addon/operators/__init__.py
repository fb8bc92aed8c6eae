"""Operators, one module per concern; each ends with a `classes` tuple."""

from . import conform, edit, generate, io, place, track_ops

classes = (
    track_ops.classes + place.classes + conform.classes + generate.classes + edit.classes + io.classes
)
