"""Closest-feature tracking between two convex hulls (Fontijne's V-Clip extension 3, digest
../shared/research/seed-003-fontijne.md §2.3): a query's closest features are kept, and
after the bodies move the distance of those features alone is measured and checked to
still be the bodies' distance.

A feature is the face, edge or vertex of a hull that faces the other body: its vertices
within a relative tolerance of the hull's support value along the normal (the hull's face
exposed by the normal). The closest points lie in these exposed features, so the distance
between the two features equals the bodies' distance.

After a motion, GJK on the two features alone (a few vertices) gives their closest points
x, y and v = y - x. They are the bodies' closest points exactly when the planes through x
and y normal to v bound the hulls (every vertex of A at most x.v along v, every vertex of
B at least y.v): then no pair is nearer than |v|. That check replaces V-Clip's Voronoi
region tests; it reads every vertex once (V-Clip reads a feature's neighbours), but it
cannot be fooled by rounding into keeping a pair that is no longer closest.
"""
import numba
import numpy as np

from pipeline.collision.gjk import REL_TOL, gjk
from pipeline.collision.shapes import HULL

# vertices this close (relative to the hull's size) to the support value are in the
# exposed feature; and the bounding-plane check allows this much
FEATURE_TOL = 1e-9
IDENTITY = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


@numba.njit(cache=True, inline="always")
def _world(verts, i, pos, rot):
    x, y, z = verts[i, 0], verts[i, 1], verts[i, 2]
    return (pos[0] + rot[0, 0] * x + rot[0, 1] * y + rot[0, 2] * z,
            pos[1] + rot[1, 0] * x + rot[1, 1] * y + rot[1, 2] * z,
            pos[2] + rot[2, 0] * x + rot[2, 1] * y + rot[2, 2] * z)


@numba.njit(cache=True)
def exposed(verts, v0, nv, pos, rot, nx, ny, nz, feature):
    """Indices (into verts) of the vertices of hull verts[v0:v0+nv] placed at (pos, rot)
    that are farthest along world direction n, within FEATURE_TOL of the hull's size, into
    feature; returns their count."""
    best, lo, hi = -np.inf, np.inf, -np.inf
    for i in range(v0, v0 + nv):
        x, y, z = _world(verts, i, pos, rot)
        s = x * nx + y * ny + z * nz
        best, lo, hi = max(best, s), min(lo, s), max(hi, s)
    tol = FEATURE_TOL * max(hi - lo, 1e-300)
    m = 0
    for i in range(v0, v0 + nv):
        x, y, z = _world(verts, i, pos, rot)
        if x * nx + y * ny + z * nz >= best - tol and m < feature.shape[0]:
            feature[m] = i
            m += 1
    return m


@numba.njit(cache=True)
def feature_distance(verts, fa, na, pa, ra, fb, nb, pb, rb, buf, W, SA, SB, lam, out):
    """Distance between the features fa[:na] of hull A at (pa, ra) and fb[:nb] of B at
    (pb, rb) (vertex indices): GJK on their world vertices (buf: room for na + nb rows).
    out[0:6] receives the closest points; returns the distance."""
    for k in range(na):
        buf[k, 0], buf[k, 1], buf[k, 2] = _world(verts, fa[k], pa, ra)
    for k in range(nb):
        buf[na + k, 0], buf[na + k, 1], buf[na + k, 2] = _world(verts, fb[k], pb, rb)
    A = (HULL, 0.0, 0.0, 0.0, 0.0, 0, na)
    B = (HULL, 0.0, 0.0, 0.0, 0.0, na, nb)
    gjk(buf, A, IDENTITY, B, IDENTITY, 0.0, 0.0, 0.0, REL_TOL, W, SA, SB, lam, out)
    return out[6]


@numba.njit(cache=True)
def still_closest(verts, av0, anv, pa, ra, bv0, bnv, pb, rb, out):
    """True when the closest points out[0:3] (on A) and out[3:6] (on B) of a feature pair
    are the closest points of the whole hulls: the planes through them normal to their
    difference bound A and B."""
    vx, vy, vz = out[3] - out[0], out[4] - out[1], out[5] - out[2]
    size = 0.0
    ax = vx * out[0] + vy * out[1] + vz * out[2]
    by = vx * out[3] + vy * out[4] + vz * out[5]
    top, bottom = -np.inf, np.inf
    for i in range(av0, av0 + anv):
        x, y, z = _world(verts, i, pa, ra)
        top = max(top, x * vx + y * vy + z * vz)
        size = max(size, abs(x - out[0]) + abs(y - out[1]) + abs(z - out[2]))
    for i in range(bv0, bv0 + bnv):
        x, y, z = _world(verts, i, pb, rb)
        bottom = min(bottom, x * vx + y * vy + z * vz)
        size = max(size, abs(x - out[3]) + abs(y - out[4]) + abs(z - out[5]))
    tol = FEATURE_TOL * size * np.sqrt(vx * vx + vy * vy + vz * vz)
    return top <= ax + tol and bottom >= by - tol
