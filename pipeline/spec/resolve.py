"""Canonical documents -> the frozen Spec dataclasses of `pipeline.spec.types` (SI units).

`load(path_or_dict)` is `pipeline.load`: a creature document gives a `Creature`, a scene a
`Scene`; `load_scene` wraps a creature into a default scene. All problems found while
building (semantic checks included) are raised together as one `CorpusError`.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.spec import checks
from pipeline.spec.documents import check_kind, expand_document, expand_scene, include, wrap_creature
from pipeline.spec.includes import Includes, project_root
from pipeline.spec.loader import MDict, Mark, from_plain, plain, read_file
from pipeline.spec.schema import to_si
from pipeline.spec.transforms import matrix_from_quat, pose, quat_from_matrix, rigid, split_scale
from pipeline.spec.types import (
    Body, Command, ControllerRef, Creature, ExpSpring, Geom, Inertial, Joint, JointForces, Pose,
    Scene, SimulationSettings, Where,
)
from pipeline.spec import units
from pipeline.spec.units import ANGLE_UNITS, LENGTH_UNITS, unit_of

JOINT_NDOF = {"fixed": 0, "revolute": 1, "prismatic": 1, "universal": 2, "ball": 3, "free": 6}
JOINT_NQ = {"fixed": 0, "revolute": 1, "prismatic": 1, "universal": 2, "ball": 4, "free": 7}
DEFAULT_RGBA = (0.8, 0.6, 0.4, 1.0)
DEFAULT_DENSITY = 1000.0


def load(source, *, allow_outside: bool = False, base_dir: str | os.PathLike | None = None):
    """A YAML path or a dict -> `Scene` (scene documents) or `Creature` (creature documents).

    Relative paths inside a dict resolve against `base_dir` (default: the working folder).
    Environment and controller documents are parts of scenes; load a scene that names them.
    """
    doc, inc = _open(source, allow_outside, base_dir)
    kind = check_kind(doc)
    if kind not in ("scene", "creature"):
        raise CorpusError(doc.mark.problem(
            f"{checks.article(kind)} document is part of a scene; `pipeline.load` takes a scene or a "
            "creature (use `corpus validate` to check this file on its own)"))
    scene = _scene(source, doc, kind, inc)
    return scene.creatures[0] if kind == "creature" else scene


def load_scene(source, *, allow_outside: bool = False, base_dir=None) -> Scene:
    """Like `load`, but a creature is wrapped into a default scene (flat ground, 1 s)."""
    doc, inc = _open(source, allow_outside, base_dir)
    kind = check_kind(doc)
    if kind not in ("scene", "creature"):
        raise CorpusError(doc.mark.problem(
            f"expected a scene or a creature, but this is {checks.article(kind)} document"))
    return _scene(source, doc, kind, inc)


def validate_document(source, *, allow_outside: bool = False, base_dir=None) -> str:
    """Check any corpus document fully (includes, helpers, semantics); returns its kind."""
    doc, inc = _open(source, allow_outside, base_dir)
    kind = check_kind(doc)
    if kind in ("scene", "creature"):
        _scene(source, doc, kind, inc)
    elif kind == "environment":
        problems: list[Problem] = []
        _obstacles(expand_document(doc, "environment", inc), problems)
        if problems:
            raise CorpusError(problems)
    elif kind == "particles":  # the particle stage checks names and masses beyond the schema
        from pipeline.particles.spec import resolve_particles

        resolve_particles(expand_document(doc, kind, inc))
    else:
        expand_document(doc, kind, inc)
    return kind


def _scene(source, doc: MDict, kind: str, inc: Includes):
    """The Scene of a scene document or of a creature wrapped in the default scene; a scene
    of `particles:` creatures goes to the particle stage (a ParticleScene)."""
    if kind == "creature":
        wrapped = wrap_creature(expand_document(doc, "creature", inc))
        return _build_scene(expand_scene(wrapped, inc), inc, lone_creature=True)
    doc = expand_scene(doc, inc)
    scene = _build_scene(doc, inc)
    if not has_particles(doc):
        return scene
    if scene.creatures or not isinstance(source, (str, os.PathLike)):
        raise CorpusError(doc.mark.problem(
            "a scene with particle creatures must come from a file and hold only particle creatures"))
    from pipeline.particles.spec import load_particle_scene

    return load_particle_scene(source)


def _open(source, allow_outside, base_dir) -> tuple[MDict, Includes]:
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        inc = Includes(project_root(path.resolve().parent), allow_outside)
        inc.note(path.resolve())
        inc.chain.append(path.resolve())
        return read_file(path), inc
    if isinstance(source, dict):
        base = Path(base_dir) if base_dir is not None else Path.cwd()
        # a pseudo file inside base_dir, so relative paths in the dict resolve there
        doc = source if isinstance(source, MDict) else from_plain(source, Mark(str(base / "<dict>"), None, None))
        return doc, Includes(project_root(base), allow_outside)
    raise CorpusError(f"pipeline.load takes a path or a dict, not {type(source).__name__}")


def _join(path: str, rest: str) -> str:
    return f"{path}.{rest}" if path else rest


def _where(mark: Mark, path: str) -> Where:
    return Where(mark.file, mark.line, mark.col, path)


# --- scene ------------------------------------------------------------------------------

def _build_scene(doc: MDict, inc: Includes, lone_creature: bool = False) -> Scene:
    """`lone_creature`: the scene wraps a creature file, so paths start at its top level."""
    problems: list[Problem] = []
    creatures = []
    for i, cdoc in enumerate(doc.get("creatures", ())):
        if "use" in cdoc:  # a particle creature: checked by its own stage, not a Creature
            _check_particles(cdoc, f"creatures[{i}]", inc, problems)
            continue
        # field paths are relative to the document the location points into: the scene for
        # inline creatures, the creature file for included ones
        inline = not lone_creature and cdoc.mark.file == doc.mark.file
        creature = _creature(cdoc, f"creatures[{i}]" if inline else "", f"creatures[{i}]",
                             doc["creatures"].item_mark(i), problems)
        if creature is not None:
            creatures.append(creature)
    env_doc = doc["environment"]
    particle_world = isinstance(env_doc, str)  # a `particles:` world, resolved by its stage
    if not particle_world:
        creatures.extend(_obstacles(env_doc, problems))
    _unique_creature_names(doc, creatures, problems)
    by_name = {c.name: c for c in creatures}
    owners: dict[str, list[str]] = {}
    for c in creatures:
        for b in c.bodies:
            owners.setdefault(b.name, []).append(c.name)
    controllers = tuple(_controllers(doc, by_name, problems))
    timeline = tuple(_timeline(doc, owners, by_name, problems))
    simulation = _simulation(doc, problems)
    if problems:
        raise CorpusError(checks.in_file_order(problems))
    outputs = to_si(doc["outputs"], "outputs") if "outputs" in doc else {}
    return Scene(
        name=doc["scene"], creatures=tuple(creatures),
        environment={"particles": env_doc} if particle_world else to_si(env_doc, "environment"),
        controllers=controllers, timeline=timeline, simulation=simulation, outputs=outputs,
        source=plain(doc), files=tuple(inc.files), where=_where(doc.mark, ""))


def _check_particles(entry: MDict, path: str, inc: Includes, problems: list[Problem]) -> None:
    from pipeline.particles.spec import resolve_particles

    doc = include(entry["use"], entry.value_mark("use"), f"{path}.use", "particles", inc, entry.get("with"))
    mark = entry.mark
    try:
        resolve_particles(doc, _where(mark, path), name=entry.get("name"), at=to_si(entry, "scene",
                          "/$defs/creature_item").get("at"), velocity=entry.get("velocity"))
    except CorpusError as exc:
        problems.extend(exc.problems)


def has_particles(scene_doc: MDict) -> bool:
    return any("use" in c for c in scene_doc.get("creatures", ()))


def _unique_creature_names(doc, creatures, problems) -> None:
    seen: dict[str, Where] = {}
    for c in creatures:
        if c.name in seen:
            problems.append(Problem(
                f"two creatures (or obstacles) are named '{c.name}' (the first at line {seen[c.name].line}); "
                "give the include a `name:`", c.where.file, c.where.line, c.where.col, c.where.path))
        else:
            seen[c.name] = c.where


def _controllers(doc, by_name, problems):
    for i, item in enumerate(doc.get("controllers", ())):
        path = f"controllers[{i}]"
        target = item.get("creature")
        if target is not None and target not in by_name:
            problems.append(item.value_mark("creature").problem(
                f"no creature named '{target}' in this scene{checks.did_you_mean(target, by_name)}",
                f"{path}.creature"))
        where = _where(doc["controllers"].item_mark(i), path)
        if "python" in item:
            yield ControllerRef("python", target, python=item["python"],
                                params=plain(item.get("params", {})), where=where)
        else:
            yield ControllerRef("script", target, script=to_si(item, "controller"), where=where)


def _timeline(doc, owners, by_name, problems):
    entries = []
    for i, entry in enumerate(doc.get("timeline", ())):
        path = f"timeline[{i}]"
        at = _si_value(entry["at"], "time")
        checks.positive(at, entry.value_mark("at"), f"{path}.at", "a command time", problems, allow_zero=True)
        (action, args), = entry["do"].items()
        checks.check_command_names(args, owners, by_name, f"{path}.do.{action}", problems)
        si_args = to_si(entry["do"], "commands")[action]
        entries.append(Command(at, action, si_args if isinstance(si_args, dict) else {"value": si_args},
                               _where(doc["timeline"].item_mark(i), path)))
    return sorted(entries, key=lambda c: c.at)


def _si_value(value, dimension: str) -> float:
    return units.to_si(value, dimension)


def _simulation(doc, problems) -> SimulationSettings:
    sim = doc.get("simulation")
    if sim is None:
        return SimulationSettings()
    si = to_si(sim, "scene", "/properties/simulation")
    for key in ("duration", "dt", "h", "h_min", "h_max", "atol", "rtol"):
        if key in si:
            checks.positive(si[key], sim.value_mark(key), f"simulation.{key}", f"`{key}`", problems)
    if "h" in si and "dt" in si and si["h"] > si["dt"] * (1 + 1e-12):
        problems.append(sim.value_mark("h").problem(
            f"the integrator step h ({si['h']:g} s) is larger than the frame step dt ({si['dt']:g} s)",
            "simulation.h"))
    defaults = SimulationSettings()
    return SimulationSettings(**{k: si.get(k, getattr(defaults, k)) for k in defaults.__dataclass_fields__})


# --- creatures --------------------------------------------------------------------------

def _creature(doc: MDict, path: str, entry_path: str, mark: Mark, problems: list[Problem]) -> Creature | None:
    """`path`: field path prefix of the creature document; `entry_path`, `mark`: where the
    scene names this creature, for scene-level messages."""
    si = to_si(doc, "creature")
    bodies = doc["bodies"]
    order = checks.tree_order(bodies, _join(path, "bodies"), problems)
    mode = si.get("root", {}).get("mode", "free")
    built: dict[str, Body] = {}
    for i in order:
        body = _body(bodies[i], si["bodies"][i], si, doc, mode, _join(path, f"bodies[{i}]"), problems)
        if body is not None:
            built[body.name] = body
    if len(built) != len(bodies):
        return None
    _check_root_motion(doc, si, mode, path, problems)
    prescribed = si.get("root", {}).get("prescribed") if mode == "prescribed" else None
    return Creature(si["creature"], tuple(built[bodies[i]["name"]] for i in order), mode, prescribed,
                    _where(mark, entry_path))


def _check_root_motion(doc: MDict, si: dict, mode: str, path: str, problems: list[Problem]) -> None:
    """An initial velocity needs a free root; prescribed motion needs its block and mode."""
    root = doc.get("root", MDict(mark=doc.mark))
    if "velocity" in si and mode != "free":
        problems.append(doc.key_mark("velocity").problem(
            f"an initial velocity needs a free root, but the root mode is '{mode}'", _join(path, "velocity")))
    if mode == "prescribed" and "prescribed" not in si.get("root", {}):
        problems.append(root.value_mark("mode").problem(
            "root mode 'prescribed' needs a `prescribed: {linear, angular}` block", _join(path, "root.mode")))
    if mode != "prescribed" and "prescribed" in si.get("root", {}):
        problems.append(root.key_mark("prescribed").problem(
            f"`prescribed` motion needs `mode: prescribed` (the mode is '{mode}')", _join(path, "root.prescribed")))


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
    joint = _joint(joint_doc, joint_si, jtype, R, path + ".joint", problems, creature_si.get("scale_by", "none"))
    if jtype == "free" and is_root and joint is not None:
        placement, joint = _free_root_state(body, joint, R, t, creature_si, creature_doc, joint_si, path, problems)
    geoms = _geoms(body, si, creature_si, path, problems)
    inertial = None
    if "inertial" in si:
        inertial = _inertial(body["inertial"], si["inertial"], f"{path}.inertial", problems)
    if jtype != "fixed" and inertial is None and not any(g.inertial for g in geoms) and len(problems) == n0:
        problems.append(body.value_mark("name").problem(
            f"body '{si['name']}' moves on a {jtype} joint but has no mass: give it a `shape`, "
            "a `mass` or an `inertial`", f"{path}.name"))
    if len(problems) > n0:
        return None
    return Body(si["name"], None if is_root else si["parent"], placement, joint, tuple(geoms), inertial,
                bool(si.get("sticky", False)), _where(body.value_mark("name"), path))


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


def _joint(doc: MDict, si: dict, jtype: str, R_place: np.ndarray, path: str,
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
                 forces, _where(doc.mark, path))


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


def _inertial(doc, si, path, problems) -> Inertial | None:
    n0 = len(problems)
    checks.positive(si["mass"], doc.value_mark("mass"), f"{path}.mass", "a mass", problems)
    inertia = list(si.get("inertia", (0.0, 0.0, 0.0)))
    if len(inertia) not in (3, 6):
        problems.append(doc.value_mark("inertia").problem(
            f"give 3 or 6 inertia components, got {len(inertia)}", f"{path}.inertia"))
    inertia += [0.0] * (6 - len(inertia))
    for k in range(3):
        checks.positive(inertia[k], doc.value_mark("inertia"), f"{path}.inertia[{k}]",
                        "a principal moment", problems, allow_zero=True)
    if len(problems) > n0:
        return None
    return Inertial(float(si["mass"]), tuple(float(x) for x in si.get("com", (0, 0, 0))),
                    tuple(float(x) for x in inertia))


# --- geometry ---------------------------------------------------------------------------

def _rgba(color) -> tuple[float, float, float, float]:
    if color is None:
        return DEFAULT_RGBA
    if isinstance(color, str):
        h = color.lstrip("#")
        vals = [int(h[i:i + 2], 16) / 255.0 for i in range(0, len(h), 2)]
    else:
        vals = [float(c) for c in color]
    return tuple(vals + [1.0] * (4 - len(vals)))


def _geoms(body: MDict, si: dict, creature_si: dict, path: str, problems) -> list[Geom]:
    density = si.get("density", creature_si.get("density", DEFAULT_DENSITY))
    if "density" in si:
        checks.positive(density, body.value_mark("density"), f"{path}.density", "a density", problems)
    geoms = []
    if "shape" in si:
        geoms.append(_geom(body, si, density, si.get("color"), si.get("name", ""), True, path, problems))
    for k, part in enumerate(si.get("parts", ())):
        part_doc = body["parts"][k]
        part_density = part.get("density", density)
        geoms.append(_geom(part_doc, part, part_density, part.get("color", si.get("color")),
                           part.get("name", f"{si['name']}.part{k}"), part.get("inertial", True),
                           f"{path}.parts[{k}]", problems))
    if "mass" in si:
        if "shape" not in si:
            problems.append(body.key_mark("mass").problem("`mass` needs a `shape` to spread it over", f"{path}.mass"))
    return [g for g in geoms if g is not None]


def _geom(doc: MDict, si: dict, density, color, name, inertial, path, problems) -> Geom | None:
    shape_doc = doc["shape"]
    (shape, arg), = si["shape"].items()
    try:
        R, t, s = split_scale(si.get("transform", ()))
    except ValueError as exc:
        problems.append(doc.value_mark("transform").problem(str(exc), f"{path}.transform"))
        return None
    mark = shape_doc.value_mark(shape)
    where = f"{path}.shape.{shape}"
    uniform_xy = abs(s[0] - s[1]) <= 1e-12 * max(s[0], s[1])
    mesh_file = None
    if shape == "box":
        size = tuple(np.asarray(arg) * s)
    elif shape == "sphere":
        if np.ptp(s) <= 1e-12 * s.max():
            size = (arg * s[0],)
        else:  # a sphere scaled unevenly is an ellipsoid
            shape, size = "ellipsoid", tuple(arg * s)
    elif shape == "ellipsoid":
        size = tuple(np.asarray(arg) * s)
    elif shape in ("capsule", "cylinder", "frustum"):
        if not uniform_xy:
            problems.append(doc.value_mark("transform").problem(
                f"a {shape} must be scaled equally in x and y (its cross-section is round)", f"{path}.transform"))
            return None
        if shape == "frustum":
            size = (arg["bottom"] * s[0], arg["top"] * s[0], arg["length"] * s[2])
        else:
            size = (arg["radius"] * s[0], arg["length"] * s[2])
    else:  # mesh
        scale = np.broadcast_to(np.asarray(arg.get("scale", 1.0), float), (3,))
        size = tuple(scale * s)
        mesh_file = arg["file"]
    ok = True
    for k, v in enumerate(size):
        at, sub = _size_location(shape_doc, shape, k, where)
        if shape == "frustum" and k == 1:
            ok &= checks.positive(v, at, sub, "a frustum's top radius", problems, allow_zero=True)
        elif shape == "mesh":
            if v == 0:
                ok = False
                problems.append(mark.problem("a mesh scale must not be zero", where))
        else:
            ok &= checks.positive(v, at, sub, f"a {shape} size", problems)
    if "density" in si:
        ok &= checks.positive(si["density"], doc.value_mark("density"), f"{path}.density", "a density", problems)
    if "mass" in si:
        ok &= checks.positive(si["mass"], doc.value_mark("mass"), f"{path}.mass", "a mass", problems)
    if not ok:
        return None
    return Geom(shape, tuple(float(v) for v in size), pose(R, t), mesh_file, float(density),
                float(si["mass"]) if "mass" in si else None, bool(inertial), bool(si.get("colliding", True)),
                _rgba(color), name, _where(mark, where))


_SIZE_KEYS = {"capsule": ("radius", "length"), "cylinder": ("radius", "length"),
              "frustum": ("bottom", "top", "length")}


def _size_location(shape_doc: MDict, shape: str, k: int, where: str) -> tuple[Mark, str]:
    """Where the k-th size number of a shape was written (for messages)."""
    written = next(iter(shape_doc.values()))
    if isinstance(written, list) and k < len(written):
        return written.item_mark(k), f"{where}[{k}]"
    if shape in _SIZE_KEYS and isinstance(written, MDict):
        key = _SIZE_KEYS[shape][k]
        return written.value_mark(key), f"{where}.{key}"
    return shape_doc.value_mark(next(iter(shape_doc))), where


# --- environment obstacles --------------------------------------------------------------

def _obstacles(env_doc: MDict, problems: list[Problem]) -> list[Creature]:
    """Obstacles become one-body creatures: static ones fixed to the world, free ones free."""
    out = []
    si_env = to_si(env_doc, "environment")
    for i, (doc, si) in enumerate(zip(env_doc.get("obstacles", ()), si_env.get("obstacles", ()))):
        path = f"environment.obstacles[{i}]"
        n0 = len(problems)
        mode = si.get("mode", "static")
        try:
            R, t = rigid(si.get("at", ()))
        except ValueError as exc:
            problems.append(doc.value_mark("at").problem(str(exc), f"{path}.at"))
            continue
        geom = _geom(doc, si, si.get("density", DEFAULT_DENSITY), si.get("color"), si["name"], True, path, problems)
        if len(problems) > n0 or geom is None:
            continue
        where = _where(doc.value_mark("name"), path)
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
