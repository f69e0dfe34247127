"""Reference broad phases: every pair (brute force) and sort-and-sweep along x.

Both report the pairs (i < j) of boxes (lo, hi rows: x, y, z) that overlap or touch,
skipping pairs of two static objects; the hierarchical hash (hashing.py) must report a
superset of them.
"""
import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def boxes_overlap(lo, hi, i, j):
    return (lo[i, 0] <= hi[j, 0] and lo[j, 0] <= hi[i, 0] and lo[i, 1] <= hi[j, 1]
            and lo[j, 1] <= hi[i, 1] and lo[i, 2] <= hi[j, 2] and lo[j, 2] <= hi[i, 2])


@numba.njit(cache=True)
def push_pair(pairs, n, i, j):
    """Append (min, max) of i and j as row n, doubling the array when full."""
    if n == pairs.shape[0]:
        grown = np.empty((2 * pairs.shape[0] + 16, 2), np.int64)
        grown[:n] = pairs[:n]
        pairs = grown
    pairs[n, 0], pairs[n, 1] = min(i, j), max(i, j)
    return pairs


@numba.njit(cache=True)
def brute_force(lo, hi, static):
    """Every pair of overlapping boxes, by testing all n (n - 1) / 2 pairs."""
    pairs = np.empty((64, 2), np.int64)
    n = 0
    for i in range(lo.shape[0]):
        for j in range(i + 1, lo.shape[0]):
            if boxes_overlap(lo, hi, i, j) and not (static[i] and static[j]):
                pairs = push_pair(pairs, n, i, j)
                n += 1
    return pairs[:n]


@numba.njit(cache=True)
def sort_and_sweep(lo, hi, static):
    """Overlapping boxes by sorting their x intervals and sweeping: each box is tested
    only against the boxes whose x interval starts inside its own."""
    order = np.argsort(lo[:, 0])
    pairs = np.empty((64, 2), np.int64)
    n = 0
    for a in range(order.shape[0]):
        i = order[a]
        for b in range(a + 1, order.shape[0]):
            j = order[b]
            if lo[j, 0] > hi[i, 0]:
                break
            if boxes_overlap(lo, hi, i, j) and not (static[i] and static[j]):
                pairs = push_pair(pairs, n, i, j)
                n += 1
    return pairs[:n]
