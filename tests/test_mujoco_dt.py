"""MuJoCo's own models at MuJoCo's own step (issue 20): dm_control's humanoid (5 ms) and
gymnasium's ant (10 ms), converted by `corpus convert --as scene`, run at h = dt with implicit
Euler on the converted ground (a linear spring-damper matching MuJoCo's contact,
pipeline/importers/simulation.py), stay on the ground and end where MuJoCo's do, from the same
start with zero controls. A symplectic Euler run of the humanoid at that step runs away and is
a located SimulationError (tests/test_simulation_runaway.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import pipeline
from pipeline.errors import SimulationError

mujoco = pytest.importorskip("mujoco")
from import_mujoco import model_id, zoo  # noqa: E402  (needs mujoco)

CORPUS = [sys.executable, "-m", "pipeline.cli"]


MODELS = {"humanoid": "suite/humanoid", "ant": "gym/ant"}


def source(name: str) -> Path:
    return next(p for p in zoo() if model_id(p) == MODELS[name])


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mujoco_dt")
    (folder / "corpus.toml").write_text("")
    for name in ("humanoid", "ant"):
        subprocess.run([*CORPUS, "convert", str(source(name)), "--as", "scene", "-o", str(folder / f"{name}.yaml")],
                       check=True, capture_output=True, timeout=300)
    return folder


def up_z(quat) -> float:
    """z component of the body's z axis (1 upright, -1 upside down), quaternion (w, x, y, z)."""
    w, x, y, z = quat
    return 1.0 - 2.0 * (x * x + y * y)


def both(folder: Path, name: str, seconds: float):
    """(ours, MuJoCo's) torso height and up_z per frame over `seconds`, at MuJoCo's dt."""
    doc = yaml.safe_load((folder / f"{name}.yaml").read_text())
    m = mujoco.MjModel.from_xml_path(str(source(name)))
    assert (doc["simulation"]["dt"], doc["simulation"]["h"]) == (m.opt.timestep, m.opt.timestep)
    sim = pipeline.compile(pipeline.load(folder / f"{name}.yaml"))
    d = mujoco.MjData(m)
    frames = round(seconds / m.opt.timestep)
    ours, theirs = np.zeros((frames, 2)), np.zeros((frames, 2))
    for i in range(frames):
        sim.step(1)  # raises SimulationError when unstable
        mujoco.mj_step(m, d)
        pos, quat = sim.body_poses()
        ours[i] = pos[0, 2], up_z(quat[0])
        theirs[i] = d.qpos[2], up_z(d.qpos[3:7])
    return ours, theirs, m


def test_the_humanoid_falls_and_lies_where_mujocos_does_at_5_ms(converted):
    ours, theirs, _ = both(converted, "humanoid", 3.0)
    assert ours[:, 0].max() <= 1.5 + 1e-9 and ours[:, 0].min() > 0.2  # never thrown up, never through the floor
    # MuJoCo's folds over onto its head and shoulders, torso upside down, 0.279 m up (ours 0.275)
    assert abs(ours[-1, 0] - theirs[-1, 0]) < 0.01
    assert theirs[-1, 1] < -0.9 and abs(ours[-1, 1] - theirs[-1, 1]) < 0.03
    assert np.abs(ours[-20:, 0] - ours[-1, 0]).max() < 1e-3  # at rest


def test_the_ant_stands_upright_and_rests_where_mujocos_does_at_10_ms(converted):
    ours, theirs, m = both(converted, "ant", 20.0)
    assert (ours[:, 1] > 0.999).all() and (theirs[:, 1] > 0.999).all()  # both stay upright
    assert ours[:, 0].max() < 0.75 + 0.05 and ours[:, 0].min() > 0.3
    # both end on their ankle limits; MuJoCo's feet rest on its contact margin (floor's plus
    # foot's, 2 cm), ours touch the ground. MuJoCo gets there slowly (0.556 m at 3 s, 0.382 m
    # from 15 s): its limit constraint kicks an ankle that starts outside its range far past
    # the limit, our limit spring-damper stops it there (docs/import.md)
    margin = 2 * m.geom_margin.max()
    assert abs(ours[-1, 0] + margin - theirs[-1, 0]) < 3e-3


def test_symplectic_euler_at_mujocos_step_runs_away_as_a_simulation_error(converted):
    doc = yaml.safe_load((converted / "humanoid.yaml").read_text())
    doc["simulation"].update(integrator="symplectic_euler", duration=0.5)
    sim = pipeline.compile(pipeline.load(doc, allow_outside=True))
    with pytest.raises(SimulationError, match=r"simulation unstable at t = 0\.\d+ s: the state ran away"):
        sim.run(progress=False)


def ant_under_symplectic_euler(converted, seconds):
    doc = yaml.safe_load((converted / "ant.yaml").read_text())
    doc["simulation"].update(integrator="symplectic_euler", duration=seconds)
    return pipeline.compile(pipeline.load(doc, allow_outside=True))


ANT_GAINED = (r": simulation: simulation unstable at t = 2\.\d+ s: the state ran away in body 'torso', joint 'torso' "
              r"\(free\): the run gained \d+ J of mechanical energy that nothing in the scene gave it, beyond \d+ J: 4 "
              r"times lifting the scene's mass by its size \(64\.1 J\) and 25% of the \S+ J its inputs and dampers "
              r"moved; try a smaller h or dt")


def test_the_ant_climbing_under_symplectic_euler_is_caught_by_the_energy_it_gains(converted):
    """The ant under symplectic Euler at MuJoCo's 10 ms bounces off the ground ever higher (z = 21 m
    by 3 s), well within the bounds on its coordinates, and with no input its energy can only
    fall: its balance gains 590 J, past the margin of 4 M g L (64 J) and a quarter of the
    1641 J its limit dampers dissipate, at the bounce at t = 2.1 s."""
    sim = ant_under_symplectic_euler(converted, 3.0)
    with pytest.raises(SimulationError, match=ANT_GAINED):
        sim.run(progress=False)


def test_a_rollout_reports_the_ant_as_stepping_does(converted):
    from pipeline.simulate.rollout import rollout

    sim = ant_under_symplectic_euler(converted, 3.0)
    runs = rollout([sim.fork(), sim.fork()], frames=300)
    with pytest.raises(SimulationError) as error:
        sim.step(300)
    assert list(runs.status) == [5, 5] and runs.errors == [str(error.value)] * 2
    assert all(r.data.time == sim.data.time for r in runs.sims)
