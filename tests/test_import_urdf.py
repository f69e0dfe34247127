"""URDF import, checked against MuJoCo's own URDF loader (a robot welded to `world`) and
Pinocchio (a floating-base robot, whose free-flyer convention corpus shares)."""
from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin
import pytest
import trimesh
import yaml

import pipeline
from pipeline.compiler.build import build_model
from pipeline.errors import CorpusError
from pipeline.importers.urdf import import_urdf
from pipeline.physics import forward_dynamics

from import_mujoco import bare_mujoco, random_state, to_corpus

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <material name="blue"><color rgba="0 0 0.8 1"/></material>
  <link name="world"/>
  <joint name="mount" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0.1 0 0.2" rpy="0 0 0.3"/></joint>
  <link name="base">
    <inertial><origin xyz="0 0 0.05"/><mass value="2"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><cylinder radius="0.1" length="0.1"/></geometry><material name="blue"/></visual>
    <collision><geometry><cylinder radius="0.1" length="0.1"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0.3 -0.2 0.5"/><axis xyz="0 1 1"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="3"/><dynamics damping="0.1"/></joint>
  <link name="upper">
    <inertial><origin xyz="0.01 0 0.2" rpy="0.1 0.2 0.3"/><mass value="1"/>
      <inertia ixx="0.02" iyy="0.021" izz="0.003" ixy="0.001" ixz="0.0005" iyz="0.0002"/></inertial>
    <visual><origin xyz="0 0 0.2"/><geometry><box size="0.05 0.05 0.4"/></geometry></visual>
  </link>
  <joint name="wrist" type="continuous"><parent link="upper"/><child link="hand"/>
    <origin xyz="0 0 0.4" rpy="0 0.7 0"/><axis xyz="1 0 0"/></joint>
  <link name="hand">
    <inertial><origin xyz="0 0.02 0.03"/><mass value="0.4"/>
      <inertia ixx="0.002" iyy="0.001" izz="0.0015" ixy="0.0001" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://arm_description/meshes/hand.stl" scale="1 1 2"/></geometry></visual>
  </link>
  <joint name="slide" type="prismatic"><parent link="hand"/><child link="tool"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="0" upper="0.1" effort="1" velocity="1"/></joint>
  <link name="tool">
    <inertial><mass value="0.5"/>
      <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><sphere radius="0.03"/></geometry></visual>
  </link>
  <joint name="tip_joint" type="fixed"><parent link="tool"/><child link="tip"/>
    <origin xyz="0 0 0.05"/></joint>
  <link name="tip"><visual><geometry><sphere radius="0.01"/></geometry></visual></link>
