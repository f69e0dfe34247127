"""MJCF import, checked against MuJoCo itself on the model zoo that ships in dm_control and
gymnasium: every model imports; bodies, DOF and every body's mass, centre of mass and
inertia equal MuJoCo's compiled model; with contacts, constraints and passive forces off,
corpus's joint accelerations equal MuJoCo's qacc within 1e-8 relative."""
from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np
import pytest
import yaml

import pipeline
from pipeline.compiler.build import build_model
from pipeline.errors import CorpusError
from pipeline.importers import import_file, load_model_file
from pipeline.importers.frames import quat_to_mat
from pipeline.importers.links import INNER_LINK_MASS_FRACTION
from pipeline.importers.mjcf import import_mjcf
from pipeline.importers.output import relative_meshes, scene_document, to_yaml
from pipeline.physics import forward_dynamics
from pipeline.spec.loader import from_plain
from pipeline.spec.schema import validate

from import_mujoco import (bare_mujoco, model_id, qacc_to_mujoco, random_state, to_corpus,
                           zoo)

MODELS = [p for p in zoo() if p.stem != "lqr"]  # lqr.xml is a template without bodies
IDS = [model_id(p) for p in MODELS]
# dog.xml's bones are meshes: MuJoCo diagonalises each mesh inertia with an iterative
# eigensolver whose tolerance leaves ~1e-8 relative noise in its body inertias
INERTIA_RTOL = {"suite/dog": 1e-7}

_cache: dict = {}


def imported(path):
    if path not in _cache:
        _cache[path] = import_file(path, drop_unsupported=True)
    return _cache[path]


def body_links(result):
    """The last link of each MuJoCo body's chain (it carries the body), in MuJoCo order."""
    return [ln for tree in result.links for ln in tree if ln.anchor is not None]


@pytest.mark.parametrize("path", MODELS, ids=IDS)
def test_model_imports_validates_and_round_trips(path, tmp_path):
    result = imported(path)
    try:
        strict = import_file(path)
    except CorpusError as err:  # only for elements that change the dynamics, each located
        assert result.log.unsupported
        assert all(p.file and p.line for p in err.problems[:-1])
    else:
        assert not result.log.unsupported and strict.creatures == result.creatures
    assert result.creatures
    for doc in result.creatures:
        assert validate(from_plain(doc), "creature") == []
    scene = scene_document(result, "zoo")
    assert validate(from_plain(scene), "scene") == []
    text = to_yaml(scene, "scene", tmp_path, str(path), result.notes)
    assert yaml.safe_load(text) == relative_meshes(scene, tmp_path)
    loaded = pipeline.load(scene, allow_outside=True)
    assert [c.name for c in loaded.creatures] == [c["creature"] for c in result.creatures]
    # the canonical expanded document of a run directory loads to the same creatures
    again = pipeline.load(loaded.source, allow_outside=True)
    assert [unlocated(c) for c in again.creatures] == [unlocated(c) for c in loaded.creatures]


def unlocated(creature):
    """A creature's bodies without their source locations (which differ between loads)."""
    return [replace(b, where=None, joint=replace(b.joint, where=None),
                    geoms=tuple(replace(g, where=None) for g in b.geoms))
            for b in creature.bodies]


