"""Terrain queries on the evaluated mesh (modifiers included): vertical projection, surface normals, and the
height field the solver reads (swing arcs over steps, COM clearance, the report's ground)."""

import math

import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

from ..solver.terrain import HeightField

DOWN = Vector((0.0, 0.0, -1.0))
SPACING = 0.05  # metres between height samples: a riser becomes a 5 cm ramp (the solver's test stairs too)
MARGIN = 1.0  # metres of terrain sampled around each footprint (the region snapped out to the lattice)
HEADROOM = 1.0  # metres above the footprints nearby that the rays start from (under a bridge: the ground)
MAX_SAMPLES = 250_000  # rays: a larger corridor is sampled coarser
MAX_CELLS = 2_000_000  # grid cells (16 MB): a larger region is sampled coarser
_fields = {}  # (terrain session id, track session id) -> _Field, until the terrain changes
_revisions = {}  # terrain session id -> how many times it changed (solves read it: live signatures)


class TerrainProbe:
    """Casts vertical rays onto a terrain object. Build once per operation: the BVH costs O(faces)."""

    def __init__(self, obj, depsgraph):
        self.name = obj.name
        evaluated = obj.evaluated_get(depsgraph)
        self.bvh = BVHTree.FromObject(evaluated, depsgraph)  # local space
        self.to_world = evaluated.matrix_world.copy()
        self.to_local = self.to_world.inverted_safe()
        self.normal_to_world = self.to_local.to_3x3().transposed()
        corners = [self.to_world @ Vector(c) for c in evaluated.bound_box]
        self.top = max(c.z for c in corners) + 1.0

    def cast(self, origin, direction):
        """First hit of a world-space ray: (location, unit normal) in world space, or None."""
        local_origin = self.to_local @ Vector(origin)
        local_dir = (self.to_local.to_3x3() @ Vector(direction)).normalized()
        location, normal, _index, _dist = self.bvh.ray_cast(local_origin, local_dir)
        if location is None:
            return None
        world_normal = (self.normal_to_world @ normal).normalized()
        if world_normal.z < 0.0:  # faces seen from below: the surface is the same plane
            world_normal.negate()
        return self.to_world @ location, world_normal

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

    def __init__(self, spacing, origin, shape):
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
        field = _Field(self.spacing, origin, shape)
        low = np.maximum(self.origin, origin)
        high = np.minimum(np.add(self.origin, self.heights.shape[::-1]), np.add(origin, shape[::-1]))
        if (high > low).all():
            old = np.s_[low[1] - self.origin[1]:high[1] - self.origin[1], low[0] - self.origin[0]:high[0] - self.origin[0]]
            new = np.s_[low[1] - origin[1]:high[1] - origin[1], low[0] - origin[0]:high[0] - origin[0]]
            field.heights[new], field.cast_from[new] = self.heights[old], self.cast_from[old]
        return field


def height_field(context, terrain, positions, owner):
    """The terrain object's evaluated surface around the footprints at positions (F, 3) of the track owner
    (a collection: each track on a terrain keeps its own samples), as the solver's HeightField; None when
    the terrain is not evaluated (disabled in viewports, excluded): the solver then takes the ground from
    the footprints. One vertical ray per grid cell within MARGIN of a footprint, from HEADROOM above the
    footprints there; a cell's sample is kept until the terrain changes (forget) or its ray would start
    elsewhere (a footprint nearby went up onto a bridge, say), also when footprints are added or removed
    (the cells lie on a lattice fixed in the world): the same footprints give the same field whatever the
    edits before. Cells no ray hits (past the mesh's edge), and cells away from every footprint, stand at
    the lowest footprint's height."""
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
    key = (terrain.session_uid, owner.session_uid)
    field = _fields.get(key)
    if field is None or field.spacing != spacing:
        field = _fields[key] = _Field(spacing, origin, shape)
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
        except (ValueError, SystemError, RuntimeError):  # no evaluated mesh to cast on
            return None
        hit, points, _normals = probe.project(np.column_stack([low[0] + xs * spacing, low[1] + ys * spacing]),
                                              tops[ys, xs])
        field.heights[ys, xs] = np.where(hit, points[:, 2], np.nan)
        field.cast_from[ys, xs] = tops[ys, xs]
    heights = np.where(np.isfinite(tops) & np.isfinite(field.heights), field.heights, float(positions[:, 2].min()))
    field.solver = HeightField((float(low[0]), float(low[1])), spacing, heights)
    field.positions, field.tops = positions.copy(), tops
    return field.solver


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
    """How many times the terrain object changed (geometry or transform) since it was first solved on."""
    return 0 if terrain is None else _revisions.get(terrain.session_uid, 0)


def forget(terrain=None):
    """The terrain object changed: drop its samples and count the change; without one, forget them all."""
    if terrain is None:
        _fields.clear()
        _revisions.clear()
    else:
        for key in [k for k in _fields if k[0] == terrain.session_uid]:
            del _fields[key]
        _revisions[terrain.session_uid] = _revisions.get(terrain.session_uid, 0) + 1


def solved_on(terrain):
    """Whether a solve has read this object as a terrain (its changes matter to the live update)."""
    return any(k[0] == terrain.session_uid for k in _fields)
