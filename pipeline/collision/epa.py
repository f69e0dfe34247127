"""EPA: penetration depth and direction of two overlapping convex shapes (van den Bergen
2001), started from the simplex GJK ends with.

The Minkowski difference A - B contains the origin when the shapes overlap; the depth is
the distance from the origin to its surface and the direction is that surface's normal.
EPA grows a polytope inside A - B from GJK's simplex: it takes the face nearest the
origin, adds the support point along that face's normal, and replaces the faces that
point sees by a fan to it. It stops when the support point lies no farther out than the
face (within the tolerance), after MAX_ITER points, or when the arrays are full; any of
these returns the nearest face found so far, so it always ends.

Arrays (narrow.make_work): vertices V, their A and B support points (MAX_VERTS rows),
faces F (three vertex indices) and their planes P (unit normal, distance) and live flags
(MAX_FACES), and the horizon edge list E (MAX_EDGES).
"""
import math

import numba
import numpy as np

from pipeline.collision.gjk import support_pair
from pipeline.nrt import njit_no_refcounts

MAX_ITER = 64
MAX_VERTS = MAX_ITER + 8
MAX_FACES = 8 * MAX_ITER + 16
MAX_EDGES = 2 * MAX_ITER + 16
# stop when the support point is this close (relative) to the nearest face. Polytopes end
# exactly anyway; on round surfaces EPA creeps (its polytope only inscribes them), and a
# depth to 1e-6 is all a contact force needs: 1e-10 there costs ten times the iterations
POLYTOPE_TOL = 1e-10
ROUND_TOL = 1e-6


@njit_no_refcounts
def _face(V, F, P, live, f, i, j, k, cx, cy, cz):
    """Face f = (i, j, k), turned to face away from the interior point c; returns False
    when the three points are collinear (no plane)."""
    e1x, e1y, e1z = V[j, 0] - V[i, 0], V[j, 1] - V[i, 1], V[j, 2] - V[i, 2]
    e2x, e2y, e2z = V[k, 0] - V[i, 0], V[k, 1] - V[i, 1], V[k, 2] - V[i, 2]
    nx, ny, nz = e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not nn > 0.0:
        live[f] = False
        return False
    nx, ny, nz = nx / nn, ny / nn, nz / nn
    if nx * (cx - V[i, 0]) + ny * (cy - V[i, 1]) + nz * (cz - V[i, 2]) > 0.0:
        nx, ny, nz = -nx, -ny, -nz
        j, k = k, j
    F[f, 0], F[f, 1], F[f, 2] = i, j, k
    P[f, 0], P[f, 1], P[f, 2] = nx, ny, nz
    P[f, 3] = nx * V[i, 0] + ny * V[i, 1] + nz * V[i, 2]
    live[f] = True
    return True


@numba.njit(cache=True, inline="always")
def _across(tx, ty, tz):
    """A direction across t: t x (the coordinate axis least along t)."""
    ax, ay, az = abs(tx), abs(ty), abs(tz)
    if ax <= ay and ax <= az:
        return 0.0, tz, -ty
    if ay <= az:
        return -tz, 0.0, tx
    return ty, -tx, 0.0


