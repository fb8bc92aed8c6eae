"""Binding armatures to the solver: which bones drive the body and the feet, and the rig's proportions."""

from .armature import MissingBonesError
from .binding import RigBinding, bind

__all__ = ["MissingBonesError", "RigBinding", "bind"]
