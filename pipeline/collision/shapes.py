"""Collision geometry: every body shape as a support function over plain arrays.

A shape lives in its own frame (the geom frame of pipeline/compiler/geometry.py) and is
described by one row of `Shapes`: a kind code, four parameters, and for hulls a run of
vertices and faces in shared arrays. The narrow phase never needs more than the support
point s(d) = argmax_{x in shape} d.x and, for contact manifolds, the face or edge that
faces a direction (`manifold.py`).

Spheres and capsules are a core (a point, a segment) grown by a margin, their radius:
GJK runs on the cores, which are polytopes, so their distances are exact and cores meet
only when the bodies overlap by a whole radius (then EPA measures the cores, and the
radii are added to its depth: exact too).

Parameters (`Shapes.param`), all in the shape frame:
  BOX        half extents hx, hy, hz            centred
  SPHERE     -                                  margin r
  CAPSULE    half length along z                margin r
  CYLINDER   radius, half length along z        centred
  ELLIPSOID  semi-axes a, b, c                  centred
  FRUSTUM    bottom radius, top radius, length  bottom disk at z = 0, top at z = length
             (a cone is a frustum with top radius 0)
  HULL       -                                  vertices verts[vstart:vstart+vcount],
             faces fnormal/foffset[fstart:fstart+fcount], each face's vertex loop
             floop[floop_start[f]:floop_start[f+1]] (indices into verts, counter-clockwise
             seen from outside)
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.nrt import njit_no_refcounts

BOX, SPHERE, CAPSULE, CYLINDER, ELLIPSOID, FRUSTUM, HULL = range(7)
KIND_NAMES = ("box", "sphere", "capsule", "cylinder", "ellipsoid", "frustum", "hull")


class Shapes(NamedTuple):
    kind: np.ndarray  # (ns,) int64
    param: np.ndarray  # (ns, 4) float64, layout above
    margin: np.ndarray  # (ns,) radius grown around the core (spheres, capsules), else 0
    vstart: np.ndarray  # (ns,) int64 first hull vertex
    vcount: np.ndarray  # (ns,) int64 number of hull vertices (0 for analytic shapes)
    fstart: np.ndarray  # (ns,) int64 first hull face
    fcount: np.ndarray  # (ns,) int64
    verts: np.ndarray  # (nv, 3) hull vertices of every hull, shape frames
    fnormal: np.ndarray  # (nf, 3) outward unit normal of each hull face
    foffset: np.ndarray  # (nf,) normal . x on the face
    floop_start: np.ndarray  # (nf + 1,) int64 runs of floop
    floop: np.ndarray  # (nl,) int64 vertex indices (into verts) of every face loop


@numba.njit(cache=True, inline="always")
def _unit_xy(dx, dy):
    """(dx, dy) normalised; (1, 0) for a direction along z, so ties pick one rim point
    every time (a support function must be a function)."""
    n = math.sqrt(dx * dx + dy * dy)
    if n > 0.0:
        return dx / n, dy / n
    return 1.0, 0.0


@njit_no_refcounts
def support_local(kind, p0, p1, p2, margin, dx, dy, dz, full):
    """Support point of an analytic shape (not a hull) in its own frame along (dx, dy, dz)
    (any length, not 0). full = False leaves out the margin (the core of a sphere or
    capsule). Scalars only: an array argument would cost a reference count per call,
    which was most of the time of a support point."""
    if kind == BOX:
        x = p0 if dx >= 0.0 else -p0
        y = p1 if dy >= 0.0 else -p1
        z = p2 if dz >= 0.0 else -p2
    elif kind == SPHERE:
        x = y = z = 0.0
    elif kind == CAPSULE:
        x = y = 0.0
        z = p0 if dz >= 0.0 else -p0
    elif kind == CYLINDER:
        ux, uy = _unit_xy(dx, dy)
        x, y = p0 * ux, p0 * uy
        z = p1 if dz >= 0.0 else -p1
    elif kind == ELLIPSOID:
        ax, by, cz = p0 * p0 * dx, p1 * p1 * dy, p2 * p2 * dz
        s = math.sqrt(ax * dx + by * dy + cz * dz)
        x, y, z = ax / s, by / s, cz / s
    else:  # FRUSTUM
        ux, uy = _unit_xy(dx, dy)
        # the farther of the two rim points along d (the side is their straight join)
        if (p1 - p0) * (ux * dx + uy * dy) + p2 * dz > 0.0:
            x, y, z = p1 * ux, p1 * uy, p2
        else:
            x, y, z = p0 * ux, p0 * uy, 0.0
    if full and margin > 0.0:
        n = math.sqrt(dx * dx + dy * dy + dz * dz)
        x += margin * dx / n
        y += margin * dy / n
        z += margin * dz / n
    return x, y, z


@njit_no_refcounts
def hull_support(verts, v0, nv, dx, dy, dz):
    """The hull vertex farthest along d (the first one on ties, so the result is
    deterministic)."""
    best = -math.inf
    x = y = z = 0.0
    for i in range(v0, v0 + nv):
        s = verts[i, 0] * dx + verts[i, 1] * dy + verts[i, 2] * dz
        if s > best:
            best = s
            x, y, z = verts[i, 0], verts[i, 1], verts[i, 2]
    return x, y, z


@numba.njit(cache=True, inline="always")
def shape_tuple(sh, s):
    """Shape s as a tuple of scalars (kind, p0, p1, p2, margin, vstart, vcount).

    The queries pass shapes and poses as tuples: reading an array out of `Shapes` inside
    a loop costs two atomic reference counts each time, which made a support point ten
    times slower than its arithmetic."""
    return (sh.kind[s], sh.param[s, 0], sh.param[s, 1], sh.param[s, 2], sh.margin[s],
            sh.vstart[s], sh.vcount[s])


@numba.njit(cache=True, inline="always")
def pose_tuple(pos, rot):
    """A placement (pos, rot: world <- shape) as a tuple of 12 scalars."""
    return (pos[0], pos[1], pos[2], rot[0, 0], rot[0, 1], rot[0, 2], rot[1, 0], rot[1, 1],
            rot[1, 2], rot[2, 0], rot[2, 1], rot[2, 2])


@numba.njit(cache=True, inline="always")
def support(verts, shp, pose, dx, dy, dz, full):
    """Support point in the world of shape `shp` placed at `pose` (tuples above) along
    world direction d; `verts` holds the hull vertices."""
    kind, p0, p1, p2, margin, v0, nv = shp
    px, py, pz, r00, r01, r02, r10, r11, r12, r20, r21, r22 = pose
    lx = r00 * dx + r10 * dy + r20 * dz
    ly = r01 * dx + r11 * dy + r21 * dz
    lz = r02 * dx + r12 * dy + r22 * dz
    if kind == HULL:
        x, y, z = hull_support(verts, v0, nv, lx, ly, lz)
    else:
        x, y, z = support_local(kind, p0, p1, p2, margin, lx, ly, lz, full)
    return (px + r00 * x + r01 * y + r02 * z, py + r10 * x + r11 * y + r12 * z,
            pz + r20 * x + r21 * y + r22 * z)


@numba.njit(cache=True)
def _hull_aabb(sh, s, pos, rot, out, row):
    """world_aabb of a hull, by its support points."""
    shp, pose = shape_tuple(sh, s), pose_tuple(pos, rot)
    for k in range(3):
        e0 = 1.0 if k == 0 else 0.0
        e1 = 1.0 if k == 1 else 0.0
        e2 = 1.0 if k == 2 else 0.0
        out[row, k] = support(sh.verts, shp, pose, -e0, -e1, -e2, True)[k]
        out[row, 3 + k] = support(sh.verts, shp, pose, e0, e1, e2, True)[k]


@numba.njit(cache=True, inline="always")
def _analytic_aabb(shp, pos, rot, out, row):
    """world_aabb of an analytic shape (tuple, shape_tuple) in closed form: world axis k
    is row k of rot in the shape frame, and the bounds are the support values along it."""
    kind, p0, p1, p2, r = shp[0], shp[1], shp[2], shp[3], shp[4]
    for k in range(3):
        a0, a1, a2 = rot[k, 0], rot[k, 1], rot[k, 2]
        up = down = 0.0  # support values along +e_k and -e_k
        if kind == BOX:
            up = down = abs(a0) * p0 + abs(a1) * p1 + abs(a2) * p2
        elif kind == SPHERE:
            up = down = r * math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        elif kind == CAPSULE:
            up = down = abs(a2) * p0 + r * math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        elif kind == CYLINDER:
            up = down = p0 * math.sqrt(a0 * a0 + a1 * a1) + p1 * abs(a2)
        elif kind == ELLIPSOID:
            up = down = math.sqrt((p0 * a0) ** 2 + (p1 * a1) ** 2 + (p2 * a2) ** 2)
        else:  # FRUSTUM: the farther of its two rim circles
            rho = math.sqrt(a0 * a0 + a1 * a1)
            up = max(p0 * rho, p1 * rho + p2 * a2)
            down = max(p0 * rho, p1 * rho - p2 * a2)
        out[row, k] = pos[k] - down
        out[row, 3 + k] = pos[k] + up


@numba.njit(cache=True)
def world_aabb(sh, s, pos, rot, out, row):
    """Tight axis-aligned bounds of shape s at (pos, rot) into out[row] = (lo3, hi3):
    the support values along the six world axes."""
    if sh.kind[s] == HULL:
        _hull_aabb(sh, s, pos, rot, out, row)
    else:
        _analytic_aabb(shape_tuple(sh, s), pos, rot, out, row)


@numba.njit(cache=True)
def world_boxes(sh, shape, pos, rot, out):
    """world_aabb of many objects: object i is shape[i] at (pos[i], rot[i]), into out[i].
    (The loop reads the shapes itself: handing the `Shapes` tuple to a function per
    object cost ten times the bounds' arithmetic.)"""
    for i in range(shape.shape[0]):
        shp = shape_tuple(sh, shape[i])
        if shp[0] == HULL:
            _hull_aabb(sh, shape[i], pos[i], rot[i], out, i)
        else:
            _analytic_aabb(shp, pos[i], rot[i], out, i)


def bounding_radius(shapes: Shapes, s: int) -> float:
    """Largest distance of a point of shape s from its frame origin."""
    k, (p0, p1, p2, _), r = int(shapes.kind[s]), shapes.param[s], float(shapes.margin[s])
    if k == BOX:
        return float(math.sqrt(p0 * p0 + p1 * p1 + p2 * p2))
    if k == SPHERE:
        return r
    if k == CAPSULE:
        return float(p0) + r
    if k == CYLINDER:
        return float(math.hypot(p0, p1))
    if k == ELLIPSOID:
        return float(max(p0, p1, p2))
    if k == FRUSTUM:
        return float(max(p0, math.hypot(p1, p2)))
    v = shapes.verts[shapes.vstart[s]:shapes.vstart[s] + shapes.vcount[s]]
    return float(np.sqrt((v * v).sum(axis=1)).max())


def pack(entries) -> Shapes:
    """Shapes from a list of (kind name, parameters, points): parameters as in the table
    above (margin first for spheres and capsules: ("sphere", (r,)), ("capsule", (r, half
    length))); points (n, 3) only for "hull", whose convex hull is taken (hull.py raises
    DegenerateHull for flat or empty sets)."""
    from pipeline.collision.hull import convex_hull

    kind, param, margin, vstart, vcount, fstart, fcount = [], [], [], [], [], [], []
    verts, normals, offsets, loop_start, loops = [], [], [], [0], []
    nverts = 0
    for name, prm, points in entries:
        k = KIND_NAMES.index(name)
        prm = [] if prm is None else [float(x) for x in prm]
        row = [0.0] * 4
        r = 0.0
        if k in (SPHERE, CAPSULE):
            r, rest = prm[0], prm[1:]
            row[:len(rest)] = rest
        else:
            row[:len(prm)] = prm
        kind.append(k)
        param.append(row)
        margin.append(r)
        vstart.append(nverts)
        fstart.append(len(normals))
        if k == HULL:
            v, n, d, lp = convex_hull(points)
            verts.append(v)
            normals.extend(n)
            offsets.extend(d)
            for loop in lp:
                loops.extend(int(i) + nverts for i in loop)
                loop_start.append(len(loops))
            vcount.append(len(v))
            fcount.append(len(n))
            nverts += len(v)
        else:
            vcount.append(0)
            fcount.append(0)
    i64 = np.int64
    return Shapes(kind=np.array(kind, i64), param=np.array(param, float).reshape(-1, 4),
                  margin=np.array(margin, float), vstart=np.array(vstart, i64),
                  vcount=np.array(vcount, i64), fstart=np.array(fstart, i64),
                  fcount=np.array(fcount, i64),
                  verts=np.concatenate(verts) if verts else np.zeros((0, 3)),
                  fnormal=np.array(normals, float).reshape(-1, 3),
                  foffset=np.array(offsets, float), floop_start=np.array(loop_start, i64),
                  floop=np.array(loops, i64))
