"""corpus run: one job into a run directory, staged so that failures change nothing."""
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.compiler.build import build_model
from pipeline.errors import CorpusError
from pipeline.run import run_scene

REPO = Path(__file__).resolve().parents[1]
NO_MEDIA = {"frames": False, "video": False, "glb": False, "plots": False}


def digest(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_run_writes_a_complete_reloadable_run_directory(tmp_path):
    result = run_scene(REPO / "scenes/pendulum5.yaml", tmp_path / "run", duration=0.05,
                       export_options=NO_MEDIA, quiet=True)
    out = tmp_path / "run"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest == result.manifest
    assert {"scene.json", "trajectory.npz"} <= set(manifest["files"])
    assert manifest["simulated_time_s"] == pytest.approx(0.05)
    assert str((REPO / "scenes/pendulum5.yaml").resolve()) in manifest["inputs"]
    assert set(manifest["timings"]) == {"load_s", "compile_s", "simulate_s", "save_s", "export_s",
                                            "kernel_compile_s"}
    assert not list(tmp_path.glob(".*partial*"))
    # scene.json is the canonical document: it loads again to the same scene
    again = pipeline.load_scene(json.loads((out / "scene.json").read_text()))
    first = pipeline.load_scene(REPO / "scenes/pendulum5.yaml")
    assert again.source == first.source and again.simulation == first.simulation
    a, b = build_model(again), build_model(first)
    for x, y in zip(a.tree + a.forces, b.tree + b.forces):
        assert np.array_equal(x, y)
    with np.load(out / "trajectory.npz") as z:
        assert z["q"].shape[1] == 5 and z["time"][-1] == pytest.approx(0.05)


def test_trajectory_is_stored_unless_the_outputs_ask_to_compress_it(tmp_path):
    import zipfile

    for compress in (False, True):
        run_scene(REPO / "scenes/pendulum5.yaml", tmp_path / str(compress), duration=0.05, quiet=True,
                  export_options={**NO_MEDIA, "compress_trajectory": compress})
        with zipfile.ZipFile(tmp_path / str(compress) / "trajectory.npz") as archive:
            methods = {info.compress_type for info in archive.infolist()}
        assert methods == {zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED}
    stored, deflated = (np.load(tmp_path / name / "trajectory.npz") for name in ("False", "True"))
    assert stored.files == deflated.files
    for key in stored.files:
        assert np.array_equal(stored[key], deflated[key])


def test_a_failing_run_leaves_earlier_outputs_byte_identical(tmp_path):
    out = tmp_path / "run"
    run_scene(REPO / "scenes/pendulum5.yaml", out, duration=5 / 240, export_options=NO_MEDIA, quiet=True)
    before = digest(out)
    broken = json.loads((out / "scene.json").read_text())
    broken["controllers"] = [{"python": "no_such_module_xyz:step", "creature": broken["creatures"][0]["creature"]}]
    with pytest.raises(CorpusError, match="no_such_module_xyz"):
        run_scene(broken, out, duration=5 / 240, export_options=NO_MEDIA, quiet=True)
    assert digest(out) == before
    assert not list(tmp_path.glob(".*partial*"))


def test_particle_scenes_run_from_their_saved_document(tmp_path):
    first = run_scene(REPO / "scenes/roobot_hop.yaml", tmp_path / "a", duration=0.2, export_options=NO_MEDIA,
                      quiet=True)
    source = json.loads((tmp_path / "a/scene.json").read_text())
    run_scene(source, tmp_path / "b", duration=0.2, export_options=NO_MEDIA, quiet=True)
    assert first.manifest["metrics"]["body"] == "hip"
    with np.load(tmp_path / "a/trajectory.npz") as a, np.load(tmp_path / "b/trajectory.npz") as b:
        assert np.array_equal(a["body_pos"], b["body_pos"])


def test_the_summary_goes_to_stdout_and_lists_files_that_exist(tmp_path, capsys):
    from pipeline.cli import main

    out = tmp_path / "run"
    assert main(["run", str(REPO / "scenes/pendulum5.yaml"), "--out", str(out), "--duration", "0.05",
                 "--no-frames"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("pendulum5: simulated 0.050 s (12 frames of 1/240 s) in ")
    assert f"wrote {out}/" in lines
    listed = [line.split()[0].rstrip("/") for line in lines[lines.index(f"wrote {out}/") + 1:]]
    assert "manifest.json" in listed and "plots" in listed
    assert all((out / name).exists() for name in listed)
    assert "simulated" not in captured.err  # stderr is for progress and notices only
