"""The linearly implicit integrators (pipeline.physics.implicit): their parts against
independent computations, their order of convergence, and stability where explicit
methods diverge."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import pipeline
from pipeline.physics import forward_kinematics
from pipeline.physics.contact import state as S
from pipeline.physics.contact.forces import contact_forces, point_velocity
from pipeline.physics.contact.linearize import dissipative_part, ground_point_derivatives
from pipeline.physics.forces import joint_forces
from pipeline.physics.crba import crba
from pipeline.physics.integrators import INTEGRATORS
from pipeline.physics.implicit import implicit_euler_step, joint_stiffness
from pipeline.physics.kinematics import joint_pass, make_workspace
from pipeline.spec.types import ExpSpring, JointForces
from simulation_helpers import creature, rod, simulate

from contact_scenes import FLAT_ENV, free_body, simulation

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
G = 9.8
REST_DEPTH = np.log1p(0.001 * G / (4 * 17.5)) / 3000  # digest B2


def roach_in_motion(seed=3):
    """The compiled roach with random joint angles and velocities, 1 cm up."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roach_tripod.yaml"))
    rng = np.random.default_rng(seed)
    d = sim.data
    d.q[7:] += rng.uniform(-0.3, 0.3, sim.model.nq - 7)
    d.qd[:] = rng.normal(0.0, 1.0, sim.model.nv)
    return sim


def point_jacobian(sim, q, b, p):
    """d(world velocity of the point p fixed in body b) / d qd, column by column (the
    velocity is linear in qd)."""
    nv = sim.model.nv
    w = make_workspace(sim.model.nbody, nv)
    J = np.zeros((3, nv))
    for j in range(nv):
        joint_pass(sim._statics.tree, q, np.eye(nv)[j], w, True)
        J[:, j] = point_velocity(b, p[0], p[1], p[2], w.xpos, w.xrot, w.v)
    return J


def test_point_jacobian_maps_joint_velocities_to_the_point_velocity():
    sim = roach_in_motion()
    st, wk, d = sim._statics, sim._work, sim.data
    joint_pass(st.tree, d.q, d.qd, wk.dyn, True)
    rng = np.random.default_rng(0)
    for b in (0, 7, 12, 20, 32):  # abdomen and feet of several legs
        p = wk.dyn.xpos[b] + wk.dyn.xrot[b] @ rng.uniform(-0.003, 0.003, 3)
        J = point_jacobian(sim, d.q, b, p)
        joint_pass(st.tree, d.q, d.qd, wk.dyn, True)
        v = point_velocity(b, p[0], p[1], p[2], wk.dyn.xpos, wk.dyn.xrot, wk.dyn.v)
        np.testing.assert_allclose(J @ d.qd, v, rtol=1e-12, atol=1e-14)


def test_joint_stiffness_is_minus_the_derivative_of_the_joint_forces():
    sim = roach_in_motion()
    st, d = sim._statics, sim.data
    f = d.forces
    f.limit_lower[5], f.limit_upper[5], f.limit_k[5], f.limit_b[5] = -1.0, d.q[6] - 0.01, 3e-4, 2e-6
    f.servo_kp[9], f.servo_kd[9] = 1e-4, 1e-6
    nv = sim.model.nv
    K, C, Krest = np.zeros(nv), np.zeros(nv), np.zeros(nv)
    rest = d.exp_rest.copy()
    joint_stiffness(f, st.dof_qpos, d.q, rest, K, C, Krest)

    def tau(q, qd, r):
        out = np.zeros(nv)
        joint_forces(f, st.dof_qpos, q, qd, r, np.zeros(nv), out)
        return out

    for j in range(6, nv):
        iq = st.dof_qpos[j]
        e = 1e-7
        qp, qm = d.q.copy(), d.q.copy()
        qp[iq] += e
        qm[iq] -= e
        dq = (tau(qp, d.qd, rest) - tau(qm, d.qd, rest)) / (2 * e)
        assert -dq[j] == pytest.approx(K[j], rel=1e-6, abs=1e-12)
        # the forces are linear in qd, so a larger step costs no truncation error and keeps
        # roundoff below the tolerance where a joint's force dwarfs its damping (the roach's
        # tarsal stops: 3e-4 N m against 2e-8 N m s/rad)
        ev = 1e-4
        vp, vm = d.qd.copy(), d.qd.copy()
        vp[j] += ev
        vm[j] -= ev
        dv = (tau(d.q, vp, rest) - tau(d.q, vm, rest)) / (2 * ev)
        assert -dv[j] == pytest.approx(C[j], rel=1e-6, abs=1e-15)
        rp, rm = rest.copy(), rest.copy()
        rp[j] += e
        rm[j] -= e
        dr = (tau(d.q, d.qd, rp) - tau(d.q, d.qd, rm)) / (2 * e)
        assert dr[j] == pytest.approx(Krest[j], rel=1e-6, abs=1e-12)
    assert np.count_nonzero(K) == nv - 6 and np.count_nonzero(C) > 30


