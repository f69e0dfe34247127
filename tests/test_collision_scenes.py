"""Collision through YAML: the bundled bounce scene, and bad input (bodies overlapping at the
start, degenerate meshes) reported at file:line."""
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.simulate.articulated import compile_simulation

ROOT = Path(__file__).resolve().parents[1]

TWO_BALLS = """\
scene: two_balls
environment:
  environment: shelf
  gravity: 9.8
  ground: {type: flat}
  collision: {shapes: true}
  obstacles:
    - {name: shelf, shape: %s, at: [{move: [0, 0, 0.5]}]}
creatures:
  - creature: left
    bodies:
      - name: left_ball
        shape: {sphere: 0.05}
    at: [{move: [0, 0, 0.2]}]
  - creature: right
    bodies:
      - name: right_ball
        shape: {sphere: 0.05}
    at: [{move: [%s, 0, 0.2]}]
simulation: {duration: 0.01, dt: 1/100, integrator: rk4, h: 1/1000}
"""


def compile_text(tmp_path, text, meshes=None):
    for name, body in (meshes or {}).items():
        (tmp_path / name).write_text(body)
    path = tmp_path / "scene.yaml"
    path.write_text(textwrap.dedent(text))
    return compile_simulation(pipeline.load(path))


def test_overlapping_bodies_at_the_start_name_both_and_the_depth(tmp_path):
    with pytest.raises(CorpusError) as err:
        compile_text(tmp_path, TWO_BALLS % ("{box: [0.1, 0.1, 0.1]}", 0.09))
    message = str(err.value)
    assert "bodies 'left_ball' and 'right_ball' overlap by 10 mm at the start" in message
    assert f"{tmp_path / 'scene.yaml'}:17:" in message  # the second body
    compile_text(tmp_path, TWO_BALLS % ("{box: [0.1, 0.1, 0.1]}", 0.1))  # touching is allowed


FLAT = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n"
# a closed tetrahedron plus a fin on one of its edges: that edge joins three faces
FIN = ("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\n"
       "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\nf 1 2 5\n")


PLATE = """\
  - creature: plate
    bodies:
      - name: plate
        shape: {mesh: {file: bad.obj}}
        inertial: {mass: 1, inertia: [0.1, 0.1, 0.1]}
    at: [{move: [1, 0, 0.5]}]
"""


@pytest.mark.parametrize("mesh, why", [(FLAT, "is flat"), (FIN, "is not manifold"),
                                       ("", "has no faces")], ids=["flat", "non-manifold", "empty"])
def test_degenerate_meshes_are_located_errors(tmp_path, mesh, why):
    """Given explicit mass properties (else the mass stage refuses them first), a mesh that
    encloses nothing is refused where its body is written."""
    text = (TWO_BALLS % ("{box: [0.1, 0.1, 0.1]}", 0.5)).replace("simulation:", PLATE + "simulation:")
    with pytest.raises(CorpusError) as err:
        compile_text(tmp_path, text, {"bad.obj": mesh})
    message = str(err.value)
    assert why in message and "bad.obj" in message
    assert f"{tmp_path / 'scene.yaml'}:23:" in message  # the plate's shape


def test_bounce_scene_keeps_every_shape_in_its_box():
    sim = compile_simulation(pipeline.load(ROOT / "scenes" / "bounce.yaml"))
    shapes = sim.model.contact.shapes
    assert len(shapes.pair) > 100 and len(shapes.shapes.kind) == 5 + 15 + 3 * 8
    rec = sim.run(duration=0.5, progress=False)
    free = [i for i, n in enumerate(rec.body_names) if not n.startswith(("floor", "wall"))]
    pos = rec.body_pos[:, free]
    assert np.isfinite(pos).all()
    assert (np.abs(pos[..., 0]) < 1.2).all() and (np.abs(pos[..., 1]) < 1.0).all()
    assert (pos[..., 2] > 0.0).all() and (pos[-1, :, 2] < pos[0, :, 2]).any()


def test_ramp_scene_ball_rolls_down_into_the_wall_and_back():
    sim = compile_simulation(pipeline.load(ROOT / "scenes" / "ramp_roll.yaml"))
    rec = sim.run(duration=2.0, progress=False)
    x = rec.body_pos[:, rec.body_index("ball"), 0]
    hit = int(np.argmax(x))
    # the wall's face is at x = 1.15: the ball's centre stops one radius (5 cm) short of it,
    # less what the collision springs give (a few mm at this speed)
    assert 1.09 < x[hit] < 1.10
    assert x[-1] < x[hit] - 0.3  # bounced back


def test_push_scene_box_creature_pushes_the_crate_face_on_face():
    """Once pushed, the crate keeps the pusher's 20 cm/s, pressed into its face by less than
    a millimetre (four collision springs carry mu m g = 55 N at 0.81 mm)."""
    sim = compile_simulation(pipeline.load(ROOT / "scenes" / "push_box.yaml"))
    rec = sim.run(duration=2.0, progress=False)
    crate, pusher = rec.body_index("crate"), rec.body_index("pusher")
    late = rec.time > 1.5
    x = rec.body_pos[late, crate, 0]
    v = np.diff(x) / np.diff(rec.time[late])
    assert np.abs(v - 0.2).max() < 1e-3
    overlap = (rec.body_pos[late, pusher, 0] + 0.15) - (x - 0.1)
    assert (overlap > 0.5e-3).all() and (overlap < 1e-3).all()
