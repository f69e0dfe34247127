"""Render-only surfaces: the jellyfish dome over its ring of three masses.

Urban drew the dome as a parametric surface whose shape follows the pulse phase (graphics
only; the physics is the ring and the pulse force). Ours: a paraboloid cap over the circle
through the three ring masses, bulging along their triangle normal (oriented as at the
start, `sign`), which narrows and flattens while the bell contracts (sin(phase) > 0).
"""
from __future__ import annotations

import math

import numpy as np

RINGS, SECTORS = 6, 24


def dome_mesh(ring: np.ndarray, phase: float = 0.0, height: float = 0.03, sign: float = 1.0,
              reach: float = 1.0):
    """(vertices (k, 3), faces (m, 3)) of the dome over ring positions (3, 3) at a phase.
    `reach` > 1 carries the paraboloid on past the ring, curving down below the ring's plane
    as a bell's skirt does (the renderer draws the jellyfish's bell so, over its masses)."""
    p0, p1, p2 = (np.asarray(p, float) for p in ring)
    normal = sign * np.cross(p1 - p0, p2 - p0)
    normal /= np.linalg.norm(normal)
    # circumcentre of the triangle
    a, b = p1 - p0, p2 - p0
    axb = np.cross(a, b)
    centre = p0 + (np.dot(a, a) * np.cross(b, axb) + np.dot(b, b) * np.cross(axb, a)) / (2 * np.dot(axb, axb))
    radius = np.linalg.norm(p0 - centre)
    squeeze = max(0.0, math.sin(phase))
    radius *= 1.0 - 0.15 * squeeze
    cap = height * (1.0 - 0.4 * squeeze)
    e1 = (p0 - centre) / np.linalg.norm(p0 - centre)
    e2 = np.cross(normal, e1)
    verts = [centre + cap * normal]
    for i in range(1, RINGS + 1):
        rho = reach * i / RINGS
        for j in range(SECTORS):
            phi = 2 * math.pi * j / SECTORS
            verts.append(centre + radius * rho * (math.cos(phi) * e1 + math.sin(phi) * e2)
                         + cap * (1 - rho * rho) * normal)
    faces = [(0, 1 + j, 1 + (j + 1) % SECTORS) for j in range(SECTORS)]
    for i in range(RINGS - 1):
        a0, b0 = 1 + i * SECTORS, 1 + (i + 1) * SECTORS
        for j in range(SECTORS):
            k = (j + 1) % SECTORS
            faces += [(a0 + j, b0 + j, b0 + k), (a0 + j, b0 + k, a0 + k)]
    return np.array(verts), np.array(faces, np.int64)
