"""Kernel-level checks of the contact force laws (McKenna digest §3, tests B1, B2, B6, B7, B11)."""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from pipeline.physics.contact import state as S
from pipeline.physics.contact.laws import coulomb_scale, exp_spring, normal_force

from contact_helpers import anchor, box_points, contact_setup, evaluate, params


def test_b1_exponential_spring_values():
    # digest §9.2 B1: alpha = 1, beta = 16
    assert exp_spring(1.0, 16.0, 0.05) == pytest.approx(1.22554, rel=2e-6)
    assert exp_spring(1.0, 16.0, 0.1) == pytest.approx(3.95303, rel=2e-6)
    assert exp_spring(1.0, 16.0, 0.2) == pytest.approx(23.5325, rel=2e-6)
    assert exp_spring(1.0, 16.0, 0.0) == 0.0
    x = 1e-9
    assert exp_spring(17.5, 3000.0, x) / x == pytest.approx(17.5 * 3000.0, rel=1e-5)
    # ground worked values of the digest §3.9: f(10 um) = 0.533 N, f(1 mm) = 334 N
    assert exp_spring(17.5, 3000.0, 1e-5) == pytest.approx(0.533, abs=5e-4)
    assert exp_spring(17.5, 3000.0, 1e-3) == pytest.approx(334.0, rel=2e-3)


def test_normal_force_restitution_clamp_and_no_pull():
    f_in = normal_force(1e-4, -0.1, 0.0, 0.0, 0.0, 17.5, 3000.0, 0.5, 0.01, 0.0)
    f_out = normal_force(1e-4, +0.1, 0.0, 0.0, 0.0, 17.5, 3000.0, 0.5, 0.01, 0.0)
    assert f_in == pytest.approx(17.5 * math.expm1(0.3), rel=1e-14)
    assert f_out == pytest.approx(0.5 * f_in, rel=1e-14)
    # restitution_velocity: the scale ramps from 1 (at rest) to e (at that separation speed)
    ramp = normal_force(1e-4, 0.25e-3, 0.0, 0.0, 0.0, 17.5, 3000.0, 0.5, 0.01, 1e-3)
    assert ramp == pytest.approx(0.875 * f_in, rel=1e-14)
    assert normal_force(1e-4, 0.1, 0.0, 0.0, 0.0, 17.5, 3000.0, 0.5, 0.01, 1e-3) == f_out
    # depth clamp (groundemaxz): the force stops growing at max_depth
    assert normal_force(0.05, 0.0, 0.0, 0.0, 0.0, 1.0, 100.0, 1.0, 0.01, 0.0) == pytest.approx(math.expm1(1.0))
    # linear spring + damper, and the damper never pulls the point into the ground
    assert normal_force(0.01, -0.2, 100.0, 5.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0) == pytest.approx(2.0)
    assert normal_force(0.001, 1.0, 100.0, 5.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0) == 0.0
    # krf: a damper proportional to depth (zero at touch-down)
    assert normal_force(0.01, -0.5, 0.0, 0.0, 40.0, 0.0, 0.0, 1.0, 1.0, 0.0) == pytest.approx(0.2)
    assert normal_force(0.0, -0.5, 0.0, 0.0, 40.0, 0.0, 0.0, 1.0, 1.0, 0.0) == 0.0


def test_coulomb_scale():
    assert coulomb_scale(2.0, 0.7, 0.3, 1e-4) * 0.3 == pytest.approx(1.4, rel=1e-14)
    assert coulomb_scale(2.0, 0.7, 0.5e-4, 1e-4) * 0.5e-4 == pytest.approx(0.7, rel=1e-14)
    assert coulomb_scale(2.0, 0.7, 0.0, 0.0) == 0.0


def cube_forces(depth, vz=0.0, material=None):
    """A 1 cm cube, faces axis-aligned, bottom face `depth` below z = 0."""
    arrays, cs = contact_setup(params(material), [0.0], box_points(0, [0.01] * 3))
    v = np.array([[0, 0, 0, 0, 0, vz]], float)
    return evaluate(arrays, cs, [[0, 0, 0.005 - depth]], [np.eye(3)], v)


