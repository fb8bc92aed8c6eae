"""Whose is it: what the tool makes for a track (its preview: a collection, empties and their actions; its
bakes: actions in NLA strips) points back at the track's collection itself through a custom property. Not
its name: after a rename, a copy of the track, or a name handed on to another track, a re-preview or a
re-bake must still replace exactly what it made before (with names, it built a second preview beside the
first or took over another track's). Data from earlier versions carries the track's name instead and is
recognised by it. A pointer is a user of the track: appending a baked rig into another file brings its
track (and footprints) along, and a track unlinked from the scene stays while something made for it does."""

PREVIEW_KEY = "footprint_preview"  # on a preview's collection, empties and their actions: the track
BAKE_KEY = "footprint_track"  # on the actions a bake makes: the track
ROLE_KEY = "footprint_role"  # on a preview's empties: which target it is ("COM", "body", "IK L", ...)
BAKE_TRACK = "Footprints: {}"  # the NLA track of a track's bakes, after the track's name


def owned(block, key, coll):
    """Whether the block was made for the track coll (under key)."""
    value = block.get(key)
    if isinstance(value, str):  # an earlier version's: the track's name
        return value == coll.name
    return value is not None and value == coll


_UNSET = object()


def orphaned(block, key):
    """Whether the block was made for a track since deleted (its pointer was cleared)."""
    return block.get(key, _UNSET) is None
