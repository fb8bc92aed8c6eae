"""The path a quadruped's gait follows, measured on the ground it walks on.

The path is a centreline in plan, straight along +Y or a circle (gait_track's turn radius), at horizontal arc
length u. On a terrain (a HeightField) a metre along the path is a metre on the ground: the arc length s
counts the centreline's 3D length over the terrain, so the requested speed is the speed along the ground
(on a 15 degree slope the body climbs v sin 15 while it covers v cos 15 in plan). Across a jump's stretch
the ground is not walked on: there the path continues as it left the take-off, at the take-off's slope (a
gap 1 m long on a slope is 1 m along the slope; over flat ground and a ledge, 1 m in plan), so the
body's horizontal speed in flight is the one it took off with. Flat ground (no terrain, or FlatTerrain)
has s = u exactly.

The centreline is sampled every SAMPLE metres at most (a quarter of the height field's spacing where that
is finer): the arc length between samples is the chord, exact on planes and on the piecewise-linear slopes
and ledges of terrains.py whose kinks fall on the grid.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import FootprintError
from ..terrain import FlatTerrain, HeightField

SAMPLE = 0.05  # metres between centreline samples at most
MAX_SAMPLES = 2_000_000  # the longest path is sampled more coarsely rather than exhausting memory
MAX_SLOPE = 45.0  # degrees: steeper ground an animal climbs, scrambles or jumps; a gait does not walk it
BEHIND = 5.0  # metres sampled behind the path's start (hind feet stand behind the body)


class PathGround:
    """The centreline (straight or a circle of turn_radius) on a terrain, by arc length s along the ground.

    spans: (start, length) pairs along the path (metres, sorted, not overlapping) flown over rather than
    walked (the jumps): their metric is the take-off's."""

    def __init__(self, turn_radius=None, terrain=None, spans=()):
        self.radius = turn_radius
        self.terrain = terrain
        self.spans = tuple(spans)
        self.flat = terrain is None or isinstance(terrain, FlatTerrain)
        self.level = terrain.height if isinstance(terrain, FlatTerrain) else 0.0
        if not self.flat and not isinstance(terrain, HeightField):
            raise FootprintError(f"unknown terrain {type(terrain).__name__}: expected FlatTerrain or HeightField")
        self._covered = -np.inf
        self._u = self._s = self._z = self._metric = None

    # --- plan ---------------------------------------------------------------------------------------
    def centre(self, u):
        """(points (n, 2), headings (n,)) at horizontal arc lengths u: along +Y, or on a circle turning left
        (radius > 0) or right (< 0), heading 0 along +Y and counter-clockwise positive."""
        u = np.asarray(u, dtype=float)
        if self.radius is None:
            return np.stack([np.zeros_like(u), u], axis=-1), np.zeros_like(u)
        heading = u / self.radius
        r = self.radius
        return np.stack([r * (np.cos(heading) - 1.0), r * np.sin(heading)], axis=-1), heading

    def project(self, xy, u_near):
        """Horizontal arc length of the centreline point nearest each xy (the one within half a turn of
        u_near, on a circle)."""
        xy = np.asarray(xy, dtype=float)
        if self.radius is None:
            return xy[..., 1].copy()
        r = self.radius
        angle = np.arctan2(xy[..., 1] / r, (xy[..., 0] + r) / r)
        near = np.asarray(u_near, dtype=float) / r
        return r * (near + (angle - near + np.pi) % (2 * np.pi) - np.pi)

    def height(self, xy):
        xy = np.asarray(xy, dtype=float)
        if self.terrain is None:
            return np.zeros(xy.shape[:-1])
        return self.terrain.heights(xy)

    # --- along the ground ---------------------------------------------------------------------------
    def _ensure(self, s_max):
        if self.flat or s_max <= self._covered:
            return
        span_end = max((a + length for a, length in self.spans), default=0.0)
        u_max = 2.0 * max(s_max, span_end, 1.0) + BEHIND  # s >= u: arc length is never shorter than its plan
        step = min(SAMPLE, self.terrain.spacing / 4)
        step = max(step, (u_max + BEHIND) / MAX_SAMPLES)
        behind = math.ceil(BEHIND / step)
        u = (np.arange(-behind, math.ceil(u_max / step) + 1)) * step
        z = self.height(self.centre(u)[0])
        metric = np.hypot(1.0, np.diff(z) / np.diff(u))  # ground metres per plan metre, per interval
        for start, length in self.spans:
            s = _arc(u, metric)
            ua = float(np.interp(start, s, u))
            u, z, metric = self._split(u, z, metric, ua)
            i = int(np.searchsorted(u, ua))
            w = metric[i - 1] if i > 0 else metric[0]  # the take-off's: the interval that ends at ua
            ub = ua + length / w
            u, z, metric = self._split(u, z, metric, ub)
            inside = (u[:-1] >= ua - 1e-12) & (u[1:] <= ub + 1e-12)
            metric[inside] = w
        self._u, self._z, self._metric = u, z, metric
        self._s = _arc(u, metric)
        self._covered = float(self._s[-1])

    def _split(self, u, z, metric, at):
        """The samples with a sample at u = at (its interval's metric kept on both halves)."""
        i = int(np.searchsorted(u, at))
        if i < len(u) and abs(u[i] - at) < 1e-12:
            return u, z, metric
        za = self.height(self.centre(np.array([at]))[0])[0]
        return np.insert(u, i, at), np.insert(z, i, za), np.insert(metric, max(i - 1, 0), metric[max(i - 1, 0)])

    def u_of(self, s):
        s = np.asarray(s, dtype=float)
        if self.flat:
            return s.copy()
        self._ensure(float(np.max(s, initial=0.0)))
        return np.interp(s, self._s, self._u)

    def s_of(self, u):
        u = np.asarray(u, dtype=float)
        if self.flat:
            return u.copy()
        self._ensure(float(np.max(u, initial=0.0)))
        return np.interp(u, self._u, self._s)

    def frames(self, s):
        """At arc lengths s: centreline points (n, 2), headings (n,), and the cosine of the ground's pitch
        along the path (plan metres per ground metre; within a jump, the take-off's)."""
        u = self.u_of(s)
        points, heading = self.centre(u)
        if self.flat:
            return points, heading, np.ones_like(u)
        i = np.clip(np.searchsorted(self._u, u, side="right") - 1, 0, len(self._metric) - 1)
        return points, heading, 1.0 / self._metric[i]

    def ground(self, s):
        """The ground's height under the centreline at arc lengths s."""
        if self.flat:
            return np.full(np.shape(s), self.level, dtype=float)
        return self.height(self.centre(self.u_of(s))[0])

    def highest(self, s0, s1, u_ref=0.0, z_ref=0.0, rate=0.0):
        """The most the ground under the centreline between arc lengths s0 and s1 stands above the line
        z_ref + rate (u - u_ref) (rate: rise per plan metre along the path; by default, its height)."""
        if self.flat:  # (u = s)
            return max(self.level - z_ref - rate * (u - u_ref) for u in (s0, s1))
        self._ensure(s1)
        inside = (self._s >= s0) & (self._s <= s1)
        u = np.concatenate([self.u_of(np.array([s0, s1])), self._u[inside]])
        z = np.concatenate([self.ground(np.array([s0, s1])), self._z[inside]])
        return float((z - z_ref - rate * (u - u_ref)).max())

    def rate(self, s, back=0.1):
        """How steeply the ground rises along the path (per plan metre) just before arc length s."""
        if self.flat:
            return 0.0
        s0 = max(s - back, 0.0) if s > 0 else 0.0
        s1 = s if s > s0 else s0 + back
        u0, u1 = self.u_of(np.array([s0, s1]))
        z0, z1 = self.ground(np.array([s0, s1]))
        return float((z1 - z0) / (u1 - u0))

    def sigma(self, xy, s_near):
        """Arc length along the path of the centreline point beside each xy (s_near: nearby arc lengths)."""
        return self.s_of(self.project(xy, self.u_of(s_near)))

    def check_walkable(self, s0, s1):
        """A FootprintError where the ground walked on between arc lengths s0 and s1 (outside the jumps) is
        steeper than MAX_SLOPE: such ground is jumped over (a jump) or climbed, not walked at a gait."""
        if self.flat:
            return
        self._ensure(s1)
        u, s, z = self._u, self._s, self._z
        walked = (s[:-1] >= s0) & (s[1:] <= s1) & (np.diff(u) > 1e-6)
        for start, length in self.spans:
            walked &= ~((s[:-1] >= start - 1e-9) & (s[1:] <= start + length + 1e-9))
        steep = np.degrees(np.arctan(np.abs(np.diff(z) / np.maximum(np.diff(u), 1e-12))))
        steep[~walked] = 0.0
        too = np.flatnonzero(steep > MAX_SLOPE)
        if too.size:  # the first such place along the path
            worst = int(too[0])
            raise FootprintError(f"the ground {s[worst]:.2f} m along the path is {steep[worst]:.0f} degrees steep, "
                                 f"steeper than the {MAX_SLOPE:g} degrees a gait walks on: give a jump over it "
                                 "(a ledge, a riser) or a gentler terrain")


def _arc(u, metric):
    """Arc length at each sample, 0 at u = 0."""
    s = np.concatenate([[0.0], np.cumsum(np.diff(u) * metric)])
    return s - np.interp(0.0, u, s)
