"""Body-body contact by exact shapes in the simulation (environment `collision.shapes`):
rest depths from the collision spring law, rebound, conservation, and which pairs collide."""
import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from pipeline.physics import forward_kinematics
from pipeline.physics.contact.bodies import make_shape_scratch
from pipeline.physics.contact.forces import contact_forces
from pipeline.spec.types import Joint, Pose

from contact_scenes import free_body, simulation
from simulation_helpers import momentum

G = 9.8
ALPHA, BETA = 50.0, 300.0
# RK4 at h = 1e-4 s against a 1e-12 reference: the error is 4.1e-7 m and falls to 6.3e-8 m
# at h = 5e-5 s (measured), so it is the step's; the force's kink at touch-down keeps RK4
# from its fourth order there
TRAJECTORY_TOL = 1e-6


def env(gravity=G, **collision):
    return {"gravity": gravity, "ground": {"type": "none"},
            "material": {"slip_velocity": 0.02},
            "collision": {"shapes": True, "exp_alpha": ALPHA, "exp_beta": BETA,
                          "max_depth": 0.02, "restitution": 0.5, "friction": 0.7, **collision}}


def rest_depth(weight, points):
    """Depth at which `points` equal collision springs alpha (e^(beta d) - 1) carry `weight`."""
    return math.log1p(weight / (points * ALPHA)) / BETA


TABLE = free_body("table", "box", [0.4, 0.4, 0.1], [0, 0, -0.05], root="fixed")


def test_sphere_rests_on_a_static_box_at_the_one_point_spring_depth():
    r = 0.05
    sim = simulation([free_body("ball", "sphere", [r], [0, 0, r + 1e-3]), TABLE], env=env(),
                     duration=1.0, h=1e-4)
    rec = sim.run(progress=False)
    m = sim.model.tree.mass[0]
    depth = r - rec.body_pos[-1, 0, 2]
    assert depth == pytest.approx(rest_depth(m * G, 1), rel=1e-3)
    assert np.abs(rec.body_pos[-1, 0, :2]).max() < 1e-12  # pushed straight up


def test_box_rests_on_a_box_on_four_corners():
    """A one-point contact would sink 4x as deep (nearly: the spring is exponential)."""
    sim = simulation([free_body("cube", "box", [0.1, 0.1, 0.1], [0.03, -0.02, 0.05 + 1e-3]), TABLE],
                     env=env(), duration=1.0, h=1e-4)
    rec = sim.run(progress=False)
    m = sim.model.tree.mass[0]
    depth = 0.05 - rec.body_pos[-1, 0, 2]
    assert depth == pytest.approx(rest_depth(m * G, 4), rel=1e-3)
    assert np.abs(rec.body_quat[-1, 0] - [1, 0, 0, 0]).max() < 1e-9  # level, not rocking
    assert np.abs(rec.body_pos[-1, 0, :2] - [0.03, -0.02]).max() < 1e-9


def test_rebound_apex_matches_the_one_dimensional_contact_law():
    """A ball dropped 2 cm on a table against the same law solved in 1-D by scipy: the
    spring alpha (e^(beta d) - 1), scaled by e once the ball leaves faster than the
    restitution velocity (1 cm/s), ramping in between. Not e h (digest B3): at 3 mm deep,
    the ball's weight does work e loses, so the apex is e h - (1 - e) d_max."""
    r, h, e, ramp = 0.05, 0.02, 0.5, 0.01
    sim = simulation([free_body("ball", "sphere", [r], [0, 0, r + h]), TABLE], env=env(friction=0.0),
                     duration=0.3, h=1e-4)
    rec = sim.run(progress=False)
    m = sim.model.tree.mass[0]
    z = rec.body_pos[:, 0, 2] - r
    first = np.argmax(z <= 0)

    def fall(t, y):
        depth, v = -y[0], y[1]
        scale = 1.0 if v <= 0.0 else e if v >= ramp else 1.0 - (1.0 - e) * v / ramp
        push = ALPHA * math.expm1(BETA * depth) * scale if depth > 0.0 else 0.0
        return [v, -G + push / m]

    ref = solve_ivp(fall, (0.0, 0.3), [h, 0.0], method="DOP853", rtol=1e-12, atol=1e-14,
                    max_step=1e-4, dense_output=True).sol(rec.time)[0]
    assert z.min() < -3e-3 and z[first:].max() > 8e-3  # 3 mm deep, back up 8 mm
    assert np.abs(z - ref).max() < TRAJECTORY_TOL


