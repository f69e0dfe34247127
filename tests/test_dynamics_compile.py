"""Compile (Scene/Creature -> Model): ordering across trees, joint tables, initial state,
force-table scaling, gravity, geometry tables; and the kinematics kernels (forward
kinematics, qdot, quaternion normalisation) that the integrators build on."""
import math

import numpy as np
import pytest

from benchmarks.trees import random_creature, random_state
from pipeline.compiler.build import build_model, compile_model, gravity_vector
from pipeline.compiler.geometry import BOX, CAPSULE, SPHERE
from pipeline.errors import CorpusError
from pipeline.physics import forward_kinematics, normalize_quaternions, qdot
from pipeline.physics.contact.forces import ContactArrays
from pipeline.spec.types import (Body, Creature, ExpSpring, Geom, Joint, JointForces, Pose,
                                 Scene, Where)

Z = (0.0, 0.0, 1.0)
QZ90 = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))  # +90 deg about z


def box(size=(0.2, 0.1, 0.1), pos=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0), density=1000.0):
    return Geom(shape="box", size=size, pose=Pose(pos=pos, quat=quat), density=density)


def arm(name="arm", forces=JointForces(), root_at=(1.0, 2.0, 3.0)):
    return Creature(name=name, bodies=(
        Body(name="base", parent=None, placement=Pose(pos=root_at, quat=QZ90),
             joint=Joint(type="free"), geoms=(box(),)),
        Body(name="upper", parent="base", placement=Pose(pos=(0.1, 0, 0)),
             joint=Joint(type="revolute", axes=(Z,), q0=(0.5,), qd0=(1.5,), forces=forces),
             geoms=(box((0.3, 0.05, 0.05), (0.15, 0, 0)),)),
        Body(name="lower", parent="upper", placement=Pose(pos=(0.3, 0, 0)),
             joint=Joint(type="revolute", axes=((0, 0, 2.0),), forces=forces),
             geoms=(box((0.3, 0.05, 0.05), (0.15, 0, 0)),))))


def test_two_trees_topological_order_and_addresses():
    scene = Scene(name="s", creatures=(arm("a"), arm("b", root_at=(0, 0, 1))), environment={})
    model = build_model(scene)
    assert model.nbody == 6 and model.nq == 2 * (7 + 2) and model.nv == 2 * (6 + 2)
    assert model.body_names == ("a/base", "a/upper", "a/lower", "b/base", "b/upper", "b/lower")
    np.testing.assert_array_equal(model.tree.parent, [-1, 0, 1, -1, 3, 4])
    np.testing.assert_array_equal(model.tree.qadr, [0, 7, 8, 9, 16, 17])
    np.testing.assert_array_equal(model.tree.vadr, [0, 6, 7, 8, 14, 15])
    np.testing.assert_array_equal(model.body_tree, [0, 0, 0, 1, 1, 1])
    assert model.tree_names == ("a", "b")
    assert model.joint_qpos_slice("b/upper") == slice(16, 17)
    assert isinstance(model.contact, ContactArrays)
    _, cstate0 = compile_model(scene)
    assert cstate0.dtype == np.float64


def test_free_root_placement_is_its_initial_q_and_joint_tables():
    model = build_model(arm())
    np.testing.assert_allclose(model.q0[:7], (1, 2, 3) + QZ90, atol=1e-15)
    np.testing.assert_array_equal(model.tree.jpos[0], 0.0)
    np.testing.assert_array_equal(model.tree.jrot[0], np.eye(3))
    assert model.q0[7] == 0.5 and model.q0[8] == 0.0
    np.testing.assert_array_equal(model.qd0, [0, 0, 0, 0, 0, 0, 1.5, 0])
    np.testing.assert_array_equal(model.tree.jaxis[2, 0], Z)  # normalised
    # world positions by hand: base at (1,2,3) turned 90 deg about z; the arm bends 0.5 rad
    xpos, xrot = forward_kinematics(model, model.q0)
    np.testing.assert_allclose(xpos[1], (1.0, 2.1, 3.0), atol=1e-15)
    a = math.pi / 2 + 0.5
    np.testing.assert_allclose(xpos[2], (1 + 0.3 * math.cos(a), 2.1 + 0.3 * math.sin(a), 3),
                               atol=1e-15)
    np.testing.assert_allclose(xrot[2][:, 0], (math.cos(a), math.sin(a), 0), atol=1e-15)


