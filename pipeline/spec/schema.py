"""JSON Schema validation of marked documents, with errors a person can act on.

Every schema in `schemas/` is registered under its `$id`; a document is validated against
the schema its top-level key names. Each jsonschema error becomes one located `Problem`:

* unknown keys point at the key and suggest the closest known one ("did you mean ...?");
* `anyOf`/`oneOf` failures report the branch the value matches best, or — when no branch
  fits at all — the schema's own `x-expected` sentence instead of a wall of sub-errors.
"""
from __future__ import annotations

import difflib
import functools
import hashlib
import json
import math
import re

import jsonschema
import referencing
from referencing.jsonschema import DRAFT202012

from pipeline.errors import Problem
from pipeline.spec.assets import ASSET_ROOT
from pipeline.spec.checks import in_file_order
from pipeline.spec.loader import MDict, Mark, format_path, mark_at

SCHEMA_DIR = ASSET_ROOT / "schemas"
SCHEMA_BASE = "https://corpus-pipeline.dev/schemas/"
# When several kind keys appear (a controller names its `creature`, a scene its
# `environment`, a sweep its `scene`), the first in this order wins; schemas of other
# stages whose document requires its own stem as a key (`particles:`) are kinds too.
KIND_PRIORITY = ("evolution", "sweep", "scene", "particles", "controller", "creature", "environment")


@functools.cache
def schema_documents() -> dict[str, dict]:
    """Every schema file by its stem ("creature", "defs", ...)."""
    out = {}
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        out[path.name.removesuffix(".schema.json")] = json.loads(path.read_text("utf-8"))
    return out


@functools.cache
def registry() -> referencing.Registry:
    resources = [(doc["$id"], DRAFT202012.create_resource(doc)) for doc in schema_documents().values()]
    return referencing.Registry().with_resources(resources)


@functools.cache
def validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(inlined(kind))


# Keywords whose values are subschemas (one, a list, or a name -> schema mapping).
_ONE_SCHEMA = {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
               "unevaluatedProperties", "unevaluatedItems"}
_SCHEMA_LISTS = {"anyOf", "oneOf", "allOf", "prefixItems"}
_SCHEMA_MAPS = {"properties", "patternProperties", "dependentSchemas", "$defs"}
# Siblings of a $ref that do not constrain anything, so the target can stand in for it.
_ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "$id", "$schema", "$defs"}


_INLINED: dict[int, dict] = {}  # id(original subschema) -> its inlined copy, shared by all schemas


@functools.cache
def inlined(name: str) -> dict:
    """Schema `name` with every $ref replaced by its (shared) target: a cyclic graph of plain
    dicts. Validating it skips the URI lookups that otherwise take most of the time."""
    return _inline({"$ref": schema_documents()[name]["$id"]}, registry().resolver(), _INLINED)


def inlined_definition(original: dict) -> dict | None:
    """The inlined copy of a subschema of the original documents, once inlined."""
    return _INLINED.get(id(original))


def _inline(node, resolver, memo: dict):
    if not isinstance(node, dict):
        return node
    if "$ref" not in node:
        return _inline_keywords(node, resolver, memo)
    resolved = resolver.lookup(node["$ref"])
    key = id(resolved.contents)
    if key not in memo:
        memo[key] = {}  # filled in place, so that recursive definitions share this object
        memo[key].update(_inline(resolved.contents, resolved.resolver, memo))
    rest = {k: v for k, v in node.items() if k != "$ref" and k not in _ANNOTATIONS}
    return {"allOf": [memo[key]], **_inline_keywords(rest, resolver, memo)} if rest else memo[key]


def _inline_keywords(node: dict, resolver, memo: dict) -> dict:
    if "$id" in node:
        resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
    out = {}
    for key, value in node.items():
        if key in ("$id", "$schema"):
            continue
        if key in _ONE_SCHEMA:
            out[key] = _inline(value, resolver, memo)
        elif key in _SCHEMA_LISTS:
            out[key] = [_inline(v, resolver, memo) for v in value]
        elif key in _SCHEMA_MAPS:
            out[key] = {k: _inline(v, resolver, memo) for k, v in value.items()}
        else:
            out[key] = value
    return out


_JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def shallow_match(value, schema: dict) -> bool:
    """Whether an already valid `value` took this branch of an (inlined) anyOf/oneOf: its
    type, required keys, enum, pattern and item counts fit (nested properties are not walked;
    full validation of every branch would cost as much as validating the document again)."""
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_is_type(value, t) for t in types):
            return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, dict) and not set(schema.get("required", ())) <= set(value):
        return False
    if isinstance(value, dict) and len(value) > schema.get("maxProperties", len(value)):
        return False
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        return False
    if isinstance(value, list) and not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
        return False
    for key in ("anyOf", "oneOf"):
        if key in schema and not any(shallow_match(value, b) for b in schema[key]):
            return False
    return True


