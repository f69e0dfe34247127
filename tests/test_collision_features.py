"""Digest test 7 (seed-003-fontijne.md §6.1): closest-feature tracking. Two hulls of n
random unit vectors (Fontijne's V-Clip benchmark shapes) move by small steps, by nothing,
and by large jumps; at every step the kept feature pair is measured alone and checked.
A pair the tracker keeps has coal's distance of the whole hulls (to 1e-9); a pair that is
no longer closest is always dropped; under small motion most steps keep their pair."""
import numpy as np
import pytest

from benchmarks.collision_peers import coal_shape, coal_transform
from pipeline.collision.features import exposed, feature_distance, still_closest
from pipeline.collision.narrow import make_work, query
from pipeline.collision.shapes import pack
from pipeline.physics.spatial import quat_matrix


def _turn(rng, angle):
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    w, (x, y, z) = np.cos(angle / 2), np.sin(angle / 2) * axis
    return np.array(quat_matrix(w, x, y, z)).reshape(3, 3)


class Tracker:
    """The two hulls' kept features, acquired from a full query when dropped."""

    def __init__(self, shapes):
        self.sh, self.wk = shapes, make_work()
        self.fa, self.fb = np.zeros(64, np.int64), np.zeros(64, np.int64)
        self.buf, self.out = np.zeros((128, 3)), np.zeros(10)
        self.na = self.nb = 0

    def acquire(self, pa, ra, pb, rb):
        sh, wk = self.sh, self.wk
        d = query(sh, 0, pa, ra, 1, pb, rb, 0.0, 0.0, 0.0, wk)
        nx, ny, nz = wk.out[7:10]
        self.na = exposed(sh.verts, sh.vstart[0], sh.vcount[0], pa, ra, nx, ny, nz, self.fa)
        self.nb = exposed(sh.verts, sh.vstart[1], sh.vcount[1], pb, rb, -nx, -ny, -nz, self.fb)
        return d

    def track(self, pa, ra, pb, rb):
        """(distance of the kept features, whether they are still the closest)."""
        sh, wk = self.sh, self.wk
        d = feature_distance(sh.verts, self.fa, self.na, pa, ra, self.fb, self.nb, pb, rb,
                             self.buf, wk.W, wk.SA, wk.SB, wk.lam, self.out)
        return d, still_closest(sh.verts, sh.vstart[0], sh.vcount[0], pa, ra, sh.vstart[1],
                                sh.vcount[1], pb, rb, self.out)


@pytest.mark.parametrize("n", [12, 100, 1000])
def test_kept_features_give_the_distance_and_are_dropped_when_not_closest(n):
    import coal

    rng = np.random.default_rng(n)
    pts = [rng.normal(size=(n, 3)) for _ in range(2)]
    shapes = pack([("hull", None, p / np.linalg.norm(p, axis=1, keepdims=True)) for p in pts])
    geoms = [coal_shape(shapes, s) for s in range(2)]
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12

    def reference(pa, ra, pb, rb):
        return coal.distance(geoms[0][0], coal_transform(pa, ra, geoms[0][1]), geoms[1][0],
                             coal_transform(pb, rb, geoms[1][1]), req, coal.DistanceResult())

    tracker = Tracker(shapes)
    kept = {}
    for step in (0.0, 0.01, 5.0):
        pa, ra = np.zeros(3), _turn(rng, 1.0)
        pb, rb = np.array([2.6, 0.0, 0.0]), _turn(rng, 2.0)
        tracker.acquire(pa, ra, pb, rb)
        kept[step] = 0
        for _ in range(150):
            ra, rb = _turn(rng, step) @ ra, _turn(rng, step) @ rb
            u = rng.normal(size=3)
            pb = pb + step * u / np.linalg.norm(u)
            pb *= 2.6 / np.linalg.norm(pb)  # the centres stay 2.6 apart: the hulls never meet
            d, valid = tracker.track(pa, ra, pb, rb)
            ref = reference(pa, ra, pb, rb)
            if valid:
                kept[step] += 1
                assert abs(d - ref) <= 1e-9 * ref + 1e-10
            else:
                fresh = tracker.acquire(pa, ra, pb, rb)
                assert abs(fresh - ref) <= 1e-9 * ref + 1e-10
                d2, valid2 = tracker.track(pa, ra, pb, rb)  # features just acquired hold
                assert valid2 and abs(d2 - ref) <= 1e-9 * ref + 1e-10
            # a pair farther apart than the hulls is never kept
            assert not (valid and d > ref * (1 + 1e-8) + 1e-10)
    assert kept[0.0] == 150  # no motion: the features stay
    assert kept[0.01] >= 0.8 * 150, kept  # small motion: most steps keep them
    assert kept[5.0] <= 0.5 * 150, kept  # large jumps: most steps drop them
