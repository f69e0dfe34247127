"""Triangle-grid terrain: exact facet heights and normals, contact on a facet, the height
sources (inline, .npy, .csv, PNG, generators) and their errors (digest B5)."""
import math

import numpy as np
import pytest

from pipeline.compiler.terrain import build_grid
from pipeline.errors import CorpusError
from pipeline.physics.contact.surface import grid_surface

from contact_helpers import contact_setup, evaluate, params


def reference_plane(h, x0, y0, dx, dy, x, y):
    """Height and normal from the three vertices of the containing triangle (independent)."""
    i, j = int((x - x0) // dx), int((y - y0) // dy)
    fu, fv = (x - x0) / dx - i, (y - y0) / dy - j
    corners = [(i, j), (i + 1, j), (i, j + 1)] if fu + fv <= 1 else [(i + 1, j + 1), (i, j + 1), (i + 1, j)]
    P = np.array([[x0 + a * dx, y0 + b * dy, h[b, a]] for a, b in corners])
    n = np.cross(P[1] - P[0], P[2] - P[0])
    n *= np.sign(n[2]) / np.linalg.norm(n)
    z = P[0, 2] - (n[0] * (x - P[0, 0]) + n[1] * (y - P[0, 1])) / n[2]
    return z, n


def test_b5_grid_height_is_the_triangle_plane():
    rng = np.random.default_rng(7)
    h = rng.uniform(-0.05, 0.05, (5, 7))
    x0, y0, dx, dy = -0.3, -0.2, 0.1, 0.1
    worst_z = worst_n = 0.0
    for x, y in rng.uniform([x0, y0], [x0 + 6 * dx, y0 + 4 * dy], (2000, 2)):
        z, nx, ny, nz = grid_surface(h, x0, y0, dx, dy, x, y)
        zr, nr = reference_plane(h, x0, y0, dx, dy, x, y)
        worst_z = max(worst_z, abs(z - zr))
        worst_n = max(worst_n, np.abs(np.array([nx, ny, nz]) - nr).max())
    assert worst_z < 1e-12
    assert worst_n < 1e-12
    # at the samples the surface passes through the given heights
    assert grid_surface(h, x0, y0, dx, dy, x0 + 3 * dx, y0 + 2 * dy)[0] == pytest.approx(h[2, 3], abs=1e-15)
    # outside the grid the edge height continues, level
    assert grid_surface(h, x0, y0, dx, dy, x0 - 1.0, y0)[0] == h[0, 0]
    assert grid_surface(h, x0, y0, dx, dy, x0 - 1.0, y0)[1:] == (0.0, 0.0, 1.0)


def test_b5_contact_on_a_slope_facet_uses_its_normal_and_plane():
    angle = math.radians(30)
    geom, h = build_grid({"type": "grid", "spacing": 0.1,
                          "generate": {"size": [1.0, 1.0], "slope": {"angle": angle}}})
    arrays, cs = contact_setup(params({"friction": 0.7, "friction_model": "coulomb"}), [0.0],
                               ([0], [np.zeros(3)], [0.0]), grid=(geom, h))
    x, y, depth = 0.123, -0.041, 2e-5
    n = np.array([-math.sin(angle), 0.0, math.cos(angle)])
    p = np.array([x, y, math.tan(angle) * x]) - depth * n
    v = np.array([[0, 0, 0, 0.01, 0.02, 0.0]])  # sliding along the slope (v is not in the plane)
    fext, _ = evaluate(arrays, cs, [p], [np.eye(3)], v)
    f = fext[0, 3:]
    fn = 17.5 * math.expm1(3000 * depth) * (0.5 if v[0, 3:] @ n > 0 else 1.0)
    assert f @ n == pytest.approx(fn, rel=1e-9)
    ft = f - (f @ n) * n
    vt = v[0, 3:] - (v[0, 3:] @ n) * n
    assert np.linalg.norm(ft) == pytest.approx(0.7 * fn, rel=1e-9)
    assert np.allclose(ft / np.linalg.norm(ft), -vt / np.linalg.norm(vt), atol=1e-12)


def test_generated_terrains():
    geom, h = build_grid({"type": "grid", "spacing": 0.05,
                          "generate": {"size": [1.0, 0.5], "slope": {"angle": 0.2, "direction": math.pi / 2}}})
    assert h.shape == (11, 21)
    assert geom[:2] == pytest.approx([-0.5, -0.25])
    y = geom[1] + 0.05 * np.arange(11)
    assert np.allclose(h, math.tan(0.2) * y[:, None], atol=1e-15)

    _, steps = build_grid({"type": "grid", "spacing": 0.01, "origin": [0, 0],
                           "generate": {"size": [0.5, 0.1], "steps": {"rise": 0.02, "run": 0.1,
                                                                       "start": 0.1, "count": 3}}})
    assert steps[0, 5] == 0.0 and steps[0, 15] == pytest.approx(0.02) and steps[0, 45] == pytest.approx(0.06)

    spec = {"type": "grid", "spacing": 0.02,
            "generate": {"size": 1.0, "noise": {"amplitude": 0.03, "wavelength": 0.2, "seed": 4}}}
    a, b = build_grid(spec)[1], build_grid(spec)[1]
    assert np.array_equal(a, b)  # seeded: the same terrain every time
    assert np.abs(a).max() <= 0.03 and a.std() > 0.003
    spec["generate"]["noise"]["seed"] = 5
    assert not np.array_equal(a, build_grid(spec)[1])

    _, stones = build_grid({"type": "grid", "spacing": 0.01,
                            "generate": {"size": 0.6, "stepping_stones": {"size": 0.1, "gap": 0.05,
                                                                          "depth": 0.04}}})
    assert set(np.unique(stones)) == {-0.04, 0.0}


def test_height_files(tmp_path):
    h = np.arange(12.0).reshape(3, 4) / 100
    np.save(tmp_path / "t.npy", h)
    np.savetxt(tmp_path / "t.csv", h, delimiter=",")
    for name in ("t.npy", "t.csv"):
        geom, got = build_grid({"type": "grid", "file": str(tmp_path / name), "spacing": [0.1, 0.2]})
        assert np.allclose(got, h, atol=1e-15)
        assert geom.tolist() == pytest.approx([-0.15, -0.2, 0.1, 0.2])
    import imageio.v3 as iio
    img = np.array([[255, 0], [0, 51]], np.uint8)  # top row = far (+y) edge
    iio.imwrite(tmp_path / "t.png", img)
    _, got = build_grid({"type": "grid", "file": "t.png", "base_dir": str(tmp_path), "spacing": 1,
                         "height_scale": 0.5})
    assert np.allclose(got, [[0.0, 0.1], [0.5, 0.0]], atol=1e-15)


@pytest.mark.parametrize("ground, message", [
    ({"type": "grid", "spacing": 0.1}, "exactly one of"),
    ({"type": "grid", "heights": [[0, 1], [0]]}, "same length"),
    ({"type": "grid", "heights": [[0, 1, 2]], "spacing": 0.1}, "at least 2x2"),
    ({"type": "grid", "file": "/nonexistent/h.npy"}, "not found"),
    ({"type": "grid", "heights": [[0, 1], [0, 1]], "spacing": -1}, "positive"),
])
def test_grid_errors_are_corpus_errors(ground, message):
    with pytest.raises(CorpusError, match=message):
        build_grid(ground)


def test_sphere_on_terrain_touches_the_nearest_facet_edge_or_vertex():
    from pipeline.physics.contact.surface import closest_on_triangle, grid_sphere

    # closest points: inside the face, on an edge, at a vertex
    tri = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
    assert closest_on_triangle(0.2, 0.3, 0.5, *tri) == pytest.approx((0.2, 0.3, 0.0), abs=1e-15)
    assert closest_on_triangle(0.8, 0.8, 0.1, *tri) == pytest.approx((0.5, 0.5, 0.0))
    assert closest_on_triangle(-1.0, -2.0, 0.3, *tri) == (0.0, 0.0, 0.0)
    # a ridge along y at x = 0 (heights 0, 0.1, 0 along x): a sphere above it touches the
    # ridge line, pushed straight up, not along either facet's normal
    h = np.array([[0.0, 0.1, 0.0], [0.0, 0.1, 0.0]])
    r, sink = 0.05, 1e-4
    depth, nx, ny, nz = grid_sphere(h, -1.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.1 + r - sink, r)
    assert depth == pytest.approx(sink, rel=1e-9)
    assert (nx, ny, nz) == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)
    # on a face it is the facet plane: depth r - distance to the plane, along its normal
    n = np.array([-0.1, 0.0, 1.0]) / math.hypot(0.1, 1.0)  # the facet rising from x = -1 to 0
    c = np.array([-0.5, 0.5, 0.05]) + (r - sink) * n
    depth, nx, ny, nz = grid_sphere(h, -1.0, 0.0, 1.0, 1.0, *c, r)
    assert depth == pytest.approx(sink, rel=1e-9)
    assert np.allclose((nx, ny, nz), n, atol=1e-12)
    # the kernel uses it: a sphere body resting on the ridge is pushed straight up
    arrays, cs = contact_setup(params({"friction_model": "coulomb"}), [0.0], ([0], [np.zeros(3)], [r]),
                               grid=(np.array([-1.0, 0.0, 1.0, 1.0]), h))
    fext, _ = evaluate(arrays, cs, [[0.0, 0.5, 0.1 + r - sink]], [np.eye(3)], np.zeros((1, 6)))
    assert np.allclose(fext[0, 3:], [0, 0, 17.5 * math.expm1(3000 * sink)], rtol=1e-9, atol=1e-15)