def standing_roach(seed=4):
    """The tripod roach on its feet 50 ms into its gait, its joints moving."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roach_tripod.yaml"))
    sim.run(0.05, progress=False)
    sim.data.qd[:] += np.random.default_rng(seed).normal(0.0, 0.3, sim.model.nv)
    return sim


@pytest.mark.parametrize("prescribed", [False, True])
def test_implicit_step_solves_the_assembled_linear_system(prescribed):
    """The step's articulated-body pass with the contact points' inertias and the joints'
    diagonals gives the velocity change of the dense system (module doc of
    pipeline.physics.implicit) (M + h C + h^2 K) dqd = h M qdd - h^2 K qd + h^2 Krest
    rest', assembled here from the CRBA mass matrix, point Jacobians and the contact and
    joint derivatives; with a prescribed root its rows are its given accelerations and
    the rest is solved with them moved to the right-hand side."""
    sim = standing_roach()
    st, wk, d = sim._statics, sim._work, sim.data
    nq, nv, h = sim.model.nq, sim.model.nv, 1e-4  # 10x the scene's step: the terms matter
    d.forces.servo_kp[9], d.forces.servo_kd[9] = 1e-4, 1e-6
    d.motor_active[9], d.motor_vel[9], d.motor_end[9] = 1, 0.7, 1.0
    if prescribed:  # the compiled model may be shared within the process: restored below
        st.tree.prescribed[0] = True
        d.qdd_prescribed[:6] = [0.1, -0.2, 0.3, 1.0, -2.0, 0.5]
    try:
        check_implicit_step(sim, h, prescribed)
    finally:
        st.tree.prescribed[0] = False


def turned(qd, dqd, h):
    """dqd with the free root's linear velocity turned by the step's rotation instead of
    along its tangent (`kinematics.turn_free_velocities`): the new angular velocity w turns
    the body's axes through 2 atan(h |w| / 2), so v turns back through as much."""
    v, w_old = qd[:3], qd[3:6]
    w = w_old + dqd[3:6]
    angle = 2.0 * np.arctan(0.5 * h * np.linalg.norm(w))
    back = Rotation.from_rotvec(-angle * w / np.linalg.norm(w)).apply(v)
    out = dqd.copy()
    out[:3] += back - (v - h * np.cross(w_old, v))
    return out


def check_implicit_step(sim, h, prescribed):
    st, wk, d = sim._statics, sim._work, sim.data
    nq, nv = sim.model.nq, sim.model.nv
    lv = sim._live()
    qdd = sim.qdd().copy()
    joint_pass(st.tree, d.q, d.qd, wk.dyn, True)
    npt = len(sim.model.contact.point_body)
    body, point = np.zeros(npt, np.int64), np.zeros((npt, 3))
    dfdp, dfdv = np.zeros((npt, 3, 3)), np.zeros((npt, 3, 3))
    n = ground_point_derivatives(sim.model.contact, d.cstate, wk.dyn.xpos, wk.dyn.xrot,
                                 wk.dyn.v, body, point, dfdp, dfdv)
    assert n >= 6 and len(set(body[:n])) >= 3  # several feet, several points on some
    k, c, krest = np.zeros(nv), np.zeros(nv), np.zeros(nv)
    joint_stiffness(d.forces, st.dof_qpos, d.q, d.exp_rest, k, c, krest)
    K, C = np.diag(k), np.diag(c)
    for m in range(n):
        J = point_jacobian(sim, d.q, body[m], point[m])
        K -= J.T @ dfdp[m] @ J
        C -= J.T @ dfdv[m] @ J
    M = np.zeros((nv, nv))
    crba(st.tree, d.q, M, make_workspace(sim.model.nbody, nv))
    W = M + h * C + h * h * K
    rate = np.where(d.motor_active != 0, d.motor_vel, 0.0)
    rhs = M @ qdd - h * K @ d.qd + h * krest * rate
    kv = qdd.copy()
    free = slice(6, nv) if prescribed else slice(0, nv)
    kv[free] = np.linalg.solve(W[free, free], rhs[free] - W[free, :6] @ qdd[:6] * prescribed)
    y, cs = d.y.copy(), d.cstate.copy()
    implicit_euler_step(st, lv, wk, d.time, h, y, cs, wk.ynew)
    dqd = wk.ynew[nq:nq + nv] - d.qd
    np.testing.assert_allclose(dqd, turned(d.qd, h * kv, h), rtol=0, atol=1e-9 * np.abs(h * kv).max())
    np.testing.assert_allclose(wk.ynew[nq + nv:], d.exp_rest + h * rate, rtol=1e-15)
    assert np.abs(h * kv - h * qdd).max() > 0.1 * np.abs(h * kv).max()  # the terms matter


