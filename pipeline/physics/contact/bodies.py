"""Body-body contact in the step kernel: the collision law at a point (corpus `collision*`
constants), corpus's corner-in-box test for named pairs, and exact convex shapes
(pipeline.collision: GJK/EPA and contact manifolds) for every pair of bodies allowed to
collide.
"""
import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.collision.manifold import contact
from pipeline.collision.narrow import make_work
from pipeline.nrt import njit_no_refcounts
from pipeline.physics.contact import state as S
from pipeline.physics.contact.laws import coulomb_scale, normal_force
from pipeline.physics.contact.points import (apply_force, point_velocity, rotate, rotate_back,
                                             world_point)


class BodyShapes(NamedTuple):
    """The bodies' collision shapes (one per colliding geom) and the body pairs to test."""

    shapes: object  # pipeline.collision.shapes.Shapes, in geom frames
    pos: np.ndarray  # (ns, 3) shape frame origin in its body's frame
    rot: np.ndarray  # (ns, 3, 3) body <- shape
    radius: np.ndarray  # (ns,) bounding radius about the shape's origin
    start: np.ndarray  # (nb + 1,) int64: body b's shapes are start[b]:start[b + 1]
    reach: np.ndarray  # (nb,) bounding radius of the body's shapes about its origin
    pair: np.ndarray  # (npair, 2) int64 body pairs to test


@numba.njit(cache=True, inline="always")
def pair_point_force(cs, ba, bb, px, py, pz, nx, ny, nz, depth, xpos, xrot, vbody, fext):
    """corpus's collision law at world point p where body ba presses `depth` into body bb
    along n (unit, out of bb into ba): the normal spring with the collision constants and
    Coulomb friction on the relative sliding velocity, equal and opposite on the two."""
    ux, uy, uz = point_velocity(ba, px, py, pz, xpos, xrot, vbody)
    wx, wy, wz = point_velocity(bb, px, py, pz, xpos, xrot, vbody)
    vx, vy, vz = ux - wx, uy - wy, uz - wz
    vn = vx * nx + vy * ny + vz * nz
    fn = normal_force(depth, vn, 0.0, 0.0, 0.0, cs[S.COL_ALPHA], cs[S.COL_BETA], cs[S.COL_E],
                      cs[S.COL_MAX], cs[S.REST_V])
    tx, ty, tz = vx - vn * nx, vy - vn * ny, vz - vn * nz
    s = coulomb_scale(fn, cs[S.COL_MU], math.sqrt(tx * tx + ty * ty + tz * tz), cs[S.SLIP_V])
    fx, fy, fz = fn * nx - s * tx, fn * ny - s * ty, fn * nz - s * tz
    apply_force(fext, ba, xpos, px, py, pz, fx, fy, fz)
    apply_force(fext, bb, xpos, px, py, pz, -fx, -fy, -fz)


@numba.njit(cache=True, inline="always")
def _point_in_box(contact, cs, i, k, xpos, xrot, vbody, fext):
    """Contact point i (sphere or corner) against collision box k of another body:
    penalty push along the normal of the penetrated face, equal and opposite."""
    ba = contact.point_body[i]
    bb = contact.box_body[k]
    rad = contact.point_radius[i]
    cx, cy, cz = world_point(ba, contact.point_pos[i], xpos, xrot)
    ox, oy, oz = world_point(bb, contact.box_pos[k], xpos, xrot)
    # the point in box coordinates: box <- body <- world
    bx, by, bz = rotate_back(xrot[bb], cx - ox, cy - oy, cz - oz)
    lx, ly, lz = rotate_back(contact.box_rot[k], bx, by, bz)
    hx, hy, hz = contact.box_half[k, 0], contact.box_half[k, 1], contact.box_half[k, 2]
    if abs(lx) < hx and abs(ly) < hy and abs(lz) < hz:  # inside: leave through the nearest face
        gx, gy, gz = hx - abs(lx), hy - abs(ly), hz - abs(lz)
        mx = my = mz = 0.0
        if gx <= gy and gx <= gz:
            depth, mx = gx + rad, math.copysign(1.0, lx)
        elif gy <= gz:
            depth, my = gy + rad, math.copysign(1.0, ly)
        else:
            depth, mz = gz + rad, math.copysign(1.0, lz)
    else:  # outside: a sphere point may still reach the box within its radius
        mx = lx - min(max(lx, -hx), hx)
        my = ly - min(max(ly, -hy), hy)
        mz = lz - min(max(lz, -hz), hz)
        dist = math.sqrt(mx * mx + my * my + mz * mz)
        if dist >= rad or dist == 0.0:
            return
        depth = rad - dist
        mx, my, mz = mx / dist, my / dist, mz / dist
    bx, by, bz = rotate(contact.box_rot[k], mx, my, mz)
    nx, ny, nz = rotate(xrot[bb], bx, by, bz)
    px, py, pz = cx - rad * nx, cy - rad * ny, cz - rad * nz
    pair_point_force(cs, ba, bb, px, py, pz, nx, ny, nz, depth, xpos, xrot, vbody, fext)


