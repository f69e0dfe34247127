"""Simulated contact tests with the digest's numbers (McKenna §9.2: B2-B7, B10, B11)."""
import math

import numpy as np
import pytest

from pipeline.errors import SimulationError
from pipeline.physics.contact import state as S
from pipeline.spec.types import ControllerRef

from contact_scenes import FLAT_ENV, free_body, quat_y, simulation

G = 9.8
CUBE = [0.01, 0.01, 0.01]  # 1 cm water cube: 1.000 g
REST_DEPTH = math.log1p(0.001 * G / (4 * 17.5)) / 3000  # digest B2: 4.666e-8 m


def env(**material):
    e = dict(FLAT_ENV)
    e["material"] = {**FLAT_ENV["material"], **material}
    return e


def test_b2_cube_comes_to_rest_at_the_exponential_spring_depth():
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 0.005 + 0.001])], duration=0.4, h=2e-5)
    rec = sim.run(progress=False)
    depth = 0.005 - rec.body_pos[-1, 0, 2]
    assert REST_DEPTH == pytest.approx(4.666e-8, rel=1e-3)
    assert depth == pytest.approx(REST_DEPTH, rel=0.01)
    assert np.abs(rec.body_pos[-1, 0, :2]).max() < 1e-12  # no lateral drift
    assert np.abs(rec.qd[-1]).max() < 1e-5  # at rest


def test_b3_rebound_apex_is_restitution_times_drop_height():
    h = 0.01
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 0.005 + h])], env=env(friction=0.0),
                     duration=0.11, h=2e-5)
    rec = sim.run(progress=False)
    z = rec.body_pos[:, 0, 2] - 0.005
    first_contact = np.argmax(z <= 0)
    apex = z[first_contact:].max()
    # force scaled by e while separating returns the fraction e of the energy: apex ~ e h
    assert apex == pytest.approx(0.5 * h, rel=0.03)
    assert not apex == pytest.approx(0.25 * h, rel=0.3)  # not e^2 h


def test_b4_sliding_cube_stops_after_the_coulomb_distance():
    v0 = 0.1
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 0.005 - REST_DEPTH], v=[v0, 0, 0])],
                     duration=0.05, h=1e-5)
    rec = sim.run(progress=False)
    x = rec.body_pos[:, 0, 0]
    vx = np.gradient(x, rec.time)
    assert x[-1] == pytest.approx(v0 ** 2 / (2 * 0.7 * G), rel=0.05)  # 7.29e-4 m
    assert x[-1] == pytest.approx(7.29e-4, rel=0.05)
    stop = rec.time[np.argmax(np.abs(vx) < 1e-4)]
    assert stop == pytest.approx(v0 / (0.7 * G), rel=0.05)  # 14.6 ms
    after = rec.time > stop + 0.005
    assert np.sqrt(np.mean(vx[after] ** 2)) < 1e-6  # stick-phase chatter stays bounded


def test_implicit_step_stops_a_sliding_cube_far_narrower_than_its_ramp():
    """B4 with the roach's implicit step and a Coulomb ramp 1000 times narrower than the
    speed friction takes off the cube in one 10 us step (mu g h = 6.9e-5 m/s against
    1e-7 m/s): the regime of the roach's feet, where a 0.1 mg foot carries mN and one step
    of friction is worth 1.3 m/s against the bundled 1e-4 m/s ramp. The step linearises
    sliding friction as a damper of its own strength (mu F_n / |v_t|), so the cube stops
    without passing through zero; with the law's exact slope (none along the slip) a
    stopping point overshot every step and chattered, and the roach's loaded feet slid at
    0.3 m/s in stance (docs/roach.md, D4)."""
    v0 = 0.1
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 0.005 - REST_DEPTH], v=[v0, 0, 0])],
                     env=env(slip_velocity=1e-7), duration=0.03, h=1e-5,
                     integrator="implicit_euler")
    rec = sim.run(progress=False)
    x = rec.body_pos[:, 0, 0]
    assert x[-1] == pytest.approx(v0 ** 2 / (2 * 0.7 * G), rel=0.01)  # 7.29e-4 m
    # the bottom corners' horizontal velocity: v + w x r in the body's (level) frame
    v, w = rec.qd[:, :3], rec.qd[:, 3:6]
    corners = np.array([[sx, sy, -0.005] for sx in (-0.005, 0.005) for sy in (-0.005, 0.005)])
    slip = v[:, None, :2] + np.cross(w[:, None, :], corners[None])[:, :, :2]
    stop = v0 / (0.7 * G)  # 14.6 ms
    assert rec.time[np.argmax(slip[:, 0, 0] < 1e-6)] == pytest.approx(stop, rel=0.05)
    assert slip[:, :, 0].min() > -1e-7  # never slides back
    assert np.abs(slip[rec.time > stop + 0.002]).max() < 1e-6  # stopped, no chatter


