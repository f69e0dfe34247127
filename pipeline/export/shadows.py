"""Where shadows fall: points slid along the key light onto the ground.

Shadows are drawn as the bodies' own triangles moved onto the ground this way every frame,
with the ground's texture darkened: they never darken twice where they overlap, their
edges are exact, and they cost one vertex update per frame instead of a shadow-map pass
(VTK's shadow maps show acne on large planes and halve the frame rate on software GL).
"""
from __future__ import annotations

import numpy as np

KEY_LIGHT = np.array([-0.35, 0.45, 1.0])  # direction towards the light, world axes
TERRAIN_STEPS = 10


def onto_ground(points: np.ndarray, checker=None, terrain=None) -> np.ndarray:
    """Each point (n, 3) moved along the light down to the flat floor `checker` or the
    `terrain`, then lifted a hair above it so it is drawn over the ground; points already
    under the ground stay where they are."""
    d = KEY_LIGHT / np.linalg.norm(KEY_LIGHT)
    if terrain is None:
        s = np.maximum(points[:, 2] - checker.z, 0.0) / d[2]
        flat = points - s[:, None] * d
        flat[:, 2] = checker.z + 1e-4 * checker.tile
        return flat
    # where the ray meets the terrain: fixed-point iteration on the travel s; each step
    # shrinks the error by the slope times the light's tilt (< 1 on relief a creature can
    # walk), so ten steps bring it to rounding noise on gentle terrain
    s = np.zeros(len(points))
    for _ in range(TERRAIN_STEPS):
        q = points - s[:, None] * d
        s = np.maximum(points[:, 2] - terrain.height(q[:, 0], q[:, 1]), 0.0) / d[2]
    flat = points - s[:, None] * d
    flat[:, 2] = terrain.height(flat[:, 0], flat[:, 1]) + 0.02 * min(terrain.dx, terrain.dy)
    return flat
