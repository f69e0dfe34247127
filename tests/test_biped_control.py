"""Unit tests of the biped controller's pieces (issue 18): quaternion PD, hinge and
universal angle extraction, Catmull-Rom trajectories, the stance machine, inverted-pendulum
foot placement and two-link IK, each against closed forms."""
import math

import numpy as np
import pytest

from pipeline.control.biped_gait import CatmullRom, ipm_step, two_link_ik
from pipeline.control.biped_machine import NSTATE, PHASE, STANCE, STEPS, advance_stance, limit, remainder
from pipeline.control.biped_pd import (ball_pd, clip_axes, cross, exp_rot, heading_of, hinge_angle, log_rot,
                                       mirror, mm, mtm, mtv, mv, rot_y, rot_z, universal_angles)

RNG = np.random.default_rng(18)


def random_rotvec(max_angle=3.0):
    axis = RNG.normal(size=3)
    return axis / np.linalg.norm(axis) * RNG.uniform(0.0, max_angle)


def test_log_inverts_exp_up_to_pi():
    for _ in range(200):
        v = random_rotvec(3.1)
        assert np.allclose(log_rot(exp_rot(v)), v, atol=1e-9)
    v = np.array([0.0, 0.0, math.pi])
    assert np.allclose(exp_rot(log_rot(exp_rot(v))), exp_rot(v), atol=1e-9)
    assert np.allclose(log_rot(np.eye(3)), 0.0)


def test_a_torque_limit_per_axis_leaves_the_unsaturated_axes_whole():
    """The root PD's limit (the released code's limitTorque): a saturated yaw does not
    shrink the pitch and roll parts, as a limit on the vector's length would."""
    assert np.array_equal(clip_axes(np.array([30.0, -50.0, 900.0]), 200.0), [30.0, -50.0, 200.0])
    assert np.array_equal(clip_axes(np.array([-250.0, 199.0, -201.0]), 200.0), [-200.0, 199.0, -200.0])


def test_ball_pd_is_kp_times_the_rotation_vector_to_the_target():
    """tau = kp vq(q_d, q) - kd w: the error axis-angle is in the child's (current) axes."""
    for _ in range(50):
        R = exp_rot(random_rotvec())
        err = random_rotvec(2.5)
        R_des = R @ exp_rot(err)
        w = RNG.normal(size=3)
        tau = ball_pd(R, R_des, w, 300.0, 35.0)
        assert np.allclose(tau, 300.0 * err - 35.0 * w, atol=1e-8)


def test_hinge_and_universal_angles_read_back_their_rotations():
    y = np.array([0.0, 1.0, 0.0])
    x = np.array([1.0, 0.0, 0.0])
    for a in np.linspace(-2.5, 2.5, 11):
        assert hinge_angle(exp_rot(a * y), y) == pytest.approx(a, abs=1e-12)
        assert hinge_angle(exp_rot(a * y), -y) == pytest.approx(-a, abs=1e-12)
    for q1, q2 in RNG.uniform(-1.2, 1.2, size=(50, 2)):
        R = exp_rot(q1 * x) @ exp_rot(q2 * y)
        assert universal_angles(R, x, y) == pytest.approx((q1, q2), abs=1e-12)


def test_heading_mirror_and_cross():
    assert heading_of(rot_z(0.7) @ exp_rot(np.array([0.0, 0.3, 0.0]))) == pytest.approx(0.7, abs=1e-12)
    R = exp_rot(np.array([0.2, 0.3, 0.4]))
    # a mirrored rotation about x-z plane negates roll and twist, keeps pitch
    assert np.allclose(log_rot(mirror(R)), log_rot(R) * [-1, 1, -1], atol=1e-12)
    a, b = RNG.normal(size=3), RNG.normal(size=3)
    assert np.allclose(cross(a, b), np.cross(a, b), atol=1e-15)
    assert np.allclose(rot_y(0.3), exp_rot(np.array([0.0, 0.3, 0.0])), atol=1e-15)
    A, B = exp_rot(random_rotvec()), RNG.normal(size=(3, 3))
    assert np.allclose(mm(A, B), A @ B, atol=1e-15) and np.allclose(mtm(A, B), A.T @ B, atol=1e-15)
    assert np.allclose(mv(B, a), B @ a, atol=1e-15) and np.allclose(mtv(B, a), B.T @ a, atol=1e-15)


