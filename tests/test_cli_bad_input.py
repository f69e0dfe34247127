"""Bad input through every `corpus` subcommand: one located message, a non-zero exit, no
traceback, and a complete run directory from an earlier good run left byte for byte as it was.

The commands run in-process through `pipeline.cli.main` (what the console script calls); the
Ctrl-C tests and one end-to-end check run the real console script in a child process.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pipeline.cli import main
from pipeline.recording import Recording

CORPUS = [sys.executable, "-m", "pipeline.cli"]

TINY = """\
scene: tiny
environment: {environment: flat, gravity: 9.8, ground: {type: flat, z: 0}}
creatures:
  - creature: box
    bodies:
      - name: box
        shape: {box: [0.1, 0.1, 0.1]}
    at: [{move: [0, 0, 0.2]}]
simulation: {duration: 0.05, dt: 1/100, integrator: rk4, h: 1/1000}
outputs: {plots: [speed]}
"""

# a 1 ng link on a 1e12 N/m spring stepped at h = 0.1 s: the state overflows within the first
# frame of 1 s (frames of 0.1 s would see it run away first: tests/test_simulation_runaway.py)
BLOWUP = """\
scene: blowup
environment: {environment: flat, gravity: 9.8}
creatures:
  - creature: chain
    root: {mode: fixed}
    bodies:
      - name: base
        shape: {box: [0.02, 0.02, 0.02]}
      - name: a
        parent: base
        shape: {box: [0.1, 0.01, 0.01]}
        mass: 1e-9
        transform: [{move: [0.05, 0, 0]}]
        joint: {type: revolute, axis: [0, 1, 0], spring: {k: 1e12, rest: 0}, q: 1}
simulation: {duration: 1, dt: 1, integrator: rk4, h: 1/10}
"""


def python_scene(name: str, target: str) -> str:
    # the box falls clear of the ground (sunk into it at these steps, it would be thrown off: a runaway)
    return (f"scene: {name}\nenvironment: {{environment: flat, ground: {{type: flat, z: -1}}}}\n"
            "creatures:\n"
            "  - creature: box\n    bodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}}]\n"
            f"controllers:\n  - python: {target}\n    creature: box\n"
            "simulation: {duration: 0.05, dt: 1/100}\n")


def tree_hash(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project folder with the tiny scene and a complete run of it in outputs/tiny/."""
    root = tmp_path_factory.mktemp("project")
    (root / "corpus.toml").write_text("")
    (root / "tiny.yaml").write_text(TINY)
    (root / "notes.txt").write_text("not a run\n")
    old = Path.cwd()
    os.chdir(root)
    try:
        assert main(["run", "tiny.yaml", "--quiet"]) == 0
    finally:
        os.chdir(old)
    assert (root / "outputs/tiny/manifest.json").is_file()
    return root