@pytest.mark.parametrize("path", MODELS, ids=IDS)
def test_bodies_dof_and_mass_properties_equal_mujoco(path):
    m = mujoco.MjModel.from_xml_path(str(path))
    result = imported(path)
    links = [ln for tree in result.links for ln in tree]
    bodies = body_links(result)
    assert len(bodies) == m.nbody - 1
    nv = {"free": 6, "ball": 3, "revolute": 1, "prismatic": 1, "fixed": 0}
    assert sum(nv[ln.joint.type] for ln in links) == m.nv
    assert sum(ln.mass for ln in links) == pytest.approx(m.body_mass.sum(), rel=1e-12)
    rtol = INERTIA_RTOL.get(model_id(path), 1e-12)
    for i, ln in enumerate(bodies, start=1):
        assert ln.mass == pytest.approx(m.body_mass[i], rel=1e-12), m.body(i).name
        # MuJoCo's body frame sits at ln.anchor in the link frame (the link is at the joint)
        np.testing.assert_allclose(ln.com, m.body_ipos[i] - ln.anchor, rtol=0, atol=1e-12,
                                   err_msg=m.body(i).name)
        R = quat_to_mat(m.body_iquat[i])
        inertia = R @ np.diag(m.body_inertia[i]) @ R.T
        np.testing.assert_allclose(ln.inertia, inertia, rtol=0,
                                   atol=rtol * max(np.abs(inertia).max(), 1e-300),
                                   err_msg=m.body(i).name)


def corpus_model(result):
    scene = scene_document(result, "check")
    return build_model(pipeline.load(scene, allow_outside=True))


@pytest.mark.parametrize("path", MODELS, ids=IDS)
def test_joint_accelerations_equal_mujoco_qacc(path):
    result = imported(path)
    model = corpus_model(result)
    links = [ln for tree in result.links for ln in tree]
    m = bare_mujoco(path)
    # the written YAML compiles to MuJoCo's body masses
    index = {name: i for i, name in enumerate(model.body_names)}
    compiled = [model.body_mass[index.get(ln.name, index.get(f"{doc['creature']}/{ln.name}"))]
                for doc, tree in zip(result.creatures, result.links)
                for ln in tree if ln.anchor is not None]
    np.testing.assert_allclose(compiled, m.body_mass[1:], rtol=1e-12, atol=0)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(9)
    for _ in range(4):
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = random_state(m, rng)
        mujoco.mj_forward(m, d)
        assert not d.qfrc_passive.any() and not d.qfrc_constraint.any()
        q, qd, tau = to_corpus(links, d.qpos, d.qvel, d.qfrc_applied)
        qdd = qacc_to_mujoco(links, q, qd, forward_dynamics(model, q, qd, tau))
        scale = max(1.0, np.abs(d.qacc).max())
        np.testing.assert_allclose(qdd, d.qacc, rtol=0, atol=1e-8 * scale)


def test_inner_links_of_a_split_body_carry_a_negligible_mass():
    """humanoid's lower_waist has joints abdomen_z and abdomen_y: link abdomen_z (inner) then
    lower_waist (carrying the body); the inner link weighs 1e-12 of the body, at its joint."""
    path = next(p for p in MODELS if model_id(p) == "suite/humanoid")
    result = imported(path)
    bodies = {b["name"]: b for b in result.creatures[0]["bodies"]}
    inner, body = bodies["abdomen_z"], bodies["lower_waist"]
    assert body["parent"] == "abdomen_z" and "shape" not in inner
    assert inner["inertial"]["mass"] == INNER_LINK_MASS_FRACTION * body["inertial"]["mass"]
    assert inner["inertial"]["com"] == [0, 0, 0]
    assert inner["inertial"]["inertia"] == pytest.approx(
        [INNER_LINK_MASS_FRACTION * x for x in body["inertial"]["inertia"]], rel=1e-15)


def test_limit_spring_uses_the_joints_own_inertia_like_mujoco_mass_matrix():
    """A limited hinge becomes a penalty limit with k = M_ii/(tc^2 ratio^2), b = 2 M_ii/tc:
    M_ii here is the mass-matrix diagonal MuJoCo computes at qpos0 (armature included)."""
    path = next(p for p in MODELS if model_id(p) == "suite/walker")
    result = imported(path)
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    body = next(b for b in result.creatures[0]["bodies"] if b["name"] == "right_thigh")
    j = m.joint("right_hip").id
    mii = M[m.jnt_dofadr[j], m.jnt_dofadr[j]]
    tc, ratio = m.jnt_solref[j]
    assert body["joint"]["limits"]["k"] == pytest.approx(mii / (tc * ratio) ** 2, rel=1e-12)
    assert body["joint"]["limits"]["b"] == pytest.approx(2 * mii / tc, rel=1e-12)
    lo, hi = m.jnt_range[j]
    assert (body["joint"]["limits"]["lower"], body["joint"]["limits"]["upper"]) == \
        pytest.approx((lo, hi), abs=1e-15)


