"""Urban's engine tests E1-E16 (digest seed-004-urban.md §8.1) with the digest's numbers."""
import math

import numpy as np
import pytest

from pipeline.particles.simulation import compile_particles
from pipeline.particles.spec import resolve_particles, scene_of
from pipeline.particles.stability import is_stable, max_stable_step

G = 9.8


def make(masses, forces, integrator="rk4", dt=0.01, h=None, world=None, duration=1.0):
    doc = {"particles": "test", "masses": masses, "forces": forces}
    doc["world"] = world if world is not None else {"gravity": G}
    c = resolve_particles(doc)
    return compile_particles(scene_of(c, name="t", duration=duration, dt=dt, h=h,
                                           integrator=integrator))


def ball(z=10.0, **kw):
    return {"name": "b", "mass": kw.pop("mass", 1.0), "radius": kw.pop("radius", 0.1), "at": [0, 0, z], **kw}


@pytest.mark.parametrize("integrator, expected", [("rk4", -4.9), ("midpoint", -4.9), ("euler", -4.851)])
def test_e1_free_fall(integrator, expected):
    sim = make([ball()], [{"gravity": "all"}], integrator)
    sim.step(100)
    assert sim.data.pos[0, 2] - 10.0 == pytest.approx(expected, abs=1e-9)


def oscillator(integrator, dt, kd=0.0, h=None):
    """m = 0.1 on a k = 50 spring to a nailed anchor, zero gravity, displaced 0.1 m."""
    return make([{"name": "anchor", "mass": 1.0, "radius": 0.01, "at": [0, 0, 0]},
                 {"name": "m", "mass": 0.1, "radius": 0.01, "at": [1.1, 0, 0]}],
                [{"nail": ["anchor"]}, {"spring": ["anchor", "m"], "k": 50, "kd": kd, "rest": 1.0}],
                integrator, dt, h=h, world={"gravity": "off"})


def energy(sim):
    x = sim.data.pos[1, 0] - 1.0
    v = sim.data.vel[1, 0]
    return 0.5 * 50 * x * x + 0.5 * 0.1 * v * v


@pytest.mark.parametrize("integrator, order", [("euler", 1), ("midpoint", 2), ("rk4", 4)])
def test_e2_convergence_order(integrator, order):
    w = math.sqrt(50 / 0.1)
    # steps small enough for the asymptotic regime (w h << 1); frames of 0.05 s, 0.5 s total
    dts = {"euler": [2e-4, 1e-4, 5e-5], "midpoint": [2e-3, 1e-3, 5e-4], "rk4": [0.01, 0.005, 0.0025]}[integrator]
    errors = []
    for dt in dts:
        sim = oscillator(integrator, 0.05, h=dt)
        sim.step(10)
        errors.append(abs(sim.data.pos[1, 0] - 1.0 - 0.1 * math.cos(w * 0.5)))
    slopes = np.diff(np.log(errors)) / np.diff(np.log(dts))
    assert slopes == pytest.approx([order, order], abs=0.2)


def test_e3_energy_rk4_and_euler():
    e0 = 0.5 * 50 * 0.01
    for dt, limit in ((0.01, 0.02), (0.005, 0.001)):
        sim = oscillator("rk4", dt)
        sim.step(int(round(100 / dt)))
        loss = 1 - energy(sim) / e0
        assert 0 < loss <= limit
    w_h = math.sqrt(500) * 0.01
    # RK4 multiplies the energy by |R(i w h)|^2 per step (R its stability polynomial)
    rk4_gain = (1 - w_h**2 / 2 + w_h**4 / 24) ** 2 + (w_h - w_h**3 / 6) ** 2
    sim = oscillator("rk4", 0.01)
    sim.step(10000)
    assert energy(sim) / e0 == pytest.approx(rk4_gain ** 10000, rel=1e-6)
    sim = oscillator("euler", 0.01)
    sim.step(80)  # explicit Euler grows the energy by (1 + (wh)^2) per step: x 50 in 0.8 s
    assert energy(sim) / e0 == pytest.approx((1 + w_h**2) ** 80, rel=1e-9)


