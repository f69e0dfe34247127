"""Resolution into Spec dataclasses: units, transform op lists, mirror, repeat, includes,
defaults, obstacles, and the canonical source. Geometry is checked against scipy's
rotations (an independent implementation), numbers with tight tolerances."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import pipeline
from pipeline.errors import CorpusError
from pipeline.spec.resolve import load, load_scene
from pipeline.spec.schema import validate
from pipeline.spec.units import to_si

ROOT = Path(__file__).resolve().parents[1]


def creature(bodies, **top):
    return load({"creature": "c", **top, "bodies": bodies}, base_dir=ROOT)


def rot(quat_wxyz) -> np.ndarray:
    w, x, y, z = quat_wxyz
    return Rotation.from_quat([x, y, z, w]).as_matrix()


def problems(fn, *args, **kwargs) -> list[str]:
    with pytest.raises(CorpusError) as info:
        fn(*args, **kwargs)
    return [p.message for p in info.value.problems]


# --- units ------------------------------------------------------------------------------

@pytest.mark.parametrize("value, dimension, si", [
    ("2cm", "length", 0.02), ("1.5 mm", "length", 0.0015), (3, "length", 3.0),
    ("5g", "mass", 0.005), ("30deg", "angle", math.pi / 6), (0.5, "angle", 0.5),
    (90, "angle_deg", math.pi / 2), ("0.5rad", "angle_deg", 0.5), ("1/2400", "time", 1 / 2400),
    ("20ms", "time", 0.02), ("1g/cm3", "density", 1000.0), ("-1/4", "number", -0.25),
])
def test_quantities_convert_to_si(value, dimension, si):
    assert to_si(value, dimension) == pytest.approx(si, rel=1e-15)


def test_a_unit_of_the_wrong_dimension_is_refused():
    with pytest.raises(ValueError, match="unit 'kg' is not allowed here"):
        to_si("5kg", "length")


# --- transform op lists -----------------------------------------------------------------

def test_ops_apply_in_order_in_the_parent_frame():
    # a move then a rotation about z: the rotation carries the translation along (postmult)
    c = creature([{"name": "a", "shape": {"sphere": 1}},
                  {"name": "b", "parent": "a", "shape": {"sphere": 1},
                   "at": [{"move": [1, 0, 0]}, {"rotate": {"z": 90}}], "joint": {"type": "fixed"}}])
    b = c.bodies[1]
    assert b.placement.pos == pytest.approx((0.0, 1.0, 0.0), abs=1e-15)
    assert rot(b.placement.quat) == pytest.approx(Rotation.from_euler("z", 90, degrees=True).as_matrix(), abs=1e-15)


def test_scale_after_move_scales_the_translation_like_corpus():
    # McKenna's leg recipe: unit cube, move 0 .5 0, scale .01, scale w l w  (a 0.6 cm femur)
    c = creature([{"name": "femur", "shape": {"box": [1, 1, 1]},
                   "transform": [{"move": [0, 0.5, 0]}, {"scale": 0.01}, {"scale": [0.11, 0.6, 0.11]}]}])
    (geom,) = c.bodies[0].geoms
    assert geom.size == pytest.approx((0.0011, 0.006, 0.0011), rel=1e-14)
    assert geom.pose.pos == pytest.approx((0.0, 0.003, 0.0), rel=1e-14)


def test_roach_coxa_placement_matches_appendix_c():
    leg = next(b for b in load(ROOT / "creatures/roach.yaml").bodies if b.name == "leg_fl0")
    assert leg.placement.pos == pytest.approx((0.009, 0.0044, -0.0015), abs=1e-15)
    expected = Rotation.from_euler("x", -45, degrees=True).as_matrix()
    assert rot(leg.placement.quat) == pytest.approx(expected, abs=1e-15)


def test_uneven_scale_turns_a_sphere_into_an_ellipsoid_and_sizes_a_capsule():
    c = creature([{"name": "a", "shape": {"sphere": "1cm"}, "transform": [{"scale": [1, 2, 3]}],
                   "parts": [{"shape": {"capsule": {"radius": 1, "length": 2}},
                              "transform": [{"scale": [0.5, 0.5, 3]}, {"rotate": {"x": 90}}]}]}])
    own, part = c.bodies[0].geoms
    assert (own.shape, own.size) == ("ellipsoid", pytest.approx((0.01, 0.02, 0.03), rel=1e-15))
    assert (part.shape, part.size) == ("capsule", pytest.approx((0.5, 6.0), rel=1e-15))
    assert rot(part.pose.quat) == pytest.approx(Rotation.from_euler("x", 90, degrees=True).as_matrix(), abs=1e-15)


def test_parent_frame_axes_are_converted_to_the_body_frame():
    c = creature([{"name": "a", "shape": {"sphere": 1}},
                  {"name": "b", "parent": "a", "shape": {"sphere": 1}, "at": [{"rotate": {"z": 90}}],
                   "joint": {"type": "revolute", "axis": [2, 0, 0], "frame": "parent"}}])
    assert c.bodies[1].joint.axes[0] == pytest.approx((0.0, -1.0, 0.0), abs=1e-15)


# --- mirror -----------------------------------------------------------------------------

def world_frames(c, q: dict[str, float]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Forward kinematics with scipy: body frame (R, p) in the world for revolute angles q."""
    frames = {}
    for b in c.bodies:
        if b.parent is None:
            R, p = rot(b.joint.q0[3:]), np.asarray(b.joint.q0[:3])
        else:
            Rp, pp = frames[b.parent]
            R = Rp @ rot(b.placement.quat)
            p = pp + Rp @ np.asarray(b.placement.pos)
            if b.joint.type == "revolute":
                R = R @ Rotation.from_rotvec(np.asarray(b.joint.axes[0]) * q.get(b.name, b.joint.q0[0])).as_matrix()
        frames[b.name] = (R, p)
    return frames