def test_glancing_collision_conserves_momentum():
    """The forces at every contact point are equal and opposite: at each frame of a glancing
    collision (no gravity) the net force and the net torque about the world origin vanish to
    roundoff, and linear and angular momentum keep to roundoff at h = 1e-5 s. (At 1e-4 s they
    drift by 4e-6: RK4 integrates body-frame velocities, whose product with the rotation is
    exact only to the step's truncation error at the contact's stiffness.)"""
    a = free_body("a", "box", [0.1, 0.06, 0.08], [-0.2, 0.03, 0.0], v=[1.5, 0.0, 0.1], w=[0, 2, 1])
    b = free_body("b", "capsule", [0.04, 0.1], [0.0, -0.02, 0.01], v=[-0.5, 0.1, 0.0], w=[3, 0, 0])
    sim = simulation([a, b], env=env(gravity="off"), duration=0.4, h=1e-5)
    P0, L0 = momentum(sim)
    v0 = sim.data.qd.copy()
    peak = 0.0
    for _ in range(int(round(0.4 * 2400))):
        sim.step(1)
        xpos, xrot, vb = forward_kinematics(sim.model, sim.data.q, sim.data.qd)
        fext = np.zeros((2, 6))
        contact_forces(sim.model.contact, 0.0, sim.data.cstate, sim.data.cstate.copy(), xpos,
                       xrot, vb, fext, make_shape_scratch())
        size = np.abs(fext).max()
        peak = max(peak, size)
        assert np.abs(fext[:, 3:].sum(0)).max() <= 1e-15 * size
        assert np.abs((fext[:, :3] + np.cross(xpos, fext[:, 3:])).sum(0)).max() <= 1e-14 * size
    P1, L1 = momentum(sim)
    assert peak > 10.0 and not np.allclose(sim.data.qd, v0, atol=0.1)  # they did collide
    assert np.abs(P1 - P0).max() < 1e-11  # roundoff of 40 000 steps (2.3e-12 measured)
    assert np.abs(L1 - L0).max() < 1e-11


def test_pairs_follow_creatures_statics_self_and_filters():
    """Pairs: bodies of different trees, never two statics; `self` adds a creature's own
    bodies but never a body and its parent; `ignore` names bodies, creatures or groups."""
    root = free_body("chain", "box", [0.1, 0.1, 0.1], [0, 0, 1.0])
    link = root.bodies[0]
    links = tuple(replace(link, name=f"l{i}", parent=prev, placement=Pose((0.2, 0.0, 0.0)),
                          joint=Joint(type="revolute", axes=((0.0, 0.0, 1.0),)))
                  for i, prev in ((1, "chain"), (2, "l1")))
    chain = replace(root, bodies=(link,) + links)
    ball = free_body("ball", "sphere", [0.05], [2, 0, 1])
    walls = [free_body(f"wall{i}", "box", [0.1, 0.1, 0.1], [5 + i, 0, 0], root="fixed")
             for i in range(2)]

    def pairs(**collision):
        sim = simulation([chain, ball] + walls, env=env(**collision), duration=0.0)
        names = sim.model.body_names
        return {tuple(sorted((names[a], names[b]))) for a, b in sim.model.contact.shapes.pair}

    links = ("chain", "l1", "l2")
    others = {("ball", c) for c in links} | {("ball", "wall0"), ("ball", "wall1")} | {
        (c, w) for c in links for w in ("wall0", "wall1")}
    assert pairs() == others
    assert pairs(self=True) == others | {("chain", "l2")}
    assert pairs(ignore=[["ball", "walls"]], groups={"walls": ["wall0", "wall1"]}) == \
        others - {("ball", "wall0"), ("ball", "wall1")}
    assert pairs(ignore=[["chain", "ball"], ["l1", "wall0"]]) == \
        others - {("ball", c) for c in links} - {("l1", "wall0")}
