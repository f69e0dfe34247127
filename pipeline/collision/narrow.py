"""The narrow phase: signed distance, closest points and normal of two placed shapes.

GJK measures the cores (spheres and capsules without their radius, so their distances
are exact); when the cores are apart by more than the two margins the shapes are
separated, and when they are apart by less the margins overlap and the depth is exact
too. Only when the cores themselves meet (polytopes touching or overlapping, or a round
shape sunk deeper than its radius) does EPA run, on the cores, and the margins are
added to its depth: that is exact as well, and EPA on the polytope cores ends exactly,
where on a sphere it would only creep toward the depth.

Spheres against spheres, capsules and boxes, and box pairs, have closed forms
(analytic.py) that give the same answers without iterating; GJK and EPA take every other
pair and the closed forms' degenerate cases.

`Work` holds every scratch array one query needs; make one per thread with `make_work`.
"""
from typing import NamedTuple

import numba
import numpy as np

from pipeline.collision.analytic import CORE_TOL, closed_form
from pipeline.collision.epa import (MAX_EDGES, MAX_FACES, MAX_VERTS, POLYTOPE_TOL, ROUND_TOL,
                                   epa)
from pipeline.collision.gjk import MARGIN_TOL, OVERLAP, REL_TOL, gjk
from pipeline.collision.shapes import CYLINDER, ELLIPSOID, FRUSTUM, pose_tuple, shape_tuple
from pipeline.nrt import njit_no_refcounts

FEATURE_POINTS = 32  # room for a face loop (hulls) or a clipped polygon


class Work(NamedTuple):
    W: np.ndarray
    SA: np.ndarray
    SB: np.ndarray
    lam: np.ndarray
    V: np.ndarray
    VA: np.ndarray
    VB: np.ndarray
    F: np.ndarray
    P: np.ndarray
    live: np.ndarray
    E: np.ndarray
    fa: np.ndarray  # manifold.py: A's feature, B's feature, two clip buffers
    fb: np.ndarray
    c1: np.ndarray
    c2: np.ndarray
    pts: np.ndarray  # manifold points before reduction: (x, y, z, depth)
    out: np.ndarray  # (10,) result of `query`


@numba.njit(cache=True)
def make_work():
    """A fresh `Work` (callable from Python and from kernels)."""
    z, f = np.zeros, FEATURE_POINTS
    return Work(z((4, 3)), z((4, 3)), z((4, 3)), z(4), z((MAX_VERTS, 3)), z((MAX_VERTS, 3)),
                z((MAX_VERTS, 3)), np.zeros((MAX_FACES, 3), np.int64), z((MAX_FACES, 4)),
                np.zeros(MAX_FACES, np.bool_), np.zeros((MAX_EDGES, 2), np.int64), z((f, 3)),
                z((f, 3)), z((2 * f, 3)), z((2 * f, 3)), z((2 * f, 4)), z(10))


@numba.njit(cache=True, inline="always")
def _apart(out, pa, pb):
    """After GJK: True and the normal in out[7:10] when the closest points are far enough
    apart, relative to the shapes' size, to give a direction."""
    size = 0.0
    for c in range(3):
        size = max(size, abs(out[c] - pa[c]), abs(out[3 + c] - pb[c]))
    d = out[6]
    if not d > CORE_TOL * size:
        return False
    for c in range(3):
        out[7 + c] = (out[3 + c] - out[c]) / d
    return True


@numba.njit(cache=True)
def query(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk):
    """Signed distance of shape a at (pa, ra) to shape b at (pb, rb), world <- shape.

    Returns the signed distance (< 0: penetration depth) and leaves in wk.out: [0:3] the
    point of A nearest B (deepest in B when overlapping), [3:6] that of B, [6] the signed
    distance, [7:10] the unit normal from A toward B. (gx, gy, gz) guesses pA - pB."""
    return signed(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk, True)


@njit_no_refcounts
def signed(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk, exact_gap):
    """`query`; with exact_gap False, apart shapes may return any non-negative lower
    bound of their distance (and leave the rest of wk.out unset): all a contact needs."""
    out = wk.out
    if not closed_form(shape_tuple(sh, a), pa, ra, shape_tuple(sh, b), pb, rb, exact_gap, out):
        iterative(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk)
    return out[6]


@numba.njit(cache=True, inline="always")
def iterative(sh, a, pa, ra, b, pb, rb, gx, gy, gz, wk):
    """`query` by GJK and EPA (the pairs without a closed form)."""
    out = wk.out
    A, B = shape_tuple(sh, a), shape_tuple(sh, b)
    PA, PB = pose_tuple(pa, ra), pose_tuple(pb, rb)
    tol = MARGIN_TOL if A[4] > 0.0 or B[4] > 0.0 else REL_TOL
    status, n, _ = gjk(sh.verts, A, PA, B, PB, gx, gy, gz, tol, wk.W, wk.SA, wk.SB, wk.lam, out)
    if status != OVERLAP and _apart(out, pa, pb):
        sign = 1.0  # cores apart: the margins may still overlap
    else:
        round_ = (A[0] == CYLINDER or A[0] == ELLIPSOID or A[0] == FRUSTUM
                  or B[0] == CYLINDER or B[0] == ELLIPSOID or B[0] == FRUSTUM)
        epa(sh.verts, A, PA, B, PB, ROUND_TOL if round_ else POLYTOPE_TOL, wk.W, wk.SA, wk.SB,
            n, wk.V, wk.VA, wk.VB, wk.F, wk.P, wk.live, wk.E, out)
        sign = -1.0
    # grow the cores by the margins (A - B grows by a ball of radius ma + mb, so distance
    # and depth change by exactly that much)
    ma, mb = A[4], B[4]
    for c in range(3):
        out[c] += ma * out[7 + c]
        out[3 + c] -= mb * out[7 + c]
    out[6] = sign * abs(out[6]) - ma - mb
    return out[6]


@numba.njit(cache=True)
def query_many(sh, a, b, pos_a, rot_a, pos_b, rot_b, wk, out):
    """`query` for many placed pairs: row i is shape a[i] at (pos_a[i], rot_a[i]) against
    b[i] at (pos_b[i], rot_b[i]); out[i] = wk.out of that query (10 numbers).

    The loop body is `query`'s, written out: handing the `Shapes` and `Work` tuples to a
    function per pair (inlined or not) costs more than a closed form."""
    res = wk.out
    for i in range(a.shape[0]):
        if not closed_form(shape_tuple(sh, a[i]), pos_a[i], rot_a[i], shape_tuple(sh, b[i]),
                           pos_b[i], rot_b[i], True, res):
            iterative(sh, a[i], pos_a[i], rot_a[i], b[i], pos_b[i], rot_b[i], 0.0, 0.0, 0.0, wk)
        for c in range(10):
            out[i, c] = res[c]