def _is_type(value, name: str) -> bool:
    if name in ("number", "integer"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return ok and (name == "number" or float(value).is_integer())
    return isinstance(value, _JSON_TYPES[name]) and not (name != "boolean" and isinstance(value, bool))


def to_si(doc, name: str, pointer: str = "", path: str = ""):
    """A plain copy of a valid document of schema `name` (or of the part of that schema at
    the JSON `pointer`, e.g. "/properties/simulation") with all quantities in SI. `path` is
    where `doc` sits in its file ("simulation"), the prefix of the field paths of problems."""
    from pipeline.spec.units import to_si_document

    node = inlined(name)
    for segment in filter(None, pointer.split("/")):
        node = node[segment]
    return to_si_document(doc, node, path)


@functools.cache
def kinds_present() -> tuple[str, ...]:
    """Document kinds: schema files whose documents require a key named like the schema."""
    docs = schema_documents()
    kinds = [k for k, d in docs.items() if k in d.get("required", ())]
    return tuple(sorted(kinds, key=lambda k: (KIND_PRIORITY.index(k) if k in KIND_PRIORITY else 1.5, k)))


def document_kind(doc) -> str | None:
    """The kind a document declares by a top-level key holding its name, or None."""
    if isinstance(doc, dict):
        for kind in kinds_present():
            if isinstance(doc.get(kind), str):
                return kind
    return None


def kind_problem(doc: MDict) -> Problem:
    message = ("cannot tell what this document is: it needs a top-level key naming its kind, "
               "such as `creature: name` or `scene: name`")
    for key in doc:
        close = difflib.get_close_matches(str(key), kinds_present(), n=1, cutoff=0.6)
        if close:
            return doc.key_mark(key).problem(f"{message} (did you mean '{close[0]}'?)", str(key))
    return doc.mark.problem(message)


# (kind, digest) of documents found valid in this process: validity depends on the content
# alone, and a warm batch worker or a sweep validates the same creature again and again
_valid: set[tuple[str, bytes]] = set()
_VALID_MAX = 4096
# stands in, in a scene being validated, for an inline creature already found valid: a
# valid `creatures` item whose own validation costs nothing (docs/batch.md, start-up)
_KNOWN_CREATURE = {"use": "known.yaml"}


def document_digest(doc) -> bytes:
    """The content of a document of plain values: repr tells 1, 1.0, True and "1" apart,
    keeps floats exact and quotes strings, so equal digests mean equal documents."""
    return hashlib.blake2b(repr(doc).encode(), digest_size=20).digest()


def validate(doc, kind: str) -> list[Problem]:
    """All schema problems of `doc` as the document `kind`, in file order."""
    key = (kind, document_digest(doc))
    if key in _valid:
        return []
    problems = _problems(doc, kind)
    if not problems:
        if len(_valid) >= _VALID_MAX:
            _valid.clear()
        _valid.add(key)
    return problems


def _known_creatures_stubbed(doc, kind: str):
    """A scene whose inline creatures already found valid are replaced by a valid stub
    (their problems would be none), else the document itself."""
    creatures = doc.get("creatures") if kind == "scene" and isinstance(doc, dict) else None
    if not isinstance(creatures, list):
        return doc
    items = [_KNOWN_CREATURE if isinstance(c, dict) and ("creature", document_digest(c)) in _valid else c
             for c in creatures]
    return {**doc, "creatures": items} if any(i is _KNOWN_CREATURE for i in items) else doc


def _problems(doc, kind: str) -> list[Problem]:
    problems: list[Problem] = []
    errors = list(validator(kind).iter_errors(_known_creatures_stubbed(doc, kind)))
    # an empty name breaks both its pattern and its minLength: the pattern says it all
    with_pattern = {tuple(e.absolute_path) for e in errors if e.validator == "pattern"}
    for error in errors:
        if error.validator == "minLength" and tuple(error.absolute_path) in with_pattern:
            continue
        problems.extend(_explain(error, doc))
    problems.extend(mark_at(doc, path).problem(f"{value!r} is not a finite number", format_path(path))
                    for path, value in _non_finite(doc, []))
    return _unique_sorted(problems)


def _non_finite(node, path: list):
    """(path, value) of every NaN or infinity (YAML's .nan, .inf) in a document: no field takes
    one, and a schema's bounds cannot refuse NaN (every comparison with it is false)."""
    if isinstance(node, float) and not math.isfinite(node):
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _non_finite(value, [*path, key])
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _non_finite(value, [*path, i])


def _unique_sorted(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        key = (p.file, p.line, p.col, p.path, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return in_file_order(out)


def describe(value) -> str:
    """A short description of a value for messages: its type and, if short, the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else "a string"
    if isinstance(value, dict):
        keys = list(value)
        return "a mapping with keys " + ", ".join(map(str, keys)) if 1 < len(keys) <= 6 else "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "number": "a number",
               "integer": "an integer", "boolean": "true or false", "null": "null"}
# Errors at the value itself (not below it) that mean "this branch is the wrong kind of thing".
_SHAPE_VALIDATORS = {"type": 100, "required": 10, "const": 10, "enum": 5, "pattern": 1, "not": 10,
                     "minProperties": 3, "maxProperties": 3, "additionalProperties": 1}


def _located(error, doc, message: str, extra_key=None) -> Problem:
    path = list(error.absolute_path)
    if extra_key is not None:
        mark = doc_key_mark(doc, path, extra_key)
        path.append(extra_key)
    else:
        mark = mark_at(doc, path)
    return mark.problem(message, format_path(path))


def doc_key_mark(doc, path, key) -> Mark:
    node = doc
    for k in path:
        node = node[k]
    return node.key_mark(key) if isinstance(node, MDict) else mark_at(doc, path)


def _explain(error, doc, expected: str | None = None) -> list[Problem]:
    v = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    expected = schema.get("x-expected", expected)
    if v in ("anyOf", "oneOf"):
        return _explain_branches(error, doc, expected)
    if v == "additionalProperties":
        known = list(schema.get("properties", {}))
        out = []
        for key in error.instance:
            if key in known:
                continue
            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(known)}"
            out.append(_located(error, doc, f"unknown key '{key}'{hint}", extra_key=key))
        return out
    if v == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return [_located(error, doc, "missing required key " + ", ".join(f"'{k}'" for k in missing))]
    if v == "type":
        if expected:
            return [_located(error, doc, f"expected {expected}, got {describe(error.instance)}")]
        want = error.validator_value
        want = [want] if isinstance(want, str) else want
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in want)
        return [_located(error, doc, f"expected {words}, got {describe(error.instance)}")]
    if v == "enum":
        options = [str(o) for o in error.validator_value]
        close = difflib.get_close_matches(str(error.instance), options, n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return [_located(error, doc, f"{describe(error.instance)} is not one of: {', '.join(options)}{hint}")]
    if v in ("pattern", "maxProperties", "minProperties", "not") and expected:
        return [_located(error, doc, f"expected {expected}, got {describe(error.instance)}")]
    if v in ("minItems", "maxItems"):
        lo, hi = schema.get("minItems"), schema.get("maxItems")
        count = "exactly" if lo == hi else ("at least" if v == "minItems" else "at most")
        n = error.validator_value
        return [_located(error, doc, f"expected {count} {n} item{'s' if n != 1 else ''}, got {len(error.instance)}")]
    if v in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        op = {"minimum": "at least", "exclusiveMinimum": "greater than", "maximum": "at most",
              "exclusiveMaximum": "less than"}[v]
        return [_located(error, doc, f"must be {op} {error.validator_value}, got {error.instance!r}")]
    if v == "pattern":
        return [_located(error, doc, f"{describe(error.instance)} has the wrong form")]
    return [_located(error, doc, error.message)]


def _branch_score(errors, depth: int) -> float:
    """How badly a branch fails: errors at the value itself count by kind, deeper ones a little."""
    score = 0.0
    for e in errors:
        if len(e.absolute_path) == depth:
            score += _SHAPE_VALIDATORS.get(e.validator, 1)
        else:
            score += 0.01
    return score


def _explain_branches(error, doc, expected: str | None) -> list[Problem]:
    depth = len(error.absolute_path)
    branches: dict[int, list] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    if not branches:  # oneOf matched several branches
        return [_located(error, doc, f"ambiguous: expected {expected}" if expected else error.message)]
    scored = sorted((_branch_score(errs, depth), i) for i, errs in branches.items())
    best_score, best = scored[0]
    clear_winner = len(scored) == 1 or scored[1][0] > best_score
    top_errors = [e for e in branches[best] if len(e.absolute_path) == depth]
    wrong_type = any(e.validator == "type" for e in top_errors)
    if expected and (not clear_winner or wrong_type):
        return [_located(error, doc, f"expected {expected}, got {describe(error.instance)}")]
    out = []
    for sub in branches[best]:
        out.extend(_explain(sub, doc, expected if len(sub.absolute_path) == depth else None))
    return out
