"""One frame of collision detection over many objects in one kernel call: their bounds,
the hierarchical hash's update and pairs, and the contact manifolds of those pairs.

Called one by one from Python, those steps cost a quarter of a 1000-object bounce frame
beyond their work: each call unpacks its tuples of arrays (the shapes, the hash's state,
the work arrays) and numpy copied the strided columns of the bounds for the hash.
"""
from __future__ import annotations

import numba
import numpy as np

from pipeline.collision.hashing import update_pairs
from pipeline.collision.manifold import manifolds
from pipeline.collision.shapes import world_boxes


@numba.njit(cache=True)
def frame(sh, shape, pos, rot, st, alive, box, wk):
    """Object o is shape[o] at (pos[o], rot[o]); box (n, 6) receives the bounds. Returns
    (resume, pairs, points, first, normal) as `manifolds` leaves them, or resume >= 0 and
    no pairs when a table of the hash must grow first (hashing.update_pairs)."""
    world_boxes(sh, shape, pos, rot, box)
    resume, pairs = update_pairs(st, box[:, :3], box[:, 3:], alive)
    n = pairs.shape[0]
    points, first, normal = np.empty((4 * n, 4)), np.empty(n + 1, np.int64), np.zeros((n, 3))
    m = manifolds(sh, shape, pos, rot, pairs, wk, points, first, normal)
    return resume, pairs, points[:m], first, normal


def contacts(grid, shapes, shape, pos, rot, work, box):
    """`frame` for the objects of HierarchicalHash `grid`: (pairs, points, first,
    normal). An update stopped for room resumes from the start: the objects it had
    moved are at their boxes already, which costs them a comparison."""
    while True:
        resume, pairs, points, first, normal = frame(shapes, shape, pos, rot, grid.state,
                                                     grid.alive, box, work)
        if resume < 0:
            return pairs, points, first, normal
        grid.grow(resume)