def test_contact_derivatives_of_a_resting_cube_are_the_exponential_spring_stiffness():
    """Resting at the B2 depth, each bottom corner's normal stiffness is alpha beta
    e^(beta d) and, at rest, the restitution ramp gives the damping -dF/dv_n of
    F (1 - e) / v_ramp (tests/test_contact_linearize.py checks every law and regime)."""
    sim = simulation([free_body("cube", "box", [0.01] * 3, [0, 0, 0.005 - REST_DEPTH])],
                     env=FLAT_ENV)
    c, d = sim.model.contact, sim.data
    xpos, xrot, vb = forward_kinematics(sim.model, d.q, d.qd)
    npt = len(c.point_body)
    body, point = np.zeros(npt, np.int64), np.zeros((npt, 3))
    dfdp, dfdv = np.zeros((npt, 3, 3)), np.zeros((npt, 3, 3))
    n = ground_point_derivatives(c, d.cstate, xpos, xrot, vb, body, point, dfdp, dfdv)
    assert n == 4
    k = 17.5 * 3000 * np.exp(3000 * REST_DEPTH)
    fn = 17.5 * np.expm1(3000 * REST_DEPTH)
    v_ramp = d.cstate[S.REST_V]
    for m in range(n):
        assert point[m, 2] == pytest.approx(-REST_DEPTH, rel=1e-9)  # the corner itself
        assert dfdp[m, 2, 2] == pytest.approx(-k, rel=1e-9)
        # moving outwards starts the restitution ramp: the side that resists
        assert dfdv[m, 2, 2] == pytest.approx(-fn * (1 - 0.5) / v_ramp, rel=1e-9)
        # Coulomb friction at rest: no slope in position, mu fn / v_slip in velocity
        assert dfdp[m, 0, 0] == 0.0
        assert dfdv[m, 0, 0] == pytest.approx(-0.7 * fn / d.cstate[S.SLIP_V], rel=1e-9)


def test_b2_cube_rests_at_the_spring_depth_with_steps_of_a_whole_frame():
    """An equilibrium is a fixed point of the implicit step, so the resting depth is exact
    even at h = dt = 1/2400 s, 80x the step RK4 needs (h = 1/200 000 s)."""
    sim = simulation([free_body("cube", "box", [0.01] * 3, [0, 0, 0.006])], duration=0.4,
                     h=1 / 2400, integrator="implicit_euler")
    rec = sim.run(progress=False)
    assert 0.005 - rec.body_pos[-1, 0, 2] == pytest.approx(REST_DEPTH, rel=1e-6)
    assert np.abs(rec.qd[-1]).max() < 1e-9


def pendulum(**forces):
    links = [rod("l0", None, (0, 0, 2.0), axis=(0, 1, 0), q0=0.6, forces=JointForces(**forces))]
    for i in range(1, 4):
        links.append(rod(f"l{i}", f"l{i - 1}", (1.0, 0, 0), axis=(0, 1, 0), q0=0.3 * (-1) ** i,
                         forces=JointForces(**forces)))
    return creature(*links)


