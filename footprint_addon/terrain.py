"""Terrain queries on the evaluated mesh (modifiers included): vertical projection, surface normals, and the
height field the solver reads (swing arcs over steps, COM clearance, the report's ground)."""

import math

import bpy
import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

from ..solver.terrain import HeightField
from .scene_io import NoTerrainError

DOWN = Vector((0.0, 0.0, -1.0))
SPACING = 0.05  # metres between height samples: a riser becomes a 5 cm ramp (the solver's test stairs too)
MARGIN = 1.0  # metres of terrain sampled around each footprint (the region snapped out to the lattice)
HEADROOM = 1.0  # metres above the footprints nearby that the rays start from (under a bridge: the ground)
MAX_SAMPLES = 250_000  # rays: a larger corridor is sampled coarser
MAX_CELLS = 2_000_000  # grid cells (16 MB): a larger region is sampled coarser
_fields = {}  # track session id -> _Field of its terrain objects, until one of them changes
_revisions = {}  # terrain object session id -> how many times it changed (solves read it: live signatures)


def track_terrain(coll):
    """The mesh objects a track stands on (see terrain_objects)."""
    return terrain_objects(coll.footprint_track.terrain, coll.footprint_track.terrain_collection)


def terrain_objects(obj, collection):
    """The terrain object (or None) and every mesh of the collection (or None; child collections too), each
    once, the collection's by name; empty without either."""
    objects = [] if obj is None else [obj]
    if collection is not None:
        objects += sorted((o for o in collection.all_objects if o.type == "MESH" and o not in objects),
                          key=lambda o: o.name)
    return tuple(objects)


def _objects(terrain):
    """A terrain given as one object or several, as a tuple."""
    return (terrain,) if isinstance(terrain, bpy.types.Object) else tuple(terrain)


class _Part:
    """One terrain object's evaluated mesh (modifiers included) in a BVH of its own space: BVHTree.FromObject
    builds it in C (0.16 s for 720k triangles; one world-space tree of every object's triangles through
    FromPolygons took 1.7 s)."""

    def __init__(self, evaluated, depsgraph):
        self.bvh = BVHTree.FromObject(evaluated, depsgraph)
        self.to_world = evaluated.matrix_world.copy()
        self.to_local = self.to_world.inverted_safe()
        self.normal_to_world = self.to_local.to_3x3().transposed()
        self.top = max((self.to_world @ Vector(c)).z for c in evaluated.bound_box)

    def cast(self, origin, direction):
        """First hit of a world-space ray: (location, unit normal) in world space, or None."""
        local_dir = (self.to_local.to_3x3() @ direction).normalized()
        location, normal, _index, _dist = self.bvh.ray_cast(self.to_local @ origin, local_dir)
        if location is None:
            return None
        return self.to_world @ location, (self.normal_to_world @ normal).normalized()


