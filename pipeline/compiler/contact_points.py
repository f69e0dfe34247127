"""Where bodies touch things: contact points (spheres of radius >= 0 fixed in a body) and
collision boxes, from the compiled geoms.

`corners` is corpus's method: the eight corners of each colliding geom's bounding box in
its body frame. `shapes` (the default) is exact for the primitives: a box's own eight
corners, a sphere's centre and radius, a capsule's two end spheres; any other shape falls
back to its bounding-box corners.
"""
from __future__ import annotations

import itertools

import numpy as np

SIGNS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))  # (8, 3)
POINT_MODES = ("shapes", "corners")


def geom_contact_points(kind: str, size, pos, rot, lo, hi, mode: str):
    """Contact spheres of one geom in its body frame: (centres (n, 3), radii (n,))."""
    pos, rot = np.asarray(pos, float), np.asarray(rot, float)
    if mode == "shapes":
        if kind == "box":
            return pos + (SIGNS * 0.5 * np.asarray(size[:3], float)) @ rot.T, np.zeros(8)
        if kind == "sphere":
            return pos[None, :], np.array([float(size[0])])
        if kind == "capsule":
            axis = rot[:, 2] * 0.5 * float(size[1])
            return np.array([pos - axis, pos + axis]), np.full(2, float(size[0]))
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return 0.5 * (lo + hi) + SIGNS * 0.5 * (hi - lo), np.zeros(8)


def geom_collision_box(kind: str, size, pos, rot, lo, hi):
    """The box that stands for a geom when other bodies' points collide with it:
    (centre, rotation body <- box, half extents)."""
    if kind == "box":
        return np.asarray(pos, float), np.asarray(rot, float), 0.5 * np.asarray(size[:3], float)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return 0.5 * (lo + hi), np.eye(3), 0.5 * (hi - lo)