def test_free_root_joint_pose_composes_with_placement():
    c = arm()
    base = c.bodies[0]
    moved = Body(name="base", parent=None, placement=base.placement, geoms=base.geoms,
                 joint=Joint(type="free", q0=(1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)))
    model = build_model(Creature(name="arm", bodies=(moved,) + c.bodies[1:]))
    np.testing.assert_allclose(model.q0[:3], (1.0, 3.0, 3.0), atol=1e-15)  # +x turned to +y


def test_scale_by_multiplies_spring_damper_servo_and_exp_alpha():
    f = JointForces(damping=0.03, spring_k=2.0, exp_spring=ExpSpring(alpha=1.0, beta=16.0, rest=0.2),
                    servo_kp=5.0, servo_kd=0.5, limit_k=7.0, armature=0.01, scale_by="distal_mass")
    model = build_model(arm(forces=f))
    m = model.tree.mass
    distal = {6: m[1] + m[2], 7: m[2]}
    for dof, md in distal.items():
        F = model.forces
        assert math.isclose(F.damping[dof], 0.03 * md, rel_tol=1e-14)
        assert math.isclose(F.spring_k[dof], 2.0 * md, rel_tol=1e-14)
        assert math.isclose(F.exp_alpha[dof], 1.0 * md, rel_tol=1e-14)
        assert math.isclose(F.servo_kp[dof], 5.0 * md, rel_tol=1e-14)
        assert math.isclose(F.servo_kd[dof], 0.5 * md, rel_tol=1e-14)
        assert F.exp_beta[dof] == 16.0 and F.exp_rest[dof] == 0.2 and F.limit_k[dof] == 7.0
        assert model.tree.armature[dof] == 0.01
    assert math.isclose(m[2], 1000 * 0.3 * 0.05 * 0.05, rel_tol=1e-14)
    own = build_model(arm(forces=JointForces(damping=0.03, scale_by="mass")))
    assert math.isclose(own.forces.damping[6], 0.03 * m[1], rel_tol=1e-14)
    assert own.forces.limit_lower[6] == -np.inf and own.forces.limit_upper[6] == np.inf
    np.testing.assert_array_equal(own.forces.damping[:6], 0.0)


@pytest.mark.parametrize("env, g", [({}, (0, 0, -9.8)), ({"gravity": 9.81}, (0, 0, -9.81)),
                                    ({"gravity": [1, 2, 3]}, (1, 2, 3)), ({"gravity": "on"}, (0, 0, -9.8)),
                                    ({"gravity": "off"}, (0, 0, 0)), ({"gravity": None}, (0, 0, 0))])
def test_gravity_forms(env, g):
    np.testing.assert_array_equal(gravity_vector(env), g)


def test_bad_gravity_is_a_user_error():
    with pytest.raises(CorpusError, match="environment.gravity: gravity must be"):
        gravity_vector({"gravity": [1, 2]})


def test_geometry_tables_and_body_frame_bounding_boxes():
    body = Body(name="b", parent=None, placement=Pose(), joint=Joint(type="free"), geoms=(
        box((0.4, 0.2, 0.1), pos=(0.1, 0, 0)),
        box((0.4, 0.2, 0.1), quat=QZ90),
        Geom(shape="sphere", size=(0.05,), pose=Pose(pos=(0, 0, 1)), density=1.0, colliding=False),
        Geom(shape="capsule", size=(0.1, 0.4), density=1.0)))
    g = build_model(Creature(name="c", bodies=(body,))).geoms
    np.testing.assert_array_equal(g.type, [BOX, BOX, SPHERE, CAPSULE])
    np.testing.assert_array_equal(g.size[2], (0.05, 0, 0))
    np.testing.assert_array_equal(g.colliding, [True, True, False, True])
    np.testing.assert_allclose(g.aabb_lo[0], (-0.1, -0.1, -0.05), atol=1e-15)
    np.testing.assert_allclose(g.aabb_hi[0], (0.3, 0.1, 0.05), atol=1e-15)
    np.testing.assert_allclose(g.aabb_lo[1], (-0.1, -0.2, -0.05), atol=1e-15)  # turned 90 deg
    np.testing.assert_allclose(g.aabb_hi[2], (0.05, 0.05, 1.05), atol=1e-15)
    np.testing.assert_allclose(g.aabb_hi[3], (0.1, 0.1, 0.3), atol=1e-15)
    model = build_model(Creature(name="c", bodies=(body,)))
    for k, (verts, faces) in enumerate(model.geom_meshes):
        placed = verts @ g.rot[k].T + g.pos[k]
        assert np.all(placed >= g.aabb_lo[k] - 1e-12) and np.all(placed <= g.aabb_hi[k] + 1e-12)
        assert faces.max() < len(verts)


