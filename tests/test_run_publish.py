"""What a published run folder holds, and what a killed one leaves: exactly the files its
manifest lists, where it was asked for whatever user code does to the working directory,
and no staging or temporary files that outlive a SIGKILL (docs/errors.md, issue 19 items
3, 7 and 9)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli_bad_input import interrupt_when

CORPUS = [sys.executable, "-m", "pipeline.cli"]


def scene(name: str, duration: float = 0.05, outputs: str = "{frames: false, video: false, glb: false, plots: false}",
          controller: str = "") -> str:
    return (f"scene: {name}\nenvironment: {{environment: flat}}\ncreatures:\n"
            "  - creature: box\n    bodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}}]\n"
            "    at: [{move: [0, 0, 0.2]}]\n"
            + (f"controllers: [{{python: '{controller}', creature: box}}]\n" if controller else "")
            # implicit Euler: the resting box must outlive a kill; RK4 at this h ran away on the
            # exponential ground at t = 3.04 s, which the faster step loop reached within a second
            + f"simulation: {{duration: {duration}, dt: 1/100, integrator: implicit_euler, h: 1/1000}}\noutputs: {outputs}\n")


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "corpus.toml").write_text("")
    return tmp_path


def corpus(project: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*CORPUS, *args], cwd=project, capture_output=True, text=True, timeout=600, **kwargs)


def listed(run_dir: Path) -> tuple[list[str], list[str]]:
    """(what the manifest lists, what the folder holds), manifest.json apart."""
    manifest = json.loads((run_dir / "manifest.json").read_text())
    return sorted(manifest["files"]), sorted(p.name for p in run_dir.iterdir() if p.name != "manifest.json")


def test_a_rerun_with_fewer_exports_leaves_only_what_its_manifest_lists(project):
    (project / "full.yaml").write_text(scene("s", outputs="{frames: false, video: false, glb: true, plots: [speed]}"))
    (project / "bare.yaml").write_text(scene("s"))
    assert corpus(project, "run", "full.yaml", "--out", "out", "--quiet").returncode == 0
    files, held = listed(project / "out")
    assert files == held == ["animation.glb", "plots", "scene.json", "trajectory.npz"]
    (project / "out/notes.txt").write_text("left in the run folder")
    assert corpus(project, "run", "bare.yaml", "--out", "out", "--quiet").returncode == 0
    files, held = listed(project / "out")
    assert files == held == ["scene.json", "trajectory.npz"]
    # exports rendered into the run folder later join its manifest
    assert corpus(project, "render", "out", "--glb", "--quiet").returncode == 0
    files, held = listed(project / "out")
    assert files == held == ["animation.glb", "scene.json", "trajectory.npz"]


def test_a_controller_that_changes_directory_does_not_move_the_run(project):
    (project / "away").mkdir()
    (project / "wander.py").write_text("import os\n\ndef step(sim, t, params):\n    os.chdir(os.path.join(os.path.dirname(__file__), 'away'))\n")
    (project / "wander.yaml").write_text(scene("wander", controller="wander:step"))
    proc = corpus(project, "run", "wander.yaml", "--out", "runs/wander")
    assert proc.returncode == 0, proc.stderr
    assert (project / "runs/wander/manifest.json").is_file()
    assert not (project / "away/runs").exists()
    assert "wrote runs/wander/\n" in proc.stdout


def start_and_kill(project: Path, args: list[str], started, env=None) -> None:
    """Start `corpus ARGS`, SIGKILL it once started() is true."""
    proc = subprocess.Popen([*CORPUS, *args], cwd=project, stderr=subprocess.PIPE, text=True, env=env)
    assert interrupt_when(proc, started, 300, signal.SIGKILL)[0] == -signal.SIGKILL


def test_staging_left_by_a_killed_run_is_removed_by_the_next_run_and_looks_unfinished(project):
    (project / "long.yaml").write_text(scene("long", duration=2000))
    (project / "short.yaml").write_text(scene("long"))
    start_and_kill(project, ["run", "long.yaml", "--out", "out", "--quiet"],
                   lambda: list(project.glob(".out.partial-*")))
    (stale,) = project.glob(".out.partial-*")
    assert not (stale / "manifest.json").exists()  # a run is complete only with its manifest
    host = socket.gethostname()
    live = project / f".out.partial-{host}-{os.getpid()}"  # another process of this host, still running
    foreign = project / ".out.partial-otherhost-1"  # a process on another machine sharing the folder
    for keep in (live, foreign):
        keep.mkdir()
    assert corpus(project, "run", "short.yaml", "--out", "out", "--quiet").returncode == 0
    assert sorted(project.glob(".out.partial-*")) == sorted([live, foreign])
    assert (project / "out/manifest.json").is_file()


def test_a_killed_batch_leaves_no_job_files_in_the_temporary_folder(project):
    (project / "long.yaml").write_text(scene("long", duration=2000))
    tmp = project / "tmp"
    tmp.mkdir()
    out = project / "out"
    start_and_kill(project, ["batch", "long.yaml", "--out", "out", "--quiet"],
                   lambda: list(out.glob(".*.partial-*")), env={**os.environ, "TMPDIR": str(tmp)})
    deadline = time.monotonic() + 30  # the job gets SIGTERM when the batch dies, and cleans up
    while list(out.glob(".*.partial-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not list(out.glob(".*.partial-*"))
    assert not list(tmp.iterdir())
