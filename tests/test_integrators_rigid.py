"""Single rigid bodies against closed forms (McKenna digest §9.1, A1-A4)."""
import numpy as np
import pytest

from pipeline.spec.transforms import matrix_from_quat as quat_to_matrix
from simulation_helpers import creature, free_body, momentum, simulate

G = 9.8
DT = 1 / 2400


def com_track(rec, com_body):
    R = np.array([quat_to_matrix(qt) for qt in rec.body_quat[:, 0]])
    return rec.body_pos[:, 0] + R @ com_body


@pytest.mark.parametrize("integrator", ["mckenna_euler", "rk4", "rkf45"])
def test_a1_free_fall_is_exact(integrator):
    sim = simulate(creature(free_body(pos=(0, 0, 1.0), v=(0.3, 0, 2.0))), gravity=G, dt=DT,
                   integrator=integrator, duration=1.0)
    qdd = sim.qdd()
    assert np.abs(qdd[:3] - [0, 0, -G]).max() < 1e-9
    rec = sim.run(progress=False)
    t = rec.time
    assert t[-1] == pytest.approx(1.0, abs=1e-12) and len(t) == 2401
    z = rec.body_pos[:, 0, 2]
    x = rec.body_pos[:, 0, 0]
    assert np.abs(z - (1.0 + 2.0 * t - 0.5 * G * t * t)).max() < 1e-9
    assert np.abs(x - 0.3 * t).max() < 1e-9


def test_a1_literal_eq11_shows_the_predicted_error():
    """The printed Eq 11 counts a dt^2 twice: after time t it is off by a t dt / 2."""
    sim = simulate(creature(free_body(pos=(0, 0, 1.0), v=(0, 0, 2.0))), gravity=G, dt=DT,
                   integrator="mckenna_euler_literal", duration=1.0)
    rec = sim.run(progress=False)
    t = rec.time
    exact = 1.0 + 2.0 * t - 0.5 * G * t * t
    predicted = -G * t * DT / 2
    assert np.abs(rec.body_pos[:, 0, 2] - exact - predicted).max() < 1e-9
    assert abs(rec.body_pos[-1, 0, 2] - exact[-1]) == pytest.approx(2.0416666e-3, rel=1e-6)


def rotating_box(origin, **kw):
    size = (0.1, 0.2, 0.3)
    body = free_body(size=size, origin=origin, pos=(0, 0, 1.0), v=(0.5, -0.2, 3.0),
                     w=(3.0, -5.0, 7.0), **kw)
    return body, size


def _inertia(size, m):
    a, b, c = size
    return m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def test_a2_rotating_body_in_free_fall():
    """Origin at a corner, spin about a non-principal axis: the COM follows the parabola,
    angular momentum about the COM and rotational energy are conserved."""
    corner = (0.05, 0.1, 0.15)
    body, size = rotating_box(corner)
    sim = simulate(creature(body), gravity=G, dt=1 / 240, integrator="rkf45", atol=1e-12,
                   rtol=1e-12, duration=1.0)
    rec = sim.run(progress=False)
    m = 1000 * np.prod(size)
    I = _inertia(size, m)
    com = com_track(rec, -np.asarray(corner))
    t = rec.time[:, None]
    parabola = np.array([0, 0, 1.0]) + np.array([0.5, -0.2, 3.0]) * t + 0.5 * np.array([0, 0, -G]) * t * t
    assert np.abs(com - parabola).max() < 1e-6
    L = []
    ke = []
    for qt, qd in zip(rec.body_quat[:, 0], rec.qd):
        R = quat_to_matrix(qt)
        w = qd[3:]
        L.append(R @ I @ w)
        ke.append(0.5 * w @ I @ w)
    L = np.array(L)
    ke = np.array(ke)
    assert np.abs(L - L[0]).max() / np.linalg.norm(L[0]) < 1e-8
    assert np.abs(ke - ke[0]).max() / ke[0] < 1e-8
    # the body really tumbles: the spin axis moves in the body frame
    assert np.abs(rec.qd[-1, 3:] - rec.qd[0, 3:]).max() > 0.5


