"""Canonical documents -> the frozen Spec dataclasses of `pipeline.spec.types` (SI units).

`load(path_or_dict)` is `pipeline.load`: a creature document gives a `Creature`, a scene a
`Scene`; `load_scene` wraps a creature into a default scene. All problems found while
building (semantic checks included) are raised together as one `CorpusError`.
"""
from __future__ import annotations

import os
from pathlib import Path

from pipeline.errors import CorpusError, Problem
from pipeline.spec import checks, units
from pipeline.spec.bodies import build_creature, obstacle_creatures
from pipeline.spec.documents import check_kind, expand_document, expand_scene, wrap_creature
from pipeline.spec.includes import Includes, project_root
from pipeline.spec.loader import MDict, Mark, from_plain, plain, read_file, where_of
from pipeline.spec.events import resolve_events
from pipeline.spec.schema import document_digest, to_si
from pipeline.spec.types import Command, ControllerRef, Scene, SimulationSettings, Where


def load(source, *, allow_outside: bool = False, base_dir: str | os.PathLike | None = None):
    """A YAML path or a dict -> `Scene` (scene documents) or `Creature` (creature documents).

    Relative paths inside a dict resolve against `base_dir` (default: the working folder).
    Environment and controller documents are parts of scenes; load a scene that names them.
    """
    doc, inc = _open(source, allow_outside, base_dir)
    kind = _scene_or_creature(doc)
    scene = _scene(source, doc, kind, inc)
    return scene.creatures[0] if kind == "creature" else scene


def load_scene(source, *, allow_outside: bool = False, base_dir=None) -> Scene:
    """Like `load`, but a creature is wrapped into a default scene (flat ground, 1 s)."""
    doc, inc = _open(source, allow_outside, base_dir)
    return _scene(source, doc, _scene_or_creature(doc), inc)


def _scene_or_creature(doc: MDict) -> str:
    """The kind of a document that must be a scene or a creature; else what to do with it."""
    kind = check_kind(doc)
    if kind not in ("scene", "creature"):
        raise CorpusError(doc.mark.problem(
            f"expected a scene or a creature, but this is {checks.article(kind)} document"
            + ("; run a sweep with `corpus batch`" if kind == "sweep" else
               " (a part of a scene; `corpus validate` checks it on its own)")))
    return kind


def validate_document(source, *, allow_outside: bool = False, base_dir=None) -> str:
    """Check any corpus document fully (includes, helpers, semantics); returns its kind."""
    doc, inc = _open(source, allow_outside, base_dir)
    kind = check_kind(doc)
    if kind in ("scene", "creature"):
        _scene(source, doc, kind, inc)
    else:
        problems: list[Problem] = []
        doc = expand_document(doc, kind, inc)
        if kind == "environment":
            obstacle_creatures(doc, problems)
        else:  # another stage's document: its own semantic checks
            _particle_parts(doc, inc, problems)
        if problems:
            raise CorpusError(problems)
    return kind


def _scene(source, doc: MDict, kind: str, inc: Includes):
    """The Scene of a scene document or of a creature wrapped in the default scene."""
    if kind == "creature":
        wrapped = wrap_creature(expand_document(doc, "creature", inc))
        return _build_scene(expand_scene(wrapped, inc), inc, lone_creature=True)
    return _build_scene(expand_scene(doc, inc), inc)


DICT_FILE = "<dict>"  # the file name problems in a document given as a dict carry


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
        doc = source if isinstance(source, MDict) else from_plain(source, Mark(str(base / DICT_FILE), None, None))
        return doc, Includes(project_root(base), allow_outside)
    raise CorpusError(f"pipeline.load takes a path or a dict, not {type(source).__name__}")


# --- scene ------------------------------------------------------------------------------

def _build_scene(doc: MDict, inc: Includes, lone_creature: bool = False) -> Scene:
    """`lone_creature`: the scene wraps a creature file, so paths start at its top level."""
    problems: list[Problem] = []
    particles = _particle_parts(doc, inc, problems)
    if particles is None:
        creatures = _creatures(doc, lone_creature, problems)
        # field paths are relative to the file a problem points into (see _creatures)
        env_path = "environment" if doc["environment"].mark.file == doc.mark.file else ""
        creatures.extend(obstacle_creatures(doc["environment"], problems, env_path))
        environment = to_si(doc["environment"], "environment", path=env_path)
    else:  # point masses, not bodies: nothing below finds a body by name
        creatures, environment = list(particles[0]), particles[1]
    _unique_creature_names(doc, creatures, problems)
    by_name = {c.name: c for c in creatures}
    owners: dict[str, list[str]] = {}
    for c in creatures if particles is None else ():
        for b in c.bodies:
            owners.setdefault(b.name, []).append(c.name)
    controllers = tuple(_controllers(doc, by_name, problems))
    timeline = tuple(_timeline(doc, owners, by_name, problems))
    events = resolve_events(doc, to_si(doc["events"], "scene", "/properties/events", "events"), owners,
                            problems) if "events" in doc else ()
    simulation = _simulation(doc, problems)
    if problems:
        raise CorpusError(checks.in_file_order(problems))
    outputs = to_si(doc["outputs"], "outputs", path="outputs") if "outputs" in doc else {}
    return Scene(
        name=doc["scene"], creatures=tuple(creatures), environment=environment,
        controllers=controllers, timeline=timeline, events=events, simulation=simulation, outputs=outputs,
        source=plain(doc), files=tuple(inc.files), where=where_of(doc.mark, ""))


