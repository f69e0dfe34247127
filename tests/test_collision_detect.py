"""One frame of collision detection in one kernel call (collision/detect.py) gives the
pairs brute force gives and, bit for bit, the pairs and manifolds of the steps called one
by one from Python, through a bounce run whose hash starts too small (its tables grow
mid-update) and loses and regains objects."""
import numpy as np

from benchmarks.collision_bounce import Bounce
from pipeline.collision.detect import contacts
from pipeline.collision.hashing import HierarchicalHash
from pipeline.collision.manifold import manifolds
from pipeline.collision.sweep import brute_force


def test_one_call_frame_equals_the_steps_and_brute_force():
    n = 200
    b = Bounce(n, 12.0, seed=3, speed=2.0)
    grids = [HierarchicalHash(0.25, HierarchicalHash.levels_for(0.25, 2.0 * np.sqrt(3)),
                              capacity=4) for _ in range(2)]
    lo, hi = b.bounds()
    for grid in grids:
        for o in range(n):
            grid.add(o, lo[o], hi[o])
    box = np.zeros((n, 6))
    touching = 0
    for step in range(80):
        if step == 20:
            for grid in grids:
                for o in range(0, n, 5):
                    grid.remove(o)
        if step == 50:
            lo, hi = b.bounds()
            for grid in grids:
                for o in range(0, n, 5):
                    grid.add(o, lo[o], hi[o])
        pairs, points, first, normal = contacts(grids[0], b.shapes, b.shape, b.pos, b.rot,
                                                b.work, box)
        lo, hi = b.bounds()
        np.testing.assert_array_equal(box, np.concatenate([lo, hi], axis=1))
        ref = grids[1].update_pairs(lo, hi)
        np.testing.assert_array_equal(pairs, ref)
        alive = grids[1].alive[:n].astype(bool)
        keep = np.nonzero(alive)[0]
        brute = brute_force(lo[keep], hi[keep], np.zeros(len(keep), bool))
        assert sorted(map(tuple, pairs.tolist())) == sorted(
            (int(keep[i]), int(keep[j])) for i, j in brute)
        ref_points, ref_first = np.empty((4 * len(ref), 4)), np.empty(len(ref) + 1, np.int64)
        ref_normal = np.zeros((len(ref), 3))
        m = manifolds(b.shapes, b.shape, b.pos, b.rot, ref, b.work, ref_points, ref_first,
                      ref_normal)
        np.testing.assert_array_equal(points, ref_points[:m])
        np.testing.assert_array_equal(first, ref_first)
        np.testing.assert_array_equal(normal, ref_normal)
        touching += m > 0
        b.narrow(pairs)
        b.move(0.01)
    assert touching > 40  # the run has contacts to compare
