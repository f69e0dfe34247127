"""Convex hulls with polygon faces (Quickhull through scipy's Qhull).

Qhull returns triangles; triangles of one plane are merged into one polygon face, because
a contact manifold clips against whole faces and coplanar neighbours would split a box's
face into two references (Fontijne §2.2 found they also made V-Clip cycle).
"""
from __future__ import annotations

import numpy as np


class DegenerateHull(ValueError):
    """The points span no volume (empty, fewer than four, or all in one plane or line)."""


def convex_hull(points, tol: float = 1e-9):
    """Hull of points (n, 3) -> (vertices (m, 3), normals (f, 3), offsets (f,), loops: list
    of index arrays into vertices, counter-clockwise seen from outside).

    Faces whose planes agree within tol (relative to the hull's size) are one face."""
    pts = np.asarray(points, float).reshape(-1, 3)
    if len(pts) == 0:
        raise DegenerateHull("has no vertices")
    if not np.all(np.isfinite(pts)):
        raise DegenerateHull("has vertices that are not finite numbers")
    size = float(np.ptp(pts, axis=0).max())
    centred = pts - pts.mean(axis=0)
    thinnest = np.linalg.svd(centred, compute_uv=False)[-1] if len(pts) >= 3 else 0.0
    if len(pts) < 4 or size == 0.0 or thinnest <= tol * size * np.sqrt(len(pts)):
        raise DegenerateHull("is flat: its points lie in one plane or line, so it encloses "
                             "no volume")
    from scipy.spatial import ConvexHull, QhullError  # here: only meshes need scipy (about 40 MB)

    try:
        hull = ConvexHull(pts)
    except QhullError as exc:
        raise DegenerateHull(f"has no convex hull ({str(exc).splitlines()[0]})") from None
    used = np.unique(hull.simplices)
    remap = np.full(len(pts), -1)
    remap[used] = np.arange(len(used))
    vertices = pts[used]
    groups: list[list[int]] = []
    planes: list[np.ndarray] = []
    for t, eq in enumerate(hull.equations):  # eq: outward unit normal, offset (n.x + d = 0)
        for g, p in zip(groups, planes):
            if np.abs(p[:3] - eq[:3]).max() <= tol and abs(p[3] - eq[3]) <= tol * size:
                g.append(t)
                break
        else:
            groups.append([t])
            planes.append(eq)
    normals, offsets, loops = [], [], []
    for g, p in zip(groups, planes):
        n = p[:3] / np.linalg.norm(p[:3])
        loop = _face_loop(remap[hull.simplices[g]], vertices, n)
        normals.append(n)
        offsets.append(float(np.mean(vertices[loop] @ n)))
        loops.append(loop)
    return vertices, np.array(normals), np.array(offsets), loops


def _face_loop(triangles, vertices, normal):
    """The boundary vertices of a planar fan of triangles, ordered counter-clockwise about
    the outward normal (their angle around the centroid in the face plane)."""
    idx = np.unique(triangles)
    pts = vertices[idx]
    c = pts.mean(axis=0)
    u = pts[0] - c
    if np.linalg.norm(u) == 0.0:
        u = pts[1] - c
    u /= np.linalg.norm(u)
    w = np.cross(normal, u)
    d = pts - c
    order = np.argsort(np.arctan2(d @ w, d @ u), kind="stable")
    return idx[order]
