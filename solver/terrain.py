"""Terrain heights for the solver, vectorised: flat ground, or a regular height field (bilinear)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import TrackFormatError


@dataclass(frozen=True)
class FlatTerrain:
    height: float = 0.0

    def heights(self, xy):
        return np.full(np.shape(xy)[:-1], self.height, dtype=float)

    def gradient(self, xy):
        return np.zeros(np.shape(xy), dtype=float)

    def to_json(self):
        return {"flat": self.height}


@dataclass(frozen=True)
class HeightField:
    """Heights on a regular grid: heights[j, i] at (origin_x + i * spacing, origin_y + j * spacing)."""

    origin: tuple
    spacing: float
    values: np.ndarray  # (ny, nx)

    def _cell(self, xy):
        xy = np.asarray(xy, dtype=float)
        ny, nx = self.values.shape
        gx = np.clip((xy[..., 0] - self.origin[0]) / self.spacing, 0.0, nx - 1.000001)
        gy = np.clip((xy[..., 1] - self.origin[1]) / self.spacing, 0.0, ny - 1.000001)
        i, j = np.floor(gx).astype(int), np.floor(gy).astype(int)
        v = self.values
        return gx - i, gy - j, v[j, i], v[j, i + 1], v[j + 1, i], v[j + 1, i + 1]

    def heights(self, xy):
        fx, fy, v00, v10, v01, v11 = self._cell(xy)
        return (v00 * (1 - fx) + v10 * fx) * (1 - fy) + (v01 * (1 - fx) + v11 * fx) * fy

    def gradient(self, xy):
        """d height / d (x, y) of the bilinear interpolation (zero outside the grid, where it is clamped)."""
        fx, fy, v00, v10, v01, v11 = self._cell(xy)
        dx = ((v10 - v00) * (1 - fy) + (v11 - v01) * fy) / self.spacing
        dy = ((v01 - v00) * (1 - fx) + (v11 - v10) * fx) / self.spacing
        return np.stack([dx, dy], axis=-1)

    def to_json(self):
        return {"heightfield": {"origin": list(self.origin), "spacing": self.spacing,
                                "heights": self.values.tolist()}}


def terrain_from_json(data):
    """The optional "terrain" of a track file: {"flat": z} or {"heightfield": {origin, spacing, heights}}.

    Anything else (for example {"object": "Terrain"}, which names a Blender object) gives None: the solver
    then takes the ground from the footprints themselves.
    """
    if not isinstance(data, dict):
        return None
    try:
        if "flat" in data:
            return FlatTerrain(float(data["flat"]))
        if "heightfield" in data:
            hf = data["heightfield"]
            values = np.asarray(hf["heights"], dtype=float)
            if values.ndim != 2 or min(values.shape) < 2 or not np.isfinite(values).all():
                raise ValueError("heights must be a finite grid of at least 2 x 2")
            spacing = float(hf["spacing"])
            if not spacing > 0:
                raise ValueError("spacing must be positive")
            return HeightField(tuple(float(v) for v in hf["origin"][:2]), spacing, values)
    except (KeyError, TypeError, ValueError) as exc:
        raise TrackFormatError(f"terrain: {exc}") from None
    return None