def end_state(integrator, h, **forces):
    sim = simulate(pendulum(**forces), gravity=G, dt=0.05, integrator=integrator, h=h,
                   duration=1.0, atol=1e-12, rtol=1e-12)
    sim.run(progress=False)
    return sim.data.y.copy()


def test_first_order_convergence_on_a_sprung_pendulum():
    forces = dict(damping=0.5, exp_spring=ExpSpring(alpha=2.0, beta=3.0, rest=0.0))
    ref = end_state("rkf45", 1e-3, **forces)
    errors = [np.abs(end_state("implicit_euler", h, **forces) - ref).max()
              for h in (1e-3, 5e-4, 2.5e-4)]
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 0.05
    np.testing.assert_allclose(rates, 1.0, atol=0.1)


def test_stiff_joint_spring_is_stable_where_rk4_diverges():
    """The joint spring rings at omega ~ 1100 rad/s; at h = 5 ms (omega h ~ 5, twice RK4's
    stability limit of 2.8) RK4 blows up and the implicit step stays bounded."""
    stiff = dict(spring_k=4e5, damping=0.0)
    y = end_state("implicit_euler", 1e-2 / 2, **stiff)
    assert np.all(np.isfinite(y)) and np.abs(y).max() < 10.0
    with pytest.raises(pipeline.errors.SimulationError, match="unstable"):
        end_state("rk4", 1e-2 / 2, **stiff)


def landed_roach(integrator, h):
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roach_drop.yaml"))
    sim.method, sim.h = INTEGRATORS[integrator], h
    return sim.run(0.2, progress=False).body_pos[-1]


def test_landing_roach_matches_converged_rk4_where_rk4_at_5us_does_not():
    """0.2 s after the drop every body of the roach is where RK4 at 2.5 us puts it to
    0.12 mm with implicit Euler at 10 us (measured 0.081 mm); RK4 at 5 us, stable but not
    converged, is 2 mm off. Mirror symmetry holds to rounding (left and right legs enter
    the factorization in a different order): the abdomen stays within 1 um of y = 0."""
    ref = landed_roach("rk4", 2.5e-6)
    implicit = landed_roach("implicit_euler", 1e-5)
    assert np.abs(implicit - ref).max() < 1.2e-4
    assert np.abs(landed_roach("rk4", 5e-6) - ref).max() > 1.5e-3
    assert abs(implicit[0, 1]) < 1e-6


def test_contact_derivatives_keep_only_what_resists():
    """The kept derivative has no normal/tangential coupling, is symmetric, and its
    negative is positive semidefinite; whatever already was so passes unchanged."""
    rng = np.random.default_rng(5)
    n = rng.normal(size=3)
    n /= np.linalg.norm(n)
    P = np.eye(3) - np.outer(n, n)
    for _ in range(200):
        D = rng.normal(size=(3, 3))
        out = D.copy()
        dissipative_part(out, *n)
        np.testing.assert_allclose(out, out.T, atol=1e-12)
        np.testing.assert_allclose(P @ out @ n, 0.0, atol=1e-12)
        assert np.linalg.eigvalsh(-out).min() > -1e-12
        # the tangential block is the nearest PSD matrix to the symmetric part's block
        S = -P @ (0.5 * (D + D.T)) @ P
        w, V = np.linalg.eigh(S)
        np.testing.assert_allclose(-P @ out @ P, (V * np.maximum(w, 0)) @ V.T, atol=1e-12)
        assert -n @ out @ n == pytest.approx(max(0.0, -n @ D @ n), abs=1e-12)
    A = rng.normal(size=(3, 3))
    resisting = -(3.0 * np.outer(n, n) + P @ A @ A.T @ P)  # a spring: already resists
    kept = resisting.copy()
    dissipative_part(kept, *n)
    np.testing.assert_allclose(kept, resisting, atol=1e-12)


def test_roach_with_grippy_feet_is_stable():
    """mu = 3: the exact friction derivative (tangential force growing with depth) made
    the step's matrix indefinite and the roach blew up on landing."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roach_drop.yaml"))
    sim.data.cstate[S.MU] = 3.0
    rec = sim.run(0.15, progress=False)
    assert np.all(np.isfinite(rec.body_pos)) and rec.body_pos[-1, 0, 2] > 0.01
