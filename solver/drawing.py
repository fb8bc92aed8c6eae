"""Pure geometry for drawing footprints: shared by renders, viewport overlays and plots (no Blender)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .character import FORE_FEET, HIND_FEET


def footprint_outline(foot_length: float, foot_width: float, segments: int = 16) -> np.ndarray:
    """A foot-shaped closed outline (segments, 3) in the footprint's frame: toes along +Y, origin mid-foot.

    The front half is wider than the heel, so the toe direction reads at a glance.
    """
    t = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    y = 0.5 * foot_length * np.cos(t)
    half_width = 0.5 * foot_width * np.where(y > 0.0, 1.0, 0.7)
    return np.stack([half_width * np.sin(t), y, np.zeros_like(t)], axis=1)


def outlines_in_world(matrices, foot_length: float, foot_width: float, segments: int = 16,
                      lift: float = 0.0) -> np.ndarray:
    """Outlines placed by 4x4 world matrices (n, 4, 4) -> (n, segments, 3), lifted along each local +Z."""
    local = footprint_outline(foot_length, foot_width, segments)
    local = local + np.array([0.0, 0.0, lift])
    homogeneous = np.concatenate([local, np.ones((segments, 1))], axis=1)
    return np.einsum("nij,sj->nsi", np.asarray(matrices, dtype=float), homogeneous)[..., :3]


# vdP97 Fig. 15: red right stance, magenta left stance, dark blue double stance, pale blue flight.
PHASE_COLORS = {
    "right": (0.9, 0.1, 0.1, 1.0),
    "left": (0.85, 0.1, 0.85, 1.0),
    "double": (0.05, 0.1, 0.55, 1.0),
    "flight": (0.55, 0.75, 1.0, 1.0),
    "other": (0.5, 0.5, 0.5, 1.0),
}
FOOT_COLORS = {  # bipeds in the stance colours; quadrupeds' hind feet likewise, front feet blue and orange
    "L": PHASE_COLORS["left"], "R": PHASE_COLORS["right"], "LH": PHASE_COLORS["left"], "RH": PHASE_COLORS["right"],
    "LF": (0.3, 0.4, 0.95, 1.0), "RF": (0.95, 0.55, 0.1, 1.0),
}
# The legs carrying each of a quadruped's mass points, in Motion.body_points' order (motion.BODY_POINTS):
# each pair's left foot first.
MASS_LEGS = (HIND_FEET, FORE_FEET)


DAGGER_SCALE = 0.5  # metres of dagger per second of stance or step (drawn sideways from the footprint)
CROSSBAR = 0.12  # metres


def foot_color(foot):
    return FOOT_COLORS.get(str(foot), PHASE_COLORS["other"])


def foot_colors(feet):
    """foot_color of each of many feet (n,) -> (n, 4): one mask per foot name, not one call per footprint."""
    feet = np.asarray(feet).astype(str).reshape(-1)
    colors = np.tile(PHASE_COLORS["other"], (len(feet), 1))
    for name, color in FOOT_COLORS.items():
        colors[feet == name] = color
    return colors


def phases(contact, feet):
    """Phase name per sample from the feet in contact (N, L) bool and the feet's names."""
    contact = np.asarray(contact, dtype=bool)
    count = contact.sum(axis=1)
    names = np.full(len(contact), "other", dtype="<U6")
    names[count == 0] = "flight"
    if "L" in feet and "R" in feet:
        left, right = contact[:, list(feet).index("L")], contact[:, list(feet).index("R")]
        names[(count == 1) & left] = "left"
        names[(count == 1) & right] = "right"
        names[left & right] = "double"
    return names


def com_path(com, contact, feet):
    """The COM path as line segments (N-1, 2, 3) with one colour each (N-1, 4), by support phase."""
    com = np.asarray(com, dtype=float)
    names = phases(contact, feet)[:-1]
    colors = np.array([PHASE_COLORS[n] for n in names]).reshape(-1, 4)
    return np.stack([com[:-1], com[1:]], axis=1), colors


