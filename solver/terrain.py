"""Terrain heights for the solver, vectorised: flat ground, or a regular height field (bilinear)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import TrackFormatError

MAX_HEIGHT = 1e6  # metres, as a track's positions (track.MAX_DISTANCE): beyond, float32 in Blender and the
# physics' squares stop meaning anything
MIN_SPACING = 1e-3  # metres between height samples: finer is no terrain a foot could tell apart
MAX_CELLS = 16 * 2**20  # height samples (128 MiB of floats)


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

    Any other object (for example {"object": "Terrain"}, which names a Blender object) gives None: the solver
    then takes the ground from the footprints themselves.
    """
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TrackFormatError(f"terrain must be an object such as {{\"flat\": 0}}, not {type(data).__name__}")
    try:
        if "flat" in data:
            return FlatTerrain(_bounded(data["flat"], "flat height", MAX_HEIGHT))
        if "heightfield" in data:
            return _height_field(data["heightfield"])
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise TrackFormatError(f"terrain: {exc}") from None
    return None


def _bounded(value, what, limit):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, not {type(value).__name__}")
    value = float(value)
    if not abs(value) <= limit:  # also false for NaN
        raise ValueError(f"{what} {value:.4g} is not a finite number within {limit:.0e}")
    return value


def _height_field(hf):
    if not isinstance(hf, dict):
        raise TypeError("heightfield must be an object {origin, spacing, heights}")
    origin = hf["origin"]
    if not isinstance(origin, list) or len(origin) != 2:
        raise ValueError("heightfield origin must be [x, y]")
    origin = tuple(_bounded(v, "heightfield origin", MAX_HEIGHT) for v in origin)
    spacing = _bounded(hf["spacing"], "heightfield spacing", MAX_HEIGHT)
    if not spacing >= MIN_SPACING:
        raise ValueError(f"heightfield spacing {spacing:.4g} must be at least {MIN_SPACING:g} m")
    rows = hf["heights"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise TypeError("heightfield heights must be a list of rows")
    if len(rows) * max((len(r) for r in rows), default=0) > MAX_CELLS:
        raise ValueError(f"heightfield heights: more than {MAX_CELLS:,} values")
    if len({len(r) for r in rows}) != 1:
        raise ValueError("heightfield heights must be a grid, every row the same length")
    try:
        values = np.array(rows)  # one pass in C: its kind says whether every height is a number
    except ValueError:  # a list among the numbers
        values = np.array([], dtype=object)
    if values.dtype.kind not in "iuf":
        raise TypeError("heightfield heights must be numbers")
    values = values.astype(float)
    if values.ndim != 2 or min(values.shape) < 2:
        raise ValueError("heightfield heights must be a grid of at least 2 x 2")
    if not (np.abs(values) <= MAX_HEIGHT).all():
        raise ValueError(f"heightfield heights must be finite numbers within {MAX_HEIGHT:.0e} m")
    if max(values.shape) * spacing > 2 * MAX_HEIGHT:
        raise ValueError(f"heightfield spans more than {2 * MAX_HEIGHT:.0e} m")
    return HeightField(origin, spacing, values)