@pytest.fixture
def corpus(project, monkeypatch, capsys):
    """Run `corpus ARGS` in the project; returns (exit status, stdout + stderr: `validate`
    lists problems on stdout). Checks that nothing printed a traceback and that the good run
    in outputs/tiny/ did not change."""
    monkeypatch.chdir(project)
    before = tree_hash(project / "outputs/tiny")

    def run(*args: str) -> tuple[int, str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        assert tree_hash(project / "outputs/tiny") == before
        assert not list((project / "outputs").glob(".*partial*"))
        return status, out + err

    return run


def write(project: Path, name: str, text: str | bytes) -> str:
    path = project / "bad" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return f"bad/{name}"


# --- YAML a user gets wrong: validate, info, run, render SCENE and batch all say the same ---

YAML_CASES = {
    "malformed": ("scene: [unclosed\n", ":2:1: YAML syntax error: did not find expected ',' or ']'"),
    "empty": ("", ":1:1: the file is empty"),
    "wrong_type": (TINY.replace("duration: 0.05", "duration: abc"),
                   ":9:24: simulation.duration: expected a time"),
    "unknown_key": (TINY.replace("        shape:", "        colour: red\n        shape:"),
                    ":7:9: creatures[0].bodies[0].colour: unknown key 'colour'; did you mean 'color'?"),
    "missing_include": (TINY.replace("{environment: flat, gravity: 9.8, ground: {type: flat, z: 0}}",
                                     "../nope/flat.yaml"),
                        ":2:14: environment: file not found: '../nope/flat.yaml'"),
    "folder_include": (TINY.replace("{environment: flat, gravity: 9.8, ground: {type: flat, z: 0}}",
                                    "../outputs"),
                       ":2:14: environment: '../outputs' is a folder"),
    "empty_name": (TINY.replace("scene: tiny", "scene: ''"),
                   ":1:8: scene: expected a name made of letters, digits, '_', '-', '.' (starting with a "
                   "letter or '_'), got the string ''"),
    "too_long": (TINY.replace("duration: 0.05", "duration: 1e6"),
                 ":9:24: simulation.duration: 1e+06 s at dt = 0.01 s is 1e+08 frames, more than the "
                 "1e+07 a run can take; raise dt or shorten the run"),
    "fps_too_high": (TINY.replace("{plots: [speed]}", "{plots: [speed], fps: 1e12}"),
                     ":10:32: outputs.fps: must be at most 1000, got 1000000000000.0"),
    "bad_quality": (TINY.replace("{plots: [speed]}", "{plots: [speed], quality: best}"),
                    ":10:36: outputs.quality: the string 'best' is not one of: draft, final"),
    "too_many_steps": (TINY.replace("h: 1/1000", "h: 1e-12"),
                       ":9:24: simulation.duration: 0.05 s at h = 1e-12 s is 5e+10 integrator steps"),
}


@pytest.mark.parametrize("command", ["validate", "info", "run", "render"])
@pytest.mark.parametrize("case", sorted(YAML_CASES))
def test_bad_yaml_is_one_located_message(corpus, project, command, case):
    text, expected = YAML_CASES[case]
    path = write(project, f"{case}.yaml", text)
    status, err = corpus(command, path)
    assert status == 1
    assert f"{path}{expected}" in err
    lines = [ln for ln in err.splitlines() if ln.startswith(path)]
    assert len(lines) == 1


def test_batch_reports_a_bad_file_as_invalid_and_leaves_other_files(corpus, project):
    path = write(project, "malformed.yaml", YAML_CASES["malformed"][0])
    status, err = corpus("batch", path, "--out", "outputs/batch_bad", "--quiet")
    assert status == 1
    rows = json.loads((project / "outputs/batch_bad/batch.json").read_text())
    assert [(r["name"], r["status"]) for r in rows] == [("malformed", "invalid")]
    assert rows[0]["message"] == f"{path}:2:1: YAML syntax error: did not find expected ',' or ']'"


def test_missing_and_folder_arguments(corpus, project):
    assert corpus("validate", "nothere.yaml") == (1, "nothere.yaml: no such file or folder\n"
                                                      "0 files checked: 1 problem in 1 file\n")
    assert corpus("info", "nothere.yaml") == (1, "nothere.yaml: cannot read the file: No such file or directory\n")
    assert corpus("run", "outputs") == (1, "outputs: cannot read the file: Is a directory\n")
    assert corpus("render", "nothere") == (1, "error: nothere: no such run directory or scene file\n")
    assert corpus("batch", "nothere.yaml") == (1, "nothere.yaml: no such file or folder\n")
    (project / "empty_dir").mkdir(exist_ok=True)
    assert corpus("batch", "empty_dir") == (1, "error: nothing to run: no scene or sweep files in empty_dir\n")
    assert corpus("convert", "outputs", "-o", "x.yaml") == (1, "outputs: is a folder; convert takes one model file\n")


def test_devices_and_pipes_are_refused_not_read_forever(corpus, project, tmp_path):
    fifo = tmp_path / "scene.yaml"
    os.mkfifo(fifo)
    for target in ("/dev/zero", str(fifo)):
        for cmd in ("validate", "info", "run"):
            status, out = corpus(cmd, target)
            assert status == 1
            assert f"{target}: refused: this is a device or a pipe, not a file\n" in out


def test_unreadable_file(project, capsys, monkeypatch):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)  # others may enter; only the file itself is closed
        path = Path(folder) / "unreadable.yaml"
        path.write_text(TINY)
        path.chmod(0)
        monkeypatch.chdir(folder)
        as_root = os.geteuid() == 0
        results = {}
        try:
            if as_root:  # root reads anything: drop to nobody for the read, as a user would be
                os.seteuid(65534)
            for cmd in ("validate", "info", "run"):
                results[cmd] = main([cmd, "unreadable.yaml"]), capsys.readouterr()
        finally:
            if as_root:
                os.seteuid(0)
    for cmd, (status, (out, err)) in results.items():
        assert status == 1, cmd
        assert "unreadable.yaml: cannot read the file: Permission denied\n" in out + err
        assert "Traceback" not in out + err


