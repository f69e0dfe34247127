"""Exact collision shapes for body-body contact (pipeline.collision) and the body pairs that
collide, from the compiled geoms and the environment's `collision:` block; and the check
that no two of them overlap when the run starts.

Which pairs collide (`collision.shapes: true`): every two bodies of different creatures or
obstacles, except two static ones (welded to the world); with `self: true` also two
bodies of one creature, except a body and its parent and bodies welded together. Pairs in
`ignore` (names of bodies, creatures, obstacles or `groups`) never collide, and pairs
named in corpus's `pairs` keep the corner-in-box law instead.
"""
from __future__ import annotations

import numpy as np

from pipeline.collision.narrow import make_work, query
from pipeline.collision.shapes import bounding_radius, pack
from pipeline.compiler.geometry import GEOM_CODES
from pipeline.errors import CorpusError, Problem
from pipeline.physics import forward_kinematics
from pipeline.physics.contact.bodies import BodyShapes

KIND_OF_CODE = {code: name for name, code in GEOM_CODES.items()}
OVERLAP_TOLERANCE = 1e-9  # m: shapes this deep at the start count as touching


def collision_entry(kind: str, size, vertices):
    """The pack() entry of a geom (sizes as in GeomArrays), None for a plane."""
    s = np.asarray(size, float)
    if kind == "box":
        return "box", s / 2.0, None
    if kind == "sphere":
        return "sphere", s[:1], None
    if kind in ("capsule", "cylinder"):
        return kind, (s[0], s[1] / 2.0), None
    if kind in ("ellipsoid", "frustum"):
        return kind, s, None
    if kind == "mesh":
        return "hull", None, vertices
    return None


def empty_body_shapes(nb: int) -> BodyShapes:
    return BodyShapes(shapes=pack([]), pos=np.zeros((0, 3)), rot=np.zeros((0, 3, 3)),
                      radius=np.zeros(0), start=np.zeros(nb + 1, np.int64), reach=np.zeros(nb),
                      pair=np.zeros((0, 2), np.int64))


def _spec_geoms(scene):
    """The spec Geom of every compiled geom, in the compiler's order (build._geoms)."""
    return [geom for creature in scene.creatures for body in creature.bodies for geom in body.geoms]


def _problem(where, message):
    return Problem(message, where.file, where.line, where.col, where.path)


def _check_hull(entry, geom) -> None:
    """A mesh's collision hull must enclose a volume. Imported here: the hull module loads
    scipy (about 40 MB), which scenes without mesh collision shapes never need."""
    from pipeline.collision.hull import DegenerateHull

    try:
        pack([entry])
    except DegenerateHull as exc:
        raise CorpusError(_problem(geom.where, f"mesh {geom.mesh_file!r} {exc}")) from None


def _non_manifold(faces) -> bool:
    """True when an edge is shared by more than two faces."""
    f = np.asarray(faces, np.int64).reshape(-1, 3)
    if len(f) == 0:
        return False
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    return bool(counts.max() > 2)


def build_body_shapes(scene, model, collision: dict, corner_pairs, resolve) -> BodyShapes:
    """BodyShapes of the scene; `resolve(name, path)` -> body indices of a body, creature,
    obstacle or group name."""
    nb = model.nbody
    if not collision.get("shapes"):
        return empty_body_shapes(nb)
    g = model.geoms
    spec = _spec_geoms(scene)
    entries, body, pos, rot = [], [], [], []
    for k in range(len(g.body)):
        if g.body[k] < 0 or not g.colliding[k]:
            continue
        kind = KIND_OF_CODE[int(g.type[k])]
        vertices, faces = model.geom_meshes[k] if kind == "mesh" else (None, None)
        if kind == "mesh" and _non_manifold(faces):
            raise CorpusError(_problem(spec[k].where, f"mesh {spec[k].mesh_file!r} is not "
                                       "manifold (an edge joins more than two faces), so it "
                                       "has no inside to collide with"))
        entry = collision_entry(kind, g.size[k], vertices)
        if entry is None:
            continue
        if entry[0] == "hull":
            _check_hull(entry, spec[k])
        entries.append(entry)
        body.append(int(g.body[k]))
        pos.append(g.pos[k])
        rot.append(g.rot[k])
    shapes = pack(entries)
    body = np.array(body, np.int64)
    radius = np.array([bounding_radius(shapes, s) for s in range(len(entries))])
    start = np.searchsorted(body, np.arange(nb + 1)).astype(np.int64)
    pos = np.array(pos, float).reshape(-1, 3)
    reach = np.zeros(nb)
    for s, b in enumerate(body):
        reach[b] = max(reach[b], np.linalg.norm(pos[s]) + radius[s])
    bs = BodyShapes(shapes=shapes, pos=pos, rot=np.array(rot, float).reshape(-1, 3, 3),
                    radius=radius, start=start, reach=reach,
                    pair=_pairs(model, collision, start, corner_pairs, resolve))
    _check_start(scene, model, bs)
    return bs


def _rigid_roots(model) -> np.ndarray:
    """Per body, the body it is welded to through fixed joints (-1: the world)."""
    root = np.arange(model.nbody)
    for b in range(model.nbody):  # parents come first
        p = model.tree.parent[b]
        if model.tree.jtype[b] == 0:
            root[b] = -1 if p < 0 else root[p]
    return root


def _pairs(model, collision, start, corner_pairs, resolve) -> np.ndarray:
    has = np.diff(start) > 0
    root = _rigid_roots(model)
    parent, tree = model.tree.parent, model.body_tree
    self_collide = bool(collision.get("self", False))
    ignored = set()
    for i, (x, y) in enumerate(collision.get("ignore", [])):
        path = f"environment.collision.ignore[{i}]"
        for a in resolve(x, f"{path}[0]"):
            for b in resolve(y, f"{path}[1]"):
                ignored.add((min(a, b), max(a, b)))
    ignored |= {(min(a, b), max(a, b)) for a, b in corner_pairs}
    pairs = []
    for a in np.flatnonzero(has):
        for b in np.flatnonzero(has[a + 1:]) + a + 1:
            if root[a] == root[b] or (a, b) in ignored:  # welded together, or both static
                continue
            if tree[a] == tree[b] and not (self_collide and parent[a] != b and parent[b] != a):
                continue
            pairs.append((a, b))
    return np.array(pairs, np.int64).reshape(-1, 2)


def _check_start(scene, model, bs):
    """CorpusError naming both bodies and the depth of every pair overlapping at t = 0."""
    if len(bs.pair) == 0:
        return
    xpos, xrot = forward_kinematics(model, model.q0)
    wk = make_work()
    bodies = [body for creature in scene.creatures for body in creature.bodies]
    problems = []
    for a, b in bs.pair:
        depth = 0.0
        for sa in range(bs.start[a], bs.start[a + 1]):
            pa, ra = xpos[a] + xrot[a] @ bs.pos[sa], xrot[a] @ bs.rot[sa]
            for sb in range(bs.start[b], bs.start[b + 1]):
                pb, rb = xpos[b] + xrot[b] @ bs.pos[sb], xrot[b] @ bs.rot[sb]
                depth = max(depth, -query(bs.shapes, sa, pa, ra, sb, pb, rb, 0.0, 0.0, 0.0, wk))
        if depth > OVERLAP_TOLERANCE:
            names = model.body_names
            problems.append(_problem(bodies[b].where, f"bodies {names[a]!r} and {names[b]!r} "
                                     f"overlap by {depth * 1e3:.3g} mm at the start; move them "
                                     "apart, or list them in collision.ignore"))
    if problems:
        raise CorpusError(problems)
