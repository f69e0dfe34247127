"""Creatures: body trees (placements, joints, geoms), root motion, and environment
obstacles as one-body creatures."""
from __future__ import annotations

import numpy as np

from pipeline.errors import Problem
from pipeline.spec import checks
from pipeline.spec.joints import build_joint
from pipeline.spec.loader import MDict, Mark, join_path, where_of
from pipeline.spec.schema import to_si
from pipeline.spec.shapes import DEFAULT_DENSITY, body_geoms, build_geom, build_inertial
from pipeline.spec.transforms import matrix_from_quat, pose, quat_from_matrix, rigid
from pipeline.spec.types import Body, Creature, Joint, Pose


def build_creature(doc: MDict, path: str, entry_path: str, mark: Mark,
                   problems: list[Problem]) -> Creature | None:
    """`path`: field path prefix of the creature document; `entry_path`, `mark`: where the
    scene names this creature, for scene-level messages."""
    si = to_si(doc, "creature", path=path)
    bodies = doc["bodies"]
    order = checks.tree_order(bodies, join_path(path, "bodies"), problems)
    mode = si.get("root", {}).get("mode", "free")
    built: dict[str, Body] = {}
    for i in order:
        body = _body(bodies[i], si["bodies"][i], si, doc, mode, join_path(path, f"bodies[{i}]"), problems)
        if body is not None:
            built[body.name] = body
    if len(built) != len(bodies):
        return None
    _check_root_motion(doc, si, mode, path, problems)
    prescribed = si.get("root", {}).get("prescribed") if mode == "prescribed" else None
    return Creature(si["creature"], tuple(built[bodies[i]["name"]] for i in order), mode, prescribed,
                    where_of(mark, entry_path))


def _check_root_motion(doc: MDict, si: dict, mode: str, path: str, problems: list[Problem]) -> None:
    """An initial velocity needs a free root; prescribed motion needs its block and mode."""
    root = doc.get("root", MDict(mark=doc.mark))
    if "velocity" in si and mode != "free":
        problems.append(doc.key_mark("velocity").problem(
            f"an initial velocity needs a free root, but the root mode is '{mode}'", join_path(path, "velocity")))
    if mode == "prescribed" and "prescribed" not in si.get("root", {}):
        problems.append(root.value_mark("mode").problem(
            "root mode 'prescribed' needs a `prescribed: {linear, angular}` block", join_path(path, "root.mode")))
    if mode != "prescribed" and "prescribed" in si.get("root", {}):
        problems.append(root.key_mark("prescribed").problem(
            f"`prescribed` motion needs `mode: prescribed` (the mode is '{mode}')", join_path(path, "root.prescribed")))


def _body(body: MDict, si: dict, creature_si: dict, creature_doc: MDict, mode: str, path: str,
          problems: list[Problem]) -> Body | None:
    n0 = len(problems)
    is_root = si.get("parent") in (None, "world")
    joint_doc = body.get("joint", MDict(mark=body.mark))
    joint_si = si.get("joint", {})
    default_type = ("free" if mode in ("free", "prescribed") else "fixed") if is_root else (
        "revolute" if "joint" in body else "fixed")
    jtype = joint_si.get("type", default_type)
    if is_root and mode in ("free", "prescribed") and jtype != "free":
        problems.append(joint_doc.value_mark("type").problem(
            f"the root of a creature with root mode '{mode}' needs a free joint, not {jtype}; "
            "set `root: {mode: fixed}` to hinge it to the world", f"{path}.joint.type"))
    if is_root and mode == "fixed" and jtype != "fixed":
        problems.append(joint_doc.value_mark("type").problem(
            f"`root: {{mode: fixed}}` welds the root to the world, so its joint cannot be {jtype}; "
            "to hinge it, make a fixed base body the root and the hinged body its child",
            f"{path}.joint.type"))
    at_ops = list(si.get("at", []))
    if is_root:
        at_ops += creature_si.get("at", [])
    try:
        R, t = rigid(at_ops)
    except ValueError as exc:
        problems.append(body.value_mark("at").problem(str(exc), f"{path}.at"))
        R, t = np.eye(3), np.zeros(3)
    placement = pose(R, t)
    joint = build_joint(joint_doc, joint_si, jtype, R, path + ".joint", problems, creature_si.get("scale_by", "none"))
    if jtype == "free" and is_root and joint is not None:
        placement, joint = _free_root_state(body, joint, R, t, creature_si, creature_doc, joint_si, path, problems)
    geoms = body_geoms(body, si, creature_si, path, problems)
    inertial = None
    if "inertial" in si:
        inertial = build_inertial(body["inertial"], si["inertial"], f"{path}.inertial", problems)
    if jtype != "fixed" and inertial is None and not any(g.inertial for g in geoms) and len(problems) == n0:
        problems.append(body.value_mark("name").problem(
            f"body '{si['name']}' moves on a {jtype} joint but has no mass: give it a `shape`, "
            "a `mass` or an `inertial`", f"{path}.name"))
    if len(problems) > n0:
        return None
    return Body(si["name"], None if is_root else si["parent"], placement, joint, tuple(geoms), inertial,
                bool(si.get("sticky", False)), where_of(body.value_mark("name"), path))