def test_e4_damped_spring_envelope():
    kd = 0.2
    sim = oscillator("rk4", 0.0005, kd=kd)
    w0 = math.sqrt(500)
    zeta = kd / (2 * math.sqrt(50 * 0.1))
    wd = w0 * math.sqrt(1 - zeta**2)
    xs = []
    for _ in range(4000):
        sim.step(1)
        xs.append(sim.data.pos[1, 0] - 1.0)
    xs = np.array(xs)
    t = 0.0005 * np.arange(1, 4001)
    # exact solution of m x'' + kd x' + k x = 0 from x0 = 0.1, v0 = 0
    exact = 0.1 * np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta * w0 / wd * np.sin(wd * t))
    peaks = [i for i in range(1, len(xs) - 1) if xs[i - 1] < xs[i] > xs[i + 1]]
    assert len(peaks) > 5
    envelope = 0.1 * np.exp(-zeta * w0 * t[peaks]) / math.sqrt(1 - zeta**2)
    assert xs[peaks] == pytest.approx(envelope, rel=0.01)
    assert np.abs(xs - exact).max() < 1e-6


def test_e5_momentum_springs_and_angle_joints():
    rng = np.random.default_rng(1)
    masses = [{"name": f"m{i}", "mass": float(rng.uniform(0.1, 1)), "radius": 0.02,
               "at": list(rng.uniform(-1, 1, 3)), "velocity": list(rng.uniform(-1, 1, 3))} for i in range(5)]
    forces = [{"spring": [f"m{i}", f"m{(i + 1) % 5}"], "k": 40, "kd": 0.5} for i in range(5)]
    forces += [{"angle": [f"m{i}", f"m{(i + 1) % 5}", f"m{(i + 2) % 5}"], "k": 3, "kd": 0.1, "rest": 1.0}
               for i in range(5)]
    sim = make(masses, forces, world={"gravity": "off"}, dt=0.001)
    m = sim.model.arrays.mass[:, None]
    p0 = (m * sim.data.vel).sum(0)
    sim.step(2000)
    p1 = (m * sim.data.vel).sum(0)
    assert np.abs(p1 - p0).max() <= 1e-9 * np.abs(m * sim.data.vel).sum()


def bounce_sim(r=0.8, dt=0.01):
    return make([ball(1.0, restitution=r, radius=0.05)], [{"gravity": "all"}, {"floor": "all"}],
                dt=dt, world={"gravity": G, "floor": {"envelope": 0.001}})


def test_e6_bounce_apex_ratio_and_envelope():
    sim = bounce_sim()
    z, apexes, deepest = [], [], 0.0
    for _ in range(400):
        sim.step(1)
        z.append(sim.data.pos[0, 2])
        deepest = max(deepest, 0.05 - sim.data.pos[0, 2])
    z = np.array(z)
    apexes = [z[i] for i in range(1, len(z) - 1) if z[i - 1] < z[i] >= z[i + 1]]
    heights = np.array(apexes[:3]) - 0.05
    first = 0.95 * 0.8**2
    assert heights[0] == pytest.approx(first, rel=0.02)
    assert heights[1:] / heights[:-1] == pytest.approx([0.64, 0.64], rel=0.02)
    assert deepest <= 1e-12  # every step ends on or above the plane
    assert sim.stats()["backtracks"] > 0  # a 1 cm step at 4 m/s misses the 1 mm envelope


def test_e7_static_friction_holds():
    push = 0.5 * 0.6 * 1.0 * G  # half of mu_s N
    sim = make([ball(0.1, mu_s=0.6, mu_k=0.5)],
               [{"gravity": "all"}, {"constant": ["b"], "force": [push, 0, 0]}, {"floor": "all"}])
    sim.step(200)
    assert sim.data.pos[0].tolist() == [0.0, 0.0, 0.1]


@pytest.mark.parametrize("integrator", ["euler", "midpoint", "rk4"])
def test_e8_kinetic_friction_stop_distance_no_reversal(integrator):
    v0, mu_k = 2.0, 0.5
    sim = make([ball(0.1, mu_s=0.6, mu_k=mu_k, velocity=[v0, 0, 0])],
               [{"gravity": "all"}, {"floor": "all"}], integrator, dt=0.001)
    vx = []
    for _ in range(1000):
        sim.step(1)
        vx.append(sim.data.vel[0, 0])
    rounding = 4 * np.finfo(float).eps * v0  # v - h (m v / h) / m is zero up to rounding
    assert min(vx) >= -rounding
    assert abs(vx[-1]) <= rounding
    assert sim.data.pos[0, 0] == pytest.approx(v0**2 / (2 * mu_k * G), rel=0.02)


