"""D1: the Appendix C roach built from creatures/roach.yaml (McKenna digest §6, §9.4).

Reference numbers are the digest's rebuild (§6.6): box masses at density 1000, foot tips and
COM at the initial rest angles in the abdomen frame, distal masses; left/right symmetry
with q_right = -q_left (§6.3).
"""
from pathlib import Path

import numpy as np
import pytest
import yaml

import pipeline
from pipeline.compiler.build import compile_model
from pipeline.physics import forward_kinematics
from pipeline.physics.model import FREE, REVOLUTE
from pipeline.simulate.articulated import as_scene

ROOT = Path(__file__).resolve().parents[1]
CM = 0.01
# (width, length) of the five segments of each leg pair, cm (digest §6.3)
SEGMENTS = {
    "f": [(0.21, 0.49), (0.11, 0.6), (0.053, 0.60), (0.035, 0.035), (0.035, 0.18)],
    "m": [(0.18, 0.60), (0.071, 0.42), (0.053, 0.95), (0.035, 0.035), (0.035, 0.20)],
    "b": [(0.25, 0.56), (0.11, 0.35), (0.071, 1.41), (0.035, 0.035), (0.035, 0.35)],
}
TRUNK = {"abdomen": (1.63, 1.25, 0.706), "thorax": (1.06, 0.875, 0.529), "head": (0.265, 0.25, 0.635)}


@pytest.fixture(scope="module")
def model():
    return compile_model(as_scene(pipeline.load(ROOT / "creatures/roach.yaml")))[0]


def body(model, name):
    return model.body_names.index(name)


def geom_of(model, name):
    return int(np.flatnonzero(model.geoms.body == body(model, name))[0])


def foot_tip(model, xpos, xrot, leg):
    b, g = body(model, f"leg_{leg}4"), geom_of(model, f"leg_{leg}4")
    return xpos[b] + xrot[b] @ (model.geoms.pos[g] * 2)  # the far end of the tarsus box


def test_d1_bodies_dof_and_joint_types(model):
    assert model.nbody == 33 and model.nv == 38 and model.nq == 39
    assert model.body_names[0] == "abdomen" and model.tree.jtype[0] == FREE
    assert np.all(model.tree.jtype[1:] == REVOLUTE)


def test_d1_total_mass_of_plain_boxes(model):
    expected = sum(np.prod(s) for s in TRUNK.values())
    expected += 2 * sum(w * w * l for segs in SEGMENTS.values() for w, l in segs)
    expected *= 1000 * CM ** 3  # density 1000 kg/m^3
    assert model.total_mass == pytest.approx(expected, rel=1e-12)
    assert model.total_mass == pytest.approx(2.1755e-3, abs=5e-8)
    assert abs(model.total_mass / 2.1e-3 - 1) < 0.05  # thesis: 2.1 g


def test_d1_trunk_and_leg_lengths(model):
    xpos, xrot = forward_kinematics(model, model.q0)
    xs = []
    for name in TRUNK:
        b, g = body(model, name), geom_of(model, name)
        half = model.geoms.size[g] / 2
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
        world = xpos[b] + (xrot[b] @ (model.geoms.rot[g] @ corners.T + model.geoms.pos[g][:, None])).T
        xs += list(world[:, 0])
    length = (max(xs) - min(xs)) / CM
    assert 2.9 <= length <= 3.0
    assert min(xs) == pytest.approx(-0.815 * CM, abs=1e-15)
    for pair, expected in (("f", 1.905), ("m", 2.205), ("b", 2.705)):
        sizes = [model.geoms.size[geom_of(model, f"leg_{pair}l{i}")][1] for i in range(5)]
        assert sum(sizes) / CM == pytest.approx(expected, rel=1e-12)


def test_d1_feet_and_com_match_the_digest_rebuild(model):
    xpos, xrot = forward_kinematics(model, model.q0)
    expected = {"fl": (2.66, 1.01, -0.97), "ml": (1.32, 1.65, -1.45), "bl": (-0.20, 1.85, -1.74)}
    for leg, tip in expected.items():
        np.testing.assert_allclose(foot_tip(model, xpos, xrot, leg) / CM, tip, atol=0.0051)
    com_world = xpos + np.einsum("bij,bj->bi", xrot, model.tree.com)
    com = (model.tree.mass[:, None] * com_world).sum(axis=0) / model.total_mass
    np.testing.assert_allclose(com / CM, (0.458, 0.0, -0.012), atol=0.00051)


