"""A moving target for a follower (issue 20, item 3): the `footprint-target` document (docs/stones-format.md), its
positions in plan at increasing times, read piecewise linearly between them and held at its ends. The command
line's `plan --follow` reads it; Blender samples an animated empty into the same shape (planning_ops.target_path).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import json_input
from ..errors import NonFiniteError, RangeError, TrackFormatError
from ..track import MAX_DISTANCE, MAX_SECONDS

TARGET_FORMAT = "footprint-target"
TARGET_VERSION = 1
MAX_SAMPLES = 100_000  # positions of one target: 27 minutes sampled at 60 fps


@dataclass(frozen=True)
class Target:
    """A target's positions (N, 2) in plan (metres) at strictly increasing times (N,) (seconds); N >= 2."""

    times: np.ndarray
    positions: np.ndarray

    def __call__(self, at):
        """(..., 2) where the target is at times `at` (...): linear between samples, held before and after."""
        at = np.asarray(at, dtype=float)
        return np.stack([np.interp(at, self.times, self.positions[:, 0]),
                         np.interp(at, self.times, self.positions[:, 1])], axis=-1)

    @property
    def start(self) -> float:
        return float(self.times[0])

    @property
    def span(self) -> float:
        """Seconds from the first sample to the last."""
        return float(self.times[-1] - self.times[0])

    def start_heading(self) -> float:
        """The heading (radians, 0 = +Y, positive turning left: a footprint's) of the target's first move;
        0 for a target that never moves."""
        moves = np.diff(self.positions, axis=0)
        moving = np.flatnonzero(np.hypot(moves[:, 0], moves[:, 1]) > 1e-9)
        if not len(moving):
            return 0.0
        dx, dy = moves[moving[0]]
        return math.atan2(-dx, dy)


def target_from_json(data, source: str = "target") -> Target:
    """A `footprint-target` document: {"format", "version", "times": [t0, t1, ...], "positions": [[x, y], ...]};
    every field checked, the culprit named (the field and its index)."""
    if not isinstance(data, dict) or data.get("format") != TARGET_FORMAT:
        raise TrackFormatError(f'{source}: not a "{TARGET_FORMAT}" document (its "format" must be "{TARGET_FORMAT}")')
    if data.get("version") != TARGET_VERSION:
        raise TrackFormatError(f'{source}: "version" must be {TARGET_VERSION}, not {data.get("version")!r}'[:300])
    times, positions = data.get("times"), data.get("positions")
    if not isinstance(times, list) or not 2 <= len(times) <= MAX_SAMPLES:
        raise TrackFormatError(f'{source}: "times" must be a list of 2 to {MAX_SAMPLES:,} numbers (seconds), not '
                               f"{times!r}"[:300])
    if not isinstance(positions, list):
        raise TrackFormatError(f'{source}: "positions" must be a list of points [x, y] (metres), one per time, '
                               f"not {positions!r}"[:300])
    if len(positions) != len(times):
        raise TrackFormatError(f'{source}: "positions" has {len(positions)} points and "times" {len(times)} times: '
                               "give one position per time")
    for i, t in enumerate(times):  # type checks one by one: numpy would take "1.5" or true for a number
        if not json_input.is_number(t):
            raise TrackFormatError(f"{source}: times[{i}] must be a number (seconds), not {t!r}"[:300])
    for i, p in enumerate(positions):
        if not (isinstance(p, list) and len(p) == 2 and all(json_input.is_number(v) for v in p)):
            raise TrackFormatError(f"{source}: positions[{i}] must be a point [x, y] (metres), not {p!r}"[:300])
    times, positions = np.array(times, dtype=float), np.array(positions, dtype=float).reshape(-1, 2)
    for name, values, limit, unit in (("times", times[:, None], MAX_SECONDS, "s"),
                                      ("positions", positions, MAX_DISTANCE, "m")):
        bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
        if len(bad):
            raise NonFiniteError(f"{source}: {name}[{bad[0]}] holds a number that is NaN or infinite")
        bad = np.flatnonzero((np.abs(values) > limit).any(axis=1))
        if len(bad):
            shown = values[bad[0]][np.argmax(np.abs(values[bad[0]]))]
            raise RangeError(f"{source}: {name}[{bad[0]}] {shown:.4g} {unit} is beyond the limit of {limit:.0e} {unit}")
    stalled = np.flatnonzero(np.diff(times) <= 0.0)
    if len(stalled):
        i = int(stalled[0]) + 1
        raise TrackFormatError(f"{source}: times[{i}] ({times[i]:.6g} s) is not after times[{i - 1}] "
                               f"({times[i - 1]:.6g} s): the times must increase")
    return Target(times, positions)


def load_target(path) -> Target:
    """The target in a `footprint-target` file, read as hostile input (json_input's limits)."""
    return target_from_json(json_input.load(path, what="target file"), str(path))