WATER = {"gravity": G, "media": [{"name": "water", "density": 1000, "drag": 0.5}]}


@pytest.mark.parametrize("density", [500, 1000, 2000])
def test_e9_buoyancy_and_terminal_speed(density):
    r = 0.05
    sim = make([{"name": "b", "density": density, "radius": r, "at": [0, 0, 0]}],
               [{"gravity": "all"}, {"fluid": "water", "masses": "all"}], dt=0.005, world=WATER)
    sim.step(2000)
    v = sim.data.vel[0, 2]
    vol = 4 / 3 * math.pi * r**3
    net = (density - 1000) * vol * G
    terminal = math.sqrt(2 * abs(net) / (0.5 * 1000 * math.pi * r * r))
    if density == 1000:
        assert v == pytest.approx(0.0, abs=1e-12)
    else:
        assert -math.copysign(1, net) * v == pytest.approx(terminal, rel=0.01)


def test_e10_neutral_particle_follows_uniform_flow():
    world = {"gravity": G, "media": [{"name": "water", "density": 1000, "drag": 0.5,
                                      "flow": {"type": "uniform", "velocity": [0.3, -0.1, 0]}}]}
    sim = make([{"name": "b", "density": 1000, "radius": 0.02, "at": [0, 0, 0]}],
               [{"gravity": "all"}, {"fluid": "water", "masses": "all"}], dt=0.01, world=world)
    sim.step(3000)
    # quadratic drag closes the gap as |u - v| = 1 / (1/|u| + c t), c = C rho A / (2 m)
    u = np.array([0.3, -0.1, 0.0])
    c = 0.5 * 1000 * math.pi * 0.02**2 / (2 * 1000 * 4 / 3 * math.pi * 0.02**3)
    gap = 1 / (1 / np.linalg.norm(u) + c * 30.0)
    assert sim.data.vel[0] == pytest.approx(u * (1 - gap / np.linalg.norm(u)), rel=1e-6)
    assert gap < 0.004


def test_e11_world_nail_holds_under_springs_and_gravity():
    sim = make([{"name": "base", "mass": 1, "radius": 0.02, "at": [0, 0, 1]},
                {"name": "m", "mass": 1, "radius": 0.02, "at": [0.3, 0, 1]}],
               [{"gravity": "all"}, {"spring": ["base", "m"], "k": 100, "kd": 1, "rest": 0.1},
                {"nail": ["base"]}], dt=0.001)
    sim.step(2000)
    assert np.abs(sim.data.pos[0] - [0, 0, 1]).max() <= 1e-12
    assert abs(sim.data.pos[1, 2] - 1) > 0.05  # the other mass did move