def test_d1_left_and_right_feet_mirror_in_y(model):
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = model.q0.copy()
        for pair in "fmb":
            for i in range(5):
                left = model.joint_qpos_slice(f"leg_{pair}l{i}")
                right = model.joint_qpos_slice(f"leg_{pair}r{i}")
                q[left] = rng.uniform(-0.6, 0.6)
                q[right] = -q[left]
        xpos, xrot = forward_kinematics(model, q)
        for pair in "fmb":
            left = foot_tip(model, xpos, xrot, pair + "l")
            right = foot_tip(model, xpos, xrot, pair + "r")
            np.testing.assert_allclose(right, left * (1, -1, 1), atol=1e-15)


def test_d1_distal_masses_and_spring_scaling(model):
    """springtype distalmass multiplies leg constants by the subtree mass; mass by the body's."""
    distal = {"f": (30.82, 9.21, 1.95, 0.263, 0.221), "m": (24.51, 5.07, 2.96, 0.288, 0.245),
              "b": (46.81, 11.81, 7.58, 0.472, 0.429)}  # mg, digest §6.6
    for pair, masses in distal.items():
        for i, mg in enumerate(masses):
            dof = model.tree.vadr[body(model, f"leg_{pair}r{i}")]
            alpha = 1.0 if i < 3 else 0.2
            assert model.forces.exp_alpha[dof] / alpha * 1e6 == pytest.approx(mg, abs=0.006)
            assert model.forces.damping[dof] / 0.03 == pytest.approx(model.forces.exp_alpha[dof] / alpha, rel=1e-12)
    thorax = model.tree.vadr[body(model, "thorax")]
    assert model.forces.exp_alpha[thorax] == pytest.approx(0.024 * model.tree.mass[body(model, "thorax")], rel=1e-12)
    head = model.tree.vadr[body(model, "head")]
    assert model.forces.spring_k[head] == pytest.approx(0.1 * model.tree.mass[body(model, "head")], rel=1e-12)
    assert model.forces.exp_alpha[head] == 0.0


def test_d1_initial_angles_equal_the_spring_rests(model):
    for name in model.joint_names[1:]:
        sl = model.joint_qpos_slice(name)
        dof = model.joint_qvel_slice(name)
        assert model.q0[sl] == pytest.approx(model.forces.exp_rest[dof], abs=0)
    assert model.q0[model.joint_qpos_slice("leg_bl2")][0] == 0.4
    assert model.q0[model.joint_qpos_slice("leg_br2")][0] == -0.4


def program_targets(phase):
    """{joint: rest angle at the end of every leg's `phase` program} from roach_gait.yaml (the
    last motor target of each joint in the list)."""
    legs = yaml.safe_load((ROOT / "creatures/roach_gait.yaml").read_text())["gait"]["legs"]
    return {entry["do"]["motor"]["joint"]: entry["do"]["motor"]["etarget"]
            for leg in legs.values() for entry in leg[phase] if "motor" in entry["do"]}


def test_d1_stance_foot_travel_matches_the_digest(model):
    """A stance sweeps each foot back by its travel between the step's and the stance's end
    postures (digest §6.6: front 0.30, middle 0.81, hind 0.91 cm, unloaded). Per stance, not
    per cycle: a tripod leg is in stance half of each 0.1 s cycle, so feet that held and
    legs that made these strokes would carry the body 16-18 cm/s (docs/roach.md, D4)."""
    tips = []
    for phase in ("step", "stance"):
        q = model.q0.copy()
        for joint, target in program_targets(phase).items():
            q[model.joint_qpos_slice(joint)] = target
        xpos, xrot = forward_kinematics(model, q)
        tips.append({leg: foot_tip(model, xpos, xrot, leg) / CM for leg in ("fl", "fr", "ml", "mr", "bl", "br")})
    travel = {leg: tips[0][leg][0] - tips[1][leg][0] for leg in tips[0]}
    # the digest rounds to 0.01 cm; its front figure is 0.007 cm short of ours (0.307)
    for leg, cm in (("fl", 0.30), ("ml", 0.81), ("bl", 0.91)):
        assert travel[leg] == pytest.approx(cm, abs=0.01)
        assert travel[leg.replace("l", "r")] == pytest.approx(travel[leg], abs=1e-12)
