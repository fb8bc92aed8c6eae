"""Symmetric block-tridiagonal linear systems by cyclic (odd-even) reduction, vectorised.

Each level eliminates every other block row at once, so the work is O(n) block operations done in
O(log n) numpy calls: the Python overhead no longer grows with the length of the track.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


DENSE_LIMIT = 16  # up to this many blocks one dense solve beats the reduction's numpy call count


def solve(diag, upper, rhs, shift=None):
    """Solve the system with diagonal blocks diag (n, b, b) plus a diagonal shift (n, b) if given, upper
    blocks upper (n-1, b, b) (block (i, i+1); the lower blocks are their transposes) and right-hand side
    rhs (n, b)."""
    n, b = diag.shape[:2]
    if n <= DENSE_LIMIT:
        diagonal, blocks = _dense_layout(n, b)
        dense = np.zeros((n * b) ** 2)
        dense[blocks] = np.concatenate([diag.ravel(), upper.ravel(), upper.ravel()])
        if shift is not None:
            dense[diagonal] += shift.ravel()
        return np.linalg.solve(dense.reshape(n * b, n * b), rhs.reshape(-1)).reshape(n, b)
    d = diag
    if shift is not None:
        d = diag.copy()
        d.reshape(n, b * b)[:, :: b + 1] += shift
    lower = np.zeros_like(diag)
    up = np.zeros_like(diag)
    if n > 1:
        up[:-1] = upper
        lower[1:] = np.swapaxes(upper, 1, 2)
    return _reduce(d, lower, up, rhs)


@lru_cache(maxsize=None)
def _dense_layout(n, b):
    """Flat indices into the dense (n b, n b) matrix: of its diagonal, and of the entries of the diagonal
    blocks, the upper blocks and the lower blocks (the upper ones transposed), in that order."""
    block, row, column = np.indices((n, b, b)).reshape(3, -1)
    size = n * b
    on_diagonal = (block * b + row) * size + block * b + column
    up = block[: (n - 1) * b * b]
    upper = (up * b + row[: len(up)]) * size + (up + 1) * b + column[: len(up)]
    lower = ((up + 1) * b + column[: len(up)]) * size + up * b + row[: len(up)]
    indices = np.arange(size) * (size + 1), np.concatenate([on_diagonal, upper, lower])
    for array in indices:
        array.setflags(write=False)  # shared by every call
    return indices


def _reduce(d, lo, up, r):
    """Solve lo_i x_{i-1} + d_i x_i + up_i x_{i+1} = r_i (lo_0 = 0, up_{n-1} = 0)."""
    n = d.shape[0]
    if n == 1:
        return np.linalg.solve(d, r[..., None])[..., 0]
    odd = np.arange(1, n, 2)
    even = np.arange(0, n, 2)
    d_odd_inv = np.linalg.inv(d[odd])
    # Neighbours of each even row: odd rows i-1 and i+1, as indices into the odd rows. At the ends the
    # index is clamped: lo_0 = 0 and up_{n-1} = 0 (and stay so at every level) make those terms vanish.
    pos_prev = np.maximum(even // 2 - 1, 0)
    pos_next = np.minimum(even // 2, len(odd) - 1)
    a = lo[even] @ d_odd_inv[pos_prev]  # lo_i D_{i-1}^-1
    c = up[even] @ d_odd_inv[pos_next]  # up_i D_{i+1}^-1
    odd_lo, odd_up, odd_r = lo[odd], up[odd], r[odd]
    d_new = d[even] - a @ odd_up[pos_prev] - c @ odd_lo[pos_next]
    lo_new = -(a @ odd_lo[pos_prev])
    up_new = -(c @ odd_up[pos_next])
    r_new = r[even] - np.einsum("nij,nj->ni", a, odd_r[pos_prev]) - np.einsum("nij,nj->ni", c, odd_r[pos_next])
    x_even = _reduce(d_new, lo_new, up_new, r_new)
    # Back-substitute the odd rows: x_i = D_i^-1 (r_i - lo_i x_{i-1} - up_i x_{i+1}) (up_{n-1} = 0).
    x = np.zeros_like(r)  # the odd rows' own entries read below as "x_{i+1}" at the end must be finite
    x[even] = x_even
    left = x[odd - 1]
    right = x[np.minimum(odd + 1, n - 1)]
    rhs = odd_r - np.einsum("nij,nj->ni", odd_lo, left) - np.einsum("nij,nj->ni", odd_up, right)
    x[odd] = np.einsum("nij,nj->ni", d_odd_inv, rhs)
    return x
