"""Scene (or a lone Creature) -> Model: topology, joints, mass properties, force tables,
geometry and gravity, then the contact tables of pipeline.physics.contact.

Bodies keep their creature's topological order, creatures follow one another. A tree's
root is jointed to the world: its placement is its pose in the world; for a free root the
placement becomes the initial q (composed with any Joint.q0 pose), so jpos/jrot are the
identity. Root mode `fixed` welds the root (joint FIXED); `prescribed` marks the root's
joint acceleration as given (TreeArrays.prescribed).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from pipeline.compiler import geometry as geo
from pipeline.compiler.mass import (check_inertia, combine, inertia_matrix,
                                   unit_density_properties)
from pipeline.errors import CorpusError, Problem
from pipeline.physics.model import (FIXED, FREE, JOINT_NQ, JOINT_NV, JOINT_TYPE_NAMES,
                                    BALL, UNIVERSAL, GeomArrays, JointForceArrays, Model,
                                    TreeArrays)
from pipeline.spec.transforms import matrix_from_quat as quat_to_matrix
from pipeline.spec.types import Creature, Scene

DEFAULT_GRAVITY = 9.8  # m/s^2 down -z: corpus `setgrav` default, also what "on" means


def quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _problem(where, message):
    return Problem(message, where.file, where.line, where.col, where.path)


def gravity_vector(environment) -> np.ndarray:
    """Scene.environment['gravity']: a magnitude (down -z), a 3-vector, "on" (the default
    9.8) or "off" (environment.schema.json)."""
    g = (environment or {}).get("gravity", DEFAULT_GRAVITY)
    if isinstance(g, str):
        g = {"on": DEFAULT_GRAVITY, "off": None}.get(g.lower(), g)
    if g is None or g is False:
        return np.zeros(3)
    if g is True:
        g = DEFAULT_GRAVITY
    if isinstance(g, (int, float)):
        return np.array([0.0, 0.0, -float(g)])
    try:
        vec = np.asarray(g, float)
    except (TypeError, ValueError):
        vec = None
    if vec is None or vec.shape != (3,):
        raise CorpusError(Problem(f"gravity must be a magnitude, a vector [gx, gy, gz], on or "
                                  f"off, got {g!r}", path="environment.gravity"))
    return vec


def as_scene(spec) -> Scene:
    """A Scene, or a lone Creature wrapped in a scene with the default settings."""
    if isinstance(spec, Scene):
        return spec
    if isinstance(spec, Creature):
        return Scene(name=spec.name, creatures=(spec,), environment={})
    raise TypeError(f"expected a Scene or a Creature, got {type(spec).__name__}")


def compile_model(spec) -> tuple[Model, np.ndarray]:
    """(Model, cstate0): the compiled model with its contact tables, and the initial
    non-integrated contact state that belongs in Data. Remembered by content in the process
    (pipeline/compiler/cache.py)."""
    from pipeline.compiler.cache import compiled

    return compiled(as_scene(spec), _compile_model)


def _compile_model(scene: Scene) -> tuple[Model, np.ndarray]:
    from pipeline.compiler.contact import build_contact

    model = _articulated_model(scene)
    contact, cstate0 = build_contact(scene, model)
    return dataclasses.replace(model, contact=contact), cstate0


def build_model(spec) -> Model:
    """The Model of a Scene or a lone Creature (see compile_model for the contact state)."""
    return compile_model(spec)[0]


def _articulated_model(scene: Scene) -> Model:
    bodies = []  # (creature index, creature, body)
    for ci, creature in enumerate(scene.creatures):
        for body in creature.bodies:
            bodies.append((ci, creature, body))
    nb = len(bodies)
    names = _unique_names(bodies)
    index = {}
    parent = np.full(nb, -1, np.int64)
    problems = []
    for i, (ci, creature, body) in enumerate(bodies):
        key = (ci, body.name)
        if key in index:
            problems.append(_problem(body.where, f"body name {body.name!r} is used twice in "
                                                 f"creature {creature.name!r}"))
        index[key] = i
        if body.parent is not None:
            p = index.get((ci, body.parent))
            if p is None:
                problems.append(_problem(body.where, f"parent {body.parent!r} of body "
                                                     f"{body.name!r} is not an earlier body"))
            else:
                parent[i] = p
    if problems:
        raise CorpusError(problems)

    jtype = np.zeros(nb, np.int64)
    for i, (_, creature, body) in enumerate(bodies):
        jtype[i] = _joint_code(body, creature)
    qadr = np.zeros(nb, np.int64)
    vadr = np.zeros(nb, np.int64)
    nq = nv = 0
    for i in range(nb):
        qadr[i], vadr[i] = nq, nv
        nq += JOINT_NQ[jtype[i]]
        nv += JOINT_NV[jtype[i]]

    jaxis = np.zeros((nb, 2, 3))
    jpos = np.zeros((nb, 3))
    jrot = np.tile(np.eye(3), (nb, 1, 1))
    q0 = np.zeros(nq)
    qd0 = np.zeros(nv)
    prescribed = np.zeros(nb, np.bool_)
    for i, (_, creature, body) in enumerate(bodies):
        problems += _fill_joint(i, body, creature, jtype[i], jaxis, jpos, jrot,
                                q0[qadr[i]:qadr[i] + JOINT_NQ[jtype[i]]],
                                qd0[vadr[i]:vadr[i] + JOINT_NV[jtype[i]]])
        prescribed[i] = parent[i] < 0 and creature.root_mode == "prescribed"
    if problems:
        raise CorpusError(problems)

    mass = np.zeros(nb)
    com = np.zeros((nb, 3))
    inertia = np.zeros((nb, 3, 3))
    for i, (_, _, body) in enumerate(bodies):
        mass[i], com[i], inertia[i] = body_mass_properties(body)
    static = _welded_to_world(parent, jtype)
    for i, (_, _, body) in enumerate(bodies):
        if not static[i]:
            check_inertia(mass[i], inertia[i], body.where, body.name)

    scale = force_scale(parent, jtype, vadr, nv, mass, [body for _, _, body in bodies])
    forces, armature = _force_tables(bodies, jtype, vadr, nv, scale)
    tree = TreeArrays(parent=parent, jtype=jtype, jaxis=jaxis, jpos=jpos, jrot=jrot,
                      qadr=qadr, vadr=vadr, mass=mass, com=com, inertia=inertia,
                      armature=armature, prescribed=prescribed)
    geoms, meshes = _geoms(bodies)
    return Model(nq=nq, nv=nv, body_names=names, joint_names=names, tree=tree, forces=forces,
                 geoms=geoms, gravity=gravity_vector(scene.environment), q0=q0, qd0=qd0,
                 body_tree=np.array([ci for ci, _, _ in bodies], np.int64),
                 tree_names=tuple(c.name for c in scene.creatures), geom_meshes=meshes)


def _unique_names(bodies) -> tuple[str, ...]:
    """Body names as written when unique in the scene, else `creature/body`."""
    count = {}
    for _, _, body in bodies:
        count[body.name] = count.get(body.name, 0) + 1
    return tuple(body.name if count[body.name] == 1 else f"{creature.name}/{body.name}"
                 for _, creature, body in bodies)


def _joint_code(body, creature) -> int:
    if body.parent is None and creature.root_mode == "fixed":
        return FIXED
    try:
        return JOINT_TYPE_NAMES.index(body.joint.type)
    except ValueError:
        raise CorpusError(_problem(body.joint.where, f"unknown joint type {body.joint.type!r}; "
                                   f"expected one of {', '.join(JOINT_TYPE_NAMES)}")) from None


def _fill_joint(i, body, creature, jt, jaxis, jpos, jrot, q0, qd0) -> list[Problem]:
    """Axes, placement and initial state of body i's joint; returns the problems found."""
    joint = body.joint
    where = joint.where if joint.where.line is not None else body.where
    problems = []
    need = 2 if jt == UNIVERSAL else (1 if jt in (1, 2) else 0)
    if len(joint.axes) < need:
        problems.append(_problem(where, f"{JOINT_TYPE_NAMES[jt]} joint of body {body.name!r} "
                                        f"needs {need} axis(es)"))
        return problems
    for k in range(need):
        a = np.asarray(joint.axes[k], float)
        n = float(np.linalg.norm(a))
        if not n > 1e-12 or not math.isfinite(n):
            problems.append(_problem(where, f"joint axis of body {body.name!r} is zero"))
            return problems
        jaxis[i, k] = a / n
    if jt == UNIVERSAL and abs(float(jaxis[i, 0] @ jaxis[i, 1])) > 1.0 - 1e-9:
        problems.append(_problem(where, f"the two universal-joint axes of body {body.name!r} "
                                        "are parallel"))
    place_pos = np.asarray(body.placement.pos, float)
    place_quat = tuple(float(x) for x in body.placement.quat)
    nq, nv = len(q0), len(qd0)
    given_q = tuple(float(x) for x in joint.q0)
    given_qd = tuple(float(x) for x in joint.qd0)
    if given_q and len(given_q) != nq:
        problems.append(_problem(where, f"joint q of body {body.name!r} has {len(given_q)} "
                                        f"values, a {JOINT_TYPE_NAMES[jt]} joint has {nq}"))
    if given_qd and len(given_qd) != nv:
        problems.append(_problem(where, f"joint qd of body {body.name!r} has {len(given_qd)} "
                                        f"values, a {JOINT_TYPE_NAMES[jt]} joint has {nv}"))
    if problems:
        return problems
    if given_qd:
        qd0[:] = given_qd
    if jt == FREE and body.parent is None:
        # the world pose of a free root lives in q; compose placement * joint pose
        pos, quat = np.zeros(3), (1.0, 0.0, 0.0, 0.0)
        if given_q:
            pos, quat = np.asarray(given_q[:3]), given_q[3:]
        q0[:3] = place_pos + quat_to_matrix(place_quat) @ pos
        q0[3:] = _unit(quat_mul(place_quat, quat), where, body.name, problems)
        return problems
    jpos[i] = place_pos
    jrot[i] = quat_to_matrix(place_quat)
    if jt == BALL:
        q0[:] = _unit(given_q or (1.0, 0.0, 0.0, 0.0), where, body.name, problems)
    elif jt == FREE:
        q0[:3] = given_q[:3] if given_q else 0.0
        q0[3:] = _unit(given_q[3:] if given_q else (1.0, 0.0, 0.0, 0.0), where, body.name,
                       problems)
    elif given_q:
        q0[:] = given_q
    return problems