def test_b2_resting_depth_from_the_force_law():
    # digest B2: m = 1 g on four corners -> depth ln(1 + mg/(4 alpha)) / beta = 4.666e-8 m
    mg = 0.001 * 9.8
    fext, _ = cube_forces(1e-7)
    assert fext[0, 5] == pytest.approx(4 * 17.5 * math.expm1(3000 * 1e-7), rel=1e-12)
    assert np.allclose(fext[0, :3], 0.0, atol=1e-18)  # corners symmetric: no torque
    d = brentq(lambda d: cube_forces(d)[0][0, 5] - mg, 0.0, 1e-6, xtol=1e-16)
    assert d == pytest.approx(4.666e-8, rel=1e-3)
    assert d == pytest.approx(math.log1p(mg / 70.0) / 3000.0, rel=1e-9)


def test_coulomb_friction_opposes_sliding():
    arrays, cs = contact_setup(params({"friction_model": "coulomb"}), [0.0], box_points(0, [0.01] * 3))
    v = np.array([[0, 0, 0, 0.1, 0.05, 0]], float)
    fext, _ = evaluate(arrays, cs, [[0, 0, 0.005 - 1e-6]], [np.eye(3)], v)
    fn = fext[0, 5]
    ft = fext[0, 3:5]
    assert np.linalg.norm(ft) == pytest.approx(0.7 * fn, rel=1e-12)
    assert np.allclose(ft / np.linalg.norm(ft), -np.array([0.1, 0.05]) / np.hypot(0.1, 0.05), atol=1e-12)
    # torque about the body origin of forces at the bottom face: r x F with r_z = -5 mm
    assert fext[0, 0] == pytest.approx(-(-0.005) * ft[1], rel=1e-9)


def test_friction_model_2_spring_capped_and_anchor_slides():
    mat = {"friction_model": "spring", "friction2": {"mu": 0.5, "k": 1000.0, "restitution": 1.0}}
    arrays, cs = contact_setup(params(mat), [0.0], box_points(0, [0.01] * 3))
    x = [[0, 0, 0.005 - 1e-6]]
    # first contact: anchors set where the corners are, no tangential force yet
    fext, out = evaluate(arrays, cs, x, [np.eye(3)], np.zeros((1, 6)))
    assert np.allclose(fext[0, 3:5], 0.0)
    assert out[anchor(arrays, 0)][7] == 1.0
    # small shift: spring force k * shift per corner, under the cap
    fext, out2 = evaluate(arrays, out, [[1e-6, 0, 0.005 - 1e-6]], [np.eye(3)], np.zeros((1, 6)))
    assert fext[0, 3] == pytest.approx(-4 * 1000.0 * 1e-6, rel=1e-9)
    assert np.array_equal(out2[anchor(arrays, 0)], out[anchor(arrays, 0)])
    # large shift: capped at mu * Fn, and the anchor follows to the capped stretch
    fext, out3 = evaluate(arrays, out, [[1e-2, 0, 0.005 - 1e-6]], [np.eye(3)], np.zeros((1, 6)))
    assert -fext[0, 3] == pytest.approx(0.5 * fext[0, 5], rel=1e-12)
    fn_corner = fext[0, 5] / 4
    a = out3[anchor(arrays, 0)]
    corner_x = 1e-2 - 0.005
    assert corner_x - a[4] == pytest.approx(0.5 * fn_corner / 1000.0, rel=1e-9)


