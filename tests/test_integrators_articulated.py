"""Articulated trees: energy (A8), root modes (A9), momentum of a free-floating tree,
unit quaternions and bit-for-bit determinism."""
import numpy as np
import pytest

from pipeline.physics import inverse_dynamics
from simulation_helpers import (Body, Geom, Joint, JointForces, Pose, creature, energy, momentum,
                                rod, simulate)

G = 9.8


def pendulum5(root_mode="free", **forces):
    links = [rod("link0", None, (0, 0, 2.0), axis=(0, 1, 0), q0=0.3, forces=JointForces(**forces))]
    for i in range(1, 5):
        links.append(rod(f"link{i}", f"link{i - 1}", (1.0, 0, 0), axis=(0, 1, 0),
                         q0=0.2 * (-1) ** i, forces=JointForces(**forces)))
    return creature(*links, root_mode=root_mode)


def test_a8_five_link_pendulum_conserves_energy():
    sim = simulate(pendulum5(), gravity=G, dt=1 / 100, integrator="rkf45", atol=1e-10,
                   rtol=1e-10, duration=5.0)
    e0 = sum(energy(sim))
    ke_max = 0.0
    drift = 0.0
    for _ in range(500):
        sim.step()
        ke, pe = energy(sim)
        ke_max = max(ke_max, ke)
        drift = max(drift, abs(ke + pe - e0))
    assert ke_max > 10.0  # it really swings: ~ m g L of the chain
    assert drift / ke_max < 1e-6
    assert sim.stats()["rejected_steps_per_second"] < sim.stats()["accepted_steps_per_second"]


def test_a9_fixed_root_does_not_move():
    sim = simulate(pendulum5(), gravity=G, dt=1 / 240, duration=0.5)
    assert sim.model.joint_types[0] == "revolute"
    fixed = simulate(creature(
        Body(name="base", parent=None, placement=Pose((0, 0, 2.0)), joint=Joint(type="free"),
             geoms=(Geom(shape="box", size=(0.1, 0.1, 0.1), density=1000.0),)),
        rod("arm", "base", (0.05, 0, 0), axis=(0, 1, 0), q0=0.5), root_mode="fixed"),
        gravity=G, dt=1 / 240, duration=0.5)
    assert fixed.model.nv == 1 and fixed.model.joint_types[0] == "fixed"
    rec = fixed.run(progress=False)
    assert np.array_equal(rec.body_pos[:, 0], np.broadcast_to(rec.body_pos[0, 0], (len(rec), 3)))
    assert np.array_equal(rec.body_quat[:, 0], np.broadcast_to(rec.body_quat[0, 0], (len(rec), 4)))
    assert np.ptp(rec.q[:, 0]) > 0.5  # while the arm swings
    assert len(sim.run(progress=False)) == 121


def test_a9_prescribed_root_follows_its_acceleration():
    """The root of a cart-pendulum is driven with a constant acceleration; the pendulum's
    acceleration is the one inverse dynamics (RNEA) says needs no joint torque."""
    cart = Body(name="cart", parent=None, placement=Pose((0, 0, 1.0)),
                joint=Joint(type="free", qd0=(0.2, 0, 0, 0, 0, 0)),
                geoms=(Geom(shape="box", size=(0.2, 0.1, 0.1), density=500.0),))
    sim = simulate(creature(cart, rod("pole", "cart", (0, 0, 0), axis=(0, 1, 0), q0=0.1),
                            root_mode="prescribed"),
                   gravity=G, dt=1 / 240, integrator="rk4", duration=1.0)
    a = 1.5
    sim.data.qdd_prescribed[0] = a  # body-x acceleration of the cart
    for _ in range(240):
        qdd = sim.qdd()
        assert qdd[0] == a and np.all(qdd[1:6] == 0.0)
        tau = inverse_dynamics(sim.model, sim.data.q, sim.data.qd, qdd)
        assert abs(tau[6]) < 1e-12 * max(1.0, np.abs(tau).max())
        sim.step()
    t = sim.time
    assert sim.data.q[0] == pytest.approx(0.2 * t + 0.5 * a * t * t, abs=1e-12)
    np.testing.assert_array_equal(sim.data.q[3:7], [1.0, 0.0, 0.0, 0.0])
    assert sim.data.q[1] == 0.0 and sim.data.q[2] == 1.0
    assert abs(sim.data.q[7] - 0.1) > 0.1  # the pole swung back


