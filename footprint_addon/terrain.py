"""Terrain queries on the evaluated mesh (modifiers included): vertical projection, surface normals."""

import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

DOWN = Vector((0.0, 0.0, -1.0))


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
