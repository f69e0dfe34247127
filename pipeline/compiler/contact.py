"""Contact compilation: the environment dict (Scene.environment) and the compiled Model ->
the contact tables the kernels read (pipeline.physics.contact.forces.ContactArrays) + the
initial contact state."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from pipeline.compiler.contact_points import POINT_MODES, geom_collision_box, geom_contact_points
from pipeline.compiler.contact_shapes import build_body_shapes, empty_body_shapes
from pipeline.compiler.environment import contact_params, number
from pipeline.compiler.geometry import GEOM_CODES
from pipeline.compiler.terrain import build_grid
from pipeline.errors import CorpusError, Problem
from pipeline.physics.contact import state as S
from pipeline.physics.contact.forces import ContactArrays
from pipeline.spec.loader import mark_at, read_file

FLAT = (np.array([0.0, 0.0, 1.0, 1.0]), np.zeros((1, 1)))


def assemble(params, sticky, points, boxes=None, pairs=(), attach=(), grid=FLAT, shapes=None):
    """Pack contact tables and the initial cstate.

    params (N_PARAMS,) · sticky (nb,) initial flags · points (body, centre, radius) lists ·
    boxes (body, centre, rot, half) lists · pairs [(a, b)] · attach [(b1, p1, b2, p2,
    (k, alpha, beta, e, break, rest))] with -1 for the world · grid (geom, heights) ·
    shapes: BodyShapes (contact_shapes.py; default none).
    """
    pb, pp, pr = _sorted_by_body(*points)
    bb, bp, br, bh = boxes if boxes is not None else ([], [], [], [])
    na = len(attach)
    nb = len(sticky)
    layout = np.zeros(S.LAYOUT_SIZE, np.int64)
    layout[S.LAYOUT_STICKY] = S.N_PARAMS
    layout[S.LAYOUT_ANCHORS] = S.N_PARAMS + nb
    layout[S.LAYOUT_ATTACH] = S.N_PARAMS + nb + S.ANCHOR_STRIDE * len(pb)
    cstate0 = np.zeros(layout[S.LAYOUT_ATTACH] + na)
    cstate0[:S.N_PARAMS] = params
    cstate0[S.N_PARAMS:S.N_PARAMS + nb] = np.asarray(sticky, float)
    shapes = empty_body_shapes(nb) if shapes is None else shapes
    arrays = ContactArrays(
        enabled=np.array([1 if len(pb) or na or len(shapes.pair) else 0], np.int64),
        layout=layout,
        point_body=pb,
        point_pos=pp,
        point_radius=pr,
        **_groups(pb, pp, pr),
        box_body=np.asarray(bb, np.int64).reshape(-1),
        box_pos=np.asarray(bp, float).reshape(-1, 3),
        box_rot=np.asarray(br, float).reshape(-1, 3, 3),
        box_half=np.asarray(bh, float).reshape(-1, 3),
        pair=np.asarray(pairs, np.int64).reshape(-1, 2),
        shapes=shapes,
        attach_body=np.array([[a[0], a[2]] for a in attach], np.int64).reshape(-1, 2),
        attach_pos=np.array([[a[1], a[3]] for a in attach], float).reshape(-1, 2, 3),
        attach_const=np.array([a[4] for a in attach], float).reshape(-1, 6),
        grid_geom=np.asarray(grid[0], float),
        grid_h=np.ascontiguousarray(grid[1], float),
        grid_top=np.array([float(np.max(grid[1]))]),
    )
    return arrays, cstate0


def _sorted_by_body(bodies, centres, radii):
    """Contact points as arrays, grouped by body (stable: a body keeps its points' order)."""
    body = np.asarray(bodies, np.int64).reshape(-1)
    order = np.argsort(body, kind="stable")
    return (body[order], np.asarray(centres, float).reshape(-1, 3)[order],
            np.asarray(radii, float).reshape(-1)[order])


def _groups(body, centre, radius) -> dict:
    """Per-body runs of the sorted points and how far each run reaches from its body's
    origin, for the kernel's skip of bodies clear of the ground (`_ground`). The reach is
    padded by 1e-9 m so rounding in the world transform can never hide a contact."""
    start = np.flatnonzero(np.r_[True, body[1:] != body[:-1]]) if len(body) else np.zeros(0, int)
    bounds = np.r_[start, len(body)].astype(np.int64)
    reach = np.linalg.norm(centre, axis=1) + radius
    return dict(group_start=bounds, group_body=body[start],
                group_reach=np.array([reach[a:b].max() + 1e-9 for a, b in zip(bounds, bounds[1:])]),
                group_radius=np.array([radius[a:b].max() for a, b in zip(bounds, bounds[1:])]))


def body_index(model, name: str, path: str, file: str | None = None) -> int:
    """Index of a body by its name (or `creature/body` when names repeat across trees)."""
    names = model.body_names
    if name in names:
        return names.index(name)
    hits = [i for i, n in enumerate(names) if n.endswith("/" + name) or n.endswith("." + name)]
    if len(hits) == 1:
        return hits[0]
    raise CorpusError(Problem(f"no body named {name!r} (bodies: {', '.join(names)})",
                              file=file, path=path))


def _spec_body_index(model, creature, body) -> int:
    qualified = f"{creature.name}/{body.name}"
    name = qualified if qualified in model.body_names else body.name
    return body_index(model, name, body.where.path, body.where.file)


def _welded(model) -> np.ndarray:
    """Bodies rigidly fixed to the world: they never need contact points."""
    welded = np.zeros(model.nbody, bool)
    for b in range(model.nbody):
        p = model.tree.parent[b]
        welded[b] = model.tree.jtype[b] == 0 and (p < 0 or welded[p])
    return welded


def _geom_kind_names() -> dict:
    return {code: name for name, code in GEOM_CODES.items()}


def _environment_document(scene):
    """The environment as written, with line marks, and the file it is written in.

    Scene.environment is plain (marks dropped by unit conversion), so for error locations
    and relative height files the document is read again: inline in the scene file, or the
    file it names (`environment: path` or `{use: path, with: ...}`)."""
    file = scene.where.file if scene.where else None
    if not file:
        return None, None
    try:
        env = read_file(file).get("environment")
        if isinstance(env, dict) and "use" in env:
            env = env["use"]
        if isinstance(env, str):
            file = str((Path(file).parent / env).resolve())
            env = read_file(file)
    except (CorpusError, OSError):
        return None, None
    return (env if isinstance(env, dict) else None), file


def _locate(marked, error: CorpusError) -> CorpusError:
    """Give problems raised with a field path inside the environment its file:line:col."""
    located = []
    for p in error.problems:
        if p.line is None and p.path and marked is not None:
            keys = [int(k) if k.isdigit() else k
                    for k in re.findall(r"[^.\[\]]+", p.path.removeprefix("environment."))]
            mark = mark_at(marked, keys)
            p = Problem(p.message, mark.file or p.file, mark.line, mark.col,
                        "environment." + p.path.removeprefix("environment."))
        located.append(p)
    return CorpusError(located)


def build_contact(scene, model) -> tuple[ContactArrays, np.ndarray]:
    """Called by pipeline.compile once the articulated Model (without contact) exists.
    Returns the contact tables and the initial non-integrated contact state `cstate0`."""
    env = scene.environment or {}
    try:
        return _build(scene, model, env)
    except CorpusError as exc:
        raise _locate(_environment_document(scene)[0], exc) from None


def _build(scene, model, env):
    file = scene.where.file if scene.where else None
    params = contact_params(env)
    ground = dict(env.get("ground") or {})
    if ground.get("type") == "grid":
        source = _environment_document(scene)[1] if "file" in ground else None
        if source and "base_dir" not in ground:
            ground["base_dir"] = str(Path(source).parent)
        grid = build_grid(ground)
    else:
        grid = FLAT
    mode = env.get("contact_points", "shapes")
    if mode not in POINT_MODES:
        raise CorpusError(Problem(f"contact_points must be one of {POINT_MODES}", file=file,
                                  path="environment.contact_points"))

    sticky = np.zeros(model.nbody)
    for creature in scene.creatures:
        for body in creature.bodies:
            if body.sticky:
                sticky[_spec_body_index(model, creature, body)] = 1.0

    g = model.geoms
    kinds = _geom_kind_names() if len(g.body) else ()
    welded = _welded(model)
    points = ([], [], [])
    for k in range(len(g.body)):
        b = int(g.body[k])
        if b < 0 or not g.colliding[k] or welded[b]:
            continue
        centres, radii = geom_contact_points(kinds[g.type[k]], g.size[k], g.pos[k], g.rot[k],
                                             g.aabb_lo[k], g.aabb_hi[k], mode)
        for c, r in zip(centres, radii):
            points[0].append(b)
            points[1].append(c)
            points[2].append(r)

    collision = env.get("collision") or {}
    pairs = []
    for i, pair in enumerate(collision.get("pairs", [])):
        path = f"environment.collision.pairs[{i}]"
        pairs.append((body_index(model, pair[0], path, file), body_index(model, pair[1], path, file)))
    boxes = ([], [], [], [])
    in_pairs = {b for pair in pairs for b in pair}
    for k in range(len(g.body)):
        if int(g.body[k]) in in_pairs and g.colliding[k]:
            c, r, h = geom_collision_box(kinds[g.type[k]], g.size[k], g.pos[k], g.rot[k],
                                         g.aabb_lo[k], g.aabb_hi[k])
            for lst, v in zip(boxes, (int(g.body[k]), c, r, h)):
                lst.append(v)

    attach = [_attach_entry(model, a, f"environment.attach[{i}]", file)
              for i, a in enumerate(env.get("attach", []))]
    shapes = build_body_shapes(scene, model, collision, pairs, _name_resolver(model, collision, file))
    return assemble(params, sticky, points, boxes, pairs, attach, grid, shapes)


def _name_resolver(model, collision: dict, file):
    """resolve(name, path) -> the bodies a name stands for in collision filters: a group of
    `collision.groups`, a creature or obstacle (all its bodies), or a body."""
    groups = collision.get("groups") or {}

    def resolve(name, path, seen=()):
        if name in groups:
            if name in seen:
                raise CorpusError(Problem(f"collision group {name!r} contains itself", file=file,
                                          path=path))
            return sorted({b for i, member in enumerate(groups[name])
                           for b in resolve(member, f"environment.collision.groups.{name}[{i}]",
                                            seen + (name,))})
        if name in model.tree_names:
            return [int(b) for b in np.flatnonzero(model.body_tree == model.tree_names.index(name))]
        return [body_index(model, name, path, file)]

    return resolve


def _attach_entry(model, a: dict, path: str, file):
    def side(key_body, key_point):
        name = a.get(key_body, "world")
        b = -1 if name == "world" else body_index(model, name, f"{path}.{key_body}", file)
        p = [number(v, f"{path}.{key_point}[{i}]") for i, v in enumerate(a.get(key_point, [0, 0, 0]))]
        return b, p

    b1, p1 = side("body1", "point1")
    b2, p2 = side("body2", "point2")
    if b1 == b2:
        raise CorpusError(Problem("attach needs two different bodies (or one body and the world)",
                                  file=file, path=path))
    const = tuple(number(a.get(key, default), f"{path}.{key}") for key, default in
                  (("k", 0.0), ("exp_alpha", 0.0), ("exp_beta", 0.0), ("restitution", 1.0),
                   ("break_length", 0.0), ("rest", 0.0)))
    return b1, p1, b2, p2, const
