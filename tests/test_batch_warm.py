"""Warm job workers (pipeline/batch/warm.py) and the content-keyed caches they live on
(validation in pipeline/spec/schema.py, compiled models in pipeline/compiler/cache.py):
a job on a warm worker gives the arrays it gives alone, an edited include or mesh is read
again, a worker that is stopped is replaced, and user code keeps a process of its own.
Jobs run without a timeout (but the one that tests it): with an empty kernel cache the
first job compiles the kernels, which takes minutes."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.batch.runner import job_payload
from pipeline.batch.sweep import collect_jobs
from pipeline.batch.warm import WarmPool, needs_own_process
from pipeline.batch.worker import run_job, run_job_process, worker_env
from pipeline.compiler.build import compile_model
from pipeline.spec import schema
from tests.batch_scenes import LONG

REPO = Path(__file__).resolve().parents[1]

CREATURE = """\
creature: cube
bodies:
  - name: cube
    shape: {box: [0.2, 0.2, %s]}
"""

SCENE = """\
scene: drop
environment: %s
creatures:
  - use: cube.yaml
    at: [{move: [0, 0, 0.4]}]
simulation: {duration: 0.1, dt: 1/240, integrator: rk4, h: 1/2400}
outputs: {frames: false, video: false, glb: false, plots: false}
sweep: {parameters: {simulation.seed: [0, 1]}}
""" % (REPO / "environments/flat.yaml")



@pytest.fixture
def project(tmp_path):
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "cube.yaml").write_text(CREATURE % 0.2)
    (tmp_path / "drop.yaml").write_text(SCENE)
    return tmp_path


@pytest.fixture
def warm():
    pool = WarmPool(worker_env())
    yield pool
    pool.close()


def payloads(paths, out: Path) -> list[dict]:
    jobs, invalid = collect_jobs([str(p) for p in paths])
    assert not invalid
    return [job_payload(j, out) for j in jobs]


def arrays(payload: dict) -> dict:
    with np.load(Path(payload["out_dir"]) / "trajectory.npz") as z:
        return {k: z[k] for k in z.files}


def test_a_job_on_a_warm_worker_gives_the_arrays_it_gives_alone(project, warm):
    alone, on_warm = payloads([project / "drop.yaml"], project / "alone"), payloads([project / "drop.yaml"],
                                                                                      project / "warm")
    for p in alone:
        assert run_job_process(p, timeout=None).status == "done"
    for p in on_warm:  # one worker runs both, the second from its caches
        assert run_job(p, timeout=None, warm=warm).status == "done"
    assert len(warm.processes()) == 1
    for a, w in zip(alone, on_warm):
        ours, theirs = arrays(a), arrays(w)
        assert ours.keys() == theirs.keys()
        for key in ours:
            assert np.array_equal(ours[key], theirs[key]), key


def test_an_edited_include_is_read_again_by_the_same_worker(project, warm):
    first = payloads([project / "drop.yaml"], project / "out")[0]
    assert run_job(first, timeout=None, warm=warm).status == "done"
    (project / "cube.yaml").write_text(CREATURE % 0.76)  # a taller cube: it lands within the run
    (edited,) = payloads([project / "drop.yaml"], project / "out")[:1]
    assert edited["hash"] != first["hash"]
    assert run_job(edited, timeout=None, warm=warm).status == "done"
    assert len(warm.processes()) == 1
    reference = payloads([project / "drop.yaml"], project / "alone")[0]
    assert run_job_process(reference, timeout=None).status == "done"
    before, after, alone = arrays(first), arrays(edited), arrays(reference)
    assert not np.array_equal(before["body_pos"], after["body_pos"])
    assert np.array_equal(after["body_pos"], alone["body_pos"])


def test_compiled_models_are_remembered_until_a_file_they_read_changes(tmp_path):
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "tet.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n")
    (tmp_path / "tet.yaml").write_text("creature: tet\nbodies:\n  - name: tet\n"
                                       "    shape: {mesh: {file: tet.obj, scale: [0.1, 0.1, 0.1]}}\n")
    model, cstate0 = compile_model(pipeline.load(tmp_path / "tet.yaml"))
    again, cstate_again = compile_model(pipeline.load(tmp_path / "tet.yaml"))
    assert again is model and cstate_again is not cstate0  # the caller's contact state is its own
    # the same file, twice as large: the mesh is read again and the mass follows it
    (tmp_path / "tet.obj").write_text("v 0 0 0\nv 2 0 0\nv 0 2 0\nv 0 0 2\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n")
    edited, _ = compile_model(pipeline.load(tmp_path / "tet.yaml"))
    assert edited is not model
    assert edited.tree.mass[0] == pytest.approx(8 * model.tree.mass[0], rel=1e-12)


def test_a_simulation_from_a_remembered_model_is_the_same_run(project):
    scene = pipeline.load_scene(project / "drop.yaml")
    first = pipeline.compile(scene).run()
    second = pipeline.compile(scene).run()  # the remembered Model, after a run on it
    for key in ("q", "qd", "body_pos", "body_quat"):
        assert np.array_equal(getattr(first, key), getattr(second, key)), key


def test_a_known_valid_creature_still_leaves_the_rest_of_a_scene_checked(project, monkeypatch):
    scene = pipeline.load_scene(project / "drop.yaml")
    doc = json.loads(json.dumps(scene.source))
    bad_simulation = {**doc, "simulation": {**doc["simulation"], "integratr": "rk4"}}
    bad_creature = json.loads(json.dumps(bad_simulation))
    bad_creature["creatures"][0]["bodies"][0]["shape"] = {"box": [0.2, 0.2]}

    def problems(d):
        return [(p.path, p.message) for p in schema.validate(d, "scene")]

    monkeypatch.setattr(schema, "_valid", set())
    unknown = {"sim": problems(bad_simulation), "creature": problems(bad_creature)}
    assert unknown["sim"] and len(unknown["creature"]) > len(unknown["sim"])
    assert schema.validate(doc["creatures"][0], "creature") == []  # now known valid
    assert problems(bad_simulation) == unknown["sim"]
    assert problems(bad_creature) == unknown["creature"]  # an edited creature is not the known one
    assert problems(doc) == []
    assert schema.validate(schema._KNOWN_CREATURE, "creature") != []  # the stub is only a scene item


def test_a_stopped_worker_is_replaced_and_the_next_job_runs(project, warm):
    (project / "long.yaml").write_text(LONG)
    (long_job,) = payloads([project / "long.yaml"], project / "out")
    first = run_job(payloads([project / "drop.yaml"], project / "out")[0], timeout=None, warm=warm)
    assert first.status == "done"
    (pid,) = [p.pid for p in warm.processes()]
    outcome = run_job(long_job, timeout=3, warm=warm)
    assert outcome.status == "timeout" and "timed out after 3 s" in outcome.message
    assert not list((project / "out").glob(".*partial*")) and not Path(long_job["out_dir"]).exists()
    assert warm.processes() == []  # the stopped worker is not reused
    after = run_job(payloads([project / "drop.yaml"], project / "out")[1], timeout=None, warm=warm)
    assert after.status == "done"
    assert [p.pid for p in warm.processes()] != [pid]


def test_only_user_code_needs_a_process_of_its_own():
    assert needs_own_process({"source": {"controllers": [{"python": "mine:step", "creature": "a"}]}})
    assert not needs_own_process({"source": {"controllers": [{"python": "pipeline.importers.actuation:motors"}]}})
    assert not needs_own_process({"source": {"controllers": [{"use": "gait.yaml"}]}})
    assert not needs_own_process({"source": {}})


def test_a_dict_scene_reuses_the_creatures_it_built_only_for_the_same_content(project):
    doc = json.loads(json.dumps(pipeline.load_scene(project / "drop.yaml").source))
    first = pipeline.load_scene(doc, base_dir=project)
    doc["simulation"]["seed"] = 7
    second = pipeline.load_scene(doc, base_dir=project)
    assert second.creatures[0] is first.creatures[0] and second.simulation.seed == 7
    doc["creatures"][0]["bodies"][0]["shape"] = {"box": [0.2, 0.2, 0.5]}
    third = pipeline.load_scene(doc, base_dir=project)
    assert third.creatures[0] is not first.creatures[0]
    assert third.creatures[0].bodies[0].geoms[0].size[2] == 0.5
    assert pipeline.load_scene(doc, base_dir=project.parent).creatures[0] is not third.creatures[0]
