"""Contact manifolds: face contacts give up to four points with their own depths, edges
two, corners and round surfaces one; points lie between the surfaces."""
import numpy as np
import pytest

from pipeline.collision.manifold import contact
from pipeline.collision.narrow import make_work
from pipeline.collision.shapes import pack

SHAPES = pack([("box", (1, 1, 1), None), ("box", (0.5, 0.5, 0.5), None),
               ("cylinder", (0.5, 1.0), None), ("capsule", (0.3, 1.0), None),
               ("frustum", (0.5, 0.0, 1.0), None), ("sphere", (0.5,), None),
               ("hull", None, [[x, y, z] for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)])])
BIG, SMALL, CYLINDER, CAPSULE, CONE, SPHERE, CUBE_HULL = range(7)


def rot(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def manifold(a, pa, b, pb, ra=np.eye(3), rb=np.eye(3)):
    m = np.zeros((4, 4))
    wk = make_work()
    k = contact(SHAPES, a, np.array(pa, float), ra, b, np.array(pb, float), rb, 0.0, 0.0, 0.0, wk, m)
    return m[:k], wk.out[7:10].copy()


@pytest.mark.parametrize("small", [SMALL, CUBE_HULL])
def test_box_resting_on_a_box_touches_at_four_corners(small):
    pts, n = manifold(BIG, [0, 0, 0], small, [0.2, 0.1, 1.49])
    np.testing.assert_allclose(n, [0, 0, 1], atol=1e-12)
    assert len(pts) == 4
    np.testing.assert_allclose(pts[:, 3], 0.01, rtol=1e-9)
    np.testing.assert_allclose(sorted(map(tuple, pts[:, :2].round(12))),
                               [(-0.3, -0.4), (-0.3, 0.6), (0.7, -0.4), (0.7, 0.6)])
    np.testing.assert_allclose(pts[:, 2], 0.995)  # midway between the surfaces


def test_overhanging_box_is_clipped_to_the_reference_face():
    pts, _ = manifold(BIG, [0, 0, 0], SMALL, [1.2, 0.0, 1.49])
    assert len(pts) == 4
    assert pts[:, 0].max() == pytest.approx(1.0) and pts[:, 0].min() == pytest.approx(0.7)


def test_tilted_box_on_an_edge_gives_two_points_and_on_a_corner_one():
    pts, _ = manifold(BIG, [0, 0, 0], SMALL, [0, 0, 1 + 0.5 * np.sqrt(2) - 0.01], rb=rot(0, np.pi / 4))
    assert len(pts) == 2
    np.testing.assert_allclose(pts[:, 3], 0.01, rtol=1e-9)
    np.testing.assert_allclose(sorted(pts[:, 0]), [-0.5, 0.5])
    tilt = rot(0, np.pi / 4) @ rot(1, np.arctan(1 / np.sqrt(2)))  # a corner straight down
    low = (tilt @ np.array([[x, y, z] for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)]).T)[2].min()
    pts, n = manifold(BIG, [0, 0, 0], SMALL, [0.1, 0.2, 1 - low - 0.01], rb=tilt)
    assert len(pts) == 1 and pts[0, 3] == pytest.approx(0.01, rel=1e-9)


def test_round_shapes_offer_their_flat_features():
    standing, _ = manifold(BIG, [0, 0, 0], CYLINDER, [0.2, 0.1, 1.99])
    assert len(standing) == 4 and np.allclose(standing[:, 3], 0.01)
    lying, _ = manifold(BIG, [0, 0, 0], CYLINDER, [0.2, 0.1, 1.49], rb=rot(0, np.pi / 2))
    assert len(lying) == 2 and np.allclose(lying[:, 3], 0.01)
    np.testing.assert_allclose(sorted(lying[:, 1]), [-0.9, 1.0])  # clipped at the box's edge
    base, _ = manifold(BIG, [0, 0, 0], CONE, [0.2, 0.1, 0.99])
    assert len(base) == 4
    apex, _ = manifold(BIG, [0, 0, 0], CONE, [0.2, 0.1, 1.99], rb=rot(0, np.pi))
    assert len(apex) == 1 and apex[0, 3] == pytest.approx(0.01)


def test_capsules_side_by_side_touch_along_a_line_crossed_at_a_point():
    side, n = manifold(CAPSULE, [0, 0, 0], CAPSULE, [0, 0.59, 0.3])
    assert len(side) == 2 and np.allclose(side[:, 3], 0.01)
    np.testing.assert_allclose(n, [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(sorted(side[:, 2]), [-0.7, 1.0])
    crossed, n = manifold(CAPSULE, [0, 0, 0], CAPSULE, [0, 0.59, 0], rb=rot(1, np.pi / 2))
    assert len(crossed) == 1 and crossed[0, 3] == pytest.approx(0.01)


def test_sphere_on_a_box_is_one_exact_point():
    pts, n = manifold(BIG, [0, 0, 0], SPHERE, [0.3, -0.2, 1.4])
    assert len(pts) == 1
    np.testing.assert_allclose(pts[0], [0.3, -0.2, 0.95, 0.1], atol=1e-12)


def test_apart_shapes_have_no_contact():
    pts, _ = manifold(BIG, [0, 0, 0], SMALL, [0.0, 0.0, 1.5 + 1e-9])
    assert len(pts) == 0


def test_random_manifolds_lie_between_the_surfaces():
    """Every point's depth is at most the pair's penetration depth and the points of a
    box pair lie inside both boxes grown by that depth."""
    rng = np.random.default_rng(5)
    wk = make_work()
    m = np.zeros((4, 4))
    counts = np.zeros(5, int)
    for _ in range(3000):
        R = [rot(0, a) @ rot(1, b) @ rot(2, c) for a, b, c in rng.uniform(0, 2 * np.pi, (2, 3))]
        if rng.random() < 0.3:
            R[1] = R[0].copy()
        pb = rng.normal(size=3) * 0.8 + [0, 0, 1.2]
        k = contact(SHAPES, BIG, np.zeros(3), R[0], SMALL, pb, R[1], 0.0, 0.0, 0.0, wk, m)
        counts[k] += 1
        if k == 0:
            continue
        depth = -wk.out[6]
        assert np.all(m[:k, 3] > 0) and np.all(m[:k, 3] <= depth * (1 + 1e-9) + 1e-12)
        for h, Rm, p in ((1.0, R[0], np.zeros(3)), (0.5, R[1], pb)):
            local = (m[:k, :3] - p) @ Rm
            assert np.all(np.abs(local) <= h + depth + 1e-9)
    assert counts[1] > 100 and counts[2] > 20 and counts[4] > 20
