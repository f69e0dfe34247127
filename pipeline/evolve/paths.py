"""Does a field path name a field of a scene? Gene paths must, or a typo would silently add a
new field (`set_path` creates what is missing) and evolve nothing.

A scene's canonical document keeps particle creatures as includes (`use:` + `with:`), so a
path may run through `with:` into the included document: `creatures[0].with.controller.
params.stance_leg` exists when the roobot file has `controller.params.stance_leg`.
"""
from __future__ import annotations

from pipeline.spec.checks import did_you_mean
from pipeline.spec.paths import parse_path


def _included(node: dict):
    from pipeline.spec.loader import plain, read_file

    return plain(read_file(node["use"]))


def _names(item) -> tuple:
    """The names `set_path` selects a list item by."""
    return tuple(item.get(k) for k in ("name", "creature", "particles")) if isinstance(item, dict) else ()


def field_value(doc: dict, path: str):
    """The value at `path`; a ValueError says which part is missing, with "did you mean"."""
    node, here = doc, ""
    for part in parse_path(path):
        if isinstance(node, dict) and "use" in node and (part == "with" or part not in node):
            node = _included(node)  # what `with:` overrides, and what the include provides
            if part == "with":
                here += ".with"
                continue
        if isinstance(part, int):
            if not isinstance(node, list) or not -len(node) <= part < len(node):
                raise ValueError(f"{here or 'the scene'} has no item [{part}]")
            node, here = node[part], f"{here}[{part}]"
        elif part.startswith("["):
            name = part[1:-1]
            items = node if isinstance(node, list) else []
            found = [item for item in items if name in _names(item)]
            if not found:
                names = [str(n) for item in items for n in _names(item) if n]
                raise ValueError(f"{here or 'the scene'} has no item named {name!r}{did_you_mean(name, names)}")
            node, here = found[0], f"{here}{part}"
        else:
            if not isinstance(node, dict) or part not in node:
                keys = [str(k) for k in node] if isinstance(node, dict) else []
                raise ValueError(f"{here or 'the scene'} has no field {part!r}{did_you_mean(part, keys)}")
            node, here = node[part], f"{here}.{part}" if here else part
    return node
