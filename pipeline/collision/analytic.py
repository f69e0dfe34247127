"""Closed forms of the narrow phase for the pairs most scenes are made of: a sphere
against a sphere, a capsule or a box, and two boxes.

A sphere's core is a point, so its distance to a sphere's point, a capsule's segment or a
box is a projection, exact where GJK would iterate; when the point sits inside a box the
depth is its distance to the nearest face. Two boxes overlap exactly when none of the 15
separating axes (3 + 3 face normals, 9 edge-edge cross products) separates them, and the
least overlap over those axes is the penetration depth of two polytopes, along that axis
(the answer EPA converges to, without its iterations).

Each function fills `out` as narrow.query does ([0:3] A's point, [3:6] B's point, [6]
signed distance, [7:10] unit normal from A toward B) and returns True, or returns False
where the closed form has no reliable answer (a point on the core itself, boxes touching
within rounding, separated boxes whose exact distance is asked for): then GJK and EPA
answer as for every other pair.
"""
import math

import numba

from pipeline.collision.shapes import BOX, CAPSULE, SPHERE

# cores nearer than this fraction of their size have no reliable direction between their
# closest points: they count as meeting, and EPA finds the normal (narrow.py)
CORE_TOL = 1e-9
# box overlaps shallower than this fraction of the boxes' size go to GJK/EPA: there the
# edge-edge axes skipped as parallel (EDGE_TOL) could decide
SHALLOW_TOL = 1e-6
EDGE_TOL = 1e-6  # |a_i x b_j| below this: parallel edges, whose axis the face axes cover


@numba.njit(cache=True, inline="always")
def _write(out, ax, ay, az, bx, by, bz, d, nx, ny, nz):
    out[0], out[1], out[2], out[3], out[4], out[5] = ax, ay, az, bx, by, bz
    out[6], out[7], out[8], out[9] = d, nx, ny, nz


@numba.njit(cache=True, inline="always")
def _half(T, k):
    """Parameter k (0, 1, 2) of shape tuple T: a box's half extent along axis k."""
    return T[1] if k == 0 else (T[2] if k == 1 else T[3])


@numba.njit(cache=True, inline="always")
def sphere_core(S, c, X, px, rx, flip, out):
    """Sphere S (shape tuple, centre c) against X (a sphere, capsule or box at px, rx).
    flip: S is shape B of the query (the normal still points from A toward B)."""
    kx = X[0]
    cx, cy, cz = c[0], c[1], c[2]
    qx, qy, qz = px[0], px[1], px[2]  # X's core point nearest c
    inside = False
    if kx == CAPSULE:
        ux, uy, uz = rx[0, 2], rx[1, 2], rx[2, 2]
        s = ((cx - qx) * ux + (cy - qy) * uy + (cz - qz) * uz) / (ux * ux + uy * uy + uz * uz)
        s = min(max(s, -X[1]), X[1])
        qx, qy, qz = qx + s * ux, qy + s * uy, qz + s * uz
    elif kx == BOX:
        rel_x, rel_y, rel_z = cx - qx, cy - qy, cz - qz
        inside = True
        best, axis, sign = math.inf, 0, 1.0
        for k in range(3):
            lk = rx[0, k] * rel_x + rx[1, k] * rel_y + rx[2, k] * rel_z
            h = _half(X, k)
            clamped = min(max(lk, -h), h)
            if clamped != lk:
                inside = False
            gap = h - abs(lk)
            if gap < best:
                best, axis, sign = gap, k, 1.0 if lk >= 0.0 else -1.0
            qx += rx[0, k] * clamped
            qy += rx[1, k] * clamped
            qz += rx[2, k] * clamped
    rs, rm = S[4], X[4]
    if inside:
        # the centre leaves through the nearest face: X moves back along its normal
        mx, my, mz = sign * rx[0, axis], sign * rx[1, axis], sign * rx[2, axis]
        m = math.sqrt(mx * mx + my * my + mz * mz)
        nx, ny, nz = -mx / m, -my / m, -mz / m
        ax, ay, az = cx + rs * nx, cy + rs * ny, cz + rs * nz
        bx, by, bz = cx - best * nx, cy - best * ny, cz - best * nz
        d = -(best + rs)
    else:
        vx, vy, vz = qx - cx, qy - cy, qz - cz
        dist = math.sqrt(vx * vx + vy * vy + vz * vz)
        size = max(abs(qx - px[0]), abs(qy - px[1]), abs(qz - px[2]))
        if not dist > CORE_TOL * size:
            return False
        nx, ny, nz = vx / dist, vy / dist, vz / dist
        ax, ay, az = cx + rs * nx, cy + rs * ny, cz + rs * nz
        bx, by, bz = qx - rm * nx, qy - rm * ny, qz - rm * nz
        d = dist - rs - rm
    if flip:
        _write(out, bx, by, bz, ax, ay, az, d, -nx, -ny, -nz)
    else:
        _write(out, ax, ay, az, bx, by, bz, d, nx, ny, nz)
    return True


@numba.njit(cache=True, inline="always")
def _radius(R, h0, h1, h2, ux, uy, uz):
    """Half the extent of the box (R, h) along unit u."""
    return (h0 * abs(R[0, 0] * ux + R[1, 0] * uy + R[2, 0] * uz)
            + h1 * abs(R[0, 1] * ux + R[1, 1] * uy + R[2, 1] * uz)
            + h2 * abs(R[0, 2] * ux + R[1, 2] * uy + R[2, 2] * uz))


