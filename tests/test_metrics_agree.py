"""One quantity, one definition (docs/metrics.md): on a short run of the bundled roach the
manifest, the speed plot and batch.csv report the same numbers, all from
pipeline/simulate/metrics.py, and the metrics mean what their names say."""
import csv
import json
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.batch.jobs import Job
from pipeline.batch.runner import SIGNIFICANT, BatchResult, _row, write_summary
from pipeline.export.plots import speed_title
from pipeline.recording import Recording
from pipeline.run import run_scene
from pipeline.simulate import metrics as M

ROOT = Path(__file__).resolve().parents[1]
TRIPOD = ROOT / "scenes" / "roach_tripod.yaml"


@pytest.fixture(scope="module")
def roach_run(tmp_path_factory):
    """0.6 s of the demo scene (it starts walking at 0.2 s) run as a one-job batch would."""
    root = tmp_path_factory.mktemp("batch")
    scene = pipeline.load(TRIPOD)
    job = Job("roach_tripod", scene.source, tuple(str(f) for f in scene.files))
    run_scene(TRIPOD, job.out_dir(root), duration=0.6, quiet=True,
              export_options={"frames": False, "video": False, "glb": False, "plots": ["speed"]})
    return root, job


def test_manifest_plot_and_batch_csv_give_the_same_numbers(roach_run):
    root, job = roach_run
    out = job.out_dir(root)
    manifest = json.loads((out / "manifest.json").read_text())["metrics"]
    recording = Recording.load(out / "trajectory.npz")
    assert manifest == json.loads(json.dumps(M.scene_metrics(recording)))
    assert manifest["body"] == "abdomen" and set(M.SCENE_METRICS) <= set(manifest)

    # the plot draws speed_series; its time means are the manifest's speeds, its title says them
    assert (out / "plots" / "speed.png").is_file()
    t, along_path, along_heading = M.speed_series(recording)
    dt = np.diff(recording.time)
    span = recording.time[-1] - recording.time[0]
    assert np.sum(along_path * dt) / span == pytest.approx(manifest["path_speed"], rel=1e-12)
    assert np.sum(along_heading * dt) / span == pytest.approx(manifest["heading_speed"], rel=1e-12)
    title = speed_title(manifest)
    for name in ("path_speed", "heading_speed", "planar_speed"):
        assert f"{name} {manifest[name] * 100:.2f}" in title

    # batch.csv: the manifest's values under the same names, rounded
    result = BatchResult(rows=[_row(job, root, "done", 1.0)], out=root)
    write_summary(result)
    with open(root / "batch.csv", newline="") as f:
        (row,) = csv.DictReader(f)
    assert row["body"] == "abdomen" and row["simulated_s"] == "0.6"
    for name in ("path_speed", "heading_speed", "planar_speed"):
        assert float(row[name]) == float(f"{manifest[name]:.{SIGNIFICANT}g}")
    assert json.loads(row["final_position"]) == [float(f"{v:.{SIGNIFICANT}g}") for v in manifest["final_position"]]
    assert row["fell"] == "False"


def test_the_speeds_mean_what_their_names_say(roach_run):
    root, job = roach_run
    rec = Recording.load(job.out_dir(root) / "trajectory.npz")
    path, heading, planar = (M.METRICS[n](rec, None) for n in ("path_speed", "heading_speed", "planar_speed"))
    assert path >= planar > 0 and path >= abs(heading)
    net = rec.body_pos[-1, 0, :2] - rec.body_pos[0, 0, :2]
    assert planar == pytest.approx(np.linalg.norm(net) / 0.6, rel=1e-9)


def test_heading_speed_of_a_body_sliding_sideways_is_zero():
    t = np.linspace(0, 1, 11)
    pos = np.stack([0 * t, 0.1 * t, 0 * t], -1)[:, None]  # along +y
    facing_x = np.tile([1.0, 0, 0, 0], (len(t), 1))[:, None]
    rec = Recording(t, ("b",), pos, facing_x, np.zeros((len(t), 7)), np.zeros((len(t), 6)))
    assert M.heading_speed(rec, None) == pytest.approx(0.0, abs=1e-15)
    assert M.path_speed(rec, None) == pytest.approx(0.1)
    assert M.planar_speed(rec, None) == pytest.approx(0.1)
    yaw90 = np.tile([np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)], (len(t), 1))[:, None]
    facing_y = Recording(t, ("b",), pos, yaw90, np.zeros((len(t), 7)), np.zeros((len(t), 6)))
    assert M.heading_speed(facing_y, None) == pytest.approx(0.1)