def test_b6_sticky_anchor_holds_then_breaks_and_reanchors():
    mat = {"friction": 0.0, "friction_model": "coulomb", "sticky": {"exp_alpha": 0.1, "exp_beta": 1000.0, "max_stretch": 1e-3,
                                        "restitution": 0.5}}
    arrays, cs = contact_setup(params(mat), [1.0], box_points(0, [0.01] * 3))
    z = 0.005 - 1e-7
    _, out = evaluate(arrays, cs, [[0, 0, z]], [np.eye(3)], np.zeros((1, 6)))
    anchors = np.array([out[anchor(arrays, i)][:4] for i in range(8)])
    bottom = arrays.point_pos[:, 2] < 0
    assert np.all(anchors[bottom, 3] == 1.0) and np.all(anchors[~bottom, 3] == 0.0)
    fn = evaluate(arrays, out, [[0, 0, z]], [np.eye(3)], np.zeros((1, 6)))[0][0, 5]
    # pulled sideways by s < max_stretch: each anchor pulls back with alpha (e^(beta s) - 1)
    s = 0.9e-3
    fext, held = evaluate(arrays, out, [[s, 0, z]], [np.eye(3)], np.zeros((1, 6)))
    assert fext[0, 3] == pytest.approx(-4 * 0.1 * math.expm1(1000.0 * s), rel=1e-12)
    assert fext[0, 5] == pytest.approx(fn, rel=1e-12)
    assert np.array_equal(held, out)
    # moving back toward the anchors: the force is scaled by the sticky restitution
    back = np.array([[0, 0, 0, -0.01, 0, 0]], float)
    fext, _ = evaluate(arrays, out, [[s, 0, z]], [np.eye(3)], back)
    assert fext[0, 3] == pytest.approx(-0.5 * 4 * 0.1 * math.expm1(1000.0 * s), rel=1e-12)
    # the spring lies in the ground plane: lifted 0.5 mm and pulled 0.6 mm sideways (0.78 mm
    # from the anchors) the foot is held back, not down, and keeps its anchors
    fext, lifted = evaluate(arrays, out, [[0.6e-3, 0, z + 0.5e-3]], [np.eye(3)], np.zeros((1, 6)))
    assert fext[0, 3] == pytest.approx(-4 * 0.1 * math.expm1(0.6), rel=1e-12)
    assert fext[0, 5] == 0.0
    assert np.array_equal(lifted, out)
    # lifted past max_stretch it lets go
    _, apart = evaluate(arrays, out, [[0, 0, z + 1.1e-3]], [np.eye(3)], np.zeros((1, 6)))
    assert not any(apart[anchor(arrays, i)][3] for i in range(8))
    # beyond max_stretch the springs break and re-anchor where the corners now touch
    fext, broke = evaluate(arrays, out, [[1.1e-3, 0, z]], [np.eye(3)], np.zeros((1, 6)))
    assert fext[0, 3] == 0.0
    a0 = broke[anchor(arrays, 0)]
    assert a0[3] == 1.0 and a0[0] == pytest.approx(out[anchor(arrays, 0)][0] + 1.1e-3, abs=1e-15)
    # switching sticky off releases every anchor
    off = out.copy()
    off[arrays.layout[S.LAYOUT_STICKY]] = 0.0
    _, released = evaluate(arrays, off, [[s, 0, z]], [np.eye(3)], np.zeros((1, 6)))
    assert all(released[anchor(arrays, i)][3] == 0.0 for i in range(8))


def attach_setup(const):
    points = ([], [], [])
    att = [(0, [0.01, 0.0, 0.0], 1, [-0.01, 0.0, 0.0], const)]
    return contact_setup(params(), [0.0, 0.0], points, attach=att)


