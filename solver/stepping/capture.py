"""When a moving body is caught (Pratt et al. 2006): a touchdown leaves the capture point inside the support
polygon, and every foot down within the leg's reach of its hip once the body has come to rest over the
capture point (the hips sunk at most to LOWEST_HIPS of their standing height): the body lands onto it with
both feet where they are. The push recovery that plans the steps and the solver that animates them ask the
same question of the same feet."""

from __future__ import annotations

import math

import numpy as np

from .stance import hip_height, inside_polygon, mean_heading, right, support_polygon

LOWEST_HIPS = 0.85  # of the standing hip height: the lowest a recovery lets the hips sink to reach
REACH_SHARE = 0.97  # of the leg's reach at the lowest hips that a recovery counts on


def recovery_reach(character) -> float:
    """How far in plan from under its hip a recovering leg may reach (the hips sunk to LOWEST_HIPS)."""
    return REACH_SHARE * math.sqrt(max(character.leg_length_max ** 2 - (LOWEST_HIPS * hip_height(character)) ** 2,
                                       0.0))


def hips_over(character, point, heading):
    """(2, 2): the hips in plan with the COM at point (2,) facing heading."""
    return np.asarray(point, dtype=float) + character.hip_offsets[:, 0, None] * right(heading)


def is_captured(character, positions, headings, capture_point) -> bool:
    """Whether feet standing at positions (2, 3), headings (2,) catch a body whose capture point is
    capture_point (2,)."""
    if not inside_polygon(support_polygon(positions, headings, character), capture_point):
        return False
    hips = hips_over(character, capture_point, mean_heading(headings))
    return bool((np.linalg.norm(hips - positions[:, :2], axis=1) <= recovery_reach(character)).all())
