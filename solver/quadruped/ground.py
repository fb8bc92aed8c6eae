"""The path a quadruped's gait follows, measured on the ground it walks on.

The path is a centreline in plan, straight along +Y, a circle (gait_track's turn radius) or any polyline in
plan (a curve object's samples: `Polyline`), at horizontal arc length u; beyond a polyline's ends it runs
straight on along its end tangents (hind feet stand behind the body at the start, fore feet ahead at the end).

On a terrain (a HeightField) a metre along the path is a metre on the ground: the arc length s counts the
centreline's 3D length over the terrain, so the requested speed is the speed along the ground (on a 15
degree slope the body climbs v sin 15 while it covers v cos 15 in plan). Across a jump's stretch
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
from ..terrain import FlatTerrain

SAMPLE = 0.05  # metres between centreline samples at most
MAX_SAMPLES = 2_000_000  # the longest path is sampled more coarsely rather than exhausting memory
MAX_SLOPE = 45.0  # degrees: steeper ground an animal climbs, scrambles or jumps; a gait does not walk it
BEHIND = 5.0  # metres sampled behind the path's start (hind feet stand behind the body)
RESAMPLE = 0.02  # metres between a polyline's resampled points: a chord's sag on the tightest turn a gait
# takes (a cat's, half its 0.224 m hip height: gait_track.MIN_TURN_RADIUS) is 0.45 mm
DENSE = 0.005  # metres between the points of the smooth curve whose chords measure a polyline's arc length
REACH = 2.0  # metres either side of a nearby arc length that project searches: past the farthest a footprint
# stands from its body's centre along the path (a horse's hind hips, 0.79 m) with room for a stride's turn
CHUNK = 4096  # points projected at once (a window of REACH each: 200 chords)


class Polyline:
    """A centreline in plan through points (N, 2 or 3; z is ignored): a curve's samples (a Bezier's fine
    ones, a Poly curve's vertices), by horizontal arc length u from its first point.

    Between the points it is the cubic Hermite curve through them whose tangents at the points are the means
    of the adjacent chords' directions (at the ends, the neighbour's reflected about the end chord: exact on a
    circular arc, as footpath.Path's): its tangent turns smoothly, so headings along it do. That curve is
    resampled every RESAMPLE metres of its arc length (measured on DENSE chords); positions between the
    samples are on the chords, tangents interpolated. Beyond the ends it runs straight on along the end
    tangents."""

    def __init__(self, points):
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] not in (2, 3) or len(points) < 2 or not np.isfinite(points).all():
            raise FootprintError("a path needs at least two finite points (x, y[, z])")
        points = points[:, :2]
        keep = np.concatenate([[True], np.linalg.norm(np.diff(points, axis=0), axis=1) > 1e-9])
        points = points[keep]
        if len(points) < 2:
            raise FootprintError("the path has no length in plan (its points are one above another)")
        chords = np.diff(points, axis=0)
        lengths = np.linalg.norm(chords, axis=1)
        unit = chords / lengths[:, None]
        tangents = np.empty_like(points)
        if len(points) == 2:
            tangents[:] = unit[0]
        else:
            tangents[1:-1] = _normalized(unit[:-1] + unit[1:])
            for end, chord, inner in ((0, unit[0], tangents[1]), (-1, unit[-1], tangents[-2])):
                tangents[end] = 2.0 * np.dot(chord, inner) * chord - inner
        # The Hermite curve, DENSE apart: each segment in k equal steps of its parameter.
        k = np.maximum(np.ceil(lengths / DENSE).astype(int), 1)
        segment = np.repeat(np.arange(len(lengths)), k)
        t = (np.arange(k.sum()) - np.repeat(np.cumsum(k) - k, k) + 0.0) / np.repeat(k, k)
        segment, t = np.append(segment, len(lengths) - 1), np.append(t, 1.0)
        p0, p1 = points[segment], points[segment + 1]
        m0, m1 = (tangents[segment] * lengths[segment, None], tangents[segment + 1] * lengths[segment, None])
        t = t[:, None]
        h00, h10, h01, h11 = 2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t, -2 * t**3 + 3 * t**2, t**3 - t**2
        dense = h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1
        slope = ((6 * t**2 - 6 * t) * p0 + (3 * t**2 - 4 * t + 1) * m0 + (6 * t - 6 * t**2) * p1
                 + (3 * t**2 - 2 * t) * m1)
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(dense, axis=0), axis=1))])
        self.length = float(arc[-1])
        n = max(int(math.ceil(self.length / RESAMPLE)), 1) + 1
        self.u = np.linspace(0.0, self.length, n)
        self.step = self.length / (n - 1)
        self.points = np.stack([np.interp(self.u, arc, dense[:, i]) for i in range(2)], axis=-1)
        self.tangents = _normalized(np.stack([np.interp(self.u, arc, slope[:, i]) for i in range(2)], axis=-1))

    def centre(self, u):
        """(points (..., 2), headings (...)) at horizontal arc lengths u."""
        u = np.asarray(u, dtype=float)
        n = len(self.u)
        i = np.clip(np.floor(u / self.step).astype(int), 0, n - 2)
        f = np.clip(u / self.step - i, 0.0, 1.0)[..., None]
        points = self.points[i] * (1.0 - f) + self.points[i + 1] * f
        tangent = _normalized(self.tangents[i] * (1.0 - f) + self.tangents[i + 1] * f)
        for beyond, end, offset in ((u < 0.0, 0, u), (u > self.length, -1, u - self.length)):
            points = np.where(beyond[..., None], self.points[end] + offset[..., None] * self.tangents[end], points)
            tangent = np.where(beyond[..., None], self.tangents[end], tangent)
        return points, np.arctan2(-tangent[..., 0], tangent[..., 1])

    def project(self, xy, u_near):
        """Arc length of the path's point nearest each xy among those within REACH of u_near (the straight
        runs beyond the ends included)."""
        xy = np.asarray(xy, dtype=float)
        shape = xy.shape[:-1]
        flat = xy.reshape(-1, 2)
        near = np.broadcast_to(np.asarray(u_near, dtype=float), shape).ravel()
        out = np.empty(len(flat))
        for a in range(0, len(flat), CHUNK):
            out[a:a + CHUNK] = self._project(flat[a:a + CHUNK], near[a:a + CHUNK])
        return out.reshape(shape)

    def _project(self, p, near):
        n, step = len(self.u), self.step
        count = int(math.ceil(2 * REACH / step)) + 2
        first = np.clip(np.floor((near - REACH) / step).astype(int), 0, n - 2)
        index = first[:, None] + np.arange(count)[None]
        valid = index <= n - 2
        index = np.minimum(index, n - 2)
        a, d = self.points[index], self.points[index + 1] - self.points[index]
        t = np.clip(np.einsum("kci,kci->kc", p[:, None] - a, d) / np.einsum("kci,kci->kc", d, d), 0.0, 1.0)
        gap = np.where(valid, np.linalg.norm(a + t[..., None] * d - p[:, None], axis=-1), np.inf)
        u = np.where(valid, self.u[index] + t * step, np.nan)
        for end, use, clip in ((0, near - REACH < 0.0, np.minimum), (-1, near + REACH > self.length, np.maximum)):
            along = clip(np.einsum("ki,i->k", p - self.points[end], self.tangents[end]), 0.0)
            off = np.linalg.norm(self.points[end] + along[:, None] * self.tangents[end] - p, axis=-1)
            gap = np.column_stack([gap, np.where(use, off, np.inf)])
            u = np.column_stack([u, self.u[end] + along])
        return u[np.arange(len(p)), np.argmin(gap, axis=1)]

    def tightest(self):
        """(radius, u): the path's tightest turn (its radius, metres) and where (arc length)."""
        turn = np.abs(np.angle(np.exp(1j * np.diff(np.arctan2(-self.tangents[:, 0], self.tangents[:, 1])))))
        i = int(np.argmax(turn))
        return (self.step / turn[i] if turn[i] > 0 else np.inf), float(self.u[i] + 0.5 * self.step)


