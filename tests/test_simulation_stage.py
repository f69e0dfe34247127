"""The simulation stage: forkable and checkpointed Data, events in the step loop, sensors,
in-memory evaluation, fsm controllers on articulated creatures, executors mapping any
function."""
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.batch.executors import LocalExecutor
from pipeline.errors import CorpusError
from pipeline.simulate import ENGINES, engine_of
from pipeline.simulate.data import Data
from pipeline.simulate.evaluate import simulation_for
from pipeline.simulate.metrics import compute

ROOT = Path(__file__).resolve().parents[1]
TRIPOD = ROOT / "scenes" / "roach_tripod.yaml"
BOX = ROOT / "scenes" / "box_drop.yaml"
G = 9.8


def _same(a: Data, b: Data) -> None:
    assert a.time == b.time and a.frame == b.frame
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.cstate, b.cstate)
    np.testing.assert_array_equal(a.counters, b.counters)


@pytest.fixture(scope="module")
def walked_one_second():
    """The walking roach (gait controller, timers, sticky flags) after 1 s."""
    sim = pipeline.compile(pipeline.load(TRIPOD))
    sim.step(int(round(1.0 / sim.dt)))
    return sim


def test_fork_continues_identically(walked_one_second):
    sim = walked_one_second
    fork = sim.fork()
    n = int(round(1.0 / sim.dt))
    fork.step(n)
    sim_copy = sim.fork()  # the original must be untouched by the fork's stepping
    sim_copy.step(n)
    _same(fork.data, sim_copy.data)
    assert fork.data.user["gait"]["roach"] is fork.data.controllers[0].controller
    assert fork.data.user["gait"]["roach"] is not sim.data.user["gait"]["roach"]
    np.testing.assert_array_equal(fork.data.channels["leg_state"], sim_copy.data.channels["leg_state"])


