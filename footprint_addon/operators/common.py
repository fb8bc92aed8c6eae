"""Helpers shared by the operators: the active track, the selection, error reporting."""

from ...solver.errors import FootprintError
from .. import scene_io

# Errors an operator turns into a report; the operator validates before it writes, so nothing changed.
USER_ERRORS = (FootprintError, scene_io.NoTerrainError)


def require_track(op, context):
    coll = scene_io.active_track(context)
    if coll is None:
        op.report({"ERROR"}, "No active footprint track: create one or pick one in the Footprints panel")
    return coll


def selected_mask(context, objs):
    selected = {o.name for o in context.selected_objects}
    return [o.name in selected for o in objs]


def has_track(context):
    return scene_io.active_track(context) is not None


class OnActiveTrack:
    """Mixin for operators that work on the active track: greyed out without one; execute() hands the
    track to run(context, track)."""

    @classmethod
    def poll(cls, context):
        return has_track(context)

    def execute(self, context):
        coll = require_track(self, context)
        return {"CANCELLED"} if coll is None else self.run(context, coll)
