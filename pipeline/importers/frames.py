"""Rigid-frame arithmetic the importers share: quaternions (w, x, y, z), rotation matrices,
and the rotate/move op lists that the creature language uses for placements."""
from __future__ import annotations

import math

import numpy as np

from pipeline.spec.transforms import quat_from_matrix

IDENTITY_QUAT = np.array([1.0, 0.0, 0.0, 0.0])


def quat_normalize(q) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    n = np.linalg.norm(q)
    return IDENTITY_QUAT.copy() if n == 0.0 else q / n


def quat_mul(a, b) -> np.ndarray:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def quat_from_axis_angle(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=float)
    n = np.linalg.norm(axis)
    if n == 0.0:
        return IDENTITY_QUAT.copy()
    s = math.sin(angle / 2.0)
    return np.concatenate(([math.cos(angle / 2.0)], axis / n * s))


def quat_to_mat(q) -> np.ndarray:
    w, x, y, z = quat_normalize(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def quat_z_to(z) -> np.ndarray:
    """The smallest rotation taking +z onto `z` (MuJoCo's rule for `zaxis` and `fromto`)."""
    z = np.asarray(z, dtype=float)
    z = z / np.linalg.norm(z)
    axis = np.cross([0.0, 0.0, 1.0], z)
    s = np.linalg.norm(axis)
    if s < 1e-14:
        axis = np.array([1.0, 0.0, 0.0])
    return quat_from_axis_angle(axis, math.atan2(s, z[2]))


class Frame:
    """A rigid placement: x_parent = rot @ x_child + pos."""

    __slots__ = ("pos", "rot")

    def __init__(self, pos=(0.0, 0.0, 0.0), rot=None):
        self.pos = np.asarray(pos, dtype=float)
        self.rot = np.eye(3) if rot is None else np.asarray(rot, dtype=float)

    @classmethod
    def from_quat(cls, pos, quat) -> "Frame":
        return cls(pos, quat_to_mat(quat))

    def __mul__(self, other: "Frame") -> "Frame":
        return Frame(self.rot @ other.pos + self.pos, self.rot @ other.rot)

    def inverse(self) -> "Frame":
        return Frame(-self.rot.T @ self.pos, self.rot.T)

    def apply(self, x) -> np.ndarray:
        return self.rot @ np.asarray(x, dtype=float) + self.pos

    @property
    def quat(self) -> np.ndarray:
        return np.array(quat_from_matrix(self.rot))


def number(x: float) -> float | int:
    """A plain Python number for YAML (integers stay integers; -0.0 becomes 0)."""
    x = float(x)
    if x == 0.0:
        return 0
    return int(x) if x.is_integer() and abs(x) < 1e15 else x


def vector(v, tol: float = 0.0) -> list:
    return [number(0.0 if abs(c) <= tol else c) for c in v]


def placement_ops(frame: Frame) -> list:
    """The creature-language op list for `frame`: rotate (axis, angle in degrees) then move.

    Ops apply in the parent frame in order, so x -> R x then + p, which is `frame` itself.
    """
    ops = []
    q = frame.quat
    angle = 2.0 * math.atan2(np.linalg.norm(q[1:]), q[0])
    if angle > 1e-15:
        axis = q[1:] / np.linalg.norm(q[1:])
        ops.append({"rotate": {"axis": vector(axis), "angle": number(math.degrees(angle))}})
    if np.any(frame.pos != 0.0):
        ops.append({"move": vector(frame.pos)})
    return ops