def test_b7_attach_equal_opposite_restitution_and_break():
    k, alpha, beta, e, brk = 20.0, 0.5, 40.0, 0.25, 0.05
    arrays, cs = attach_setup((k, alpha, beta, e, brk, 0.0))
    rng = np.random.default_rng(3)
    xpos = np.array([[0.0, 0.0, 0.0], [0.03, 0.01, -0.005]])
    q = [np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(2)]
    xrot = np.array([m * np.sign(np.linalg.det(m)) for m in q])
    vbody = rng.normal(size=(2, 6)) * 0.1
    fext, out = evaluate(arrays, cs, xpos, xrot, vbody)
    p1 = xpos[0] + xrot[0] @ [0.01, 0, 0]
    p2 = xpos[1] + xrot[1] @ [-0.01, 0, 0]
    d = np.linalg.norm(p2 - p1)
    f = k * d + alpha * math.expm1(beta * d)
    v1 = xrot[0] @ (vbody[0, 3:] + np.cross(vbody[0, :3], [0.01, 0, 0]))
    v2 = xrot[1] @ (vbody[1, 3:] + np.cross(vbody[1, :3], [-0.01, 0, 0]))
    unloading = -np.dot(v2 - v1, p2 - p1) / d  # stretched spring: unloads while shortening
    if unloading > 0:
        f *= e if unloading >= 1e-2 else 1 - (1 - e) * unloading / 1e-2
    assert np.allclose(fext[0, 3:], f * (p2 - p1) / d, rtol=1e-12, atol=0)
    # equal and opposite forces along the line of the points: linear and angular momentum
    assert np.abs(fext[0, 3:] + fext[1, 3:]).max() < 1e-12
    torque_world = sum(fext[b, :3] + np.cross(xpos[b], fext[b, 3:]) for b in range(2))
    assert np.abs(torque_world).max() < 1e-12
    assert out[arrays.layout[S.LAYOUT_ATTACH]] == 0.0
    # stretched beyond break_length: broken for good, no force
    far = xpos.copy()
    far[1, 0] = 0.1
    fext, out = evaluate(arrays, cs, far, xrot, vbody)
    assert out[arrays.layout[S.LAYOUT_ATTACH]] == 1.0
    fext, _ = evaluate(arrays, out, xpos, xrot, vbody)
    assert not fext.any()


def test_attach_to_world():
    arrays, cs = contact_setup(params(), [0.0], ([], [], []),
                               attach=[(-1, [0.0, 0.0, 1.0], 0, [0.0, 0.0, 0.0], (10.0, 0, 0, 1, 0, 0.5))])
    fext, _ = evaluate(arrays, cs, [[0.0, 0.0, 0.2]], [np.eye(3)], np.zeros((1, 6)))
    # 0.8 m apart, rest 0.5 m: 3 N toward the world point (up)
    assert np.allclose(fext[0], [0, 0, 0, 0, 0, 3.0], atol=1e-12)


def test_b11_box_corner_in_box_repelled_along_face_normal():
    p = params(collision={"exp_alpha": 1.0, "exp_beta": 500.0, "restitution": 1.0, "friction": 0.0})
    pts = box_points(0, [0.01] * 3)
    boxes = ([1], [np.zeros(3)], [np.eye(3)], [np.array([0.05, 0.05, 0.005])])
    arrays, cs = contact_setup(p, [0.0, 0.0], pts, boxes, pairs=[(0, 1)])
    cs[S.GROUND_ON] = 0.0
    # falling box 0 (1 cm cube) with its bottom face 1 mm inside the top face of slab 1
    xpos = np.array([[0.002, -0.003, 0.005 + 0.005 - 0.001], [0.0, 0.0, 0.0]])
    fext, _ = evaluate(arrays, cs, xpos, np.array([np.eye(3)] * 2), np.zeros((2, 6)))
    f = 4 * math.expm1(500.0 * 0.001)
    assert np.allclose(fext[0, 3:], [0, 0, f], rtol=1e-12, atol=1e-15)
    assert np.allclose(fext[1, 3:], [0, 0, -f], rtol=1e-12, atol=1e-15)
    torque_world = sum(fext[b, :3] + np.cross(xpos[b], fext[b, 3:]) for b in range(2))
    assert np.abs(torque_world).max() < 1e-15


def test_friction_model_2_default_stiffness_is_the_normal_stiffness():
    arrays, cs = contact_setup(params(), [0.0], box_points(0, [0.01] * 3))
    depth, shift = 1e-6, 1e-9
    _, out = evaluate(arrays, cs, [[0, 0, 0.005 - depth]], [np.eye(3)], np.zeros((1, 6)))
    fext, _ = evaluate(arrays, out, [[shift, 0, 0.005 - depth]], [np.eye(3)], np.zeros((1, 6)))
    k_normal = 17.5 * 3000.0 * math.exp(3000.0 * depth)
    assert -fext[0, 3] == pytest.approx(4 * k_normal * shift, rel=1e-9)


