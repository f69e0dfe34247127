"""Contact manifolds: up to four points where two overlapping shapes press on each other.

GJK/EPA give one point pair and a normal n. A box resting on a box touches along a whole
face, and a penalty law applied at one point would let it rock; so, as in most engines
(reference-face clipping, e.g. Box2D and Bullet), each shape offers the feature that faces
the other (a face polygon, an edge, or a point), the better aligned face is the
reference, the other feature is clipped to the reference face's side planes, and the
clipped points below the reference plane are the contacts, each with its own depth.
More than four are cut to the four that span the largest area.

Round shapes offer flat features where they have them: a cylinder's or frustum's end disk
(an inscribed RIM-gon), their side line, a capsule's side line; elsewhere a point.
"""
import math

import numba

from pipeline.collision.analytic import closed_form
from pipeline.collision.narrow import iterative, signed
from pipeline.collision.shapes import (BOX, CAPSULE, CYLINDER, FRUSTUM, HULL, SPHERE,
                                       shape_tuple, support_local)
from pipeline.nrt import njit_no_refcounts

RIM = 8  # points of an end disk's polygon
FLAT_TOL = 0.02  # sine of the angle within which a direction counts as along an axis
# a face is a reference only within ~18 deg of the normal: beyond, the contact is an edge
# or a corner, whose depth below that face is not its depth along the normal
REF_COS = 0.95
MAX_POINTS = 4


@numba.njit(cache=True, inline="always")
def _put(buf, k, x, y, z):
    buf[k, 0], buf[k, 1], buf[k, 2] = x, y, z


@njit_no_refcounts
def _disk(buf, r, z, up):
    """RIM points of a disk of radius r at height z, counter-clockwise seen from +z if
    up, else from -z."""
    for i in range(RIM):
        t = 2.0 * math.pi * i / RIM
        _put(buf, i, r * math.cos(t), (1.0 if up else -1.0) * r * math.sin(t), z)
    return RIM