def test_a9_prescribed_root_keeps_its_world_velocities():
    """root: {mode: prescribed, prescribed: {linear, angular}}: the root translates and spins
    at constant world velocities whatever its pendulum does."""
    from pipeline.spec.transforms import matrix_from_quat as quat_to_matrix
    from pipeline.spec.types import Creature

    cart = Body(name="cart", parent=None, placement=Pose((0, 0, 1.0), (0.8, 0.6, 0.0, 0.0)),
                joint=Joint(type="free"),
                geoms=(Geom(shape="box", size=(0.2, 0.1, 0.1), density=500.0),))
    c = Creature(name="spinner", bodies=(cart, rod("pole", "cart", (0.1, 0, 0), axis=(0, 1, 0))),
                 root_mode="prescribed",
                 prescribed={"linear": [0.3, -0.2, 0.1], "angular": [0.0, 0.0, 2.0]})
    sim = simulate(c, gravity=G, dt=1 / 240, integrator="rkf45", atol=1e-11, rtol=1e-11,
                   duration=1.0)
    R0 = quat_to_matrix((0.8, 0.6, 0.0, 0.0))
    rec = sim.run(progress=False)
    t = rec.time[-1]
    assert np.allclose(rec.body_pos[-1, 0], [0.3 * t, -0.2 * t, 1.0 + 0.1 * t], rtol=0, atol=1e-9)
    c2, s2 = np.cos(2.0 * t), np.sin(2.0 * t)
    Rz = np.array([[c2, -s2, 0], [s2, c2, 0], [0, 0, 1.0]])
    assert np.allclose(quat_to_matrix(rec.body_quat[-1, 0]), Rz @ R0, rtol=0, atol=1e-9)
    assert np.ptp(rec.q[:, 7]) > 0.1  # the pole swings


def floating_tree():
    """Free root with revolute, universal and ball children carrying springs and dampers."""
    box = lambda s: (Geom(shape="box", size=s, density=800.0),)
    f = JointForces(damping=0.02, spring_k=0.5)
    bodies = (
        Body(name="trunk", parent=None, placement=Pose((0, 0, 0)),
             joint=Joint(type="free", q0=(0, 0, 0, 0.9, 0.1, -0.3, 0.2),
                         qd0=(0.3, -0.1, 0.2, 1.0, -2.0, 0.5)),
             geoms=box((0.4, 0.2, 0.1))),
        Body(name="arm", parent="trunk", placement=Pose((0.2, 0.1, 0.0)),
             joint=Joint(type="revolute", axes=((0, 0, 1),), q0=(0.3,), qd0=(2.0,), forces=f),
             geoms=(Geom(shape="box", size=(0.3, 0.05, 0.05), density=800.0,
                         pose=Pose((0.15, 0, 0))),)),
        Body(name="hand", parent="arm", placement=Pose((0.3, 0, 0)),
             joint=Joint(type="universal", axes=((0, 1, 0), (0, 0, 1)), q0=(0.2, -0.4),
                         qd0=(-1.0, 3.0), forces=f),
             geoms=(Geom(shape="box", size=(0.1, 0.04, 0.04), density=800.0,
                         pose=Pose((0.05, 0, 0))),)),
        Body(name="head", parent="trunk", placement=Pose((-0.2, 0, 0.05)),
             joint=Joint(type="ball", q0=(0.95, 0.0, 0.3, 0.1), qd0=(1.0, 2.0, -3.0),
                         forces=JointForces(damping=0.01)),
             geoms=(Geom(shape="sphere", size=(0.06,), density=800.0, pose=Pose((0, 0, 0.08))),)),
    )
    return creature(*bodies)


def test_free_floating_tree_conserves_momentum_and_keeps_unit_quaternions():
    sim = simulate(floating_tree(), gravity=0.0, dt=1 / 100, integrator="rkf45", atol=1e-11,
                   rtol=1e-11, duration=1.0)
    P0, L0 = momentum(sim)
    worst_norm = 0.0
    for _ in range(100):
        sim.step()
        for a in (3, 10):  # free-joint and ball-joint quaternions
            worst_norm = max(worst_norm, abs(np.linalg.norm(sim.data.q[a:a + 4]) - 1.0))
    P1, L1 = momentum(sim)
    assert sim.model.joint_types == ("free", "revolute", "universal", "ball")
    assert np.abs(P1 - P0).max() / np.linalg.norm(P0) < 1e-9
    assert np.abs(L1 - L0).max() / np.linalg.norm(L0) < 1e-9
    assert worst_norm < 1e-14
    # the joints moved and the dampers took energy out
    assert np.abs(sim.data.q[7:10] - [0.3, 0.2, -0.4]).max() > 0.1


@pytest.mark.parametrize("integrator", ["symplectic_euler", "rk4", "rkf45"])
def test_same_scene_gives_bit_identical_trajectories(integrator):
    recs = []
    for _ in range(2):
        sim = simulate(floating_tree(), gravity=G, dt=1 / 240, h=1 / 960, integrator=integrator,
                       duration=0.25)
        recs.append(sim.run(progress=False))
    a, b = recs
    for key in ("time", "body_pos", "body_quat", "q", "qd"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
