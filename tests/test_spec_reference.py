"""The schemas are the reference: well-formed, fully described, strict, and docs/reference.md
is exactly what `python -m pipeline.spec.reference` generates from them."""
from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from pipeline.spec.reference import generate
from pipeline.spec.schema import SCHEMA_BASE, registry, schema_documents

ROOT = Path(__file__).resolve().parents[1]
# the spec stage's own schemas; other stages lint theirs in their tests
SPEC_SCHEMAS = ("defs", "creature", "scene", "commands", "controller")


def test_reference_is_in_sync_with_the_schemas():
    committed = (ROOT / "docs" / "reference.md").read_text("utf-8")
    assert committed == generate(), "docs/reference.md is stale: run `make docs`"


@pytest.mark.parametrize("name", sorted(schema_documents()))
def test_every_schema_is_draft_2020_12_with_an_id(name):
    doc = schema_documents()[name]
    jsonschema.Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == f"{SCHEMA_BASE}{name}.schema.json"
    assert registry().get_or_retrieve(doc["$id"]).value.contents is doc


def _objects(node, path="#"):
    if isinstance(node, dict):
        if "properties" in node:
            yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{path}/{i}")


@pytest.mark.parametrize("name", SPEC_SCHEMAS)
def test_every_property_is_titled_described_and_strict(name):
    for path, node in _objects(schema_documents()[name]):
        assert node.get("additionalProperties") is False, path
        for key, prop in node["properties"].items():
            assert prop.get("title") and prop.get("description"), f"{path}/properties/{key}"