@numba.njit(cache=True, inline="always")
def feature_local(sh, s, dx, dy, dz, buf):
    """The feature of shape s facing unit direction d (shape frame) into buf; returns
    (count, normal x, y, z): a face's outward normal when count >= 3, else unused."""
    k = sh.kind[s]
    p0, p1, p2 = sh.param[s, 0], sh.param[s, 1], sh.param[s, 2]
    r = sh.margin[s]
    if k == BOX:  # the face whose normal is nearest d, corners counter-clockwise
        ax = 0 if abs(dx) >= abs(dy) and abs(dx) >= abs(dz) else (1 if abs(dy) >= abs(dz) else 2)
        sg = 1.0 if (dx if ax == 0 else (dy if ax == 1 else dz)) >= 0.0 else -1.0
        for i in range(4):
            j = i if sg > 0.0 else 3 - i  # reversed order is counter-clockwise about -axis
            ca = 1.0 if j == 0 or j == 3 else -1.0
            cb = 1.0 if j <= 1 else -1.0
            if ax == 0:
                _put(buf, i, sg * p0, ca * p1, cb * p2)
            elif ax == 1:
                _put(buf, i, cb * p0, sg * p1, ca * p2)
            else:
                _put(buf, i, ca * p0, cb * p1, sg * p2)
        return 4, sg if ax == 0 else 0.0, sg if ax == 1 else 0.0, sg if ax == 2 else 0.0
    if k == HULL:
        best, bf = -math.inf, 0
        for f in range(sh.fstart[s], sh.fstart[s] + sh.fcount[s]):
            t = sh.fnormal[f, 0] * dx + sh.fnormal[f, 1] * dy + sh.fnormal[f, 2] * dz
            if t > best:
                best, bf = t, f
        m = 0
        last = min(sh.floop_start[bf + 1], sh.floop_start[bf] + buf.shape[0])
        for i in range(sh.floop_start[bf], last):
            v = sh.floop[i]
            _put(buf, m, sh.verts[v, 0], sh.verts[v, 1], sh.verts[v, 2])
            m += 1
        return m, sh.fnormal[bf, 0], sh.fnormal[bf, 1], sh.fnormal[bf, 2]
    side = math.sqrt(dx * dx + dy * dy)
    if side > 0.0:
        ux, uy = dx / side, dy / side
    else:
        ux, uy = 1.0, 0.0
    if k == CAPSULE and abs(dz) <= FLAT_TOL:
        _put(buf, 0, r * ux, r * uy, -p0)
        _put(buf, 1, r * ux, r * uy, p0)
        return 2, 0.0, 0.0, 0.0
    along = 1.0 - 0.5 * FLAT_TOL * FLAT_TOL  # cosine of FLAT_TOL's angle
    if k == CYLINDER:
        if abs(dz) >= along:
            up = dz > 0.0
            return _disk(buf, p0, p1 if up else -p1, up), 0.0, 0.0, 1.0 if up else -1.0
        if abs(dz) <= FLAT_TOL:
            _put(buf, 0, p0 * ux, p0 * uy, -p1)
            _put(buf, 1, p0 * ux, p0 * uy, p1)
            return 2, 0.0, 0.0, 0.0
    if k == FRUSTUM:
        if dz <= -along:
            return _disk(buf, p0, 0.0, False), 0.0, 0.0, -1.0
        if p1 > 0.0 and dz >= along:
            return _disk(buf, p1, p2, True), 0.0, 0.0, 1.0
        # the side's outward normal in the plane of d and the axis: (p2, p0 - p1) / length
        ln = math.hypot(p2, p0 - p1)
        cross = (side * (p0 - p1) - dz * p2) / ln
        if abs(cross) <= FLAT_TOL and side * p2 + dz * (p0 - p1) > 0.0:
            _put(buf, 0, p0 * ux, p0 * uy, 0.0)
            _put(buf, 1, p1 * ux, p1 * uy, p2)
            return 2, 0.0, 0.0, 0.0
    x, y, z = support_local(k, p0, p1, p2, r, dx, dy, dz, True)
    _put(buf, 0, x, y, z)
    return 1, 0.0, 0.0, 0.0


@numba.njit(cache=True, inline="always")
def _feature_world(sh, s, pos, rot, nx, ny, nz, buf):
    """feature_local along world direction n, moved into the world (points and normal)."""
    lx = rot[0, 0] * nx + rot[1, 0] * ny + rot[2, 0] * nz
    ly = rot[0, 1] * nx + rot[1, 1] * ny + rot[2, 1] * nz
    lz = rot[0, 2] * nx + rot[1, 2] * ny + rot[2, 2] * nz
    m, fx, fy, fz = feature_local(sh, s, lx, ly, lz, buf)
    for i in range(m):
        x, y, z = buf[i, 0], buf[i, 1], buf[i, 2]
        for c in range(3):
            buf[i, c] = pos[c] + rot[c, 0] * x + rot[c, 1] * y + rot[c, 2] * z
    return (m, rot[0, 0] * fx + rot[0, 1] * fy + rot[0, 2] * fz,
            rot[1, 0] * fx + rot[1, 1] * fy + rot[1, 2] * fz,
            rot[2, 0] * fx + rot[2, 1] * fy + rot[2, 2] * fz)


@njit_no_refcounts
def _clip(src, ns, dst, px, py, pz, sx, sy, sz):
    """Sutherland-Hodgman: the part of polygon src[:ns] where s.(x - p) >= 0, into dst."""
    nd = 0
    for i in range(ns):
        j = i - 1 if i > 0 else ns - 1
        di = sx * (src[i, 0] - px) + sy * (src[i, 1] - py) + sz * (src[i, 2] - pz)
        dj = sx * (src[j, 0] - px) + sy * (src[j, 1] - py) + sz * (src[j, 2] - pz)
        if (di >= 0.0) != (dj >= 0.0) and nd < dst.shape[0]:
            t = dj / (dj - di)
            for c in range(3):
                dst[nd, c] = src[j, c] + t * (src[i, c] - src[j, c])
            nd += 1
        if di >= 0.0 and nd < dst.shape[0]:
            for c in range(3):
                dst[nd, c] = src[i, c]
            nd += 1
    return nd


