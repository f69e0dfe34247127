"""Articulated-body dynamics against the hand-solved cases of the thesis digests
(McKenna 9.1 A4-A6, A9; Arnold 8.1-8.2) and conservation laws."""
import math

import numpy as np
import pytest

from benchmarks.trees import random_creature, random_state
from pipeline.compiler.build import build_model
from pipeline.physics import (forward_dynamics, forward_kinematics, inverse_dynamics,
                              mass_matrix, prescribed_dynamics, qdot)
from pipeline.physics.aba import aba
from pipeline.physics.kinematics import make_workspace
from pipeline.spec.types import Body, Creature, Inertial, Joint, Pose, Scene

NO_GRAVITY = {"gravity": "off"}


def scene(*creatures, environment=NO_GRAVITY):
    return Scene(name="t", creatures=tuple(creatures), environment=environment)


def rod(name, parent, at, joint, length=1.0, mass=1.0):
    """A thin rod of the given mass along +x from its joint (inertia of a slender rod)."""
    i = mass * length ** 2 / 12.0
    return Body(name=name, parent=parent, placement=Pose(pos=at), joint=joint,
                inertial=Inertial(mass=mass, com=(length / 2, 0, 0), inertia=(1e-6, i, i, 0, 0, 0)))


def kernel_state(model, q, qd, tau, fext=None):
    """Run the ABA kernel and return (qdd, workspace) to read body accelerations."""
    w = make_workspace(model.nbody, model.nv)
    qdd = np.zeros(model.nv)
    aba(model.tree, model.gravity, q, qd, tau, np.zeros((0, 6)) if fext is None else fext, qdd, w)
    return qdd, w


def point_acceleration(w, i, p):
    """Classical acceleration (body axes) of body point p from the spatial acceleration:
    a_lin + dw x p + w x (v + w x p)."""
    om, v = w.v[i, :3], w.v[i, 3:]
    return w.a[i, 3:] + np.cross(w.a[i, :3], p) + np.cross(om, v + np.cross(om, p))


def test_three_body_linkage_hand_solution():
    """McKenna A5: the leaf spins at 1 rad/s, the rest at rest; centripetal force pulls the
    linkage along its axis: root and middle at +1/6 m/s^2, leaf COM at -1/3 m/s^2."""
    z = (0.0, 0.0, 1.0)
    model = build_model(scene(Creature(name="linkage", bodies=(
        rod("r1", None, (0, 0, 0), Joint(type="free")),
        rod("r2", "r1", (1, 0, 0), Joint(type="revolute", axes=(z,))),
        rod("r3", "r2", (1, 0, 0), Joint(type="revolute", axes=(z,)))))))
    qd = np.zeros(model.nv)
    qd[7] = 1.0
    qdd, w = kernel_state(model, model.q0, qd, np.zeros(model.nv))
    assert abs(qdd[6]) <= 1e-12 and abs(qdd[7]) <= 1e-12
    np.testing.assert_allclose(qdd[3:6], 0.0, atol=1e-12)  # root angular acceleration
    np.testing.assert_allclose(qdd[:3], [1 / 6, 0, 0], atol=1e-12)
    np.testing.assert_allclose(point_acceleration(w, 1, np.array([0.5, 0, 0])), [1 / 6, 0, 0],
                               atol=1e-12)
    np.testing.assert_allclose(point_acceleration(w, 2, np.array([0.5, 0, 0])), [-1 / 3, 0, 0],
                               atol=1e-12)
    assert round(qdd[0], 5) == 0.16667


def block_and_gantry():
    x, y = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    box = (0.1, 0.1, 0.1, 0, 0, 0)
    return build_model(scene(Creature(name="gantry", bodies=(
        Body(name="m2", parent=None, placement=Pose(), joint=Joint(type="prismatic", axes=(x,)),
             inertial=Inertial(mass=2.0, inertia=box)),
        Body(name="m1", parent="m2", placement=Pose(pos=(0, 0, 0.5)),
             joint=Joint(type="prismatic", axes=(y,)), inertial=Inertial(mass=1.0, inertia=box))))))


