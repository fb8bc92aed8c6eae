"""Panels (and, later, viewport overlays)."""

from . import panels

classes = panels.classes