@njit_no_refcounts
def _grow_simplex(verts, A, PA, B, PB, V, VA, VB, n, size):
    """Add support points until V[:n] is a tetrahedron with volume (GJK may stop on a
    point, segment or triangle when the shapes just touch). Returns the new count, or
    less than 4 when A - B is flat in some direction (then it has no interior)."""
    tol = 1e-12 * size
    if n == 1:
        for axis in range(6):
            d = 1.0 if axis < 3 else -1.0
            k = axis % 3
            support_pair(verts, A, PA, B, PB, d if k == 0 else 0.0, d if k == 1 else 0.0,
                          d if k == 2 else 0.0, V, VA, VB, 1)
            dx, dy, dz = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
            if math.sqrt(dx * dx + dy * dy + dz * dz) > tol:
                n = 2
                break
        if n == 1:
            return n
    if n == 2:
        tx, ty, tz = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
        # directions across the segment: u, and u turned by 90 degrees about it
        ux, uy, uz = _across(tx, ty, tz)
        wx, wy, wz = ty * uz - tz * uy, tz * ux - tx * uz, tx * uy - ty * ux
        for turn in range(4):
            s = 1.0 if turn < 2 else -1.0
            dx, dy, dz = (ux * s, uy * s, uz * s) if turn % 2 == 0 else (wx * s, wy * s, wz * s)
            support_pair(verts, A, PA, B, PB, dx, dy, dz, V, VA, VB, 2)
            rx, ry, rz = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
            cx, cy, cz = ty * rz - tz * ry, tz * rx - tx * rz, tx * ry - ty * rx
            span = math.sqrt(tx * tx + ty * ty + tz * tz)
            if math.sqrt(cx * cx + cy * cy + cz * cz) > tol * span:
                n = 3
                break
        if n == 2:
            return n
    if n == 3:
        e1x, e1y, e1z = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
        e2x, e2y, e2z = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
        nx, ny, nz = e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x
        nn = math.sqrt(nx * nx + ny * ny + nz * nz)
        for s in (1.0, -1.0):
            support_pair(verts, A, PA, B, PB, s * nx, s * ny, s * nz, V, VA, VB, 3)
            h = ((V[3, 0] - V[0, 0]) * nx + (V[3, 1] - V[0, 1]) * ny + (V[3, 2] - V[0, 2]) * nz)
            if abs(h) > tol * nn:
                n = 4
                break
    return n


@njit_no_refcounts
def _flat_normal(V, n):
    """A unit direction out of the span of V[:n] (n < 4 points that span no volume)."""
    tx, ty, tz = V[1, 0] - V[0, 0], V[1, 1] - V[0, 1], V[1, 2] - V[0, 2]
    if n == 3:
        ux, uy, uz = V[2, 0] - V[0, 0], V[2, 1] - V[0, 1], V[2, 2] - V[0, 2]
        nx, ny, nz = ty * uz - tz * uy, tz * ux - tx * uz, tx * uy - ty * ux
    elif n == 2:
        nx, ny, nz = _across(tx, ty, tz)
    else:
        nx, ny, nz = 0.0, 0.0, 1.0
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not nn > 0.0:
        return 0.0, 0.0, 1.0
    return nx / nn, ny / nn, nz / nn


