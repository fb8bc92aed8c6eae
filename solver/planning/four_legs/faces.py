"""The faces feet may land on (stones' usable discs, or surfaces' footholds): exactly, and as a raster for testing
many points along lines at once."""

from __future__ import annotations

import math

import numpy as np

from ..footholds import MARGIN, Stones

SAMPLE = 0.02  # metres between the samples of a path or a route's lines tested against the usable faces
MAX_CELLS = 4_000_000  # the usable faces' raster is coarser than SAMPLE past this many cells


class Faces:
    """The usable faces: exactly (on) and as a raster for testing many points along lines (on_raster); each
    point's surface (-1: none) and height."""

    def __init__(self, ground, extra_points):
        self.stones = ground if isinstance(ground, Stones) else None
        self.holds = None if self.stones is not None else ground
        if self.stones is not None:  # each face a disc: a stone's usable face, or within a spacing of a foothold
            centres, reach = self.stones.positions, self.stones.radii - MARGIN
            owners = np.arange(len(self.stones))
            self.names = tuple(f"stone {i}" for i in range(len(self.stones)))
        else:
            centres, reach = self.holds.points, np.full(len(self.holds.points), self.holds.spacing)
            owners = self.holds.surface
            self.names = self.holds.names
        self.centres, self.reach, self.owners = centres, reach, owners
        low = np.minimum(centres[:, :2].min(axis=0) - reach.max(), np.min(extra_points, axis=0)) - 1.0
        high = np.maximum(centres[:, :2].max(axis=0) + reach.max(), np.max(extra_points, axis=0)) + 1.0
        cell = max(SAMPLE, math.sqrt(float(np.prod(high - low)) / MAX_CELLS))
        shape = np.ceil((high - low) / cell).astype(int) + 1
        self.low, self.cell = low, cell
        self.surface = np.full(shape[::-1], -1, dtype=np.int32)
        self.height = np.full(shape[::-1], -np.inf)
        inset = 0.5 * math.sqrt(2.0) * cell  # a cell is marked only where all of it is on the face
        for k in np.argsort(centres[:, 2]):  # each face's disc, the higher ones over the lower (thousands at most)
            r = reach[k] - inset
            if r <= 0:
                continue
            i0, j0 = np.floor((centres[k, :2] - r - low) / cell).astype(int)
            i1, j1 = np.ceil((centres[k, :2] + r - low) / cell).astype(int) + 1
            xs, ys = low[0] + cell * np.arange(i0, i1), low[1] + cell * np.arange(j0, j1)
            inside = (xs[None] - centres[k, 0]) ** 2 + (ys[:, None] - centres[k, 1]) ** 2 <= r * r
            window = (slice(j0, j1), slice(i0, i1))
            self.surface[window] = np.where(inside, owners[k], self.surface[window])
            self.height[window] = np.where(inside, centres[k, 2], self.height[window])

    def on_raster(self, xy):
        """(surface (N,), height (N,)) of the raster's cells under the points (-1, -inf off every face)."""
        index = np.round((np.asarray(xy)[..., :2] - self.low) / self.cell).astype(int)
        i = np.clip(index[..., 0], 0, self.surface.shape[1] - 1)
        j = np.clip(index[..., 1], 0, self.surface.shape[0] - 1)
        return self.surface[j, i], self.height[j, i]

    def on(self, xy):
        """(surface (N,), height (N,), how far off its nearest face each point is (<= 0: on it), that face)
        exactly: a stone's usable disc, or within a spacing of a foothold."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        centres, reach, owners = self.centres, self.reach, self.owners
        surface, height = np.full(len(xy), -1), np.full(len(xy), -np.inf)
        off, nearest = np.empty(len(xy)), np.empty(len(xy), dtype=int)
        for a in range(0, len(xy), 256):  # the points a chunk at a time against every face
            gap = np.linalg.norm(xy[a:a + 256, None] - centres[None, :, :2], axis=2) - reach[None]
            k = gap.argmin(axis=1)
            off[a:a + 256], nearest[a:a + 256] = gap[np.arange(len(k)), k], owners[k]
            ranked = np.where(gap <= 1e-9, centres[None, :, 2], -np.inf)
            top = ranked.argmax(axis=1)
            found = np.isfinite(ranked[np.arange(len(top)), top])
            surface[a:a + 256] = np.where(found, owners[top], -1)
            height[a:a + 256] = np.where(found, centres[top, 2], -np.inf)
        return surface, height, off, nearest
