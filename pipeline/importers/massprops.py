"""Mass properties of imported geometry, by MuJoCo's compiler rules.

corpus writes an explicit `inertial:` block for every imported body, computed here, so the
compiled creature has exactly the body masses and inertias MuJoCo compiles from the same file
(tests/test_import_mjcf.py checks them against `mujoco.MjModel`). The shape formulas are the
ones MuJoCo documents for `inertiafromgeom`: a capsule is a cylinder plus two hemispheres
whose inertia MuJoCo approximates by a full sphere shifted to the cylinder's ends.
"""
from __future__ import annotations

import math

import numpy as np

from pipeline.importers.frames import Frame


def primitive_volume_inertia(shape: str, size) -> tuple[float, np.ndarray]:
    """Volume and the principal unit-density inertia (diagonal, shape axes) of a MuJoCo
    primitive. `size` is MuJoCo's: half extents, radius and half-length, semi-axes."""
    if shape == "sphere":
        r = size[0]
        v = 4.0 / 3.0 * math.pi * r**3
        i = 0.4 * v * r * r
        return v, np.array([i, i, i])
    if shape == "capsule":
        r, h = size[0], 2.0 * size[1]
        v_sph = 4.0 / 3.0 * math.pi * r**3
        v_cyl = math.pi * r * r * h
        ixy = v_cyl * (3 * r * r + h * h) / 12.0 + v_sph * (0.4 * r * r + 0.375 * r * h + 0.25 * h * h)
        iz = v_cyl * r * r / 2.0 + v_sph * 0.4 * r * r
        return v_sph + v_cyl, np.array([ixy, ixy, iz])
    if shape == "cylinder":
        r, h = size[0], 2.0 * size[1]
        v = math.pi * r * r * h
        ixy = v * (3 * r * r + h * h) / 12.0
        return v, np.array([ixy, ixy, v * r * r / 2.0])
    if shape == "ellipsoid":
        a, b, c = size[:3]
        v = 4.0 / 3.0 * math.pi * a * b * c
        return v, np.array([v * (b * b + c * c) / 5.0, v * (a * a + c * c) / 5.0, v * (a * a + b * b) / 5.0])
    if shape == "box":
        a, b, c = (2.0 * s for s in size[:3])
        v = a * b * c
        return v, np.array([v * (b * b + c * c) / 12.0, v * (a * a + c * c) / 12.0, v * (a * a + b * b) / 12.0])
    raise ValueError(shape)


def mesh_volume_inertia(vertices: np.ndarray, faces: np.ndarray, rule: str = "legacy"):
    """Volume, centre of mass and unit-density inertia about it (3x3) of a triangle mesh by
    MuJoCo's mesh rules: `exact` sums signed tetrahedra (a closed, consistently oriented
    surface); `legacy` (MuJoCo's default) sums unsigned pyramids, first from the surface's
    area centroid to find the centre, then from that centre; `convex` is `exact` on the hull."""
    if rule == "convex":
        import trimesh

        hull = trimesh.Trimesh(vertices, faces, process=False).convex_hull
        vertices, faces, rule = np.asarray(hull.vertices), np.asarray(hull.faces), "exact"
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    cross = np.cross(b - a, c - a)  # 2 * area * unit normal
    centres = (a + b + c) / 3.0
    area2 = np.linalg.norm(cross, axis=1)
    surface_centre = (area2[:, None] * centres).sum(0) / area2.sum()

    def pyramid_volumes(apex):
        v = np.einsum("ij,ij->i", centres - apex, cross) / 6.0
        return np.abs(v) if rule == "legacy" else v

    v = pyramid_volumes(surface_centre)
    com = (v[:, None] * (0.75 * centres + 0.25 * surface_centre)).sum(0) / v.sum()
    v = pyramid_volumes(com)
    d, e, f = a - com, b - com, c - com
    s = d + e + f
    # second moments of each tetrahedron (com, d, e, f): V/20 (d d + e e + f f + s s)
    moments = np.einsum("t,ti,tj->ij", v / 20.0, d, d) + np.einsum("t,ti,tj->ij", v / 20.0, e, e) \
        + np.einsum("t,ti,tj->ij", v / 20.0, f, f) + np.einsum("t,ti,tj->ij", v / 20.0, s, s)
    inertia = np.trace(moments) * np.eye(3) - moments
    return v.sum(), com, inertia


def combine(parts) -> tuple[float, np.ndarray, np.ndarray]:
    """Total mass, centre of mass and inertia about it (3x3, frame axes) of rigid parts given
    as (mass, Frame of the part's principal axes, principal inertia diagonal)."""
    mass = sum(m for m, _, _ in parts)
    if mass <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = sum(m * f.pos for m, f, _ in parts) / mass
    inertia = np.zeros((3, 3))
    for m, f, diag in parts:
        d = f.pos - com
        inertia += f.rot @ np.diag(diag) @ f.rot.T + m * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, com, inertia


def principal(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments and axes (columns, right-handed) of a symmetric inertia."""
    values, vectors = np.linalg.eigh(inertia)
    if np.linalg.det(vectors) < 0:
        vectors[:, 2] = -vectors[:, 2]
    return values, vectors


def shift_inertial(mass: float, com, inertia, frame: Frame):
    """Re-express (mass, com, inertia about com) given in `frame`'s child coordinates in its
    parent coordinates."""
    return mass, frame.apply(com), frame.rot @ inertia @ frame.rot.T
