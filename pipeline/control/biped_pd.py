"""Quaternion PD joint control for the biped controller (Coros 2010, Eq. 2.2):

    tau = kp * vq(q_d, q) - kd * (omega - omega_d)

vq is the rotation vector (axis times angle) taking the joint's current relative
orientation to the desired one, in the child's axes, which is where a ball joint's
generalized force lives (its qd is the child's angular velocity relative to the parent in
child axes). Hinges and universals get the same law on their scalar angles, read from the
desired rotation by `hinge_angle` and `universal_angles`. Orientations are 3x3 rotation
matrices (world <- body), as the kinematics pass gives them.
"""
from __future__ import annotations

import math

import numpy as np


def cross(a, b) -> np.ndarray:
    """a x b of two 3-vectors (np.cross costs ten times more on one pair)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def log_rot(R: np.ndarray) -> np.ndarray:
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
    k = int(np.argmax(np.einsum("ij,ij->j", B, B)))
    axis = B[:, k] / np.linalg.norm(B[:, k])
    return axis * angle


def exp_rot(v) -> np.ndarray:
    """Rotation matrix of a rotation vector (Rodrigues)."""
    v = np.asarray(v, float)
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        return np.eye(3)
    k = v / angle
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * (K @ K)


def rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def heading_of(R: np.ndarray) -> float:
    """Yaw of a body whose x axis is its facing direction (the character frame's heading)."""
    return math.atan2(R[1, 0], R[0, 0])


def ball_pd(R_rel: np.ndarray, R_des: np.ndarray, w_rel: np.ndarray, kp: float, kd: float,
            w_des: np.ndarray | None = None) -> np.ndarray:
    """PD torque of a ball joint in child axes: R_rel = parent <- child now, R_des desired,
    w_rel the child's angular velocity relative to the parent, in child axes."""
    err = log_rot(R_rel.T @ R_des)
    dw = w_rel if w_des is None else w_rel - w_des
    return kp * err - kd * dw


def hinge_angle(R: np.ndarray, axis: np.ndarray) -> float:
    """Angle of the twist of R about `axis` (swing-twist decomposition)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    w = 0.5 * math.sqrt(max(0.0, 1.0 + tr))
    v = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    # v = 2 w sin(θ/2) k... in quaternion terms qv = v / (2w); the twist angle is
    # 2 atan2(qv . axis, w), written without dividing by w
    return 2.0 * math.atan2(float(v @ axis), 2.0 * w * w) if w > 1e-9 else math.copysign(math.pi, float(v @ axis))


def universal_angles(R: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> tuple[float, float]:
    """(q1, q2) with Rot(a1, q1) Rot(a2, q2) closest to R, for perpendicular unit axes."""
    b = cross(a1, a2)
    u = R @ a2
    q1 = math.atan2(float(u @ b), float(u @ a2))
    R2 = exp_rot(-q1 * a1) @ R
    p = R2 @ a1
    q2 = math.atan2(float(p @ cross(a2, a1)), float(p @ a1))
    return q1, q2


def clamp_norm(tau: np.ndarray, limit: float) -> np.ndarray:
    n = float(np.linalg.norm(tau))
    return tau * (limit / n) if n > limit else tau