@njit_no_refcounts
def _clip_to_reference(ref, nr, inc, ni, c1, c2):
    """The incident feature inc[:ni] clipped to the side planes of reference ref[:nr] (a
    polygon's edges, or a segment's two end planes); returns (in_c2, count): whether the
    result is in c2 (else c1). A flag, not the buffer: kernels compiled without reference
    counting call this, and an array they returned would be released by a caller that
    counts (pipeline/nrt.py)."""
    for i in range(ni):
        for c in range(3):
            c1[i, c] = inc[i, c]
    m = ni
    src, dst = c1, c2
    if nr == 2:
        tx, ty, tz = ref[1, 0] - ref[0, 0], ref[1, 1] - ref[0, 1], ref[1, 2] - ref[0, 2]
        m = _clip(src, m, dst, ref[0, 0], ref[0, 1], ref[0, 2], tx, ty, tz)
        m = _clip(dst, m, src, ref[1, 0], ref[1, 1], ref[1, 2], -tx, -ty, -tz)
        return False, m
    in_c2 = False
    gx = gy = gz = 0.0
    for i in range(nr):
        gx, gy, gz = gx + ref[i, 0] / nr, gy + ref[i, 1] / nr, gz + ref[i, 2] / nr
    # the face normal from the polygon itself (Newell), so the side planes need no order
    fx = fy = fz = 0.0
    for i in range(nr):
        j = (i + 1) % nr
        fx += (ref[i, 1] - ref[j, 1]) * (ref[i, 2] + ref[j, 2])
        fy += (ref[i, 2] - ref[j, 2]) * (ref[i, 0] + ref[j, 0])
        fz += (ref[i, 0] - ref[j, 0]) * (ref[i, 1] + ref[j, 1])
    for i in range(nr):
        j = (i + 1) % nr
        ex, ey, ez = ref[j, 0] - ref[i, 0], ref[j, 1] - ref[i, 1], ref[j, 2] - ref[i, 2]
        sx, sy, sz = fy * ez - fz * ey, fz * ex - fx * ez, fx * ey - fy * ex
        if sx * (gx - ref[i, 0]) + sy * (gy - ref[i, 1]) + sz * (gz - ref[i, 2]) < 0.0:
            sx, sy, sz = -sx, -sy, -sz
        m = _clip(src, m, dst, ref[i, 0], ref[i, 1], ref[i, 2], sx, sy, sz)
        src, dst = dst, src
        in_c2 = not in_c2
        if m == 0:
            break
    return in_c2, m


