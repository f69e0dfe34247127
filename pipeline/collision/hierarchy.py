"""A non-convex body as a hierarchy of convex hulls (Fontijne §2.2; digest
../shared/research/seed-003-fontijne.md §2.1 and §2.3, extension 2): its convex parts are
the leaves, and every inner node holds the convex hull of the parts below it.

A query measures a node's hull and opens it (measures its children) only while the hull
is nearer than the open-hull threshold. A hull contains its parts, so its signed distance
never exceeds theirs: the answer is never more than the body's distance (the least over
its parts), and whenever that distance is below the threshold every hull on the way to
the nearest part is opened, so the answer is exact. A node no nearer than the best answer
so far is not opened either (nothing below it can be nearer).

Node hulls are polytopes: round parts enter them as polytopes around them (spheres and
capsule ends as circumscribed icosahedra, cylinder and frustum disks as circumscribed
polygons, ellipsoids as a stretched circumscribed icosahedron), so each hull contains
its parts exactly.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from pipeline.collision.narrow import query
from pipeline.collision.shapes import KIND_NAMES

RIM = 16  # sides of the polygons around disks


class Tree(NamedTuple):
    """Nodes of a hierarchy, node 0 the root; rows of a `Shapes` (shapes.pack)."""

    shape: np.ndarray  # (nn,) int64 the node's shape: a part (leaf) or its hull
    pos: np.ndarray  # (nn, 3) body <- shape
    rot: np.ndarray  # (nn, 3, 3)
    left: np.ndarray  # (nn,) int64 children; -1 for a leaf
    right: np.ndarray


def _icosahedron() -> np.ndarray:
    """Vertices of the icosahedron whose faces touch the unit sphere (inradius 1)."""
    g = (1.0 + 5.0 ** 0.5) / 2.0
    v = np.array([(0, s, t * g) for s in (-1, 1) for t in (-1, 1)], float)
    v = np.concatenate([v, np.roll(v, 1, axis=1), np.roll(v, 2, axis=1)])
    return v / (g * g / 3.0 ** 0.5)


def _polygon(radius: float, z: float) -> np.ndarray:
    """A RIM-gon in the plane z whose edges touch the circle of `radius`."""
    t = 2.0 * np.pi * np.arange(RIM) / RIM
    r = radius / np.cos(np.pi / RIM)
    return np.stack([r * np.cos(t), r * np.sin(t), np.full(RIM, z)], axis=1)


def container_points(name: str, param, points) -> np.ndarray:
    """Points (shape frame) whose convex hull contains the shape (shapes.pack's entry)."""
    p = [float(x) for x in (param or ())]
    if name == "box":
        return np.array([(sx * p[0], sy * p[1], sz * p[2]) for sx in (-1, 1) for sy in (-1, 1)
                         for sz in (-1, 1)])
    if name == "hull":
        return np.asarray(points, float).reshape(-1, 3)
    if name == "sphere":
        return p[0] * _icosahedron()
    if name == "capsule":
        ball = p[0] * _icosahedron()
        return np.concatenate([ball + (0, 0, -p[1]), ball + (0, 0, p[1])])
    if name == "cylinder":
        return np.concatenate([_polygon(p[0], -p[1]), _polygon(p[0], p[1])])
    if name == "ellipsoid":
        return _icosahedron() * np.array(p[:3])
    if name == "frustum":
        top = _polygon(p[1], p[2]) if p[1] > 0.0 else np.array([[0.0, 0.0, p[2]]])
        return np.concatenate([_polygon(p[0], 0.0), top])
    raise ValueError(f"unknown shape kind {name!r} (one of {', '.join(KIND_NAMES)})")


def build(parts, entries: list) -> Tree:
    """The hierarchy of a body made of convex `parts`: a list of (entry, pos, rot), entry
    as shapes.pack takes it and (pos, rot) its placement in the body (body <- shape).
    Appends the parts' and the node hulls' entries to `entries` (pack them together with
    the shapes they are to be measured against); the tree's shape rows index that list.
    Parts are split in halves at the median of their centres along their widest spread."""
    first = len(entries)
    cloud = []
    for k, (entry, pos, rot) in enumerate(parts):
        entries.append(entry)
        pts = container_points(*entry)
        cloud.append(pts @ np.asarray(rot, float).T + np.asarray(pos, float))
    shape, pos, rot, left, right = [], [], [], [], []

    def node(members) -> int:
        i = len(shape)
        for lst in (shape, pos, rot, left, right):
            lst.append(None)
        if len(members) == 1:
            k = members[0]
            shape[i], pos[i], rot[i] = first + k, parts[k][1], parts[k][2]
            left[i] = right[i] = -1
            return i
        entries.append(("hull", None, np.concatenate([cloud[k] for k in members])))
        shape[i], pos[i], rot[i] = len(entries) - 1, np.zeros(3), np.eye(3)
        centres = np.array([cloud[k].mean(axis=0) for k in members])
        axis = int(np.argmax(np.ptp(centres, axis=0)))
        order = [members[j] for j in np.argsort(centres[:, axis], kind="stable")]
        half = len(order) // 2
        left[i], right[i] = node(order[:half]), node(order[half:])
        return i

    node(list(range(len(parts))))
    i64 = np.int64
    return Tree(shape=np.array(shape, i64), pos=np.array(pos, float).reshape(-1, 3),
                rot=np.array(rot, float).reshape(-1, 3, 3), left=np.array(left, i64),
                right=np.array(right, i64))


@numba.njit(cache=True)
def tree_distance(sh, shape, pos, rot, left, right, pa, ra, b, pb, rb, threshold, wk, out):
    """Signed distance of the body of tree (shape, pos, rot, left, right: `Tree`'s arrays)
    placed at (pa, ra) (world <- body) to convex shape b at (pb, rb): exact when below
    `threshold`, never more than the exact one. out receives narrow.query's ten numbers
    of the answer (the part's, or the closed hull's). Returns (distance, queries made)."""
    best = np.inf
    stack = np.empty(shape.shape[0], np.int64)
    stack[0], top, made = 0, 1, 0
    p, r = np.empty(3), np.empty((3, 3))
    while top > 0:
        top -= 1
        n = stack[top]
        for i in range(3):
            p[i] = pa[i] + ra[i, 0] * pos[n, 0] + ra[i, 1] * pos[n, 1] + ra[i, 2] * pos[n, 2]
            for j in range(3):
                r[i, j] = ra[i, 0] * rot[n, 0, j] + ra[i, 1] * rot[n, 1, j] + ra[i, 2] * rot[n, 2, j]
        d = query(sh, shape[n], p, r, b, pb, rb, 0.0, 0.0, 0.0, wk)
        made += 1
        if d >= best:
            continue  # nothing below this node is nearer than the answer so far
        if left[n] < 0 or d >= threshold:
            best = d
            for c in range(10):
                out[c] = wk.out[c]
        else:
            stack[top], stack[top + 1] = right[n], left[n]
            top += 2
    return best, made
