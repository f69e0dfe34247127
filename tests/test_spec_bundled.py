"""Every bundled YAML file (creatures/, environments/, scenes/ — including ones added
later) validates fully and names its schema on the first line for editors."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.spec.loader import read_file
from pipeline.spec.resolve import validate_document
from pipeline.spec.schema import document_kind

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted(str(p.relative_to(ROOT)) for folder in ("creatures", "environments", "scenes")
                 for p in (ROOT / folder).rglob("*.y*ml"))


def test_there_is_something_to_run():
    assert {"creatures/box.yaml", "creatures/pendulum5.yaml", "environments/flat.yaml",
            "scenes/box_drop.yaml", "scenes/pendulum5.yaml"} <= set(BUNDLED)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_file_validates(name):
    assert validate_document(ROOT / name) == document_kind(read_file(ROOT / name))


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_file_names_its_schema_for_editors(name):
    kind = document_kind(read_file(ROOT / name))
    first = (ROOT / name).read_text("utf-8").splitlines()[0]
    schema = Path(os.path.relpath(ROOT / "schemas" / f"{kind}.schema.json", (ROOT / name).parent)).as_posix()
    assert first == f"# yaml-language-server: $schema={schema}"  # ../schemas/... one folder down
