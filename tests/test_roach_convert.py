"""E3: McKenna's command language → YAML. The Appendix C reconstruction (digest §6.5,
creatures/roach_appendix_c.corpus) converts into a creature that compiles to the same model
as creatures/roach.yaml, and into the gait controller of creatures/roach_gait.yaml."""
from pathlib import Path

import numpy as np
import pytest
import yaml

import pipeline
from pipeline.compiler.build import compile_model
from pipeline.errors import CorpusError
from pipeline.importers.corpus_script import convert_corpus_script
from pipeline.simulate.articulated import as_scene

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "creatures/roach_appendix_c.corpus"


@pytest.fixture(scope="module")
def converted():
    return convert_corpus_script(SCRIPT)


def compiled(creature):
    return compile_model(as_scene(pipeline.load(creature)))[0]


def assert_same_arrays(a, b, what, skip=()):
    for field in set(a._fields) - set(skip):
        x, y = np.asarray(getattr(a, field)), np.asarray(getattr(b, field))
        assert x.shape == y.shape, f"{what}.{field}"
        if x.dtype == bool or np.issubdtype(x.dtype, np.integer):
            assert np.array_equal(x, y), f"{what}.{field}"
        else:
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, err_msg=f"{what}.{field}")


def test_e3_converted_creature_compiles_to_roach_yaml(converted):
    assert len(converted.creatures) == 1
    ours = compiled(ROOT / "creatures/roach.yaml")
    theirs = compiled(converted.creatures[0])
    assert theirs.body_names == ours.body_names
    assert_same_arrays(ours.tree, theirs.tree, "tree")
    # the one deviation not in the script: a one-way stop on the middle legs' first tarsal
    # joints (creatures/roach.md), a corpus joint-limit spring the script does not use
    limits = ("limit_lower", "limit_upper", "limit_k", "limit_b")
    assert_same_arrays(ours.forces, theirs.forces, "forces", skip=limits)
    stops = [int(ours.joint_qvel_slice(f"leg_{leg}3").start) for leg in ("ml", "mr")]
    assert np.all(np.isinf(theirs.forces.limit_lower)) and np.all(np.isinf(theirs.forces.limit_upper))
    bounded = np.isfinite(ours.forces.limit_lower) | np.isfinite(ours.forces.limit_upper)
    assert sorted(np.flatnonzero(bounded)) == sorted(stops)
    assert np.all(ours.forces.limit_k[stops] == 1e-3)
    for field in ("body", "type", "size", "pos", "rot", "colliding", "aabb_lo", "aabb_hi"):
        np.testing.assert_allclose(getattr(ours.geoms, field), getattr(theirs.geoms, field),
                                   rtol=0, atol=1e-12, err_msg=field)
    np.testing.assert_allclose(ours.q0, theirs.q0, rtol=0, atol=1e-12)
    assert theirs.total_mass == pytest.approx(2.17548296e-3, rel=1e-9)


def test_e3_converted_gait_controller_matches_roach_gait(converted):
    (controller,) = converted.controllers
    ours = yaml.safe_load((ROOT / "creatures/roach_gait.yaml").read_text())
    assert controller["kind"] == "gait" and controller["creature"] == "broach"
    assert controller["gait"]["metabolism"] == 0.05 and controller["gait"]["speed"] == 1000
    assert controller["gait"]["go"] is False  # the script has gaitinit but no gaitgo

    def entries(program):
        return sorted((e.get("at", 0), e["do"]["motor"]["joint"], e["do"]["motor"]["etarget"],
                       e["do"]["motor"]["time"]) for e in program)

    for leg, spec in ours["gait"]["legs"].items():
        got = controller["gait"]["legs"][leg]
        assert entries(got["step"]) == entries(spec["step"])
        assert entries(got["stance"]) == entries(spec["stance"])


def test_e3_world_and_integrator(converted):
    env = converted.environment
    assert env["material"] == {"k": 0, "b": 0, "exp_alpha": 17.5, "exp_beta": 3000,
                               "restitution": 0.5, "friction": 0.7, "max_depth": 0.01}
    assert converted.simulation == {"integrator": "rkf45", "dt": 0.00041666666666667, "h": 3.3333e-05}
    assert any("eps" in note for note in converted.notes)


def test_transform_modes(tmp_path):
    script = tmp_path / "t.corpus"
    script.write_text("""addcorpus c
get a from unit_cube
get b from unit_cube
scale a .02 .01 .01
addbody a a 0 0 1 rotary 500
premult
scale b .01 .04 .01
move b .01 0 0
rotate b z 90            # premult: about b's own axes, before the move
addbody b b 1 0 0 rotary 500
postmult
xformcenter .1 0 0
rotate b z 90            # about (0.1, 0, 0): the origin goes to (0.1, -0.1, 0)
linkbodies a b
setroot a
""")
    doc = convert_corpus_script(script).creatures[0]
    a, b = doc["bodies"]
    assert doc["density"] == 500 and a["shape"] == {"box": [0.02, 0.01, 0.01]}
    # premult: each op acts first, so x -> S T R x: the rotated unit cube is scaled along
    # world axes (a 4 cm x 1 cm box turned 90 deg about z) and the move is scaled too
    assert b["shape"]["box"] == pytest.approx([0.04, 0.01, 0.01])
    (rot, move) = b["transform"]
    assert rot["rotate"]["angle"] == pytest.approx(90) and rot["rotate"]["axis"] == pytest.approx([0, 0, 1])
    assert move["move"] == pytest.approx([0.0001, 0, 0])
    (rot, move) = b["at"]
    assert move["move"] == pytest.approx([0.1, -0.1, 0])


@pytest.mark.parametrize("text, message, line", [
    ("addcorpus c\nfrobnicate x\n", "unknown or unsupported corpus command 'frobnicate'", 2),
    ("addcorpus c\nget a from teapot.obj\n", "only the unit cube", 2),
    ("addcorpus c\nget a from unit_cube\nscale a 1 2\n", "scale needs 3 numbers", 3),
    ("addcorpus c\nmove a 0 0 0\n", "unknown object 'a'", 2),
    ("addroach r\nprocom 0\nmotor leg etarget 1 0.02\n", "unknown object 'leg'", 3),
])
def test_errors_point_at_the_line(tmp_path, text, message, line):
    script = tmp_path / "bad.corpus"
    script.write_text(text)
    with pytest.raises(CorpusError) as err:
        convert_corpus_script(script)
    (problem,) = err.value.problems
    assert message in problem.message and problem.line == line and problem.file == str(script)


def test_absolute_time_inside_a_program_is_an_error(tmp_path):
    script = tmp_path / "bad.corpus"
    script.write_text("addcorpus c\nget a from unit_cube\naddbody a a 0 0 1 rotary 1000\n"
                      "setroot a\naddroach r\nprocom 0\nmotor a etarget 1 0.02\n")
    with pytest.raises(CorpusError, match=r"fractions of the phase written \*f"):
        convert_corpus_script(script)