def test_motors_become_a_torque_controller_with_mujoco_gear_and_ctrlrange():
    path = next(p for p in MODELS if model_id(p) == "suite/humanoid")
    result = imported(path)
    m = mujoco.MjModel.from_xml_path(str(path))
    (ctrl,) = result.controllers
    assert ctrl["python"] == "pipeline.importers.actuation:motors"
    acts = ctrl["params"]["actuators"]
    assert [a["name"] for a in acts] == [m.actuator(i).name for i in range(m.nu)]
    for i, a in enumerate(acts):
        assert a["gear"] == m.actuator_gear[i, 0]
        assert a["ctrlrange"] == list(m.actuator_ctrlrange[i])
    # the joint a motor drives is the corpus link that carries that MuJoCo joint
    links = {ln.joint.name: ln.name for tree in result.links for ln in tree}
    assert all(a["joint"] == links[m.joint(m.actuator_trnid[i, 0]).name]
               for i, a in enumerate(acts))


MJCF_FRAMES = """<mujoco>
  <compiler angle="{angle}" eulerseq="{seq}"/>
  <worldbody>
    <body name="a" pos="0.1 0.2 0.3" euler="{e1} {e2} {e3}">
      <joint type="hinge" axis="1 2 3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.2" size="0.05"/>
      <body name="b" pos="0 0 -0.4" axisangle="1 1 0 {aa}">
        <joint type="slide" axis="0 1 0"/>
        <geom type="box" size="0.1 0.2 0.3" xyaxes="1 1 0 -1 1 1"/>
        <body name="c" xyaxes="0 1 0 -1 0 0.5">
          <joint type="ball"/>
          <geom type="ellipsoid" size="0.1 0.2 0.3" zaxis="1 -1 2" pos="0 0.1 0"/>
          <body name="d" zaxis="0 1 1" pos="0.2 0 0">
            <joint type="hinge" pos="0.05 0 0" axis="0 0 1"/>
            <geom type="cylinder" size="0.04 0.1" quat="0.5 0.5 -0.5 0.5"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("angle,seq,e,aa", [
    ("degree", "xyz", (30, -20, 45), 60), ("radian", "XYZ", (0.5, -0.3, 1.1), 1.0),
    ("degree", "zyx", (10, 70, -35), -120), ("radian", "xYz", (2.0, 0.4, -1.3), 2.5)])
def test_orientation_forms_match_mujoco(tmp_path, angle, seq, e, aa):
    xml = MJCF_FRAMES.format(angle=angle, seq=seq, e1=e[0], e2=e[1], e3=e[2], aa=aa)
    path = tmp_path / "frames.xml"
    path.write_text(xml)
    m = mujoco.MjModel.from_xml_path(str(path))
    mujoco.mj_kinematics(m, d := mujoco.MjData(m))
    result = import_mjcf(path)
    links = result.links[0]
    world = {}
    for ln in links:  # world pose of each link at q = 0 ...
        world[ln.name] = world[ln.parent] * ln.frame if ln.parent else ln.frame
    for i, ln in enumerate(links, start=1):
        f = world[ln.name]  # ... is MuJoCo's body frame moved to the joint anchor
        np.testing.assert_allclose(f.rot, d.xmat[i].reshape(3, 3), atol=1e-12)
        np.testing.assert_allclose(f.pos, d.xpos[i] + f.rot @ ln.anchor, atol=1e-12)
        for g, k in zip(ln.geoms, range(m.body_geomadr[i], m.body_geomadr[i] + m.body_geomnum[i])):
            gw = f * g.frame
            np.testing.assert_allclose(gw.pos, d.geom_xpos[k], atol=1e-12)
            np.testing.assert_allclose(gw.rot, d.geom_xmat[k].reshape(3, 3), atol=1e-12)
        axis = f.rot @ np.asarray(ln.joint.axis)
        if ln.joint.type in ("revolute", "prismatic"):
            np.testing.assert_allclose(axis, d.xaxis[m.body_jntadr[i]], atol=1e-12)


DEFAULTS = """<mujoco>
  <default>
    <joint damping="1" armature="0.1"/>
    <geom rgba="1 0 0 1"/>
    <default class="leg">
      <joint damping="2" stiffness="3" springref="10" ref="5" range="-30 60"/>
      <default class="knee"><joint damping="4"/></default>
    </default>
  </default>
  <worldbody>
    <body name="hip" childclass="leg">
      <joint name="hip"/>
      <geom size="0.1"/>
      <body name="shin" pos="0 0 -0.5">
        <joint name="knee" class="knee"/>
        <geom size="0.1" rgba="0 1 0 1"/>
        <body name="foot" pos="0 0 -0.5" childclass="main">
          <joint name="ankle"/>
          <geom size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_default_classes_and_childclass_match_mujoco(tmp_path):
    path = tmp_path / "defaults.xml"
    path.write_text(DEFAULTS)
    m = mujoco.MjModel.from_xml_path(str(path))
    joints = {ln.joint.name: ln.joint for ln in import_mjcf(path).links[0]}
    for name, j in joints.items():
        mj = m.joint(name)
        assert j.damping == m.dof_damping[mj.dofadr[0]]
        assert j.armature == m.dof_armature[mj.dofadr[0]]
        assert j.stiffness == mj.stiffness[0]
        assert j.offset == pytest.approx(m.qpos0[mj.qposadr[0]], abs=1e-15)
        assert j.spring_rest == pytest.approx(mj.qpos_spring[0] - m.qpos0[mj.qposadr[0]], abs=1e-15)
        if m.jnt_limited[mj.id]:
            np.testing.assert_allclose(j.range, mj.range - m.qpos0[mj.qposadr[0]], atol=1e-15)
        else:
            assert j.range is None
    geoms = [g for ln in import_mjcf(path).links[0] for g in ln.geoms]
    np.testing.assert_array_equal([g.rgba for g in geoms], m.geom_rgba)


