"""Collision geometry: every shape's support function against its surface sampled densely,
world bounds, and hulls (faces merged, degenerate point sets refused)."""
import numpy as np
import pytest

from pipeline.collision.hull import DegenerateHull, convex_hull
from pipeline.collision.shapes import pack, pose_tuple, shape_tuple, support, world_aabb
from tests.test_collision_narrow import random_rotations

SHAPES = [("box", (0.3, 0.5, 0.2), None), ("sphere", (0.4,), None), ("capsule", (0.2, 0.6), None),
          ("cylinder", (0.4, 0.7), None), ("ellipsoid", (0.3, 0.6, 0.9), None),
          ("frustum", (0.5, 0.0, 1.2), None), ("frustum", (0.2, 0.6, 0.5), None),
          ("hull", None, np.random.default_rng(0).normal(size=(30, 3)))]


def surface_samples(name, prm, points, n=200_000, seed=0):
    """Points on (or, for hulls, the vertices of) each shape, sampled independently of
    the support functions."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    t = rng.uniform(0, 2 * np.pi, n)
    z = rng.uniform(-1, 1, n)
    if name == "box":  # faces, edges and corners (each coordinate at its extreme 70%)
        inside = np.where(rng.random((n, 3)) < 0.7, 1.0, rng.random((n, 3)))
        return rng.choice([-1.0, 1.0], (n, 3)) * np.array(prm) * inside
    if name == "sphere":
        return prm[0] * u
    if name == "capsule":
        r, h = prm
        end = np.sign(u[:, 2]) * h * np.where(rng.random(n) < 0.5, 1, rng.random(n))
        return u * r + np.stack([0 * t, 0 * t, end], 1)
    if name == "cylinder":
        r, h = prm
        rim = np.where(rng.random(n) < 0.5, np.sign(z), z)
        return np.stack([r * np.cos(t), r * np.sin(t), h * rim], 1)
    if name == "ellipsoid":
        return u * np.array(prm)
    if name == "frustum":
        r0, r1, length = prm
        s = rng.random(n)
        r = r0 + (r1 - r0) * s
        return np.stack([r * np.cos(t), r * np.sin(t), length * s], 1)
    return points


@pytest.mark.parametrize("index", range(len(SHAPES)), ids=[s[0] for s in SHAPES])
def test_support_is_the_farthest_point(index):
    name, prm, points = SHAPES[index]
    sh = pack([SHAPES[index]])
    samples = surface_samples(name, prm, points)
    rng = np.random.default_rng(1)
    for d in rng.normal(size=(200, 3)):
        s = np.array(support(sh.verts, shape_tuple(sh, 0), pose_tuple(np.zeros(3), np.eye(3)), *d, True))
        # no sampled point lies farther along d, and the support point is not beyond the
        # farthest sample by more than the sampling's resolution
        best = (samples @ d).max()
        assert s @ d >= best - 1e-12
        assert s @ d <= best + 2e-3 * np.linalg.norm(d)


def test_world_bounds_hold_every_support_point():
    sh = pack(SHAPES)
    rng = np.random.default_rng(2)
    out = np.zeros((1, 6))
    for s in range(len(SHAPES)):
        rot = random_rotations(rng, 1)[0]
        pos = rng.normal(size=3)
        world_aabb(sh, s, pos, rot, out, 0)
        name, prm, points = SHAPES[s]
        pts = surface_samples(name, prm, points, 20_000) @ rot.T + pos
        assert np.all(pts >= out[0, :3] - 1e-12) and np.all(pts <= out[0, 3:] + 1e-12)
        # tight: every face of the box is touched by the shape (to the sampling)
        assert np.all(np.abs(pts.min(0) - out[0, :3]) < 0.05)
        assert np.all(np.abs(pts.max(0) - out[0, 3:]) < 0.05)


def test_world_bounds_are_the_support_values_along_the_axes():
    """The closed-form bounds of the analytic shapes equal the support function's."""
    sh = pack(SHAPES)
    rng = np.random.default_rng(5)
    out = np.zeros((1, 6))
    for s in range(len(SHAPES)):
        for rot in random_rotations(rng, 20):
            pos = rng.normal(size=3)
            world_aabb(sh, s, pos, rot, out, 0)
            shp, pose = shape_tuple(sh, s), pose_tuple(pos, rot)
            for k, e in enumerate(np.eye(3)):
                hi = support(sh.verts, shp, pose, *e, True)[k]
                lo = support(sh.verts, shp, pose, *-e, True)[k]
                assert out[0, 3 + k] == pytest.approx(hi, abs=1e-12)
                assert out[0, k] == pytest.approx(lo, abs=1e-12)


def test_hull_merges_coplanar_triangles_into_faces():
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    inner = np.random.default_rng(0).uniform(-0.9, 0.9, (50, 3))  # not on the hull
    v, n, d, loops = convex_hull(np.vstack([cube, inner]))
    assert len(v) == 8 and len(n) == 6
    assert all(len(loop) == 4 for loop in loops)
    np.testing.assert_allclose(d, 1.0)
    for normal, loop in zip(n, loops):  # counter-clockwise about the outward normal
        p = v[loop]
        area = sum(np.cross(p[i], p[(i + 1) % 4]) for i in range(4)) / 2
        assert area @ normal == pytest.approx(4.0)


@pytest.mark.parametrize("points, why", [
    (np.zeros((0, 3)), "no vertices"),
    (np.random.default_rng(0).normal(size=(20, 3)) * [1, 1, 0], "flat"),
    (np.outer(np.linspace(0, 1, 10), [1, 2, 3]), "flat"),
    (np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float), "flat"),
    (np.array([[0, 0, np.nan], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float), "not finite"),
])
def test_degenerate_hulls_are_refused(points, why):
    with pytest.raises(DegenerateHull, match=why):
        convex_hull(points)