SLOPE = {"gravity": 9.8, "material": FLAT_ENV["material"]}


def slope_sim(angle_deg, duration, mu=0.7, model="coulomb"):
    a = math.radians(angle_deg)
    environment = dict(SLOPE, ground={"type": "grid", "spacing": 0.1,
                                      "generate": {"size": [1.0, 1.0], "slope": {"angle": a}}})
    environment["material"] = {**SLOPE["material"], "friction": mu, "friction_model": model}
    n = np.array([-math.sin(a), 0.0, math.cos(a)])
    pos = (0.005 - REST_DEPTH) * n
    return simulation([free_body("cube", "box", CUBE, pos, quat=quat_y(-a))], env=environment,
                      duration=duration, h=1e-5), np.array([math.cos(a), 0.0, math.sin(a)])


def test_b5_box_holds_on_30_degrees_and_slides_on_40_at_mu_07():
    sim, up = slope_sim(30, 0.2)
    rec = sim.run(progress=False)
    along = (rec.body_pos[:, 0] - rec.body_pos[0, 0]) @ up
    # regularised Coulomb: it creeps at slip_velocity tan(30)/mu = 8.2e-5 m/s at most
    assert -along[-1] < 1e-4 * math.tan(math.radians(30)) / 0.7 * 0.2 * 1.05
    assert np.abs(rec.body_pos[:, 0, 1]).max() < 1e-12  # no sideways motion

    sim, up = slope_sim(40, 0.2)
    rec = sim.run(progress=False)
    along = (rec.body_pos[:, 0] - rec.body_pos[0, 0]) @ up
    a = G * (math.sin(math.radians(40)) - 0.7 * math.cos(math.radians(40)))
    assert -along[-1] == pytest.approx(0.5 * a * 0.2 ** 2, rel=0.05)


def test_friction_model_2_holds_on_30_degrees_without_creep():
    sim, up = slope_sim(30, 0.1, model="spring")
    rec = sim.run(progress=False)
    along = (rec.body_pos[:, 0] - rec.body_pos[0, 0]) @ up
    # the anchors slip only while the release transient exceeds mu Fn, then hold for good
    cap_stretch = 0.7 * 0.001 * G * math.cos(math.radians(30)) / (4 * 5000.0)
    assert abs(along[-1]) < 5 * cap_stretch
    # at rest: regularised Coulomb would creep 3.4e-6 m over these last 100 frames
    assert abs(along[-1] - along[-100]) < 1e-9
    f = sim.sensors.contact_wrenches()[0, 3:]
    # the contact carries the weight exactly but for a decaying 1e-10 m vibration
    assert np.allclose(f, [0, 0, 0.001 * G], rtol=0, atol=1e-3 * 0.001 * G)


PULL_RATE = 0.1  # N/s: slow against the foot's 18 Hz sticky-spring vibration (quasi-static)


def ramp_pull(sim, t, params):
    """Python controller: a horizontal pull growing at PULL_RATE, at the foot's sole."""
    sim.command("push", {"body": "foot", "force": [PULL_RATE * t, 0, 0], "point": [0, 0, -0.001],
                         "duration": sim.dt})


def test_b6_sticky_foot_holds_a_ramped_pull_until_the_break_stretch_then_reanchors():
    # a 2 x 2 x 0.2 cm steel plate foot on frictionless ground, a sticky spring per corner
    alpha, beta, max_stretch = 0.01, 1000.0, 1e-3
    sticky = {"exp_alpha": alpha, "exp_beta": beta, "max_stretch": max_stretch, "restitution": 0.5}
    foot = free_body("foot", "box", [0.02, 0.02, 0.002], [0, 0, 0.001 - 1e-7], sticky=True,
                     density=8000.0)
    ctrl = ControllerRef(kind="python", python="test_contact_sim:ramp_pull")
    sim = simulation([foot], env=env(friction=0.0, sticky=sticky), duration=0.8, h=5e-5,
                     controllers=[ctrl], timeline=[(0.8, "sticky", {"body": "foot", "on": False})])
    rec = sim.run(progress=False)
    t, x = rec.time, rec.body_pos[:, 0, 0]
    pull = PULL_RATE * (t - sim.dt / 2)  # the mean pull over the frame before each record
    f_break = 4 * alpha * math.expm1(beta * max_stretch)  # 0.0687 N
    # the foot vibrates slightly about the quasi-static stretch: average over 60 ms windows
    window = np.ones(int(0.06 / sim.dt)) / int(0.06 / sim.dt)
    mean_x = np.convolve(x, window, "valid")
    mean_pull = np.convolve(pull, window, "valid")
    hold = (mean_pull > 0.02) & (mean_pull < 0.9 * f_break)  # past the start-up transient
    expected = np.log1p(mean_pull[hold] / (4 * alpha)) / beta  # the springs' stretch
    assert np.abs(mean_x[hold] / expected - 1).max() < 0.02
    # it lets go once the stretch reaches max_stretch, i.e. near the break force
    slip = np.argmax(x > max_stretch)
    assert x[:slip].max() == pytest.approx(max_stretch, rel=0.02)
    assert pull[slip] == pytest.approx(f_break, rel=0.1)
    # then it slides, breaking and re-anchoring; `sticky off` at 0.8 s releases every anchor
    assert x[-1] > 2 * max_stretch
    sim.step(1)
    c = sim.model.contact
    assert sim.data.cstate[c.layout[S.LAYOUT_STICKY]] == 0.0
    anchors = c.layout[S.LAYOUT_ANCHORS] + S.ANCHOR_STRIDE * np.arange(len(c.point_body))
    assert not sim.data.cstate[anchors + 3].any()


