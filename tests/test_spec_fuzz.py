"""Property-based fuzzing: valid files with random mutations only ever raise CorpusError.

Mutations work on the text (delete, insert, duplicate, swap, replace characters/lines)
and on the data (`pipeline.load` of a dict with a key removed, a value replaced by a value
of another type, or a junk key added). Every input must either load or raise CorpusError.
"""
from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.errors import CorpusError
from pipeline.spec.loader import parse_text, plain
from pipeline.spec.resolve import load, validate_document

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ["creatures/box.yaml", "creatures/pendulum5.yaml", "creatures/roach.yaml",
         "environments/flat.yaml", "scenes/box_drop.yaml", "scenes/pendulum5.yaml"]
FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the bundled files in a project of its own, so mutants can include them."""
    root = tmp_path_factory.mktemp("fuzz")
    (root / "corpus.toml").write_text("")
    for folder in ("creatures", "environments", "scenes"):
        shutil.copytree(ROOT / folder, root / folder)
    return root


def only_corpus_errors(fn, *args, **kwargs) -> None:
    try:
        fn(*args, **kwargs)
    except CorpusError as error:
        assert error.problems and all(p.message for p in error.problems)


JUNK = st.text(alphabet=st.sampled_from(list(" \t\n:-[]{},&*!|>'\"#%@`?~0123456789abcxyz\u00e9\u2603\x00\x7f")),
               min_size=1, max_size=12)


TEXT_KINDS = ("delete", "insert", "duplicate", "swap", "replace")


def mutate_text(draw, text: str, kind: str) -> str:
    """`text` after one mutation of `kind` (one of TEXT_KINDS); `draw` is hypothesis's."""
    i = draw(st.integers(0, max(0, len(text) - 1)))
    if kind == "delete":
        return text[:i] + text[i + draw(st.integers(1, 20)):]
    if kind == "insert":
        return text[:i] + draw(JUNK) + text[i:]
    if kind == "replace":
        return text[:i] + draw(JUNK) + text[i + 1:]
    lines = text.split("\n")
    a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
    if kind == "duplicate":
        lines.insert(a, lines[b])
    else:
        lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


@st.composite
def text_mutant(draw):
    seed = draw(st.sampled_from(SEEDS))
    text = (ROOT / seed).read_text("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        text = mutate_text(draw, text, draw(st.sampled_from(TEXT_KINDS)))
    return seed, text


@FUZZ
@given(text_mutant())
def test_text_mutants_raise_only_corpus_errors(project, mutant):
    seed, text = mutant
    target = project / Path(seed).parent / "mutant.yaml"
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    only_corpus_errors(validate_document, target)


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=True),
                   st.text(max_size=6), st.lists(st.integers(-2, 2), max_size=4),
                   st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


@st.composite
def data_mutant(draw):
    seed = draw(st.sampled_from(SEEDS[:3] + SEEDS[4:]))
    doc = copy.deepcopy(plain(parse_text((ROOT / seed).read_text("utf-8"), seed)))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        kind = draw(st.sampled_from(["delete", "replace", "add"]))
        if kind == "delete":
            del parent[path[-1]]
        elif kind == "replace":
            parent[path[-1]] = draw(VALUES)
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=5))] = draw(VALUES)
        else:
            parent.append(draw(VALUES))
    return seed, doc


@FUZZ
@given(data_mutant())
def test_data_mutants_raise_only_corpus_errors(project, mutant):
    seed, doc = mutant
    only_corpus_errors(load, doc, base_dir=project / Path(seed).parent)
