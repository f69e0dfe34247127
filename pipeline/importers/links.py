"""What MJCF and URDF both become before they are written as a corpus creature: a list of
links, one joint each, in topological order, plus a log of what could not be carried over.

corpus gives every body exactly one joint, whose axis passes through the body frame origin.
The importers therefore split a source body with several joints into a chain of links (one
per joint, each named after its joint) and move each link's frame to its joint anchor; the
source body's geometry and inertia live on the last link of its chain, the inner links carry
only a negligible mass (INNER_LINK_MASS_FRACTION).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np

from pipeline.errors import CorpusError, Problem
from pipeline.importers.frames import Frame, number, placement_ops, vector

NAME_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_.+-]*$")
# corpus, like MuJoCo, refuses a moving body without mass; MuJoCo never meets one for a body
# with several joints, corpus's chain of one-joint links does. Each inner link of such a
# chain gets this fraction of its source body's mass and inertia: it moves the joint
# accelerations by about as much (~1e-12 relative, far below the 1e-8 of the MuJoCo check)
INNER_LINK_MASS_FRACTION = 1e-12
# MuJoCo's default limit softness (solreflimit: time constant s, damping ratio)
DEFAULT_LIMIT_SOLREF = (0.02, 1.0)


def safe_name(name: str) -> str:
    """A creature-language name: characters outside [A-Za-z0-9_.+-] become '_'."""
    name = re.sub(r"[^A-Za-z0-9_.+-]", "_", name)
    return name if NAME_OK.match(name) else "_" + name


@dataclass
class JointDef:
    type: str  # fixed | revolute | prismatic | ball | free
    name: str = ""
    axis: tuple = (0.0, 0.0, 1.0)  # unit, link frame
    range: tuple | None = None  # in corpus coordinates (source value minus its reference)
    damping: float = 0.0
    stiffness: float = 0.0
    spring_rest: float = 0.0  # corpus coordinates
    armature: float = 0.0
    limit_solref: tuple = DEFAULT_LIMIT_SOLREF
    offset: float = 0.0  # source joint coordinate at corpus q = 0 (MuJoCo `ref`)


@dataclass
class GeomDef:
    shape: str  # box | sphere | capsule | cylinder | ellipsoid | mesh
    size: dict | list | float  # creature-language shape value
    frame: Frame  # link frame <- shape frame
    rgba: tuple = (0.5, 0.5, 0.5, 1.0)
    colliding: bool = True
    name: str = ""


@dataclass
class Link:
    name: str
    parent: str | None  # None: jointed to the world
    frame: Frame  # placement in the parent link's frame at q = 0
    joint: JointDef
    geoms: list[GeomDef] = field(default_factory=list)
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))  # about com
    source: str = ""  # source body name (the same for every link of a split chain)
    anchor: np.ndarray | None = None  # last link of a chain: its origin in the source body frame


@dataclass
class Actuator:
    """A torque (or force) channel on one joint: force = gear * clamp(ctrl, ctrlrange)."""

    name: str
    joint: str  # corpus joint (= link) name
    gear: float = 1.0
    ctrlrange: tuple | None = None

    def as_dict(self) -> dict:
        d = {"name": self.name, "joint": self.joint, "gear": number(self.gear)}
        if self.ctrlrange is not None:
            d["ctrlrange"] = vector(self.ctrlrange)
        return d


class ImportLog:
    """Collects `notes` (skipped, cannot change the dynamics) and `unsupported` (would change
    the dynamics: the import fails unless the caller explicitly drops them)."""

    def __init__(self):
        self.notes: list[Problem] = []
        self.unsupported: list[Problem] = []

    def note(self, element, message: str, attr: str | None = None) -> None:
        self.notes.append(element.problem(message, attr))

    def unsupported_feature(self, element, message: str, attr: str | None = None) -> None:
        self.unsupported.append(element.problem(message, attr))

    def check(self, drop_unsupported: bool) -> None:
        if self.unsupported and not drop_unsupported:
            hint = Problem("these change the dynamics and corpus cannot represent them; "
                           "rerun with --drop-unsupported (Python: drop_unsupported=True) "
                           "to import without them")
            raise CorpusError(self.unsupported + [hint])


@dataclass
class Converted:
    """The documents every importer returns (plain dicts, ready for YAML), so one writer
    (importers.output) serves them all: creatures (one per top-level tree), controllers,
    environment, simulation, timeline, notes."""

    creatures: list[dict]
    controllers: list[dict]
    environment: dict | None
    simulation: dict
    timeline: list[dict]
    notes: list[str]


@dataclass
class ImportResult(Converted):
    """One converted MJCF/URDF model: its documents plus what checks against the source
    simulator need."""

    actuators: list[Actuator] = field(default_factory=list)
    links: list[list[Link]] = field(default_factory=list)  # per creature
    log: ImportLog | None = None


def subtree_axis_inertia(links: list[Link]) -> dict[str, float]:
    """Each 1-DOF joint's diagonal mass-matrix entry at q = 0: the inertia of everything
    distal to it about its axis (hinge) or its mass (slide), plus armature."""
    world: dict[str, Frame] = {}
    for ln in links:
        world[ln.name] = (world[ln.parent] * ln.frame) if ln.parent in world else ln.frame
    children: dict[str, list[str]] = {}
    for ln in links:
        children.setdefault(ln.parent, []).append(ln.name)
    by_name = {ln.name: ln for ln in links}

    def subtree(name):
        yield by_name[name]
        for c in children.get(name, []):
            yield from subtree(c)

    result = {}
    for ln in links:
        if ln.joint.type not in ("revolute", "prismatic"):
            continue
        f = world[ln.name]
        axis = f.rot @ np.asarray(ln.joint.axis)
        total = ln.joint.armature
        for b in subtree(ln.name):
            if ln.joint.type == "prismatic":
                total += b.mass
                continue
            fb = world[b.name]
            r = fb.apply(b.com) - f.pos
            lever = np.cross(axis, r)
            total += axis @ (fb.rot @ b.inertia @ fb.rot.T) @ axis + b.mass * lever @ lever
        result[ln.name] = total
    return result


def _joint_dict(j: JointDef, axis_inertia: float | None) -> dict:
    d: dict = {"type": j.type}
    if j.type in ("revolute", "prismatic"):
        d["axis"] = vector(j.axis)
    if j.damping:
        d["damping"] = number(j.damping)
    if j.stiffness:
        d["spring"] = {"k": number(j.stiffness), "rest": number(j.spring_rest)}
    if j.armature:
        d["armature"] = number(j.armature)
    if j.range is not None and axis_inertia:
        # a hard limit becomes a penalty spring-damper with the source's softness
        # (MuJoCo solreflimit: time constant, damping ratio) for this joint's own inertia
        tc, ratio = j.limit_solref
        if tc > 0:
            k = axis_inertia / (tc * tc * ratio * ratio)
            b = 2.0 * axis_inertia / tc
        else:  # MuJoCo's direct form: -stiffness, -damping per unit inertia
            k, b = -tc * axis_inertia, -ratio * axis_inertia
        d["limits"] = {"lower": number(j.range[0]), "upper": number(j.range[1]),
                       "k": number(k), "b": number(b)}
    return d


def _geom_dict(g: GeomDef) -> dict:
    d: dict = {"shape": {g.shape: g.size}}
    ops = placement_ops(g.frame)
    if ops:
        d["transform"] = ops
    d["color"] = vector(g.rgba)
    if not g.colliding:
        d["colliding"] = False
    if g.name:
        d["name"] = g.name
    return d


def _inertial_dict(mass: float, com, i) -> dict:
    return {"mass": number(mass), "com": vector(com),
            "inertia": vector([i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]])}


def _inner_link_inertial(ln: Link, carriers: dict[str, Link]) -> dict | None:
    """The negligible mass of an inner link of a split chain (see INNER_LINK_MASS_FRACTION),
    at its joint, shaped like its source body's inertia (the chain shares its orientation)."""
    body = carriers.get(ln.source)
    if body is None or body is ln or ln.joint.type == "fixed" or body.mass <= 0.0:
        return None
    eps = INNER_LINK_MASS_FRACTION
    return _inertial_dict(eps * body.mass, np.zeros(3), eps * body.inertia)


