"""Spatial algebra for the dynamics kernels (Featherstone 2008, angular first).

Motion vectors are [w; v], force vectors [n; f]. A transform from a parent frame p to a
body frame b is stored as the pair (E, r): E rotates parent coordinates into body
coordinates (E = R^T for the rotation R: parent <- body) and r is the body origin in
parent coordinates. Then, for motion vectors,

    m_b = [E w_p; E (v_p - r x w_p)]

and forces go back with the transpose, f_p = [E^T n + r x E^T f; E^T f]. Spatial
inertias are 6x6 symmetric [[A, B], [B^T, C]] (3x3 blocks).

The helpers take whole per-body arrays plus row indices (`E, r, i` means E[i], r[i])
instead of views: in numba a view of a row costs a reference-count round trip, which
in these short loops costs more than the arithmetic. Small rotations travel as 9-tuples
(row major), which live in registers.
"""
from __future__ import annotations

import math

import numba

from pipeline.nrt import njit_no_refcounts

IDENTITY3 = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


@njit_no_refcounts
def quat_matrix(w, x, y, z):
    """Rotation (parent <- body, row-major 9-tuple) of the quaternion (w, x, y, z); a
    quaternion that drifted off unit length still gives a proper rotation."""
    s = 2.0 / (w * w + x * x + y * y + z * z)
    return (1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
            s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x),
            s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y))


@njit_no_refcounts
def axis_angle_matrix(x, y, z, angle):
    """Rotation by `angle` about the unit axis (x, y, z) (Rodrigues), row-major 9-tuple."""
    s = math.sin(angle)
    c = math.cos(angle)
    t = 1.0 - c
    return (c + t * x * x, t * x * y - s * z, t * x * z + s * y,
            t * x * y + s * z, c + t * y * y, t * y * z - s * x,
            t * x * z - s * y, t * y * z + s * x, c + t * z * z)


@njit_no_refcounts
def mul33(a, b):
    """Product of two row-major 9-tuples."""
    return (a[0] * b[0] + a[1] * b[3] + a[2] * b[6], a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
            a[0] * b[2] + a[1] * b[5] + a[2] * b[8], a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
            a[3] * b[1] + a[4] * b[4] + a[5] * b[7], a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
            a[6] * b[0] + a[7] * b[3] + a[8] * b[6], a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
            a[6] * b[2] + a[7] * b[5] + a[8] * b[8])