def _creatures(doc: MDict, lone_creature: bool, problems: list[Problem]) -> list:
    creatures = []
    for i, cdoc in enumerate(doc.get("creatures", ())):
        # field paths are relative to the document the location points into: the scene for
        # inline creatures, the creature file for included ones
        inline = not lone_creature and cdoc.mark.file == doc.mark.file
        args = (f"creatures[{i}]" if inline else "", f"creatures[{i}]", doc["creatures"].item_mark(i))
        key = _dict_creature_key(doc, cdoc, args)
        creature = _built.get(key) if key is not None else None
        if creature is None:
            before = len(problems)
            creature = build_creature(cdoc, *args, problems)
            if key is not None and creature is not None and len(problems) == before:
                _remember(key, creature)
        if creature is not None:
            creatures.append(creature)
    return creatures


# Creatures built from documents given as dicts (every job of `corpus batch`), by content:
# a sweep's jobs differ in a seed or a gain, not in their creatures. Only for a creature
# written inline in the dict, whose every mark is the dict's one mark, so that the Creature
# (its `where`s included) is a function of the content and the arguments alone.
_built: dict = {}
_BUILT_MAX = 64


def _dict_creature_key(doc: MDict, cdoc, args) -> tuple | None:
    mark = doc.mark
    if not (mark.line is None and mark.file and Path(mark.file).name == DICT_FILE
            and getattr(cdoc, "mark", None) == mark and args[2] == mark):
        return None
    return document_digest(cdoc), args[0], args[1], mark


def _remember(key, creature) -> None:
    if len(_built) >= _BUILT_MAX:
        _built.clear()
    _built[key] = creature


def _particle_parts(doc: MDict, inc: Includes, problems: list[Problem]):
    """The one door to the particle engine's stage (pipeline/particles/spec.py): the creatures
    and environment of a scene of `particles:` creatures or in a `particles:` world, or of one
    `particles:` document checked alone; None for any other document."""
    from pipeline.particles.spec import scene_parts

    return scene_parts(doc, inc, problems)


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
        where = where_of(doc["controllers"].item_mark(i), path)
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
        si_args = to_si(entry["do"], "commands", path=f"{path}.do")[action]
        entries.append(Command(at, action, si_args if isinstance(si_args, dict) else {"value": si_args},
                               where_of(doc["timeline"].item_mark(i), path)))
    return sorted(entries, key=lambda c: c.at)


def _si_value(value, dimension: str) -> float:
    return units.to_si(value, dimension)


def _simulation(doc, problems) -> SimulationSettings:
    sim = doc.get("simulation")
    if sim is None:
        return SimulationSettings()
    si = to_si(sim, "scene", "/properties/simulation", "simulation")
    for key in ("duration", "dt", "h", "h_min", "h_max", "atol", "rtol"):
        if key in si:
            checks.positive(si[key], sim.value_mark(key), f"simulation.{key}", f"`{key}`", problems)
    if "h" in si and "dt" in si and si["h"] > si["dt"] * (1 + 1e-12):
        problems.append(sim.value_mark("h").problem(
            f"the integrator step h ({si['h']:g} s) is larger than the frame step dt ({si['dt']:g} s)",
            "simulation.h"))
    defaults = SimulationSettings()
    settings = SimulationSettings(**{k: si.get(k, getattr(defaults, k)) for k in defaults.__dataclass_fields__})
    if settings.duration > 0 and settings.dt > 0 and (settings.h or 1) > 0:
        wrong = (checks.run_length(settings.duration, settings.dt, settings.h, settings.integrator)
                 or checks.whole_frames(settings.duration, settings.dt))
        if wrong:
            problems.append(sim.value_mark("duration" if "duration" in sim else "dt").problem(
                wrong, "simulation.duration" if "duration" in sim else "simulation.dt"))
    return settings
