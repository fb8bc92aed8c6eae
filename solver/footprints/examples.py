"""Example tracks from the papers, built in code (shared by the demo, the tests and the benchmarks)."""

from __future__ import annotations

import numpy as np

from ..track import Track, make_track

HALF_WIDTH = 0.1


def fig1_track(character: str = "human") -> Track:
    """vdP97 Fig. 1: two small steps, a hop (footprint 3 to 4), two small steps, standing on both feet
    (footprints 6 and 7), then small steps; lengthened to the 12 footprints of the paper's timing claim
    (a 12-step motion optimised in about 2 s, vdP97 §2.4.3). Every swing takes 0.38-0.68 s (the
    hop's flight 0.22 s): the steps out of standing swung in 0.05 s before, the foot at 26 m/s."""
    w = HALF_WIDTH
    rows = [  # foot, x, y, contact, liftoff
        ("L", -w, 0.00, 0.00, 0.62), ("R", w, 0.40, 0.50, 1.12), ("L", -w, 0.80, 1.00, 1.40),
        ("R", w, 1.75, 1.62, 2.20),  # the hop: L lifts at 1.40, R lands at 1.62
        ("L", -w, 2.15, 2.08, 2.70), ("R", w, 2.55, 2.58, 4.12),
        ("L", -w, 2.60, 3.08, 4.62),  # lands beside R: both feet stand from 3.08 to 4.12
        ("R", w, 2.95, 4.50, 5.12), ("L", -w, 3.35, 5.00, 5.62), ("R", w, 3.75, 5.50, 6.12),
        ("L", -w, 4.15, 6.00, 6.62), ("R", w, 4.35, 6.50, 7.40),
    ]
    feet, x, y, contact, liftoff = zip(*rows)
    positions = np.stack([x, y, np.zeros(len(x))], axis=1)
    return make_track(feet, positions, np.zeros(len(x)), contact, liftoff, character=character)
