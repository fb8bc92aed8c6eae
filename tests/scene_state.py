"""A comparable snapshot of everything the add-on could touch: objects, collections, track settings."""

import bpy


def _round(values):
    return tuple(round(float(v), 7) for v in values)


def snapshot():
    objects = {}
    for obj in bpy.data.objects:
        entry = {
            "type": obj.type,
            "location": _round(obj.location),
            "rotation": _round(obj.rotation_euler),
            "mode": obj.rotation_mode,
            "scale": _round(obj.scale),
            "parent": obj.parent.name if obj.parent else None,
            "collections": sorted(c.name for c in obj.users_collection),
            "modifiers": [(m.name, getattr(m, "strength", None)) for m in obj.modifiers],
        }
        fp = getattr(obj, "footprint", None)
        if fp is not None and fp.is_footprint:
            entry["footprint"] = (fp.foot, round(fp.contact, 7), round(fp.liftoff, 7))
        objects[obj.name] = entry
    collections = {}
    for coll in bpy.data.collections:
        settings = coll.footprint_track
        collections[coll.name] = {
            "objects": sorted(o.name for o in coll.objects),
            "track": (settings.is_track, settings.character, settings.character_json, settings.gait,
                      settings.terrain.name if settings.terrain else None),
        }
    active = bpy.context.scene.footprint.active_track
    return {"objects": objects, "collections": collections, "active": active.name if active else None,
            "meshes": len(bpy.data.meshes)}
