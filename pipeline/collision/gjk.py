"""GJK distance between two convex shapes (Gilbert, Johnson and Keerthi 1988), with the
signed-volume sub-algorithm (simplex.py).

GJK walks a simplex of points of the Minkowski difference A - B (each point the difference
of a support point of A and one of B) toward the origin. The distance is |v| for the
simplex point v nearest the origin; the closest points are the same barycentric
combination of the A and B support points. It stops when the duality gap |v|^2 - v.w
(w: the support point along -v) is below tol |v|^2, which bounds the relative error of
the distance by tol; on polytopes it ends exactly when no new vertex is found.

Termination on any input: at most MAX_ITER iterations, and it also stops when the support
point repeats a simplex vertex or |v| fails to decrease (rounding), keeping the best
simplex, so degenerate shapes (flat, coincident) cannot make it cycle.
"""
import math

import numba

from pipeline.collision.shapes import support
from pipeline.collision.simplex import closest_weights

MAX_ITER = 128
REL_TOL = 1e-10  # duality gap / |v|^2: bounds the relative error of the distance
# cores grown by margins: the margins are subtracted from the core distance, so its
# error grows relative to what remains; cores are polytopes, where a tighter gap is free
MARGIN_TOL = 1e-12
# |v| below this fraction of the simplex's size counts as touching (the origin is on it)
TOUCH_TOL = 1e-12

SEPARATED, OVERLAP = 0, 1


@numba.njit(cache=True, inline="always")
def support_pair(verts, A, PA, B, PB, dx, dy, dz, W, SA, SB, row):
    """Row `row` of the simplex: the support point of A's core along d, B's along -d, and
    their difference (A, B: shape tuples; PA, PB: pose tuples, shapes.py)."""
    ax, ay, az = support(verts, A, PA, dx, dy, dz, False)
    bx, by, bz = support(verts, B, PB, -dx, -dy, -dz, False)
    SA[row, 0], SA[row, 1], SA[row, 2] = ax, ay, az
    SB[row, 0], SB[row, 1], SB[row, 2] = bx, by, bz
    W[row, 0], W[row, 1], W[row, 2] = ax - bx, ay - by, az - bz


@numba.njit(cache=True, inline="always")
def _compact(W, SA, SB, lam, n):
    """Drop the simplex points of weight 0; returns the new count."""
    m = 0
    for i in range(n):
        if lam[i] > 0.0:
            if m != i:
                for c in range(3):
                    W[m, c] = W[i, c]
                    SA[m, c] = SA[i, c]
                    SB[m, c] = SB[i, c]
                lam[m] = lam[i]
            m += 1
    for i in range(m, 4):
        lam[i] = 0.0
    return m


@numba.njit(cache=True, inline="always")
def closest_points(SA, SB, lam, n, out):
    """out[0:3] = point of A, out[3:6] = point of B, combined with weights lam[:n]."""
    for c in range(6):
        out[c] = 0.0
    for i in range(n):
        for c in range(3):
            out[c] += lam[i] * SA[i, c]
            out[3 + c] += lam[i] * SB[i, c]


@numba.njit(cache=True, inline="always")
def gjk(verts, A, PA, B, PB, gx, gy, gz, tol, W, SA, SB, lam, out):
    """Distance between the cores of shapes A and B placed at PA and PB (shape and pose
    tuples, shapes.py; verts: the hull vertices).

    (gx, gy, gz): a guess of pA - pB (e.g. last step's), or zeros; tol: the duality gap
    at which to stop, relative to |v|^2 (REL_TOL, MARGIN_TOL). Returns (status,
    simplex size, iterations); out[0:6] holds the closest points of A and B and out[6]
    the distance (0 when they overlap). On OVERLAP, W/SA/SB[:n] is a simplex containing
    the origin (for EPA)."""
    if gx == 0.0 and gy == 0.0 and gz == 0.0:
        gx, gy, gz = PA[0] - PB[0], PA[1] - PB[1], PA[2] - PB[2]
        if gx == 0.0 and gy == 0.0 and gz == 0.0:
            gx = 1.0
    support_pair(verts, A, PA, B, PB, -gx, -gy, -gz, W, SA, SB, 0)
    n = 1
    lam[0] = 1.0
    vx, vy, vz = W[0, 0], W[0, 1], W[0, 2]
    vv = vx * vx + vy * vy + vz * vz
    it = 0
    status = SEPARATED
    while it < MAX_ITER:
        it += 1
        size = 0.0
        for i in range(n):
            size = max(size, W[i, 0] * W[i, 0] + W[i, 1] * W[i, 1] + W[i, 2] * W[i, 2])
        if vv <= TOUCH_TOL * TOUCH_TOL * size:
            status = OVERLAP
            break
        support_pair(verts, A, PA, B, PB, -vx, -vy, -vz, W, SA, SB, n)
        wx, wy, wz = W[n, 0], W[n, 1], W[n, 2]
        if vv - (vx * wx + vy * wy + vz * wz) <= tol * vv:
            break  # converged: no support point is nearer than |v| by more than the gap
        repeat = False
        for i in range(n):
            if W[i, 0] == wx and W[i, 1] == wy and W[i, 2] == wz:
                repeat = True
        if repeat:
            break
        n += 1
        closest_weights(W, n, lam)
        nx = ny = nz = 0.0
        for i in range(n):
            nx += lam[i] * W[i, 0]
            ny += lam[i] * W[i, 1]
            nz += lam[i] * W[i, 2]
        nvv = nx * nx + ny * ny + nz * nz
        n = _compact(W, SA, SB, lam, n)
        if n == 4:
            status = OVERLAP
            vx, vy, vz, vv = nx, ny, nz, nvv
            break
        stalled = nvv >= vv  # in exact arithmetic |v| decreases; rounding may stall it
        vx, vy, vz, vv = nx, ny, nz, nvv
        if stalled:
            break
    closest_points(SA, SB, lam, n, out)
    out[6] = 0.0 if status == OVERLAP else math.sqrt(vv)
    return status, n, it
