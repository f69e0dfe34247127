"""Simulation.run/step/reset, Recording, Python controllers, pipeline.compiler."""
import numpy as np
import pytest

from pipeline.spec.transforms import matrix_from_quat as quat_to_matrix
from pipeline.errors import CorpusError
from pipeline.physics import forward_kinematics
from pipeline.simulate.articulated import compile_simulation
from pipeline.recording import Recording
from pipeline.spec.types import ControllerRef, Where
from simulation_helpers import (Body, Inertial, Joint, Pose, creature, free_body, scene, simulate)
from test_integrators_articulated import floating_tree


def hinge():
    return creature(Body(name="hinge", parent=None, placement=Pose(),
                         joint=Joint(type="revolute", axes=((0, 0, 1),)),
                         inertial=Inertial(mass=1.0, inertia=(0.1, 0.1, 0.1, 0, 0, 0))))


def pd_ref(**params):
    return ControllerRef(kind="python", python="simulation_controllers:pd",
                         params={"target": 0.5, "kp": 4.0, "kd": 1.2, **params},
                         where=Where(file="scene.yaml", line=30, col=5, path="controllers[0]"))


def test_python_controller_runs_every_frame_and_records_its_channel(tmp_path):
    sim = simulate(hinge(), gravity=0.0, dt=0.01, controllers=[pd_ref()], duration=3.0)
    rec = sim.run(progress=False)
    calls = sim.data.user["calls"]
    assert len(calls) == 301 and np.allclose(calls, np.arange(301) * 0.01, rtol=0, atol=1e-15)
    # critically damped-ish PD on I = 0.1: settles on the target
    assert abs(rec.q[-1, 0] - 0.5) < 1e-3
    assert np.array_equal(rec.channels["err"], rec.q[:, 0] - 0.5)
    path = tmp_path / "trajectory.npz"
    rec.save(path)
    with np.load(path) as z:
        assert sorted(z.files) == sorted(["time", "body_names", "body_pos", "body_quat", "q",
                                          "qd", "ch_err"])
    back = Recording.load(path)
    assert back.body_names == ("hinge",)
    for key in ("time", "body_pos", "body_quat", "q", "qd"):
        assert np.array_equal(getattr(back, key), getattr(rec, key))
    assert np.array_equal(back.channels["err"], rec.channels["err"])
    assert not list(tmp_path.glob("*.tmp-*"))


def test_controller_problems_name_the_scene_line():
    bad = [ControllerRef(kind="python", python="simulation_controllers:nothing_here",
                         where=Where(file="scene.yaml", line=30, col=5, path="controllers[0]")),
           ControllerRef(kind="python", python="no_such_module_xyz:f", where=Where("s.yaml", 3, 1)),
           ControllerRef(kind="python", python="simulation_controllers:not_callable"),
           ControllerRef(kind="python", python="missing_colon")]
    messages = []
    for ref in bad:
        with pytest.raises(CorpusError) as err:
            simulate(hinge(), controllers=[ref])
        messages.append(str(err.value))
    assert messages[0].startswith("scene.yaml:30:5: controllers[0]: python controller")
    assert "has no attribute 'nothing_here'" in messages[0]
    assert messages[1].startswith("s.yaml:3:1:") and "cannot import" in messages[1]
    assert "not callable" in messages[2] and "package.module:function" in messages[3]
    sim = simulate(hinge(), dt=0.01, controllers=[ControllerRef(
        kind="python", python="simulation_controllers:broken", where=Where("s.yaml", 4, 3))])
    with pytest.raises(CorpusError, match=r"s.yaml:4:3: .*raised ValueError in \S*simulation_controllers.py:15 "
                                          r"at t = 0.02 s: sensor unplugged"):
        sim.run(0.1, progress=False)


def test_record_every_and_poses_match_forward_kinematics():
    sim = simulate(floating_tree(), gravity=9.8, dt=0.01, record_every=3, duration=0.2)
    rec = sim.run(progress=False)
    assert np.allclose(rec.time, np.arange(0, 21, 3) * 0.01, rtol=0, atol=1e-15)
    assert rec.body_pos.shape == (7, 4, 3) and rec.body_quat.shape == (7, 4, 4)
    assert rec.q.shape == (7, sim.model.nq) and rec.qd.shape == (7, sim.model.nv)
    xpos, xrot = forward_kinematics(sim.model, rec.q[3])
    assert np.allclose(rec.body_pos[3], xpos, rtol=0, atol=1e-15)
    for b in range(4):
        assert np.allclose(quat_to_matrix(rec.body_quat[3, b]), xrot[b], rtol=0, atol=1e-14)


def test_step_and_run_agree_and_reset_restarts():
    sim = simulate(floating_tree(), gravity=9.8, dt=0.01, integrator="rkf45", duration=0.3)
    first = sim.run(progress=False)
    assert sim.time == pytest.approx(0.3, abs=1e-15) and sim.data.frame == 30
    sim.reset()
    assert sim.time == 0.0 and np.array_equal(sim.data.q, sim.model.q0)
    assert sim.stats()["derivative_evaluations"] == 0
    sim.step(30)
    assert np.array_equal(sim.data.q, first.q[-1]) and np.array_equal(sim.data.qd, first.qd[-1])
    sim.reset()
    again = sim.run(progress=False)
    assert np.array_equal(again.q, first.q)


def test_progress_bar_goes_to_stderr_only_when_asked(capsys):
    sim = simulate(hinge(), dt=0.01, duration=0.05)
    sim.run(progress=False)
    assert capsys.readouterr().err == ""
    sim.reset()
    sim.run(progress=True)
    assert "frame" in capsys.readouterr().err


def test_compile_simulation_accepts_a_scene_or_a_creature():
    sim = compile_simulation(scene(creature(free_body()), gravity=9.8))
    assert sim.model.nq == 7 and sim.settings.integrator == "rk4"
    lone = compile_simulation(creature(free_body()))
    assert lone.model.body_names == ("box",) and lone.dt == pytest.approx(1 / 240)


def test_unknown_integrator_is_a_located_user_error():
    from pipeline.spec.types import Scene, SimulationSettings

    sc = scene(hinge())
    bad = Scene(name=sc.name, creatures=sc.creatures, environment=sc.environment,
                simulation=SimulationSettings(integrator="leapfrog"),
                where=Where(file="s.yaml", line=1, col=1))
    with pytest.raises(CorpusError, match="s.yaml:1:1: simulation.integrator: unknown "
                                          "integrator 'leapfrog'"):
        compile_simulation(bad)
