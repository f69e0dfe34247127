"""Digest test 6 (seed-003-fontijne.md §6.1): a non-convex body as a hierarchy of convex
hulls. A torus of eight capsules against boxes, spheres, capsules and hulls placed around
it, in its hole and through it: the distance equals coal's least distance over the eight
capsules whenever it is below the open-hull threshold, and is never more than it above."""
import numpy as np

from benchmarks.collision_peers import coal_shape, coal_transform
from pipeline.collision.hierarchy import build, container_points, tree_distance
from pipeline.collision.narrow import make_work
from pipeline.collision.shapes import pack
from pipeline.physics.spatial import quat_matrix

RING, TUBE = 1.0, 0.2  # the capsules' end points lie on a circle of radius RING
THRESHOLD = 0.1


def _frame_along(u):
    """A rotation whose z axis is unit u."""
    a = np.array([1.0, 0, 0]) if abs(u[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.cross(a, u)
    x /= np.linalg.norm(x)
    return np.stack([x, np.cross(u, x), u], axis=1)


def torus_parts():
    t = 2 * np.pi * np.arange(9) / 8
    ring = np.stack([RING * np.cos(t), RING * np.sin(t), np.zeros(9)], axis=1)
    parts = []
    for k in range(8):
        chord = ring[k + 1] - ring[k]
        half = np.linalg.norm(chord) / 2
        parts.append((("capsule", (TUBE, half), None), (ring[k] + ring[k + 1]) / 2,
                      _frame_along(chord / (2 * half))))
    return parts


def _rotations(rng, n):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.array([quat_matrix(*x) for x in q]).reshape(n, 3, 3)


def test_node_hulls_contain_round_shapes():
    """The polytopes standing in for round shapes contain them: every container's support
    along random directions reaches at least the shape's own."""
    rng = np.random.default_rng(1)
    d = rng.normal(size=(500, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    for entry, support in (
            (("sphere", (0.3,), None), lambda d: 0.3 * np.ones(len(d))),
            (("capsule", (0.3, 0.5), None), lambda d: 0.3 + 0.5 * np.abs(d[:, 2])),
            (("cylinder", (0.4, 0.6), None),
             lambda d: 0.4 * np.hypot(d[:, 0], d[:, 1]) + 0.6 * np.abs(d[:, 2])),
            (("ellipsoid", (0.2, 0.5, 0.9), None),
             lambda d: np.sqrt((0.2 * d[:, 0]) ** 2 + (0.5 * d[:, 1]) ** 2 + (0.9 * d[:, 2]) ** 2)),
            (("frustum", (0.5, 0.2, 0.7), None),
             lambda d: np.maximum(0.5 * np.hypot(d[:, 0], d[:, 1]),
                                  0.2 * np.hypot(d[:, 0], d[:, 1]) + 0.7 * d[:, 2]))):
        reach = (container_points(*entry) @ d.T).max(axis=0)
        assert np.all(reach >= support(d) - 1e-12), entry[0]


def test_torus_distance_exact_below_the_threshold_and_never_over():
    import coal

    rng = np.random.default_rng(0)
    entries = []
    tree = build(torus_parts(), entries)
    assert len(tree.shape) == 15  # 8 capsules, 7 hulls over them
    others = [("box", (0.3, 0.2, 0.25), None), ("sphere", (0.25,), None),
              ("capsule", (0.15, 0.3), None), ("hull", None, rng.normal(size=(30, 3)) * 0.3)]
    first_other = len(entries)
    entries.extend(others)
    shapes = pack(entries)
    n = 3000
    kind = rng.integers(0, len(others), n) + first_other
    pa = rng.uniform(-0.5, 0.5, (n, 3))
    ra, rb = _rotations(rng, n), _rotations(rng, n)
    # placed about the torus, a fifth of them in its hole (near its axis), a tenth far
    local = rng.uniform([-1.8, -1.8, -0.8], [1.8, 1.8, 0.8], (n, 3))
    case = rng.random(n)
    hole, away = case < 0.2, case > 0.9
    local[hole] = rng.uniform([-0.3, -0.3, -0.1], [0.3, 0.3, 0.1], (hole.sum(), 3))
    u = rng.normal(size=(away.sum(), 3))
    local[away] = u / np.linalg.norm(u, axis=1, keepdims=True) * rng.uniform(2.6, 3.5, (away.sum(), 1))
    pb = pa + np.einsum("nij,nj->ni", ra, local)
    wk, out = make_work(), np.zeros(10)
    d, made = np.zeros(n), np.zeros(n, int)
    for i in range(n):
        d[i], made[i] = tree_distance(shapes, *tree, pa[i], ra[i], kind[i], pb[i], rb[i],
                                      THRESHOLD, wk, out)
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    geoms = [coal_shape(shapes, s) for s in range(len(entries))]
    ref = np.full(n, np.inf)
    for i in range(n):
        gb, ob = geoms[kind[i]]
        for k, (_, ppos, prot) in enumerate(torus_parts()):
            g, o = geoms[k]
            res = coal.DistanceResult()
            ref[i] = min(ref[i], coal.distance(
                g, coal_transform(pa[i] + ra[i] @ ppos, ra[i] @ prot, o), gb,
                coal_transform(pb[i], rb[i], ob), req, res))
    err = np.abs(d - ref)
    below = ref < THRESHOLD
    apart = below & (ref > 1e-6)
    assert apart.sum() > 300 and (below & (ref < -1e-6)).sum() > 300
    assert np.all(err[apart] <= 1e-9 * ref[apart] + 1e-10), err[apart].max()
    # penetration: coal's EPA stops at 1e-6 of the depth
    deep = ref < -1e-6
    assert np.all(d[deep] < 0.0)
    assert np.all(err[deep] <= 1e-5 * -ref[deep] + 1e-10), (err[deep] / -ref[deep]).max()
    # an answer below the threshold is the exact one; above it, never more than exact
    assert np.all((d >= THRESHOLD) | (err <= 1e-5 * np.abs(ref) + 1e-10))
    assert np.all(d <= ref + 1e-9 * np.abs(ref) + 1e-10)
    closed = (ref >= THRESHOLD) & (d < ref - 1e-3)  # a hull answered, below the parts
    assert closed.sum() > 100 and np.all(d[closed] >= THRESHOLD)
    assert np.all(made[hole & (ref > 1e-6)] > 1)  # the hole is inside the root hull
    far = ref > 1.0
    assert far.sum() > 200 and np.all(made[far] == 1)  # the root hull answers
