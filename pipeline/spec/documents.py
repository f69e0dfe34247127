"""Document level: validate, follow includes, merge overrides, expand helpers.

The result of `expand_scene` / `expand_document` is the canonical expanded document: every
include inlined, `mirror`/`repeat` expanded, mesh paths absolute — still valid YAML data
with the author's units, and still carrying the marks of where each value was written.
"""
from __future__ import annotations

import copy
from pipeline.errors import CorpusError, Problem
from pipeline.spec.checks import article, in_file_order, tree_order
from pipeline.spec.expand import expand_bodies
from pipeline.spec.assets import ASSET_ROOT
from pipeline.spec.includes import Includes, merge
from pipeline.spec.loader import MDict, MList
from pipeline.spec.schema import document_kind, kind_problem, validate

DEFAULT_ENVIRONMENT = ASSET_ROOT / "environments" / "flat.yaml"
# particle creatures and worlds (`particles:` documents) belong to pipeline.particles
CREATURE_KINDS = ("creature", "particles")
ENVIRONMENT_KINDS = ("environment", "particles")


def _raise_if(problems: list[Problem]) -> None:
    if problems:
        raise CorpusError(in_file_order(problems))


def check_kind(doc: MDict, kind: str | None = None) -> str:
    found = document_kind(doc)
    if found is None:
        raise CorpusError(kind_problem(doc))
    if kind is not None and found != kind:
        raise CorpusError(doc.mark.problem(f"expected {article(kind)} document, but this is {article(found)} document"))
    return found


def expand_document(doc: MDict, kind: str, inc: Includes) -> MDict:
    """Validate one document, inline its base (`use:`) and expand its body helpers.

    The result is marked as expanded, so handing it back (a creature wrapped into a scene)
    costs nothing; a merge makes a new document, which is validated again."""
    if getattr(doc, "expanded_as", None) == kind:
        return doc
    problems = validate(doc, kind)
    if problems and kind == "creature":
        problems += _tree_preview(doc, problems)
    _raise_if(problems)
    if "use" in doc:
        base = include(doc["use"], doc.value_mark("use"), "use", kind, inc)
        own = copy.deepcopy(doc)
        del own["use"]
        doc = merge(base, own)
        _raise_if(validate(doc, kind))
    if kind == "creature" and "bodies" in doc:
        problems: list[Problem] = []
        doc["bodies"] = expand_bodies(doc["bodies"], problems)
        _raise_if(problems)
    if kind == "creature" and not doc.get("bodies"):
        raise CorpusError(doc.mark.problem("a creature needs `bodies` (or a `use:` base that has them)"))
    doc.expanded_as = kind
    return doc


def _tree_preview(doc: MDict, schema_problems: list[Problem]) -> list[Problem]:
    """The body-tree problems of a creature whose schema problems all lie outside `bodies`,
    so that one run reports both (the rest of the semantic checks needs a valid document)."""
    bodies = doc.get("bodies")
    if not isinstance(bodies, MList) or any(p.path.startswith("bodies") for p in schema_problems):
        return []
    problems: list[Problem] = []
    tree_order(expand_bodies(copy.deepcopy(bodies), problems), "bodies", problems)
    return problems


def include(value: str, mark, path: str, kinds: str | tuple[str, ...], inc: Includes,
            overrides: MDict | None = None) -> MDict:
    """Read, check and expand an included document of one of `kinds`, then apply `with:`."""
    kinds = (kinds,) if isinstance(kinds, str) else kinds
    doc, _target = inc.read(value, mark, path)
    try:
        kind = document_kind(doc)
        if kind not in kinds:
            what = f"{article(kind)} file" if kind else "not a corpus document"
            raise CorpusError(mark.problem(f"'{value}' is {what}; expected {article(' or '.join(kinds))} file", path))
        doc = expand_document(doc, kind, inc)
    finally:
        inc.chain.pop()
    if overrides:
        doc = merge(doc, overrides)
        if kind == "creature":
            problems: list[Problem] = []
            doc["bodies"] = expand_bodies(doc["bodies"], problems)
            _raise_if(problems)
        _raise_if(validate(doc, kind))
    return doc