def test_b7_attach_conserves_momentum_and_breaks():
    e = {"gravity": "off", "ground": {"type": "none"},
         "attach": [{"body1": "a", "point1": [0.005, 0, 0], "body2": "b", "point2": [-0.005, 0, 0],
                     "k": 0.5, "exp_alpha": 0.001, "exp_beta": 200.0, "restitution": 0.5,
                     "break_length": 0.015}]}
    a = free_body("a", "box", CUBE, [0, 0, 0], v=[-0.1, 0.01, 0], w=[1, 2, 3])
    b = free_body("b", "box", [0.01, 0.02, 0.01], [0.02, 0.001, 0], v=[1.0, -0.01, 0.03], w=[-2, 0, 1])
    sim = simulation([a, b], env=e, duration=0.5, h=1e-4)
    rec = sim.run(progress=False)
    m = sim.model.tree.mass
    v = np.gradient(rec.body_pos, rec.time, axis=0)  # body origins are the COMs (centred boxes)
    momentum = np.einsum("b,tbk->tk", m, v[1:-1])
    # the spring pulls, restitution damps, and the link breaks when stretched past 1.5 cm
    assert sim.data.cstate[sim.model.contact.layout[S.LAYOUT_ATTACH]] == 1.0
    qd = rec.qd
    p = []
    for k in range(len(rec.time)):
        vw = [sim_world_velocity(rec.body_quat[k, j], qd[k, 6 * j:6 * j + 3]) for j in range(2)]
        p.append(m[0] * vw[0] + m[1] * vw[1])
    p = np.array(p)
    assert np.abs(p - p[0]).max() < 1e-12 * max(1.0, np.abs(p[0]).max()) + 1e-16
    assert np.abs(momentum - p[1:-1]).max() < 1e-6  # same momentum from the trajectory


def sim_world_velocity(quat, v_body):
    w, x, y, z = quat
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return R @ v_body


@pytest.mark.parametrize("gravity, expected", [
    (1.62, [0, 0, -1.62]), ("off", [0, 0, 0]), ("on", [0, 0, -9.8]), ([0.5, 0, -3.0], [0.5, 0, -3.0]), (9.8, [0, 0, -9.8])])
def test_b10_gravity_options(gravity, expected):
    e = {"gravity": gravity, "ground": {"type": "none"}}
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 1.0])], env=e, duration=0.1,
                     dt=1 / 240, h=1 / 2400)
    rec = sim.run(progress=False)
    t = rec.time
    drop = rec.body_pos[:, 0] - rec.body_pos[0, 0]
    assert np.allclose(drop, 0.5 * np.outer(t ** 2, expected), atol=1e-12)


def test_gravity_command_switches_off_mid_run():
    timeline = [(0.05, "gravity", "off")]
    e = {"gravity": 9.8, "ground": {"type": "none"}}
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 1.0])], env=e, duration=0.1,
                     dt=1 / 240, h=1 / 2400, timeline=timeline)
    rec = sim.run(progress=False)
    vz = rec.qd[:, 2]
    assert vz[-1] == pytest.approx(-9.8 * 0.05, rel=1e-12)