def _normalized(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class PathGround:
    """The centreline (straight, a circle of turn_radius or a Polyline `path`) on a terrain, by arc length s
    along the ground.

    terrain: None (level at 0), a FlatTerrain, a HeightField, or anything else with heights(xy) and a
    spacing (the add-on's ray casts on terrain meshes). spans: (start, length) pairs along the path (metres,
    sorted, not overlapping) flown over rather than walked (the jumps): their metric is the take-off's."""

    def __init__(self, turn_radius=None, terrain=None, spans=(), path=None):
        self.radius = turn_radius
        self.path = path
        self.terrain = terrain
        self.spans = tuple(spans)
        self.flat = terrain is None or isinstance(terrain, FlatTerrain)
        self.level = terrain.height if isinstance(terrain, FlatTerrain) else 0.0
        if not self.flat and not (callable(getattr(terrain, "heights", None)) and hasattr(terrain, "spacing")):
            raise FootprintError(f"unknown terrain {type(terrain).__name__}: expected FlatTerrain or HeightField")
        self._covered = -np.inf
        self._u = self._s = self._z = self._metric = None

    # --- plan ---------------------------------------------------------------------------------------
    def centre(self, u):
        """(points (n, 2), headings (n,)) at horizontal arc lengths u: along +Y, on a circle turning left
        (radius > 0) or right (< 0), or along the path, heading 0 along +Y and counter-clockwise positive."""
        u = np.asarray(u, dtype=float)
        if self.path is not None:
            return self.path.centre(u)
        if self.radius is None:
            return np.stack([np.zeros_like(u), u], axis=-1), np.zeros_like(u)
        heading = u / self.radius
        r = self.radius
        return np.stack([r * (np.cos(heading) - 1.0), r * np.sin(heading)], axis=-1), heading

    def project(self, xy, u_near):
        """Horizontal arc length of the centreline point nearest each xy (the one within half a turn of
        u_near, on a circle; within REACH of it, on a path)."""
        xy = np.asarray(xy, dtype=float)
        if self.path is not None:
            return self.path.project(xy, u_near)
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
        """Plan arc lengths at arc lengths s along the ground."""
        return self._mapped(s, "_s", "_u")

    def s_of(self, u):
        """Arc lengths along the ground at plan arc lengths u."""
        return self._mapped(u, "_u", "_s")

    def _mapped(self, values, source, target):
        """values interpolated from the samples' source arc lengths to their target ones (the same on flat
        ground); sampled far enough first (s >= u: a ground length covers its plan length)."""
        values = np.asarray(values, dtype=float)
        if self.flat:
            return values.copy()
        self._ensure(float(np.max(values, initial=0.0)))
        return np.interp(values, getattr(self, source), getattr(self, target))

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

    def span(self, u0, u1):
        """A jump's (start, length) in metres along the ground for the plan stretch u0 to u1 of the path: its
        start where the path (the spans given so far flown) reaches u0, its length at the take-off's metric
        (the one the stretch is then flown at: the sampling interval's that holds u0, ending at it when u0 is a
        sample, as the add-on's jumps are)."""
        if self.flat:
            return float(u0), float(u1 - u0)
        self._ensure(float(u1))
        i = int(np.clip(np.searchsorted(self._u, u0, side="left") - 1, 0, len(self._metric) - 1))
        return float(self.s_of(np.array([u0]))[0]), float((u1 - u0) * self._metric[i])

    def check_walkable(self, s0, s1, step=0.0):
        """A FootprintError where the ground walked on between arc lengths s0 and s1 (outside the jumps) is
        steeper than MAX_SLOPE: such ground is jumped over (a jump) or climbed, not walked at a gait. A steep
        stretch that rises or falls `step` metres at most (a curb, a riser lower than a step) is stepped."""
        if self.flat:
            return
        self._ensure(s1)
        u, s, z = self._u, self._s, self._z
        walked = (s[:-1] >= s0) & (s[1:] <= s1) & (np.diff(u) > 1e-6)
        for start, length in self.spans:
            walked &= ~((s[:-1] >= start - 1e-9) & (s[1:] <= start + length + 1e-9))
        steep = np.degrees(np.arctan(np.abs(np.diff(z) / np.maximum(np.diff(u), 1e-12))))
        steep[~walked] = 0.0
        too = steep > MAX_SLOPE
        edges = np.diff(np.concatenate([[0], too.astype(np.int8), [0]]))
        for first, last in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):  # each steep stretch
            if abs(z[last] - z[first]) > step:  # the first such place along the path
                worst = first
                raise FootprintError(f"the ground {s[worst]:.2f} m along the path is {steep[worst]:.0f} degrees "
                                     f"steep, steeper than the {MAX_SLOPE:g} degrees a gait walks on: give a jump "
                                     "over it (a ledge, a riser) or a gentler terrain")


def _arc(u, metric):
    """Arc length at each sample, 0 at u = 0."""
    s = np.concatenate([[0.0], np.cumsum(np.diff(u) * metric)])
    return s - np.interp(0.0, u, s)