def test_roach_right_legs_mirror_the_left_ones_in_y():
    roach = load(ROOT / "creatures/roach.yaml")
    M = np.diag([1.0, -1.0, 1.0])
    rng = np.random.default_rng(7)
    left = [b.name for b in roach.bodies if b.name.startswith("leg_") and b.name[5] == "l"]
    assert len(left) == 15
    # any left posture and its negation on the right (q_right = -q_left) are mirror images
    q = {name: float(rng.uniform(-0.6, 0.6)) for name in left}
    q.update({name[:5] + "r" + name[6:]: -angle for name, angle in q.items()})
    frames = world_frames(roach, q)
    for name in left:
        twin = name[:5] + "r" + name[6:]
        (Rl, pl), (Rr, pr) = frames[name], frames[twin]
        assert pr == pytest.approx(M @ pl, abs=1e-15)
        assert Rr == pytest.approx(M @ Rl @ M, abs=1e-14)
        geom_l, geom_r = roach_body(roach, name).geoms[0], roach_body(roach, twin).geoms[0]
        foot_l = pl + Rl @ np.asarray(geom_l.pose.pos)
        foot_r = pr + Rr @ np.asarray(geom_r.pose.pos)
        assert foot_r == pytest.approx(M @ foot_l, abs=1e-15)
        assert geom_r.size == geom_l.size
    # the initial rest angles follow the script's sign pattern: q_right = -q_left
    assert roach_body(roach, "leg_fr0").joint.q0 == (0.45,)
    assert roach_body(roach, "leg_fr0").joint.forces.exp_spring.rest == 0.45


def roach_body(c, name):
    return next(b for b in c.bodies if b.name == name)


def test_mirror_of_axis_normal_to_the_plane_keeps_the_angle_and_swaps_limits():
    c = creature([{"name": "body", "shape": {"sphere": 1}},
                  {"mirror": {"axis": "y", "rename": ["_l", "_r"], "bodies": [
                      {"name": "arm_l", "parent": "body", "shape": {"box": [1, 1, 1]},
                       "at": [{"move": [0, 1, 0]}, {"rotate": {"axis": [1, 1, 0], "angle": 30}}],
                       "joint": {"type": "revolute", "axis": [0, 1, 0], "q": 0.2, "bias": 1,
                                 "limits": {"lower": -0.1, "upper": 0.5}}}]}}])
    arm_l, arm_r = c.bodies[1], c.bodies[2]
    M = np.diag([1.0, -1.0, 1.0])
    assert arm_r.placement.pos == pytest.approx(M @ np.asarray(arm_l.placement.pos), abs=1e-15)
    assert rot(arm_r.placement.quat) == pytest.approx(M @ rot(arm_l.placement.quat) @ M, abs=1e-15)
    assert arm_r.joint.axes == ((0.0, -1.0, 0.0),)  # M a, with q negated
    assert arm_r.joint.q0 == (-0.2,) and arm_r.joint.forces.bias == -1.0
    assert (arm_r.joint.forces.limit_lower, arm_r.joint.forces.limit_upper) == (-0.5, 0.1)


# --- repeat, defaults ---------------------------------------------------------------------

def test_repeat_builds_the_pendulum_chain():
    p = load(ROOT / "creatures/pendulum5.yaml")
    assert [(b.name, b.parent) for b in p.bodies] == [
        ("base", None), ("link0", "base"), ("link1", "link0"), ("link2", "link1"),
        ("link3", "link2"), ("link4", "link3")]
    assert p.root_mode == "fixed" and p.bodies[0].joint.type == "fixed"
    assert p.bodies[0].placement.pos == (0.0, 0.0, 1.2)
    assert p.bodies[1].joint.q0 == pytest.approx((math.pi / 3,), rel=1e-15)
    assert all(b.placement.pos == (0.0, 0.0, -0.2) for b in p.bodies[2:])
    assert all(b.geoms[0].density == 1000.0 and b.geoms[0].size == pytest.approx((0.02, 0.02, 0.2))
               for b in p.bodies[1:])


