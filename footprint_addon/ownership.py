"""What the tool makes for a track (its preview: collection, empties and their actions; its bakes: actions in
NLA strips) carries the track's name. After the track is renamed, those follow: they are renamed with it the
next time the tool works on the track, so re-baking or re-previewing replaces them and Remove Preview finds
them, instead of leaving them behind next to new ones."""

import bpy

PREVIEW_KEY = "footprint_preview"  # on a preview's collection, empties and their actions: the track's name
BAKE_KEY = "footprint_track"  # on the actions a bake makes: the track's name
BAKE_TRACK = "Footprints: {}"  # the NLA track a bake's strip goes on, and the strip is named after the track


def follow_rename(coll):
    """The track's name, after renaming what the tool made for it under its previous name, if it had one.
    Not when another track has that name: this one is then a copy of it (a duplicated collection keeps
    the settings), and what carries the name is the other's."""
    settings = coll.footprint_track
    old, new = settings.owner, coll.name
    if old and old != new and not any(c.footprint_track.is_track and c.name == old for c in bpy.data.collections):
        _rename(old, new)
    if settings.owner != new:
        settings.owner = new
    return new


def _rename(old, new):
    prefix = f"{old} "
    for blocks in (bpy.data.collections, bpy.data.objects, bpy.data.actions):
        for block in blocks:
            if block.get(PREVIEW_KEY) == old:
                block[PREVIEW_KEY] = new
                if block.name.startswith(prefix):
                    block.name = f"{new} {block.name[len(prefix):]}"
    for action in bpy.data.actions:
        if action.get(BAKE_KEY) == old:
            action[BAKE_KEY] = new
            if action.name.startswith(prefix):
                action.name = f"{new} {action.name[len(prefix):]}"
    for obj in bpy.data.objects:
        for track in obj.animation_data.nla_tracks if obj.animation_data else ():
            if track.name == BAKE_TRACK.format(old):
                track.name = BAKE_TRACK.format(new)
                for strip in track.strips:
                    if strip.name == old:
                        strip.name = new
