"""`kind: fsm` controllers of articulated creatures tick inside the step loop
(pipeline/control/fsm_machines.py, fsm_frames.py): what their sensors read there against
the sensor API (`sim.sensors`), forks, and a failing expression as one located error."""
import math
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError

ROOT = Path(__file__).resolve().parents[1]
# every kind of sensor the schema has, on a swing and on a box that starts pressed 1 mm into
# the ground beside it (so touching from the first frame)
SENSORS = {
    "cx": {"com": "x"}, "cvz": {"com": "vz"},
    "angle": {"joint": "seat", "quantity": "angle"}, "rate": {"joint": "seat", "quantity": "rate"},
    "force": {"joint": "leg", "quantity": "force"},
    "x": {"body": "leg", "quantity": "x"}, "vx": {"body": "leg", "quantity": "vx"},
    "up": {"body": "seat", "quantity": "up"}, "height": {"body": "leg", "quantity": "height"},
    "touching": {"body": "box", "quantity": "touching"},
    "push": {"body": "box", "quantity": "contact_force"},
}


def _scene(tmp_path, variables="{n: 0}", do='[{n: "n + 1"}, {knee: "0.5 + 0.4 * sin(6 * t)"}]'):
    sensors = "\n".join(f"  {k}: {v}" for k, v in SENSORS.items()).replace("'", "")
    (tmp_path / "probe.yaml").write_text(f"""controller: probe
kind: fsm
creature: swing
sensors:
{sensors}
actuators:
  knee: {{joint: leg, set: servo_target, range: [-0.5, 0.5], level: 0.5}}
fsm:
  variables: {variables}
  initial: a
  states:
    a:
      do: {do}
""")
    (tmp_path / "probe_scene.yaml").write_text(f"""scene: probe
environment: {ROOT}/environments/flat.yaml
creatures:
  - use: {ROOT}/creatures/swing.yaml
  - use: {ROOT}/creatures/box.yaml
    at: [{{move: [0, 1.0, 0.099]}}]
controllers:
  - use: probe.yaml
simulation: {{duration: 1, dt: 1/120, integrator: rk4, h: 1/4800}}
""")
    return pipeline.compile(pipeline.load(tmp_path / "probe_scene.yaml"))


def _python_levels(sim):
    """The sensors' levels through the sensor API (pipeline/simulate/sensors.py)."""
    s = sim.sensors
    pos, vel = s.com()
    seat_quat = s.body_pose("seat")[1]
    w, x, y, _ = seat_quat
    leg = s.body_pose("leg")[0]
    force, touching = s.body_contact("box")
    return [pos[0], vel[2], s.joint("seat")[0][0], s.joint("seat")[1][0], s.joint_force("leg")[0],
            leg[0], s.body_velocity("leg")[0][0], 1.0 - 2.0 * (x * x + y * y),
            leg[2] - s.ground(leg[0], leg[1])[0], float(touching), float(np.linalg.norm(force))]


def test_sensors_in_the_step_loop_read_what_the_sensor_api_reads(tmp_path):
    sim = _scene(tmp_path)
    levels = []
    for frames in (0, 40, 40):  # at the start; swinging, the box bouncing; later
        sim.step(frames)
        expected = _python_levels(sim)  # before the tick moves the knee's servo target
        sim.machines.tick(sim, 0)  # the tick a frame boundary runs, at this state
        levels.append(sim.data.machine_slots[:len(SENSORS)].copy())
        np.testing.assert_allclose(levels[-1], expected, rtol=1e-12, atol=1e-12)
    first = dict(zip(SENSORS, levels[0]))
    assert first["touching"] == 1.0 and first["push"] > 1.0 and first["height"] > 0.1
    assert all(abs(lv[list(SENSORS).index("rate")]) > 0.01 for lv in levels[1:])  # it swings


def test_machines_run_in_stretches_and_their_state_forks(tmp_path):
    sim = _scene(tmp_path)
    rec = sim.run(2.0, progress=False)  # 240 frames, in kernel calls of 2 (docs/simulation.md)
    # one tick per frame start (0 .. 240): at the boundaries and inside the kernel alike
    assert np.array_equal(rec.channels["probe_n"], np.arange(1, 242))
    assert np.array_equal(rec.channels["probe_state"], np.zeros(241))
    knee = sim.joint_dofs("leg")[0][0]
    assert sim.data.forces.servo_target[knee] == pytest.approx(0.4 * math.sin(6 * sim.data.time), abs=1e-15)
    y = sim.data.y.copy()
    sim.reset()
    sim.step(240)  # one kernel call: every tick after the first inside it
    np.testing.assert_array_equal(sim.data.y, y)
    twin = sim.fork()
    sim.step(30)
    twin.step(30)
    for a, b in ((sim.data.y, twin.data.y), (sim.data.machine_slots, twin.data.machine_slots)):
        np.testing.assert_array_equal(a, b)


def test_a_failing_expression_is_one_located_error(tmp_path):
    sim = _scene(tmp_path, do='[{n: "1 / max(0, 0.25 - t)"}]')
    located = f"{tmp_path / 'probe_scene.yaml'}:8:5: controllers[0]: fsm controller 'probe': "
    # t = 0.25 s is frame 30: inside a stretch of frames (the kernel's tick), then at the
    # boundary that starts one (Python's)
    for before, frames in ((29, 100), (30, 1)):
        sim.reset()
        sim.step(before)
        with pytest.raises(CorpusError) as err:
            sim.step(frames)
        assert str(err.value) == located + "float division by zero in an expression at t = 0.25 s"
        assert sim.data.time == pytest.approx(0.25, abs=1e-12)
