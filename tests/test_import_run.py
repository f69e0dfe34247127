"""Every model of the importer zoo runs as converted: `corpus convert --as scene` writes a
simulation block (MuJoCo's timestep as dt, implicit Euler at h = dt where stable) and starts free
creatures clear of the ground, so each scene simulates its 1 s with no hand edits and none
goes unstable (pipeline/importers/simulation.py)."""
from pathlib import Path

import numpy as np
import pytest
import yaml

import pipeline
from pipeline.cli import main

from import_mujoco import model_id, zoo

MODELS = [p for p in zoo() if p.stem != "lqr"]  # lqr.xml is a template without bodies
SLOW = {"suite/dog", "suite/humanoid_CMU"}  # several seconds each; the rest take about one


def convert(path: Path, out: Path, capsys) -> Path:
    """`corpus convert --as scene`, strict when the model allows it."""
    status = main(["convert", str(path), "-o", str(out), "--as", "scene"])
    if status != 0:  # elements with no corpus counterpart (each listed): convert without them
        assert "--drop-unsupported" in capsys.readouterr().err
        assert main(["convert", str(path), "-o", str(out), "--as", "scene", "--drop-unsupported"]) == 0
    return out


@pytest.mark.parametrize("path", [pytest.param(p, id=model_id(p), marks=[pytest.mark.slow] if model_id(p) in SLOW else [])
                                  for p in MODELS])
def test_converted_scene_runs_its_second_as_written(path, tmp_path, capsys):
    scene_file = convert(path, tmp_path / "scene.yaml", capsys)
    written = yaml.safe_load(scene_file.read_text())["simulation"]
    assert written["integrator"] == "implicit_euler" and written["duration"] >= 1.0
    scene = pipeline.load(scene_file, allow_outside=True)
    rec = pipeline.compile(scene).run(progress=False)  # raises SimulationError when unstable
    assert rec.time[-1] == pytest.approx(written["duration"])
    assert np.isfinite(rec.q).all() and np.isfinite(rec.qd).all()
    assert np.abs(rec.body_pos).max() < 100.0  # nothing thrown off to infinity


def test_mujoco_timestep_becomes_dt_and_a_model_inside_its_floor_is_lifted(tmp_path, capsys):
    path = next(p for p in MODELS if model_id(p) == "gym/humanoidstandup")  # timestep 0.003 s
    text = convert(path, tmp_path / "standup.yaml", capsys).read_text()
    doc = yaml.safe_load(text)
    assert doc["simulation"] == {"duration": 1.002, "dt": 0.003, "integrator": "implicit_euler", "h": 0.003}
    # MuJoCo starts its arms 3.6 cm inside the floor; corpus starts it touching
    assert doc["creatures"][0]["at"][-1] == {"move": [0, 0, pytest.approx(0.036, abs=1e-3)]}
    assert "starts 3.6 cm higher than in MuJoCo" in text
