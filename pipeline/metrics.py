"""Scene metrics from a Recording, for run manifests and batch summaries.

Measured on the first body (the root of the scene's first creature): it is what a user
means by "where did the creature get to". A fall is the root's up axis turning below the
horizon at any recorded frame.
"""
from __future__ import annotations

import numpy as np


def up_axis_z(quat: np.ndarray) -> np.ndarray:
    """World z component of a body's local z axis, for (..., 4) wxyz quaternions."""
    w, x, y, _ = np.moveaxis(quat, -1, 0)[:4]
    return 1.0 - 2.0 * (x * x + y * y)


def scene_metrics(recording) -> dict:
    t = np.asarray(recording.time)
    if t.size < 2 or len(recording.body_names) == 0:
        return {}
    pos = np.asarray(recording.body_pos)[:, 0, :]
    span = float(t[-1] - t[0])
    travel = pos[-1] - pos[0]
    upright = up_axis_z(np.asarray(recording.body_quat)[:, 0, :])
    return {
        "body": str(recording.body_names[0]),
        "mean_forward_speed": float(travel[0] / span) if span > 0 else 0.0,
        "mean_planar_speed": float(np.hypot(travel[0], travel[1]) / span) if span > 0 else 0.0,
        "final_position": [float(v) for v in pos[-1]],
        "fell": bool((upright < 0.0).any()),
    }
