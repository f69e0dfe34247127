"""Generate the YAML reference (docs/reference.md) from the JSON Schemas.

    python -m pipeline.spec.reference --write docs/reference.md      (or: make docs)

Every property of every schema becomes one table row: its key path, type (with units for
quantities), default and description. tests/test_spec_reference.py fails when the
committed file differs from what this prints, so the reference cannot drift.
"""
from __future__ import annotations

import argparse
import sys

from pipeline.fileio import atomic_write_text
from pipeline.spec.schema import kinds_present, schema_documents
from pipeline.spec.units import DIMENSIONS

HEADER = """# YAML reference

Generated from `schemas/*.schema.json` by `python -m pipeline.spec.reference` (`make docs`);
do not edit by hand. A tour of the language is in [yaml.md](yaml.md).

Bare numbers are SI (m, kg, s, rad) except `rotate` angles, which are degrees as in corpus.
Where a row says *length*, *mass*, *angle*, *time* or *density*, a string with a unit is
accepted too (`2cm`, `5g`, `30deg`, `20ms`, `1g/cm3`), and fractions such as `1/2400`
work wherever a number does.
"""


def anchor(schema_name: str, def_name: str | None = None) -> str:
    return f"{schema_name}-{def_name}".replace("_", "-") if def_name else schema_name.replace("_", "-")


def describe_type(node: dict, here: str) -> str:
    """A short human type of a schema node, linking shared definitions."""
    if "$ref" in node:
        ref = node["$ref"]
        file, _, pointer = ref.partition("#")
        target = file.removesuffix(".schema.json") if file else here
        def_name = pointer.rsplit("/", 1)[1] if pointer.startswith("/$defs/") else None
        if target == "defs" and def_name in DIMENSIONS:
            unit, units = DIMENSIONS[def_name]
            if def_name in ("number", "fraction"):
                return "number"
            shown = f"{def_name.replace('_deg', '')} ({unit or 'SI'}; {' '.join(units)})"
            return shown
        label = def_name or target
        return f"[{label}](#{anchor(target, def_name)})"
    if "anyOf" in node or "oneOf" in node:
        return " or ".join(describe_type(b, here) for b in node.get("anyOf", node.get("oneOf")))
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        count = ""
        if node.get("minItems") is not None and node.get("minItems") == node.get("maxItems"):
            count = f"{node['minItems']} × "
        return f"list of {count}{describe_type(items, here)}" if isinstance(items, dict) else "list"
    if kind == "object":
        return "mapping"
    if isinstance(kind, list):
        return " or ".join(kind)
    return kind or "any"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def rows(node: dict, here: str, prefix: str = ""):
    """(key path, type, default, description) for every property below `node`."""
    for key, prop in node.get("properties", {}).items():
        path = f"{prefix}{key}"
        default = f"`{prop['default']}`" if "default" in prop else ""
        yield path, describe_type(prop, here), default, prop.get("description", "")
        if prop.get("type") == "object" and "properties" in prop:
            yield from rows(prop, here, f"{path}.")
        items = prop.get("items")
        if prop.get("type") == "array" and isinstance(items, dict) and "properties" in items:
            yield from rows(items, here, f"{path}[].")


def table(node: dict, here: str) -> list[str]:
    out = ["| key | type | default | description |", "|---|---|---|---|"]
    out += [f"| `{p}` | {_cell(t)} | {_cell(d)} | {_cell(desc)} |" for p, t, d, desc in rows(node, here)]
    return out if len(out) > 2 else [f"{describe_type(node, here)}: {node.get('description', '')}"]


def section(name: str, doc: dict) -> list[str]:
    out = [f'## <a id="{anchor(name)}"></a>{doc.get("title", name)} (`schemas/{name}.schema.json`)', "",
           doc.get("description", ""), ""]
    if doc.get("properties"):
        out += table(doc, name) + [""]
    for def_name, node in doc.get("$defs", {}).items():
        out += [f'### <a id="{anchor(name, def_name)}"></a>{name}: {node.get("title", def_name)} (`{def_name}`)', "",
                node.get("description", ""), ""]
        if "x-expected" in node:
            out += [f"Expected: {node['x-expected']}.", ""]
        out += table(node, name) + [""]
    return out


def generate() -> str:
    docs = schema_documents()
    kinds = [k for k in kinds_present()]
    order = kinds + sorted(n for n in docs if n not in kinds and n != "defs") + ["defs"]
    lines = [HEADER, "Documents: " + ", ".join(f"[`{k}:`](#{anchor(k)})" for k in kinds) + ".", ""]
    for name in order:
        lines += section(name, docs[name])
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.spec.reference",
                                     description="Print (or --write) the YAML reference generated from the schemas.")
    parser.add_argument("--write", metavar="PATH", help="write the reference to PATH atomically")
    args = parser.parse_args(argv)
    if args.write:
        atomic_write_text(args.write, generate())
    else:
        sys.stdout.write(generate())
    return 0


if __name__ == "__main__":
    sys.exit(main())