@njit_no_refcounts
def _reduce(pts, m, mout, row):
    """Keep at most MAX_POINTS of the rows pts[:m] (x, y, z, depth): the deepest, the
    farthest from it, the one making the largest triangle with both, and the one adding
    most area outside that triangle. Returns the count kept in mout from row `row` on."""
    if m <= MAX_POINTS:
        for i in range(m):
            for c in range(4):
                mout[row + i, c] = pts[i, c]
        return m
    i0 = 0
    for i in range(m):
        if pts[i, 3] > pts[i0, 3]:
            i0 = i
    i1, best = -1, -1.0
    for i in range(m):
        d = ((pts[i, 0] - pts[i0, 0]) ** 2 + (pts[i, 1] - pts[i0, 1]) ** 2
             + (pts[i, 2] - pts[i0, 2]) ** 2)
        if d > best:
            i1, best = i, d
    ax, ay, az = pts[i1, 0] - pts[i0, 0], pts[i1, 1] - pts[i0, 1], pts[i1, 2] - pts[i0, 2]
    i2, best = -1, -1.0
    nx = ny = nz = 0.0
    for i in range(m):
        bx, by, bz = pts[i, 0] - pts[i0, 0], pts[i, 1] - pts[i0, 1], pts[i, 2] - pts[i0, 2]
        cx, cy, cz = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
        d = cx * cx + cy * cy + cz * cz
        if d > best:
            i2, best, nx, ny, nz = i, d, cx, cy, cz
    keep = (i0, i1, i2)
    i3, best = -1, 0.0
    for i in range(m):
        if i == i0 or i == i1 or i == i2:
            continue
        out = 0.0  # area outside the triangle's edges (seen along its normal n)
        for e in range(3):
            p, q = keep[e], keep[(e + 1) % 3]
            ux, uy, uz = pts[q, 0] - pts[p, 0], pts[q, 1] - pts[p, 1], pts[q, 2] - pts[p, 2]
            vx, vy, vz = pts[i, 0] - pts[p, 0], pts[i, 1] - pts[p, 1], pts[i, 2] - pts[p, 2]
            a = -(nx * (uy * vz - uz * vy) + ny * (uz * vx - ux * vz) + nz * (ux * vy - uy * vx))
            out = max(out, a)
        if out > best:
            i3, best = i, out
    n = 0
    for i in (i0, i1, i2, i3):
        if i >= 0:
            for c in range(4):
                mout[row + n, c] = pts[i, c]
            n += 1
    return n


@njit_no_refcounts
def _parallel(fa, fb):
    """True when segments fa[0:2] and fb[0:2] are parallel within FLAT_TOL."""
    tx, ty, tz = fa[1, 0] - fa[0, 0], fa[1, 1] - fa[0, 1], fa[1, 2] - fa[0, 2]
    ux, uy, uz = fb[1, 0] - fb[0, 0], fb[1, 1] - fb[0, 1], fb[1, 2] - fb[0, 2]
    cx, cy, cz = ty * uz - tz * uy, tz * ux - tx * uz, tx * uy - ty * ux
    return (cx * cx + cy * cy + cz * cz
            <= FLAT_TOL * FLAT_TOL * (tx * tx + ty * ty + tz * tz) * (ux * ux + uy * uy + uz * uz))


@njit_no_refcounts
def _seen(pts, k, tol):
    """True when pts[k] is within tol of one of pts[:k] (a clipped segment repeats its
    cut point)."""
    for i in range(k):
        if (abs(pts[i, 0] - pts[k, 0]) <= tol and abs(pts[i, 1] - pts[k, 1]) <= tol
                and abs(pts[i, 2] - pts[k, 2]) <= tol):
            return True
    return False


@njit_no_refcounts
def contact(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk, mout):
    """Contact manifold of shape a at (pa, ra) and shape b at (pb, rb) (world <- shape).

    Returns the number of contact points (0 when apart) written to mout rows as (x, y, z,
    depth > 0): each point midway between the surfaces. The normal from A toward B is in
    wk.out[7:10] and the deepest pair of points, as `narrow.query` leaves them, in
    wk.out[0:6]."""
    d = signed(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk, False)
    if not d < 0.0:
        return 0
    if sh.kind[a] == SPHERE or sh.kind[b] == SPHERE:  # a sphere touches at one point
        return _one_point(wk.out, d, mout, 0)
    return _clipped(sh, a, pa, ra, b, pb, rb, d, wk, mout, 0)