</robot>"""


def compiled(doc):
    """The creature in a scene with MuJoCo's and Pinocchio's gravity (corpus's is 9.8)."""
    scene = {"scene": "check", "environment": {"environment": "g", "gravity": [0, 0, -9.81]},
             "creatures": [doc]}
    return build_model(pipeline.load(scene, allow_outside=True))


@pytest.fixture
def arm(tmp_path):
    mesh_dir = tmp_path / "arm_description" / "meshes"
    mesh_dir.mkdir(parents=True)
    trimesh.creation.box((0.04, 0.04, 0.02)).export(mesh_dir / "hand.stl")
    path = tmp_path / "arm_description" / "urdf" / "arm.urdf"
    path.parent.mkdir()
    path.write_text(ARM)
    return path


def test_welded_arm_matches_mujoco_urdf_loader(arm):
    result = import_urdf(arm)
    (doc,) = result.creatures
    assert doc["root"]["mode"] == "fixed" and result.notes[-1].endswith("tip")
    model = compiled(doc)
    m = bare_mujoco(arm)  # MuJoCo also welds the base to the world and fuses `tip`
    assert model.nv == m.nv == 3
    assert model.total_mass == pytest.approx(m.body_mass.sum() + 2.0, rel=1e-15)
    d = mujoco.MjData(m)
    links = result.links[0]
    rng = np.random.default_rng(3)
    for _ in range(4):
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = random_state(m, rng)
        mujoco.mj_forward(m, d)
        q, qd, tau = to_corpus(links, d.qpos, d.qvel, d.qfrc_applied)
        qdd = forward_dynamics(model, q, qd, tau)
        np.testing.assert_allclose(qdd, d.qacc, rtol=0, atol=1e-8 * max(1, abs(d.qacc).max()))


def test_visual_and_collision_shapes_and_mesh_package_path(arm):
    bodies = {b["name"]: b for b in import_urdf(arm).creatures[0]["bodies"]}
    base = bodies["base"]
    assert base["shape"] == {"cylinder": {"radius": 0.1, "length": 0.1}}
    assert base["colliding"] is False and base["color"] == [0, 0, 0.8, 1]
    (collision,) = base["parts"]
    assert "colliding" not in collision and collision["color"][3] == 0  # collides, not drawn
    mesh = bodies["hand"]["shape"]["mesh"]
    assert mesh["file"] == str(arm.parents[1] / "meshes" / "hand.stl")
    assert mesh["scale"] == [1, 1, 2]
    assert bodies["wrist" if "wrist" in bodies else "hand"]["joint"]["type"] == "revolute"
    assert "limits" not in bodies["hand"]["joint"]  # continuous
    assert bodies["tool"]["joint"]["limits"]["lower"] == 0
    assert bodies["upper"]["joint"]["damping"] == 0.1


def test_floating_base_matches_pinocchio(arm, tmp_path):
    floating = tmp_path / "floating.urdf"
    text = ARM.replace('<link name="world"/>', "").replace(
        '<joint name="mount" type="fixed"><parent link="world"/><child link="base"/>\n'
        '    <origin xyz="0.1 0 0.2" rpy="0 0 0.3"/></joint>', "")
    floating.write_text(text.replace("package://arm_description/meshes/hand.stl",
                                     str(arm.parents[1] / "meshes" / "hand.stl")))
    result = import_urdf(floating)
    doc = result.creatures[0]
    assert doc["root"]["mode"] == "free"
    model = compiled(doc)
    pm = pin.buildModelFromUrdf(str(floating), pin.JointModelFreeFlyer())
    pd = pm.createData()
    assert model.nv == pm.nv == 9
    rng = np.random.default_rng(5)
    for _ in range(4):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        q = np.concatenate([rng.uniform(-1, 1, 3), quat, rng.uniform(-1, 1, 2), [0.05]])
        qd, tau = rng.normal(size=9), rng.normal(size=9)
        # Pinocchio orders a free-flyer quaternion (x, y, z, w) and writes a continuous
        # joint's angle as (cos, sin)
        q_pin = np.concatenate([q[:3], quat[[1, 2, 3, 0]], q[7:8], [np.cos(q[8]), np.sin(q[8])],
                                q[9:]])
        expected = pin.aba(pm, pd, q_pin, qd, tau)
        np.testing.assert_allclose(forward_dynamics(model, q, qd, tau), expected, rtol=0,
                                   atol=1e-9 * max(1, abs(expected).max()))


def test_unsupported_joint_features_are_located(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text(ARM.replace('<dynamics damping="0.1"/>',
                                '<dynamics damping="0.1" friction="0.2"/><mimic joint="wrist"/>')
                    .replace("package://arm_description/meshes/hand.stl", "missing.stl"))
    with pytest.raises(CorpusError) as err:
        import_urdf(path)
    assert "missing.stl" in str(err.value)
    path.write_text(ARM.replace('<dynamics damping="0.1"/>',
                                '<dynamics damping="0.1" friction="0.2"/><mimic joint="wrist"/>')
                    .replace('<mesh filename="package://arm_description/meshes/hand.stl" scale="1 1 2"/>',
                             '<sphere radius="0.02"/>'))
    with pytest.raises(CorpusError) as err:
        import_urdf(path)
    assert [(p.line, p.path) for p in err.value.problems[:-1]] == [(15, "<dynamics friction>"),
                                                                  (15, "<mimic>")]


def test_convert_writes_mesh_paths_relative_to_the_yaml(arm, tmp_path):
    from pipeline.cli import main

    out = tmp_path / "out" / "arm.yaml"
    assert main(["convert", str(arm), "-o", str(out)]) == 0
    hand = next(b for b in yaml.safe_load(out.read_text())["bodies"] if b["name"] == "hand")
    assert hand["shape"]["mesh"]["file"] == "../arm_description/meshes/hand.stl"
    creature = pipeline.load(out, allow_outside=True)
    (mesh,) = [g for b in creature.bodies if b.name == "hand" for g in b.geoms]
    assert mesh.mesh_file == str(arm.parents[1] / "meshes" / "hand.stl")