@numba.njit(cache=True, inline="always")
def _corner(p, R, h0, h1, h2, nx, ny, nz, skip):
    """The corner of box (p, R, h) farthest along n; axis `skip` left at its middle
    (then it is the middle of the edge along that axis)."""
    x, y, z = p[0], p[1], p[2]
    for k in range(3):
        if k == skip:
            continue
        h = h0 if k == 0 else (h1 if k == 1 else h2)
        s = h if R[0, k] * nx + R[1, k] * ny + R[2, k] * nz >= 0.0 else -h
        x, y, z = x + s * R[0, k], y + s * R[1, k], z + s * R[2, k]
    return x, y, z


@numba.njit(cache=True, inline="always")
def box_box(A, pa, ra, B, pb, rb, exact_gap, out):
    """Two boxes by the separating axes. Separated: with exact_gap False, out[6] is a
    lower bound of the distance (the gap along a separating axis) and True is returned;
    with exact_gap True, False (GJK measures the distance)."""
    ha0, ha1, ha2, hb0, hb1, hb2 = A[1], A[2], A[3], B[1], B[2], B[3]
    tx, ty, tz = pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]
    best, best_axis = math.inf, -1
    nx = ny = nz = 0.0
    for axis in range(15):
        if axis < 3:
            ux, uy, uz = ra[0, axis], ra[1, axis], ra[2, axis]
        elif axis < 6:
            ux, uy, uz = rb[0, axis - 3], rb[1, axis - 3], rb[2, axis - 3]
        else:
            i, j = (axis - 6) // 3, (axis - 6) % 3
            ux = ra[1, i] * rb[2, j] - ra[2, i] * rb[1, j]
            uy = ra[2, i] * rb[0, j] - ra[0, i] * rb[2, j]
            uz = ra[0, i] * rb[1, j] - ra[1, i] * rb[0, j]
        length = math.sqrt(ux * ux + uy * uy + uz * uz)
        if not length > (EDGE_TOL if axis >= 6 else 0.0):
            continue
        ux, uy, uz = ux / length, uy / length, uz / length
        t = tx * ux + ty * uy + tz * uz
        depth = (_radius(ra, ha0, ha1, ha2, ux, uy, uz) + _radius(rb, hb0, hb1, hb2, ux, uy, uz)
                 - abs(t))
        if not depth > 0.0:  # separated (or touching) along u
            if exact_gap:
                return False
            out[6] = -depth
            return True
        if depth < best:
            s = 1.0 if t >= 0.0 else -1.0
            best, best_axis, nx, ny, nz = depth, axis, s * ux, s * uy, s * uz
    if not best > SHALLOW_TOL * (max(ha0, ha1, ha2) + max(hb0, hb1, hb2)):
        return False
    if best_axis < 3:  # a face of A: B's corner deepest in A
        bx, by, bz = _corner(pb, rb, hb0, hb1, hb2, -nx, -ny, -nz, -1)
        ax, ay, az = bx + best * nx, by + best * ny, bz + best * nz
    elif best_axis < 6:  # a face of B: A's corner deepest in B
        ax, ay, az = _corner(pa, ra, ha0, ha1, ha2, nx, ny, nz, -1)
        bx, by, bz = ax - best * nx, ay - best * ny, az - best * nz
    else:  # two edges: their closest points (the lines' nearest points, kept on the edges)
        i, j = (best_axis - 6) // 3, (best_axis - 6) % 3
        px, py, pz = _corner(pa, ra, ha0, ha1, ha2, nx, ny, nz, i)
        qx, qy, qz = _corner(pb, rb, hb0, hb1, hb2, -nx, -ny, -nz, j)
        d1x, d1y, d1z = ra[0, i], ra[1, i], ra[2, i]
        d2x, d2y, d2z = rb[0, j], rb[1, j], rb[2, j]
        rx, ry, rz = px - qx, py - qy, pz - qz
        b = d1x * d2x + d1y * d2y + d1z * d2z
        c = d1x * rx + d1y * ry + d1z * rz
        f = d2x * rx + d2y * ry + d2z * rz
        s = (b * f - c) / (1.0 - b * b)
        la, lb = _half(A, i), _half(B, j)
        s = min(max(s, -la), la)
        t = min(max(f + s * b, -lb), lb)
        ax, ay, az = px + s * d1x, py + s * d1y, pz + s * d1z
        bx, by, bz = qx + t * d2x, qy + t * d2y, qz + t * d2z
    _write(out, ax, ay, az, bx, by, bz, -best, nx, ny, nz)
    return True


@numba.njit(cache=True, inline="always")
def closed_form(A, pa, ra, B, pb, rb, exact_gap, out):
    """The closed form for shapes A and B (tuples, shapes.py) when their kinds have one
    and it answers; False sends the pair to GJK/EPA."""
    ka, kb = A[0], B[0]
    if ka == SPHERE and (kb == SPHERE or kb == CAPSULE or kb == BOX):
        return sphere_core(A, pa, B, pb, rb, False, out)
    if kb == SPHERE and (ka == CAPSULE or ka == BOX):
        return sphere_core(B, pb, A, pa, ra, True, out)
    if ka == BOX and kb == BOX:
        return box_box(A, pa, ra, B, pb, rb, exact_gap, out)
    return False
