"""Joint transforms, forward kinematics and the scratch arrays every dynamics kernel uses.

`joint_pass` is the outward pass shared by ABA, RNEA and CRBA: for every body it builds
the parent->body transform (E, r), the joint's motion subspace S (columns in the body
frame), the world pose, and (optionally) the body spatial velocity v and the
velocity-product acceleration c = v x vJ + dS/dt qd.

Joint layouts (q / qd per joint; conventions of docs/architecture.md, Pinocchio's):
  fixed -/-; revolute, prismatic q/qd (1); universal (q1, q2) with R = Rot(a1,q1) Rot(a2,q2);
  ball q = (w, x, y, z), qd = body angular velocity; free q = (x, y, z, w, qx, qy, qz)
  of the body in its joint's rest frame, qd = (v, w) of the body origin in body axes.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.model import BALL, FREE, PRISMATIC, REVOLUTE, UNIVERSAL
from pipeline.physics.spatial import (IDENTITY3, axis_angle_matrix, motion_to_child, mul33,
                                      quat_matrix)


class Workspace(NamedTuple):
    """Preallocated arrays of one dynamics evaluation (make with `make_workspace`)."""

    E: np.ndarray  # (nb, 3, 3) body <- parent rotation
    r: np.ndarray  # (nb, 3) body origin in the parent frame
    S: np.ndarray  # (nv, 6) motion subspace, one column per DOF, body frame
    xpos: np.ndarray  # (nb, 3) body origin in the world
    xrot: np.ndarray  # (nb, 3, 3) world <- body
    v: np.ndarray  # (nb, 6) body spatial velocity [w; v], body frame
    c: np.ndarray  # (nb, 6) velocity-product acceleration, body frame
    a: np.ndarray  # (nb, 6) body spatial acceleration, body frame
    f: np.ndarray  # (nb, 6) RNEA body force / ABA constraint force on prescribed bodies
    IA: np.ndarray  # (nb, 6, 6) articulated (ABA) or composite (CRBA) inertia
    pA: np.ndarray  # (nb, 6) articulated bias force
    Ia: np.ndarray  # (nb, 6, 6) inertia a body hands to its parent (ABA)
    pa: np.ndarray  # (nb, 6) bias force a body hands to its parent (ABA)
    U: np.ndarray  # (nv, 6) IA S
    Dfac: np.ndarray  # (nb, 6, 6) LDL^T factor of D = S^T IA S + armature (1/D on the diagonal)
    u: np.ndarray  # (nv,) tau - S^T pA
    T6: np.ndarray  # (6, 6) scratch
    W6: np.ndarray  # (6, 6) scratch
    F2: np.ndarray  # (2, 6) scratch


def make_workspace(nb: int, nv: int) -> Workspace:
    z = np.zeros
    return Workspace(
        E=z((nb, 3, 3)), r=z((nb, 3)), S=z((nv, 6)), xpos=z((nb, 3)), xrot=z((nb, 3, 3)),
        v=z((nb, 6)), c=z((nb, 6)), a=z((nb, 6)), f=z((nb, 6)), IA=z((nb, 6, 6)),
        pA=z((nb, 6)), Ia=z((nb, 6, 6)), pa=z((nb, 6)), U=z((nv, 6)), Dfac=z((nb, 6, 6)),
        u=z(nv), T6=z((6, 6)), W6=z((6, 6)), F2=z((2, 6)))


@njit_no_refcounts
def _set_unit_columns(S, va, n, offset):
    """S rows va..va+n-1 = unit vectors e_{offset}, e_{offset+1}, ..."""
    for d in range(n):
        for k in range(6):
            S[va + d, k] = 1.0 if k == offset + d else 0.0


@njit_no_refcounts
def joint_pass(tree, q, qd, w, with_velocity):
    """Outward pass: E, r, S, world pose and, if with_velocity, v and c (see module doc)."""
    nb = tree.parent.shape[0]
    S = w.S
    for i in range(nb):
        jt = tree.jtype[i]
        qa = tree.qadr[i]
        va = tree.vadr[i]
        x, y, z = tree.jaxis[i, 0, 0], tree.jaxis[i, 0, 1], tree.jaxis[i, 0, 2]
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        cj0 = 0.0
        cj1 = 0.0
        cj2 = 0.0
        R = IDENTITY3
        if jt == REVOLUTE:
            R = axis_angle_matrix(x, y, z, q[qa])
            S[va, 0] = x
            S[va, 1] = y
            S[va, 2] = z
            S[va, 3] = 0.0
            S[va, 4] = 0.0
            S[va, 5] = 0.0
        elif jt == PRISMATIC:
            t0 = x * q[qa]
            t1 = y * q[qa]
            t2 = z * q[qa]
            S[va, 0] = 0.0
            S[va, 1] = 0.0
            S[va, 2] = 0.0
            S[va, 3] = x
            S[va, 4] = y
            S[va, 5] = z
        elif jt == UNIVERSAL:
            x2, y2, z2 = tree.jaxis[i, 1, 0], tree.jaxis[i, 1, 1], tree.jaxis[i, 1, 2]
            R2 = axis_angle_matrix(x2, y2, z2, q[qa + 1])
            R = mul33(axis_angle_matrix(x, y, z, q[qa]), R2)
            # the first axis seen from the body is R2^T a1; its rate makes
            # dS/dt qd = qd1 qd2 (s1 x a2)
            s0 = R2[0] * x + R2[3] * y + R2[6] * z
            s1 = R2[1] * x + R2[4] * y + R2[7] * z
            s2 = R2[2] * x + R2[5] * y + R2[8] * z
            S[va, 0] = s0
            S[va, 1] = s1
            S[va, 2] = s2
            S[va + 1, 0] = x2
            S[va + 1, 1] = y2
            S[va + 1, 2] = z2
            for k in range(3, 6):
                S[va, k] = 0.0
                S[va + 1, k] = 0.0
            if with_velocity:
                g = qd[va] * qd[va + 1]
                cj0 = g * (s1 * z2 - s2 * y2)
                cj1 = g * (s2 * x2 - s0 * z2)
                cj2 = g * (s0 * y2 - s1 * x2)
        elif jt == BALL:
            R = quat_matrix(q[qa], q[qa + 1], q[qa + 2], q[qa + 3])
            _set_unit_columns(S, va, 3, 0)
        elif jt == FREE:
            t0 = q[qa]
            t1 = q[qa + 1]
            t2 = q[qa + 2]
            R = quat_matrix(q[qa + 3], q[qa + 4], q[qa + 5], q[qa + 6])
            # qd = (v, w): the first three columns pick v (linear rows), the rest w
            _set_unit_columns(S, va, 3, 3)
            _set_unit_columns(S, va + 3, 3, 0)

        # placement in the parent: R_parent<-body = jrot R, r = jpos + jrot t; E = its transpose
        for a in range(3):
            j0, j1, j2 = tree.jrot[i, a, 0], tree.jrot[i, a, 1], tree.jrot[i, a, 2]
            w.E[i, 0, a] = j0 * R[0] + j1 * R[3] + j2 * R[6]
            w.E[i, 1, a] = j0 * R[1] + j1 * R[4] + j2 * R[7]
            w.E[i, 2, a] = j0 * R[2] + j1 * R[5] + j2 * R[8]
            w.r[i, a] = tree.jpos[i, a] + j0 * t0 + j1 * t1 + j2 * t2

        p = tree.parent[i]
        if p < 0:
            for a in range(3):
                w.xpos[i, a] = w.r[i, a]
                for b in range(3):
                    w.xrot[i, a, b] = w.E[i, b, a]
        else:
            for a in range(3):
                w.xpos[i, a] = (w.xpos[p, a] + w.xrot[p, a, 0] * w.r[i, 0]
                                + w.xrot[p, a, 1] * w.r[i, 1] + w.xrot[p, a, 2] * w.r[i, 2])
                for b in range(3):
                    w.xrot[i, a, b] = (w.xrot[p, a, 0] * w.E[i, b, 0] + w.xrot[p, a, 1] * w.E[i, b, 1]
                                       + w.xrot[p, a, 2] * w.E[i, b, 2])

        if with_velocity:
            n = nv_of(jt)
            if p < 0:
                for k in range(6):
                    w.v[i, k] = 0.0
            else:
                motion_to_child(w.E, w.r, i, w.v, p, w.v, i)
            # vJ = S qd, added to v; c = v x vJ + dS/dt qd
            j0 = j1 = j2 = j3 = j4 = j5 = 0.0
            for d in range(va, va + n):
                j0 += S[d, 0] * qd[d]
                j1 += S[d, 1] * qd[d]
                j2 += S[d, 2] * qd[d]
                j3 += S[d, 3] * qd[d]
                j4 += S[d, 4] * qd[d]
                j5 += S[d, 5] * qd[d]
            w.v[i, 0] += j0
            w.v[i, 1] += j1
            w.v[i, 2] += j2
            w.v[i, 3] += j3
            w.v[i, 4] += j4
            w.v[i, 5] += j5
            w0, w1, w2 = w.v[i, 0], w.v[i, 1], w.v[i, 2]
            u0, u1, u2 = w.v[i, 3], w.v[i, 4], w.v[i, 5]
            w.c[i, 0] = w1 * j2 - w2 * j1 + cj0
            w.c[i, 1] = w2 * j0 - w0 * j2 + cj1
            w.c[i, 2] = w0 * j1 - w1 * j0 + cj2
            w.c[i, 3] = w1 * j5 - w2 * j4 + u1 * j2 - u2 * j1
            w.c[i, 4] = w2 * j3 - w0 * j5 + u2 * j0 - u0 * j2
            w.c[i, 5] = w0 * j4 - w1 * j3 + u0 * j1 - u1 * j0


@numba.njit(cache=True, inline="always")
def nv_of(jt):
    """Number of velocity DOFs of a joint type code."""
    if jt == REVOLUTE or jt == PRISMATIC:
        return 1
    if jt == UNIVERSAL:
        return 2
    if jt == BALL:
        return 3
    if jt == FREE:
        return 6
    return 0


@numba.njit(cache=True, inline="always")
def unit_column(jt, d):
    """The spatial coordinate that DOF d of a ball or free joint moves alone (its S column
    is a unit vector), or -1 for other joints."""
    if jt == BALL:
        return d
    if jt == FREE:
        return d + 3 if d < 3 else d - 3
    return -1


@njit_no_refcounts
def qdot(tree, q, qd, out):
    """out (nq,) = dq/dt for the state (q, qd): qd itself for scalar joints, quaternion
    rates 1/2 q (x) (0, w_body) for ball and free joints, and the world(parent)-frame
    velocity R v_body for the position of a free joint. For part B's integrators."""
    nb = tree.parent.shape[0]
    for i in range(nb):
        jt = tree.jtype[i]
        qa = tree.qadr[i]
        va = tree.vadr[i]
        if jt == REVOLUTE or jt == PRISMATIC:
            out[qa] = qd[va]
        elif jt == UNIVERSAL:
            out[qa] = qd[va]
            out[qa + 1] = qd[va + 1]
        elif jt == BALL:
            _quat_rate(q, qa, qd[va], qd[va + 1], qd[va + 2], out)
        elif jt == FREE:
            qw, qx, qy, qz = q[qa + 3], q[qa + 4], q[qa + 5], q[qa + 6]
            vx, vy, vz = qd[va], qd[va + 1], qd[va + 2]
            # R v with R from the (possibly slightly unnormalised) quaternion
            s = 2.0 / (qw * qw + qx * qx + qy * qy + qz * qz)
            out[qa] = (1.0 - s * (qy * qy + qz * qz)) * vx + s * (qx * qy - qw * qz) * vy \
                + s * (qx * qz + qw * qy) * vz
            out[qa + 1] = s * (qx * qy + qw * qz) * vx + (1.0 - s * (qx * qx + qz * qz)) * vy \
                + s * (qy * qz - qw * qx) * vz
            out[qa + 2] = s * (qx * qz - qw * qy) * vx + s * (qy * qz + qw * qx) * vy \
                + (1.0 - s * (qx * qx + qy * qy)) * vz
            _quat_rate(q, qa + 3, qd[va + 3], qd[va + 4], qd[va + 5], out)


