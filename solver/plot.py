"""Plots of a solved motion without Blender's GPU (vdP97 Fig. 1 and Fig. 15 conventions): the plan view
(footprints, timing daggers, the COM path coloured by support phase) above the timing diagram (one row of
contact bars per foot). SVG or PNG, chosen by the output file's extension; PNG is rasterised here."""

from __future__ import annotations

import math
import struct
import zlib

import numpy as np

from . import drawing
from .errors import FootprintError

WIDTH, PLAN_HEIGHT, TIMING_HEIGHT, MARGIN = 900, 600, 180, 40


class PlotError(FootprintError):
    """A motion file the plot cannot read (the message says which field)."""


def geometry(doc: dict):
    """Everything drawn, in world metres (plan) and seconds (timing): lines with colours, bars, the frame."""
    try:
        feet_names = list(doc["feet"].keys())
        fps = doc["footprints"]
        com = np.asarray(doc["com"], dtype=float)
        support = doc["support"]
        positions = np.array([f["position"] + [0.0] * (3 - len(f["position"])) for f in fps], dtype=float)
        headings = np.radians(np.array([f.get("heading", 0.0) for f in fps], dtype=float))
        feet = np.array([str(f["foot"]) for f in fps])
        contact = np.array([f["contact"] for f in fps], dtype=float)
        liftoff = np.array([f["liftoff"] for f in fps], dtype=float)
        end = float(doc["times"][-1])
        character = doc.get("character", {})
        size = (float(character.get("foot_length", 0.26)), float(character.get("foot_width", 0.1)))
    except KeyError as exc:
        raise PlotError(f"not a footprint-motion with footprints: missing {exc}") from None
    except (TypeError, ValueError, AttributeError, IndexError) as exc:
        raise PlotError(f"not a footprint-motion with footprints: {exc}") from None
    for name, values in (("com", com), ("footprint positions", positions), ("headings", headings),
                         ("contact times", contact), ("liftoff times", liftoff), ("times", end), ("foot size", size)):
        if not np.isfinite(values).all():
            raise PlotError(f"the motion's {name} hold NaN or infinity: nothing to draw")
    if com.ndim != 2 or com.shape[1] != 3 or len(com) != len(support) or not len(fps):
        raise PlotError("the motion's com and support must have one row per sample, and footprints one each")
    outline = drawing.footprint_outline(*size)
    c, s = np.cos(headings), np.sin(headings)
    rot = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], axis=1)  # (F, 2, 2)
    outlines = positions[:, None, :2] + np.einsum("fij,sj->fsi", rot, outline[:, :2])
    in_contact = np.array([[name in row for name in feet_names] for row in support])
    path, path_colors = drawing.com_path(com, in_contact, feet_names)
    dagger_lines, owner = drawing.daggers(positions, headings, feet, contact, liftoff)
    rows, bars = drawing.timing_bars(feet, contact, liftoff)
    return {
        "outlines": outlines, "outline_colors": [drawing.foot_color(f) for f in feet],
        "path": path[:, :, :2], "path_colors": path_colors,
        "daggers": dagger_lines[:, :, :2], "dagger_colors": [drawing.foot_color(feet[o]) for o in owner],
        "rows": rows, "bars": bars, "time": (float(min(contact.min(), 0.0)), float(max(liftoff.max(), end))),
    }


def _plan_transform(g):
    pts = np.concatenate([g["outlines"].reshape(-1, 2), g["path"].reshape(-1, 2), g["daggers"].reshape(-1, 2)])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    scale = min((WIDTH - 2 * MARGIN) / max(hi[0] - lo[0], 1e-6), (PLAN_HEIGHT - 2 * MARGIN) / max(hi[1] - lo[1], 1e-6))

    def to_px(p):
        p = np.asarray(p, dtype=float)
        x = MARGIN + (p[..., 0] - lo[0]) * scale
        y = PLAN_HEIGHT - MARGIN - (p[..., 1] - lo[1]) * scale  # +Y up on the page
        return np.stack([x, y], axis=-1)

    return to_px


