"""Particle documents: located errors, YAML/dict round trip, recording contract, determinism."""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.particles.simulation import compile_particles
from pipeline.particles.spec import resolve_particles
from pipeline.recording import Recording
from pipeline.spec.loader import parse_text, read_file

ROOT = Path(__file__).resolve().parents[1]

BAD = """particles: bad
masses:
  - {name: a, mass: 1, radius: 0.1, at: [0, 0, 1]}
  - {name: b, density: 1000, at: [0, 0, 2]}
forces:
  - {spring: [a, c], k: 10}
  - {fluid: water, masses: [a]}
actuators:
  - {name: push, force: nothing, range: [0, 1]}
"""


def test_semantic_errors_are_located_and_reported_together():
    with pytest.raises(CorpusError) as err:
        resolve_particles(parse_text(BAD, "bad.yaml"))
    assert str(err.value) == "bad.yaml:4:5: masses[1]: give mass, or density with radius or volume"
    fixed = BAD.replace("{name: b, density: 1000,", "{name: b, density: 1000, radius: 0.1,")
    with pytest.raises(CorpusError) as err:
        resolve_particles(parse_text(fixed, "bad.yaml"))
    text = str(err.value).splitlines()
    assert text == ["bad.yaml:6:18: forces[0].spring[1]: no mass named 'c'",
                    "bad.yaml:9:25: actuators[0].force: no spring, angle, torque or constant force named 'nothing'"]


def test_unknown_medium_is_reported_at_compile_with_its_line():
    doc = parse_text(BAD.replace("[a, c]", "[a, b]").replace("radius: 0.1, at: [0, 0, 1]}\n  - {name: b, density: 1000,",
                                                             "radius: 0.1, at: [0, 0, 1]}\n  - {name: b, density: 1000, radius: 0.1,")
                     .split("actuators:")[0], "bad.yaml")
    with pytest.raises(CorpusError, match=r"bad.yaml:7:5: forces\[1\]: no medium named 'water' in the world \(media: air\)"):
        compile_particles(resolve_particles(doc))


def test_schema_errors_come_from_the_spec_validator():
    with pytest.raises(CorpusError, match=r"bad.yaml:3:15: masses\[0\].mas: unknown key 'mas'; did you mean 'mass'\?"):
        resolve_particles(parse_text("particles: x\nmasses:\n  - {name: a, mas: 1, at: [0, 0, 0]}\n", "bad.yaml"))


def test_yaml_and_plain_dict_give_bitwise_equal_trajectories():
    marked = read_file(ROOT / "creatures" / "roobot.yaml")
    plain = {k: v for k, v in marked.items()}
    a, b = compile_particles(resolve_particles(marked)), compile_particles(resolve_particles(plain))
    a.step(500)
    b.step(500)
    assert np.array_equal(a.data.pos, b.data.pos) and np.array_equal(a.data.vel, b.data.vel)


def test_recording_contract_and_determinism(tmp_path):
    scene = pipeline.load(str(ROOT / "scenes" / "roobot_hop.yaml"))
    runs = []
    for _ in range(2):
        sim = compile_particles(scene)
        runs.append(sim.run(duration=1.0, progress=False))
    rec = runs[0]
    assert rec.body_names == ("hip", "foot", "head", "tail1", "tail2")
    assert rec.body_pos.shape == (101, 5, 3) and rec.q.shape == (101, 15)  # every 5th of 500 frames
    assert (rec.body_quat == [1, 0, 0, 0]).all()
    assert set(np.unique(rec.channels["fsm_state"])) <= {0, 1, 2, 3}
    assert np.array_equal(rec.body_pos, runs[1].body_pos)  # same scene, same bits
    rec.save(tmp_path / "trajectory.npz")
    back = Recording.load(tmp_path / "trajectory.npz")
    assert np.array_equal(back.channels["fsm_state"], rec.channels["fsm_state"])


def test_several_creatures_get_prefixed_names_and_channels():
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "jellyfish.yaml"))
    assert sim.model.body_names[0] == "jellyfish.b0"  # the scene's creatures first, the world's masses after
    assert "seaworld.weed0_0" in sim.model.body_names
    assert sim.model.tree_names == ("jellyfish", "seaworld")
    assert "fsm_state" in sim.data.channels and "fsm_energy" in sim.data.channels


def test_controller_expressions_are_checked_when_the_document_loads():
    text = (ROOT / "creatures" / "roobot.yaml").read_text().replace(
        "leg - stance_leg_rate * (leg", "leg - stance_leg_rat * (leg")
    with pytest.raises(CorpusError) as err:
        resolve_particles(parse_text(text, "roobot.yaml"))
    (problem,) = err.value.problems
    assert (problem.line, problem.path) == (64, "controller.states.stance.do[0].leg")
    assert problem.message.endswith("unknown name 'stance_leg_rat' (did you mean 'stance_leg_rate'?)")


def test_scene_includes_follow_the_spec_rules_and_take_overrides(tmp_path):
    scene = tmp_path / "hop.yaml"
    scene.write_text(f"""scene: hop
creatures:
  - use: {ROOT / 'creatures' / 'roobot.yaml'}
    name: rb
    at: [{{move: [0, 2, 0]}}]
    with:
      masses: [{{name: hip, mass: 1.5}}]
      controller: {{params: {{hip_gain: 0.1}}}}
  - use: nowhere.yaml
""")
    with pytest.raises(CorpusError, match=r"hop.yaml:9:10: creatures\[1\].use: file not found: 'nowhere.yaml'"):
        pipeline.load(scene)
    scene.write_text(scene.read_text().replace("  - use: nowhere.yaml\n", ""))
    loaded = pipeline.load(scene)
    (rb,) = loaded.creatures
    assert rb.name == "rb" and rb.masses[0].mass == 1.5 and rb.masses[0].pos == (0.0, 2.0, 0.5)
    assert rb.controller["params"]["hip_gain"] == 0.1
    assert rb.controller["params"]["leap_leg"] == 0.9  # the rest of the vector is kept
    assert str(ROOT / "creatures" / "roobot.yaml") in loaded.files
