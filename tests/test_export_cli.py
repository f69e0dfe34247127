"""`corpus render`: a finished run directory is exported again from its trajectory.npz and
scene.json alone (no simulation), with the scene's outputs block and the CLI flags."""
import argparse
import json

import numpy as np
import pytest

import pipeline
from pipeline.errors import CorpusError
from pipeline.export.cli import add_parser, render_run
from pipeline.recording import Recording
from test_export_gltf import accessor, read_glb

SCENE = "scenes/box_drop.yaml"


def parse(*argv):
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    return parser.parse_args(["render", *argv])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A run directory as `corpus run` leaves it: scene.json and a trajectory (here the
    box in free fall from 0.5 m, spinning about z, sampled at 240 Hz for 0.5 s)."""
    out = tmp_path_factory.mktemp("box_drop")
    scene = pipeline.load(SCENE)
    (out / "scene.json").write_text(json.dumps(scene.source))
    t = np.arange(121) / 240
    pos = np.stack([0 * t, 0 * t, 0.5 - 9.8 * t * t / 2], -1)[:, None]
    quat = np.stack([np.cos(t), 0 * t, 0 * t, np.sin(t)], -1)[:, None]
    q = np.concatenate([pos[:, 0], quat[:, 0]], 1)
    Recording(t, ("box",), pos, quat, q, np.zeros((len(t), 6))).save(out / "trajectory.npz")
    return out


def test_render_exports_from_the_saved_trajectory(run_dir, tmp_path):
    args = parse(str(run_dir), "--out", str(tmp_path), "--glb", "--no-frames", "--fps", "20",
                 "--quiet")
    written = render_run(run_dir, tmp_path, args)
    # the scene asks for video and plots; --no-frames drops the video, plots stay
    assert tmp_path / "animation.glb" in written
    assert tmp_path / "plots" / "speed.png" in written
    assert not (tmp_path / "video.mp4").exists()
    rec = Recording.load(run_dir / "trajectory.npz")
    doc, blob = read_glb(tmp_path / "animation.glb")
    sampler = doc["animations"][0]["samplers"][0]
    t = accessor(doc, blob, sampler["input"])[:, 0]
    assert len(t) == 10  # 20 fps x 0.5 s
    box = accessor(doc, blob, sampler["output"])
    k = np.searchsorted(rec.time, np.arange(10) / 20)  # output frames fall on recorded samples
    assert np.allclose(box, rec.body_pos[k, 0], rtol=1e-6, atol=1e-7)


def test_render_into_the_run_directory_restates_its_scene_json(run_dir, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    render_run(run, run, parse(str(run), "--no-frames", "--fps", "60", "--camera", "orbit", "--quiet"))
    outputs = json.loads((run / "scene.json").read_text())["outputs"]
    assert outputs["fps"] == 60 and outputs["camera"]["mode"] == "orbit"
    assert pipeline.load(run / "scene.json").outputs["fps"] == 60  # and it still loads
    # exports written elsewhere leave the run's own record alone
    render_run(run, tmp_path / "elsewhere", parse(str(run), "--no-frames", "--fps", "10", "--quiet"))
    assert json.loads((run / "scene.json").read_text())["outputs"]["fps"] == 60
    assert not (tmp_path / "elsewhere" / "scene.json").exists()


def test_render_of_a_folder_without_a_run_says_so(tmp_path):
    with pytest.raises(CorpusError, match="scene.json: missing"):
        render_run(tmp_path, tmp_path, parse(str(tmp_path)))


def test_render_flags_add_to_the_scene_outputs():
    args = parse("run", "--frames", "--video", "mp4,gif", "--camera", "orbit", "--slow-motion",
                 "4", "--size", "640x360", "--quiet")
    from pipeline.export.cli import render_options

    options = render_options({"fps": 24, "plots": True, "camera": {"distance": 0.3}}, args)
    assert options == {"fps": 24, "plots": True, "frames": True, "video": ["mp4", "gif"],
                       "slow_motion": 4.0, "camera": {"distance": 0.3, "mode": "orbit"},
                       "size": [640, 360], "quiet": True}


def test_render_of_a_particle_run_stretches_springs_between_masses(tmp_path):
    from pipeline.particles.simulation import compile_particles

    scene = pipeline.load("scenes/roobot_hop.yaml")
    sim = compile_particles(scene)
    rec = sim.run(duration=0.3, progress=False)
    (tmp_path / "scene.json").write_text(json.dumps(scene.source))
    rec.save(tmp_path / "trajectory.npz")
    render_run(tmp_path, tmp_path, parse(str(tmp_path), "--glb", "--no-frames", "--fps", "10",
                                          "--quiet"))
    doc, blob = read_glb(tmp_path / "animation.glb")
    springs = sim.model.extras["springs"]
    nodes = [i for i, n in enumerate(doc["nodes"]) if n["name"].startswith("spring")]
    assert len(nodes) == len(springs)
    anim = doc["animations"][0]
    scale = {c["target"]["node"]: anim["samplers"][c["sampler"]]["output"]
             for c in anim["channels"] if c["target"]["path"] == "scale"}
    saved = Recording.load(tmp_path / "trajectory.npz")
    k = np.searchsorted(saved.time, np.arange(3) / 10)  # output frames 0..2 on samples
    for node, (a, b) in zip(nodes, springs):
        length = np.linalg.norm(saved.body_pos[k, a] - saved.body_pos[k, b], axis=1)
        assert np.allclose(accessor(doc, blob, scale[node])[:3, 2], length, rtol=1e-6)
