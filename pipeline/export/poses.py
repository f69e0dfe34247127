"""Body poses as 4x4 matrices, and the centre of mass of bodies, from recorded positions
and wxyz quaternions (vectorised numpy; exports run once per frame, not in a hot loop)."""
from __future__ import annotations

import numpy as np

from pipeline.spec.transforms import matrix_from_quat as quat_to_matrix


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
