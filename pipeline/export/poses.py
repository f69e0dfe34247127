"""Body poses as 4x4 matrices, and the centre of mass of bodies, from recorded positions
and wxyz quaternions (vectorised numpy; exports run once per frame, not in a hot loop)."""
from __future__ import annotations

import numpy as np


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4) in (w, x, y, z) order."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def pose_matrices(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """Homogeneous world <- body transforms (..., 4, 4)."""
    m = np.zeros(pos.shape[:-1] + (4, 4))
    m[..., :3, :3] = quat_to_matrix(quat)
    m[..., :3, 3] = pos
    m[..., 3, 3] = 1.0
    return m


def centre_of_mass(pos, quat, mass, com_local, bodies=None) -> np.ndarray:
    """World centre of mass (F, 3) of the chosen bodies (all by default) at every frame."""
    bodies = np.arange(pos.shape[1]) if bodies is None else np.asarray(bodies)
    rot = quat_to_matrix(quat[:, bodies])
    world = pos[:, bodies] + np.einsum("fbij,bj->fbi", rot, com_local[bodies])
    m = mass[bodies]
    return np.einsum("fbi,b->fi", world, m) / max(float(m.sum()), 1e-300)
