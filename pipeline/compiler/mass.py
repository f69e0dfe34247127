"""Mass properties from geometry x density (closed forms; trimesh for meshes), placed in
the body frame and summed over a body's shape and parts.

A shape's properties are (mass, com, I) with com in the shape's own frame and I the 3x3
rotational inertia about the com in the shape's axes. Shape frames (pipeline.spec.types.Geom):
box, sphere, ellipsoid, capsule and cylinder are centred on their origin with the long axis
along z; a frustum has its bottom disc at z = 0 and its top at z = length.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import Polynomial

from pipeline.errors import CorpusError, Problem


def unit_density_properties(shape: str, size, mesh=None):
    """(volume, com, I per unit density) of one analytic shape or a trimesh mesh."""
    if shape == "box":
        a, b, c = size
        v = a * b * c
        return v, np.zeros(3), v / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    if shape == "sphere":
        (r,) = size[:1]
        v = 4.0 / 3.0 * math.pi * r ** 3
        return v, np.zeros(3), 0.4 * v * r * r * np.eye(3)
    if shape == "ellipsoid":
        a, b, c = size
        v = 4.0 / 3.0 * math.pi * a * b * c
        return v, np.zeros(3), v / 5.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    if shape == "cylinder":
        r, h = size[:2]
        v = math.pi * r * r * h
        ixx = v * (3.0 * r * r + h * h) / 12.0
        return v, np.zeros(3), np.diag([ixx, ixx, 0.5 * v * r * r])
    if shape == "capsule":
        r, h = size[:2]
        vc = math.pi * r * r * h
        vh = 2.0 / 3.0 * math.pi * r ** 3  # one hemisphere
        # each hemisphere: 83/320 m r^2 about its own com, which sits 3r/8 beyond the cap base
        ixx = vc * (h * h / 12.0 + r * r / 4.0) + 2.0 * vh * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0)
        izz = 0.5 * vc * r * r + 2.0 * 0.4 * vh * r * r
        return vc + 2.0 * vh, np.zeros(3), np.diag([ixx, ixx, izz])
    if shape == "frustum":
        return _frustum(*size[:3])
    if shape == "mesh":
        return _mesh(mesh)
    raise ValueError(f"no mass properties for shape {shape!r}")


def _frustum(r0, r1, h):
    """Solid of revolution with radius r(z) = r0 + (r1 - r0) z / h on [0, h], exactly
    integrated: dV = pi r^2 dz, disc inertia about its diameter pi r^4 / 4 dz."""
    r = Polynomial([r0, (r1 - r0) / h])
    z = Polynomial([0.0, 1.0])

    def integral(p):
        P = p.integ()
        return P(h) - P(0.0)

    v = math.pi * integral(r ** 2)
    zc = math.pi * integral(r ** 2 * z) / v
    izz = 0.5 * math.pi * integral(r ** 4)
    ixx_origin = math.pi * integral(r ** 4 / 4.0 + r ** 2 * z ** 2)
    ixx = ixx_origin - v * zc * zc
    return v, np.array([0.0, 0.0, zc]), np.diag([ixx, ixx, izz])


def _mesh(mesh):
    # trimesh's integrals assume a closed, consistently oriented surface
    return float(mesh.volume), np.asarray(mesh.center_mass, float), np.asarray(mesh.moment_inertia, float) / float(mesh.density)


def combine(parts):
    """Sum (mass, com, I_about_com, R, p) pieces placed in the body frame by rotation R and
    offset p into one (mass, com, I about the combined com)."""
    m_tot = 0.0
    first = np.zeros(3)
    for m, c, _, R, p in parts:
        m_tot += m
        first += m * (p + R @ c)
    if m_tot <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = first / m_tot
    inertia = np.zeros((3, 3))
    for m, c, I, R, p in parts:
        d = p + R @ c - com
        inertia += R @ I @ R.T + m * (d @ d * np.eye(3) - np.outer(d, d))
    return m_tot, com, inertia


def inertia_matrix(six) -> np.ndarray:
    """3x3 from (ixx, iyy, izz, ixy, ixz, iyz)."""
    ixx, iyy, izz, ixy, ixz, iyz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], float)


def check_inertia(mass, inertia, where, name):
    """CorpusError unless mass > 0 and the inertia is a physical (positive definite,
    triangle-inequality) rotational inertia."""
    problems = []
    if not mass > 0.0:
        problems.append(f"body {name!r} has mass {mass:g} kg; a moving body needs a positive "
                        "mass (give it a shape with density, a mass, or an inertial)")
    else:
        ev = np.linalg.eigvalsh(0.5 * (inertia + inertia.T))
        tol = 1e-12 * max(1.0, float(np.abs(ev).max()))
        if ev.min() <= 0.0 or ev[0] + ev[1] < ev[2] - tol:
            problems.append(f"body {name!r} has a singular or unphysical inertia (principal "
                            f"moments {ev[0]:.4g}, {ev[1]:.4g}, {ev[2]:.4g} kg m^2)")
    if problems:
        raise CorpusError([Problem(p, where.file, where.line, where.col, where.path)
                           for p in problems])