def test_catmull_rom_interpolates_its_knots_with_central_tangents():
    s = CatmullRom([[0.0, 0.0], [0.5, 0.11], [1.0, 0.01]])
    assert [s(0.0), s(0.5), s(1.0)] == pytest.approx([0.0, 0.11, 0.01], abs=1e-15)
    assert s(-1.0) == 0.0 and s(2.0) == pytest.approx(0.01)
    # the middle knot's tangent is the central difference (0.01 - 0) / 1
    h = 1e-6
    assert (s(0.5 + h) - s(0.5 - h)) / (2 * h) == pytest.approx(0.01, abs=1e-6)
    # a straight line through evenly spaced knots is reproduced exactly
    line = CatmullRom([[t, 2 * t + 1] for t in (0, 1, 2, 3)])
    assert all(line(t) == pytest.approx(2 * t + 1, abs=1e-12) for t in np.linspace(0, 3, 31))


def test_stance_machine_ends_a_step_at_strike_after_half_phase_or_at_T():
    s = np.zeros(NSTATE)  # left stance, phase 0
    dt, T = 0.001, 0.6
    swapped = [advance_stance(s, dt, T, 100.0) for _ in range(250)]  # strike force before phi = 0.5
    assert not any(swapped) and s[STANCE] == 0
    n = 250
    while not advance_stance(s, dt, T, 100.0):
        n += 1
    assert n + 1 == 301  # the first frame past phi = 0.5
    assert (s[STANCE], s[PHASE], s[STEPS]) == (1, 0.0, 1)
    k = 0
    while not advance_stance(s, dt, T, 0.0):  # no strike: the dwell time ends the step
        k += 1
    assert k + 1 == 600 and s[STANCE] == 0 and s[STEPS] == 2


def test_the_machines_remainder_and_limit_are_pythons_to_the_bit():
    """The kernel's math.remainder and max(-m, min(m, x)), signed zeros included: the
    heading's slew and turn tests ran on Python's."""
    for x in np.concatenate([RNG.uniform(-50.0, 50.0, 2000), np.arange(-20, 21) * math.pi, [0.0, -0.0]]):
        r = remainder(float(x), 2 * math.pi)
        assert r == math.remainder(x, 2 * math.pi) and math.copysign(1, r) == math.copysign(1, math.remainder(x, 2 * math.pi))
    for x, m in [(0.3, 0.1), (-0.3, 0.1), (0.05, 0.1), (-0.0, 0.0), (0.0, 0.0), (0.0, -0.0), (-0.0, 1.0)]:
        want = max(-m, min(m, x))
        got = limit(x, m)
        assert got == want and math.copysign(1, got) == math.copysign(1, want)


def test_ipm_step_brings_the_pendulum_to_rest_over_the_foot():
    """Energy balance 1/2 v^2 + g h = g sqrt(h^2 + d^2) holds exactly for the exact form."""
    g = 9.8
    for v in (0.2, 0.6, 1.0, 1.7):
        for h in (0.7, 0.95, 1.2):
            d = ipm_step(v, h, alpha=0.0)
            assert 0.5 * v * v + g * h == pytest.approx(g * math.sqrt(h * h + d * d), rel=1e-12)
            assert ipm_step(v, h, alpha=0.0, exact=False) == pytest.approx(v * math.sqrt(h / g))
            assert ipm_step(v, h, 1.0, 0.05) == pytest.approx(d - 0.05)
            assert ipm_step(-v, h, alpha=0.0) == pytest.approx(-d)


def test_two_link_ik_reaches_and_bends_the_knee_forward():
    l1, l2 = 0.40, 0.46
    fwd = np.array([1.0, 0.0, 0.0])
    hip = np.array([0.1, -0.08, 0.92])
    for _ in range(100):
        target = hip + np.array([RNG.uniform(-0.4, 0.4), RNG.uniform(-0.2, 0.2), -RNG.uniform(0.45, 0.8)])
        if np.linalg.norm(target - hip) > l1 + l2 - 1e-3:
            continue
        R, knee = two_link_ik(hip, target, l1, l2, fwd)
        assert np.allclose(R.T @ R, np.eye(3), atol=1e-12) and np.linalg.det(R) == pytest.approx(1.0)
        knee_pos = hip + R @ [0.0, 0.0, -l1]
        ankle = knee_pos + R @ rot_y(knee) @ [0.0, 0.0, -l2]
        assert np.allclose(ankle, target, atol=1e-12)
        assert 0.0 < knee < math.pi
        # the knee lies on the forward side of the hip-ankle line
        u = (target - hip) / np.linalg.norm(target - hip)
        off = (knee_pos - hip) - ((knee_pos - hip) @ u) * u
        assert off @ fwd > 0
    R, knee = two_link_ik(hip, hip + [0.0, 0.0, -2.0], l1, l2, fwd)  # out of reach: straight
    assert knee == pytest.approx(0.0, abs=1e-2)
