"""Terrain queries on the evaluated mesh (modifiers included): vertical projection, surface normals, and the
height field the solver reads (swing arcs over steps, COM clearance, the report's ground)."""

import math

import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

from ..solver.terrain import HeightField

DOWN = Vector((0.0, 0.0, -1.0))
SPACING = 0.05  # metres between height samples: a riser becomes a 5 cm ramp (the solver's test stairs too)
MARGIN = 1.0  # metres of terrain sampled around the footprints, the region snapped out to whole metres
MAX_SAMPLES = 250_000  # a larger region is sampled coarser
_fields = {}  # (terrain name, region, spacing) -> HeightField, until that terrain changes


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

    def project(self, xy):
        """Terrain points and normals straight below (or above) each (x, y): hit mask, points, normals."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        hit = np.zeros(len(xy), dtype=bool)
        points = np.zeros((len(xy), 3))
        normals = np.tile([0.0, 0.0, 1.0], (len(xy), 1))
        for i, (x, y) in enumerate(xy):
            result = self.cast((x, y, self.top), DOWN)
            if result is not None:
                hit[i] = True
                points[i], normals[i] = result
        return hit, points, normals


def height_field(context, terrain, positions):
    """The terrain object's evaluated surface around the footprints at positions (F, 3), as the solver's
    HeightField: one vertical ray per sample within MARGIN of a footprint (the body and the swings stay
    there), made once per region and kept until the terrain changes (forget). Elsewhere, and where no ray
    hits (past the mesh's edge), the lowest height hit stands in."""
    low = np.floor(positions[:, :2].min(axis=0) - MARGIN)
    high = np.ceil(positions[:, :2].max(axis=0) + MARGIN)
    corridor = min(float(np.prod(high - low)), len(positions) * (2.0 * MARGIN) ** 2)  # at most, in m^2
    spacing = max(SPACING, math.sqrt(corridor / MAX_SAMPLES))
    key = (terrain.name, tuple(low), tuple(high), spacing)
    if key not in _fields:
        shape = (int(round((high[1] - low[1]) / spacing)) + 1, int(round((high[0] - low[0]) / spacing)) + 1)
        near = _near(positions[:, :2], low, spacing, shape, int(math.ceil(MARGIN / spacing)))
        ys, xs = np.nonzero(near)
        hit, points, _normals = TerrainProbe(terrain, context.evaluated_depsgraph_get()).project(
            np.column_stack([low[0] + xs * spacing, low[1] + ys * spacing]))
        heights = np.full(shape, points[hit, 2].min() if hit.any() else 0.0)
        heights[ys[hit], xs[hit]] = points[hit, 2]
        _fields[key] = HeightField((float(low[0]), float(low[1])), spacing, heights)
    return _fields[key]


def _near(xy, low, spacing, shape, reach):
    """(ny, nx) bool: the grid cells within reach cells (a square) of any of the points xy (F, 2)."""
    marked = np.zeros((shape[0] + 1, shape[1] + 1))
    i = np.clip(np.round((xy - low) / spacing).astype(int), 0, np.array(shape)[::-1] - 1)
    np.add.at(marked, (np.maximum(i[:, 1] - reach, 0), np.maximum(i[:, 0] - reach, 0)), 1.0)
    np.add.at(marked, (np.minimum(i[:, 1] + reach + 1, shape[0]), np.maximum(i[:, 0] - reach, 0)), -1.0)
    np.add.at(marked, (np.maximum(i[:, 1] - reach, 0), np.minimum(i[:, 0] + reach + 1, shape[1])), -1.0)
    np.add.at(marked, (np.minimum(i[:, 1] + reach + 1, shape[0]), np.minimum(i[:, 0] + reach + 1, shape[1])), 1.0)
    return marked.cumsum(axis=0).cumsum(axis=1)[:shape[0], :shape[1]] > 0.5


def forget(name=None):
    """Drop the height fields of the terrain object called name (it changed), or all of them."""
    for key in [k for k in _fields if name is None or k[0] == name]:
        del _fields[key]
