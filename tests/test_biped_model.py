"""creatures/biped.yaml (issue 18): Coros's BipV3-like humanoid — mass, degrees of freedom,
and standing on flat ground under the biped controller's joint PD for 1 s."""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.physics.model import BALL, FREE, REVOLUTE, UNIVERSAL

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "scenes" / "biped_walk.yaml"


def test_mass_and_degrees_of_freedom_are_bipv3s():
    sim = pipeline.compile(pipeline.load(ROOT / "creatures" / "biped.yaml"))
    tree = sim.model.tree
    assert float(np.sum(tree.mass)) == pytest.approx(70.4, abs=1e-12)
    assert sim.model.nv == 37
    kinds = [int(j) for j in tree.jtype]
    assert (kinds.count(FREE), kinds.count(BALL), kinds.count(REVOLUTE), kinds.count(UNIVERSAL)) == (1, 7, 6, 2)
    names = list(sim.model.body_names)
    assert names[0] == "pelvis" and kinds[0] == FREE
    # standing height: soles on z = 0, head top about 1.73 m
    pos = {n: sim.sensors.body_pose(n)[0] for n in names}
    assert pos["left_foot"][2] == pytest.approx(0.06) and pos["pelvis"][2] == pytest.approx(0.95)


def test_it_stands_one_second_under_joint_pd():
    scene = pipeline.load(SCENE)
    sim = pipeline.compile(scene)
    walk = sim.data.user["biped_walk"]["biped"]
    walk.command({"mode": "stand", "speed": 0.0})
    feet0 = np.array([sim.sensors.body_pose(f"{s}_foot")[0] for s in ("left", "right")])
    heights = []
    for _ in range(10):
        sim.step(int(round(0.1 / sim.dt)))
        heights.append(sim.sensors.body_pose("pelvis")[0][2])
    feet = np.array([sim.sensors.body_pose(f"{s}_foot")[0] for s in ("left", "right")])
    assert not walk.fell
    assert min(heights) > 0.93  # nominal 0.95 m: no buckling
    assert np.abs(feet - feet0).max() < 0.01  # the feet stay planted
    com, vel = sim.sensors.com()
    lo = feet[:, 0].min() - 0.06
    hi = feet[:, 0].max() + 0.15  # heel to toe tip
    assert lo < com[0] < hi and abs(com[1]) < 0.08
