"""The energy balance the step loop keeps (pipeline/physics/energy.py) and the energy check it
feeds (pipeline/runaway.py): the energy it weighs is the analytic one, and a run's gain stays
at the integrator's error when every input (controller torques, biases, motors, pushes,
dampers) is weighed; the runaway it exists for is tests/test_mujoco_dt.py's ant."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pipeline.errors import SimulationError
from pipeline.physics import mechanical_energy as kinetic_and_gravity
from pipeline.physics.energy import mechanical_energy
from pipeline.physics.frames import FLOW, GAIN
from simulation_helpers import (Body, ExpSpring, Inertial, Joint, JointForces, Pose, creature, free_body, rod,
                                simulate)

ELEMENTS = JointForces(spring_k=3.0, spring_rest=(0.2,), exp_spring=ExpSpring(alpha=0.05, beta=4.0, rest=-0.1),
                       limit_lower=-0.3, limit_upper=0.25, limit_k=40.0, servo_kp=1.5, servo_target=(0.4,),
                       armature=0.02)


def chain(forces=ELEMENTS, q0=(0.7, -0.5)):
    return creature(rod("upper", None, (0, 0, 1), mass=1.2, axis=(0, 1, 0), q0=q0[0], forces=forces),
                    rod("lower", "upper", (1, 0, 0), mass=0.8, length=0.7, axis=(0, 1, 0), q0=q0[1], forces=forces))


def test_the_energy_weighed_is_kinetic_gravity_and_every_joint_potential():
    sim = simulate(chain(), gravity=9.8)
    d = sim.data
    d.qd[:] = (1.3, -2.1)
    e, dissipated = mechanical_energy(sim.model.tree, d.gravity, d.forces, sim.dof_qpos, sim.model.nq, d.y,
                                      sim._work.dyn)
    expected = kinetic_and_gravity(sim.model, d.q, d.qd) + 0.5 * 0.02 * (1.3 ** 2 + 2.1 ** 2)
    for x in (0.7, -0.5):
        u = abs(x + 0.1)
        expected += (0.5 * 3.0 * (x - 0.2) ** 2 + 0.05 * ((math.exp(4.0 * u) - 1) / 4.0 - u)
                     + 0.5 * 1.5 * (0.4 - x) ** 2)
    expected += 0.5 * 40.0 * (0.7 - 0.25) ** 2 + 0.5 * 40.0 * (0.5 - 0.3) ** 2  # both past a limit
    assert e == pytest.approx(expected, rel=1e-13)
    assert dissipated == 0.0


def gain_and_flow(sim, frames):
    sim._energy_margin = np.array([1e300, 0.0])  # weigh, never stop
    sim.step(frames)
    return sim.data.balance[GAIN], sim.data.balance[FLOW]


def test_a_conservative_chain_gains_nothing():
    """Gravity, springs, exponential springs, servos and armature: what RK4 at h = 1 ms leaves
    of its error. (Limits are left out: RK4 is of low order across their kinks.)"""
    forces = JointForces(spring_k=3.0, spring_rest=(0.2,), exp_spring=ExpSpring(alpha=0.05, beta=4.0, rest=-0.1),
                         servo_kp=1.5, servo_target=(0.4,), armature=0.02)
    sim = simulate(chain(forces), gravity=9.8, dt=0.01, h=0.001, integrator="rk4")
    gain, flow = gain_and_flow(sim, 300)
    assert abs(gain) < 1e-8 and flow == 0.0


def driven_gain(dt):
    """A damped chain driven by bias torques, a motor moving its exponential springs' rests and a
    push on its tip for 2 s, RK4 at h = 1/4800 s: the balance at frames of dt."""
    forces = JointForces(damping=0.4, bias=0.3, exp_spring=ExpSpring(alpha=0.2, beta=3.0))
    sim = simulate(chain(forces), gravity=9.8, dt=dt, h=1 / 4800, integrator="rk4",
                   timeline=[(0.2, "motor", {"joint": "upper", "etarget": 0.8, "time": 0.9}),
                             (0.5, "push", {"body": "lower", "force": [3.0, 0.0, 1.0], "point": [0.7, 0, 0],
                                            "duration": 0.6})])
    return gain_and_flow(sim, round(2 / dt))


def test_the_inputs_and_dampers_are_weighed_to_second_order_in_the_frame():
    """7.8 J pass through the balance; what is left is the frame trapezoids' error, which falls
    fourfold when the frames are halved (4.8e-5, 1.2e-5, 3.0e-6 J)."""
    (g1, flow), (g2, _), (g4, _) = (driven_gain(1 / 240), driven_gain(1 / 480), driven_gain(1 / 960))
    assert flow > 7.0
    assert abs(g1) < 1e-5 * flow
    assert 3.8 < g1 / g2 < 4.2 and 3.8 < g2 / g4 < 4.2


def test_a_spinning_free_body_weighs_its_bias_torques_by_its_rates():
    body = free_body(size=(0.1, 0.2, 0.3), w=(0.0, 0.0, 2.0))
    sim = simulate(creature(body), gravity=0.0, dt=0.01, h=0.001, integrator="rk4")
    sim.data.forces.bias[5] = 0.01  # about the body's z axis
    gain, flow = gain_and_flow(sim, 200)
    assert flow > 0.03 and abs(gain) < 1e-8


def test_a_bounded_gain_goes_on_and_an_exceeded_one_is_a_located_error():
    sim = simulate(chain(), gravity=9.8, dt=0.01, h=0.001, integrator="rk4")
    sim._energy_margin = np.array([0.0, 0.0])  # any gain at all
    sim.data.balance[GAIN] = 1.0  # as if the run had gained a joule already
    with pytest.raises(SimulationError, match=r"simulation unstable at t = 0\.01 s: the state ran away in body '\w+', "
                                        r"joint '\w+' \(revolute\): the run gained 1 J of mechanical energy"):
        sim.step(1)


def test_a_motor_program_ending_inside_a_frame_is_weighed_step_by_step():
    """A stiff exponential spring's rest driven 0.55 rad in 12.3 ms, ending inside a frame of
    1/240 s: weighed over frames it was a false alarm (0.18 J gained by the frame it ended in,
    against 0.34 J moved); step by step (h = 1/2400 s) about 1% of what it moved is left."""
    forces = JointForces(damping=0.005, exp_spring=ExpSpring(alpha=1.0, beta=16.0, rest=0.2))
    leg = creature(Body(name="leg", parent=None, placement=Pose(),
                        joint=Joint(type="revolute", axes=((0, 1, 0),), q0=(0.2,), forces=forces),
                        inertial=Inertial(mass=0.1, com=(0.02, 0, 0), inertia=(1e-4, 1e-4, 1e-4, 0, 0, 0))))
    for integrator in ("rk4", "rkf45", "symplectic_euler"):
        sim = simulate(leg, gravity=9.8, dt=1 / 240, h=1 / 2400, integrator=integrator,
                       timeline=[(0.1, "motor", {"joint": "leg", "etarget": -0.35, "time": 0.0123})])
        gain, flow = gain_and_flow(sim, 60)
        assert flow > 0.1 and abs(gain) < 0.02 * flow, integrator