def _unit(quat, where, name, problems):
    q = np.asarray(quat, float)
    n = float(np.linalg.norm(q))
    if not n > 1e-12:
        problems.append(_problem(where, f"joint quaternion of body {name!r} is zero"))
        return np.array([1.0, 0.0, 0.0, 0.0])
    return q / n


def body_mass_properties(body):
    """(mass, com, inertia about com) of a body in its frame: Body.inertial if given,
    else the sum of its inertial geoms (density or given mass)."""
    if body.inertial is not None:
        ine = body.inertial
        return float(ine.mass), np.asarray(ine.com, float), inertia_matrix(ine.inertia)
    parts = []
    for geom in body.geoms:
        if not geom.inertial or geom.shape == "plane":
            continue
        mesh = geo.closed_mesh(geom) if geom.shape == "mesh" else None
        vol, c, I_unit = unit_density_properties(geom.shape, geo.size3(geom), mesh)
        if not vol > 0.0:
            w = geom.where if geom.where.line is not None else body.where
            raise CorpusError(_problem(w, f"{geom.shape} of body {body.name!r} has no volume "
                                          f"(size {tuple(geom.size)})"))
        if geom.mass is not None:
            rho = float(geom.mass) / vol
        elif geom.density is not None:
            rho = float(geom.density)
        else:
            w = geom.where if geom.where.line is not None else body.where
            raise CorpusError(_problem(w, f"shape of body {body.name!r} has neither a density "
                                          "nor a mass"))
        parts.append((rho * vol, c, rho * I_unit, quat_to_matrix(geom.pose.quat),
                      np.asarray(geom.pose.pos, float)))
    return combine(parts)


