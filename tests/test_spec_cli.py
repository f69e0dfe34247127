"""The `corpus` front door: validate (exit codes, formats, folders), info, help, errors."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


from pipeline.cli import COMMANDS, main
from pipeline.validate import github_annotation
from pipeline.errors import Problem

ROOT = Path(__file__).resolve().parents[1]
BROKEN = ROOT / "tests" / "broken"


def corpus(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_validate_valid_files_exits_zero(capsys):
    assert main(["validate", str(ROOT / "scenes/box_drop.yaml"), str(ROOT / "creatures/pendulum5.yaml")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "2 files checked: all valid\n"


def test_validate_reports_every_problem_and_exits_one(capsys, monkeypatch):
    monkeypatch.chdir(BROKEN)
    assert main(["validate", "several_problems.yaml", "unknown_key_top.yaml"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "several_problems.yaml:4:21: bodies[0].shape.sphere: a sphere size must be positive, got -1",
        "several_problems.yaml:7:44: bodies[1].shape.capsule.length: a capsule size must be positive, got 0",
        "several_problems.yaml:8:50: bodies[1].joint.q: a prismatic joint's `q` is a length, not '30deg'",
        "several_problems.yaml:10:13: bodies[2].parent: unknown parent body 'z'",
        "unknown_key_top.yaml:2:1: densty: unknown key 'densty'; did you mean 'density'?"]
    assert captured.err == "2 files checked: 5 problems in 2 files\n"


def test_validate_folders_recursively(tmp_path, capsys):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "a" / "ok.yaml").write_text((ROOT / "creatures/box.yaml").read_text())
    (tmp_path / "a" / "b" / "bad.yml").write_text("creature: x\nbodies: []\n")
    (tmp_path / "a" / "notes.txt").write_text("not yaml")
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{tmp_path}/a/b/bad.yml:2:9: bodies: expected at least 1 item, got 0"]


def test_validate_json_and_github_formats(monkeypatch, capsys):
    monkeypatch.chdir(BROKEN)
    assert main(["validate", "--format", "json", "zero_axis.yaml"]) == 1
    assert json.loads(capsys.readouterr().out) == [
        {"file": "zero_axis.yaml", "line": 8, "col": 35, "path": "bodies[1].joint.axis",
         "message": "a joint axis must not be zero"}]
    assert main(["validate", "--format", "github", "zero_axis.yaml"]) == 1
    assert capsys.readouterr().out == (
        "::error file=zero_axis.yaml,line=8,col=35,title=corpus validate::"
        "bodies[1].joint.axis: a joint axis must not be zero\n")


def test_github_annotations_escape_their_separators():
    p = Problem("100% wrong\nreally", "a,b:c.yaml", 1, 2, "x")
    assert github_annotation(p) == "::error file=a%2Cb%3Ac.yaml,line=1,col=2,title=corpus validate::x: 100%25 wrong%0Areally"


def test_missing_paths_and_empty_folders_are_problems(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.yaml"), str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{tmp_path}/nope.yaml: no such file or folder", f"{tmp_path}: no .yaml or .yml files in this folder"]


def test_validate_never_imports_python_controllers(tmp_path, capsys):
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "boom.py").write_text("raise SystemExit('user code ran')\n")
    scene = tmp_path / "scene.yaml"
    scene.write_text(f"scene: s\ncreatures:\n  - use: {ROOT}/creatures/box.yaml\n"
                     "controllers:\n  - python: boom:step\n    creature: box\n")
    assert main(["validate", str(scene)]) == 0


def test_info_prints_bodies_dof_and_mass(capsys):
    assert main(["info", str(ROOT / "creatures/pendulum5.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    # 4 x 4 x 2 cm base + five 2 x 2 x 20 cm rods at 1000 kg/m^3; a creature file is a creature
    assert lines[0] == "creature pendulum5 (root fixed): 6 bodies, 5 DOF, 0.432 kg"
    assert lines[2].split() == ["base", "-", "fixed", "0", "0.032"]
    assert lines[3].split() == ["link0", "base", "revolute", "1", "0.08"]
    assert main(["info", str(ROOT / "scenes/pendulum5.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "scene pendulum5: 1 creature, 6 bodies, 5 DOF, total mass 0.432 kg"
    assert lines[1] == "creature pendulum5 (root fixed): 6 bodies, 5 DOF, 0.432 kg"


def test_info_of_the_roach_matches_mckennas_numbers(capsys):
    assert main(["info", str(ROOT / "creatures/roach.yaml")]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    # 38 DOF and 2.1755 g from boxes at 1 g/cm^3 (McKenna digest §6.1)
    assert header == "creature roach (root free): 33 bodies, 38 DOF, 0.00217548 kg"


def test_user_errors_print_located_problems_without_traceback():
    proc = corpus("info", "tests/broken/unknown_parent.yaml")
    assert proc.returncode == 1
    assert proc.stderr == ("tests/broken/unknown_parent.yaml:6:13: bodies[1].parent: "
                           "unknown parent body 'thorx'; did you mean 'thorax'?\n")
    assert "Traceback" not in proc.stderr


def test_help_lists_every_registered_command():
    proc = corpus("--help")
    assert proc.returncode == 0
    for name in COMMANDS:
        assert f"    {name}" in proc.stdout


def test_validate_is_fast_and_does_not_import_numba_or_pyvista():
    code = ("import sys, time; t = time.perf_counter(); from pipeline.cli import main; "
            "rc = main(['validate', '--quiet', 'scenes/box_drop.yaml']); "
            "print(rc, 'numba' in sys.modules, 'pyvista' in sys.modules, time.perf_counter() - t)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    rc, numba, pyvista, seconds = proc.stdout.split()
    assert (rc, numba, pyvista) == ("0", "False", "False")
    assert float(seconds) < 3.0


def test_keyboard_interrupt_exits_130(monkeypatch, capsys):
    import pipeline.validate as validate

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(validate, "validate_paths", interrupted)
    assert main(["validate", "x.yaml"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_a_problem_in_a_shared_include_is_reported_once(tmp_path, capsys):
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "bad.yaml").write_text("creature: bad\nbodies:\n  - name: a\n    shape: {sphere: 0}\n")
    for name in ("one", "two"):
        (tmp_path / f"{name}.yaml").write_text(f"scene: {name}\ncreatures:\n  - use: bad.yaml\n")
    assert main(["validate", str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{tmp_path}/bad.yaml:4:21: bodies[0].shape.sphere: a sphere size must be positive, got 0"]
