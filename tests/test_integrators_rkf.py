"""RKF45 step control: a rejected step restores every non-integrated value bit for bit
(digest A10), counters, and failures that name the time and the body."""
import numpy as np
import pytest

from pipeline.errors import SimulationError
from pipeline.physics.integrators import RKF45
from pipeline.physics.step import N_ACCEPT, N_EVAL, N_REJECT, NONFINITE, UNDERFLOW, advance
from simulation_helpers import (Body, ExpSpring, Geom, Inertial, Joint, JointForces, Pose,
                                creature, simulate)


def sticky_foot_with_stiff_leg():
    """A sticky box just pressed into the ground, carrying a stiff exp-spring leg."""
    foot = Body(name="foot", parent=None, placement=Pose(), sticky=True,
                joint=Joint(type="free", q0=(0, 0, 0.005 - 2e-6, 1, 0, 0, 0),
                            qd0=(0.01, 0, 0, 0, 0, 0)),
                geoms=(Geom(shape="box", size=(0.01, 0.01, 0.01), density=1000.0),))
    leg = Body(name="leg", parent="foot", placement=Pose((0, 0, 0.005)),
               joint=Joint(type="revolute", axes=((0, 1, 0),), q0=(0.02,),
                           forces=JointForces(damping=1e-6,
                                              exp_spring=ExpSpring(1e-3, 40.0, 0.0))),
               inertial=Inertial(mass=1e-3, com=(0, 0, 0.01), inertia=(1e-7, 1e-7, 1e-7, 0, 0, 0)))
    return creature(foot, leg)


def snapshot(d):
    return {"y": d.y.copy(), "cstate": d.cstate.copy(), "motor_active": d.motor_active.copy(),
            "motor_target": d.motor_target.copy(), "motor_vel": d.motor_vel.copy(),
            "motor_end": d.motor_end.copy(), "pushes": d.pushes.copy(),
            "forces": [a.copy() for a in d.forces], "gravity": d.gravity.copy(),
            "ctrl": d.ctrl.copy()}


def test_a10_rejected_step_restores_all_non_integrated_state():
    dt = 1 / 240
    sim = simulate(sticky_foot_with_stiff_leg(), environment={}, gravity=9.8, dt=dt,
                   integrator="rkf45", h=dt, atol=1e-12, rtol=1e-12)
    sim.command("motor", {"joint": "leg", "etarget": 0.4, "time": 0.5})
    sim.command("push", {"body": "foot", "force": [0.0, 0.02, 0.0], "duration": 1.0})
    d = sim.data
    before = snapshot(d)
    fail = np.zeros(2)
    # h_min just under h: the first rejection ends the frame before anything is retried
    status = advance(sim._statics, sim._live(), sim._work, RKF45, 0.0, dt, dt, 1e-12, 1e-12,
                     0.99 * dt, dt, d.y, d.cstate, d.counters, d.h_next, fail, sim._events,
                     d.event_log, d.event_count)
    assert status in (UNDERFLOW, NONFINITE)  # rejected: too large an error, or overflow
    assert list(d.counters[[N_ACCEPT, N_REJECT, N_EVAL]]) == [0, 1, 6]
    after = snapshot(d)
    for key in before:
        if key == "forces":
            assert all(np.array_equal(a, b) for a, b in zip(before[key], after[key]))
        else:
            assert np.array_equal(before[key], after[key]), key
    # the attempt did compute new sticky anchors; they were not committed
    assert not np.array_equal(sim._work.cs_cand, d.cstate)


def test_rejections_then_acceptance_commit_the_anchors():
    dt = 1 / 240
    sim = simulate(sticky_foot_with_stiff_leg(), environment={}, gravity=9.8, dt=dt,
                   integrator="rkf45", h=dt, atol=1e-9, rtol=1e-9)
    c0 = sim.data.cstate.copy()
    sim.step(2)
    s = sim.stats()
    assert s["rejected_steps"] > 0 and s["accepted_steps"] > 0
    # every attempt costs 5 evaluations, plus one first stage per accepted step
    assert s["derivative_evaluations"] == 6 * s["accepted_steps"] + 5 * s["rejected_steps"]
    assert not np.array_equal(sim.data.cstate, c0)


def test_fixed_step_counters_and_per_second_rates():
    sim = simulate(sticky_foot_with_stiff_leg(), gravity=0.0, dt=1 / 100, h=1 / 2000,
                   integrator="rk4", duration=0.5)
    sim.run(progress=False)
    s = sim.stats()
    assert s["simulated_time"] == pytest.approx(0.5, abs=1e-15)
    assert s["accepted_steps"] == 1000 and s["rejected_steps"] == 0
    assert s["derivative_evaluations"] == 4000
    assert s["derivative_evaluations_per_second"] == pytest.approx(8000.0, rel=1e-12)


def test_step_size_underflow_names_time_and_body():
    sim = simulate(sticky_foot_with_stiff_leg(), gravity=9.8, dt=1 / 240, integrator="rkf45",
                   atol=1e-14, rtol=1e-14, h_min=1e-4)
    with pytest.raises(SimulationError) as err:
        sim.run(progress=False)
    msg = str(err.value)
    assert "step size fell below h_min" in msg and "t = 0 s" in msg
    assert "'foot'" in msg or "'leg'" in msg


def test_blow_up_names_time_and_body_and_returns_nothing():
    """A violently stiff spring with a far too long fixed step overflows to inf/NaN."""
    leg = Body(name="whip", parent=None, placement=Pose(),
               joint=Joint(type="revolute", axes=((0, 0, 1),), q0=(0.5,),
                           forces=JointForces(exp_spring=ExpSpring(50.0, 30.0, 0.0))),
               inertial=Inertial(mass=1e-3, com=(0.01, 0, 0), inertia=(1e-8,) * 3 + (0, 0, 0)))
    sim = simulate(creature(leg), gravity=0.0, dt=1 / 60, integrator="rk4", duration=1.0)
    with pytest.raises(SimulationError) as err:
        sim.run(progress=False)
    msg = str(err.value)
    assert "NaN/inf" in msg and "'whip'" in msg and "t = 0.0166666667 s" in msg
