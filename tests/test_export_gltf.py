"""animation.glb: structure, animation samples against the recorded motion, and the Khronos
glTF validator (tools/validate_gltf.js, installed with npm into tools/node_modules)."""
import json
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pipeline.export import export_run
from test_export_fixtures import FLAT, SPEED, walker_model, walker_recording

TOOLS = Path(__file__).resolve().parent.parent / "tools"


class Scene:
    name = "walker"
    environment = FLAT


def read_glb(path):
    data = Path(path).read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, length) == (b"glTF", 2, len(data))
    json_len, json_type = struct.unpack_from("<I4s", data, 12)
    assert json_type == b"JSON" and json_len % 4 == 0
    doc = json.loads(data[20:20 + json_len])
    bin_len, bin_type = struct.unpack_from("<I4s", data, 20 + json_len)
    assert bin_type == b"BIN\x00"
    return doc, data[28 + json_len:28 + json_len + bin_len]


def accessor(doc, blob, index):
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    dtype = np.float32 if acc["componentType"] == 5126 else np.uint32
    raw = np.frombuffer(blob, dtype, acc["count"] * width, view["byteOffset"])
    return raw.reshape(acc["count"], width)


@pytest.fixture(scope="module")
def glb(tmp_path_factory):
    out = tmp_path_factory.mktemp("glb")
    written = export_run(walker_recording(), walker_model(), Scene(), out, {"glb": True, "fps": 30})
    assert written == [out / "animation.glb"]
    return out / "animation.glb"


def test_one_node_per_body_under_a_z_up_root(glb):
    doc, _ = read_glb(glb)
    root = doc["nodes"][0]
    assert np.allclose(root["rotation"], [-np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=1e-15)
    names = [doc["nodes"][i]["name"] for i in root["children"]]
    assert names == ["torso", "leg_l", "leg_r", "ground"]
    torso = doc["meshes"][doc["nodes"][1]["mesh"]]
    # the torso's box and its sphere have different colours: two primitives, two materials
    colours = [doc["materials"][p["material"]]["pbrMetallicRoughness"]["baseColorFactor"]
               for p in torso["primitives"]]
    assert colours == [[0.76, 0.55, 0.35, 1.0], [0.9, 0.8, 0.6, 1.0]]


def test_animation_keys_are_the_recorded_motion_at_the_output_rate(glb):
    doc, blob = read_glb(glb)
    anim = doc["animations"][0]
    assert len(anim["channels"]) == 6  # translation + rotation for 3 bodies
    samplers = anim["samplers"]
    t = accessor(doc, blob, samplers[0]["input"])[:, 0]
    assert len(t) == 30 * 2
    assert np.allclose(t, np.arange(60) / 30, rtol=0, atol=1e-7)
    by_target = {(c["target"]["node"], c["target"]["path"]): samplers[c["sampler"]]["output"]
                 for c in anim["channels"]}
    torso = accessor(doc, blob, by_target[(1, "translation")])
    assert np.allclose(torso[:, 0], SPEED * np.arange(60) / 30, rtol=1.2e-7, atol=1e-12)  # float32
    assert np.allclose(torso[:, 2], 0.04, rtol=1e-7)
    rot = accessor(doc, blob, by_target[(2, "rotation")])  # leg_l, xyzw
    swing = 0.5 * np.sin(2 * np.pi * 2 * np.arange(60) / 30)  # exact times, not float32
    expected = np.stack([0 * t, np.sin(swing / 2), 0 * t, np.cos(swing / 2)], 1)
    assert np.allclose(rot, expected, rtol=0, atol=1e-7)


def test_ground_is_a_checker_of_two_colours(glb):
    doc, blob = read_glb(glb)
    ground = doc["meshes"][doc["nodes"][4]["mesh"]]["primitives"][0]
    colours = accessor(doc, blob, ground["attributes"]["COLOR_0"])
    assert len(np.unique(colours, axis=0)) == 2
    pos = accessor(doc, blob, ground["attributes"]["POSITION"])
    assert np.all(pos[:, 2] == 0.0)
    # 2 cm tiles (the creature is ~8 cm across): tile corners lie on a 2 cm grid
    assert np.allclose(np.round(pos[:, :2] / 0.02) * 0.02, pos[:, :2], atol=1e-7)


def node_and_validator():
    node = shutil.which("node")
    if node is None:
        return None
    if not (TOOLS / "node_modules" / "gltf-validator").exists():
        npm = shutil.which("npm")
        assert npm, "node without npm: run `make tools` to install the glTF validator"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLS, check=True,
                       capture_output=True, timeout=300)
    return node


def test_khronos_validator_reports_no_errors_and_no_warnings(glb):
    node = node_and_validator()
    if node is None:
        pytest.skip("node is not installed: the glTF validator runs on node")
    out = subprocess.run([node, str(TOOLS / "validate_gltf.js"), str(glb)],
                         capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)
    assert report["issues"]["numErrors"] == 0, report["issues"]["messages"]
    assert report["issues"]["numWarnings"] == 0, report["issues"]["messages"]
    assert report["info"]["animationCount"] == 1


def test_per_frame_meshes_carry_the_posed_bodies_and_their_colours(tmp_path):
    import trimesh

    written = export_run(walker_recording(), walker_model(), Scene(), tmp_path,
                         {"meshes": "ply", "fps": 10, "quiet": True})
    assert len(written) == 20 and written[0].name == "frame_00000.ply"
    rec = walker_recording()
    for k in (0, 19):
        mesh = trimesh.load(written[k], process=False)
        # the torso box (6 x 3 x 2 cm, found by its colour) rides at the recorded torso
        # position
        t = k / 10
        torso = np.array([SPEED * t, 0, 0.04])
        box = np.all(mesh.visual.vertex_colors[:, :3] == (194, 140, 89), axis=1)  # 0.76 0.55 0.35
        v = mesh.vertices[box]
        assert np.allclose(v.min(axis=0), torso - [0.03, 0.015, 0.01], rtol=0, atol=1e-8)  # float32
        assert np.allclose(v.max(axis=0), torso + [0.03, 0.015, 0.01], rtol=0, atol=1e-8)
    assert rec.time[-1] == 2.0
