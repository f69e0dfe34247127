"""The block formulas of pipeline.physics.spatial against explicit 6x6 spatial algebra
(Featherstone 2008): X = [[E, 0], [-E r x, E]] for the parent->body transform (E, r)."""
import numpy as np
import pytest

from pipeline.physics.kinematics import make_workspace
from pipeline.physics.spatial import (add_force_to_parent, add_inertia_to_parent,
                                      axis_angle_matrix, cross_force_inertia, ldl_factor,
                                      ldl_solve, motion_to_child, quat_matrix, rigid_inertia,
                                      rot_to_quat)


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def X_of(E, r):
    X = np.zeros((6, 6))
    X[:3, :3] = E
    X[3:, 3:] = E
    X[3:, :3] = -E @ skew(r)
    return X


def random_rotation(rng):
    q = rng.normal(size=4)
    return np.array(quat_matrix(*q)).reshape(3, 3)


@pytest.fixture
def rng():
    return np.random.default_rng(17)


def test_rotations_are_proper_and_consistent(rng):
    R = random_rotation(rng)
    np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-15)
    assert np.isclose(np.linalg.det(R), 1.0)
    quat = np.zeros(4)
    rot_to_quat(R, quat)
    np.testing.assert_allclose(np.array(quat_matrix(*quat)).reshape(3, 3), R, atol=1e-15)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    A = np.array(axis_angle_matrix(*axis, 0.7)).reshape(3, 3)
    half = np.concatenate([[np.cos(0.35)], np.sin(0.35) * axis])
    np.testing.assert_allclose(A, np.array(quat_matrix(*half)).reshape(3, 3), atol=1e-15)


def test_transforms_match_6x6_algebra(rng):
    E = random_rotation(rng)[None]
    r = rng.normal(size=(1, 3))
    X = X_of(E[0], r[0])
    m = rng.normal(size=(2, 6))
    motion_to_child(E, r, 0, m, 0, m, 1)
    np.testing.assert_allclose(m[1], X @ m[0], atol=1e-14)
    f = rng.normal(size=(2, 6))
    out = f.copy()
    add_force_to_parent(E, r, 0, f, 0, out, 1)
    np.testing.assert_allclose(out[1], f[1] + X.T @ f[0], atol=1e-14)
    # power is frame independent: (X^T f) . m_parent = f . (X m_parent)
    assert np.isclose((X.T @ f[0]) @ m[0], f[0] @ (X @ m[0]), rtol=1e-13)
    A = rng.normal(size=(6, 6))
    I = np.stack([A @ A.T, np.zeros((6, 6))])
    base = rng.normal(size=(6, 6))
    I[1] = base + base.T
    expect = I[1] + X.T @ I[0] @ X
    add_inertia_to_parent(E, r, 0, I, 0, I, 1)
    np.testing.assert_allclose(I[1], expect, rtol=1e-13, atol=1e-13)


def test_rigid_inertia_is_the_com_factorisation(rng):
    """Arnold A3: I_O = D^T diag(Ic, m 1) D with D the shift from the origin to the COM;
    and the bias force v x* I v of cross_force_inertia."""
    m = np.array([2.5])
    c = rng.normal(size=(1, 3))
    B = rng.normal(size=(3, 3))
    Ic = (B @ B.T + np.eye(3))[None]
    out = np.zeros((1, 6, 6))
    rigid_inertia(m, c, Ic, 0, out, 0)
    Dm = np.eye(6)
    Dm[3:, :3] = -skew(c[0])  # COM velocity: v + w x c
    block = np.zeros((6, 6))
    block[:3, :3] = Ic[0]
    block[3:, 3:] = m[0] * np.eye(3)
    np.testing.assert_allclose(out[0], Dm.T @ block @ Dm, atol=1e-14)
    assert np.all(np.linalg.eigvalsh(out[0]) > 0)
    v = rng.normal(size=(1, 6))
    f = np.zeros((1, 6))
    cross_force_inertia(out, 0, v, 0, f, 0)
    w, u = v[0, :3], v[0, 3:]
    crf = np.zeros((6, 6))
    crf[:3, :3] = skew(w)
    crf[:3, 3:] = skew(u)
    crf[3:, 3:] = skew(w)
    np.testing.assert_allclose(f[0], crf @ out[0] @ v[0], atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_ldl_solves_spd_systems(rng, n):
    A = rng.normal(size=(n, n))
    D = A @ A.T + n * np.eye(n)
    F = np.zeros((1, 6, 6))
    ldl_factor(D, n, F, 0)
    x = np.zeros((1, 6))
    b = rng.normal(size=n)
    x[0, :n] = b
    ldl_solve(F, 0, n, x, 0)
    np.testing.assert_allclose(x[0, :n], np.linalg.solve(D, b), rtol=1e-13)


def test_articulated_inertias_are_spd_and_handed_inertias_psd():
    """Arnold B5 on a random tree after one ABA call."""
    from benchmarks.trees import random_creature, random_state
    from pipeline.compiler.build import build_model
    from pipeline.physics.aba import aba

    rng = np.random.default_rng(3)
    model = build_model(random_creature(rng, 15))
    q, qd = random_state(model, rng)
    w = make_workspace(model.nbody, model.nv)
    aba(model.tree, model.gravity, q, qd, rng.normal(size=model.nv), np.zeros((0, 6)),
        np.zeros(model.nv), w)
    for i in range(model.nbody):
        np.testing.assert_allclose(w.IA[i], w.IA[i].T, atol=1e-12)
        assert np.linalg.eigvalsh(w.IA[i]).min() > 0
        if model.tree.parent[i] >= 0 and model.joint_types[i] != "fixed":
            scale = np.abs(w.IA[i]).max()
            assert np.linalg.eigvalsh(w.Ia[i]).min() >= -1e-12 * scale
            if model.joint_types[i] == "free":  # a 6-DOF joint transmits no inertia
                assert np.abs(w.Ia[i]).max() <= 1e-12 * scale
