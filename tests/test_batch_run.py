"""Batches end to end: real scenes, real worker processes, a real Dask LocalCluster."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from pipeline.batch.runner import run_batch

REPO = Path(__file__).resolve().parents[1]


def write_scene(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"scene: {name}\n"
                    f"environment: {REPO / 'environments/flat.yaml'}\n"
                    f"creatures:\n  - use: {REPO / 'creatures/box.yaml'}\n    at: [{{move: [0, 0, 0.3]}}]\n"
                    + body)
    return path


def short_sweep(folder: Path, seeds=(0, 1), h: str = "1/2400") -> Path:
    return write_scene(folder, "drop", f"simulation: {{duration: 0.1, dt: 1/240, integrator: rk4, h: {h}}}\n"
                                       "outputs: {frames: false, video: false, glb: false, plots: false}\n"
                                       f"sweep: {{parameters: {{simulation.seed: {list(seeds)}}}}}\n")


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """One job first, so numba's cache is filled before jobs are timed against a timeout."""
    folder = tmp_path_factory.mktemp("warm")
    result = run_batch([str(short_sweep(folder, seeds=(0,)))], folder / "out", jobs=1, quiet=True)
    assert [r["status"] for r in result.rows] == ["done"]


def trajectories(out: Path) -> dict:
    arrays = {}
    for npz in sorted(out.glob("*/trajectory.npz")):
        with np.load(npz) as z:
            arrays[npz.parent.name] = {k: z[k] for k in z.files}
    return arrays


def test_failures_are_isolated_reported_and_exit_1(tmp_path, warm):
    (tmp_path / "hang_ctrl.py").write_text("import time\n\ndef step(sim, t, params):\n    time.sleep(3600)\n")
    good = short_sweep(tmp_path)
    broken = tmp_path / "broken.yaml"
    broken.write_text("scene: broken\nsimulation: {duration: 0.1, integratr: rk4}\n")
    hang = write_scene(tmp_path, "hang", "controllers: [{python: 'hang_ctrl:step', creature: box}]\n"
                                         "simulation: {duration: 0.1}\n")
    # hang_ctrl.py sits beside the scene that names it, and the batch starts elsewhere
    proc = subprocess.run([sys.executable, "-m", "pipeline.cli", "batch", str(good), str(broken), str(hang),
                           "--jobs", "2", "--timeout", "20", "--out", str(tmp_path / "out"), "--quiet"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 1, proc.stderr
    rows = {r["name"]: r for r in json.loads((tmp_path / "out/batch.json").read_text())}
    assert rows["drop__seed=0"]["status"] == rows["drop__seed=1"]["status"] == "done"
    assert rows["broken"]["status"] == "invalid"
    assert "integratr" in rows["broken"]["message"] and "broken.yaml:2" in rows["broken"]["message"]
    assert rows["hang"]["status"] == "timeout"
    assert "Traceback" not in proc.stderr
    assert not list((tmp_path / "out").glob("hang-*/manifest.json"))  # nothing that looks complete
    csv_lines = (tmp_path / "out/batch.csv").read_text().splitlines()
    assert csv_lines[0].startswith("name,status,wall_s,simulated_s") and len(csv_lines) == 5


def test_same_job_same_arrays_with_jobs_1_jobs_2_and_dask(tmp_path, warm):
    scene = str(short_sweep(tmp_path, seeds=(3, 4)))
    results = {}
    for label, kwargs in {"jobs1": dict(jobs=1), "jobs2": dict(jobs=2),
                          "dask": dict(jobs=2, executor="dask")}.items():
        result = run_batch([scene], tmp_path / label, quiet=True, **kwargs)
        assert sorted(r["status"] for r in result.rows) == ["done", "done"]
        results[label] = trajectories(tmp_path / label)
    assert results["jobs1"].keys() == results["jobs2"].keys() == results["dask"].keys()
    for job, arrays in results["jobs1"].items():
        for other in ("jobs2", "dask"):
            for key, value in arrays.items():
                assert np.array_equal(value, results[other][job][key]), (job, other, key)


def test_rerun_skips_finished_jobs_and_force_redoes_them(tmp_path, warm):
    scene = str(short_sweep(tmp_path))
    first = run_batch([scene], tmp_path / "out", jobs=2, quiet=True)
    assert sorted(r["status"] for r in first.rows) == ["done", "done"]
    again = run_batch([scene], tmp_path / "out", jobs=2, quiet=True)
    assert sorted(r["status"] for r in again.rows) == ["cached", "cached"]
    forced = run_batch([scene], tmp_path / "out", jobs=2, force=True, quiet=True)
    assert sorted(r["status"] for r in forced.rows) == ["done", "done"]


def test_interrupted_batch_resumes_without_redoing_finished_jobs(tmp_path, warm):
    # jobs of a few tenths of a second (RK4 at 1 us), so the interrupt finds some unfinished:
    # at 1/2400 s all six finished within 40 ms of the first, inside one poll of the loop below;
    # a --timeout runs them one by one (a sweep's jobs otherwise simulate together and finish
    # together: tests/test_batch_group.py)
    scene = str(short_sweep(tmp_path, seeds=(0, 1, 2, 3, 4, 5), h="1e-6"))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "batch", scene, "--jobs", "1", "--timeout", "600",
                             "--out", str(out), "--quiet"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not list(out.glob("*/manifest.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    finished = {m.parent.name: m.stat().st_mtime_ns for m in out.glob("*/manifest.json")}
    assert 1 <= len(finished) < 6
    assert not list(out.glob(".*partial*"))  # the interrupted job left no staging folder behind

    result = run_batch([scene], out, jobs=2, quiet=True)
    statuses = sorted(r["status"] for r in result.rows)
    assert statuses.count("cached") == len(finished) and statuses.count("done") == 6 - len(finished)
    for name, mtime in finished.items():
        assert (out / name / "manifest.json").stat().st_mtime_ns == mtime
