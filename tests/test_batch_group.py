"""A sweep's jobs simulated together (pipeline/batch/group.py, run_together in
pipeline/simulate/rollout.py): the same files as each job run alone, a failing job fails
alone, and an interrupted group leaves nothing half-written."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pipeline.batch.executors import default_jobs
from pipeline.batch.group import group_payloads
from pipeline.batch.runner import run_batch
from pipeline.run import run_scene

REPO = Path(__file__).resolve().parents[1]
OUTPUTS = "outputs: {frames: false, video: false, glb: false, plots: false}\n"
# with --jobs 1 a sweep's jobs run as one group when the machine has a core beside the worker's


def together(out: Path) -> set:
    """The group sizes the jobs' manifests give ({None} for jobs that ran one by one)."""
    return {m["timings"].get("together") for m in manifests(out).values()}


def group_of(n: int) -> set:
    return {n} if default_jobs() >= 2 else {None}


def sweep(folder: Path, parameters: str, h: str = "1/2400") -> Path:
    """The box dropped onto flat ground (a push at 0.05 s on its timeline), one job per value."""
    path = folder / "drop.yaml"
    path.write_text("scene: drop\n"
                    f"environment: {REPO / 'environments/flat.yaml'}\n"
                    f"creatures:\n  - use: {REPO / 'creatures/box.yaml'}\n    at: [{{move: [0, 0, 0.3]}}]\n"
                    f"simulation: {{duration: 0.1, dt: 1/240, integrator: rk4, h: {h}}}\n"
                    "timeline: [{at: 0.05, do: {push: {body: box, force: [3, 0, 0], duration: 0.02}}}]\n"
                    + OUTPUTS + f"sweep: {{parameters: {{{parameters}}}}}\n")
    return path


def manifests(out: Path) -> dict:
    return {m.parent.name: json.loads(m.read_text()) for m in out.glob("*/manifest.json")}


def test_group_payloads_puts_each_sweep_into_groups_when_workers_leave_cores_free():
    jobs = [{"hash": str(i), "origin": "a.yaml", "source": {}} for i in range(5)]
    alone = {"hash": "x", "origin": "b.yaml", "source": {}}
    user = {"hash": "u", "origin": "a.yaml", "source": {"controllers": [{"python": "mine:step"}]}}
    one = group_payloads(jobs + [alone, user], workers=1, cores=2, timeout=None)
    assert alone in one and user in one  # a sweep of one job; user code runs in a process of its own
    assert [p for p in one if "group" in p] == [{"group": jobs, "threads": 2}]
    two = group_payloads(jobs, workers=2, cores=4, timeout=None)
    assert two == [{"group": jobs[0::2], "threads": 2}, {"group": jobs[1::2], "threads": 2}]
    assert group_payloads(jobs, workers=2, cores=2, timeout=None) == jobs  # a core per worker: one by one
    assert group_payloads(jobs, workers=1, cores=2, timeout=60) == jobs  # a timeout is a job's own
    many = [{"hash": str(i), "origin": "a.yaml", "source": {}} for i in range(70)]
    assert [len(p["group"]) for p in group_payloads(many, workers=1, cores=2, timeout=None)] == [24, 23, 23]


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_grouped_jobs_write_what_each_job_alone_writes(tmp_path, executor):
    scene = sweep(tmp_path, "simulation.seed: [0, 1, 2], environment.gravity: [9.8, 3.0]")
    result = run_batch([str(scene)], tmp_path / "out", jobs=1, executor=executor, quiet=True)
    assert sorted(r["status"] for r in result.rows) == ["done"] * 6
    found = manifests(tmp_path / "out")
    assert together(tmp_path / "out") == group_of(6)
    for name, manifest in found.items():
        job = tmp_path / "out" / name
        alone = run_scene(json.loads((job / "scene.json").read_text()), tmp_path / "alone" / name, quiet=True)
        assert manifest["metrics"] == alone.manifest["metrics"]
        with np.load(job / "trajectory.npz") as grouped, np.load(alone.out_dir / "trajectory.npz") as own:
            assert grouped.files == own.files
            for key in own.files:
                assert np.array_equal(grouped[key], own[key]), (name, key)


def test_a_failing_job_fails_alone_with_its_message(tmp_path):
    scene = sweep(tmp_path, "environment.gravity: [9.8, 1e300, 3.0]")
    result = run_batch([str(scene)], tmp_path / "out", jobs=1, quiet=True)
    rows = {r["name"]: r for r in result.rows}
    assert rows["drop__gravity=9.8"]["status"] == rows["drop__gravity=3.0"]["status"] == "done"
    failed = rows["drop__gravity=1e+300"]
    assert failed["status"] == "failed" and "simulation unstable at t = " in failed["message"]
    assert "drop.yaml" in failed["message"] and "Traceback" not in failed["message"]
    assert together(tmp_path / "out") == group_of(3)


def test_an_interrupted_group_leaves_no_partial_job_and_resumes(tmp_path):
    # RK4 at 1 us: the six jobs simulate for a few tenths of a second together
    scene = str(sweep(tmp_path, "simulation.seed: [0, 1, 2, 3, 4, 5]", h="1e-6"))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "batch", scene, "--jobs", "1",
                             "--out", str(out), "--quiet"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not list(out.glob(".*partial*")) and not list(out.glob("*/manifest.json")) \
            and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    assert not list(out.glob(".*partial*"))
    finished = {name: m["job_hash"] for name, m in manifests(out).items()}
    for name in finished:  # a published job is whole
        assert {"scene.json", "trajectory.npz"} <= {p.name for p in (out / name).iterdir()}
    result = run_batch([scene], out, jobs=1, quiet=True)
    statuses = sorted(r["status"] for r in result.rows)
    assert statuses.count("cached") == len(finished) and statuses.count("done") == 6 - len(finished)
