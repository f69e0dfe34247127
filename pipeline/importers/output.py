"""Writing converted documents as corpus YAML: a creature file, or a scene that holds the
creatures inline with the environment and controllers the source model implies."""
from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from pipeline.fileio import atomic_write_text
from pipeline.importers.links import safe_name
from pipeline.spec.schema import SCHEMA_DIR


class VectorDumper(yaml.SafeDumper):
    """Block style for structure, flow style for short lists of numbers (vectors)."""


def _list(dumper, data):
    flow = all(isinstance(x, (int, float)) for x in data) and len(data) <= 6
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


VectorDumper.add_representer(list, _list)


def relative_meshes(doc, folder: Path):
    """A copy of `doc` whose mesh file paths are relative to `folder` (where the YAML goes):
    corpus resolves a mesh path against the file that names it."""
    doc = copy.deepcopy(doc)
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            mesh = node.get("mesh")
            if isinstance(mesh, dict) and "file" in mesh:
                mesh["file"] = Path(os.path.relpath(mesh["file"], folder)).as_posix()
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return doc


def scene_document(result, name: str) -> dict:
    """A scene holding every converted creature inline, with environment and controllers."""
    doc: dict = {"scene": name}
    if result.environment:
        doc["environment"] = result.environment
    doc["creatures"] = list(result.creatures)
    if result.controllers:
        doc["controllers"] = list(result.controllers)
    if result.timeline:
        doc["timeline"] = list(result.timeline)
    if result.simulation:
        doc["simulation"] = result.simulation
    return doc


def to_yaml(doc: dict, kind: str, folder: Path, source: str, notes: list[str]) -> str:
    schema = Path(os.path.relpath(SCHEMA_DIR / f"{kind}.schema.json", folder)).as_posix()
    header = [f"# yaml-language-server: $schema={schema}",
              f"# converted by `corpus convert` from {source}"]
    header += [f"# note: {n}" for n in notes]
    body = yaml.dump(relative_meshes(doc, folder), Dumper=VectorDumper, sort_keys=False,
                     allow_unicode=True, width=100)
    return "\n".join(header) + "\n" + body


def write(result, out: Path, source: str, as_kind: str = "auto") -> str:
    """Write `result` to `out` as a creature (one creature, `as_kind` creature/auto) or a
    scene (several creatures, or `as_kind` scene). Returns the kind written."""
    out = Path(out)
    if as_kind == "auto":
        as_kind = "creature" if len(result.creatures) == 1 else "scene"
    notes = list(result.notes)
    if as_kind == "creature":
        if len(result.creatures) != 1:
            from pipeline.errors import CorpusError, Problem

            raise CorpusError(Problem(f"{source} holds {len(result.creatures)} creatures; write "
                                      "a scene (--as scene)", file=source))
        doc = result.creatures[0]
        if result.controllers or result.environment or result.simulation:
            notes.append("its actuators, gravity, ground and the simulation settings it runs "
                         "stably with are in the scene form: `corpus convert --as scene`")
    else:
        doc = scene_document(result, safe_name(out.stem))
    atomic_write_text(out, to_yaml(doc, as_kind, out.resolve().parent, source, notes))
    return as_kind