@njit_no_refcounts
def corner_collisions(contact, cs, xpos, xrot, vbody, fext):
    """corpus `collide`: every contact point of each named pair's bodies against the other
    body's collision boxes."""
    for q in range(contact.pair.shape[0]):
        for side in range(2):
            ba = contact.pair[q, side]
            bb = contact.pair[q, 1 - side]
            for i in range(contact.point_body.shape[0]):
                if contact.point_body[i] != ba:
                    continue
                for k in range(contact.box_body.shape[0]):
                    if contact.box_body[k] == bb:
                        _point_in_box(contact, cs, i, k, xpos, xrot, vbody, fext)


@numba.njit(cache=True, inline="always")
def _shape_pose(bs, s, b, xpos, xrot, pos, rot):
    """World placement of shape s of body b into pos (3,) and rot (3, 3)."""
    R = xrot[b]
    pos[0], pos[1], pos[2] = world_point(b, bs.pos[s], xpos, xrot)
    for i in range(3):
        for j in range(3):
            rot[i, j] = (R[i, 0] * bs.rot[s, 0, j] + R[i, 1] * bs.rot[s, 1, j]
                         + R[i, 2] * bs.rot[s, 2, j])


@numba.njit(cache=True, inline="always")
def _within_reach(pair, reach, q, xpos):
    """True when the bounding spheres of pair q's bodies meet. (Arrays, not the
    BodyShapes tuple: a tuple of arrays handed to a function per pair costs reference
    counts of every array in it.)"""
    a, b = pair[q, 0], pair[q, 1]
    dx, dy, dz = xpos[a, 0] - xpos[b, 0], xpos[a, 1] - xpos[b, 1], xpos[a, 2] - xpos[b, 2]
    return dx * dx + dy * dy + dz * dz <= (reach[a] + reach[b]) ** 2


@njit_no_refcounts
def _any_within_reach(pair, reach, xpos):
    for q in range(pair.shape[0]):
        if _within_reach(pair, reach, q, xpos):
            return True
    return False


class ShapeScratch(NamedTuple):
    """What `shape_collisions` writes while it works, made once per step workspace (the
    step kernels allocate nothing, pipeline/nrt.py)."""

    narrow: object  # pipeline.collision.narrow.Work
    pa: np.ndarray  # (3,) and (3, 3): the placed shapes
    ra: np.ndarray
    pb: np.ndarray
    rb: np.ndarray
    points: np.ndarray  # (4, 4) a manifold's points (x, y, z, depth)


def make_shape_scratch() -> ShapeScratch:
    return ShapeScratch(make_work(), np.empty(3), np.empty((3, 3)), np.empty(3),
                        np.empty((3, 3)), np.empty((4, 4)))


@njit_no_refcounts
def shape_collisions(bs, cs, xpos, xrot, vbody, fext, scratch):
    """Every listed body pair whose bounding spheres meet: each pair of their shapes'
    contact manifold (up to four points), the collision law at every point."""
    pair, reach = bs.pair, bs.reach
    if not _any_within_reach(pair, reach, xpos):
        return
    wk, points = scratch.narrow, scratch.points
    pa, ra, pb, rb = scratch.pa, scratch.ra, scratch.pb, scratch.rb
    start, radius = bs.start, bs.radius
    for q in range(pair.shape[0]):
        if not _within_reach(pair, reach, q, xpos):
            continue
        a, b = pair[q, 0], pair[q, 1]
        for sa in range(start[a], start[a + 1]):
            _shape_pose(bs, sa, a, xpos, xrot, pa, ra)
            for sb in range(start[b], start[b + 1]):
                _shape_pose(bs, sb, b, xpos, xrot, pb, rb)
                dx, dy, dz = pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]
                if dx * dx + dy * dy + dz * dz > (radius[sa] + radius[sb]) ** 2:
                    continue
                k = contact(bs.shapes, sa, pa, ra, sb, pb, rb, 0.0, 0.0, 0.0, wk, points)
                nx, ny, nz = wk.out[7], wk.out[8], wk.out[9]  # from a toward b
                for i in range(k):
                    pair_point_force(cs, b, a, points[i, 0], points[i, 1], points[i, 2],
                                     nx, ny, nz, points[i, 3], xpos, xrot, vbody, fext)