# --- run: where it writes, its flags, physics and controllers ---

def test_run_out_onto_a_file_or_a_foreign_folder(corpus, project):
    assert corpus("run", "tiny.yaml", "--out", "notes.txt") == (
        1, "notes.txt: is a file, not a folder: the run directory cannot be made there\n")
    assert corpus("run", "tiny.yaml", "--out", "notes.txt/run") == (
        1, "notes.txt: is a file, not a folder: the run directory notes.txt/run cannot be made there\n")
    foreign = project / "bad"
    write(project, "keep.txt", "mine\n")
    before = tree_hash(foreign)
    status, err = corpus("run", "tiny.yaml", "--out", "bad")
    assert status == 1
    assert err.startswith("bad: is a folder that holds other files and no earlier run")
    assert tree_hash(foreign) == before


@pytest.mark.parametrize("flags, message", [
    (["--fps", "0"], "error: --fps: expected a positive number of frames per second, got 0"),
    (["--fps", "-1"], "error: --fps: expected a positive number of frames per second, got -1"),
    (["--fps", "nan"], "error: --fps: expected a positive number of frames per second, got nan"),
    (["--size", "12"], "error: --size: expected WIDTHxHEIGHT such as 960x540, got '12'"),
    (["--size", "8x8"], "error: outputs.size: expected [width, height] of at least 16 pixels, got [8, 8]"),
    (["--duration", "-1"], "error: --duration: expected a positive number of seconds, got -1"),
    (["--duration", "inf"], "error: --duration: expected a positive number of seconds, got inf"),
    (["--duration", "1e9"], "error: --duration: 1e+09 s at dt = 0.01 s is 1e+11 frames, more than the "
                            "1e+07 a run can take; raise dt or shorten the run"),
])
def test_run_bad_flag_values_fail_before_simulating(corpus, flags, message):
    assert corpus("run", "tiny.yaml", "--out", "outputs/tiny", "--quiet", *flags) == (1, message + "\n")


def test_run_unstable_physics_keeps_the_earlier_run(corpus, project):
    path = write(project, "blowup.yaml", BLOWUP)
    status, err = corpus("run", path, "--out", "outputs/tiny", "--quiet")
    assert status == 1
    assert err.startswith(f"{path}:15:13: simulation: simulation unstable at t = 0.8 s: the state became "
                          "NaN/inf in body 'a' (q[0]); try a smaller h or dt")
    assert err.count("\n") == 1


@pytest.mark.parametrize("target, message", [
    ("badctrl_h9:step", "controllers[0]: python controller 'badctrl_h9:step' raised ValueError in "
                        "badctrl_h9.py:2 at t = 0 s: controller exploded on purpose"),
    ("badctrl_h9:nothere", "controllers[0]: python controller 'badctrl_h9:nothere': 'badctrl_h9' "
                           "has no attribute 'nothere'"),
    ("nosuchmodule_h9:step", "controllers[0]: python controller 'nosuchmodule_h9:step': cannot import "
                             "'nosuchmodule_h9' (No module named 'nosuchmodule_h9')"),
])
def test_run_python_controller_that_fails(corpus, project, monkeypatch, target, message):
    (project / "badctrl_h9.py").write_text(
        "def step(sim, t, params):\n    raise ValueError('controller exploded on purpose')\n")
    monkeypatch.syspath_prepend(str(project))
    path = write(project, "ctrl.yaml", python_scene("ctrl", target))
    assert corpus("run", path, "--out", "outputs/tiny", "--quiet") == (1, f"{path}:7:5: {message}\n")


@pytest.mark.parametrize("case, body, message", [
    (1, "sim.data.ctrl = [1.0, 2.0, 3.0]", "left data.ctrl must be 6 numbers (shape (6,)), got shape (3,)"),
    (2, "sim.data.ctrl = 'push'", "left data.ctrl must be 6 numbers (shape (6,)), got str 'push'"),
    (3, "sim.data.gravity = [0, 0]", "left data.gravity must be 3 numbers (shape (3,)), got shape (2,)"),
])
def test_run_python_controller_that_writes_a_wrong_array(corpus, project, case, body, message):
    # the module sits beside the scene file, which is where `python: mod:fn` looks first
    module = f"shapectrl{case}_h11"
    write(project, f"{module}.py", f"def step(sim, t, params):\n    {body}\n")
    path = write(project, "shape.yaml", python_scene("shape", f"{module}:step"))
    assert corpus("run", path, "--out", "outputs/tiny", "--quiet") == (
        1, f"{path}:7:5: controllers[0]: python controller '{module}:step' {message}\n")