def _welded_to_world(parent, jtype) -> np.ndarray:
    """True for bodies that cannot move: fixed joints all the way to the world."""
    out = np.zeros(len(parent), bool)
    for i in range(len(parent)):
        out[i] = jtype[i] == FIXED and (parent[i] < 0 or out[parent[i]])
    return out


def force_scale(parent, jtype, vadr, nv, mass, bodies) -> np.ndarray:
    """Per-DOF multiplier of the scaled force constants (McKenna's springtype, a joint's
    `scale_by`): 1, the body's mass, or the mass of the subtree distal to the joint.
    `bodies` are the Body specs of the model's first len(bodies) bodies."""
    distal = np.array(mass, dtype=np.float64)
    for i in range(len(parent) - 1, -1, -1):
        if parent[i] >= 0:
            distal[parent[i]] += distal[i]
    out = np.ones(nv)
    for i, body in enumerate(bodies):
        n = JOINT_NV[jtype[i]]
        if n == 0:
            continue
        by = body.joint.forces.scale_by
        scale = {"none": 1.0, "mass": mass[i], "distal_mass": distal[i]}.get(by)
        if scale is None:
            raise CorpusError(_problem(body.joint.where, f"scale_by must be none, mass or "
                                                         f"distal_mass, got {by!r}"))
        out[vadr[i]:vadr[i] + n] = scale
    return out