def _timing_transform(g):
    t0, t1 = g["time"]
    row_h = (TIMING_HEIGHT - 2 * 20) / max(len(g["rows"]), 1)

    def bar_px(row, start, end):
        x0 = MARGIN + (start - t0) / (t1 - t0) * (WIDTH - 2 * MARGIN)
        x1 = MARGIN + (end - t0) / (t1 - t0) * (WIDTH - 2 * MARGIN)
        y0 = PLAN_HEIGHT + 20 + row * row_h + 0.15 * row_h
        return x0, y0, x1 - x0, 0.7 * row_h

    return bar_px


def _hex(color):
    return "#" + "".join(f"{int(round(255 * c)):02x}" for c in color[:3])


def to_svg(g) -> str:
    to_px, bar_px = _plan_transform(g), _timing_transform(g)
    height = PLAN_HEIGHT + TIMING_HEIGHT
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>']
    for outline, color in zip(g["outlines"], g["outline_colors"]):
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in to_px(outline))
        out.append(f'<polygon class="footprint" points="{pts}" fill="{_hex(color)}" fill-opacity="0.35" stroke="{_hex(color)}"/>')
    for (a, b), color in zip(to_px(g["daggers"]), g["dagger_colors"]):
        out.append(f'<line class="dagger" x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" stroke="{_hex(color)}" stroke-width="1.5"/>')
    for (a, b), color in zip(to_px(g["path"]), g["path_colors"]):
        out.append(f'<line class="com" x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" stroke="{_hex(color)}" stroke-width="3"/>')
    for row, name in enumerate(g["rows"]):
        _x, y, _w, h = bar_px(row, g["time"][0], g["time"][0])
        out.append(f'<text x="8" y="{y + 0.75 * h:.1f}" font-size="14" font-family="sans-serif">{name}</text>')
    for row, start, end in g["bars"]:
        x, y, w, h = bar_px(int(row), start, end)
        color = drawing.foot_color(g["rows"][int(row)])
        out.append(f'<rect class="contact" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{_hex(color)}"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_png(g) -> bytes:
    height = PLAN_HEIGHT + TIMING_HEIGHT
    image = np.ones((height, WIDTH, 3))
    to_px, bar_px = _plan_transform(g), _timing_transform(g)

    def line(a, b, color, width):
        n = int(max(abs(b[0] - a[0]), abs(b[1] - a[1]))) + 2
        t = np.linspace(0.0, 1.0, n)[:, None]
        pts = a + (b - a) * t
        r = max(int(width // 2), 0)
        for dx in range(-r, r + 1):  # a square brush of the line's width: a few offsets
            for dy in range(-r, r + 1):
                x = np.clip(np.round(pts[:, 0]).astype(int) + dx, 0, WIDTH - 1)
                y = np.clip(np.round(pts[:, 1]).astype(int) + dy, 0, height - 1)
                image[y, x] = color[:3]

    for outline, color in zip(g["outlines"], g["outline_colors"]):
        px = to_px(outline)
        for a, b in zip(px, np.roll(px, -1, axis=0)):
            line(a, b, color, 1)
    for (a, b), color in zip(to_px(g["daggers"]), g["dagger_colors"]):
        line(a, b, color, 1)
    for (a, b), color in zip(to_px(g["path"]), g["path_colors"]):
        line(a, b, color, 3)
    for row, start, end in g["bars"]:
        x, y, w, h = bar_px(int(row), start, end)
        color = drawing.foot_color(g["rows"][int(row)])
        image[int(y):int(math.ceil(y + h)), int(x):int(math.ceil(x + w))] = color[:3]
    raw = (np.clip(image, 0, 1) * 255).astype(np.uint8)
    rows = b"".join(b"\x00" + raw[y].tobytes() for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", WIDTH, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b"")


def render(doc: dict, path: str) -> bytes:
    """The plot for path's extension (.svg or .png), as the bytes to write."""
    if path.lower().endswith(".svg"):
        return to_svg(geometry(doc)).encode("utf-8")
    if path.lower().endswith(".png"):
        return to_png(geometry(doc))
    raise PlotError(f"{path}: the output must end in .svg or .png")
