"""Motor programs (McKenna §5.1, digest B9): the exp-spring rest moves at constant speed to
its target, holds it, and the program deactivates."""
import numpy as np
import pytest

from simulation_helpers import (Body, ExpSpring, Inertial, Joint, JointForces, Pose, creature,
                                simulate)


def leg(rest=0.2, alpha=1.0, beta=16.0):
    return creature(Body(
        name="leg", parent=None, placement=Pose(),
        joint=Joint(type="revolute", axes=((0, 1, 0),), q0=(rest,),
                    forces=JointForces(damping=0.005,
                                       exp_spring=ExpSpring(alpha=alpha, beta=beta, rest=rest))),
        inertial=Inertial(mass=0.1, com=(0.02, 0, 0), inertia=(1e-4, 1e-4, 1e-4, 0, 0, 0))))


@pytest.mark.parametrize("integrator", ["rk4", "rkf45", "symplectic_euler"])
@pytest.mark.parametrize("duration", [0.05, 0.0123], ids=["whole-frames", "mid-frame-end"])
def test_b9_motor_ramp(integrator, duration):
    t0, theta0, target = 0.1, 0.2, -0.35
    sim = simulate(leg(theta0), gravity=9.8, dt=1 / 240, h=1 / 2400, integrator=integrator,
                   timeline=[(t0, "motor", {"joint": "leg", "etarget": target, "time": duration})])
    rest, active, times = [], [], []
    for _ in range(60):
        sim.step()
        times.append(sim.time)
        rest.append(sim.data.exp_rest[0])
        active.append(sim.data.motor_active[0])
    times, rest = np.array(times), np.array(rest)
    s = np.clip((times - t0) / duration, 0.0, 1.0)
    assert np.abs(rest - (theta0 + s * (target - theta0))).max() <= 1e-12
    assert rest[-1] == target  # snapped exactly, then held
    ended = times >= t0 + duration - 1e-12
    assert not any(np.array(active)[ended]) and all(np.array(active)[(times > t0) & ~ended])
    assert abs(sim.data.q[0] - target) < 0.05  # the joint is dragged along


def test_instant_rest_change_and_jointmatchexp():
    sim = simulate(leg(0.2), gravity=9.8, dt=1 / 240, h=1 / 4800, integrator="rk4",
                   timeline=[(0.0, "motor", {"joint": "leg", "etarget": 0.6}),
                             (0.1, "jointmatchexp", {"joint": "leg"})])
    sim.step()
    assert sim.data.exp_rest[0] == 0.6 and sim.data.motor_active[0] == 0
    sim.step(23)
    q_before = sim.data.q[0]
    sim.step()  # t = 0.1: rest := q at the frame boundary
    assert sim.data.exp_rest[0] == q_before


def test_joint_command_overrides_a_running_program():
    # h as in the other tests: RK4 at h = dt = 1/240 s diverges on this spring (q ~ 1e45 rad
    # by t = 0.05 s), which the runaway check now reports
    sim = simulate(leg(0.2), gravity=0.0, dt=1 / 240, h=1 / 4800, integrator="rk4",
                   timeline=[(0.0, "motor", {"joint": "leg", "etarget": 1.0, "time": 1.0}),
                             (0.05, "joint", {"joint": "leg", "exp_rest": -0.1})])
    sim.step(13)
    assert sim.data.motor_active[0] == 0
    assert sim.data.exp_rest[0] == -0.1