@njit_no_refcounts
def turn_free_velocities(tree, qd, h, qd_new):
    """After an Euler step qd_new = qd + h qdd, turn each free joint's linear velocity by
    the step's rotation exactly instead of along its tangent.

    A free joint's linear velocity is its body origin's in body axes, so with no force it
    still turns as the axes do, v' = -w x v + R^T a (a: the origin's acceleration in the
    world), and every articulated acceleration carries that velocity product. The step's
    tangent v - h w x v lengthens v by sqrt(1 + (w h)^2) a step: a body that spins while it
    moves gains kinetic energy like e^(w^2 h t), 4 %/s for a ball spinning at 20 rad/s at
    h = 0.1 ms. Here v is turned back by the rotation the position update gives the body's
    axes (the new w, through an angle of 2 atan(h |w| / 2): the normalised quaternion
    q (1, h w / 2)), so with no force the world velocity stays exactly; the difference from
    the tangent is O(h^2), so the step stays first order."""
    for b in range(tree.parent.shape[0]):
        if tree.jtype[b] != FREE:
            continue
        va = tree.vadr[b]
        vx, vy, vz = qd[va], qd[va + 1], qd[va + 2]
        ox, oy, oz = qd[va + 3], qd[va + 4], qd[va + 5]
        # put back the tangent's -h w x v ...
        dx = h * (oy * vz - oz * vy)
        dy = h * (oz * vx - ox * vz)
        dz = h * (ox * vy - oy * vx)
        wx, wy, wz = qd_new[va + 3], qd_new[va + 4], qd_new[va + 5]
        wn = math.sqrt(wx * wx + wy * wy + wz * wz)
        if wn > 0.0:
            # ... and turn v by -th about k: v cos th - (k x v) sin th + k (k.v)(1 - cos th)
            th = 2.0 * math.atan(0.5 * h * wn)
            kx, ky, kz = wx / wn, wy / wn, wz / wn
            kv = kx * vx + ky * vy + kz * vz
            c1, s = math.cos(th) - 1.0, math.sin(th)
            dx += vx * c1 - (ky * vz - kz * vy) * s - kx * kv * c1
            dy += vy * c1 - (kz * vx - kx * vz) * s - ky * kv * c1
            dz += vz * c1 - (kx * vy - ky * vx) * s - kz * kv * c1
        qd_new[va] += dx
        qd_new[va + 1] += dy
        qd_new[va + 2] += dz


@numba.njit(cache=True, inline="always")
def _quat_rate(q, a, wx, wy, wz, out):
    qw, qx, qy, qz = q[a], q[a + 1], q[a + 2], q[a + 3]
    out[a] = 0.5 * (-qx * wx - qy * wy - qz * wz)
    out[a + 1] = 0.5 * (qw * wx + qy * wz - qz * wy)
    out[a + 2] = 0.5 * (qw * wy + qz * wx - qx * wz)
    out[a + 3] = 0.5 * (qw * wz + qx * wy - qy * wx)


@njit_no_refcounts
def normalize_quaternions(tree, q):
    """Rescale the quaternion of every ball and free joint in q to unit length, in place."""
    nb = tree.parent.shape[0]
    for i in range(nb):
        jt = tree.jtype[i]
        if jt == BALL:
            a = tree.qadr[i]
        elif jt == FREE:
            a = tree.qadr[i] + 3
        else:
            continue
        n = np.sqrt(q[a] * q[a] + q[a + 1] * q[a + 1] + q[a + 2] * q[a + 2] + q[a + 3] * q[a + 3])
        for k in range(4):
            q[a + k] /= n
