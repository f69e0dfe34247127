"""Spatial algebra for the dynamics kernels (Featherstone 2008, angular first).

Motion vectors are [w; v], force vectors [n; f]. A transform from a parent frame p to a
body frame b is stored as the pair (E, r): E rotates parent coordinates into body
coordinates (E = R^T for the rotation R: parent <- body) and r is the body origin in
parent coordinates. Then, for motion vectors,

    m_b = [E w_p; E (v_p - r x w_p)]

and forces go back with the transpose, f_p = [E^T n + r x E^T f; E^T f]. Spatial
inertias are 6x6 symmetric [[A, B], [B^T, C]] (3x3 blocks). Everything here works on
3x3 blocks and explicit loops so that the kernels never form 6x6 transform products
and never allocate.
"""
from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def quat_to_rot(w, x, y, z, out):
    """Rotation matrix (parent <- body) of the quaternion (w, x, y, z). A quaternion that
    drifted off unit length still gives a proper rotation (it is normalised here)."""
    s = 2.0 / (w * w + x * x + y * y + z * z)
    out[0, 0] = 1.0 - s * (y * y + z * z)
    out[0, 1] = s * (x * y - w * z)
    out[0, 2] = s * (x * z + w * y)
    out[1, 0] = s * (x * y + w * z)
    out[1, 1] = 1.0 - s * (x * x + z * z)
    out[1, 2] = s * (y * z - w * x)
    out[2, 0] = s * (x * z - w * y)
    out[2, 1] = s * (y * z + w * x)
    out[2, 2] = 1.0 - s * (x * x + y * y)


@numba.njit(cache=True)
def axis_angle_rot(ax, angle, out):
    """Rotation by `angle` about the unit axis `ax` (Rodrigues), written into out (3x3)."""
    s = math.sin(angle)
    c = math.cos(angle)
    t = 1.0 - c
    x, y, z = ax[0], ax[1], ax[2]
    out[0, 0] = c + t * x * x
    out[0, 1] = t * x * y - s * z
    out[0, 2] = t * x * z + s * y
    out[1, 0] = t * x * y + s * z
    out[1, 1] = c + t * y * y
    out[1, 2] = t * y * z - s * x
    out[2, 0] = t * x * z - s * y
    out[2, 1] = t * y * z + s * x
    out[2, 2] = c + t * z * z


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


@numba.njit(cache=True)
def motion_to_child(E, r, m, out):
    """out = X m for the parent->body transform (E, r); out may not alias m."""
    # v_p - r x w_p, then rotate both halves
    dx = m[3] - (r[1] * m[2] - r[2] * m[1])
    dy = m[4] - (r[2] * m[0] - r[0] * m[2])
    dz = m[5] - (r[0] * m[1] - r[1] * m[0])
    for k in range(3):
        out[k] = E[k, 0] * m[0] + E[k, 1] * m[1] + E[k, 2] * m[2]
        out[3 + k] = E[k, 0] * dx + E[k, 1] * dy + E[k, 2] * dz


@numba.njit(cache=True)
def add_force_to_parent(E, r, f, out):
    """out += X^T f: a body-frame force expressed at the parent frame origin."""
    fx = E[0, 0] * f[3] + E[1, 0] * f[4] + E[2, 0] * f[5]
    fy = E[0, 1] * f[3] + E[1, 1] * f[4] + E[2, 1] * f[5]
    fz = E[0, 2] * f[3] + E[1, 2] * f[4] + E[2, 2] * f[5]
    nx = E[0, 0] * f[0] + E[1, 0] * f[1] + E[2, 0] * f[2]
    ny = E[0, 1] * f[0] + E[1, 1] * f[1] + E[2, 1] * f[2]
    nz = E[0, 2] * f[0] + E[1, 2] * f[1] + E[2, 2] * f[2]
    out[0] += nx + r[1] * fz - r[2] * fy
    out[1] += ny + r[2] * fx - r[0] * fz
    out[2] += nz + r[0] * fy - r[1] * fx
    out[3] += fx
    out[4] += fy
    out[5] += fz


@numba.njit(cache=True)
def add_inertia_to_parent(E, r, I, out, tmp):
    """out += X^T I X for a symmetric spatial inertia I (6x6) given in the body frame.

    Each 3x3 block is rotated into parent axes (A' = E^T A E, likewise B', C'); then the
    reference point moves by r:  C = C',  B = B' + r x C',
    A = A' + L + L^T + N  with  L = r x B'^T  and  N = -(r x) C' (r x).
    `tmp` is (6, 6) scratch; only its upper blocks are used.
    """
    for oi, oj in ((0, 0), (0, 3), (3, 3)):
        for a in range(3):
            for b in range(3):
                acc = 0.0
                for k in range(3):
                    acc += E[k, a] * (I[oi + k, oj] * E[0, b] + I[oi + k, oj + 1] * E[1, b]
                                      + I[oi + k, oj + 2] * E[2, b])
                tmp[oi + a, oj + b] = acc
    rx, ry, rz = r[0], r[1], r[2]
    # K = r x C' (column-wise) and B = B' + K
    for j in range(3):
        c0 = tmp[3, 3 + j]
        c1 = tmp[4, 3 + j]
        c2 = tmp[5, 3 + j]
        tmp[3 + j, 0] = ry * c2 - rz * c1  # K^T kept in the lower-left block
        tmp[3 + j, 1] = rz * c0 - rx * c2
        tmp[3 + j, 2] = rx * c1 - ry * c0
    for i in range(3):
        for j in range(3):
            b = tmp[i, 3 + j] + tmp[3 + j, i]
            out[i, 3 + j] += b
            out[3 + j, i] += b
            out[3 + i, 3 + j] += tmp[3 + i, 3 + j]
    # A: L[:, j] = r x (row j of B'), N[i, :] = r x (row i of K)
    for i in range(3):
        for j in range(i, 3):
            # L[i, j] = (r x B'[j, :])[i]; L[j, i] = (r x B'[i, :])[j]
            if i == 0:
                lij = ry * tmp[j, 5] - rz * tmp[j, 4]
            elif i == 1:
                lij = rz * tmp[j, 3] - rx * tmp[j, 5]
            else:
                lij = rx * tmp[j, 4] - ry * tmp[j, 3]
            if j == 0:
                lji = ry * tmp[i, 5] - rz * tmp[i, 4]
            elif j == 1:
                lji = rz * tmp[i, 3] - rx * tmp[i, 5]
            else:
                lji = rx * tmp[i, 4] - ry * tmp[i, 3]
            # N[i, j] = (r x K[i, :])[j], K[i, k] = tmp[3 + k, i]
            k0 = tmp[3, i]
            k1 = tmp[4, i]
            k2 = tmp[5, i]
            if j == 0:
                nij = ry * k2 - rz * k1
            elif j == 1:
                nij = rz * k0 - rx * k2
            else:
                nij = rx * k1 - ry * k0
            a = tmp[i, j] + lij + lji + nij
            out[i, j] += a
            if j != i:
                out[j, i] += a


