"""`corpus batch --executor dask --scheduler ...` against a real external cluster on 127.0.0.1
(a `dask scheduler` and a `dask worker` started from another folder): a batch stopped by
Ctrl-C or killed outright takes its running job with it, and a failed job's message keeps
its line and column (docs/errors.md, issue 19 items 4 and 8)."""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.fileio import process_alive
from test_cli_bad_input import BLOWUP  # overflows within its first frame
from tests.batch_scenes import LONG

CORPUS = [sys.executable, "-m", "pipeline.cli"]
DASK = str(Path(sys.executable).with_name("dask"))  # the console script beside this Python



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """tcp://127.0.0.1:PORT of a scheduler with one single-threaded worker, whose working
    directory is not the batch's."""
    elsewhere = tmp_path_factory.mktemp("worker_cwd")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], cwd=elsewhere, stderr=subprocess.DEVNULL)]
    procs.append(subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--nworkers", "1",
                                   "--no-dashboard", "--host", "127.0.0.1"], cwd=elsewhere,
                                  stderr=subprocess.DEVNULL))
    try:
        from dask.distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(1, timeout=120)
        yield address
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGINT)
        for p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "long.yaml").write_text(LONG)
    (tmp_path / "blowup.yaml").write_text(BLOWUP)
    return tmp_path


def job_process(out: Path) -> int:
    """The pid of the job simulating into out/, from its staging folder's name
    (`.NAME.partial-HOST-PID`, pipeline/fileio.py)."""
    stages = wait_for(lambda: list(out.glob(".long-*.partial-*")), 300, "the job to start")
    return int(stages[0].name.rpartition("-")[2])


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL])
def test_a_stopped_batch_takes_its_running_job_with_it(scheduler, project, stop):
    out = project / "out"
    batch = subprocess.Popen([*CORPUS, "batch", "long.yaml", "--executor", "dask", "--scheduler", scheduler,
                              "--out", "out", "--quiet"], cwd=project, stderr=subprocess.PIPE, text=True)
    try:
        pid = job_process(out)
        time.sleep(1.0)  # simulating
        assert process_alive(pid)
        batch.send_signal(stop)
        status = batch.wait(timeout=60)
        assert status == (130 if stop == signal.SIGINT else -signal.SIGKILL)
        # the worker sees its task cancelled (by the batch, or by the scheduler when the
        # batch's connection drops) and stops the job, which removes its staging folder
        wait_for(lambda: not process_alive(pid), 20, "the job to stop")
        wait_for(lambda: not list(out.glob(".long-*.partial-*")), 20, "the staging folder to go")
        assert not list(out.glob("*/manifest.json"))
    finally:
        if batch.poll() is None:
            batch.kill()


def test_a_failed_job_keeps_its_line_on_a_worker_elsewhere(scheduler, project):
    proc = subprocess.run([*CORPUS, "batch", "blowup.yaml", "--executor", "dask", "--scheduler", scheduler,
                           "--out", "out", "--quiet"], cwd=project, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1
    (row,) = json.loads((project / "out/batch.json").read_text())
    assert row["status"] == "failed"
    assert row["message"].startswith("blowup.yaml:15:13: simulation: simulation unstable at t = 0.8 s: the state "
                                     "became NaN/inf in body 'a' (q[0])")
    assert f"blowup: failed: {row['message']}\n" in proc.stderr
    assert not (project / row["out_dir"] / "manifest.json").exists()