@pytest.mark.parametrize("reaction", [True, False])
def test_e12_angle_joint_returns_to_rest(reaction):
    ms = [{"name": "a", "mass": 0.1, "radius": 0.01, "at": [1, 0, 0]},
          {"name": "j", "mass": 0.1, "radius": 0.01, "at": [0, 0, 0]},
          {"name": "b", "mass": 0.1, "radius": 0.01, "at": [math.cos(1.2), math.sin(1.2), 0]}]
    forces = [{"spring": ["a", "j"], "k": 200, "kd": 2}, {"spring": ["b", "j"], "k": 200, "kd": 2},
              {"angle": ["a", "j", "b"], "k": 1.0, "kd": 0.2, "rest": 0.8, "reaction": reaction}]
    sim = make(ms, forces, world={"gravity": "off"}, dt=0.001)
    sim.step(5000)
    a, b = sim.data.pos[0] - sim.data.pos[1], sim.data.pos[2] - sim.data.pos[1]
    theta = math.acos(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert theta == pytest.approx(0.8, abs=1e-4)
    momentum = (sim.model.arrays.mass[:, None] * sim.data.vel).sum(0)
    if reaction:
        assert np.abs(momentum).max() < 1e-12
    else:
        assert np.abs(momentum).max() > 1e-4  # Urban's end-mass-only reading is not momentum-free


def test_e13_torque_joint_turns_end_mass_positively_about_axis():
    # end mass 1 m from the joint along +x, torque +0.5 N m about +z: initial force 0.5 N along +y
    sim = make([{"name": "end", "mass": 1, "radius": 0.01, "at": [1, 0, 0]},
                {"name": "hip", "mass": 1, "radius": 0.01, "at": [0, 0, 0]}],
               [{"torque": ["end", "hip"], "axis": [0, 0, 1], "value": 0.5, "reaction": False},
                {"nail": ["hip"]}, {"spring": ["end", "hip"], "k": 1e4, "kd": 10}],
               world={"gravity": "off"}, dt=0.001)
    sim.step(1)
    assert sim.data.vel[0, 1] == pytest.approx(0.5 * 0.001, rel=1e-3)
    sim.step(999)
    r = sim.data.pos[0]
    angle = math.atan2(r[1], r[0])
    assert angle > 0  # counter-clockwise about +z
    assert angle == pytest.approx(0.5 * 0.5 * 1.0**2, rel=0.02)  # theta = tau t^2 / (2 m r^2)


def test_e14_two_body_circular_orbit():
    g_const, m1, m2, d = 1.0, 1.0, 1e-3, 1.0
    v = math.sqrt(g_const * (m1 + m2) / d)
    period = 2 * math.pi * math.sqrt(d**3 / (g_const * (m1 + m2)))
    # centre-of-mass frame: heavy body drifts opposite to keep zero total momentum
    sim = make([{"name": "sun", "mass": m1, "radius": 0.01, "at": [-d * m2 / (m1 + m2), 0, 0],
                 "velocity": [0, -v * m2 / (m1 + m2), 0]},
                {"name": "planet", "mass": m2, "radius": 0.01, "at": [d * m1 / (m1 + m2), 0, 0],
                 "velocity": [0, v * m1 / (m1 + m2), 0]}],
               [{"gravitation": "all", "G": g_const}], world={"gravity": "off"}, dt=0.001)

    def energy_of(s):
        p, u = s.data.pos, s.data.vel
        kinetic = 0.5 * (s.model.arrays.mass[:, None] * u * u).sum()
        return kinetic - g_const * m1 * m2 / np.linalg.norm(p[1] - p[0])

    e0 = energy_of(sim)
    prev = 0.0
    crossings = []
    for k in range(int(10.2 * period / 0.001)):
        sim.step(1)
        rel = sim.data.pos[1] - sim.data.pos[0]
        if prev < 0 <= rel[1] and rel[0] > 0:
            # linear interpolation of the +x axis crossing
            crossings.append(sim.data.time - 0.001 * rel[1] / (rel[1] - prev))
        prev = rel[1]
    assert len(crossings) == 10
    measured = (crossings[-1] - crossings[0]) / 9
    assert measured == pytest.approx(period, rel=1e-3)
    assert abs(energy_of(sim) / e0 - 1) < 1e-4


def test_e15_dt_max_falls_as_current_strengthens():
    """Seaweed-like chain in a current: the largest stable step shrinks with the current."""
    def chain(current):
        world = {"gravity": G, "media": [{"name": "water", "density": 1000, "drag": 1.0,
                                          "flow": {"type": "uniform", "velocity": [current, 0, 0]}}]}
        masses = [{"name": f"s{i}", "density": 950, "radius": 0.01, "at": [0, 0, 0.05 * i]} for i in range(6)]
        forces = [{"gravity": "all"}, {"fluid": "water", "masses": "all"}, {"nail": ["s0"]}]
        forces += [{"spring": [f"s{i}", f"s{i + 1}"], "k": 5, "kd": 0.01} for i in range(5)]
        return lambda dt: make(masses, forces, "rk4", dt=dt, world=world)

    slow = max_stable_step(chain(0.05), 3.0, lo=1e-3, hi=0.2, bound=10)
    fast = max_stable_step(chain(2.0), 3.0, lo=1e-3, hi=0.2, bound=10)
    assert fast < 0.8 * slow
    assert is_stable(chain(2.0)(fast), 3.0, bound=10) and not is_stable(chain(2.0)(slow), 3.0, bound=10)


def test_e16_explicit_association():
    sim = make([ball(1.0), {"name": "free", "mass": 1, "radius": 0.1, "at": [1, 0, 1]},
                {"name": "frozen", "mass": 1, "radius": 0.1, "at": [2, 0, 1], "integrate": False}],
               [{"gravity": ["b", "frozen"]}])
    sim.step(50)
    assert sim.data.pos[0, 2] < 1.0  # registered with gravity: falls
    assert sim.data.pos[1].tolist() == [1.0, 0.0, 1.0]  # not a gravity member: nothing acts
    assert sim.data.pos[2].tolist() == [2.0, 0.0, 1.0]  # not integrated: never moves
