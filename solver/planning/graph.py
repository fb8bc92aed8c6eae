"""Cheapest routes over a graph given as edge arrays (Bellman-Ford, every edge relaxed at once each round): the
planners' footholds and the corners round obstacles are a few hundred to a few thousand nodes, and a route a few
dozen edges, so as many vectorised rounds as the route has edges beat a node-at-a-time search in Python."""

from __future__ import annotations

import numpy as np


def cheapest(n: int, start, end, cost, source: int, combine=np.add):
    """(cost (n,), previous node (n,), -1 where none) of the cheapest routes from `source` along the directed
    edges start -> end (arrays) with their costs (>= 0). A route's cost is its edges' combined: summed, or with
    combine=np.maximum its worst edge (the bottleneck route)."""
    best = np.full(n, np.inf)
    best[source] = 0.0
    previous = np.full(n, -1)
    for _ in range(n):  # each round extends every route by one edge: as many rounds as the longest route
        offered = combine(best[start], cost)
        improved = np.full(n, np.inf)
        np.minimum.at(improved, end, offered)
        better = improved < best - 1e-12
        if not better.any():
            break
        winners = better[end] & (offered <= improved[end])
        previous[end[winners]] = start[winners]
        best = np.where(better, improved, best)
    return best, previous


def route(previous, source: int, target: int) -> list:
    """The nodes of the cheapest route from the source to the target (cheapest's `previous`)."""
    path = [target]
    while path[-1] != source:  # an edge of the route at a time
        path.append(int(previous[path[-1]]))
    return path[::-1]