def test_python_controller_module_beside_the_scene(corpus, project):
    write(project, "besidectrl_h11.py", "def step(sim, t, params):\n    sim.data.channels['seen'] = 2 * t\n")
    path = write(project, "beside.yaml", python_scene("beside", "besidectrl_h11:step"))
    path_before = list(sys.path)
    assert corpus("run", path, "--out", "outputs/beside", "--quiet") == (0, "")
    assert sys.path == path_before  # the scene's folder was on sys.path only while importing
    with np.load(project / "outputs/beside/trajectory.npz") as z:
        np.testing.assert_allclose(z["ch_seen"], 2 * z["time"], rtol=0, atol=1e-15)
        assert len(z["time"]) == 6


def test_python_controller_module_that_fails_to_import(corpus, project):
    write(project, "syntaxctrl_h11.py", "def step(sim, t, params)\n    pass\n")
    path = write(project, "syntax.yaml", python_scene("syntax", "syntaxctrl_h11:step"))
    status, err = corpus("run", path, "--out", "outputs/tiny", "--quiet")
    assert status == 1
    assert err == (f"{path}:7:5: controllers[0]: python controller 'syntaxctrl_h11:step': importing "
                   "'syntaxctrl_h11' raised SyntaxError in bad/syntaxctrl_h11.py:1: expected ':'\n")


# --- render: run directories that are not, or are damaged ---

@pytest.fixture
def damaged_run(project):
    """A copy of the good run that a test may break."""
    import shutil

    target = project / "damaged"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(project / "outputs/tiny", target)
    return target


def test_render_a_folder_that_is_not_a_run(corpus, project):
    (project / "not_a_run").mkdir(exist_ok=True)
    assert corpus("render", "not_a_run", "--quiet") == (
        1, "error: not_a_run/scene.json: missing; `corpus render` needs a finished run directory "
           "(make one with `corpus run SCENE`)\n")


def test_render_a_corrupt_scene_json(corpus, damaged_run):
    (damaged_run / "scene.json").write_text('{"scene": "tiny", ')
    status, err = corpus("render", "damaged", "--quiet")
    assert status == 1
    assert err.startswith("error: damaged/scene.json: cannot read the saved scene: Expecting property name")


def test_render_a_trajectory_that_is_not_one(corpus, damaged_run):
    np.savez(damaged_run / "trajectory.npz", a=np.zeros(3))
    assert corpus("render", "damaged", "--quiet") == (
        1, "error: damaged/trajectory.npz: not a corpus trajectory (missing time, body_names, "
           "body_pos, body_quat, q, qd)\n")


