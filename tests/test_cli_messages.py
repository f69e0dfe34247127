"""Messages that used to go missing or lose their place (docs/errors.md, issue 19 items 6, 8
and 10): an alias bomb of few nodes but much text, every problem of every sweep variant, a
batch's invalid file under --quiet, the full field path of a NaN, a duration that is not a
whole number of frames. Through `pipeline.cli.main`, what the console script calls."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline.cli import main

SCENE = """\
scene: s
environment: {environment: flat}
creatures:
  - creature: box
    bodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}}]
    at: [{move: [0, 0, 1]}]
simulation: {duration: 0.05, dt: 1/100}
outputs: {frames: false, video: false, glb: false, plots: false}
"""


@pytest.fixture
def corpus(tmp_path, monkeypatch, capsys):
    """`corpus ARGS` in a fresh project: (exit status, stdout, stderr), never a traceback."""
    (tmp_path / "corpus.toml").write_text("")
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        return status, out, err

    return run


def test_aliases_that_expand_to_too_much_text_are_refused(corpus, tmp_path):
    # 100 aliases of a 1 MB string: 1 MB of file, 100 MB of document (once a 106 MB scene.json)
    big = "x" * 2**20
    (tmp_path / "bomb.yaml").write_text(
        SCENE.replace("outputs:", f"notes: &big {big}\nmore: [{', '.join(['*big'] * 100)}]\noutputs:"))
    # located at the string the aliases repeat (YAML keeps no place of an alias)
    message = ("bomb.yaml:8:8: refused: aliases expand the document to more than 10 MB of text (an alias "
               "bomb?), more than a file may hold\n")
    assert corpus("validate", "bomb.yaml") == (1, message, "1 file checked: 1 problem in 1 file\n")
    assert corpus("run", "bomb.yaml", "--out", "out") == (1, "", message)
    assert not (tmp_path / "out").exists()


def test_a_long_string_used_once_is_not_a_bomb(corpus, tmp_path):
    (tmp_path / "long.yaml").write_text(SCENE.replace("outputs:", f"notes: {'x' * 2**20}\noutputs:"))
    status, out, _ = corpus("validate", "long.yaml")
    assert status == 1 and out.startswith("long.yaml:8:1: notes: unknown key 'notes'; expected one of: ")


SWEEP = "sweep: bad\nscene: s.yaml\nparameters:\n  simulation.dt: [abc, 0.01, def]\n  simulation.duration: [0.05, xyz]\n"


def test_validate_and_batch_list_every_problem_of_every_sweep_variant(corpus, tmp_path):
    (tmp_path / "s.yaml").write_text(SCENE)
    (tmp_path / "bad.yaml").write_text(SWEEP)
    status, out, _ = corpus("validate", "bad.yaml")
    assert status == 1
    lines = out.splitlines()
    # 6 variants: dt abc and def with duration 0.05 (1 problem each), 0.01 with xyz (1), abc and
    # def with xyz (2 each)
    assert len(lines) == len(set(lines)) == 7, out
    for bad, line in (("dt=abc", 4), ("dt=def", 4), ("duration=xyz", 5)):
        assert any(f"bad.yaml:{line}:3: " in x and bad in x for x in lines), (bad, out)
    # a batch prints why a file is invalid, also with --quiet, not only in batch.csv
    status, _, err = corpus("batch", "bad.yaml", "--out", "out", "--quiet")
    assert status == 1
    (row,) = json.loads((tmp_path / "out/batch.json").read_text())
    assert row["status"] == "invalid" and row["message"].splitlines() == lines
    assert err.startswith(f"bad: invalid: {lines[0]}\n")


def test_a_control_character_is_located(corpus, tmp_path):
    # found by tests/test_fuzz_cli.py: PyYAML's reader gives a position, not a line, and its
    # message ran on to a second line ('  in "<unicode string>", position 0')
    (tmp_path / "ctl.yaml").write_text(SCENE.replace("flat}", "flat\x7f}"))
    assert corpus("validate", "ctl.yaml")[:2] == (
        1, "ctl.yaml:2:32: YAML error: unacceptable character #x007f: control characters are not allowed\n")


NANS = {
    "creatures[0].bodies[0].mass": ("shape: {box: [0.1, 0.1, 0.1]}}]", "shape: {box: [0.1, 0.1, 0.1]}, mass: .nan}]"),
    "creatures[0].at[0].move[2]": ("move: [0, 0, 1]", "move: [0, 0, .nan]"),
    "environment.gravity": ("{environment: flat}", "{environment: flat, gravity: .nan}"),
    "simulation.dt": ("dt: 1/100", "dt: .nan"),
    "simulation.duration": ("duration: 0.05", "duration: .nan"),
    # numbers without a unit: the schema's bounds let NaN through, and run said only "outputs.fps"
    "outputs.fps": ("glb: false,", "glb: false, fps: .nan,"),
    "creatures[0].bodies[0].shape.box[2]": ("0.1, 0.1, 0.1]", "0.1, 0.1, .inf]"),
}


@pytest.mark.parametrize("path", sorted(NANS))
def test_a_nan_is_named_by_its_whole_field_path(corpus, tmp_path, path):
    old, new = NANS[path]
    (tmp_path / "nan.yaml").write_text(SCENE.replace(old, new))
    status, out, _ = corpus("validate", "nan.yaml")
    assert status == 1
    assert re.fullmatch(rf"nan\.yaml:\d+:\d+: {re.escape(path)}: (nan|inf) is not a finite number\n", out), out
    assert corpus("run", "nan.yaml", "--out", "out")[:2] == (1, "")
    assert not (tmp_path / "out").exists()


def test_a_nan_in_an_included_creature_is_named_from_its_own_file(corpus, tmp_path):
    (tmp_path / "box.yaml").write_text("creature: box\nbodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}, "
                                       "mass: .nan}]\n")
    (tmp_path / "s.yaml").write_text(SCENE.replace(
        "  - creature: box\n    bodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}}]\n", "  - use: box.yaml\n"))
    assert corpus("validate", "s.yaml")[1] == "box.yaml:2:59: bodies[0].mass: nan is not a finite number\n"


def test_a_duration_that_is_not_whole_frames_is_refused(corpus, tmp_path):
    # 0.001 s at dt = 0.1 s used to simulate 0.1 s quietly
    (tmp_path / "short.yaml").write_text(SCENE.replace("duration: 0.05, dt: 1/100", "duration: 0.001, dt: 0.1"))
    (tmp_path / "odd.yaml").write_text(SCENE.replace("duration: 0.05", "duration: 0.055"))
    short = ("simulation.duration: 0.001 s is 0.01 frames of dt = 0.1 s, but a run is a whole number of "
             "frames: make it 0.1 s, or choose a dt that divides it\n")
    assert corpus("validate", "short.yaml")[:2] == (1, f"short.yaml:7:24: {short}")
    assert corpus("run", "short.yaml", "--out", "out") == (1, "", f"short.yaml:7:24: {short}")
    odd = ("0.055 s is 5.5 frames of dt = 0.01 s, but a run is a whole number of frames: make it 0.05 s "
           "or 0.06 s, or choose a dt that divides it\n")
    assert corpus("validate", "odd.yaml")[:2] == (1, f"odd.yaml:7:24: simulation.duration: {odd}")
    (tmp_path / "s.yaml").write_text(SCENE)
    assert corpus("run", "s.yaml", "--duration", "0.055", "--out", "out") == (1, "", f"error: --duration: {odd}")
    assert not (tmp_path / "out").exists()
    # a sum of frames that floating point cannot write exactly is still whole
    assert corpus("run", "s.yaml", "--duration", "0.07", "--out", "out", "--quiet")[0] == 0


@pytest.mark.parametrize("old, new, message", [
    ("joint: leg_ml2, etarget: 0.2", "joint: eg_ml2, etarget: 0.2", "no body named 'eg_ml2' (known: abdomen, "),
    # was a traceback: the gait's own check raised its problems as bare strings
    ("metabolism: 0.05 ", "metabolism: 0 ", "gait protime must be positive, got 0.0\n"),
])
def test_a_controller_file_problem_is_located_at_its_entry(corpus, tmp_path, old, new, message):
    # found by tests/test_fuzz_cli.py: the gait's programs and timing are checked when the run
    # starts, and the messages had no place ("error: no body named 'eg_ml2'")
    root = Path(__file__).resolve().parents[1]
    for folder, name in (("creatures", "roach.yaml"), ("environments", "flat.yaml"), ("scenes", "roach_drop.yaml")):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text((root / folder / name).read_text())
    gait = (root / "creatures/roach_gait.yaml").read_text()
    assert old in gait
    (tmp_path / "creatures/roach_gait.yaml").write_text(gait.replace(old, new))
    status, out, err = corpus("run", "scenes/roach_drop.yaml", "--duration", repr(3 / 2400), "--out", "out", "--quiet")
    assert (status, out) == (1, "")
    assert err.startswith(f"scenes/roach_drop.yaml:11:5: controllers[0]: {message}")
    assert all(line.startswith("scenes/roach_drop.yaml:11:5: controllers[0]: ") for line in err.splitlines())
    assert not (tmp_path / "out").exists()
