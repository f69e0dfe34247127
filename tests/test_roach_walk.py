"""Walking benchmarks D2-D6 and the C4 transition with the full dynamics (McKenna digest
§9.4). Each simulates seconds of a 38-DOF roach on penalty contacts, so all are slow; every
scene runs once per module and the tests share the recordings.

D3/D4 measure the abdomen's heading_speed over t in [0.5, 2.5] s (docs/metrics.md): its
horizontal motion along its own heading, per second, and its net speed: displacement along
the window's mean heading per second. The thesis reports 5.5 cm/s (sliding friction) and
8.0 cm/s (sticky feet) for a roach that walks straight (D5: |heading change| <= 15 deg over
the window, issue 15).
"""
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.export.ground import terrain_of
from pipeline.simulate.metrics import heading, heading_speed, speed

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
WINDOW = (0.5, 2.5)


def run(scene, duration):
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / scene))
    return sim, sim.run(duration=duration, progress=False)


def yaw(quat):
    w, x, y, z = quat.T
    return np.unwrap(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def roll_pitch(quat):
    w, x, y, z = quat.T
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1, 1))
    return roll, pitch


def window(rec, t0, t1):
    return slice(*np.searchsorted(rec.time, [t0 - 1e-9, t1 + 1e-9]))


def net_speed(rec, t0=WINDOW[0], t1=WINDOW[1]):
    """Net displacement over the window along the window's mean heading, per second."""
    direction = heading(rec.body_quat[window(rec, t0, t1), rec.body_index("abdomen")]).mean(axis=0)
    return speed(rec, None, "abdomen", [*direction, 0.0], t0, t1)


def heading_change_deg(rec, t0, t1):
    psi = np.degrees(yaw(rec.body_quat[:, rec.body_index("abdomen")]))
    i0, i1 = np.searchsorted(rec.time, [t0 - 1e-9, t1 - 1e-9])
    return psi[i1] - psi[i0]


@pytest.fixture(scope="module")
def tripod():
    return run("roach_tripod.yaml", WINDOW[1])


@pytest.fixture(scope="module")
def sticky():
    return run("roach_sticky.yaml", WINDOW[1])


@pytest.fixture(scope="module")
def tripod_coulomb():
    """roach_tripod under corpus's own sliding law (`groundfric 0.7`, friction model 1)
    instead of the bundled capped anchor spring (docs/roach.md, D4)."""
    coulomb = {"use": "../environments/flat.yaml",
               "with": {"material": {"friction_model": "coulomb"}}}
    spec = pipeline.load({"scene": "roach_tripod_coulomb", "use": "roach_tripod.yaml",
                          "environment": coulomb}, base_dir=ROOT / "scenes")
    sim = pipeline.compile(spec)
    return sim, sim.run(duration=WINDOW[1], progress=False)


def test_d2_drop_and_stand():
    sim, rec = run("roach_drop.yaml", 1.5)
    assert np.all(np.isfinite(rec.q))
    settled = rec.time >= 0.5
    z = rec.body_pos[settled, rec.body_index("abdomen"), 2]
    assert z.min() > 0.004 and np.ptp(z) < 0.002  # stands: the abdomen stays up and still
    roll, pitch = roll_pitch(rec.body_quat[settled, rec.body_index("abdomen")])
    assert np.abs(roll).max() < 0.1 and np.abs(pitch).max() < 0.5
    assert rec.channels["gait_swing"].sum() == 0  # parked gait
    # only the ends of the legs carry ground force: the tarsi (leg_xx3, leg_xx4) and the
    # distal corners of the tibiae (leg_xx2), whose 0.5-0.7 mm boxes reach below the 0.35 mm
    # tarsi at the joint between them; at most the abdomen tip besides
    from pipeline.physics import forward_kinematics

    model, contact = sim.model, sim.model.contact
    fz = sim.sensors.contact_wrenches()[:, 5]
    touching = {model.body_names[b] for b in np.flatnonzero(fz > 1e-9)}
    legs = ("fl", "fr", "ml", "mr", "bl", "br")
    assert touching - {"abdomen"} <= {f"leg_{leg}{i}" for leg in legs for i in (2, 3, 4)}
    xpos, xrot, _ = forward_kinematics(model, sim.data.q, sim.data.qd)
    for name in touching & {f"leg_{leg}2" for leg in legs}:
        b = model.body_names.index(name)
        points = contact.point_pos[contact.point_body == b]
        z = xpos[b, 2] + points @ xrot[b][2]
        length = np.abs(points[:, 1]).max()
        assert np.all(np.abs(points[z <= 0.0, 1]) == length)  # the distal end only
    assert fz.sum() == pytest.approx(model.total_mass * 9.8, rel=0.05)


