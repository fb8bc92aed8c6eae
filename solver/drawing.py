"""Pure geometry for drawing footprints: shared by renders, viewport overlays and plots (no Blender)."""

from __future__ import annotations

import numpy as np


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
