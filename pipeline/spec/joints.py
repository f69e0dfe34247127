"""Joints: type, axes (body frame), initial state and force elements, from a body's
`joint:` block (SI, as produced by pipeline.spec.schema.to_si)."""
from __future__ import annotations

import numpy as np

from pipeline.errors import Problem
from pipeline.spec import checks
from pipeline.spec.loader import MDict, where_of
from pipeline.spec.types import ExpSpring, Joint, JointForces
from pipeline.spec.units import ANGLE_UNITS, LENGTH_UNITS, unit_of

JOINT_NDOF = {"fixed": 0, "revolute": 1, "prismatic": 1, "universal": 2, "ball": 3, "free": 6}
JOINT_NQ = {"fixed": 0, "revolute": 1, "prismatic": 1, "universal": 2, "ball": 4, "free": 7}


def build_joint(doc: MDict, si: dict, jtype: str, R_place: np.ndarray, path: str,
           problems: list[Problem], scale_by_default: str) -> Joint | None:
    n0 = len(problems)
    ndof, nq = JOINT_NDOF[jtype], JOINT_NQ[jtype]
    axes = _axes(doc, si, jtype, R_place, path, problems)
    q0 = _coordinates(doc, si, "q", jtype, nq, path, problems)
    qd0 = _coordinates(doc, si, "qd", jtype, ndof, path, problems)
    if q0 is None:
        q0 = {"ball": (1.0, 0.0, 0.0, 0.0), "free": (0, 0, 0, 1.0, 0, 0, 0)}.get(jtype, (0.0,) * nq)
    if jtype == "ball":
        norm = float(np.linalg.norm(q0))
        if norm == 0.0:
            problems.append(doc.value_mark("q").problem("a ball joint's quaternion must not be zero", f"{path}.q"))
        else:
            q0 = tuple(x / norm for x in q0)
    forces = _forces(doc, si, jtype, ndof, path, problems, scale_by_default)
    if len(problems) > n0:
        return None
    return Joint(jtype, axes, tuple(float(x) for x in q0), tuple(float(x) for x in (qd0 or (0.0,) * ndof)),
                 forces, where_of(doc.mark, path))


def _axes(doc, si, jtype, R_place, path, problems) -> tuple:
    wants = {"revolute": "axis", "prismatic": "axis", "universal": "axes"}.get(jtype)
    for key in ("axis", "axes"):
        if key in si and key != wants:
            instead = f"takes `{wants}`, not `{key}`" if wants else f"has no axis; remove `{key}`"
            problems.append(doc.key_mark(key).problem(f"a {jtype} joint {instead}", f"{path}.{key}"))
    if wants is None:
        return ()
    if wants not in si:
        if "axis" in si or "axes" in si:
            return ()
        problems.append(doc.mark.problem(f"a {jtype} joint needs `{wants}`", path))
        return ()
    raw = [si["axis"]] if wants == "axis" else si["axes"]
    out = []
    for k, a in enumerate(raw):
        a = np.asarray(a, float)
        n = np.linalg.norm(a)
        sub = f"{path}.{wants}" + (f"[{k}]" if wants == "axes" else "")
        mark = doc.value_mark(wants) if wants == "axis" else doc[wants].item_mark(k)
        if not np.isfinite(n) or n == 0.0:
            problems.append(mark.problem("a joint axis must not be zero", sub))
            continue
        a = a / n
        if si.get("frame") == "parent":
            a = R_place.T @ a  # corpus setjointp: the axis was given in the parent's frame
        out.append(tuple(float(x) for x in a))
    return tuple(out)


def _coordinates(doc, si, key, jtype, n, path, problems):
    if key not in si:
        return None
    value = si[key]
    values = list(value) if isinstance(value, list) else [value]
    if len(values) != n:
        layout = {"q": {"universal": "2 angles", "ball": "a quaternion [w, x, y, z]",
                        "free": "[x, y, z, qw, qx, qy, qz]", "fixed": "nothing"},
                  "qd": {"universal": "2 rates", "ball": "an angular velocity [wx, wy, wz]",
                         "free": "[vx, vy, vz, wx, wy, wz]", "fixed": "nothing"}}[key].get(jtype, "one value")
        problems.append(doc.value_mark(key).problem(
            f"a {jtype} joint's `{key}` has {n} value{'s' if n != 1 else ''} ({layout}), got {len(values)}",
            f"{path}.{key}"))
        return None
    if key == "q":
        raw = doc[key] if isinstance(doc[key], list) else [doc[key]]
        allowed = ANGLE_UNITS if jtype in ("revolute", "universal") else LENGTH_UNITS if jtype == "prismatic" else set()
        for item in raw:
            unit = unit_of(item)
            if unit is not None and unit not in allowed:
                kind = {"prismatic": "a length"}.get(jtype, "an angle" if allowed else "a plain number")
                problems.append(doc.value_mark(key).problem(
                    f"a {jtype} joint's `q` is {kind}, not '{item}'", f"{path}.{key}"))
                return None
    return tuple(float(v) for v in values)


def _per_dof(value, ndof, mark, path, problems) -> tuple:
    values = list(value) if isinstance(value, list) else [value] * ndof
    if len(values) != ndof:
        problems.append(mark.problem(f"expected {ndof} value{'s' if ndof != 1 else ''} (one per DOF), "
                                     f"got {len(values)}", path))
    return tuple(float(v) for v in values)


def _forces(doc, si, jtype, ndof, path, problems, scale_by_default) -> JointForces:
    spring = si.get("spring", {})
    servo = si.get("servo", {})
    limits = si.get("limits", {})
    exp = si.get("exp_spring")
    if ndof == 0 and any(k in si for k in ("damping", "spring", "exp_spring", "limits", "servo", "bias")):
        problems.append(doc.mark.problem(f"a {jtype} joint has no degrees of freedom for force elements", path))
    for key in ("damping", "armature"):
        if key in si:
            checks.positive(si[key], doc.value_mark(key), f"{path}.{key}", f"`{key}`", problems, allow_zero=True)
    if "lower" in limits and "upper" in limits and limits["lower"] > limits["upper"]:
        problems.append(doc["limits"].value_mark("lower").problem(
            f"the lower limit {limits['lower']:g} is above the upper limit {limits['upper']:g}",
            f"{path}.limits.lower"))
    rest = _per_dof(spring.get("rest", 0.0), ndof, doc.get("spring", doc).mark, f"{path}.spring.rest",
                    problems) if "spring" in si else ()
    target = _per_dof(servo.get("target", 0.0), ndof, doc.get("servo", doc).mark, f"{path}.servo.target",
                      problems) if "servo" in si else ()
    return JointForces(
        damping=float(si.get("damping", 0.0)), spring_k=float(spring.get("k", 0.0)), spring_rest=rest,
        exp_spring=ExpSpring(float(exp["alpha"]), float(exp["beta"]), float(exp.get("rest", 0.0))) if exp else None,
        limit_lower=limits.get("lower"), limit_upper=limits.get("upper"),
        limit_k=float(limits.get("k", 0.0)), limit_b=float(limits.get("b", 0.0)),
        bias=float(si.get("bias", 0.0)), servo_kp=float(servo.get("kp", 0.0)), servo_kd=float(servo.get("kd", 0.0)),
        servo_target=target, armature=float(si.get("armature", 0.0)),
        scale_by=si.get("scale_by", scale_by_default))