def _force_tables(bodies, jtype, vadr, nv, dof_scale):
    """JointForceArrays (the per-DOF `force_scale` applied to spring, exp-spring alpha,
    damper and servo constants) and the per-DOF armature."""
    t = {name: np.zeros(nv) for name in JointForceArrays._fields}
    t["limit_lower"][:] = -np.inf
    t["limit_upper"][:] = np.inf
    armature = np.zeros(nv)
    for i, (_, _, body) in enumerate(bodies):
        n = JOINT_NV[jtype[i]]
        if n == 0:
            continue
        f = body.joint.forces
        s = slice(vadr[i], vadr[i] + n)
        scale = dof_scale[s]
        t["damping"][s] = scale * f.damping
        t["spring_k"][s] = scale * f.spring_k
        t["spring_rest"][s] = _per_dof(f.spring_rest, n)
        if f.exp_spring is not None:
            t["exp_alpha"][s] = scale * f.exp_spring.alpha
            t["exp_beta"][s] = f.exp_spring.beta
            t["exp_rest"][s] = f.exp_spring.rest
        if f.limit_lower is not None:
            t["limit_lower"][s] = f.limit_lower
        if f.limit_upper is not None:
            t["limit_upper"][s] = f.limit_upper
        t["limit_k"][s] = f.limit_k
        t["limit_b"][s] = f.limit_b
        t["bias"][s] = f.bias
        t["servo_kp"][s] = scale * f.servo_kp
        t["servo_kd"][s] = scale * f.servo_kd
        t["servo_target"][s] = _per_dof(f.servo_target, n)
        armature[s] = f.armature
    return JointForceArrays(**t), armature


def _per_dof(values, n):
    v = tuple(values)
    if not v:
        return 0.0
    return v[0] if len(v) == 1 else np.asarray(v[:n], float)


def _geoms(bodies):
    rows = []
    meshes = []
    for i, (_, _, body) in enumerate(bodies):
        for geom in body.geoms:
            code = geo.GEOM_CODES.get(geom.shape)
            if code is None:
                raise CorpusError(_problem(geom.where, f"unknown shape {geom.shape!r}"))
            analytic = code not in (geo.MESH, geo.PLANE)
            mesh = (geom.shape, geo.size3(geom)) if analytic else geo.render_mesh(geom)
            rot = quat_to_matrix(geom.pose.quat)
            pos = np.asarray(geom.pose.pos, float)
            lo, hi = geo.body_frame_aabb(*geo.local_bounds(geom, None if analytic else mesh[0]), rot, pos)
            rows.append((i, code, geo.size3(geom), pos, rot, geom.rgba, geom.colliding, lo, hi))
            meshes.append(mesh)
    ng = len(rows)
    cols = list(zip(*rows)) if rows else [()] * 9
    geoms = GeomArrays(
        body=np.array(cols[0], np.int64).reshape(ng),
        type=np.array(cols[1], np.int64).reshape(ng),
        size=np.array(cols[2], float).reshape(ng, 3),
        pos=np.array(cols[3], float).reshape(ng, 3),
        rot=np.array(cols[4], float).reshape(ng, 3, 3),
        rgba=np.array(cols[5], float).reshape(ng, 4),
        colliding=np.array(cols[6], np.bool_).reshape(ng),
        aabb_lo=np.array(cols[7], float).reshape(ng, 3),
        aabb_hi=np.array(cols[8], float).reshape(ng, 3))
    return geoms, geo.RenderMeshes(meshes)