UNSUPPORTED = """<mujoco>
  <worldbody>
    <body name="a">
      <joint name="j1" frictionloss="0.5"/>
      <geom size="0.1"/>
      <site name="s1"/>
    </body>
  </worldbody>
  <tendon><fixed name="t" stiffness="2"><joint joint="j1" coef="1"/></fixed></tendon>
  <equality><joint joint1="j1"/></equality>
  <sensor><jointpos joint="j1"/></sensor>
  <actuator><position joint="j1" kp="10"/></actuator>
</mujoco>"""


def test_unsupported_elements_fail_with_name_and_line(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(UNSUPPORTED)
    with pytest.raises(CorpusError) as err:
        import_mjcf(path)
    found = {(p.line, p.path) for p in err.value.problems if p.line}
    assert found == {(4, "<joint frictionloss>"), (9, "<fixed>"), (10, "<equality>"),
                     (12, "<position>")}
    dropped = import_mjcf(path, drop_unsupported=True)
    assert len(dropped.log.unsupported) == 4
    assert any(p.line == 11 and p.path == "<sensor>" for p in dropped.log.notes)


def test_load_model_file_gives_a_creature_a_scene_can_use(tmp_path):
    path = next(p for p in MODELS if model_id(p) == "gym/ant")
    doc = load_model_file(path)
    creature = pipeline.load(doc)
    m = mujoco.MjModel.from_xml_path(str(path))
    assert creature.name == "ant" and len(creature.bodies) == m.nbody - 1
    with pytest.raises(CorpusError, match="holds 7 creatures"):
        load_model_file(next(p for p in MODELS if model_id(p) == "suite/manipulator"),
                        drop_unsupported=True)
