"""`corpus convert`, the motors controller that carries MJCF actuators, `use: model.xml`
inside a scene, and the documented example scene scenes/humanoid_terrain.yaml."""
from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest
import yaml

import pipeline
from pipeline.cli import main
from pipeline.compiler.build import build_model
from pipeline.errors import CorpusError
from pipeline.importers.actuation import motors
from pipeline.simulate.articulated import compile_simulation

from import_mujoco import model_id, zoo

ROOT = Path(__file__).resolve().parents[1]
MODEL = {model_id(p): p for p in zoo()}


def test_convert_writes_a_creature_that_loads(tmp_path, capsys):
    out = tmp_path / "humanoid.yaml"
    assert main(["convert", str(MODEL["suite/humanoid"]), "-o", str(out)]) == 0
    assert "wrote creature" in capsys.readouterr().out
    text = out.read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    creature = pipeline.load(out, allow_outside=True)
    assert creature.name == "humanoid" and len(creature.bodies) == 25
    assert yaml.safe_load(text)["root"] == {"mode": "free"}


def test_convert_refuses_dynamics_it_cannot_keep_unless_dropped(tmp_path, capsys):
    out = tmp_path / "quadruped.yaml"
    assert main(["convert", str(MODEL["suite/quadruped"]), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "quadruped.xml:271:3: <equality>: <equality> has no corpus counterpart" in err
    assert "--drop-unsupported" in err and not out.exists()
    assert main(["convert", str(MODEL["suite/quadruped"]), "-o", str(out), "--as", "scene",
                 "--drop-unsupported"]) == 0
    assert "dropped:" in capsys.readouterr().err
    scene = pipeline.load(out, allow_outside=True)
    assert scene.environment["gravity"] == [0, 0, -9.81]
    # one creature per top-level body, named after it
    assert [c.name for c in scene.creatures] == ["torso", "ball"]


def test_convert_unknown_extension_is_a_located_error(tmp_path, capsys):
    model = tmp_path / "robot.sdf"
    model.write_text("<sdf/>")
    assert main(["convert", str(model), "-o", str(tmp_path / "x.yaml")]) == 1
    assert "no importer for .sdf (known: .corpus, .txt, .urdf, .xml)" in capsys.readouterr().err


def constant_policy(sim, t, names):
    return [0.5 if n == "hip_1" else -3.0 for n in names]


def test_motors_controller_writes_gear_times_clamped_ctrl(tmp_path):
    out = tmp_path / "ant.yaml"
    assert main(["convert", str(MODEL["gym/ant"]), "-o", str(out), "--as", "scene"]) == 0
    sim = compile_simulation(pipeline.load(out, allow_outside=True))
    ref = sim.scene.controllers[0]
    params = dict(ref.params, ctrl={"hip_1": 0.25, "ankle_4": 7.0})
    motors(sim, 0.0, params)
    gear = {a["name"]: a["gear"] for a in ref.params["actuators"]}
    joint = {a["name"]: a["joint"] for a in ref.params["actuators"]}  # the link carrying it
    ctrl = sim.data.ctrl
    hip, ankle = (sim.model.joint_qvel_slice(joint[n]) for n in ("hip_1", "ankle_4"))
    assert ctrl[hip][0] == 0.25 * gear["hip_1"] and ctrl[ankle][0] == 1.0 * gear["ankle_4"]
    assert np.count_nonzero(ctrl) == 2
    motors(sim, 0.0, dict(ref.params, policy="test_import_cli:constant_policy"))
    assert ctrl[hip][0] == 0.5 * gear["hip_1"] and ctrl[ankle][0] == -1.0 * gear["ankle_4"]
    with pytest.raises(CorpusError, match="unknown actuators: knee"):
        motors(sim, 0.0, dict(ref.params, ctrl={"knee": 1.0}))


def test_scene_can_use_a_model_file_directly(tmp_path):
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "ant.xml").write_bytes(MODEL["gym/ant"].read_bytes())
    (tmp_path / "scene.yaml").write_text(
        "scene: ant\ncreatures:\n  - use: ant.xml\n    at: [{move: [0, 0, 0.75]}]\n")
    scene = pipeline.load(tmp_path / "scene.yaml")
    assert scene.creatures[0].name == "ant"
    assert str(tmp_path / "ant.xml") in scene.files
    assert build_model(scene).nv == 14


def test_humanoid_terrain_example_compiles():
    scene = pipeline.load(ROOT / "scenes" / "humanoid_terrain.yaml")
    assert scene.environment["ground"]["type"] == "grid"
    assert scene.controllers[0].python == "pipeline.importers.actuation:motors"
    model = build_model(scene)
    # MuJoCo's compiled humanoid (plus the 1e-12 parts on the inner links of split bodies)
    m = mujoco.MjModel.from_xml_path(str(MODEL["suite/humanoid"]))
    assert model.nv == m.nv == 27
    assert model.total_mass == pytest.approx(m.body_mass.sum(), rel=1e-11)


def test_convert_dispatches_corpus_scripts_to_their_converter(tmp_path):
    out = tmp_path / "roach.yaml"
    assert main(["convert", str(ROOT / "creatures" / "roach_appendix_c.corpus"), "--as", "scene",
                 "-o", str(out)]) == 0
    scene = pipeline.load(out, allow_outside=True)
    assert [c.name for c in scene.creatures] == ["broach"]
    assert scene.simulation.integrator == "rkf45" and len(scene.controllers) == 1
