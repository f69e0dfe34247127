"""Quaternion PD joint control for the biped controller (Coros 2010, Eq. 2.2):

    tau = kp * vq(q_d, q) - kd * (omega - omega_d)

vq is the rotation vector (axis times angle) taking the joint's current relative
orientation to the desired one, in the child's axes, which is where a ball joint's
generalized force lives (its qd is the child's angular velocity relative to the parent in
child axes). Hinges and universals get the same law on their scalar angles, read from the
desired rotation by `hinge_angle` and `universal_angles`. Orientations are 3x3 rotation
matrices (world <- body), as the kinematics pass gives them. numba kernels over plain
arrays: the controller calls them about 40 times a frame (pipeline/control/biped_torques.py).
"""
from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


# numba's @ on arrays calls BLAS, which costs a microsecond on 3x3s: these are loops
@numba.njit(cache=True)
def mm(A, B):
    """A B of 3x3s."""
    C = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]
    return C


@numba.njit(cache=True)
def mtm(A, B):
    """A^T B of 3x3s."""
    C = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            C[i, j] = A[0, i] * B[0, j] + A[1, i] * B[1, j] + A[2, i] * B[2, j]
    return C


@numba.njit(cache=True)
def mv(A, v):
    """A v of a 3x3 and a 3-vector."""
    return np.array([A[0, 0] * v[0] + A[0, 1] * v[1] + A[0, 2] * v[2],
                     A[1, 0] * v[0] + A[1, 1] * v[1] + A[1, 2] * v[2],
                     A[2, 0] * v[0] + A[2, 1] * v[1] + A[2, 2] * v[2]])


@numba.njit(cache=True)
def mtv(A, v):
    """A^T v of a 3x3 and a 3-vector."""
    return np.array([A[0, 0] * v[0] + A[1, 0] * v[1] + A[2, 0] * v[2],
                     A[0, 1] * v[0] + A[1, 1] * v[1] + A[2, 1] * v[2],
                     A[0, 2] * v[0] + A[1, 2] * v[1] + A[2, 2] * v[2]])


@numba.njit(cache=True)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@numba.njit(cache=True)
def cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@numba.njit(cache=True)
def log_rot(R):
    """The rotation vector of a rotation matrix (axis * angle, angle in [0, pi])."""
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    c = min(1.0, max(-1.0, c))
    angle = math.acos(c)
    v = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    s = math.sin(angle)
    if s > 1e-6:
        return v * (0.5 * angle / s)
    if c > 0.0:  # near identity: first order
        return 0.5 * v
    # near pi: the axis is the column of R + I with the largest norm
    B = R + np.eye(3)
    k = 0
    best = -1.0
    for j in range(3):
        n = B[0, j] ** 2 + B[1, j] ** 2 + B[2, j] ** 2
        if n > best:
            best, k = n, j
    return B[:, k] * (angle / math.sqrt(best))


@numba.njit(cache=True)
def exp_rot(v):
    """Rotation matrix of a rotation vector (Rodrigues)."""
    angle = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if angle < 1e-12:
        return np.eye(3)
    k = v / angle
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * mm(K, K)


@numba.njit(cache=True)
def rot_y(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


@numba.njit(cache=True)
def rot_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@numba.njit(cache=True)
def heading_of(R):
    """Yaw of a body whose x axis is its facing direction (the character frame's heading)."""
    return math.atan2(R[1, 0], R[0, 0])


@numba.njit(cache=True)
def mirror(R):
    """The left-right mirror image of a rotation (reflection across the x-z plane)."""
    M = R.copy()
    M[0, 1] = -R[0, 1]
    M[1, 0] = -R[1, 0]
    M[1, 2] = -R[1, 2]
    M[2, 1] = -R[2, 1]
    return M


@numba.njit(cache=True)
def ball_pd(R_rel, R_des, dw, kp, kd):
    """PD torque of a ball joint in child axes: R_rel = parent <- child now, R_des desired,
    dw the child's angular velocity relative to the parent minus the desired one, in child
    axes."""
    return kp * log_rot(mtm(R_rel, R_des)) - kd * dw


@numba.njit(cache=True)
def hinge_angle(R, axis):
    """Angle of the twist of R about `axis` (swing-twist decomposition)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    w = 0.5 * math.sqrt(max(0.0, 1.0 + tr))
    # v = 2 w sin(θ/2) k... in quaternion terms qv = v / (2w); the twist angle is
    # 2 atan2(qv . axis, w), written without dividing by w
    va = 0.5 * ((R[2, 1] - R[1, 2]) * axis[0] + (R[0, 2] - R[2, 0]) * axis[1] + (R[1, 0] - R[0, 1]) * axis[2])
    if w > 1e-9:
        return 2.0 * math.atan2(va, 2.0 * w * w)
    return math.copysign(math.pi, va)


@numba.njit(cache=True)
def universal_angles(R, a1, a2):
    """(q1, q2) with Rot(a1, q1) Rot(a2, q2) closest to R, for perpendicular unit axes."""
    b = cross(a1, a2)
    u = mv(R, a2)
    q1 = math.atan2(dot(u, b), dot(u, a2))
    p = mv(mm(exp_rot(-q1 * a1), R), a1)
    q2 = math.atan2(dot(p, cross(a2, a1)), dot(p, a1))
    return q1, q2


@numba.njit(cache=True)
def clamp_norm(tau, limit):
    n = math.sqrt(tau[0] * tau[0] + tau[1] * tau[1] + tau[2] * tau[2])
    return tau * (limit / n) if n > limit else tau


@numba.njit(cache=True)
def clip_axes(tau, limit):
    """Each component of tau within +-limit (the released code's limitTorque, per axis)."""
    out = np.empty(3)
    for i in range(3):
        out[i] = max(-limit, min(limit, tau[i]))
    return out


@numba.njit(cache=True)
def clip(x, lo, hi):
    return max(lo, min(hi, x))


@intrinsic
def fma(typingctx, a, b, c):
    """a b + c rounded once (LLVM's fma: exact on every target, in hardware where it has it)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        f = builder.module.declare_intrinsic("llvm.fma", [double], ir.FunctionType(double, [double] * 3))
        return builder.call(f, args)

    return sig, codegen


@numba.njit(cache=True)
def fdot(a, b, n):
    """The dot product of the first n entries of a and b, rounded as numpy's (OpenBLAS's
    kernel: a fused multiply-add per entry, in index order), the arithmetic the walking
    controller's figures in docs/biped.md were measured with."""
    s = a[0] * b[0]
    for i in range(1, n):
        s = fma(a[i], b[i], s)
    return s