@njit_no_refcounts
def epa(verts, A, PA, B, PB, tol, W, SA, SB, n, V, VA, VB, F, P, live, E, out):
    """Penetration of the cores of shapes A and B placed at PA and PB (tuples, shapes.py)
    from GJK's simplex W/SA/SB[:n] around the origin, to relative tolerance tol.
    out[0:3] = deepest point of A, out[3:6] = deepest point of B, out[6] = -depth,
    out[7:10] = unit normal from A toward B (moving B by depth along it separates them).
    Returns the iterations used."""
    size = 0.0
    for i in range(n):
        for c in range(3):
            V[i, c], VA[i, c], VB[i, c] = W[i, c], SA[i, c], SB[i, c]
        size = max(size, math.sqrt(W[i, 0] ** 2 + W[i, 1] ** 2 + W[i, 2] ** 2))
    size = max(size, 1e-300)
    n = _grow_simplex(verts, A, PA, B, PB, V, VA, VB, n, size)
    if n < 4:  # A - B is flat (a point, a segment, a polygon): no depth, and the normal
        # is any direction out of it (for crossing capsules: across both axes)
        nx, ny, nz = _flat_normal(V, n)
        for c in range(3):
            out[c], out[3 + c] = VA[0, c], VB[0, c]
        out[6] = 0.0
        out[7], out[8], out[9] = nx, ny, nz
        return 0
    cx = (V[0, 0] + V[1, 0] + V[2, 0] + V[3, 0]) * 0.25
    cy = (V[0, 1] + V[1, 1] + V[2, 1] + V[3, 1]) * 0.25
    cz = (V[0, 2] + V[1, 2] + V[2, 2] + V[3, 2]) * 0.25
    _face(V, F, P, live, 0, 0, 1, 2, cx, cy, cz)
    _face(V, F, P, live, 1, 0, 3, 1, cx, cy, cz)
    _face(V, F, P, live, 2, 0, 2, 3, cx, cy, cz)
    _face(V, F, P, live, 3, 1, 3, 2, cx, cy, cz)
    nf = 4
    nv = 4
    best = 0
    it = 0
    while True:
        best = -1
        dmin = math.inf
        for f in range(nf):
            if live[f] and P[f, 3] < dmin:
                dmin = P[f, 3]
                best = f
        if best < 0 or it >= MAX_ITER or nv >= MAX_VERTS or nf + MAX_EDGES > MAX_FACES:
            break
        it += 1
        nx, ny, nz = P[best, 0], P[best, 1], P[best, 2]
        support_pair(verts, A, PA, B, PB, nx, ny, nz, V, VA, VB, nv)
        reach = nx * V[nv, 0] + ny * V[nv, 1] + nz * V[nv, 2]
        if reach - dmin <= tol * max(abs(dmin), 1e-6 * size):
            break
        # faces the new point sees go; the edges they do not share form the horizon
        ne = 0
        for f in range(nf):
            if not live[f]:
                continue
            if (P[f, 0] * V[nv, 0] + P[f, 1] * V[nv, 1] + P[f, 2] * V[nv, 2] - P[f, 3]
                    <= 1e-14 * size):
                continue
            live[f] = False
            for e in range(3):
                i, j = F[f, e], F[f, (e + 1) % 3]
                shared = -1
                for m in range(ne):
                    if E[m, 0] == j and E[m, 1] == i:
                        shared = m
                        break
                if shared >= 0:
                    ne -= 1
                    E[shared, 0], E[shared, 1] = E[ne, 0], E[ne, 1]
                elif ne < MAX_EDGES:
                    E[ne, 0], E[ne, 1] = i, j
                    ne += 1
        # c, inside the first tetrahedron, stays inside the growing polytope: it orients
        # every new face outward
        for m in range(ne):
            if _face(V, F, P, live, nf, E[m, 0], E[m, 1], nv, cx, cy, cz):
                nf += 1
        nv += 1
    f = best
    d = P[f, 3]
    nx, ny, nz = P[f, 0], P[f, 1], P[f, 2]
    # weights of the origin's projection d n in the face, by sub-triangle areas along n
    i, j, k = F[f, 0], F[f, 1], F[f, 2]
    qx, qy, qz = d * nx, d * ny, d * nz
    wi = _area(V, j, k, qx, qy, qz, nx, ny, nz)
    wj = _area(V, k, i, qx, qy, qz, nx, ny, nz)
    wk = _area(V, i, j, qx, qy, qz, nx, ny, nz)
    s = wi + wj + wk
    if s > 0.0:
        wi, wj, wk = wi / s, wj / s, wk / s
    else:
        wi = wj = wk = 1.0 / 3.0
    for c in range(3):
        out[c] = wi * VA[i, c] + wj * VA[j, c] + wk * VA[k, c]
        out[3 + c] = wi * VB[i, c] + wj * VB[j, c] + wk * VB[k, c]
    out[6] = -max(d, 0.0)
    out[7], out[8], out[9] = nx, ny, nz
    return it


@numba.njit(cache=True, inline="always")
def _area(V, i, j, qx, qy, qz, nx, ny, nz):
    """Twice the signed area of triangle (q, V[i], V[j]) seen along n."""
    ax, ay, az = V[i, 0] - qx, V[i, 1] - qy, V[i, 2] - qz
    bx, by, bz = V[j, 0] - qx, V[j, 1] - qy, V[j, 2] - qz
    return nx * (ay * bz - az * by) + ny * (az * bx - ax * bz) + nz * (ax * by - ay * bx)