def fuse_massless_fixed(links: list[Link]) -> tuple[list[Link], list[str]]:
    """Fold every massless link welded to a moving parent into that parent (its shapes
    become the parent's, its children re-hang from the parent): corpus needs mass on every
    moving body, and such a link (a sensor or tool frame) adds none. Returns the links left
    and the names folded away."""
    fold: dict[str, tuple[str, Frame]] = {}  # folded link -> (link it went into, placement)
    kept: dict[str, Link] = {}
    for ln in links:
        parent, frame = ln.parent, ln.frame
        if parent in fold:
            parent, into = fold[parent]
            frame = into * frame
        if ln.joint.type == "fixed" and ln.mass == 0.0 and parent is not None:
            fold[ln.name] = (parent, frame)
            for g in ln.geoms:
                kept[parent].geoms.append(replace(g, frame=frame * g.frame))
            continue
        kept[ln.name] = replace(ln, parent=parent, frame=frame, geoms=list(ln.geoms))
    return list(kept.values()), list(fold)


def creature_document(name: str, links: list[Link]) -> tuple[dict, list[str]]:
    """The corpus creature document (plain dict, SI units) for one tree of links, and the
    names of the massless welded links folded into their parents."""
    axis_inertia = subtree_axis_inertia(links)
    carriers = {ln.source: ln for ln in links if ln.anchor is not None}
    links, folded = fuse_massless_fixed(links)
    root = links[0]
    bodies = []
    if root.joint.type not in ("free", "fixed"):
        # a root hinged or sliding on the world: corpus welds a fixed root, so weld a
        # massless anchor at the root's placement and joint the root to it
        anchor = next(n for n in (f"{root.name}_anchor{k or ''}" for k in range(len(links) + 1))
                      if n not in {ln.name for ln in links})
        bodies.append({"name": anchor})
    for ln in links:
        body: dict = {"name": ln.name}
        if ln.parent is not None:
            body["parent"] = ln.parent
            ops = placement_ops(ln.frame)
            if ops:
                body["at"] = ops
        elif bodies:
            body["parent"] = bodies[0]["name"]
        if ln.joint.type != "fixed":
            body["joint"] = _joint_dict(ln.joint, axis_inertia.get(ln.name))
        if ln.mass > 0.0:
            if ln.geoms:
                first, *rest = ln.geoms
                own = _geom_dict(first)
                own.pop("name", None)  # the body's own shape is named by the body
                body.update(own)
                if rest:
                    body["parts"] = [_geom_dict(g) for g in rest]
            # explicit mass properties replace what corpus would compute from the shapes
            body["inertial"] = _inertial_dict(ln.mass, ln.com, ln.inertia)
        else:
            if ln.geoms:  # shapes for contact and rendering only
                body["parts"] = [dict(_geom_dict(g), inertial=False) for g in ln.geoms]
            inner = _inner_link_inertial(ln, carriers)
            if inner is not None:
                body["inertial"] = inner
        bodies.append(body)
    doc: dict = {"creature": name, "root": {"mode": "free" if root.joint.type == "free" else "fixed"}}
    root_ops = placement_ops(root.frame)
    if root_ops:  # the root's placement in the world; a scene's `at` replaces it
        doc["at"] = root_ops
    doc["bodies"] = bodies
    return doc, folded
