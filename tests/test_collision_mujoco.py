"""Penetration depth and normal of shallow overlaps (as contact sees them: up to 2 cm)
against MuJoCo's analytic colliders (sphere, capsule, box) and, for two boxes, against the
exact separating-axis depth: MuJoCo's box-box routine is itself off by up to ~3e-6 m there."""
import numpy as np
import pytest

from pipeline.collision.narrow import make_work, query
from pipeline.collision.shapes import pack

from test_collision_narrow import random_rotations

SIZES = {"sphere": (0.35,), "capsule": (0.25, 0.4), "box": (0.3, 0.5, 0.2)}  # MuJoCo's sizes
XML = """<mujoco><worldbody>
<body><freejoint/><geom type="{}" size="{}"/></body>
<body><freejoint/><geom type="{}" size="{}"/></body>
</worldbody></mujoco>"""
N = 300


def shallow_poses(shapes, rng, n):
    """n placements of shape 1 against shape 0 at the origin, each overlapping by 0.1-20 mm:
    the touching distance along a random direction by bisection, then pushed in."""
    wk = make_work()
    for _ in range(n):
        R = random_rotations(rng, 2)
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        lo, hi = 0.0, 3.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if query(shapes, 0, np.zeros(3), R[0], 1, mid * u, R[1], 0.0, 0.0, 0.0, wk) < 0:
                lo = mid
            else:
                hi = mid
        yield R, (hi - rng.uniform(1e-4, 0.02)) * u


def separating_axis_depth(RA, hA, RB, hB, t):
    """Exact penetration depth of two boxes (half extents h, B's centre at t from A's): the
    least overlap over the 15 axes, where a polytope pair's minimum translation lies."""
    axes = [RA[:, i] for i in range(3)] + [RB[:, i] for i in range(3)]
    axes += [np.cross(RA[:, i], RB[:, j]) for i in range(3) for j in range(3)]
    best = np.inf
    for a in axes:
        if np.linalg.norm(a) < 1e-9:
            continue
        a = a / np.linalg.norm(a)
        best = min(best, np.sum(hA * np.abs(RA.T @ a)) + np.sum(hB * np.abs(RB.T @ a)) - abs(t @ a))
    return best


@pytest.mark.parametrize("kinds", [("sphere", "sphere"), ("sphere", "capsule"), ("sphere", "box"),
                                   ("capsule", "capsule"), ("capsule", "box")])
def test_depth_and_normal_match_mujoco(kinds):
    mujoco = pytest.importorskip("mujoco")
    ka, kb = kinds
    m = mujoco.MjModel.from_xml_string(XML.format(ka, " ".join(map(str, SIZES[ka])), kb,
                                                  " ".join(map(str, SIZES[kb]))))
    d = mujoco.MjData(m)
    shapes = pack([(ka, np.array(SIZES[ka]), None), (kb, np.array(SIZES[kb]), None)])
    wk = make_work()
    rng = np.random.default_rng(1)
    for R, p in shallow_poses(shapes, rng, N):
        dist = query(shapes, 0, np.zeros(3), R[0], 1, p, R[1], 0.0, 0.0, 0.0, wk)
        quats = [np.zeros(4), np.zeros(4)]
        for q, r in zip(quats, R):
            mujoco.mju_mat2Quat(q, r.ravel())
        d.qpos[:] = np.concatenate([np.zeros(3), quats[0], p, quats[1]])
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        deepest = min(d.contact[:d.ncon], key=lambda c: c.dist)
        assert dist == pytest.approx(deepest.dist, abs=1e-12)
        assert np.abs(wk.out[7:10] - deepest.frame[:3]).max() < 1e-12  # both from 0 toward 1


def test_box_box_depth_is_the_separating_axis_depth():
    h = np.array(SIZES["box"])
    shapes = pack([("box", h, None), ("box", h, None)])
    wk = make_work()
    for R, p in shallow_poses(shapes, np.random.default_rng(2), N):
        dist = query(shapes, 0, np.zeros(3), R[0], 1, p, R[1], 0.0, 0.0, 0.0, wk)
        assert -dist == pytest.approx(separating_axis_depth(R[0], h, R[1], h, p), abs=1e-12)