def mass_paths(body_points, contact, feet):
    """A quadruped's hind and fore mass paths (Torkos §4.3), each coloured by the support of the pair of legs
    that carries that mass, as a biped's COM path is by its two feet (vdP97 Fig. 15): one foot of the pair
    down, that foot's colour (the hind pair's are the biped's left and right stance colours, the fore pair's
    its own blue and orange, so each path's single stances name its mass); both, the double-stance blue;
    neither, the flight blue (the mass then hangs on the spine's spring alone). Segments (P (N-1), 2, 3),
    the hind path's first, and colours (P (N-1), 4); nothing for a single mass (P = 0)."""
    points = np.asarray(body_points, dtype=float)
    if points.ndim != 3 or points.shape[1] == 0 or len(points) < 2:
        return np.zeros((0, 2, 3)), np.zeros((0, 4))
    contact, feet = np.asarray(contact, dtype=bool), list(feet)
    segments = np.stack([points[:-1], points[1:]], axis=2)  # (N-1, P, 2, 3)
    colors = np.empty(segments.shape[:2] + (4,))
    for mass, (left_name, right_name) in enumerate(MASS_LEGS[:points.shape[1]]):
        left, right = (contact[:-1, feet.index(f)] if f in feet else np.zeros(len(segments), dtype=bool)
                       for f in (left_name, right_name))
        phase = np.select([left & right, left, right], [0, 1, 2], 3)  # double, left alone, right alone, neither
        table = np.array([PHASE_COLORS["double"], foot_color(left_name), foot_color(right_name),
                          PHASE_COLORS["flight"]])
        colors[:, mass] = table[phase]
    return segments.transpose(1, 0, 2, 3).reshape(-1, 2, 3), colors.transpose(1, 0, 2).reshape(-1, 4)


def daggers(positions, headings, feet, contact, liftoff, scale=DAGGER_SCALE, crossbar=CROSSBAR):
    """Timing daggers (vdP97 Fig. 3): per footprint a bar from its centre out to its side, of length
    proportional to the stance time, and a crossbar across it at the distance of the step time (the time to
    the next footfall; none for the last). Returns segments (M, 2, 3) and the footprint of each (M,)."""
    positions = np.asarray(positions, dtype=float)
    contact, liftoff = np.asarray(contact, dtype=float), np.asarray(liftoff, dtype=float)
    order = np.argsort(contact, kind="stable")
    next_fall = np.full(len(contact), np.nan)
    later = np.searchsorted(contact[order], contact, side="right")
    has_next = later < len(contact)
    next_fall[has_next] = contact[order][later[has_next]]
    step = next_fall - contact
    outward = np.where(np.asarray(feet) == "L", -1.0, 1.0)  # left feet's daggers point left
    right = np.stack([np.cos(headings), np.sin(headings), np.zeros(len(headings))], axis=1) * outward[:, None]
    forward = np.stack([-np.sin(headings), np.cos(headings), np.zeros(len(headings))], axis=1)
    bar = np.stack([positions, positions + right * (scale * (liftoff - contact))[:, None]], axis=1)
    at = positions + right * (scale * np.nan_to_num(step))[:, None]
    cross = np.stack([at - forward * crossbar / 2, at + forward * crossbar / 2], axis=1)
    segments = np.concatenate([bar, cross[has_next]])
    owner = np.concatenate([np.arange(len(contact)), np.flatnonzero(has_next)])
    return segments, owner


# The timing diagram's rows, top first, as an animator reads a gait diagram (Hildebrand's, vdP97 Fig. 3's
# plot): left above right; a quadruped's hind pair, then its fore pair.
TIMING_ORDER = ("L", "R", "LH", "RH", "LF", "RF")