@pytest.mark.parametrize("compress, damage, reason", [
    (False, lambda data: data[:len(data) // 2], "the archive is truncated or damaged (File is not a zip file)"),
    (False, lambda data: b"", "the file is empty"),
    (False, lambda data: bytes(range(256)), "not an .npz archive (the file does not start like a zip file)"),
    (False, lambda data: data[:40] + bytes(64) + data[104:],
     "the archive is truncated or damaged (Bad CRC-32 for file 'time.npy')"),
    (True, lambda data: data[:40] + bytes(64) + data[104:],
     "the archive is truncated or damaged (Error -3 while decompressing data: invalid stored block lengths)"),
])
def test_render_a_truncated_or_damaged_trajectory(corpus, damaged_run, compress, damage, reason):
    if compress:  # outputs.compress_trajectory
        Recording.load(damaged_run / "trajectory.npz").save(damaged_run / "trajectory.npz", compress=True)
    data = (damaged_run / "trajectory.npz").read_bytes()
    (damaged_run / "trajectory.npz").write_bytes(damage(data))
    assert corpus("render", "damaged", "--quiet") == (
        1, f"error: damaged/trajectory.npz: cannot read trajectory: {reason}\n")


@pytest.mark.parametrize("arrays, reason", [
    ({"body_names": np.array(["box"], dtype=object)},
     "it holds pickled Python objects, which corpus never writes and does not load"),
    ({"body_pos": np.zeros((2, 1, 3))}, "body_pos has shape (2, 1, 3), expected (6, 1, 3)"),
])
def test_render_a_trajectory_with_bad_arrays(corpus, damaged_run, arrays, reason):
    with np.load(damaged_run / "trajectory.npz") as z:
        saved = {k: z[k] for k in z.files}
    np.savez(damaged_run / "trajectory.npz", **{**saved, **arrays}, allow_pickle=True)
    assert corpus("render", "damaged", "--quiet") == (
        1, f"error: damaged/trajectory.npz: cannot read trajectory: {reason}\n")


@pytest.mark.parametrize("document, message", [
    ('{"creature": "box", "bodies": [{"name": "box", "shape": {"box": [0.1, 0.1, 0.1]}}]}',
     "expected the scene a run saved, but this is a creature document; re-run the scene with `corpus run`"),
    ("[1, 2]", "the top level must be a mapping such as `creature: name`"),
])
def test_render_a_scene_json_of_the_wrong_kind_names_it(corpus, damaged_run, document, message):
    (damaged_run / "scene.json").write_text(document)
    assert corpus("render", "damaged", "--quiet") == (1, f"damaged/scene.json:1:1: {message}\n")


def test_render_out_onto_a_file_and_bad_flags(corpus):
    assert corpus("render", "outputs/tiny", "--out", "notes.txt", "--quiet") == (
        1, "notes.txt: is a file, not a folder: the export folder cannot be made there\n")
    assert corpus("render", "outputs/tiny", "--out", "notes.txt/r", "--quiet") == (
        1, "notes.txt: is a file, not a folder: the export folder notes.txt/r cannot be made there\n")
    assert corpus("render", "outputs/tiny", "--size", "12", "--quiet") == (
        1, "error: --size: expected WIDTHxHEIGHT such as 960x540, got '12'\n")
    assert corpus("render", "outputs/tiny", "--fps", "-1", "--quiet", "--plots") == (
        1, "error: --fps: expected a positive number of frames per second, got -1\n")
    assert corpus("render", "outputs/tiny", "--fps", "nan", "--quiet", "--plots") == (
        1, "error: --fps: expected a positive number of frames per second, got nan\n")


@pytest.mark.parametrize("flags, message", [
    (["--fps", "inf"], "--fps: expected a positive number of frames per second, got inf"),
    (["--fps", "1e12"], "--fps: at most 1000 frames per second, got 1e+12"),
    (["--slow-motion", "0"], "--slow-motion: expected a positive number of times slower than real time, got 0"),
    (["--slow-motion", "inf"], "--slow-motion: expected a positive number of times slower than real time, got inf"),
    (["--slow-motion", "1e12"], "--slow-motion: at most 1000 times slower than real time, got 1e+12"),
    # the recording is stretched to 500 s below: 10 x 1000 frames per simulated second is too many
    (["--slow-motion", "10", "--fps", "1000"], "--slow-motion: 10000 frames per simulated second over 500 s is "
                                               "5e+06 frames, more than the 1e+06 an export can take; lower the "
                                               "frame rate or the slow motion"),
    (["--fps", "3000"], "--fps: at most 1000 frames per second, got 3000"),
])
def test_render_rates_and_frame_counts_are_capped(corpus, damaged_run, flags, message):
    with np.load(damaged_run / "trajectory.npz") as z:
        saved = {k: z[k] for k in z.files}
    np.savez(damaged_run / "trajectory.npz", **{**saved, "time": saved["time"] * 1e4})
    assert corpus("render", "damaged", "--quiet", "--frames", *flags) == (1, f"error: {message}\n")
    assert not (damaged_run / "frames").exists()


def test_run_frame_count_is_checked_before_simulating(corpus):
    assert corpus("run", "tiny.yaml", "--out", "outputs/tiny", "--quiet", "--fps", "1000", "--duration", "2000") == (
        1, "error: --fps: 1000 frames per simulated second over 2000 s is 2e+06 frames, more than the 1e+06 an "
           "export can take; lower the frame rate or the slow motion\n")
    assert corpus("run", "tiny.yaml", "--out", "outputs/tiny", "--quiet", "--fps", "1e12") == (
        1, "error: --fps: at most 1000 frames per second, got 1e+12\n")


def test_render_publishes_all_exports_together(corpus, project, damaged_run):
    """A render replaces each export folder it makes whole (no file of an older, longer
    sequence stays) and leaves what it did not make."""
    out = project / "rendered_pub"
    (out / "frames").mkdir(parents=True, exist_ok=True)
    (out / "frames/frame_09999.png").write_text("a frame of another render")
    (out / "mine.txt").write_text("keep")
    for fps, frames in (("120", 6), ("30", 2)):  # 0.05 s of recording: round(fps * 0.05) frames
        assert corpus("render", "damaged", "--out", "rendered_pub", "--quiet", "--plots", "--meshes", "obj",
                      "--fps", fps) == (0, "")
        assert sorted(p.name for p in (out / "meshes").iterdir()) == [f"frame_{k:05d}.obj" for k in range(frames)]
    assert (out / "mine.txt").read_text() == "keep"
    assert (out / "frames/frame_09999.png").read_text() == "a frame of another render"
    assert (out / "plots/speed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(project.glob(".rendered_pub.partial-*"))


# --- batch ---

def test_batch_bad_flags_and_folders_touch_nothing(corpus, project):
    summary = project / "outputs/batch_keep"
    summary.mkdir(parents=True, exist_ok=True)
    (summary / "batch.csv").write_text("an earlier summary\n")
    assert corpus("batch", "tiny.yaml", "--jobs", "0", "--out", "outputs/batch_keep") == (
        1, "error: --jobs: expected at least 1 job at once, got 0\n")
    assert corpus("batch", "tiny.yaml", "--timeout", "nan", "--out", "outputs/batch_keep") == (
        1, "error: --timeout: expected a positive number of seconds, got nan\n")
    assert corpus("batch", "tiny.yaml", "--scheduler", "tcp://127.0.0.1:1", "--out", "outputs/batch_keep") == (
        1, "error: --scheduler needs --executor dask\n")
    assert corpus("batch", "tiny.yaml", "--executor", "dask", "--scheduler", "nonsense", "--out",
                  "outputs/batch_keep") == (
        1, "error: cannot reach the Dask scheduler nonsense: missing port number in address 'nonsense'\n")
    assert (summary / "batch.csv").read_text() == "an earlier summary\n"
    assert corpus("batch", "tiny.yaml", "--out", "notes.txt") == (
        1, "notes.txt: is a file, not a folder: the batch output folder cannot be made there\n")
    assert corpus("batch", "tiny.yaml", "--out", "outputs/tiny") == (
        1, "outputs/tiny: is the run directory of a `corpus run` (it has a manifest.json); give the "
           "batch a folder of its own with --out\n")


def test_batch_failed_job_is_located_in_its_scene_file(corpus, project):
    path = write(project, "blowup.yaml", BLOWUP)
    status, err = corpus("batch", path, "--out", "outputs/batch_blowup", "--jobs", "1")
    assert status == 1
    assert (f"blowup: failed: {path}:15:13: simulation: simulation unstable at t = 0.8 s: the state "
            "became NaN/inf in body 'a' (q[0])") in err
    (row,) = json.loads((project / "outputs/batch_blowup/batch.json").read_text())
    assert row["status"] == "failed" and row["message"].startswith(f"{path}:15:13: simulation:")
    job_dir = project / row["out_dir"]
    assert not (job_dir / "manifest.json").exists()


SWEEP = "sweep: s\nscene: ../tiny.yaml\nparameters:\n  {path}: {values}\n"


@pytest.mark.parametrize("path, values, message", [
    ("simulation.nosuch", "[1]", ":4:3: parameters.simulation.nosuch: sweep variant tiny__nosuch=1: unknown "
                                 "key 'nosuch'; expected one of: duration, dt,"),
    ("simulation.dt", "[abc]", ":4:3: parameters.simulation.dt: sweep variant tiny__dt=abc: expected a time"),
    ("creatures[zzz].at", "[1]", ":4:3: parameters.creatures[zzz].at: sweep variant tiny__at=1: sweep path "
                                 "'creatures[zzz].at': no item named 'zzz'"),
])
@pytest.mark.parametrize("command", ["validate", "batch"])
def test_sweep_variant_problems_point_at_the_parameter(corpus, project, command, path, values, message):
    sweep = write(project, "sweep.yaml", SWEEP.format(path=path, values=values))
    status, err = corpus(command, sweep, *(["--out", "outputs/batch_sweep", "--quiet"] if command == "batch" else []))
    assert status == 1
    if command == "batch":
        (row,) = json.loads((project / "outputs/batch_sweep/batch.json").read_text())
        assert row["status"] == "invalid"
        err = row["message"]
    assert f"{sweep}{message}" in err


def test_run_of_a_sweep_points_to_batch(corpus, project):
    sweep = write(project, "sweep.yaml", SWEEP.format(path="simulation.dt", values="[0.01]"))
    assert corpus("run", sweep) == (1, f"{sweep}:1:1: expected a scene or a creature, but this is a sweep "
                                       "document; run a sweep with `corpus batch`\n")


def test_sweep_of_a_missing_scene(corpus, project):
    sweep = write(project, "sweep.yaml", SWEEP.replace("../tiny.yaml", "../nothere.yaml").format(
        path="simulation.dt", values="[0.01]"))
    status, out = corpus("validate", sweep)
    assert status == 1
    assert out.startswith(f"{sweep}:2:8: scene: file not found: '../nothere.yaml'")


def test_batch_job_that_hangs_is_stopped_and_reported(corpus, project):
    # weightless, the box floats at rest for as long as the job runs: dropped, it bounces on
    # rk4's stiff ground until it runs away at t = 3.04 s, which a fast machine reaches
    # before the job is stopped
    (project / "long.yaml").write_text(TINY.replace("duration: 0.05", "duration: 2000")
                                       .replace("gravity: 9.8", "gravity: 0"))
    status, err = corpus("batch", "long.yaml", "--timeout", "2", "--out", "outputs/batch_hang", "--jobs", "1")
    assert status == 1
    assert "tiny: timeout: long.yaml: timed out after 2 s (--timeout); the job was stopped\n" in err
    (row,) = json.loads((project / "outputs/batch_hang/batch.json").read_text())
    assert row["status"] == "timeout"
    assert not (project / row["out_dir"]).exists()
    assert not list((project / "outputs/batch_hang").glob(".*partial*"))


# --- convert ---

GOOD_MJCF = ('<mujoco><worldbody><body name="a" pos="0 0 1"><freejoint/>'
             '<geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>\n')


def test_convert_bad_models_and_outputs(corpus, project):
    broken = write(project, "broken.xml", '<mujoco><worldbody><body name="a">\n</worldbody>')
    assert corpus("convert", broken, "-o", "out.yaml") == (1, f"{broken}:2:3: malformed XML: mismatched tag\n")
    empty = write(project, "empty.xml", "")
    assert corpus("convert", empty, "-o", "out.yaml") == (1, f"{empty}:1:1: malformed XML: no element found\n")
    good = write(project, "good.xml", GOOD_MJCF)
    (project / "a_folder").mkdir(exist_ok=True)
    assert corpus("convert", good, "-o", "a_folder") == (1, "a_folder: cannot write: Is a directory\n")
    assert corpus("convert", good, "-o", "notes.txt/x.yaml") == (
        1, "notes.txt/x.yaml: cannot write: a file stands where its folder belongs\n")
    assert corpus("convert", good, "-o", f"./{good}") == (
        1, f"./{good}: -o names the model file itself, which writing the YAML would destroy; "
           "choose another output file\n")
    assert (project / good).read_text() == GOOD_MJCF
    assert not (project / "out.yaml").exists()


@pytest.mark.parametrize("name, text, message", [
    ("nan_mass.urdf", '<robot name="r"><link name="a"><inertial><mass value="abc"/></inertial></link></robot>',
     ":1:42: <mass value>: expected numbers, got 'abc'"),
    ("zero_axis.urdf", '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
                       '<parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint></robot>',
     ":1:116: <axis xyz>: the joint axis must not be zero, got '0 0 0'"),
    ("zero_axis.xml", '<mujoco><worldbody><body name="a"><joint type="hinge" axis="0 0 0"/>'
                      '<geom type="sphere" size=".1"/></body></worldbody></mujoco>',
     ":1:35: <joint axis>: the joint axis must not be zero, got '0 0 0'"),
    ("short_box.xml", '<mujoco><worldbody><body name="a"><freejoint/><geom type="box" size=".1"/></body>'
                      '</worldbody></mujoco>', ":1:47: <geom size>: a box needs 3 size numbers, got '.1'"),
    ("bad_damping.xml", '<mujoco><worldbody><body name="a"><joint type="hinge" damping="lots"/>'
                        '<geom type="sphere" size=".1"/></body></worldbody></mujoco>',
     ":1:35: <joint damping>: expected numbers, got 'lots'"),
])
def test_convert_bad_attribute_values_are_located(corpus, project, name, text, message):
    model = write(project, name, text)
    assert corpus("convert", model, "-o", "out.yaml") == (1, f"{model}{message}\n")
    assert not (project / "out.yaml").exists()


# --- the console script end to end, and Ctrl-C ---

def test_console_script_prints_no_traceback(project):
    proc = subprocess.run([*CORPUS, "run", "tiny.yaml", "--out", "notes.txt/x"], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (
        1, "notes.txt: is a file, not a folder: the run directory notes.txt/x cannot be made there\n")


def interrupt_when(proc: subprocess.Popen, started, timeout: float = 60.0,
                   sig: int = signal.SIGINT) -> tuple[int, str]:
    """SIGINT (or `sig`) `proc` once `started()` is true (the work is under way); its status and stderr."""
    deadline = time.monotonic() + timeout
    while not started():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    return proc.returncode, err


def test_ctrl_c_mid_run_keeps_the_earlier_run(project):
    # weightless, the box floats at rest for as long as the job runs: dropped, it bounces on
    # rk4's stiff ground until it runs away at t = 3.04 s, which a fast machine reaches
    # before the job is stopped
    (project / "long.yaml").write_text(TINY.replace("duration: 0.05", "duration: 2000")
                                       .replace("gravity: 9.8", "gravity: 0"))
    # a first run in a fresh process compiles the step kernels (about a minute with an empty
    # numba cache), during which LLVM holds the signal; this test interrupts the simulation
    subprocess.run([*CORPUS, "run", "tiny.yaml", "--out", "outputs/warm", "--quiet", "--no-frames"],
                   cwd=project, check=True, timeout=600)
    before = tree_hash(project / "outputs/tiny")
    proc = subprocess.Popen([*CORPUS, "run", "long.yaml", "--out", "outputs/tiny", "--quiet"], cwd=project,
                            stderr=subprocess.PIPE, text=True)
    status, err = interrupt_when(proc, lambda: any((project / "outputs").glob(".tiny.partial-*")))
    assert (status, err) == (130, "interrupted\n")
    assert tree_hash(project / "outputs/tiny") == before
    assert not list((project / "outputs").glob(".tiny.partial-*"))


def test_ctrl_c_mid_render_keeps_the_run(project):
    # falling clear of the ground: rk4 at h = 1 ms bounces the box off it ever higher until
    # it runs away (a SimulationError) after 3 s
    (project / "mid.yaml").write_text(TINY.replace("duration: 0.05", "duration: 20").replace("tiny", "mid")
                                      .replace("z: 0}", "z: -2500}"))
    assert subprocess.run([*CORPUS, "run", "mid.yaml", "--quiet"], cwd=project, timeout=300).returncode == 0
    run_dir = project / "outputs/mid"
    before = tree_hash(run_dir)
    (project / "rendered/frames").mkdir(parents=True, exist_ok=True)
    (project / "rendered/frames/frame_00000.png").write_text("a frame of an earlier render")
    earlier = tree_hash(project / "rendered")
    proc = subprocess.Popen([*CORPUS, "render", "outputs/mid", "--out", "rendered", "--frames", "--fps", "240",
                             "--size", "64x48", "--quiet"], cwd=project, stderr=subprocess.PIPE, text=True)
    status, err = interrupt_when(proc, lambda: any(project.glob(".rendered.partial-*/frames/*.png")))
    assert (status, err) == (130, "interrupted\n")
    assert tree_hash(run_dir) == before
    assert tree_hash(project / "rendered") == earlier  # no partial frame sequence was published
    assert not list(project.glob(".rendered.partial-*"))


def test_ctrl_c_mid_batch_leaves_no_job_looking_done(project):
    # weightless, the box floats at rest for as long as the job runs: dropped, it bounces on
    # rk4's stiff ground until it runs away at t = 3.04 s, which a fast machine reaches
    # before the job is stopped
    (project / "long.yaml").write_text(TINY.replace("duration: 0.05", "duration: 2000")
                                       .replace("gravity: 9.8", "gravity: 0"))
    out = project / "outputs/batch_int"
    proc = subprocess.Popen([*CORPUS, "batch", "long.yaml", "--out", "outputs/batch_int", "--jobs", "1", "--quiet"],
                            cwd=project, stderr=subprocess.PIPE, text=True)
    status, err = interrupt_when(proc, lambda: any(out.glob(".*.partial-*")))
    assert (status, err) == (130, "interrupted\n")
    assert not list(out.glob("*/manifest.json"))
    assert not list(out.glob(".*.partial-*"))  # the job was stopped and cleaned up before the batch exited
