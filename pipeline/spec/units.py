"""Quantities with units -> SI floats.

The schemas (`schemas/defs.schema.json`) say which dimension a field has; this module
knows the units of each dimension. `to_si_document` walks any validated document beside
its schema and converts every quantity field it finds, so stages that own a schema
(environment, outputs, controllers) receive plain SI numbers without parsing units.
"""
from __future__ import annotations

import math
import re

from pipeline.errors import CorpusError
from pipeline.spec.loader import NOWHERE, child_mark, join_path, plain

# bare number -> this unit; then the units each dimension accepts (factor to SI)
DIMENSIONS: dict[str, tuple[str | None, dict[str, float]]] = {
    "number": (None, {}),
    "fraction": (None, {}),
    "length": ("m", {"m": 1.0, "cm": 0.01, "mm": 0.001}),
    "mass": ("kg", {"kg": 1.0, "g": 0.001}),
    "angle": ("rad", {"rad": 1.0, "deg": math.pi / 180.0}),
    "angle_deg": ("deg", {"rad": 1.0, "deg": math.pi / 180.0}),
    "time": ("s", {"s": 1.0, "ms": 0.001}),
    "density": ("kg/m3", {"kg/m3": 1.0, "g/cm3": 1000.0}),
    "coordinate": (None, {"rad": 1.0, "deg": math.pi / 180.0, "m": 1.0, "cm": 0.01, "mm": 0.001}),
}
ANGLE_UNITS = {"rad", "deg"}
LENGTH_UNITS = {"m", "cm", "mm"}

_NUM = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_QUANTITY = re.compile(rf"^\s*({_NUM})(?:\s*/\s*({_NUM}))?\s*([A-Za-z/0-9]*?)\s*$")


def split(value) -> tuple[float, str | None]:
    """A number or quantity string -> (number, unit or None). Raises ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"expected a number, got {value!r}")
    if not isinstance(value, str):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        return float(value), None
    m = _QUANTITY.match(value)
    if not m:
        raise ValueError(f"cannot read {value!r} as a number with a unit")
    number = float(m.group(1))
    if m.group(2) is not None:
        denominator = float(m.group(2))
        if denominator == 0:
            raise ValueError(f"division by zero in {value!r}")
        number /= denominator
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number, (m.group(3) or None)


def to_si(value, dimension: str = "number") -> float:
    """Convert a number or quantity string of `dimension` to SI (angle_deg -> radians)."""
    default_unit, units = DIMENSIONS[dimension]
    number, unit = split(value)
    unit = unit or default_unit
    if unit is None:
        return number
    if unit not in units:
        accepted = ", ".join(units) or "none"
        raise ValueError(f"unit '{unit}' is not allowed here (accepted: {accepted})")
    return number * units[unit]


def unit_of(value) -> str | None:
    """The unit written in a quantity string, or None for a bare number."""
    return split(value)[1]


def negate(value):
    """Negate a number or a quantity string, keeping its unit as written."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("-"):
            return text[1:]
        return "-" + (text[1:] if text.startswith("+") else text)
    return -value


def to_si_document(doc, schema: dict, path: str = "") -> object:
    """A plain (unmarked) copy of a schema-valid `doc` with every quantity field in SI.

    `schema` is an inlined schema (pipeline.spec.schema.inlined: no $refs); `anyOf`
    branches are chosen by their outer shape so that, e.g., `gravity: [0, 0, -9.8]` and
    `gravity: 9.8` both work. A value that cannot be converted raises a located CorpusError.
    """
    from pipeline.spec.schema import inlined, inlined_definition, schema_documents, shallow_match

    inlined("defs")
    originals = schema_documents()["defs"]["$defs"]
    dimension_of = {id(inlined_definition(originals[name])): name
                    for name in DIMENSIONS if name in originals and inlined_definition(originals[name])}

    def walk(value, node, mark, path):
        if id(node) in dimension_of:
            try:
                return to_si(value, dimension_of[id(node)])
            except ValueError as exc:
                raise CorpusError(mark.problem(str(exc), path)) from None
        if "properties" not in node and "items" not in node:
            if node.get("allOf"):  # a $ref with constraints beside it: its target comes first
                return walk(value, node["allOf"][0], mark, path)
            for key in ("anyOf", "oneOf"):
                branch = next((b for b in node.get(key, ()) if shallow_match(value, b)), None)
                if branch is not None:
                    return walk(value, branch, mark, path)
        if isinstance(value, dict):
            props = node.get("properties", {})
            return {k: walk(v, props[k], child_mark(value, k), join_path(path, k)) if k in props
                    else plain(v) for k, v in value.items()}
        if isinstance(value, list):
            items = node.get("items")
            return [walk(v, items, child_mark(value, i), f"{path}[{i}]") if isinstance(items, dict)
                    else plain(v) for i, v in enumerate(value)]
        return value

    return walk(doc, schema, getattr(doc, "mark", NOWHERE), path)