def test_sphere_and_capsule_primitives_on_the_plane():
    from pipeline.compiler.contact_points import geom_contact_points

    r = 0.02
    c, rad = geom_contact_points("sphere", [r], np.zeros(3), np.eye(3), None, None, "shapes")
    arrays, cs = contact_setup(params({"friction_model": "coulomb"}), [0.0], ([0], list(c), list(rad)))
    fext, _ = evaluate(arrays, cs, [[0, 0, r - 1e-5]], [np.eye(3)], np.zeros((1, 6)))
    assert fext[0, 5] == pytest.approx(17.5 * math.expm1(3000 * 1e-5), rel=1e-12)
    assert np.abs(fext[0, :3]).max() == 0.0  # pushes through the centre: no torque
    # a capsule (axis along its local z) lying along x: both end spheres touch
    rot = np.array([[0, 0, 1.0], [0, 1.0, 0], [-1.0, 0, 0]])
    c, rad = geom_contact_points("capsule", [r, 0.1], np.zeros(3), rot, None, None, "shapes")
    assert np.allclose(sorted(c[:, 0]), [-0.05, 0.05]) and np.allclose(rad, r)
    arrays, cs = contact_setup(params({"friction_model": "coulomb"}), [0.0], ([0, 0], list(c), list(rad)))
    fext, _ = evaluate(arrays, cs, [[0, 0, r - 2e-5]], [np.eye(3)], np.zeros((1, 6)))
    assert fext[0, 5] == pytest.approx(2 * 17.5 * math.expm1(3000 * 2e-5), rel=1e-12)


def test_box_corners_exact_versus_bounding_box_corners():
    from pipeline.compiler.contact_points import geom_contact_points

    c45 = math.sqrt(0.5)
    rot = np.array([[c45, -c45, 0], [c45, c45, 0], [0, 0, 1.0]])  # a box geom turned 45 deg
    lo, hi = -np.array([c45 * 0.02, c45 * 0.02, 0.01]), np.array([c45 * 0.02, c45 * 0.02, 0.01])
    exact, _ = geom_contact_points("box", [0.02, 0.02, 0.02], np.zeros(3), rot, lo, hi, "shapes")
    corners, _ = geom_contact_points("box", [0.02, 0.02, 0.02], np.zeros(3), rot, lo, hi, "corners")
    assert np.allclose(np.sort(np.abs(exact[:, 0])), [0, 0, 0, 0, *[c45 * 0.02] * 4], atol=1e-15)
    assert np.allclose(np.abs(corners[:, :2]), c45 * 0.02)


def test_sphere_point_near_a_box_edge_is_pushed_along_the_line_to_it():
    p = params(collision={"exp_alpha": 1.0, "exp_beta": 500.0, "restitution": 1.0, "friction": 0.0})
    boxes = ([1], [np.zeros(3)], [np.eye(3)], [np.array([0.01, 0.01, 0.01])])
    arrays, cs = contact_setup(p, [0.0, 0.0], ([0], [np.zeros(3)], [0.005]), boxes, pairs=[(0, 1)])
    cs[S.GROUND_ON] = 0.0
    # sphere centre off the box's (x, z) edge, 4 mm from it along the diagonal
    d = 0.004 / math.sqrt(2)
    xpos = np.array([[0.01 + d, 0.0, 0.01 + d], [0.0, 0.0, 0.0]])
    fext, _ = evaluate(arrays, cs, xpos, np.array([np.eye(3)] * 2), np.zeros((2, 6)))
    f = math.expm1(500.0 * 0.001)
    assert np.allclose(fext[0, 3:], [f * math.sqrt(0.5), 0, f * math.sqrt(0.5)], rtol=1e-12)
    assert np.allclose(fext[1, 3:], -fext[0, 3:], rtol=0, atol=0)