def expand_scene(doc: MDict, inc: Includes) -> MDict:
    """A scene document with its environment, creatures and controller scripts inlined."""
    doc = expand_document(doc, "scene", inc)
    out = copy.deepcopy(doc)
    problems: list[Problem] = []
    env = doc.get("environment")
    env_mark = doc.value_mark("environment") if "environment" in doc else doc.mark
    try:
        if env is None:
            env_doc = include(str(DEFAULT_ENVIRONMENT), env_mark, "environment", "environment", inc)
        elif isinstance(env, str):
            env_doc = include(env, env_mark, "environment", ENVIRONMENT_KINDS, inc)
            if document_kind(env_doc) == "particles":  # a particle world: that stage resolves it
                env_doc = str(inc.locate(env, env_mark, "environment"))
        elif "environment" not in env:
            env_doc = include(env["use"], env.value_mark("use"), "environment.use", "environment", inc,
                              env.get("with"))
        else:
            env_doc = expand_document(env, "environment", inc)
        out.set("environment", env_doc, doc.key_marks.get("environment", doc.mark), env_mark)
    except CorpusError as exc:
        problems.extend(exc.problems)
    for key, expand_item in (("creatures", _creature_item), ("controllers", _controller_item)):
        items = MList(mark=doc[key].mark) if key in doc else None
        for i, item in enumerate(doc.get(key, ())):
            try:
                items.add(expand_item(item, f"{key}[{i}]", inc), doc[key].item_mark(i))
            except CorpusError as exc:
                problems.extend(exc.problems)
        if items is not None:
            out[key] = items
    _raise_if(problems)
    absolute_mesh_paths(out, inc, problems)
    _raise_if(problems)
    return out


def _creature_item(item: MDict, path: str, inc: Includes) -> MDict:
    """A creature entry of a scene, inlined. Particle creatures (`particles:` documents,
    owned by pipeline.particles) are included and validated the same way."""
    if "use" not in item:
        return expand_document(item, document_kind(item) or "creature", inc)
    doc = include(item["use"], item.value_mark("use"), f"{path}.use", CREATURE_KINDS, inc, item.get("with"))
    if document_kind(doc) == "particles":
        # the particle schema has no `at`/`velocity`, so the entry stays an include
        entry = copy.deepcopy(item)
        entry["use"] = str(inc.locate(item["use"], item.value_mark("use"), f"{path}.use"))
        return entry
    if "name" in item:
        doc.set("creature", item["name"], item.key_mark("name"), item.value_mark("name"))
    for key in ("at", "velocity"):
        if key in item:
            doc.set(key, copy.deepcopy(item[key]), item.key_mark(key), item.value_mark(key))
    return doc


def _controller_item(item: MDict, path: str, inc: Includes) -> MDict:
    if "controller" in item:
        return expand_document(item, "controller", inc)
    if "python" in item:
        return copy.deepcopy(item)
    doc = include(item["use"], item.value_mark("use"), f"{path}.use", "controller", inc, item.get("with"))
    if "creature" in item:
        doc.set("creature", item["creature"], item.key_mark("creature"), item.value_mark("creature"))
    return doc


def absolute_mesh_paths(node, inc: Includes, problems: list[Problem], path: str = "") -> None:
    """Rewrite every `mesh: {file: ...}` relative to the file it was written in."""
    if isinstance(node, MDict):
        mesh = node.get("mesh")
        if isinstance(mesh, MDict) and isinstance(mesh.get("file"), str):
            try:
                mesh["file"] = str(inc.locate(mesh["file"], mesh.value_mark("file"), f"{path}.mesh.file"))
            except CorpusError as exc:
                problems.extend(exc.problems)
        for key, value in node.items():
            absolute_mesh_paths(value, inc, problems, f"{path}.{key}" if path else key)
    elif isinstance(node, MList):
        for i, value in enumerate(node):
            absolute_mesh_paths(value, inc, problems, f"{path}[{i}]")


def wrap_creature(creature_doc: MDict) -> MDict:
    """The default scene around a creature document: flat ground, one second."""
    scene = MDict(mark=creature_doc.mark)
    scene.set("scene", creature_doc["creature"], creature_doc.key_mark("creature"),
              creature_doc.value_mark("creature"))
    creatures = MList(mark=creature_doc.mark)
    creatures.add(creature_doc, creature_doc.mark)
    scene.set("creatures", creatures, creature_doc.mark, creature_doc.mark)
    return scene
