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

from typing import NamedTuple

import numba
import numpy as np

from pipeline.physics.model import BALL, FIXED, FREE, PRISMATIC, REVOLUTE, UNIVERSAL
from pipeline.physics.spatial import axis_angle_rot, cross_motion, motion_to_child, quat_to_rot


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
    U: np.ndarray  # (nv, 6) IA S
    Dinv: np.ndarray  # (nb, 6, 6) inverse of S^T IA S (+ armature), per joint
    u: np.ndarray  # (nv,) tau - S^T pA
    R3: np.ndarray  # (3, 3) scratch
    M6: np.ndarray  # (6, 6) scratch
    T6: np.ndarray  # (6, 6) scratch
    W6: np.ndarray  # (6, 6) scratch
    x6: np.ndarray  # (6,) scratch
    y6: np.ndarray  # (6,) scratch


def make_workspace(nb: int, nv: int) -> Workspace:
    z = np.zeros
    return Workspace(
        E=z((nb, 3, 3)), r=z((nb, 3)), S=z((nv, 6)), xpos=z((nb, 3)), xrot=z((nb, 3, 3)),
        v=z((nb, 6)), c=z((nb, 6)), a=z((nb, 6)), f=z((nb, 6)), IA=z((nb, 6, 6)),
        pA=z((nb, 6)), U=z((nv, 6)), Dinv=z((nb, 6, 6)), u=z(nv), R3=z((3, 3)),
        M6=z((6, 6)), T6=z((6, 6)), W6=z((6, 6)), x6=z(6), y6=z(6))


@numba.njit(cache=True)
def joint_pass(tree, q, qd, w, with_velocity):
    """Outward pass: E, r, S, world pose and, if with_velocity, v and c (see module doc)."""
    nb = tree.parent.shape[0]
    RJ = w.R3
    vJ = w.x6
    for i in range(nb):
        jt = tree.jtype[i]
        qa = tree.qadr[i]
        va = tree.vadr[i]
        ax = tree.jaxis[i, 0]
        tx = 0.0
        ty = 0.0
        tz = 0.0
        cj0 = 0.0
        cj1 = 0.0
        cj2 = 0.0
        if jt == REVOLUTE:
            axis_angle_rot(ax, q[qa], RJ)
            for k in range(3):
                w.S[va, k] = ax[k]
                w.S[va, 3 + k] = 0.0
        elif jt == PRISMATIC:
            for a in range(3):
                for b in range(3):
                    RJ[a, b] = 1.0 if a == b else 0.0
            tx = ax[0] * q[qa]
            ty = ax[1] * q[qa]
            tz = ax[2] * q[qa]
            for k in range(3):
                w.S[va, k] = 0.0
                w.S[va, 3 + k] = ax[k]
        elif jt == UNIVERSAL:
            a2 = tree.jaxis[i, 1]
            R1 = w.M6[:3, :3]
            R2 = w.M6[3:, 3:]
            axis_angle_rot(ax, q[qa], R1)
            axis_angle_rot(a2, q[qa + 1], R2)
            for a in range(3):
                for b in range(3):
                    RJ[a, b] = R1[a, 0] * R2[0, b] + R1[a, 1] * R2[1, b] + R1[a, 2] * R2[2, b]
            # first axis seen from the body: R2^T a1; its rate gives dS/dt qd = qd1 qd2 (s1 x a2)
            for k in range(3):
                w.S[va, k] = R2[0, k] * ax[0] + R2[1, k] * ax[1] + R2[2, k] * ax[2]
                w.S[va, 3 + k] = 0.0
                w.S[va + 1, k] = a2[k]
                w.S[va + 1, 3 + k] = 0.0
            if with_velocity:
                s = w.S[va]
                g = qd[va] * qd[va + 1]
                cj0 = g * (s[1] * a2[2] - s[2] * a2[1])
                cj1 = g * (s[2] * a2[0] - s[0] * a2[2])
                cj2 = g * (s[0] * a2[1] - s[1] * a2[0])
        elif jt == BALL:
            quat_to_rot(q[qa], q[qa + 1], q[qa + 2], q[qa + 3], RJ)
            for d in range(3):
                for k in range(6):
                    w.S[va + d, k] = 1.0 if k == d else 0.0
        elif jt == FREE:
            tx = q[qa]
            ty = q[qa + 1]
            tz = q[qa + 2]
            quat_to_rot(q[qa + 3], q[qa + 4], q[qa + 5], q[qa + 6], RJ)
            # qd = (v, w): column d of S picks v_d (linear rows), column 3+d picks w_d
            for d in range(3):
                for k in range(6):
                    w.S[va + d, k] = 1.0 if k == 3 + d else 0.0
                    w.S[va + 3 + d, k] = 1.0 if k == d else 0.0
        else:  # FIXED
            for a in range(3):
                for b in range(3):
                    RJ[a, b] = 1.0 if a == b else 0.0

        # body placement in the parent: R = jrot RJ, r = jpos + jrot t
        jr = tree.jrot[i]
        E = w.E[i]
        for a in range(3):
            for b in range(3):
                # E = R^T, R[b, a] = sum_k jr[b, k] RJ[k, a]
                E[a, b] = jr[b, 0] * RJ[0, a] + jr[b, 1] * RJ[1, a] + jr[b, 2] * RJ[2, a]
        r = w.r[i]
        for a in range(3):
            r[a] = tree.jpos[i, a] + jr[a, 0] * tx + jr[a, 1] * ty + jr[a, 2] * tz

        p = tree.parent[i]
        X = w.xrot[i]
        if p < 0:
            for a in range(3):
                w.xpos[i, a] = r[a]
                for b in range(3):
                    X[a, b] = E[b, a]
        else:
            Xp = w.xrot[p]
            for a in range(3):
                w.xpos[i, a] = w.xpos[p, a] + Xp[a, 0] * r[0] + Xp[a, 1] * r[1] + Xp[a, 2] * r[2]
                for b in range(3):
                    X[a, b] = Xp[a, 0] * E[b, 0] + Xp[a, 1] * E[b, 1] + Xp[a, 2] * E[b, 2]

        if with_velocity:
            for k in range(6):
                vJ[k] = 0.0
            for d in range(va, va + nv_of(jt)):
                for k in range(6):
                    vJ[k] += w.S[d, k] * qd[d]
            vi = w.v[i]
            if p < 0:
                for k in range(6):
                    vi[k] = vJ[k]
            else:
                motion_to_child(E, r, w.v[p], vi)
                for k in range(6):
                    vi[k] += vJ[k]
            ci = w.c[i]
            cross_motion(vi, vJ, ci)
            ci[0] += cj0
            ci[1] += cj1
            ci[2] += cj2


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


@numba.njit(cache=True)
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


@numba.njit(cache=True, inline="always")
def _quat_rate(q, a, wx, wy, wz, out):
    qw, qx, qy, qz = q[a], q[a + 1], q[a + 2], q[a + 3]
    out[a] = 0.5 * (-qx * wx - qy * wy - qz * wz)
    out[a + 1] = 0.5 * (qw * wx + qy * wz - qz * wy)
    out[a + 2] = 0.5 * (qw * wy + qz * wx - qx * wz)
    out[a + 3] = 0.5 * (qw * wz + qx * wy - qy * wx)


@numba.njit(cache=True)
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