def timing_bars(feet, contact, liftoff, foot_order=TIMING_ORDER, rows=None):
    """The timing diagram: its rows (foot names, top first: `rows`, say the character's feet, else the feet
    with footprints, in foot_order) and per footprint (row, start, end): its stance on its foot's row."""
    names = np.asarray(feet).astype(str).reshape(-1)
    present = set(names.tolist()) | set(rows or ())
    rows = [f for f in foot_order if f in present] + sorted(present - set(foot_order))
    row = np.full(len(names), -1)
    for i, name in enumerate(rows):
        row[names == name] = i
    return rows, np.column_stack([row, np.asarray(contact, dtype=float), np.asarray(liftoff, dtype=float)])


@dataclass(frozen=True)
class TimingDiagram:
    """The timing diagram laid out in a region, in pixels: one row of contact bars per foot, time along x."""

    rows: tuple  # foot names, top row first (TIMING_ORDER: left above right, hind pair above fore pair)
    bars: np.ndarray  # (F, 4): x0, y0, x1, y1 of each footprint's contact bar, in the track's order (y up)
    bar_rows: np.ndarray  # (F,) the row (foot) of each bar
    start: float  # seconds at the left edge (first contact)
    end: float  # seconds at the right edge (last lift-off)
    box: tuple  # x0, y0, x1, y1 of the diagram
    row_height: float = 14.0  # pixels
    gap: float = 4.0  # pixels between rows

    def x_of(self, seconds):
        """Pixel column of a time, clamped to the diagram."""
        x0, _y0, x1, _y1 = self.box
        return float(np.clip(x0 + (seconds - self.start) / (self.end - self.start) * (x1 - x0), x0, x1))

    def time_at(self, x):
        """Seconds under a pixel column, clamped to the track."""
        x0, _y0, x1, _y1 = self.box
        return float(self.start + np.clip((x - x0) / (x1 - x0), 0.0, 1.0) * (self.end - self.start))

    def contains(self, x, y, margin: float = 6.0):
        x0, y0, x1, y1 = self.box
        return x0 - margin <= x <= x1 + margin and y0 - margin <= y <= y1 + margin

    @cached_property
    def labels(self):
        """Each row's foot name at the diagram's left, as (name, x, y, colour): x the label's right end
        (LABEL_GAP pixels left of the diagram), y the row's middle; the name in its foot's colour."""
        x0, _y0, _x1, y1 = self.box
        middles = y1 - np.arange(len(self.rows)) * (self.row_height + self.gap) - 0.5 * self.row_height
        return tuple((name, x0 - LABEL_GAP, float(y), foot_color(name)) for name, y in zip(self.rows, middles))

    @cached_property
    def bar_triangles(self):
        """The contact bars as triangles to fill: vertices (6 F, 2) and colours (6 F, 4), two triangles per
        bar in its foot's colour. Made once per diagram, drawn on every redraw."""
        xa, ya, xb, yb = self.bars.T
        corners = np.stack([np.column_stack(c) for c in ((xa, ya), (xb, ya), (xb, yb), (xa, ya), (xb, yb), (xa, yb))],
                           axis=1)
        colors = foot_colors(self.rows)[self.bar_rows]
        return corners.reshape(-1, 2), np.repeat(colors, 6, axis=0)

    def triangles(self, seconds, cursor=(1.0, 1.0, 1.0, 1.0)):
        """What the overlay fills: the bars and, over them, a cursor 2 px wide at a time (the current frame),
        4 px past the diagram's top and bottom: vertices (6 F + 6, 2) and colours (6 F + 6, 4)."""
        bars, colors = self.bar_triangles
        x, bottom, top = self.x_of(seconds), self.box[1] - 4.0, self.box[3] + 4.0
        line = [(x - 1, bottom), (x + 1, bottom), (x + 1, top), (x - 1, bottom), (x + 1, top), (x - 1, top)]
        return np.concatenate([bars, line]), np.concatenate([colors, np.tile(cursor, (6, 1))])


DIAGRAM_ORIGIN, DIAGRAM_WIDTH, DIAGRAM_ROW, DIAGRAM_GAP = (60.0, 40.0), 360.0, 14.0, 4.0  # pixels
LABEL_GAP = 6.0  # pixels between a row's label and the diagram
MAX_FEET = 6  # rows a diagram can have (quadrupeds' four feet, a biped's two)


