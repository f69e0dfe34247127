"""The particle engine behind the simulation stage's interface: one Scene, fork, checkpoints,
sim.sensors, the sub-step rule."""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.particles.data import ParticleData
from pipeline.particles.simulation import ParticleSimulation, compile_particles, substeps
from pipeline.particles.spec import resolve_particles, scene_of
from pipeline.particles.types import World, world_of
from pipeline.simulate import engine_of
from pipeline.spec.types import Scene, SimulationSettings

ROOT = Path(__file__).resolve().parents[1]
HOP = ROOT / "scenes" / "roobot_hop.yaml"


def arrays(rec, sim):
    return {"body_pos": rec.body_pos, "qd": rec.qd, "fsm_state": np.asarray(rec.channels["fsm_state"]),
            "live": np.concatenate(list(sim.data.live)), "time": np.array([sim.data.time])}


def assert_same(a: dict, b: dict):
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def test_a_particle_scene_is_a_scene_with_the_shared_settings():
    scene = pipeline.load(HOP)
    assert type(scene) is Scene and type(scene.simulation) is SimulationSettings
    assert scene.simulation.dt == 1 / 500 and scene.simulation.record_every == 5
    assert world_of(scene) == World() and scene.environment["ground"] == {"type": "flat", "z": 0.0}
    assert engine_of(scene).name == "particles" and isinstance(pipeline.compile(scene), ParticleSimulation)
    jelly = pipeline.load(ROOT / "scenes" / "jellyfish.yaml")
    assert world_of(jelly).media[0].name == "water" and world_of(jelly).floor_z == 0.0
    # the saved document loads again to the same model
    a = pipeline.compile(jelly).model
    b = pipeline.compile(pipeline.load(json.loads(json.dumps(jelly.source)))).model
    assert a.body_names == b.body_names and np.array_equal(a.pos0, b.pos0)
    assert all(np.array_equal(x, y) for x, y in zip(a.arrays, b.arrays))


def test_run_keeps_the_recording_and_record_every_counts_frames():
    sim = pipeline.compile(pipeline.load(HOP))
    rec = sim.run(0.1, progress=False)
    assert sim.recording is rec and len(rec.time) == 11  # 50 frames, every 5th and the start
    assert rec.time[-1] == pytest.approx(0.1)


def test_fork_continues_identically():
    sim = pipeline.compile(pipeline.load(HOP))
    sim.run(0.5, progress=False)
    twin = sim.fork()
    assert twin.data is not sim.data and twin.data.controllers[0] is not sim.data.controllers[0]
    a = arrays(sim.run(0.5, progress=False), sim)
    b = arrays(twin.run(0.5, progress=False), twin)
    assert_same(a, b)
    sim.reset()
    assert sim.data.time == 0.0 and sim.recording is None


def test_checkpoint_continues_identically_in_a_fresh_process(tmp_path):
    sim = pipeline.compile(pipeline.load(HOP))
    sim.run(0.5, progress=False)
    sim.data.save(tmp_path / "half.ckpt")
    here = arrays(sim.run(0.5, progress=False), sim)
    script = f"""
import numpy as np, pipeline
from pipeline.particles.data import ParticleData
sim = pipeline.compile(pipeline.load({str(HOP)!r}))
sim.data = ParticleData.load({str(tmp_path / 'half.ckpt')!r})
rec = sim.run(0.5, progress=False)
np.savez({str(tmp_path / 'there.npz')!r}, body_pos=rec.body_pos, qd=rec.qd,
         fsm_state=np.asarray(rec.channels["fsm_state"]), live=np.concatenate(list(sim.data.live)),
         time=np.array([sim.data.time]))
"""
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)
    with np.load(tmp_path / "there.npz") as there:
        assert_same(here, dict(there))


def test_a_checkpoint_of_the_other_engine_is_refused(tmp_path):
    (tmp_path / "x.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(CorpusError, match="not a corpus checkpoint"):
        ParticleData.load(tmp_path / "x.ckpt")


def test_sensors_read_point_masses_by_name():
    doc = {"particles": "pair", "world": {"gravity": 9.8},
           "masses": [{"name": "a", "mass": 1.0, "radius": 0.1, "at": [0, 0, 0.1]},
                      {"name": "j", "mass": 3.0, "radius": 0.1, "at": [1, 0, 0.5], "velocity": [0, 1, 0]},
                      {"name": "b", "mass": 1.0, "radius": 0.1, "at": [1, 0, 1.5]}],
           "forces": [{"gravity": "all"}, {"floor": "all"},
                      {"name": "elbow", "angle": ["a", "j", "b"], "k": 2.0}]}  # rest: as placed
    sim = compile_particles(scene_of(resolve_particles(doc), dt=0.01))
    s = sim.sensors
    pos, quat = s.body_pose("j")
    assert pos.tolist() == [1, 0, 0.5] and quat.tolist() == [1, 0, 0, 0]
    assert [v.tolist() for v in s.body_velocity("j")] == [[0, 1, 0], [0, 0, 0]]
    force, touching = s.body_contact("a")
    assert touching and force == pytest.approx([0, 0, 9.8])  # the floor holds its weight
    assert s.body_contact("b")[1] is False and not s.body_contact("b")[0].any()
    com, vel = s.com()
    assert com == pytest.approx([0.8, 0, (0.1 + 1.5 + 1.5) / 5]) and vel == pytest.approx([0, 0.6, 0])
    angle, rate = s.joint("elbow")
    expected = math.acos(np.dot([-1, 0, -0.4], [0, 0, 1]) / math.hypot(1, 0.4))
    assert angle == pytest.approx([expected]) and rate == pytest.approx([0.0])
    assert s.joint_force("elbow") == pytest.approx([0.0])
    sim.data.live.an_rest[0] = 1.0
    assert s.joint_force("elbow") == pytest.approx([2.0 * (expected - 1.0)])
    assert s.ground(3.0, -2.0)[0] == 0.0 and s.ground(0, 0)[1].tolist() == [0, 0, 1]
    with pytest.raises(CorpusError, match=r"point masses have no joints: 'hip' .*angle elements: elbow"):
        s.joint("hip")
    with pytest.raises(CorpusError, match="no point mass named 'c'"):
        s.body_pose("c")
    sim.step(1)  # the sensors follow the state
    assert s.body_pose("j")[0][1] == pytest.approx(0.01, abs=1e-5)


def test_substeps_never_exceed_h():
    assert substeps(1 / 240, 1e-3) == 5  # 0.833 ms, not round()'s 4 steps of 1.04 ms
    assert substeps(0.05, 2e-4) == 250 and substeps(0.01, 0.01) == 1 and substeps(0.01, 0.02) == 1
    sim = compile_particles(scene_of(resolve_particles({
        "particles": "b", "masses": [{"name": "b", "mass": 1, "radius": 0.1, "at": [0, 0, 1]}],
        "forces": [{"gravity": "all"}]}), dt=1 / 240, h=1e-3))
    sim.step(2)
    assert sim.data.counters[0] == 10 and sim.substep <= 1e-3