@pytest.mark.parametrize("size", [(0.02, 0.02, 0.02), (0.01, 0.03, 0.05)], ids=["cube", "box"])
def test_a3_random_velocity_without_gravity(size):
    rng = np.random.default_rng(3)
    v = rng.normal(size=3)
    w = rng.normal(size=3) * 4
    sim = simulate(creature(free_body(size=size, v=v, w=w)), gravity=0.0, dt=1 / 240,
                   integrator="rkf45", atol=1e-12, rtol=1e-12, duration=1.0)
    P0, _ = momentum(sim)
    rec = sim.run(progress=False)
    com = rec.body_pos[:, 0]  # origin at the centre
    line = rec.time[:, None] * v
    travelled = np.linalg.norm(v) * rec.time[-1]
    assert np.abs(com - line).max() / travelled < 1e-9
    P1, _ = momentum(sim)
    assert np.abs(P1 - P0).max() / np.linalg.norm(P0) < 1e-12
    m = 1000 * np.prod(size)
    I = _inertia(size, m)
    # angular momentum about the centre of mass, world axes
    L = np.array([quat_to_matrix(qt) @ I @ qd[3:] for qt, qd in zip(rec.body_quat[:, 0], rec.qd)])
    assert np.abs(L - L[0]).max() / np.linalg.norm(L[0]) < 1e-8
    ke = np.array([0.5 * qd[3:] @ I @ qd[3:] for qd in rec.qd])
    assert np.abs(ke - ke[0]).max() / ke[0] < 1e-8
    if size[0] == size[1] == size[2]:
        # isotropic inertia: omega stays constant (body and world axes alike)
        assert np.abs(rec.qd[:, 3:] - rec.qd[0, 3:]).max() < 1e-10


def test_a4_far_local_origin_matches_centred_origin():
    """The same body with its frame origin 10 m (500 body lengths) from the COM."""
    rng = np.random.default_rng(4)
    v = rng.normal(size=3)
    w = rng.normal(size=3) * 3
    size = (0.01, 0.02, 0.03)
    runs = {}
    for key, origin in (("centred", (0, 0, 0)), ("shifted", (6.0, -8.0, 0.0))):
        # frames of 0.25 s so that the error control, not the frame, sets the step
        sim = simulate(creature(free_body(size=size, origin=origin, v=v, w=w)), gravity=G,
                       dt=0.25, integrator="rkf45", atol=1e-10, rtol=1e-10, duration=2.0)
        rec = sim.run(progress=False)
        runs[key] = (com_track(rec, -np.asarray(origin, float)), rec.body_quat[:, 0],
                     sim.stats()["accepted_steps"])
    (c0, q0, n0), (c1, q1, n1) = runs["centred"], runs["shifted"]
    scale = np.abs(c0).max()
    assert np.abs(c1 - c0).max() / scale < 1e-8
    assert np.abs(np.abs(np.sum(q0 * q1, axis=1)) - 1).max() < 1e-8
    assert n0 > 100  # the controller did subdivide
    assert n1 <= 2 * n0 and n0 <= 2 * n1


@pytest.mark.parametrize("integrator", ["symplectic_euler", "implicit_euler"])
def test_euler_steps_keep_the_speed_of_a_body_that_spins_as_it_moves(integrator):
    """A free body's linear velocity is in its own axes, which turn: v' = -w x v. Taken
    along its tangent each Euler step lengthened v by sqrt(1 + (w h)^2) (a cube spinning at
    20 rad/s at h = 10 ms: 2 % a step); turned exactly, the speed and the kinetic energy
    stay to rounding and the centre keeps a straight line (`turn_free_velocities`)."""
    v0 = np.array([1.0, 0.0, 0.3])
    sim = simulate(creature(free_body(size=(0.02, 0.02, 0.02), v=v0, w=(0.0, 2.0, 20.0))),
                   gravity=0.0, dt=0.01, integrator=integrator, duration=1.0)
    rec = sim.run(progress=False)
    assert np.abs(np.linalg.norm(rec.qd[:, :3], axis=1) - np.linalg.norm(v0)).max() < 1e-12
    assert np.abs(rec.qd[:, 3:] - rec.qd[0, 3:]).max() < 1e-12  # a cube: w stays
    steps = np.diff(rec.body_pos[:, 0], axis=0)
    assert np.abs(np.linalg.norm(steps, axis=1) - 0.01 * np.linalg.norm(v0)).max() < 1e-14
    assert np.abs(steps - steps[0]).max() < 1e-14