def test_d3_tripod_sliding_friction(tripod):
    _, rec = tripod
    assert 0.035 <= heading_speed(rec, None, "abdomen", *WINDOW) <= 0.075
    assert 0.035 <= net_speed(rec) <= 0.075  # thesis 5.5 cm/s, walking straight
    swing = rec.channels["gait_swing"]
    walking = rec.time > 0.25  # the gait starts at 0.2 s, its first step at 0.225 s
    # legs step in tripod groups: FL+MR+BL or FR+ML+BR swing together
    groups = {tuple(np.flatnonzero(row)) for row in swing[walking]}
    assert groups <= {(0, 3, 4), (1, 2, 5)}


def test_d4_sticky_feet_faster_than_sliding(tripod, sticky):
    _, rec = sticky
    assert 0.06 <= heading_speed(rec, None, "abdomen", *WINDOW) <= 0.10
    assert 0.06 <= net_speed(rec) <= 0.10  # thesis 8.0 cm/s
    assert net_speed(rec) >= 1.15 * net_speed(tripod[1])  # thesis: 1.45 times


def test_d3_tripod_under_coulomb_friction(tripod_coulomb):
    """Under the thesis's sliding law the tripod walks as under the anchor spring: its
    loaded feet hold (it turned -179 deg while the implicit step let them chatter)."""
    _, rec = tripod_coulomb
    assert 0.035 <= net_speed(rec) <= 0.075


@pytest.mark.parametrize("scene", ["tripod", "sticky", "tripod_coulomb"])
def test_d5_walks_straight(scene, request):
    """A wiggle within a cycle, no turn: the heading changes by at most 15 deg over the
    window (it was -150 deg before the tarsal stops, docs/roach.md; under Coulomb friction
    -179 deg before the implicit step took sliding friction as a damper)."""
    _, rec = request.getfixturevalue(scene)
    assert abs(heading_change_deg(rec, *WINDOW)) <= 15.0


@pytest.mark.parametrize("scene", ["tripod", "sticky"])
def test_d5_no_start_up_turn(scene, request):
    """The gait starts once the roach stands (t = 0.2 s), so the first cycles do not turn it;
    the wiggle at the stride frequency is there from the first cycles."""
    _, rec = request.getfixturevalue(scene)
    assert abs(heading_change_deg(rec, 0.0, 0.5)) < 10.0
    psi = np.degrees(yaw(rec.body_quat[:, rec.body_index("abdomen")]))
    cycles = [window(rec, t0, t0 + 0.1) for t0 in np.arange(0.5, 2.45, 0.1)]
    assert min(np.ptp(psi[c]) for c in cycles) > 2.0


def test_d6_wave_gait_crosses_rough_terrain():
    sim, rec = run("roach_wave_terrain.yaml", 4.0)
    b = rec.body_index("abdomen")
    # walked, not dropped: from where it stands when the gait starts (the scene's `go` at
    # 0.25 s); the drop onto the slopes alone moves it 0.5 cm
    start = np.searchsorted(rec.time, 0.25)
    assert np.linalg.norm(rec.body_pos[-1, b, :2] - rec.body_pos[start, b, :2]) >= 0.029  # a body length
    # and walked, not leapt: its abdomen is 1.2 cm (median) to 1.7 cm above the ground under
    # it while it walks; a hind leg kicking it off the ground (docs/roach.md, D6) lifted it
    # to 2.0 cm
    x, y, z = rec.body_pos[start:, b].T
    assert (z - terrain_of(sim.model, sim.scene.environment).height(x, y)).max() < 0.018
    roll, pitch = roll_pitch(rec.body_quat[:, rec.body_index("abdomen")])
    assert np.abs(roll).max() < np.pi / 4 and np.abs(pitch).max() < np.pi / 4
    assert rec.channels["gait_swing"].sum(axis=1).max() == 1  # one leg steps at a time


def test_c4_transition_ends_in_tripod_while_walking():
    _, rec = run("roach_gait_transition.yaml", 3.5)
    swing = rec.channels["gait_swing"]
    assert np.all(np.isfinite(rec.q))
    assert {tuple(np.flatnonzero(r)) for r in swing[rec.time > 2.6]} <= {(0, 3, 4), (1, 2, 5)}
    assert swing[rec.time < 0.5].sum(axis=1).max() <= 1