@numba.njit(cache=True)
def rot_to_quat(R, out):
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (Shepperd's method)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    if tr > 0.0:
        s = 2.0 * math.sqrt(tr + 1.0)
        w = 0.25 * s
        x = (R[2, 1] - R[1, 2]) / s
        y = (R[0, 2] - R[2, 0]) / s
        z = (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        w = (R[2, 1] - R[1, 2]) / s
        x = 0.25 * s
        y = (R[0, 1] + R[1, 0]) / s
        z = (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        w = (R[0, 2] - R[2, 0]) / s
        x = (R[0, 1] + R[1, 0]) / s
        y = 0.25 * s
        z = (R[1, 2] + R[2, 1]) / s
    else:
        s = 2.0 * math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        w = (R[1, 0] - R[0, 1]) / s
        x = (R[0, 2] + R[2, 0]) / s
        y = (R[1, 2] + R[2, 1]) / s
        z = 0.25 * s
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    out[0] = w
    out[1] = x
    out[2] = y
    out[3] = z


@njit_no_refcounts
def motion_to_child(E, r, i, m, j, out, k):
    """out[k] = X_i m[j]: a parent-frame motion vector seen in body i."""
    dx = m[j, 3] - (r[i, 1] * m[j, 2] - r[i, 2] * m[j, 1])
    dy = m[j, 4] - (r[i, 2] * m[j, 0] - r[i, 0] * m[j, 2])
    dz = m[j, 5] - (r[i, 0] * m[j, 1] - r[i, 1] * m[j, 0])
    w0, w1, w2 = m[j, 0], m[j, 1], m[j, 2]
    for a in range(3):
        out[k, a] = E[i, a, 0] * w0 + E[i, a, 1] * w1 + E[i, a, 2] * w2
        out[k, 3 + a] = E[i, a, 0] * dx + E[i, a, 1] * dy + E[i, a, 2] * dz


@njit_no_refcounts
def add_force_to_parent(E, r, i, f, j, out, k):
    """out[k] += X_i^T f[j]: a force on body i expressed at its parent's origin."""
    fx = E[i, 0, 0] * f[j, 3] + E[i, 1, 0] * f[j, 4] + E[i, 2, 0] * f[j, 5]
    fy = E[i, 0, 1] * f[j, 3] + E[i, 1, 1] * f[j, 4] + E[i, 2, 1] * f[j, 5]
    fz = E[i, 0, 2] * f[j, 3] + E[i, 1, 2] * f[j, 4] + E[i, 2, 2] * f[j, 5]
    nx = E[i, 0, 0] * f[j, 0] + E[i, 1, 0] * f[j, 1] + E[i, 2, 0] * f[j, 2]
    ny = E[i, 0, 1] * f[j, 0] + E[i, 1, 1] * f[j, 1] + E[i, 2, 1] * f[j, 2]
    nz = E[i, 0, 2] * f[j, 0] + E[i, 1, 2] * f[j, 1] + E[i, 2, 2] * f[j, 2]
    out[k, 0] += nx + r[i, 1] * fz - r[i, 2] * fy
    out[k, 1] += ny + r[i, 2] * fx - r[i, 0] * fz
    out[k, 2] += nz + r[i, 0] * fy - r[i, 1] * fx
    out[k, 3] += fx
    out[k, 4] += fy
    out[k, 5] += fz


@njit_no_refcounts
def _block(I, j, oi, oj):
    return (I[j, oi, oj], I[j, oi, oj + 1], I[j, oi, oj + 2],
            I[j, oi + 1, oj], I[j, oi + 1, oj + 1], I[j, oi + 1, oj + 2],
            I[j, oi + 2, oj], I[j, oi + 2, oj + 1], I[j, oi + 2, oj + 2])


@njit_no_refcounts
def _transpose(a):
    return (a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8])


@njit_no_refcounts
def _skew_mul(rx, ry, rz, m):
    """(r x) M: column b is r x (column b of M)."""
    return (ry * m[6] - rz * m[3], ry * m[7] - rz * m[4], ry * m[8] - rz * m[5],
            rz * m[0] - rx * m[6], rz * m[1] - rx * m[7], rz * m[2] - rx * m[8],
            rx * m[3] - ry * m[0], rx * m[4] - ry * m[1], rx * m[5] - ry * m[2])


@njit_no_refcounts
def _rotate_symmetric(e, I, j, o):
    """E^T M E for the symmetric 3x3 block M = I[j, o:o+3, o:o+3] (e = E row-major): the
    upper triangle computed, the lower mirrored."""
    m = _block(I, j, o, o)
    t = mul33(m, e)
    r00 = e[0] * t[0] + e[3] * t[3] + e[6] * t[6]
    r01 = e[0] * t[1] + e[3] * t[4] + e[6] * t[7]
    r02 = e[0] * t[2] + e[3] * t[5] + e[6] * t[8]
    r11 = e[1] * t[1] + e[4] * t[4] + e[7] * t[7]
    r12 = e[1] * t[2] + e[4] * t[5] + e[7] * t[8]
    r22 = e[2] * t[2] + e[5] * t[5] + e[8] * t[8]
    return (r00, r01, r02, r01, r11, r12, r02, r12, r22)


@njit_no_refcounts
def add_inertia_to_parent(E, r, i, I, j, out, k):
    """out[k] += X_i^T I[j] X_i for a symmetric spatial inertia given in body i's frame.

    Each 3x3 block is rotated into parent axes (A' = E^T A E, likewise B', C'; A' and C'
    are symmetric), then the reference point moves by r:  C = C',  B = B' + K  with
    K = r x C',  A = A' + L + L^T + N  with  L = r x B'^T  and  N = -(r x) C' (r x) =
    K (r x)^T, symmetric.
    """
    e = _block(E, i, 0, 0)
    A = _rotate_symmetric(e, I, j, 0)
    B = mul33(_transpose(e), mul33(_block(I, j, 0, 3), e))
    C = _rotate_symmetric(e, I, j, 3)
    rx, ry, rz = r[i, 0], r[i, 1], r[i, 2]
    K = _skew_mul(rx, ry, rz, C)
    L = _skew_mul(rx, ry, rz, _transpose(B))
    for a in range(3):
        # row a of N = r x (row a of K), for b >= a
        ka0, ka1, ka2 = K[3 * a], K[3 * a + 1], K[3 * a + 2]
        n = (ry * ka2 - rz * ka1, rz * ka0 - rx * ka2, rx * ka1 - ry * ka0)
        for b in range(3):
            ab = 3 * a + b
            bv = B[ab] + K[ab]
            out[k, a, 3 + b] += bv
            out[k, 3 + b, a] += bv
            if b >= a:
                out[k, 3 + a, 3 + b] += C[ab]
                av = A[ab] + L[ab] + L[3 * b + a] + n[b]
                out[k, a, b] += av
                if b > a:
                    out[k, 3 + b, 3 + a] += C[ab]
                    out[k, b, a] += av


@njit_no_refcounts
def rigid_inertia(mass, com, inertia, i, out, k):
    """out[k] = spatial inertia of body i about its origin: [[Ic + m cx cx^T, m cx],
    [m cx^T, m 1]] from mass[i], com[i] and the rotational inertia[i] about the COM."""
    m = mass[i]
    cx, cy, cz = com[i, 0], com[i, 1], com[i, 2]
    hx, hy, hz = m * cx, m * cy, m * cz
    out[k, 0, 0] = inertia[i, 0, 0] + hy * cy + hz * cz
    out[k, 1, 1] = inertia[i, 1, 1] + hx * cx + hz * cz
    out[k, 2, 2] = inertia[i, 2, 2] + hx * cx + hy * cy
    out[k, 0, 1] = out[k, 1, 0] = inertia[i, 0, 1] - hx * cy
    out[k, 0, 2] = out[k, 2, 0] = inertia[i, 0, 2] - hx * cz
    out[k, 1, 2] = out[k, 2, 1] = inertia[i, 1, 2] - hy * cz
    out[k, 0, 3] = out[k, 3, 0] = 0.0
    out[k, 1, 4] = out[k, 4, 1] = 0.0
    out[k, 2, 5] = out[k, 5, 2] = 0.0
    out[k, 0, 4] = out[k, 4, 0] = -hz
    out[k, 0, 5] = out[k, 5, 0] = hy
    out[k, 1, 3] = out[k, 3, 1] = hz
    out[k, 1, 5] = out[k, 5, 1] = -hx
    out[k, 2, 3] = out[k, 3, 2] = -hy
    out[k, 2, 4] = out[k, 4, 2] = hx
    for a in range(3, 6):
        for b in range(3, 6):
            out[k, a, b] = m if a == b else 0.0


@njit_no_refcounts
def cross_force_inertia(I, i, v, j, out, k):
    """out[k] = v[j] x* (I[i] v[j]): the velocity-product (bias) force of a rigid body."""
    h = (I[i, 0, 0] * v[j, 0] + I[i, 0, 1] * v[j, 1] + I[i, 0, 2] * v[j, 2]
         + I[i, 0, 3] * v[j, 3] + I[i, 0, 4] * v[j, 4] + I[i, 0, 5] * v[j, 5],
         I[i, 1, 0] * v[j, 0] + I[i, 1, 1] * v[j, 1] + I[i, 1, 2] * v[j, 2]
         + I[i, 1, 3] * v[j, 3] + I[i, 1, 4] * v[j, 4] + I[i, 1, 5] * v[j, 5],
         I[i, 2, 0] * v[j, 0] + I[i, 2, 1] * v[j, 1] + I[i, 2, 2] * v[j, 2]
         + I[i, 2, 3] * v[j, 3] + I[i, 2, 4] * v[j, 4] + I[i, 2, 5] * v[j, 5],
         I[i, 3, 0] * v[j, 0] + I[i, 3, 1] * v[j, 1] + I[i, 3, 2] * v[j, 2]
         + I[i, 3, 3] * v[j, 3],
         I[i, 4, 0] * v[j, 0] + I[i, 4, 1] * v[j, 1] + I[i, 4, 2] * v[j, 2]
         + I[i, 4, 4] * v[j, 4],
         I[i, 5, 0] * v[j, 0] + I[i, 5, 1] * v[j, 1] + I[i, 5, 2] * v[j, 2]
         + I[i, 5, 5] * v[j, 5])
    w0, w1, w2 = v[j, 0], v[j, 1], v[j, 2]
    u0, u1, u2 = v[j, 3], v[j, 4], v[j, 5]
    out[k, 0] = w1 * h[2] - w2 * h[1] + u1 * h[5] - u2 * h[4]
    out[k, 1] = w2 * h[0] - w0 * h[2] + u2 * h[3] - u0 * h[5]
    out[k, 2] = w0 * h[1] - w1 * h[0] + u0 * h[4] - u1 * h[3]
    out[k, 3] = w1 * h[5] - w2 * h[4]
    out[k, 4] = w2 * h[3] - w0 * h[5]
    out[k, 5] = w0 * h[4] - w1 * h[3]


@njit_no_refcounts
def ldl_factor(A, n, out, k):
    """LDL^T factorisation of the symmetric positive definite A[:n, :n] (2-D) into
    out[k]: the unit lower factor L below the diagonal and 1/D on the diagonal."""
    for c in range(n):
        d = A[c, c]
        for m in range(c):
            d -= out[k, c, m] * out[k, c, m] / out[k, m, m]
        out[k, c, c] = 1.0 / d
        for a in range(c + 1, n):
            v = A[a, c]
            for m in range(c):
                v -= out[k, a, m] * out[k, c, m] / out[k, m, m]
            out[k, a, c] = v * out[k, c, c]


@njit_no_refcounts
def ldl_solve(F, k, n, x, xi):
    """x[xi, :n] <- D^-1 x[xi, :n] with D given by its factor F[k] (see ldl_factor)."""
    for a in range(n):
        for m in range(a):
            x[xi, a] -= F[k, a, m] * x[xi, m]
    for a in range(n):
        x[xi, a] *= F[k, a, a]
    for a in range(n - 1, -1, -1):
        for m in range(a + 1, n):
            x[xi, a] -= F[k, m, a] * x[xi, m]
