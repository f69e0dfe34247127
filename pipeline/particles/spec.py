"""Resolve `particles:` documents into the dataclasses of `types`.

Loading, includes, schema validation and the Scene itself are the spec stage's
(`pipeline.load` returns a `pipeline.spec.types.Scene` for particle scenes too); this module
adds what the schema cannot check (names that must exist, under-determined masses), places
each creature in the world and gives the spec stage a scene's creatures and World
(`scene_parts`, its one call into this stage).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from pipeline.control.fsm import compile_fsm
from pipeline.errors import CorpusError, Problem
from pipeline.particles import types as T
from pipeline.particles.quantities import placement, si, upward_sign, vec
from pipeline.spec.documents import DEFAULT_ENVIRONMENT, include
from pipeline.spec.includes import Includes
from pipeline.spec.loader import MDict, format_path, from_plain, mark_at, plain, read_file, where_of
from pipeline.spec.schema import document_kind, to_si, validate
from pipeline.spec.types import Scene, SimulationSettings, Where

_PARAM_OF_KIND = {"spring": "rest", "angle": "rest", "torque": "torque", "constant": "magnitude"}
_FORCE_KINDS = ("gravity", "floor", "nail", "fluid", "spring", "angle", "torque", "constant",
                "gravitation")
_SENSOR_KINDS = ("height", "leg_angle", "speed", "time_to_touchdown", "food", "position")


class _Doc:
    """A validated marked document and the problems found while resolving it."""

    def __init__(self, doc: MDict):
        self.doc = doc
        self.problems: list[Problem] = []

    def where(self, *path) -> Where:
        m = mark_at(self.doc, path)
        return Where(m.file, m.line, m.col, format_path(path))

    def problem(self, message: str, *path) -> None:
        w = self.where(*path)
        self.problems.append(Problem(message, w.file, w.line, w.col, w.path))

    def check(self) -> None:
        if self.problems:
            raise CorpusError(self.problems)


def _marked(node_or_dict) -> MDict:
    doc = node_or_dict if isinstance(node_or_dict, MDict) else from_plain(node_or_dict)
    problems = validate(doc, "particles")
    if problems:
        raise CorpusError(problems)
    return doc


def _rgba(color) -> tuple[float, float, float, float]:
    if isinstance(color, str):
        h = color.lstrip("#")
        c = [int(h[i:i + 2], 16) / 255 for i in range(0, len(h), 2)]
    else:
        c = [float(x) for x in color]
    return tuple(c + [1.0] * (4 - len(c)))


def resolve_world(block, d: _Doc | None = None, path=("world",)) -> T.World:
    """The `world:` block (gravity, floor, media) with defaults."""
    block = block or {}
    g = block.get("gravity", 9.8)
    if g == "off":
        gravity = (0.0, 0.0, 0.0)
    elif isinstance(g, (list, tuple)):
        gravity = tuple(vec(g))
    else:
        gravity = (0.0, 0.0, -si(g))
    fl = block.get("floor", {})
    media = []
    for i, md in enumerate(block.get("media", [])):
        flow = md.get("flow", {"type": "still"})
        direction = vec(flow.get("direction", (1, 0, 0)))
        direction[2] = 0.0
        n = np.linalg.norm(direction)
        media.append(T.Medium(
            name=md["name"], density=si(md["density"]), drag=float(md.get("drag", 0.5)),
            flow=flow["type"], velocity=tuple(vec(flow.get("velocity", (0, 0, 0)))),
            amplitude=si(flow.get("amplitude", 0)), period=si(flow.get("period", 1)),
            wavelength=si(flow.get("wavelength", 1)),
            direction=tuple(direction / n) if n > 0 else (1.0, 0.0, 0.0),
            surface=si(flow.get("surface", 0)),
            where=d.where(*path, "media", i) if d else Where()))
    return T.World(
        gravity=gravity, floor_z=si(fl.get("z", 0)), envelope=si(fl.get("envelope", 0.002)),
        static_speed=float(fl.get("static_speed", 1e-3)), rest_speed=float(fl.get("rest_speed", 0.05)),
        min_substep=si(fl.get("min_substep", 1e-6)),
        media=tuple(media) if "media" in block else T.World().media,
        where=d.where(*path) if d else Where())


def _mass(d: _Doc, i: int, m, defaults, rot, origin, vel0) -> T.PointMass:
    density = si(m["density"]) if "density" in m else (si(defaults["density"]) if "density" in defaults else None)
    radius = si(m["radius"]) if "radius" in m else None
    volume = float(m["volume"]) if "volume" in m else None
    if volume is None and radius is not None:
        volume = 4.0 / 3.0 * math.pi * radius ** 3
    if "mass" in m:
        mass = si(m["mass"])
        if volume is None:
            if density is None:
                d.problem("give radius, volume or density so the mass has a size", "masses", i)
                return None
            volume = mass / density
    else:
        if density is None or volume is None:
            d.problem("give mass, or density with radius or volume", "masses", i)
            return None
        mass = density * volume
    if radius is None:
        radius = (3.0 * volume / (4.0 * math.pi)) ** (1.0 / 3.0)
    if mass <= 0:
        d.problem("mass must be positive", "masses", i)
        return None
    color = m.get("color", defaults.get("color", "#c89664"))
    return T.PointMass(
        name=m["name"], mass=mass, radius=radius, volume=volume,
        pos=tuple(rot @ vec(m["at"]) + origin),
        vel=tuple(rot @ vec(m.get("velocity", (0, 0, 0))) + vel0),
        mu_s=float(m.get("mu_s", defaults.get("mu_s", 0.6))),
        mu_k=float(m.get("mu_k", defaults.get("mu_k", 0.5))),
        restitution=float(m.get("restitution", defaults.get("restitution", 0.6))),
        integrate=bool(m.get("integrate", True)), rgba=_rgba(color), where=d.where("masses", i))


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def _angle(p, a, j, b) -> float:
    x, y = p[a] - p[j], p[b] - p[j]
    c = float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))
    return math.acos(max(-1.0, min(1.0, c)))


def _force(d: _Doc, i: int, f, index, pos, rot) -> T.Force | None:
    kind = next(k for k in _FORCE_KINDS if k in f)
    where = d.where("forces", i)
    name = f.get("name", f"{kind}_{i}")

    def names(key):
        val = f[key]
        if val == "all":
            return tuple(range(len(index)))
        out = []
        for j, n in enumerate(val):
            if n not in index:
                d.problem(f"no mass named '{n}'", "forces", i, key, j)
            else:
                out.append(index[n])
        return tuple(out)

    if kind in ("gravity", "floor", "nail"):
        return T.Force(kind, name, names(kind), where=where)
    if kind == "gravitation":
        return T.Force(kind, name, names(kind), {"G": float(f.get("G", 6.674e-11))}, where=where)
    if kind == "fluid":
        return T.Force(kind, name, names("masses"), medium=f["fluid"], where=where)
    if kind == "constant":
        members = names("constant")
        values, direction, tri = {}, (0.0, 0.0, 1.0), None
        if "force" in f:
            fv = rot @ vec(f["force"])
            values["magnitude"] = float(np.linalg.norm(fv))
            if values["magnitude"] > 0:
                direction = tuple(fv / values["magnitude"])
        else:
            values["magnitude"] = si(f.get("magnitude", 0.0))
            if "normal_of" in f:
                key = "normal_of"
                tri_names = f[key]
                if all(n in index for n in tri_names):
                    tri = tuple(index[n] for n in tri_names)
                    values["sign"] = upward_sign(np.array(pos)[list(tri)])
                else:
                    names(key)
            elif "direction" in f:
                direction = tuple(_unit(rot @ vec(f["direction"])))
        return T.Force(kind, name, members, values, direction=direction, normal_of=tri, where=where)
    ends = names(kind)
    if len(ends) != len(f[kind]):
        return None
    values = {"k": float(f.get("k", 0.0)), "kd": float(f.get("kd", 0.0))}
    p = np.array(pos)
    if kind == "spring":
        values["rest"] = si(f["rest"]) if "rest" in f else float(np.linalg.norm(p[ends[0]] - p[ends[1]]))
        return T.Force(kind, name, ends, values, where=where)
    if kind == "angle":
        values["rest"] = si(f["rest"]) if "rest" in f else _angle(p, *ends)
        return T.Force(kind, name, ends, values, reaction=bool(f.get("reaction", True)), where=where)
    axis = _unit(rot @ vec(f.get("axis", (0, 1, 0))))
    return T.Force(kind, name, ends, {"torque": si(f.get("value", 0.0))}, axis=tuple(axis),
                   reaction=bool(f.get("reaction", True)), where=where)


def _sensor(d: _Doc, i: int, s, index, rot) -> T.Sensor | None:
    kind = next(k for k in _SENSOR_KINDS if k in s)
    targets = s[kind] if isinstance(s[kind], list) else [s[kind]]
    masses = []
    for n in targets:
        if n not in index:
            d.problem(f"no mass named '{n}'", "sensors", i, kind)
            return None
        masses.append(index[n])
    default_axis = (0, 0, 1) if kind == "position" else (1, 0, 0)
    return T.Sensor(
        name=s["name"], kind=kind, masses=tuple(masses),
        axis=tuple(_unit(rot @ vec(s.get("axis", default_axis)))), up=(0.0, 0.0, 1.0),
        scale=float(s.get("scale", 0.1 if kind == "food" else 1.0)),
        offset=float(s.get("offset", 0.0)), clamp=bool(s.get("clamp", True)),
        legacy_scaling=s.get("scaling", "urban") == "urban",
        height_sensor=s.get("height_sensor"), where=d.where("sensors", i))


def resolve_particles(node_or_dict, where: Where | None = None, *, name: str | None = None,
                      at=None, velocity=None) -> T.ParticleCreature:
    """A `particles:` document (marked node or plain dict) as a placed ParticleCreature.

    `at` (move/rotate ops), `velocity` ({linear: [...]}) and `name` come from a scene's
    creature entry.
    """
    doc = _marked(node_or_dict)
    d = _Doc(doc)
    try:
        rot, origin = placement(at)
    except (ValueError, KeyError) as exc:
        raise CorpusError(Problem(str(exc), *(where.file, where.line, where.col, where.path)
                                  if where else ())) from None
    vel0 = vec(velocity["linear"]) if velocity and "linear" in velocity else np.zeros(3)
    defaults = doc.get("defaults", {})
    masses, index = [], {}
    for i, m in enumerate(doc["masses"]):
        if m["name"] in index:
            d.problem(f"a mass named '{m['name']}' already exists", "masses", i, "name")
            continue
        pm = _mass(d, i, m, defaults, rot, origin, vel0)
        if pm is not None:
            index[pm.name] = len(masses)
            masses.append(pm)
    d.check()
    pos = [m.pos for m in masses]
    forces = [_force(d, i, f, index, pos, rot) for i, f in enumerate(doc.get("forces", []))]
    seen = {}
    for i, f in enumerate(forces):
        if f is not None and f.name in seen:
            d.problem(f"a force named '{f.name}' already exists", "forces", i, "name")
        elif f is not None:
            seen[f.name] = f
    sensors = [_sensor(d, i, s, index, rot) for i, s in enumerate(doc.get("sensors", []))]
    sensor_names = {s.name for s in sensors if s}
    for i, s in enumerate(sensors):
        if s and s.kind == "time_to_touchdown" and s.height_sensor not in sensor_names:
            d.problem(f"no sensor named '{s.height_sensor}'", "sensors", i, "height_sensor")
    actuators = []
    for i, a in enumerate(doc.get("actuators", [])):
        f = seen.get(a["force"])
        if f is None or f.kind not in _PARAM_OF_KIND:
            d.problem(f"no spring, angle, torque or constant force named '{a['force']}'",
                      "actuators", i, "force")
            continue
        param = _PARAM_OF_KIND[f.kind]
        lo, hi = (si(x) for x in a["range"])
        if hi == lo:
            d.problem("the range must not be empty", "actuators", i, "range")
            continue
        level = a.get("level", min(1.0, max(0.0, (f.values[param] - lo) / (hi - lo))))
        actuators.append(T.Actuator(a["name"], f.name, param, lo, hi, float(level),
                                    where=d.where("actuators", i)))
    if "controller" in doc and not d.problems:
        try:  # names and expressions are checked when the document loads, not at run time
            compile_fsm(doc["controller"], [x.name for x in sensors if x], [a.name for a in actuators],
                        [a.level for a in actuators])
        except CorpusError as exc:
            d.problems.extend(dataclasses.replace(p, path=f"controller.{p.path}".rstrip("."))
                              for p in exc.problems)
    spawners = []
    for i, sp in enumerate(doc.get("spawners", [])):
        pool = sp["masses"]
        members = list(range(len(masses))) if pool == "all" else [index.get(n) for n in pool]
        if None in members:
            d.problem("no such mass in the pool", "spawners", i, "masses")
            continue
        spawners.append({"masses": tuple(members), "at": tuple(rot @ vec(sp["at"]) + origin),
                         "spread": si(sp.get("spread", 0.01)), "rate": float(sp["rate"])})
    surfaces = []
    for i, sf in enumerate(doc.get("surfaces", [])):
        ring = [index.get(n) for n in sf["dome"]]
        if None in ring:
            d.problem("no such mass in the dome ring", "surfaces", i, "dome")
            continue
        surfaces.append({"name": sf["name"], "kind": "dome", "ring": tuple(ring),
                         "height": si(sf.get("height", 0.03)), "phase": sf.get("phase"),
                         "rgba": _rgba(sf.get("color", "#e0a0d0c0"))})
    d.check()
    return T.ParticleCreature(
        name=name or doc["particles"], masses=tuple(masses),
        forces=tuple(f for f in forces if f is not None), sensors=tuple(s for s in sensors if s),
        actuators=tuple(actuators), controller=doc.get("controller"),
        world=resolve_world(doc["world"], d) if "world" in doc else None,
        spawners=tuple(spawners), surfaces=tuple(surfaces), where=where or d.where())


def scene_of(creatures, world: T.World | None = None, *, name: str | None = None,
             **simulation) -> Scene:
    """A particle Scene built in Python: ParticleCreatures in a World (default: the first
    creature's own `world:`, else the default World) with `SimulationSettings(**simulation)`."""
    creatures = (creatures,) if isinstance(creatures, T.ParticleCreature) else tuple(creatures)
    if world is None:
        world = next((c.world for c in creatures if c.world is not None), T.World())
    return Scene(name=name or (creatures[0].name if creatures else "particles"),
                 creatures=creatures, environment=T.environment_of(world),
                 simulation=SimulationSettings(**simulation))


def scene_parts(doc: MDict, inc: Includes, problems: list[Problem]):
    """The particle stage's share of the spec stage (pipeline.spec.resolve calls only this).

    An expanded scene (`pipeline.spec.documents.expand_scene`) of particle creatures or in a
    particle world -> (creatures, environment) of its Scene; a `particles:` document checked
    on its own -> (its creature, its world); anything else -> None. Problems are appended,
    located. The scene's creatures come first, then the environment's masses (so body 0 is
    the first creature's); the World is the environment's (`world:` of a `particles:` file).
    """
    kind = document_kind(doc)
    if kind == "particles":
        creature = _resolved(problems, doc)
        world = creature.world if creature is not None and creature.world is not None else T.World()
        return (() if creature is None else (creature,)), T.environment_of(world)
    if kind != "scene" or not _is_particle_scene(doc):
        return None
    creatures, world, env_creature = [], T.World(), None
    env = doc.get("environment")
    if isinstance(env, str):  # a `particles:` world; expand_scene left its absolute path
        env_doc = _included(env, doc.value_mark("environment"), "environment", inc, None, problems)
        if env_doc is not None:
            env_creature = _resolved(problems, env_doc, where_of(doc.value_mark("environment"), "environment"))
            if env_creature is not None:
                world = env_creature.world or world
    elif env is not None and not _default_environment(env):
        problems.append(doc.value_mark("environment").problem(
            "a particle scene's environment must be a `particles:` file", "environment"))
    items = doc.get("creatures", ())
    for i, entry in enumerate(items):
        path = f"creatures[{i}]"
        if "use" not in entry:
            problems.append(items.item_mark(i).problem(
                "a scene with particle creatures must hold only particle creatures "
                "(`use:` a `particles:` file)", path))
            continue
        cdoc = _included(entry["use"], entry.value_mark("use"), f"{path}.use", inc, entry.get("with"), problems)
        if cdoc is not None:
            creature = _resolved(problems, cdoc, where_of(items.item_mark(i), path), name=entry.get("name"),
                                 at=to_si(entry, "scene", "/$defs/creature_item", path).get("at"),
                                 velocity=entry.get("velocity"))
            if creature is not None:
                creatures.append(creature)
    if env_creature is not None and env_creature.masses:
        creatures.append(env_creature)
    for key, what in (("controllers", "scene controllers: a particle creature's `controller:` drives it"),
                      ("timeline", "timeline commands")):
        if doc.get(key):
            problems.append(doc.key_mark(key).problem(f"the particle engine runs no {what}", key))
    return tuple(creatures), T.environment_of(world)


def _is_particle_scene(scene: MDict) -> bool:
    """An expanded scene whose environment is a `particles:` file or whose creatures include
    `particles:` files (expand_scene inlines articulated creatures and keeps these includes)."""
    return isinstance(scene.get("environment"), str) or any("use" in c for c in scene.get("creatures", ()))


def _default_environment(env: MDict) -> bool:
    """The environment a scene without `environment:` gets (expand_scene inlines it, and so does
    the saved scene.json): the default World in a particle scene."""
    return plain(env) == plain(read_file(DEFAULT_ENVIRONMENT))


def _included(value: str, mark, path: str, inc: Includes, overrides, problems) -> MDict | None:
    """An included `particles:` document (the spec stage's include policy and `with:` merge)."""
    try:
        return include(value, mark, path, "particles", inc, overrides)
    except CorpusError as exc:
        problems.extend(exc.problems)
        return None


def _resolved(problems: list[Problem], doc, where: Where | None = None, **placement):
    try:
        return resolve_particles(doc, where, **placement)
    except CorpusError as exc:
        problems.extend(exc.problems)
        return None
