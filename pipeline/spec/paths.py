"""Dotted field paths into a document: `environment.material.friction`,
`creatures[0].at`, `creatures[roach].bodies[head].joint.damping` (a `[name]` selects the
list item whose `name` — or whose kind key, e.g. `creature: roach` — equals it)."""
from __future__ import annotations

import re

from pipeline.errors import CorpusError

_TOKEN = re.compile(r"([^.\[\]]+)|\[([^\]]+)\]")


def parse_path(path: str) -> list[str | int]:
    parts: list[str | int] = []
    pos = 0
    for m in _TOKEN.finditer(path):
        if m.start() != pos and path[pos:m.start()] != ".":
            raise CorpusError(f"sweep path {path!r}: cannot parse near {path[pos:]!r}")
        key, index = m.groups()
        if key is not None:
            parts.append(key)
        else:
            parts.append(int(index) if index.lstrip("-").isdigit() else f"[{index}]")
        pos = m.end()
    if not parts or pos != len(path):
        raise CorpusError(f"sweep path {path!r}: cannot parse")
    return parts


def _named(items: list, name: str, path: str):
    for item in items:
        if isinstance(item, dict) and name in (item.get("name"), item.get("creature"), item.get("particles")):
            return item
    raise CorpusError(f"sweep path {path!r}: no item named {name!r}")


def set_path(doc: dict, path: str, value) -> None:
    """Set the field at `path`, creating missing mappings on the way."""
    parts = parse_path(path)
    node = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(part, int) or (isinstance(part, str) and part.startswith("[")):
            if not isinstance(node, list):
                raise CorpusError(f"sweep path {path!r}: {parts[i - 1] if i else 'document'} is not a list")
            if isinstance(part, int):
                if not -len(node) <= part < len(node):
                    raise CorpusError(f"sweep path {path!r}: index {part} out of range (length {len(node)})")
                if last:
                    node[part] = value
                    return
                node = node[part]
            else:
                item = _named(node, part[1:-1], path)
                if last:
                    node[node.index(item)] = value
                    return
                node = item
        else:
            if not isinstance(node, dict):
                raise CorpusError(f"sweep path {path!r}: cannot set {part!r} inside a {type(node).__name__}")
            if last:
                node[part] = value
                return
            node = node.setdefault(part, {})