def test_children_may_be_listed_before_their_parents():
    c = creature([{"name": "b", "parent": "a", "shape": {"sphere": 1}, "joint": {"type": "ball"}},
                  {"name": "a", "shape": {"sphere": 1}}])
    assert [b.name for b in c.bodies] == ["a", "b"]
    assert c.bodies[1].joint.q0 == (1.0, 0.0, 0.0, 0.0) and c.bodies[1].joint.qd0 == (0.0, 0.0, 0.0)


# --- scenes, includes, obstacles ------------------------------------------------------------

def test_free_root_pose_and_velocity_come_from_the_scene():
    scene = load({"scene": "s", "creatures": [
        {"use": "creatures/box.yaml", "at": [{"rotate": {"z": 90}}, {"move": [1, 2, 3]}],
         "velocity": {"linear": [1, 0, 0], "angular": [0, 0, 2]}}]}, base_dir=ROOT)
    box = scene.creatures[0].bodies[0]
    assert box.placement == pipeline.spec.types.Pose()
    assert box.joint.q0[:3] == (1.0, 2.0, 3.0)
    assert rot(box.joint.q0[3:]) == pytest.approx(Rotation.from_euler("z", 90, degrees=True).as_matrix(), abs=1e-15)
    # body-frame velocities (Pinocchio free-flyer): world x is body -y after the 90 deg turn
    assert box.joint.qd0 == pytest.approx((0.0, -1.0, 0.0, 0.0, 0.0, 2.0), abs=1e-15)


def test_with_overrides_merge_bodies_by_name_and_rename_the_include():
    scene = load({"scene": "s", "creatures": [
        {"use": "creatures/pendulum5.yaml"},
        {"use": "creatures/pendulum5.yaml", "name": "p2", "at": [{"move": [1, 0, 1]}],
         "with": {"bodies": [{"name": "link2", "joint": {"damping": 0.2}}]}}]}, base_dir=ROOT)
    first, second = scene.creatures
    assert (first.name, second.name) == ("pendulum5", "p2")
    assert [b.joint.forces.damping for b in second.bodies[1:]] == [0.001, 0.001, 0.2, 0.001, 0.001]
    assert [b.joint.forces.damping for b in first.bodies[1:]] == [0.001] * 5
    assert second.bodies[0].placement.pos == (1.0, 0.0, 1.0)


def test_including_one_creature_twice_needs_names(tmp_path):
    scene = tmp_path / "twice.yaml"
    scene.write_text(f"scene: s\ncreatures:\n  - use: {ROOT}/creatures/box.yaml\n  - use: {ROOT}/creatures/box.yaml\n")
    with pytest.raises(CorpusError) as info:
        load(scene)
    assert [str(p) for p in info.value.problems] == [
        f"{scene}:4:5: creatures[1]: two creatures (or obstacles) are named 'box' (the first at line 3); "
        "give the include a `name:`"]