@pytest.mark.parametrize("body, force, expect", [
    (1, (0, 1, 0), (0.0, 1.0)),  # f_y = 1 N on m1: a_y = f_y / m1, a_x = 0
    (1, (3, 0, 0), (1.0, 0.0)),  # f_x = 3 N on m1: a_x = f_x / (m1 + m2)
    (0, (3, 0, 0), (1.0, 0.0)),  # ... or on m2
])
def test_block_and_gantry(body, force, expect):
    """McKenna Eqs 4-6: the articulated inertia of the gantry is diag(m1 + m2, m1)."""
    model = block_and_gantry()
    fext = np.zeros((2, 6))
    fext[body, 3:] = force
    qdd = forward_dynamics(model, model.q0, np.zeros(2), np.zeros(2), fext)
    np.testing.assert_allclose(qdd, expect, atol=1e-14)
    np.testing.assert_allclose(mass_matrix(model, model.q0), [[3.0, 1.0 * 0], [0, 1.0]], atol=1e-14)


def test_shifted_local_origin_gives_identical_dynamics():
    """McKenna A4: the same body with its frame origin 10 m from its COM moves the same."""
    rng = np.random.default_rng(4)
    ine = Inertial(mass=1.3, com=(0.0, 0.0, 0.0), inertia=(0.02, 0.03, 0.04, 0.001, -0.002, 0.003))
    off = np.array([10.0, -3.0, 4.0])
    shifted = Inertial(mass=ine.mass, com=tuple(off), inertia=ine.inertia)
    env = {"gravity": [0.3, -0.2, -9.81]}
    a = build_model(scene(Creature(name="a", bodies=(
        Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"), inertial=ine),)),
        environment=env))
    b = build_model(scene(Creature(name="b", bodies=(
        Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"), inertial=shifted),)),
        environment=env))
    for _ in range(5):
        q, qd = random_state(a, rng)
        R = forward_kinematics(a, q)[1][0]
        fa = rng.normal(size=(1, 6))  # torque about the COM = origin of a
        # same physical state for b: origin 'off' behind the COM, same rotation and spin
        qb = q.copy()
        qb[:3] = q[:3] - R @ off
        qdb = qd.copy()
        qdb[:3] = qd[:3] + np.cross(qd[3:], -off)  # v_origin = v_com + w x (origin - com)
        fb = fa.copy()
        fb[0, :3] = fa[0, :3] + np.cross(R @ off, fa[0, 3:])  # torque about b's origin
        qdd_a, wa = kernel_state(a, q, qd, np.zeros(6), fa)
        qdd_b, wb = kernel_state(b, qb, qdb, np.zeros(6), fb)
        np.testing.assert_allclose(qdd_b[3:], qdd_a[3:], rtol=1e-8, atol=1e-10)
        acc_com_a = R @ point_acceleration(wa, 0, np.zeros(3))
        acc_com_b = R @ point_acceleration(wb, 0, off)
        np.testing.assert_allclose(acc_com_b, acc_com_a, rtol=1e-8, atol=1e-9)


def spatial_momentum(model, q, qd):
    """Total spatial momentum about the world origin, world axes [angular; linear]."""
    xpos, xrot, v = forward_kinematics(model, q, qd)
    h = np.zeros(6)
    t = model.tree
    for i in range(model.nbody):
        R = xrot[i]
        c = xpos[i] + R @ t.com[i]
        vcom = R @ (v[i, 3:] + np.cross(v[i, :3], t.com[i]))
        L = R @ t.inertia[i] @ R.T @ (R @ v[i, :3]) + t.mass[i] * np.cross(c, vcom)
        h += np.concatenate([L, t.mass[i] * vcom])
    return h


def test_free_tree_conserves_momentum():
    """No gravity, no forces: ABA's qdd makes the root's RNEA wrench vanish (one call), and
    the total spatial momentum has zero time derivative (central difference)."""
    rng = np.random.default_rng(5)
    model = build_model(scene(random_creature(rng, 12, joint_types=("revolute", "prismatic",
                                                                   "universal", "ball"))))
    q, qd = random_state(model, rng)
    zero = np.zeros(model.nv)
    qdd = forward_dynamics(model, q, qd, zero)
    np.testing.assert_allclose(inverse_dynamics(model, q, qd, qdd), 0.0, atol=1e-10)
    dt = 1e-5
    qp = q + dt * qdot(model, q, qd)
    qm = q - dt * qdot(model, q, qd)
    # second-order accurate position steps: include the curvature of q
    h0 = spatial_momentum(model, q, qd)
    dh = (spatial_momentum(model, qp + 0.5 * dt * dt * _qddot(model, q, qd, qdd), qd + dt * qdd)
          - spatial_momentum(model, qm + 0.5 * dt * dt * _qddot(model, q, qd, qdd), qd - dt * qdd)) / (2 * dt)
    assert np.abs(dh).max() <= 1e-7 * max(1.0, np.abs(h0).max())


def _qddot(model, q, qd, qdd):
    """d2q/dt2 by differentiating qdot along (qd, qdd) numerically (quaternion curvature)."""
    e = 1e-6
    return (qdot(model, q + e * qdot(model, q, qd), qd + e * qdd) - qdot(model, q, qd)) / e


def test_gravity_equals_downward_force_on_every_com():
    """Arnold B4: the fictitious world acceleration -g equals m g at every COM."""
    rng = np.random.default_rng(6)
    creature = random_creature(rng, 7)
    g = np.array([0.0, 0.0, -9.81])
    with_g = build_model(scene(creature, environment={"gravity": 9.81}))
    without = build_model(scene(creature))
    np.testing.assert_array_equal(with_g.gravity, g)
    q, qd = random_state(with_g, rng)
    xpos, xrot = forward_kinematics(without, q)
    t = without.tree
    fext = np.zeros((without.nbody, 6))
    for i in range(without.nbody):
        f = t.mass[i] * g
        fext[i, 3:] = f
        fext[i, :3] = np.cross(xrot[i] @ t.com[i], f)
    tau = rng.normal(size=with_g.nv)
    np.testing.assert_allclose(forward_dynamics(with_g, q, qd, tau),
                               forward_dynamics(without, q, qd, tau, fext), rtol=1e-10, atol=1e-10)


def test_free_body_falls_at_g():
    model = build_model(scene(Creature(name="box", bodies=(
        Body(name="b", parent=None, placement=Pose(pos=(0, 0, 1), quat=(0.8, 0.6, 0, 0)),
             joint=Joint(type="free"), inertial=Inertial(mass=2.0, com=(0.1, 0.2, 0.3),
                                                         inertia=(0.1, 0.2, 0.25, 0, 0, 0))),)),
        environment={"gravity": 9.8}))
    qdd, w = kernel_state(model, model.q0, np.zeros(6), np.zeros(6))
    R = forward_kinematics(model, model.q0)[1][0]
    np.testing.assert_allclose(R @ qdd[:3], [0, 0, -9.8], atol=1e-12)
    np.testing.assert_allclose(qdd[3:], 0.0, atol=1e-12)


@pytest.mark.parametrize("root", ["fixed", "prescribed"])
def test_root_modes(root):
    """McKenna A9: a fixed root never moves; a prescribed root follows its given
    acceleration and Eq 45's constraint force matches inverse dynamics."""
    rng = np.random.default_rng(8)
    model = build_model(scene(random_creature(rng, 9, root=root), environment={"gravity": 9.81}))
    q, qd = random_state(model, rng)
    tau = rng.normal(size=model.nv)
    if root == "fixed":
        assert model.joint_types[0] == "fixed"
        qd_fixed = qd.copy()
        _, w = kernel_state(model, q, qd_fixed, tau)
        np.testing.assert_array_equal(w.v[0], 0.0)
        np.testing.assert_allclose(w.a[0], np.concatenate([[0, 0, 0], -(w.xrot[0].T @ model.gravity)]),
                                   atol=1e-15)  # only the fictitious -g of the gravity trick
        return
    assert model.tree.prescribed[0] and not model.tree.prescribed[1:].any()
    given = np.zeros(model.nv)
    given[:6] = rng.normal(size=6)
    qdd, f_con = prescribed_dynamics(model, q, qd, tau, given)
    np.testing.assert_array_equal(qdd[:6], given[:6])
    tau_id = inverse_dynamics(model, q, qd, qdd)
    np.testing.assert_allclose(tau_id[6:], tau[6:], rtol=1e-9, atol=1e-9)
    R = forward_kinematics(model, q)[1][0]
    # free-joint generalized force (force; torque) in body axes = S^T f_con
    np.testing.assert_allclose(tau_id[:3], R.T @ f_con[0, 3:], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(tau_id[3:6], R.T @ f_con[0, :3], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(f_con[1:], 0.0)


def test_kinetic_energy_matches_mass_matrix():
    """Arnold A4/B5: 1/2 qd^T M qd equals the sum of the bodies' kinetic energies."""
    rng = np.random.default_rng(9)
    model = build_model(scene(random_creature(rng, 10)))
    q, qd = random_state(model, rng)
    xpos, xrot, v = forward_kinematics(model, q, qd)
    t = model.tree
    ke = 0.0
    for i in range(model.nbody):
        om, vo = v[i, :3], v[i, 3:]
        vc = vo + np.cross(om, t.com[i])
        ke += 0.5 * t.mass[i] * vc @ vc + 0.5 * om @ t.inertia[i] @ om
    assert math.isclose(0.5 * qd @ mass_matrix(model, q) @ qd, ke, rel_tol=1e-12)