def test_b11_box_dropped_on_a_fixed_box_rests_on_its_face_equal_and_opposite():
    # frictionless: the regularised Coulomb law would need h < 1e-6 s under the impact load
    col = {"pairs": [["cube", "table"]], "exp_alpha": 17.5, "exp_beta": 3000.0,
           "restitution": 0.5, "friction": 0.0, "max_depth": 0.01}
    e = {"gravity": 9.8, "ground": {"type": "none"}, "collision": col}
    table = free_body("table", "box", [0.1, 0.1, 0.02], [0, 0, 0], root="fixed")
    cube = free_body("cube", "box", CUBE, [0.01, -0.02, 0.01 + 0.005 + 0.001])
    ctrl = ControllerRef(kind="python", python="pipeline.simulate.sensors:record_contact_forces")
    sim = simulation([table, cube], env=e, duration=0.4, h=2e-5, controllers=[ctrl])
    rec = sim.run(progress=False)
    # repelled along the penetrated (top) face normal: rests at the collision spring depth
    depth = 0.01 + 0.005 - rec.body_pos[-1, 1, 2]
    assert depth == pytest.approx(REST_DEPTH, rel=0.01)
    assert np.abs(rec.body_pos[-1, 1, :2] - [0.01, -0.02]).max() < 1e-9
    f = rec.channels["contact_force"][-1]  # saved as ch_contact_force
    assert f[1, 5] == pytest.approx(0.001 * G, rel=1e-4)
    assert np.abs(f[0, 3:] + f[1, 3:]).max() < 1e-15  # equal and opposite


def test_ground_and_material_commands():
    timeline = [(0.02, "material", {"friction": 0.0}), (0.04, "ground", {"on": False})]
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 0.005 - REST_DEPTH], v=[0.5, 0, 0])],
                     duration=0.06, h=1e-5, timeline=timeline)
    rec = sim.run(progress=False)
    t, x = rec.time, rec.body_pos[:, 0, 0]
    vx = np.gradient(x, t)
    assert vx[(t > 0.005) & (t < 0.015)].mean() < 0.5 - 0.7 * G * 0.005  # sliding friction
    free = (t > 0.025) & (t < 0.035)
    assert np.ptp(vx[free]) < 1e-6  # friction 0: constant speed
    assert rec.body_pos[-1, 0, 2] < 0.005 - 0.5 * G * 0.015 ** 2  # ground off: falls through


def test_unstable_contact_stops_with_a_clear_message():
    # 1 mm deep in a ground with beta = 1e6 / m: e^1000 overflows at once
    sim = simulation([free_body("cube", "box", CUBE, [0, 0, 0.004])], env=env(exp_beta=1e6),
                     duration=0.1, dt=1 / 240, h=1 / 240)
    with pytest.raises(SimulationError, match=r"unstable at t = .*'cube'"):
        sim.run(progress=False)


def test_b8_joint_damper_decay():
    # digest B8: one rotary body, fixed root, no gravity, only b: qd = qd0 exp(-b t / I)
    from pipeline.spec.types import Body, Creature, Geom, Joint, JointForces, Pose

    b, qd0, size = 2e-5, 3.0, (0.1, 0.02, 0.02)  # decay rate b / I = 0.58 / s
    body = Body(name="bar", parent=None, placement=Pose(),
                joint=Joint(type="revolute", axes=((0.0, 0.0, 1.0),), qd0=(qd0,),
                            forces=JointForces(damping=b)),
                geoms=(Geom(shape="box", size=size, density=1000.0),))
    sim = simulation([Creature(name="bar", bodies=(body,))], env={"gravity": "off", "ground": {"type": "none"}},
                     duration=0.5, dt=1 / 240, h=1 / 2400)
    rec = sim.run(progress=False)
    m = 1000.0 * size[0] * size[1] * size[2]
    inertia = m * (size[0] ** 2 + size[1] ** 2) / 12
    assert np.allclose(rec.qd[:, 0], qd0 * np.exp(-b * rec.time / inertia), rtol=1e-8, atol=0)


def test_contact_state_through_rejected_rkf45_steps():
    # sticky anchors and friction anchors are committed only on accepted steps: an adaptive
    # run that rejects many steps lands where a fine fixed-step run does
    e = env(friction_model="spring", sticky={"exp_alpha": 0.1, "exp_beta": 1000.0,
                                             "max_stretch": 1e-3, "restitution": 0.5})
    runs = []
    for integrator, h in (("rkf45", 1e-3), ("rk4", 1e-5)):
        cube = free_body("cube", "box", CUBE, [0, 0, 0.006], sticky=True, v=[0.05, 0, 0])
        sim = simulation([cube], env=e, duration=0.2, h=h, integrator=integrator)
        rec = sim.run(progress=False)
        c = sim.model.contact
        flags = sim.data.cstate[c.layout[S.LAYOUT_ANCHORS] + S.ANCHOR_STRIDE * np.arange(8) + 3]
        runs.append((rec, sim.stats(), flags[c.point_pos[:, 2] < 0]))
    (adaptive, stats, stuck), (fixed, _, stuck_fixed) = runs
    assert stats["rejected_steps"] > 100
    assert adaptive.body_pos[-1, 0, 0] == pytest.approx(fixed.body_pos[-1, 0, 0], rel=0.01)
    assert stuck.all() and stuck_fixed.all()  # the bottom corners ended anchored in both
    assert np.abs(adaptive.qd[-1]).max() < 1e-3 and np.abs(fixed.qd[-1]).max() < 1e-3
