"""The contact stage through YAML: an obstacle, collision pairs, attach springs, timeline
commands and located errors (pipeline.load -> compile -> run)."""
import textwrap

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.physics.contact import state as S
from pipeline.simulate.articulated import compile_simulation

SCENE = """\
scene: cube_on_table
environment:
  environment: table_top
  gravity: 9.8
  ground: {type: none}
  material: {friction_model: coulomb, friction: 0.0}
  obstacles:
    - {name: table, shape: {box: [10cm, 10cm, 2cm]}}
  collision:
    pairs: [[cube, table]]
    friction: 0
  attach:
    - {body1: cube, point1: [0, 0, 5mm], body2: world, point2: [0, 0, 3cm], k: 0.01, break_length: %s}
creatures:
  - creature: cube
    bodies:
      - name: cube
        shape: {box: [1cm, 1cm, 1cm]}
        at: [{move: [0, 0, 1.6cm]}]
timeline:
  - at: 0.1
    do: {material: {restitution: 0.25}}
simulation: {duration: 0.3, dt: 1/2400, integrator: rk4, h: 2e-5}
"""


def load(tmp_path, text):
    path = tmp_path / "scene.yaml"
    path.write_text(textwrap.dedent(text))
    return pipeline.load(path)


def test_cube_rests_on_a_static_obstacle_held_by_a_weak_attach_spring(tmp_path):
    sim = compile_simulation(load(tmp_path, SCENE % "10cm"))
    assert sim.model.body_names == ("cube", "table")
    rec = sim.run(progress=False)
    c = sim.model.contact
    assert sim.data.cstate[S.E] == 0.25  # the timeline's material command
    # the attach spring pulls up with 0.01 N/m x 1.5 cm; the table carries the rest
    weight = 0.001 * 9.8 - 0.01 * (0.03 - 0.015)
    depth = 0.01 + 0.005 - rec.body_pos[-1, 0, 2]
    assert depth == pytest.approx(np.log1p(weight / (4 * 17.5)) / 3000, rel=0.02)
    assert c.attach_body.tolist() == [[0, -1]]


def test_environment_errors_point_at_the_field(tmp_path):
    with pytest.raises(CorpusError, match=r"environment\.attach\[0\]\.body1: no body named 'nope'"):
        compile_simulation(load(tmp_path, SCENE.replace("body1: cube", "body1: nope") % "10cm"))
    bad_grid = SCENE.replace("ground: {type: none}", "ground: {type: grid, spacing: 1cm}") % "10cm"
    with pytest.raises(CorpusError, match=r"environment\.ground: a grid ground needs exactly one"):
        compile_simulation(load(tmp_path, bad_grid))


def test_height_file_relative_to_the_environment_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")  # the project root
    (tmp_path / "envs").mkdir()
    np.save(tmp_path / "envs" / "hills.npy", np.array([[0.0, 0.01], [0.02, 0.03]]))
    (tmp_path / "envs" / "hills.yaml").write_text(
        "environment: hills\nground: {type: grid, file: hills.npy, spacing: 1}\n")
    scene = SCENE.split("creatures:")[1]
    sim = compile_simulation(load(tmp_path, "scene: s\nenvironment: envs/hills.yaml\ncreatures:" + scene))
    assert sim.model.contact.grid_h.tolist() == [[0.0, 0.01], [0.02, 0.03]]
    (tmp_path / "envs" / "hills.yaml").write_text(
        "environment: hills\nground: {type: grid, file: ../../elsewhere.npy}\n")
    with pytest.raises(CorpusError, match="outside the project"):
        compile_simulation(load(tmp_path, "scene: s\nenvironment: envs/hills.yaml\ncreatures:" + scene))