@numba.njit(cache=True)
def rigid_inertia(m, com, Icom, out):
    """Spatial inertia about the body origin of mass m with centre com and rotational
    inertia Icom about the centre (body axes): [[Icom + m cx cx^T, m cx], [m cx^T, m 1]]."""
    cx, cy, cz = com[0], com[1], com[2]
    hx, hy, hz = m * cx, m * cy, m * cz
    out[0, 0] = Icom[0, 0] + m * (cy * cy + cz * cz)
    out[1, 1] = Icom[1, 1] + m * (cx * cx + cz * cz)
    out[2, 2] = Icom[2, 2] + m * (cx * cx + cy * cy)
    out[0, 1] = out[1, 0] = Icom[0, 1] - m * cx * cy
    out[0, 2] = out[2, 0] = Icom[0, 2] - m * cx * cz
    out[1, 2] = out[2, 1] = Icom[1, 2] - m * cy * cz
    # m cx  (skew of h = m c)
    out[0, 3] = out[3, 0] = 0.0
    out[1, 4] = out[4, 1] = 0.0
    out[2, 5] = out[5, 2] = 0.0
    out[0, 4] = out[4, 0] = -hz
    out[0, 5] = out[5, 0] = hy
    out[1, 3] = out[3, 1] = hz
    out[1, 5] = out[5, 1] = -hx
    out[2, 3] = out[3, 2] = -hy
    out[2, 4] = out[4, 2] = hx
    for i in range(3, 6):
        for j in range(3, 6):
            out[i, j] = m if i == j else 0.0


@numba.njit(cache=True)
def mat6_vec(M, x, out):
    for i in range(6):
        acc = 0.0
        for j in range(6):
            acc += M[i, j] * x[j]
        out[i] = acc


@numba.njit(cache=True)
def cross_motion(v, m, out):
    """out = v x m (motion cross product) for v = [w; u]: [w x m_w; w x m_v + u x m_w]."""
    w0, w1, w2 = v[0], v[1], v[2]
    u0, u1, u2 = v[3], v[4], v[5]
    a0, a1, a2 = m[0], m[1], m[2]
    b0, b1, b2 = m[3], m[4], m[5]
    out[0] = w1 * a2 - w2 * a1
    out[1] = w2 * a0 - w0 * a2
    out[2] = w0 * a1 - w1 * a0
    out[3] = w1 * b2 - w2 * b1 + u1 * a2 - u2 * a1
    out[4] = w2 * b0 - w0 * b2 + u2 * a0 - u0 * a2
    out[5] = w0 * b1 - w1 * b0 + u0 * a1 - u1 * a0


@numba.njit(cache=True)
def cross_force(v, f, out):
    """out = v x* f (force cross product) for v = [w; u]: [w x n + u x f; w x f]."""
    w0, w1, w2 = v[0], v[1], v[2]
    u0, u1, u2 = v[3], v[4], v[5]
    n0, n1, n2 = f[0], f[1], f[2]
    f0, f1, f2 = f[3], f[4], f[5]
    out[0] = w1 * n2 - w2 * n1 + u1 * f2 - u2 * f1
    out[1] = w2 * n0 - w0 * n2 + u2 * f0 - u0 * f2
    out[2] = w0 * n1 - w1 * n0 + u0 * f1 - u1 * f0
    out[3] = w1 * f2 - w2 * f1
    out[4] = w2 * f0 - w0 * f2
    out[5] = w0 * f1 - w1 * f0


@numba.njit(cache=True)
def spd_inverse(A, n, out, work):
    """out[:n, :n] = inverse of the symmetric positive definite A[:n, :n] by Gauss-Jordan
    elimination without pivoting (stable for SPD). `work` is (6, 6) scratch; A is kept."""
    for i in range(n):
        for j in range(n):
            out[i, j] = 1.0 if i == j else 0.0
            work[i, j] = A[i, j]
    for k in range(n):
        p = 1.0 / work[k, k]
        for j in range(n):
            work[k, j] *= p
            out[k, j] *= p
        for i in range(n):
            if i != k:
                f = work[i, k]
                if f != 0.0:
                    for j in range(n):
                        work[i, j] -= f * work[k, j]
                        out[i, j] -= f * out[k, j]
