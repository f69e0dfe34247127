"""The closest point of a simplex (1 to 4 points) to the origin, by signed volumes.

Montanari, Petrinic and Barbieri (2017) replace Johnson's sub-algorithm in GJK by signed
volumes: the barycentric weights of the origin's projection are ratios of sub-volumes
(areas, lengths), and a face, edge or vertex is kept only where the weights' signs agree
with the whole simplex's. Areas are measured in the coordinate plane where the triangle's
projection is largest, so nearly degenerate simplices lose no more digits than they must,
and a degenerate one (zero volume or area) simply fails the sign test and falls back to
its sub-simplices: there is no division by a near-zero determinant and no cycle.

Rows of W are points; the result is the weights `lam` (0 for dropped points).
"""
import math

import numba

from pipeline.nrt import njit_no_refcounts


@numba.njit(cache=True, inline="always")
def _same_sign(a, b):
    return (a > 0.0 and b > 0.0) or (a < 0.0 and b < 0.0)


@njit_no_refcounts
def _segment(W, i, j):
    """Weights (of i, of j) of the point of segment W[i]W[j] closest to the origin."""
    tx, ty, tz = W[j, 0] - W[i, 0], W[j, 1] - W[i, 1], W[j, 2] - W[i, 2]
    tt = tx * tx + ty * ty + tz * tz
    if tt <= 0.0:
        return 1.0, 0.0
    s = -(W[i, 0] * tx + W[i, 1] * ty + W[i, 2] * tz) / tt
    if s <= 0.0:
        return 1.0, 0.0
    if s >= 1.0:
        return 0.0, 1.0
    return 1.0 - s, s


@numba.njit(cache=True, inline="always")
def _norm2_of(W, i, j, k, li, lj, lk):
    x = li * W[i, 0] + lj * W[j, 0] + lk * W[k, 0]
    y = li * W[i, 1] + lj * W[j, 1] + lk * W[k, 1]
    z = li * W[i, 2] + lj * W[j, 2] + lk * W[k, 2]
    return x * x + y * y + z * z


@njit_no_refcounts
def _triangle(W, i, j, k):
    """Weights (of i, j, k) of the point of triangle W[i]W[j]W[k] closest to the origin."""
    e1x, e1y, e1z = W[j, 0] - W[i, 0], W[j, 1] - W[i, 1], W[j, 2] - W[i, 2]
    e2x, e2y, e2z = W[k, 0] - W[i, 0], W[k, 1] - W[i, 1], W[k, 2] - W[i, 2]
    nx, ny, nz = e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x
    nn = nx * nx + ny * ny + nz * nz
    inside = (False, False, False)  # per vertex: the edge opposite it need not be tried
    if nn > 0.0:
        s = (W[i, 0] * nx + W[i, 1] * ny + W[i, 2] * nz) / nn
        px, py, pz = nx * s, ny * s, nz * s  # the origin projected on the plane
        # the coordinate plane where the projected area (= that normal component) is largest;
        # (a, b) in cyclic order so that the 2-D cross product of the edges is exactly mu
        ax, ay, az = abs(nx), abs(ny), abs(nz)
        if ax >= ay and ax >= az:
            a, b, mu, qa, qb = 1, 2, nx, py, pz
        elif ay >= az:
            a, b, mu, qa, qb = 2, 0, ny, pz, px
        else:
            a, b, mu, qa, qb = 0, 1, nz, px, py
        ia, ib = W[i, a] - qa, W[i, b] - qb
        ja, jb = W[j, a] - qa, W[j, b] - qb
        ka, kb = W[k, a] - qa, W[k, b] - qb
        ci = ja * kb - jb * ka
        cj = ka * ib - kb * ia
        ck = ia * jb - ib * ja
        inside = (_same_sign(mu, ci), _same_sign(mu, cj), _same_sign(mu, ck))
        if inside[0] and inside[1] and inside[2]:
            return ci / mu, cj / mu, ck / mu
    best = math.inf
    li = lj = lk = 0.0
    if not inside[0]:  # edge j-k
        u, v = _segment(W, j, k)
        d = _norm2_of(W, i, j, k, 0.0, u, v)
        if d < best:
            best, li, lj, lk = d, 0.0, u, v
    if not inside[1]:  # edge k-i
        u, v = _segment(W, k, i)
        d = _norm2_of(W, i, j, k, v, 0.0, u)
        if d < best:
            best, li, lj, lk = d, v, 0.0, u
    if not inside[2]:  # edge i-j
        u, v = _segment(W, i, j)
        d = _norm2_of(W, i, j, k, u, v, 0.0)
        if d < best:
            best, li, lj, lk = d, u, v, 0.0
    return li, lj, lk


@numba.njit(cache=True, inline="always")
def _det3(ax, ay, az, bx, by, bz, cx, cy, cz):
    return ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)


@njit_no_refcounts
def _tetrahedron(W, lam):
    """Weights of the point of tetrahedron W[0..3] closest to the origin, into lam."""
    w0x, w0y, w0z = W[0, 0], W[0, 1], W[0, 2]
    e1x, e1y, e1z = W[1, 0] - w0x, W[1, 1] - w0y, W[1, 2] - w0z
    e2x, e2y, e2z = W[2, 0] - w0x, W[2, 1] - w0y, W[2, 2] - w0z
    e3x, e3y, e3z = W[3, 0] - w0x, W[3, 1] - w0y, W[3, 2] - w0z
    det = _det3(e1x, e1y, e1z, e2x, e2y, e2z, e3x, e3y, e3z)
    # signed volumes with one vertex moved to the origin; they sum to det
    c1 = _det3(-w0x, -w0y, -w0z, e2x, e2y, e2z, e3x, e3y, e3z)
    c2 = _det3(e1x, e1y, e1z, -w0x, -w0y, -w0z, e3x, e3y, e3z)
    c3 = _det3(e1x, e1y, e1z, e2x, e2y, e2z, -w0x, -w0y, -w0z)
    c0 = det - c1 - c2 - c3
    s0, s1, s2, s3 = (_same_sign(det, c0), _same_sign(det, c1), _same_sign(det, c2),
                      _same_sign(det, c3))
    if s0 and s1 and s2 and s3:
        lam[0], lam[1], lam[2], lam[3] = c0 / det, c1 / det, c2 / det, c3 / det
        return
    best = math.inf
    for drop in range(4):
        if (drop == 0 and s0) or (drop == 1 and s1) or (drop == 2 and s2) or (drop == 3 and s3):
            continue
        i = 1 if drop == 0 else 0
        j = 2 if drop <= 1 else 1
        k = 3 if drop <= 2 else 2
        li, lj, lk = _triangle(W, i, j, k)
        d = _norm2_of(W, i, j, k, li, lj, lk)
        if d < best:
            best = d
            for m in range(4):
                lam[m] = 0.0
            lam[i], lam[j], lam[k] = li, lj, lk


@numba.njit(cache=True, inline="always")
def closest_weights(W, n, lam):
    """Barycentric weights lam[:n] of the point of simplex W[:n] closest to the origin."""
    for m in range(4):
        lam[m] = 0.0
    if n == 1:
        lam[0] = 1.0
    elif n == 2:
        lam[0], lam[1] = _segment(W, 0, 1)
    elif n == 3:
        lam[0], lam[1], lam[2] = _triangle(W, 0, 1, 2)
    else:
        _tetrahedron(W, lam)
