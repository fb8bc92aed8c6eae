"""Terrains for quadruped gaits along +Y (the gait command's straight path), as solver/terrain.py height
fields, so a track carries them in its JSON: a slope (a plane), a hill (up, a top, down) and Torkos §6's ramp
(a raised platform the animal jumps onto and off, with the two jumps). Heights vary along Y only; the
grids are two columns wide (a height field is constant beyond its edges, so that is exact across the
path) and their kinks fall on grid rows (bilinear interpolation is then exactly piecewise linear).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import FootprintError
from ..terrain import MAX_HEIGHT, HeightField
from .ground import MAX_SLOPE
from .jumps import Jump

EXTENT = 10_000.0  # metres either side of the origin a plane spans (beyond, it is level)
RISER_CLEAR = 0.01  # metres a ramp's jumps reach past its risers


def _degrees(degrees):
    if not (isinstance(degrees, (int, float)) and math.isfinite(degrees)):
        raise FootprintError(f"slope must be a number of degrees, not {degrees!r}")
    if abs(degrees) > MAX_SLOPE:
        raise FootprintError(f"a slope of {degrees:g} degrees is steeper than the {MAX_SLOPE:g} degrees a gait walks "
                             "on (an animal climbs or scrambles up that)")
    return math.tan(math.radians(degrees))


def slope(degrees: float, extent: float = EXTENT) -> HeightField:
    """The plane z = tan(degrees) y: up along +Y for positive degrees, down for negative; level beyond
    +-extent metres."""
    rise = _degrees(degrees)
    if not (0 < extent and abs(rise) * extent <= MAX_HEIGHT):
        raise FootprintError(f"slope extent {extent:g} m is not positive or reaches beyond {MAX_HEIGHT:.0e} m")
    z = rise * extent
    return HeightField((-extent, -extent), 2 * extent, np.array([[-z, -z], [z, z]]))


def _profile(points, spacing):
    """A height field along +Y through (y, z) points (y on the grid), level before the first and after the
    last."""
    y = np.array([p[0] for p in points], dtype=float)
    z = np.array([p[1] for p in points], dtype=float)
    origin = y[0] - spacing
    rows = origin + spacing * np.arange(int(round((y[-1] - origin) / spacing)) + 2)
    heights = np.interp(rows, y, z)
    return HeightField((-spacing, float(origin)), spacing, np.column_stack([heights, heights]))


def _on_grid(value, spacing):
    return spacing * round(value / spacing)


def hill(degrees: float, start: float, run: float, top: float = 0.0, spacing: float = 0.05) -> HeightField:
    """Level ground to `start` (m along +Y), up at `degrees` over `run` metres in plan, level for `top`
    metres, down as steeply over `run`, then level (positions rounded to the grid's spacing)."""
    _numbers("hill", start=start, run=run, top=top, spacing=spacing)
    rise = _degrees(degrees)
    if not (run > 0 and top >= 0 and spacing > 0):
        raise FootprintError(f"a hill needs a positive run and spacing and a top of at least 0 m, not run {run:g}, "
                             f"top {top:g}, spacing {spacing:g}")
    a = _on_grid(start, spacing)
    b = a + _on_grid(run, spacing)
    c = b + _on_grid(top, spacing)
    d = c + (b - a)
    z = rise * (b - a)
    return _profile([(a, 0.0), (b, z), (c, z), (d, 0.0)], spacing)


def _numbers(what, **values):
    """Refuse any of the values that is not a finite number of metres, naming it."""
    for name, value in values.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value)):
            raise FootprintError(f"{what} {name} must be a number of metres, not {value!r}")


def ramp(start: float, length: float, height: float, spacing: float = 0.02):
    """Torkos §6: a platform `height` metres high from `start` to `start + length` along +Y (its sides one grid
    cell wide, rising just before start and falling just after the end) and the two jumps, onto it and off it,
    each over its side and RISER_CLEAR beyond. Returns (HeightField, (Jump on, Jump off))."""
    _numbers("ramp", start=start, length=length, height=height, spacing=spacing)
    if not (length > 0 and height > 0 and spacing > 0 and start >= spacing + RISER_CLEAR):
        raise FootprintError(f"a ramp needs a positive length, height and spacing and to start at least "
                             f"{spacing + RISER_CLEAR:g} m along the path, not start {start:g}, length {length:g}, "
                             f"height {height:g}")
    if height > MAX_HEIGHT:
        raise FootprintError(f"ramp height {height:g} m is beyond {MAX_HEIGHT:.0e} m")
    a = _on_grid(start, spacing)
    b = a + max(_on_grid(length, spacing), spacing)
    terrain = _profile([(a - spacing, 0.0), (a, height), (b, height), (b + spacing, 0.0)], spacing)
    on = Jump(a - spacing - RISER_CLEAR, spacing + 2 * RISER_CLEAR, name="the jump onto the ramp")
    off = Jump(b - RISER_CLEAR, spacing + 2 * RISER_CLEAR, name="the jump off the ramp")
    return terrain, (on, off)
