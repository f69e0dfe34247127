"""The broken-file corpus: every file in tests/broken/ fails with exactly the problems
listed for it in tests/broken/expected.txt (file:line:col: path: message)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.validate import validate_paths

BROKEN = Path(__file__).parent / "broken"
ROOT = Path(__file__).resolve().parents[1]


def expected_table() -> dict[str, list[str]]:
    """[file] sections of expected.txt -> the problem lines under each."""
    table: dict[str, list[str]] = {}
    section = None
    for line in (BROKEN / "expected.txt").read_text("utf-8").splitlines():
        if line.startswith("[") and line.endswith("]"):
            section = table.setdefault(line[1:-1], [])
        elif line.strip() and not line.startswith("#"):
            section.append(line.replace("{root}", str(ROOT)))
    return table


EXPECTED = expected_table()
FILES = sorted(p.name for p in BROKEN.glob("*.yaml"))


def test_corpus_is_large_and_fully_described():
    assert len(FILES) >= 30
    assert sorted(EXPECTED) == FILES
    assert all(EXPECTED[name] for name in FILES)  # every broken file has problems listed


@pytest.mark.parametrize("name", FILES)
def test_broken_file_reports_exact_problems(name, monkeypatch):
    monkeypatch.chdir(BROKEN)
    count, problems = validate_paths([name])
    assert count == 1
    reported = [str(p) for p in problems]
    assert reported == EXPECTED[name]