def test_prescribed_and_fixed_root_modes():
    c = arm()
    fixed = build_model(Creature(name="a", bodies=c.bodies, root_mode="fixed"))
    assert fixed.joint_types == ("fixed", "revolute", "revolute") and fixed.nv == 2
    np.testing.assert_allclose(fixed.tree.jpos[0], (1, 2, 3))
    pres = build_model(Creature(name="a", bodies=c.bodies, root_mode="prescribed"))
    np.testing.assert_array_equal(pres.tree.prescribed, [True, False, False])


def W(line):
    return Where(file="a.yaml", line=line, col=3, path="bodies")


def test_structural_user_errors():
    b0 = Body(name="base", parent=None, placement=Pose(), joint=Joint(type="free"), geoms=(box(),))
    orphan = Body(name="leg", parent="nothing", placement=Pose(), where=W(7),
                  joint=Joint(type="revolute", axes=(Z,)), geoms=(box(),))
    with pytest.raises(CorpusError, match=r"a.yaml:7:3: bodies: parent 'nothing' of body 'leg'"):
        build_model(Creature(name="c", bodies=(b0, orphan)))
    wrong_q = Body(name="leg", parent="base", placement=Pose(), where=W(8),
                   joint=Joint(type="universal", axes=(Z, (1, 0, 0)), q0=(1.0,)), geoms=(box(),))
    with pytest.raises(CorpusError, match=r"a.yaml:8:3: bodies: joint q of body 'leg' has 1 values"):
        build_model(Creature(name="c", bodies=(b0, wrong_q)))
    parallel = Body(name="leg", parent="base", placement=Pose(), where=W(9),
                    joint=Joint(type="universal", axes=(Z, (0, 0, -2))), geoms=(box(),))
    with pytest.raises(CorpusError, match="are parallel"):
        build_model(Creature(name="c", bodies=(b0, parallel)))


def test_body_velocity_is_the_derivative_of_the_pose():
    """Arnold A7: central differences of the poses along qdot give the body velocity, for
    every joint type (catches sign and factor-1/2 errors in joint kinematics)."""
    rng = np.random.default_rng(11)
    model = build_model(random_creature(rng, 14))
    assert set(model.joint_types) == {"free", "fixed", "revolute", "prismatic", "universal", "ball"}
    q, qd = random_state(model, rng)
    _, xrot, v = forward_kinematics(model, q, qd)
    h = 1e-6
    dq = qdot(model, q, qd)
    pp, Rp = forward_kinematics(model, normalize_quaternions(model, q + h * dq))
    pm, Rm = forward_kinematics(model, normalize_quaternions(model, q - h * dq))
    for i in range(model.nbody):
        R = xrot[i]
        np.testing.assert_allclose(R.T @ (pp[i] - pm[i]) / (2 * h), v[i, 3:], rtol=1e-6, atol=1e-7)
        W_ = R.T @ (Rp[i] - Rm[i]) / (2 * h)  # skew(w_body)
        np.testing.assert_allclose([W_[2, 1], W_[0, 2], W_[1, 0]], v[i, :3], rtol=1e-6, atol=1e-7)


def test_normalize_quaternions_only_touches_quaternions():
    rng = np.random.default_rng(2)
    model = build_model(random_creature(rng, 10))
    q = rng.normal(size=model.nq)
    out = normalize_quaternions(model, q)
    for name, kind in zip(model.joint_names, model.joint_types):
        s = model.joint_qpos_slice(name)
        if kind == "ball":
            assert math.isclose(np.linalg.norm(out[s]), 1.0, rel_tol=1e-15)
        elif kind == "free":
            np.testing.assert_array_equal(out[s][:3], q[s][:3])
            assert math.isclose(np.linalg.norm(out[s][3:]), 1.0, rel_tol=1e-15)
        else:
            np.testing.assert_array_equal(out[s], q[s])