class TerrainProbe:
    """Casts rays onto a terrain: one mesh object or several (a track's terrain object and collection),
    each evaluated (modifiers included); the nearest hit counts. Objects not evaluated (disabled in
    viewports) are left out; none evaluated: NoTerrainError. Build once per operation: the BVHs cost O(faces)."""

    def __init__(self, terrain, depsgraph):
        objects = _objects(terrain)
        self.name = ", ".join(o.name for o in objects)
        # (is_evaluated stays true for an object disabled after it was evaluated: ask the depsgraph)
        self.parts = [_Part(o.evaluated_get(depsgraph), depsgraph) for o in objects
                      if depsgraph.objects.get(o.name) is not None]
        if not self.parts:
            raise NoTerrainError(f"terrain {self.name!r} has no evaluated mesh (disabled in viewports?)")
        self.top = max(p.top for p in self.parts) + 1.0

    def cast(self, origin, direction):
        """First hit of a world-space ray: (location, unit normal) in world space, or None."""
        origin, direction = Vector(origin), Vector(direction)
        hits = [hit for hit in (p.cast(origin, direction) for p in self.parts) if hit is not None]
        if not hits:
            return None
        location, normal = min(hits, key=lambda hit: (hit[0] - origin).length)
        if normal.z < 0.0:  # faces seen from below: the surface is the same plane
            normal.negate()
        return location, normal

    def project(self, xy, tops=None):
        """Terrain points and normals straight below (or above) each (x, y), from above the whole mesh or
        from the given heights (tops (n,)): hit mask, points, normals."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        tops = np.full(len(xy), self.top) if tops is None else np.minimum(tops, self.top)
        hit = np.zeros(len(xy), dtype=bool)
        points = np.zeros((len(xy), 3))
        normals = np.tile([0.0, 0.0, 1.0], (len(xy), 1))
        for i, (x, y) in enumerate(xy):
            result = self.cast((x, y, tops[i]), DOWN)
            if result is not None:
                hit[i] = True
                points[i], normals[i] = result
        return hit, points, normals


class _Field:
    """A terrain's height samples on a region of the world's lattice of one spacing, filled in as footprints
    need them."""

    def __init__(self, terrain, spacing, origin, shape):
        self.terrain = terrain  # the session ids of the terrain objects sampled
        self.spacing = spacing
        self.origin = origin  # (x, y) lattice index of cell [0, 0]: the region's low corner / spacing
        self.heights = np.zeros(shape)
        self.cast_from = np.full(shape, np.nan)  # the height each cell's ray started from (NaN: never cast)
        self.positions = None  # the footprints it was last asked for, their _tops...
        self.tops = None
        self.solver = None  # ...and the HeightField made for them

    def moved_to(self, origin, shape):
        """The same lattice over another region: the samples the two share are kept (a footprint added
        past the old region casts rays only for the new cells)."""
        field = _Field(self.terrain, self.spacing, origin, shape)
        low = np.maximum(self.origin, origin)
        high = np.minimum(np.add(self.origin, self.heights.shape[::-1]), np.add(origin, shape[::-1]))
        if (high > low).all():
            old = np.s_[low[1] - self.origin[1]:high[1] - self.origin[1], low[0] - self.origin[0]:high[0] - self.origin[0]]
            new = np.s_[low[1] - origin[1]:high[1] - origin[1], low[0] - origin[0]:high[0] - origin[0]]
            field.heights[new], field.cast_from[new] = self.heights[old], self.cast_from[old]
        return field


def height_field(context, terrain, positions, owner):
    """The evaluated surface of the terrain (an object or several: see track_terrain) around the footprints
    at positions (F, 3) of the track owner (a collection: each track on a terrain keeps its own samples), as
    the solver's HeightField; None when no terrain object is evaluated (disabled in viewports, excluded):
    the solver then takes the ground from the footprints. One vertical ray per grid cell within MARGIN of a
    footprint, from HEADROOM above the footprints there; a cell's sample is kept until the terrain changes
    (forget) or its ray would start elsewhere (a footprint nearby went up onto a bridge, say), also when
    footprints are added or removed (the cells lie on a lattice fixed in the world): the same footprints
    give the same field whatever the edits before. Cells no ray hits (past the mesh's edge), and cells away
    from every footprint, stand at the lowest footprint's height."""
    low_xy = positions[:, :2].min(axis=0) - MARGIN
    high_xy = positions[:, :2].max(axis=0) + MARGIN
    area = float(np.prod(high_xy - low_xy))
    corridor = min(area, len(positions) * (2.0 * MARGIN) ** 2)
    needed = max(math.sqrt(corridor / MAX_SAMPLES), math.sqrt(area / MAX_CELLS))
    spacing = max(SPACING, math.ceil(needed * 100.0) / 100.0)  # whole centimetres: it changes seldom
    origin = tuple(int(v) for v in np.floor(low_xy / spacing))
    shape = tuple(int(v) + 1 for v in (np.ceil(high_xy / spacing) - origin)[::-1])
    low = np.array(origin) * spacing
    depsgraph = context.evaluated_depsgraph_get()  # first: evaluating may report a change (forget)
    key, sampled = owner.session_uid, tuple(o.session_uid for o in _objects(terrain))
    field = _fields.get(key)
    if field is None or field.spacing != spacing or field.terrain != sampled:
        field = _fields[key] = _Field(sampled, spacing, origin, shape)
    elif field.origin != origin or field.heights.shape != shape:
        field = _fields[key] = field.moved_to(origin, shape)
    if field.solver is not None and np.array_equal(positions, field.positions):
        return field.solver  # the same footprints: a live update that only retimed, say
    previous = None if field.tops is None else (field.tops, field.positions)
    tops = _tops(positions, low, spacing, shape, int(math.ceil(MARGIN / spacing)), previous)
    ys, xs = np.nonzero(np.isfinite(tops) & (tops != field.cast_from))
    if len(ys):
        try:
            probe = TerrainProbe(terrain, depsgraph)
        except (NoTerrainError, SystemError, RuntimeError):  # no evaluated mesh to cast on: the solver then
            return None  # stands the track on its footprints (rig_quality.measure_track measures it so too)
        hit, points, _normals = probe.project(np.column_stack([low[0] + xs * spacing, low[1] + ys * spacing]),
                                              tops[ys, xs])
        field.heights[ys, xs] = np.where(hit, points[:, 2], np.nan)
        field.cast_from[ys, xs] = tops[ys, xs]
    heights = np.where(np.isfinite(tops) & np.isfinite(field.heights), field.heights, float(positions[:, 2].min()))
    field.solver = HeightField((float(low[0]), float(low[1])), spacing, heights)
    field.positions, field.tops = positions.copy(), tops
    return field.solver


def track_probe(context, coll):
    """A TerrainProbe of the track's terrain (see track_terrain), or None without one; NoTerrainError when
    none of its objects is evaluated."""
    objects = track_terrain(coll)
    return TerrainProbe(objects, context.evaluated_depsgraph_get()) if objects else None


def track_height_field(context, coll, positions):
    """The track's terrain (see track_terrain) as the solver reads it: a height_field around the footprints
    at positions, or None without a terrain."""
    objects = track_terrain(coll)
    return height_field(context, objects, positions, coll) if objects else None


def _tops(positions, low, spacing, shape, reach, previous=None):
    """(ny, nx): for the grid cells within reach cells (a square) of a footprint, HEADROOM above the
    highest such footprint; -inf elsewhere. previous: (tops, positions) of the same grid and as many
    footprints: only around the footprints that moved since is it worked out again (a drag moves one)."""
    cells = _cells(positions, low, spacing, shape)
    if previous is None or len(previous[1]) != len(positions):
        tops, (y0, y1, x0, x1) = np.full(shape, -np.inf), (0, shape[0], 0, shape[1])
    else:
        tops, before = previous[0].copy(), previous[1]
        moved = np.flatnonzero((before != positions).any(axis=1))
        around = np.concatenate([cells[moved], _cells(before[moved], low, spacing, shape)])  # (some moved: the
        # same footprints return the field kept before asking)
        (x0, y0), (x1, y1) = np.maximum(around.min(axis=0) - reach, 0), around.max(axis=0) + reach + 1
        tops[y0:y1, x0:x1] = -np.inf
    near = ((cells[:, 0] + reach >= x0) & (cells[:, 0] - reach < x1)
            & (cells[:, 1] + reach >= y0) & (cells[:, 1] - reach < y1))
    for (x, y), z in zip(cells[near], positions[near, 2]):  # one slice per footprint
        square = tops[max(y - reach, y0):min(y + reach + 1, y1), max(x - reach, x0):min(x + reach + 1, x1)]
        np.maximum(square, z + HEADROOM, out=square)
    return tops


def _cells(positions, low, spacing, shape):
    """(F, 2): the grid cell (x, y) nearest each footprint, clipped into the grid."""
    return np.clip(np.round((positions[:, :2] - low) / spacing).astype(int), 0, np.array(shape)[::-1] - 1)


def revision(terrain):
    """How many times each terrain object changed (geometry or transform) since it was first solved on."""
    return tuple(_revisions.get(o.session_uid, 0) for o in _objects(terrain))


def forget(terrain=None):
    """The terrain object changed: drop the samples of every terrain it is part of and count the change;
    without one, forget them all."""
    if terrain is None:
        _fields.clear()
        _revisions.clear()
    else:
        for key in [k for k, field in _fields.items() if terrain.session_uid in field.terrain]:
            del _fields[key]
        _revisions[terrain.session_uid] = _revisions.get(terrain.session_uid, 0) + 1


def solved_on(terrain):
    """Whether a solve has read this object as (part of) a terrain (its changes matter to the live update)."""
    return any(terrain.session_uid in field.terrain for field in _fields.values())
