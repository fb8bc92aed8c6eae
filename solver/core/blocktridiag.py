"""Symmetric block-tridiagonal linear systems by cyclic (odd-even) reduction, vectorised.

Each level eliminates every other block row at once, so the work is O(n) block operations done in
O(log n) numpy calls: the Python overhead no longer grows with the length of the track. Short systems
(a 12-step track's, or each of a batch's) are solved dense instead, in one call for all of them.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


DENSE_LIMIT = 28  # up to this many 6 x 6 blocks per system one dense solve beats the reduction's numpy call
# count (measured: 24 blocks 0.24 against 0.69 ms, 32 blocks 0.80 against 0.79 ms)
DENSE_LIMITS = {6: DENSE_LIMIT, 12: 10}  # by block size: a quadruped's 12 x 12 blocks cross over sooner
# (measured on one thread: 8 blocks 0.10 ms dense, 14 blocks 0.39 dense against 0.33 reduced)


def dense_limit(block_size):
    """The most blocks of this size per system that are solved dense."""
    return DENSE_LIMITS.get(block_size, max(DENSE_LIMIT * 6 // block_size, 2))


def solve(diag, upper, rhs, shift=None, sizes=None):
    """Solve the system with diagonal blocks diag (n, b, b) plus a diagonal shift (n, b) if given, upper
    blocks upper (n-1, b, b) (block (i, i+1); the lower blocks are their transposes) and right-hand side
    rhs (n, b). sizes: the block counts of the independent systems it is made of, in order (a batch's
    tracks: the upper blocks between two are zero), a tuple; by default one. When none has more than
    dense_limit(b) blocks, each is solved dense, all in one call."""
    n, b = diag.shape[:2]
    sizes = (n,) if sizes is None else sizes
    if max(sizes) <= dense_limit(b):
        return _dense(diag, upper, upper, rhs, sizes, shift)  # block (i+1, i) transposed is block (i, i+1)
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


def _dense(diag, upper, lower_t, rhs, sizes, shift=None):
    """The systems of the given sizes solved dense, padded to the largest, in one call: upper (n-1, b, b)
    the blocks (i, i+1), lower_t (n-1, b, b) the blocks (i+1, i) transposed."""
    n, b = diag.shape[:2]
    rows, diagonal, blocks, padding, (count, size) = _dense_layout(sizes, b)
    dense = np.zeros(count * size * size + 1)  # the last entry takes the blocks between two systems
    dense[blocks] = np.concatenate([diag.ravel(), upper.ravel(), lower_t.ravel()])
    dense[padding] = 1.0  # a shorter system's unused rows: the identity, right-hand side zero
    if shift is not None:
        dense[diagonal] += shift.ravel()
    padded = np.zeros(count * size)
    padded[rows] = rhs.ravel()
    solution = np.linalg.solve(dense[:-1].reshape(count, size, size), padded.reshape(count, size, 1))
    return solution.ravel()[rows].reshape(n, b)


@lru_cache(maxsize=64)
def _dense_layout(sizes, b):
    """Where a block-tridiagonal system made of independent ones of the given block counts goes in a stack
    of dense (m b, m b) matrices, m the largest count: each unknown's row in the stack (flattened) and its
    diagonal entry; the flat indices of the entries of the diagonal blocks, the upper blocks and the lower
    blocks (the upper ones transposed; those between two systems go to the scratch entry past the stack's
    end); those of the shorter systems' unused diagonal entries; and the stack's shape (systems, m b)."""
    sizes = np.asarray(sizes)
    count, size = len(sizes), int(sizes.max()) * b
    system = np.repeat(np.arange(count), sizes)  # per block
    position = np.arange(len(system)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    first_row = system * size + position * b  # per block
    rows = (first_row[:, None] + np.arange(b)).ravel()
    block, row, column = np.indices((len(system), b, b)).reshape(3, -1)

    def entry(top, left):  # flat index of (top, left), both rows of the stack, of the same system
        return (top // size) * size * size + (top % size) * size + left % size

    on_diagonal = entry(first_row[block] + row, first_row[block] + column)
    up = block[: max(len(system) - 1, 0) * b * b]
    r, c = row[: len(up)], column[: len(up)]
    scratch = count * size * size
    inside = system[up] == system[np.minimum(up + 1, len(system) - 1)]
    upper = np.where(inside, entry(first_row[up] + r, first_row[up] + b + c), scratch)
    lower = np.where(inside, entry(first_row[up] + b + c, first_row[up] + r), scratch)
    unused = np.setdiff1d(np.arange(count * size), rows)
    layout = (rows, entry(rows, rows), np.concatenate([on_diagonal, upper, lower]), entry(unused, unused),
              (count, size))
    for array in layout[:4]:
        array.setflags(write=False)  # shared by every call
    return layout


def _reduce(d, lo, up, r):
    """Solve lo_i x_{i-1} + d_i x_i + up_i x_{i+1} = r_i (lo_0 = 0, up_{n-1} = 0)."""
    n = d.shape[0]
    if n <= dense_limit(d.shape[1]):  # few enough blocks left: the rest in one dense solve, not more levels
        return _dense(d, up[:-1], np.swapaxes(lo[1:], 1, 2), r, (n,))
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
