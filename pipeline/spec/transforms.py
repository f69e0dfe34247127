"""Transform op lists (corpus `scale` / `move` / `rotate`) -> rigid poses and shape scales.

Ops are applied in order, each in the parent frame after the ones before it (corpus
`postmult`), so the op list [o1, o2, ..., on] is the affine map  x -> On(...O2(O1(x))).
A `scale` after a `move` scales the translation too, exactly as in corpus scripts
("move 0 .5 0" then "scale .01 .01 .01").

An analytic shape can only be scaled along its own axes: the composed linear part A must
factor as R @ diag(s) with R a rotation. That holds for any scale that precedes the
rotations (and for uniform scales anywhere); otherwise the shape would be sheared, which
only a mesh can represent, and `ValueError` says so.

Ops here are SI-normalised (angles in radians), as produced by `pipeline.spec.schema.to_si`.
"""
from __future__ import annotations

import math

import numpy as np

from pipeline.spec.types import Pose

_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """Rotation by `angle` (rad) about `axis` (normalised here; must be non-zero)."""
    a = np.asarray(axis, float)
    n = np.linalg.norm(a)
    if n == 0.0:
        raise ValueError("a rotation axis must not be zero")
    x, y, z = a / n
    c, s = math.cos(angle), math.sin(angle)
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def rotation_of(rotate: dict) -> np.ndarray:
    """The matrix of one `rotate` op body: {x: a} / {y: a} / {z: a} / {axis, angle}."""
    if "axis" in rotate:
        return axis_angle_matrix(rotate["axis"], rotate["angle"])
    (name, angle), = rotate.items()
    return axis_angle_matrix(_AXES[name], angle)


def op_affine(op: dict) -> np.ndarray:
    """4x4 affine matrix of one op."""
    T = np.eye(4)
    (kind, arg), = op.items()
    if kind == "move":
        T[:3, 3] = arg
    elif kind == "scale":
        T[:3, :3] = np.diag(np.broadcast_to(np.asarray(arg, float), (3,)))
    else:
        T[:3, :3] = rotation_of(arg)
    return T


def compose(ops) -> np.ndarray:
    """4x4 affine map of an op list (each op after the previous, in the parent frame)."""
    T = np.eye(4)
    for op in ops or ():
        T = op_affine(op) @ T
    return T


def split_scale(ops) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An op list -> (R, t, s) with the map x -> R @ (s * x) + t. Raises ValueError on shear
    or reflection."""
    T = compose(ops)
    A, t = T[:3, :3], T[:3, 3]
    gram = A.T @ A
    s = np.sqrt(np.diag(gram))
    if np.any(s <= 0.0):
        raise ValueError("a zero scale collapses the shape")
    off = gram - np.diag(np.diag(gram))
    if np.max(np.abs(off)) > 1e-9 * np.max(np.diag(gram)):
        raise ValueError("a non-uniform scale after a rotation would shear this shape; "
                         "scale before rotating, or use a mesh")
    R = A / s
    if np.linalg.det(R) < 0.0:
        raise ValueError("a negative scale would reflect this shape; use a `mirror` block")
    return R, t, s


def rigid(ops) -> tuple[np.ndarray, np.ndarray]:
    """An op list that must be rigid (placements) -> (R, t). Raises ValueError if scaled."""
    R, t, s = split_scale(ops)
    if np.max(np.abs(s - 1.0)) > 1e-12:
        raise ValueError("a placement cannot scale; put `scale` ops in the body's `transform`")
    return R, t


def quat_from_matrix(R: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) with w >= 0 of a rotation matrix (Shepperd's method)."""
    m = np.asarray(R, float)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0.0:
        S = math.sqrt(tr + 1.0) * 2.0
        q = (0.25 * S, (m[2, 1] - m[1, 2]) / S, (m[0, 2] - m[2, 0]) / S, (m[1, 0] - m[0, 1]) / S)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        S = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2.0
        q = ((m[2, 1] - m[1, 2]) / S, 0.25 * S, (m[0, 1] + m[1, 0]) / S, (m[0, 2] + m[2, 0]) / S)
    elif m[1, 1] > m[2, 2]:
        S = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2.0
        q = ((m[0, 2] - m[2, 0]) / S, (m[0, 1] + m[1, 0]) / S, 0.25 * S, (m[1, 2] + m[2, 1]) / S)
    else:
        S = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2.0
        q = ((m[1, 0] - m[0, 1]) / S, (m[0, 2] + m[2, 0]) / S, (m[1, 2] + m[2, 1]) / S, 0.25 * S)
    q = np.asarray(q) / np.linalg.norm(q)
    if q[0] < 0.0:
        q = -q
    return tuple(float(v) for v in q)


def matrix_from_quat(q) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of (w, x, y, z) quaternions (..., 4), normalised first."""
    q = np.asarray(q, float)
    w, x, y, z = np.moveaxis(q / np.linalg.norm(q, axis=-1, keepdims=True), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def pose(R: np.ndarray, t: np.ndarray) -> Pose:
    return Pose(tuple(float(v) for v in t), quat_from_matrix(R))
