"""The roach's left/right symmetry in motion (McKenna digest D5, D9), fast enough for every run.

D9: with no gravity and no ground the motor programs drive the legs in a void. The tripod
controller is glide-symmetric: the right legs run the mirrored programs half a cycle later,
so every right joint's spring rest equals minus its left partner's half a cycle earlier
(exactly, once each leg has stepped once) and the joint angles follow to the same relation
as the start-up transient decays. A motor target not mirrored for a right leg, a per-leg
sign, a side/index mismatch or a wrong phase offset breaks these equalities.
"""
from pathlib import Path

import numpy as np
import pytest

import pipeline

ROOT = Path(__file__).resolve().parents[1]
PAIRS = (("fl", "fr"), ("ml", "mr"), ("bl", "br"))
FRAME = 1 / 2400
HALF_CYCLE = 120  # frames: the tripod's cycle is 0.1 s


def void_scene(gait: dict, duration: float) -> dict:
    return {"scene": "roach_void",
            "environment": {"environment": "void", "gravity": "off", "ground": {"type": "none"}},
            "creatures": [{"use": "creatures/roach.yaml", "with": {"root": {"mode": "fixed"}}}],
            "controllers": [{"use": "creatures/roach_gait.yaml", "creature": "roach",
                             "with": {"gait": gait}}],
            "simulation": {"duration": duration, "dt": "1/2400", "integrator": "rk4",
                           "h": "1/100000"}}


@pytest.fixture(scope="module")
def void_tripod():
    sim = pipeline.compile(pipeline.load(void_scene({"speed": 1}, 0.35), base_dir=ROOT))
    joints = {leg: [int(sim.joint_dofs(f"leg_{leg}{i}")[1][0]) for i in range(5)]
              for pair in PAIRS for leg in pair}
    q, rest = [], []
    for _ in range(round(0.35 / FRAME)):
        sim.step(1)
        q.append(sim.data.q.copy())
        rest.append(sim.data.exp_rest.copy())
    return joints, np.array(q), np.array(rest)


@pytest.mark.parametrize("left, right", PAIRS)
def test_d9_right_programs_mirror_the_left_half_a_cycle_later(void_tripod, left, right):
    joints, q, rest = void_tripod
    late = slice(round(0.2 / FRAME) - HALF_CYCLE, None)  # t >= 0.2 s: every leg has stepped
    mirror_rest = rest[HALF_CYCLE:, joints[right]] + rest[:-HALF_CYCLE, joints[left]]
    assert np.abs(mirror_rest[late]).max() < 1e-12
    settled = slice(round(0.3 / FRAME) - HALF_CYCLE, None)
    mirror_q = q[HALF_CYCLE:, joints[right]] + q[:-HALF_CYCLE, joints[left]]
    assert np.abs(mirror_q[settled]).max() < 1e-5  # rad (a sign error: ~0.1); the start-up transient decays


def test_in_phase_gait_on_the_ground_keeps_the_roach_straight():
    """All six legs in phase (right_offset 0): a mirror-symmetric body, contact and program
    set must keep the abdomen on y = 0 with zero yaw to rounding, stepping on the ground.

    RK4, not the scene's implicit Euler, which is not bitwise mirror-symmetric (measured: the
    abdomen drifts off y = 0 by 2e-9 m within 0.1 s); this test is about the model, contacts
    and programs."""
    scene = {"scene": "roach_in_phase", "use": "scenes/roach_tripod.yaml",
             "controllers": [{"use": "creatures/roach_gait.yaml", "creature": "roach",
                              "with": {"gait": {"speed": 1, "right_offset": 0}}}],
             "simulation": {"integrator": "rk4", "h": "1/200000"}}
    sim = pipeline.compile(pipeline.load(scene, base_dir=ROOT))
    rec = sim.run(duration=0.1, progress=False)
    b = rec.body_index("abdomen")
    assert rec.channels["gait_swing"].sum() > 0  # the legs did step
    assert np.abs(rec.body_pos[:, b, 1]).max() < 1e-12
    w, x, y, z = rec.body_quat[:, b].T
    assert np.abs(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))).max() < 1e-12


def test_tripod_on_the_ground_mirrors_left_and_right_legs_half_a_cycle_apart():
    """Walking on the ground, the tripod's two half cycles are mirror images: every right
    joint follows minus its left partner half a cycle later, on average over the cycles
    after the first steps (t in [0.6, 1] s).

    This is what failed when the roach walked in circles (docs/roach.md): the two-body
    tarsi are hinges under the roach's weight, and one middle foot's first tarsal joint
    flipped to the opposite fold in the first steps (mean mirror error 0.47 rad) and kept
    it, so the two middle legs pushed differently every cycle. With the middle legs' tarsal
    stops the worst pair is 0.012 rad."""
    sim = pipeline.compile(pipeline.load(ROOT / "scenes/roach_tripod.yaml"))
    joints = {leg: [int(sim.joint_dofs(f"leg_{leg}{i}")[1][0]) for i in range(5)]
              for pair in PAIRS for leg in pair}
    rec = sim.run(duration=1.0, progress=False)
    half = round(0.05 / (rec.time[1] - rec.time[0]))  # records per half cycle
    q = rec.q[rec.time >= 0.6 - 1e-9]
    for left, right in PAIRS:
        mirror = q[half:, joints[right]] + q[:-half, joints[left]]
        assert np.abs(mirror.mean(axis=0)).max() < 0.05, (left, right)
