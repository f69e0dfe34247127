"""Urban's roobot (digest §3, tests R1-R3, R7): sensors, passive instability, the FSM cycle,
torque gating, and the 60 s hop of scenes/roobot_hop.yaml."""
import math
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.particles.simulation import compile_particles
from pipeline.particles.spec import resolve_particles, scene_of
from pipeline.particles.types import World
from pipeline.spec.loader import read_file

ROOT = Path(__file__).resolve().parents[1]
STANCE, LEAP, LAUNCH, FLIGHT = range(4)


def roobot(controller=True, scaling=None):
    doc = read_file(ROOT / "creatures" / "roobot.yaml")
    if not controller:
        del doc["controller"]
    if scaling:
        doc["sensors"][1]["scaling"] = scaling
    c = resolve_particles(doc)
    return compile_particles(scene_of(c, World(), name="r", duration=10, dt=1 / 500))


def levels(sim, hip, foot, v_hip=(0, 0, 0), v_foot=(0, 0, 0)):
    """The sensor levels with hip and foot placed (a fork of `sim`, which stays as it was)."""
    probe = sim.fork()
    probe.data.pos[:2] = hip, foot
    probe.data.vel[:2] = v_hip, v_foot
    return probe.sensor_levels(probe.data.controllers[0].creature)


def test_r3_sensors_on_scripted_poses():
    sim = roobot()
    lv = levels(sim, (0.1, 0, 0.42), (0.0, 0, 0.02), v_hip=(0.4, 0, 0), v_foot=(0, 0, 1.0))
    assert lv["leg_angle"] == pytest.approx(0.5 + math.atan(0.25) * math.pi / 2, abs=1e-12)
    assert lv["foot_height"] == 0.0
    assert lv["speed"] == pytest.approx(0.4)
    assert lv["hip_vx"] == pytest.approx(0.4)
    # Urban's precedence quirk saturates the leg angle at 1/pi rad = 18.2 degrees
    assert levels(sim, (math.tan(1 / math.pi - 0.01) * 0.4, 0, 0.42), (0, 0, 0.02))["leg_angle"] < 1.0
    assert levels(sim, (math.tan(1 / math.pi + 0.01) * 0.4, 0, 0.42), (0, 0, 0.02))["leg_angle"] == 1.0
    assert levels(sim, (-0.05, 0, 0.47), (0, 0, 0.02))["leg_angle"] == pytest.approx(
        0.5 - math.atan(0.05 / 0.45) * math.pi / 2, abs=1e-12)
    fixed = roobot(scaling="fixed")
    assert levels(fixed, (0.1, 0, 0.42), (0, 0, 0.02))["leg_angle"] == pytest.approx(
        0.5 + math.atan(0.25) / (2 * math.pi), abs=1e-12)
    # foot in the air, rising at 1 m/s: ballistic time to fall h = 0.5 m
    lv = levels(sim, (0, 0, 0.9), (0, 0, 0.52), v_hip=(-0.3, 0, 0), v_foot=(0, 0, 1.0))
    assert lv["foot_height"] == pytest.approx(0.5)
    assert lv["touchdown"] == pytest.approx((1 + math.sqrt(1 + 2 * 9.8 * 0.5)) / 9.8, rel=1e-12)
    assert lv["speed"] == 0.0  # backward motion reads 0
    assert lv["hip_vx"] == pytest.approx(-0.3)
    assert levels(sim, (0, 0, 2.5), (0, 0, 2.0), v_hip=(3, 0, 0))["foot_height"] == 1.0
    assert levels(sim, (0, 0, 2.5), (0, 0, 2.0), v_hip=(3, 0, 0))["speed"] == 1.0


def test_r1_falls_over_when_left_alone():
    """Actuators held at their reset levels: the roobot topples (here backwards, onto its tail)."""
    sim = roobot(controller=False)
    radius = sim.model.arrays.radius
    body = [sim.model.body_names.index(n) for n in ("hip", "head", "tail1", "tail2")]
    for _ in range(1500):
        sim.step(1)
        if (sim.data.pos[body, 2] - radius[body] <= 1e-6).any():
            break
    assert sim.data.time < 3.0, "a body mass should reach the floor within 3 s"
    leg = sim.data.pos[0] - sim.data.pos[1]
    assert math.degrees(math.atan2(abs(leg[0]), leg[2])) > 40


def run_with_log(seconds):
    sim = pipeline.compile(pipeline.load(ROOT / "scenes" / "roobot_hop.yaml"))
    states, hip_tq, ankle_tq, hip_z = [], [], [], []
    for _ in range(int(round(seconds / sim.dt))):
        sim.step(1)
        states.append(sim.data.channels["fsm_state"])
        hip_tq.append(sim.data.live.tq_torque[0])
        ankle_tq.append(sim.data.live.tq_torque[1])
        hip_z.append(sim.data.pos[0, 2])
    return sim, np.array(states), np.array(hip_tq), np.array(ankle_tq), np.array(hip_z)


@pytest.fixture(scope="module")
def sixty_seconds():
    """scenes/roobot_hop.yaml for its full minute, logged per frame."""
    return run_with_log(60.0)


def test_r2_fsm_cycles_stance_leap_launch_flight(sixty_seconds):
    _, states, _, _, _ = sixty_seconds
    changes = states[np.r_[True, states[1:] != states[:-1]]]
    assert changes[0] == STANCE
    assert (np.diff(changes) % 4 == 1).all(), "states must cycle strictly 0 -> 1 -> 2 -> 3 -> 0"
    assert (changes == FLIGHT).sum() >= 60


def test_r2_torque_gating(sixty_seconds):
    _, states, hip, ankle, _ = sixty_seconds
    touchdown = np.r_[False, (states[1:] == STANCE) & (states[:-1] == FLIGHT)]
    # Urban's FLIGHT -> STANCE branch leaves the hip level for the touchdown frame only
    assert (hip[(states == STANCE) & ~touchdown] == 0.0).all()
    assert (ankle[states == FLIGHT] == 0.0).all()
    assert np.abs(hip[states == FLIGHT]).max() > 0 and np.abs(ankle[states == STANCE]).max() > 0


def test_r7_hops_forward_for_sixty_seconds(sixty_seconds):
    sim, _, _, _, hip_z = sixty_seconds
    assert sim.data.time == pytest.approx(60.0)
    assert hip_z.min() > 0.05 + 1e-6  # the hip never touches the floor
    assert sim.data.pos[0, 0] / 60.0 >= 0.3  # mean forward speed (ours: ~0.83 m/s)


def test_heading_places_the_plane_of_motion():
    """Urban's heading variable: the scene's `at` rotation turns the hopping plane."""
    doc = read_file(ROOT / "creatures" / "roobot.yaml")
    plain = compile_particles(scene_of(resolve_particles(doc), name="a", dt=1 / 500))
    turned = compile_particles(scene_of(resolve_particles(doc, at=[{"rotate": {"z": 90}}]), name="b",
                                        dt=1 / 500))
    plain.step(1000)
    turned.step(1000)
    assert plain.data.pos[0, 0] > 1.0
    assert turned.data.pos[0, 1] == pytest.approx(plain.data.pos[0, 0], abs=1e-9)
    assert abs(turned.data.pos[0, 0]) < 1e-12