def _free_root_state(body, joint, R, t, creature_si, creature_doc, joint_si, path, problems):
    """A free joint keeps its initial pose in q0 (identity placement) and its initial
    velocity in qd0, body axes (Pinocchio's free-flyer convention)."""
    q0 = joint.q0 if "q" in joint_si else (*t, *quat_from_matrix(R))
    if "q" in joint_si and np.linalg.norm(t) + np.linalg.norm(R - np.eye(3)) > 0:
        problems.append(body.value_mark("joint").problem(
            "give a free joint's initial pose either with `at` or with `q`, not both", f"{path}.joint.q"))
    qd0 = joint.qd0
    velocity = creature_si.get("velocity")
    if velocity is not None:
        if "qd" in joint_si:
            problems.append(creature_doc.value_mark("velocity").problem(
                "give the initial velocity either with `velocity` or with the root joint's `qd`, not both",
                "velocity"))
        Rw = matrix_from_quat(q0[3:])
        v = Rw.T @ np.asarray(velocity.get("linear", (0, 0, 0)), float)
        w = Rw.T @ np.asarray(velocity.get("angular", (0, 0, 0)), float)
        qd0 = tuple(float(x) for x in (*v, *w))
    return Pose(), Joint(joint.type, joint.axes, tuple(float(x) for x in q0), qd0, joint.forces, joint.where)


def obstacle_creatures(env_doc: MDict, problems: list[Problem], env_path: str = "") -> list[Creature]:
    """Obstacles become one-body creatures: static ones fixed to the world, free ones free.
    `env_path`: where the environment sits in its file ("environment" inline in a scene)."""
    out = []
    si_env = to_si(env_doc, "environment", path=env_path)
    for i, (doc, si) in enumerate(zip(env_doc.get("obstacles", ()), si_env.get("obstacles", ()))):
        path = join_path(env_path, f"obstacles[{i}]")
        n0 = len(problems)
        mode = si.get("mode", "static")
        try:
            R, t = rigid(si.get("at", ()))
        except ValueError as exc:
            problems.append(doc.value_mark("at").problem(str(exc), f"{path}.at"))
            continue
        geom = build_geom(doc, si, si.get("density", DEFAULT_DENSITY), si.get("color"), si["name"], True, path, problems)
        if len(problems) > n0 or geom is None:
            continue
        where = where_of(doc.value_mark("name"), path)
        if mode == "free":
            q0 = (*t, *quat_from_matrix(R))
            v = si.get("velocity", {})
            qd0 = (*(R.T @ np.asarray(v.get("linear", (0, 0, 0)), float)),
                   *(R.T @ np.asarray(v.get("angular", (0, 0, 0)), float)))
            joint = Joint("free", (), tuple(float(x) for x in q0), tuple(float(x) for x in qd0), where=where)
            body = Body(si["name"], None, Pose(), joint, (geom,), where=where)
        else:
            if "velocity" in si:
                problems.append(doc.key_mark("velocity").problem(
                    "a static obstacle cannot move; set `mode: free`", f"{path}.velocity"))
                continue
            body = Body(si["name"], None, pose(R, t), Joint("fixed", where=where), (geom,), where=where)
        out.append(Creature(si["name"], (body,), "free" if mode == "free" else "fixed", where=where))
    return out