def test_obstacles_become_fixed_and_free_creatures():
    scene = load({"scene": "s", "environment": {"environment": "e", "obstacles": [
        {"name": "wall", "shape": {"box": [1, 1, 1]}, "at": [{"move": [2, 0, 0.5]}]},
        {"name": "ball", "mode": "free", "shape": {"sphere": "10cm"}, "mass": 1, "at": [{"move": [0, 0, 1]}],
         "velocity": {"linear": [0, 1, 0]}}]}}, base_dir=ROOT)
    wall, ball = scene.creatures
    assert (wall.root_mode, wall.bodies[0].joint.type, wall.bodies[0].placement.pos) == ("fixed", "fixed", (2.0, 0.0, 0.5))
    assert (ball.root_mode, ball.bodies[0].joint.type) == ("free", "free")
    assert ball.bodies[0].joint.q0 == (0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0)
    assert ball.bodies[0].joint.qd0 == (0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    assert ball.bodies[0].geoms[0].mass == 1.0


def test_a_creature_loads_into_a_default_scene():
    scene = load_scene(ROOT / "creatures/box.yaml")
    assert scene.name == "box" and scene.simulation.duration == 1.0
    assert scene.environment["ground"] == {"type": "flat", "z": 0.0}
    assert scene.environment["material"]["exp_beta"] == 3000.0
    assert scene.files[0] == str(ROOT / "creatures/box.yaml")


def test_scene_values_are_si():
    scene = load(ROOT / "scenes/box_drop.yaml")
    assert scene.simulation.dt == 1 / 240 and scene.simulation.h == 1 / 4800
    assert scene.environment["material"]["max_depth"] == 0.01
    assert scene.outputs == {"fps": 30, "video": True, "glb": True, "plots": True}
    pend = load(ROOT / "scenes/pendulum5.yaml")
    (cmd,) = pend.timeline
    assert (cmd.at, cmd.action, cmd.args["duration"], cmd.args["body"]) == (1.0, "push", 0.05, "link4")


@pytest.mark.parametrize("name", ["scenes/box_drop.yaml", "scenes/pendulum5.yaml", "creatures/roach.yaml"])
def test_the_canonical_source_loads_again_to_the_same_spec(name):
    first = load_scene(ROOT / name)
    assert validate(first.source, "scene") == []
    json.dumps(first.source)  # plain data, as a run directory's scene.json
    again = load_scene(first.source, base_dir=ROOT / "outputs")
    strip = lambda s: [[(b.name, b.parent, b.placement, b.joint.type, b.joint.axes, b.joint.q0, b.joint.qd0,
                         b.joint.forces, tuple((g.shape, g.size, g.pose, g.density, g.rgba) for g in b.geoms))
                        for b in c.bodies] for c in s.creatures]
    assert strip(again) == strip(first)
    assert (again.environment, again.simulation, again.timeline and [c.args for c in again.timeline]) == \
        (first.environment, first.simulation, first.timeline and [c.args for c in first.timeline])


def test_includes_outside_the_project_need_permission(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "corpus.toml").write_text("")
    (tmp_path / "elsewhere.yaml").write_text((ROOT / "creatures/box.yaml").read_text())
    scene = tmp_path / "project" / "scene.yaml"
    scene.write_text("scene: s\ncreatures:\n  - use: ../elsewhere.yaml\n")
    (message,) = problems(load, scene)
    assert message.startswith("refused: '../elsewhere.yaml' is outside the project")
    assert load(scene, allow_outside=True).creatures[0].name == "box"
    # the bundled creatures are always allowed
    scene.write_text(f"scene: s\ncreatures:\n  - use: {ROOT / 'creatures/box.yaml'}\n")
    assert load(scene).creatures[0].name == "box"


def test_every_spec_object_knows_where_it_came_from():
    scene = load(ROOT / "scenes/pendulum5.yaml")
    link3 = scene.creatures[0].bodies[4]
    assert link3.name == "link3"
    assert (Path(link3.where.file).name, link3.where.line) == ("pendulum5.yaml", 24)
    assert link3.joint.where.line == 29 and link3.geoms[0].where.line == 26


@pytest.mark.parametrize("op, where, message", [
    ({"move": [1e400, 0, 0]}, "bodies[0].at[0].move[0]", "inf is not a finite number"),
    ({"move": ["1e400cm", 0, 0]}, "bodies[0].at[0].move[0]", "'1e400cm' is not a finite number"),
    ({"rotate": {"x": float("nan")}}, "bodies[0].at[0].rotate.x", "nan is not a finite number"),
    ({"rotate": {"axis": [1, 0, 0], "angle": "1/0"}}, "bodies[0].at[0].rotate.angle", "division by zero in '1/0'"),
])
def test_non_finite_numbers_are_refused_where_they_are(op, where, message):
    with pytest.raises(CorpusError) as info:
        creature([{"name": "a", "shape": {"sphere": 1}, "at": [op]}])
    (problem,) = info.value.problems
    assert (problem.path, problem.message) == (where, message)


def test_environment_include_with_overrides():
    scene = load({"scene": "s", "environment": {"use": "environments/flat.yaml", "with": {
        "material": {"friction": 0.2}, "gravity": [0, 0, "-1.62"]}}}, base_dir=ROOT)
    assert scene.environment["material"]["friction"] == 0.2
    assert scene.environment["material"]["exp_alpha"] == 17.5  # the rest of flat.yaml stays
    assert scene.environment["gravity"] == [0.0, 0.0, -1.62]


def test_a_creature_may_extend_a_base_creature(tmp_path):
    (tmp_path / "corpus.toml").write_text("")
    (tmp_path / "long.yaml").write_text(
        f"creature: long\nuse: {ROOT}/creatures/pendulum5.yaml\n"
        "bodies:\n  - {name: link4, shape: {box: [2cm, 2cm, 40cm]}}\n")
    long = load(tmp_path / "long.yaml")
    assert long.name == "long" and len(long.bodies) == 6
    assert long.bodies[-1].geoms[0].size == pytest.approx((0.02, 0.02, 0.4))
    assert long.bodies[-2].geoms[0].size == pytest.approx((0.02, 0.02, 0.2))
    assert str(ROOT / "creatures/pendulum5.yaml") in load_scene(tmp_path / "long.yaml").files
