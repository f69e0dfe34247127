"""User code that ends the process instead of returning (sys.exit, os._exit, an exception
class derived from BaseException) is a failure located at the scene's controller entry and
at the line of the code, never a success: through `corpus run` and `corpus batch`, in real
processes (docs/errors.md, issue 19 items 1, 5 and 10)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = [sys.executable, "-m", "pipeline.cli"]

CONTROLLER = """\
import ctypes
import os
import sys


class Stop(BaseException):
    pass


def step(sim, t, params):
    how = params["how"]
    if how == "sys_exit":
        sys.exit(0)
    if how == "os_exit":
        os._exit(0)
    if how == "base_exception":
        raise Stop("not an Exception")
    if how == "libc_exit":
        ctypes.CDLL(None)._exit(0)  # below Python: nothing in-process can stop it
"""

# each way out, and the message: the controller's entry in the scene, then the code's line
ENDINGS = {
    "sys_exit": "called sys.exit(0) in exitctrl.py:13 at t = 0 s; it must return, not end the process",
    "os_exit": "called os._exit(0) in exitctrl.py:15 at t = 0 s; it must return, not end the process",
    "base_exception": "raised Stop in exitctrl.py:17 at t = 0 s: not an Exception",
}


def scene(how: str) -> str:
    # the box falls clear of the ground (sunk into it at these steps, it would be thrown off: a runaway)
    return (f"scene: {how}\nenvironment: {{environment: flat, ground: {{type: flat, z: -1}}}}\n"
            "creatures:\n"
            "  - creature: box\n    bodies: [{name: box, shape: {box: [0.1, 0.1, 0.1]}}]\n"
            f"controllers:\n  - python: exitctrl:step\n    creature: box\n    params: {{how: {how}}}\n"
            "simulation: {duration: 0.05, dt: 1/100}\n"
            "outputs: {frames: false, video: false, glb: false, plots: false}\n")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("usercode")
    (root / "corpus.toml").write_text("")
    (root / "exitctrl.py").write_text(CONTROLLER)
    for how in (*ENDINGS, "libc_exit"):
        (root / f"{how}.yaml").write_text(scene(how))
    return root


@pytest.mark.parametrize("how", sorted(ENDINGS))
def test_run_of_a_controller_that_ends_the_process_fails_located(project, how):
    proc = subprocess.run([*CORPUS, "run", f"{how}.yaml", "--quiet"], cwd=project, capture_output=True,
                          text=True, timeout=300)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"{how}.yaml:7:5: controllers[0]: python controller 'exitctrl:step' {ENDINGS[how]}\n"
    assert not (project / "outputs" / how).exists()


def test_batch_counts_a_job_that_ended_its_process_as_failed(project):
    proc = subprocess.run([*CORPUS, "batch", *(f"{how}.yaml" for how in (*ENDINGS, "libc_exit")),
                           "--out", "out", "--jobs", "2", "--quiet"], cwd=project, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    rows = {r["name"]: r for r in json.loads((project / "out/batch.json").read_text())}
    assert {name: r["status"] for name, r in rows.items()} == dict.fromkeys((*ENDINGS, "libc_exit"), "failed")
    for how, message in ENDINGS.items():
        expected = f"{how}.yaml:7:5: controllers[0]: python controller 'exitctrl:step' {message}"
        assert rows[how]["message"] == expected
        assert f"{how}: failed: {expected}\n" in proc.stderr  # listed also under --quiet
    # a C-level exit(0) escapes every check in the process: the batch trusts only the manifest
    assert rows["libc_exit"]["message"] == ("libc_exit.yaml: the job's process ended with status 0 before it "
                                            "published its run (did user code end the process?)")
    assert not list((project / "out").glob("*/manifest.json"))