@numba.njit(cache=True, inline="always")
def _clipped(sh, a, pa, ra, b, pb, rb, d, wk, mout, row):
    """`contact` of overlapping shapes (signed distance d) by reference-face clipping,
    into mout from row `row` on."""
    out = wk.out
    nx, ny, nz = out[7], out[8], out[9]
    ka, ax, ay, az = _feature_world(sh, a, pa, ra, nx, ny, nz, wk.fa)
    kb, bx, by, bz = _feature_world(sh, b, pb, rb, -nx, -ny, -nz, wk.fb)
    ref_a = -1  # 1: A's feature is the reference, 0: B's, -1: one point only
    align_a = ax * nx + ay * ny + az * nz
    align_b = -(bx * nx + by * ny + bz * nz)
    if ka >= 3 and align_a >= REF_COS and (kb < 3 or align_a >= 0.98 * align_b):
        ref_a = 1
    elif kb >= 3 and align_b >= REF_COS:
        ref_a = 0
    elif ka == 2 and kb == 2 and _parallel(wk.fa, wk.fb):  # lines side by side
        ref_a = 1
    if ref_a >= 0:
        ref, nr, inc, ni = (wk.fa, ka, wk.fb, kb) if ref_a == 1 else (wk.fb, kb, wk.fa, ka)
        mx, my, mz = (ax, ay, az) if ref_a == 1 else (bx, by, bz)
        if nr == 2:  # a line has no normal of its own: the contact normal, turned outward
            mx, my, mz = (nx, ny, nz) if ref_a == 1 else (-nx, -ny, -nz)
        in_c2, m = _clip_to_reference(ref, nr, inc, ni, wk.c1, wk.c2)
        clipped = wk.c2 if in_c2 else wk.c1
        span = math.sqrt((ref[1, 0] - ref[0, 0]) ** 2 + (ref[1, 1] - ref[0, 1]) ** 2
                         + (ref[1, 2] - ref[0, 2]) ** 2)
        kept = 0
        for i in range(m):  # the points below the reference plane, each once
            depth = ((ref[0, 0] - clipped[i, 0]) * mx + (ref[0, 1] - clipped[i, 1]) * my
                     + (ref[0, 2] - clipped[i, 2]) * mz)
            if not depth > 0.0:
                continue
            # a face tilted from the normal measures slightly more; no point is deeper
            # than the translation that separates the shapes
            depth = min(depth, -d)
            wk.pts[kept, 0] = clipped[i, 0] + 0.5 * depth * mx
            wk.pts[kept, 1] = clipped[i, 1] + 0.5 * depth * my
            wk.pts[kept, 2] = clipped[i, 2] + 0.5 * depth * mz
            wk.pts[kept, 3] = depth
            if not _seen(wk.pts, kept, 1e-9 * span):
                kept += 1
        if kept > 0:
            return _reduce(wk.pts, kept, mout, row)
    return _one_point(out, d, mout, row)


@numba.njit(cache=True, inline="always")
def _one_point(out, d, mout, row):
    """The one contact point midway between the deepest points of a query, as mout[row]."""
    for c in range(3):
        mout[row, c] = 0.5 * (out[c] + out[3 + c])
    mout[row, 3] = -d
    return 1


@numba.njit(cache=True)
def manifolds(sh, shape, pos, rot, pairs, wk, points, first, normal):
    """`contact` of many placed pairs: pair k is object pairs[k, 0] against pairs[k, 1],
    object o being shape[o] at (pos[o], rot[o]). Pair k's points are the rows
    first[k]:first[k + 1] of points (which needs room for four per pair), its normal from
    the first object toward the second normal[k]. Returns the number of points.

    The loop body is `contact`'s, written out: handing the `Shapes` and `Work` tuples to
    a function per pair (inlined or not) cost more than the closed forms."""
    res = wk.out
    n = 0
    for k in range(pairs.shape[0]):
        first[k] = n
        i, j = pairs[k, 0], pairs[k, 1]
        A, B = shape_tuple(sh, shape[i]), shape_tuple(sh, shape[j])
        if closed_form(A, pos[i], rot[i], B, pos[j], rot[j], False, res):
            d = res[6]
        else:
            d = iterative(sh, shape[i], pos[i], rot[i], shape[j], pos[j], rot[j], 0.0, 0.0, 0.0,
                          wk)
        if d < 0.0:
            if A[0] == SPHERE or B[0] == SPHERE:
                n += _one_point(res, d, points, n)
            else:
                n += _clipped(sh, shape[i], pos[i], rot[i], shape[j], pos[j], rot[j], d, wk,
                              points, n)
            for c in range(3):
                normal[k, c] = res[7 + c]
    first[pairs.shape[0]] = n
    return n
