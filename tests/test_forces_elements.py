"""Joint force elements (McKenna §3.8-3.9, digest B1, B8)."""
import math

import numpy as np
import pytest

from pipeline.physics.forces import exp_spring_force, joint_forces
from pipeline.physics.model import JointForceArrays
from simulation_helpers import (Body, ExpSpring, Inertial, Joint, JointForces, Pose, creature,
                                simulate)


@pytest.mark.parametrize("x, f", [(0.05, 1.22554), (0.1, 3.95303), (0.2, 23.5325)])
def test_b1_exponential_spring_values(x, f):
    """alpha = 1, beta = 16: the digest's worked values; the joint spring restores."""
    assert -exp_spring_force(1.0, 16.0, x) == pytest.approx(f, rel=5e-6)
    assert -exp_spring_force(1.0, 16.0, x) == pytest.approx(math.exp(16 * x) - 1, rel=1e-14)
    assert exp_spring_force(1.0, 16.0, -x) == -exp_spring_force(1.0, 16.0, x)  # odd symmetry


def test_b1_exponential_spring_origin_and_slope():
    assert exp_spring_force(2.5, 7.0, 0.0) == 0.0
    # f'(0) = alpha beta; the one-sided quotient is off by beta h / 2 (expm1 keeps it exact)
    h = 1e-10
    assert -exp_spring_force(2.5, 7.0, h) / h == pytest.approx(2.5 * 7.0, rel=1e-9)
    assert -exp_spring_force(2.5, 7.0, -h) / -h == pytest.approx(2.5 * 7.0, rel=1e-9)


def _table(n, **values):
    t = {name: np.zeros(n) for name in JointForceArrays._fields}
    t["limit_lower"][:] = -np.inf
    t["limit_upper"][:] = np.inf
    for name, v in values.items():
        t[name][:] = v
    return JointForceArrays(**t)


def _tau(forces, q, qd, rest=None, ctrl=None, dof_qpos=None):
    n = len(qd)
    tau = np.zeros(n)
    joint_forces(forces, np.arange(n) if dof_qpos is None else np.asarray(dof_qpos),
                 np.asarray(q, float), np.asarray(qd, float),
                 np.zeros(n) if rest is None else np.asarray(rest, float),
                 np.zeros(n) if ctrl is None else np.asarray(ctrl, float), tau)
    return tau


def test_each_element_has_its_law():
    q = np.array([0.3, -0.2, 0.9, -1.4, 0.1])
    qd = np.array([1.5, -0.5, 0.25, 2.0, -3.0])
    assert np.array_equal(_tau(_table(5, damping=0.7), q, qd), -0.7 * qd)
    assert np.allclose(_tau(_table(5, spring_k=3.0, spring_rest=0.1), q, qd), -3.0 * (q - 0.1),
                       rtol=1e-15)
    rest = np.array([0.0, 0.0, 1.0, -1.0, 0.5])
    tau = _tau(_table(5, exp_alpha=0.2, exp_beta=8.0), q, qd, rest)
    d = q - rest
    assert np.allclose(tau, -np.sign(d) * 0.2 * np.expm1(8.0 * np.abs(d)), rtol=1e-14)
    assert np.array_equal(_tau(_table(5, bias=0.125), q, qd), np.full(5, 0.125))
    assert np.array_equal(_tau(_table(5), q, qd, ctrl=q), q)
    tau = _tau(_table(5, servo_kp=4.0, servo_kd=0.5, servo_target=0.2), q, qd)
    assert np.allclose(tau, 4.0 * (0.2 - q) - 0.5 * qd, rtol=1e-14)


def test_limit_spring_and_damper_act_only_past_the_limits():
    f = _table(3, limit_lower=-1.0, limit_upper=0.5, limit_k=100.0, limit_b=2.0)
    tau = _tau(f, [-1.25, 0.0, 0.75], [0.5, 3.0, -1.0])
    assert tau[0] == pytest.approx(100.0 * 0.25 - 2.0 * 0.5, rel=1e-15)
    assert tau[1] == 0.0
    assert tau[2] == pytest.approx(-100.0 * 0.25 + 2.0 * 1.0, rel=1e-15)


def test_position_elements_skip_dofs_without_a_scalar_coordinate():
    """Ball/free DOFs (dof_qpos = -1) get damping, servo kd, bias and ctrl only."""
    f = _table(2, damping=1.0, spring_k=50.0, exp_alpha=1.0, exp_beta=5.0, bias=0.5,
               servo_kp=9.0, servo_kd=0.25)
    tau = _tau(f, [3.0], [2.0, -2.0], dof_qpos=[-1, -1], ctrl=[0.1, 0.2])
    assert np.allclose(tau, [0.1 + 0.5 - 2.0 - 0.5, 0.2 + 0.5 + 2.0 + 0.5], rtol=1e-15)


def spinner(b, scale_by="none", qd0=3.0, I=0.3, m=2.0):
    return creature(Body(
        name="wheel", parent=None, placement=Pose((0, 0, 1.0)),
        joint=Joint(type="revolute", axes=((0, 0, 1),), qd0=(qd0,),
                    forces=JointForces(damping=b, scale_by=scale_by)),
        inertial=Inertial(mass=m, com=(0, 0, 0), inertia=(0.1, 0.2, I, 0, 0, 0))))


@pytest.mark.parametrize("scale_by, multiplier", [("none", 1.0), ("mass", 2.0)])
def test_b8_damper_decay(scale_by, multiplier):
    """qd(t) = qd0 exp(-b t / I), with b multiplied by the body mass under scale_by: mass."""
    sim = simulate(spinner(0.6, scale_by), gravity=9.8, dt=1 / 240, h=1 / 2400,
                   integrator="rk4", duration=1.0)
    assert sim.data.forces.damping[0] == pytest.approx(0.6 * multiplier, rel=1e-15)
    rec = sim.run(progress=False)
    exact = 3.0 * np.exp(-0.6 * multiplier * rec.time / 0.3)
    assert np.abs(rec.qd[:, 0] / exact - 1).max() < 1e-8
    angle = 3.0 * 0.3 / (0.6 * multiplier) * (1 - np.exp(-0.6 * multiplier * rec.time / 0.3))
    assert np.abs(rec.q[:, 0] - angle).max() < 1e-8 * angle[-1]


def test_exp_spring_joint_oscillates_about_its_rest():
    """A light exp spring (alpha beta = k) behaves like the linear spring for small swings."""
    body = Body(name="bob", parent=None, placement=Pose(),
                joint=Joint(type="revolute", axes=((0, 0, 1),), q0=(0.501,),
                            forces=JointForces(exp_spring=ExpSpring(alpha=0.5, beta=4.0, rest=0.5))),
                inertial=Inertial(mass=1.0, inertia=(1.0, 1.0, 0.5, 0, 0, 0)))
    sim = simulate(creature(body), gravity=0.0, dt=1 / 1000, integrator="rk4", duration=1.0)
    rec = sim.run(progress=False)
    omega = math.sqrt(0.5 * 4.0 / 0.5)
    small = 0.5 + 0.001 * np.cos(omega * rec.time)
    # the cubic term of the exponential law shifts the answer by ~ (beta x)^2 / 6 of x
    assert np.abs(rec.q[:, 0] - small).max() < 1e-5