def test_checkpoint_resumes_identically_in_a_new_process(walked_one_second, tmp_path):
    sim = walked_one_second
    checkpoint = tmp_path / "roach.ckpt"
    sim.data.save(checkpoint)
    twin = sim.fork()
    twin.step(int(round(0.5 / sim.dt)))
    expected = tmp_path / "expected.npy"
    np.save(expected, np.concatenate([[twin.data.time], twin.data.y, twin.data.cstate]))
    script = textwrap.dedent(f"""
        import numpy as np, pipeline
        from pipeline.simulate.data import Data
        sim = pipeline.compile(pipeline.load({str(TRIPOD)!r}))
        sim.data = Data.load({str(checkpoint)!r})
        sim.step(int(round(0.5 / sim.dt)))
        got = np.concatenate([[sim.data.time], sim.data.y, sim.data.cstate])
        assert np.array_equal(got, np.load({str(expected)!r})), "resumed run differs"
        print("identical")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "identical"


def test_a_damaged_checkpoint_is_one_message(tmp_path):
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(CorpusError, match="not a corpus checkpoint"):
        Data.load(bad)


def test_a_stop_event_ends_the_run_at_the_crossing_time():
    # the box falls freely from z = 0.5 m; RK4 is exact for constant acceleration, so the
    # bisected stop time is the analytic one up to the bracket's tolerance
    sim = simulation_for(BOX, {"events": [{"name": "low", "when": {"body": "box", "below": 0.3}}]})
    sim.reset()
    rec = sim.run(progress=False)
    t = math.sqrt(2 * 0.2 / G)
    assert sim.data.time == pytest.approx(t, abs=1e-10)
    assert rec.time[-1] == sim.data.time
    assert rec.body_pos[-1, 0, 2] == pytest.approx(0.3, abs=1e-9)
    assert sim.events == [(sim.data.time, "low")]
    sim.step(10)  # a stopped run stays stopped
    assert sim.data.time == pytest.approx(t, abs=1e-10)


def test_record_events_are_logged_and_the_run_goes_on():
    sim = simulation_for(BOX, {"events": [
        {"name": "below_40", "when": {"body": "box", "below": 0.4}, "do": "record"},
        {"name": "below_35", "when": {"body": "box", "below": 0.35}, "do": "record"}],
        "simulation.duration": 0.3})
    sim.reset()
    sim.run(progress=False)
    (t1, n1), (t2, n2) = sim.events
    assert (n1, n2) == ("below_40", "below_35")
    assert t1 == pytest.approx(math.sqrt(2 * 0.1 / G), abs=1e-10)
    assert t2 == pytest.approx(math.sqrt(2 * 0.15 / G), abs=1e-10)
    assert sim.data.time == pytest.approx(0.3)


def test_events_name_unknown_bodies_at_their_line(tmp_path):
    scene = tmp_path / "s.yaml"
    scene.write_text(BOX.read_text().replace("environment: ../environments/flat.yaml",
                                             f"environment: {ROOT / 'environments' / 'flat.yaml'}")
                     .replace("creatures:\n  - use: ../creatures/box.yaml",
                              f"creatures:\n  - use: {ROOT / 'creatures' / 'box.yaml'}")
                     + "events:\n  - {name: e, when: {body: boxx, below: 0.1}}\n")
    with pytest.raises(CorpusError) as err:
        pipeline.load(scene, allow_outside=True)
    assert "s.yaml:11:28: events[0].when.body" in str(err.value) and "did you mean 'box'" in str(err.value)


def test_sensors_agree_with_the_physics():
    sim = simulation_for(BOX, {"creatures[0].at": [{"move": [0, 0, 0.1]}]})  # on a face
    sim.reset()
    sim.step(int(round(0.5 / sim.dt)))  # settled
    s = sim.sensors
    force, touching = s.body_contact("box")
    mass = sim.model.total_mass
    assert touching and force[2] == pytest.approx(mass * G, rel=1e-3)
    pos, quat = s.body_pose("box")
    com, vcom = s.com()
    np.testing.assert_allclose(pos, com, atol=1e-12)  # a uniform box: its frame is its COM
    lin, ang = s.body_velocity("box")
    np.testing.assert_allclose(lin, vcom, atol=1e-12)
    height, normal = s.ground(pos[0], pos[1])
    assert height == 0.0 and list(normal) == [0.0, 0.0, 1.0]
    with pytest.raises(CorpusError, match="no body named"):
        s.body_pose("nope")


def test_sensor_velocities_are_the_derivative_of_poses():
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "pendulum5.yaml"))
    sim.step(30)
    h = sim.dt
    p0, _ = sim.sensors.body_pose("link4")
    c0, v0 = sim.sensors.com()
    lin, _ = sim.sensors.body_velocity("link4")
    twin = sim.fork()
    twin.step(1)
    p1, _ = twin.sensors.body_pose("link4")
    c1, _ = twin.sensors.com()
    np.testing.assert_allclose((p1 - p0) / h, lin, atol=2e-2 * np.abs(lin).max())
    np.testing.assert_allclose((c1 - c0) / h, v0, atol=2e-2 * np.abs(v0).max())
    angle, rate = sim.sensors.joint("link0")
    assert angle.shape == rate.shape == (1,)


def test_sensor_kinematics_pass_is_what_the_body_sensors_read():
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "pendulum5.yaml"))
    sim.step(30)
    s = sim.sensors
    k = s.kinematics()
    b = sim.body_index("link4")
    pos, _ = s.body_pose("link4")
    lin, ang = s.body_velocity("link4")
    np.testing.assert_array_equal(k.xpos[b], pos)
    np.testing.assert_allclose(k.xrot[b] @ k.v[b, :3], ang, atol=1e-12)  # body axes -> world
    np.testing.assert_allclose(k.xrot[b] @ k.v[b, 3:], lin, atol=1e-12)
    sim.step(1)
    assert not np.array_equal(s.kinematics().xpos[b], pos)  # a new state, a new pass


def test_fsm_drives_an_articulated_creature():
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "swing_fsm.yaml"))
    rec = sim.run(12, progress=False)
    swing = np.degrees(np.abs(rec.q[:, 0]))
    state = rec.channels["pump_state"]
    assert swing[rec.time < 1].max() < 20  # starts at 5 degrees
    assert 35 < swing.max() < 60  # pumped up to `high` (40 degrees), with some overshoot
    assert set(np.unique(state)) == {0.0, 1.0, 2.0}  # forward, back and coast all visited
    assert rec.channels["pump_pushes"][-1] >= 8


def test_evaluate_reuses_the_compiled_simulation_and_applies_overrides():
    metrics = {"drop": {"metric": "displacement", "axis": "z", "body": "box"}, "fell": {"metric": "fell"}}
    a = pipeline.evaluate(BOX, metrics=metrics, duration=0.2)
    b = pipeline.evaluate(BOX, metrics=metrics, duration=0.2)
    assert a == b
    assert a["drop"] == pytest.approx(-0.5 * G * 0.2 ** 2, rel=1e-9)  # free fall
    assert simulation_for(BOX) is simulation_for(BOX)
    moon = pipeline.evaluate(BOX, {"environment.gravity": 1.62}, metrics=metrics, duration=0.2)
    assert moon["drop"] == pytest.approx(-0.5 * 1.62 * 0.2 ** 2, rel=1e-9)
    assert moon["simulated_time"] == pytest.approx(0.2)


def test_metrics_by_name_and_their_errors():
    sim = simulation_for(BOX)
    sim.reset()
    rec = sim.run(0.25, progress=False)
    out = compute(rec, sim.model, ["speed", "time_until", {"e": {"metric": "mechanical_energy", "at": "change"}}])
    assert out["time_until"] == rec.time[-1]  # no condition given: never true
    # no contact yet: energy is conserved by RK4 to its truncation error
    assert abs(out["e"]) < 1e-9 * sim.model.total_mass * G
    until = compute(rec, sim.model, {"t": {"metric": "time_until", "below": 0.45}})["t"]
    assert until == pytest.approx(math.sqrt(2 * 0.05 / G), abs=sim.dt)
    with pytest.raises(CorpusError, match="did you mean 'speed'"):
        compute(rec, sim.model, ["sped"])


def test_one_dispatch_for_both_engines():
    assert [e.name for e in ENGINES] == ["particles", "articulated"]
    assert engine_of(pipeline.load(BOX)).name == "articulated"
    assert engine_of(pipeline.load(ROOT / "scenes" / "roobot_hop.yaml")).name == "particles"


def _square(x):
    return x * x


def _fails(x):
    raise ValueError(f"bad {x}")


def test_local_executor_maps_any_function_on_living_workers():
    with LocalExecutor(2) as ex:
        got = sorted((i, r) for i, r, e in ex.map(_square, range(6)))
        errors = [(i, str(e)) for i, r, e in ex.map(_fails, [7])]
        again = sorted(r for _, r, _ in ex.map(_square, [3]))
    assert got == [(i, i * i) for i in range(6)]
    assert errors == [(0, "bad 7")]
    assert again == [9]


def test_mechanical_energy_of_both_engines_at_rest():
    # at rest the energy is the potential alone: sum of m g z over the (moving) bodies
    for scene in (BOX, ROOT / "scenes" / "roobot_hop.yaml"):
        sim = pipeline.compile(pipeline.load(scene))
        rec = sim.run(0.0, progress=False)
        rec.qd[0] = 0.0
        got = compute(rec, sim.model, {"e": {"metric": "mechanical_energy", "at": "start"}})["e"]
        z = rec.body_pos[0, :, 2]
        moving = getattr(getattr(sim.model, "arrays", None), "integrated", 1.0)  # fixed masses
        # the box's frame is its centre of mass; a particle is its own
        assert got == pytest.approx(float((sim.model.body_mass * moving) @ z) * G, rel=1e-12)


def _recorded(monkeypatch, stretches: bool):
    """box_drop with commands between frames, a controller that holds and a stop event, run
    in stretches of frames that the step loop records itself, or a kernel call per frame."""
    from pipeline.simulate import articulated

    if not stretches:  # one frame per call: every record taken in Python
        monkeypatch.setattr(articulated, "_PROGRESS_STEPS", 10 ** 9)
    sim = simulation_for(BOX, {
        "simulation.record_every": 3,
        "timeline": [{"at": 0.0123, "do": {"velocity": {"body": "box", "linear": [0.3, 0, 0.5]}}},
                     {"at": 0.2, "do": {"push": {"body": "box", "force": [0, 4, 0], "duration": 0.05}}}],
        "controllers": [{"python": "simulation_controllers:stamp_and_hold"}],
        "events": [{"name": "landed", "when": {"body": "box", "below": 0.15}}]})
    sim.reset()
    return sim, sim.run(progress=False)


def test_stretches_record_what_frame_by_frame_runs_record(monkeypatch):
    sim, rec = _recorded(monkeypatch, stretches=True)
    monkeypatch.undo()
    _, by_frame = _recorded(monkeypatch, stretches=False)
    assert sim.events and sim.events[-1][1] == "landed"  # it ends on the stop event
    assert len(rec) == len(by_frame) > 20
    for key, value in by_frame.arrays().items():
        np.testing.assert_array_equal(rec.arrays()[key], value, err_msg=key)
    frames = np.round(rec.time[:-1] / sim.dt).astype(int)
    assert np.array_equal(frames, np.arange(len(rec) - 1) * 3)  # every 3rd frame, then the stop
    assert rec.time[-1] == sim.data.time
    # the controller ran at the start and after each command only
    assert sorted(set(rec.channels["stamp"])) == [0.0, 3 * sim.dt, 48 * sim.dt]