def may_be_on_timing_diagram(x, y, margin: float = 6.0):
    """Whether a pixel can be on any track's timing diagram (a check that needs no track)."""
    (x0, y0), top = DIAGRAM_ORIGIN, DIAGRAM_ORIGIN[1] + MAX_FEET * (DIAGRAM_ROW + DIAGRAM_GAP)
    return x0 - margin <= x <= x0 + DIAGRAM_WIDTH + margin and y0 - margin <= y <= top + margin


def timing_diagram(feet, contact, liftoff, origin=DIAGRAM_ORIGIN, width=DIAGRAM_WIDTH, row_height=DIAGRAM_ROW,
                   gap=DIAGRAM_GAP, rows=None):
    """Lay the timing diagram out from the region's corner `origin` (pixels, y up), its first row on top;
    rows: the feet to give a row each (the track's character's), else those with footprints."""
    rows, table = timing_bars(feet, contact, liftoff, rows=rows)
    start, end = float(np.min(contact)), float(np.max(liftoff))
    end = max(end, start + 1e-6)
    x0, y0 = origin
    row, t_a, t_b = table.T
    scale = width / (end - start)
    bottom = y0 + (len(rows) - 1 - row) * (row_height + gap)
    bars = np.column_stack([x0 + (t_a - start) * scale, bottom, x0 + (t_b - start) * scale, bottom + row_height])
    box = (x0, y0, x0 + width, y0 + len(rows) * (row_height + gap) - gap)
    return TimingDiagram(tuple(rows), bars, row.astype(int), start, end, box, float(row_height), float(gap))


def body_at(motion, time):
    """COM (3,), hips (L, 3) and feet (L, 3) at a time inside the motion, interpolated between samples."""
    times = motion.times
    i = int(np.clip(np.searchsorted(times, time) - 1, 0, len(times) - 2)) if len(times) > 1 else 0
    w = 0.0 if len(times) < 2 else float(np.clip((time - times[i]) / (times[i + 1] - times[i]), 0.0, 1.0))
    j = min(i + 1, len(times) - 1)
    return tuple((1.0 - w) * a[i] + w * a[j] for a in (motion.com, motion.hips, motion.feet))


MARKER_COM = (1.0, 1.0, 1.0, 1.0)  # white: the COM; hips and feet take their foot's colour


def frame_markers(motion, time, size=0.05):
    """Crosses (three axis-aligned segments each) on the COM, each hip and each foot at the current
    time: segments (M, 2, 3) and colours (M, 4). Nothing when the time is outside the motion."""
    if not len(motion.times) or time < motion.times[0] or time > motion.times[-1]:
        return np.zeros((0, 2, 3)), np.zeros((0, 4))
    com, hips, feet = body_at(motion, time)
    points = np.concatenate([com[None], hips, feet])
    colors = [MARKER_COM] + [foot_color(f) for f in motion.character.feet] * 2
    arms = 0.5 * size * np.eye(3)
    segments = np.stack([points[:, None, :] - arms[None], points[:, None, :] + arms[None]], axis=2)
    return segments.reshape(-1, 2, 3), np.repeat(np.array(colors, dtype=float), 3, axis=0)


def ghost_lines(motion, time, offsets=(-0.3, -0.15, 0.15, 0.3)):
    """A faint stick figure (COM to hips to feet) at times around `time`: segments (M, 2, 3) and the
    alpha of each (nearer in time, more opaque). Times outside the motion are skipped."""
    times = motion.times
    segments, alphas = [], []
    for offset in offsets:
        t = time + offset
        if t < times[0] or t > times[-1]:
            continue
        com, hips, feet = body_at(motion, t)
        for leg in range(hips.shape[0]):
            segments += [(com, hips[leg]), (hips[leg], feet[leg])]
        alphas += [0.45 * (1.0 - abs(offset) / (2.0 * max(abs(o) for o in offsets)))] * (2 * hips.shape[0])
    return np.array(segments, dtype=float).reshape(-1, 2, 3), np.array(alphas)
