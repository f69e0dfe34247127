"""Fuzzing past validation (docs/errors.md, issue 19): bundled scenes, or one file they
include, mutated in their text and their numbers, go through `corpus validate` and `corpus
run` for three frames (load, compile, simulate, export). Each ends with status 0 or 1, never
a traceback, and every line it prints for a problem is located: `file:line:col: ...` in a
YAML file, or `error: --flag: ...`. tests/test_spec_fuzz.py fuzzes `load` alone.

The default set runs FEW examples, the slow set MANY."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.errors import CorpusError
from pipeline.spec.resolve import load
from test_spec_fuzz import TEXT_KINDS, mutate_text, project  # noqa: F401  (project: a fixture)

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ["box_drop", "pendulum5", "swing_fsm", "roach_drop", "roobot_hop", "jellyfish"]
# a run exports its data only: rendering is not what is fuzzed here, and costs seconds
CHEAP_OUTPUTS = "outputs: {frames: false, video: false, glb: false, plots: false}"
FRAMES = 3
FEW, MANY = 15, 1000

# numbers at the edges of what physics takes: zero, negative, tiny, huge, not finite
NUMBERS = st.sampled_from(["0", "-1", "-0.5", "1e-300", "1e-12", "1e9", "1e300", ".nan", ".inf", "-.inf",
                           "7", "0.5", "1/3", "2e-3", "100", "[1, 2]", "abc", "''"])
NUMBER = re.compile(r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?(/\d+)?(?![\w.])")
SUMMARY = re.compile(r"^1 file checked: ")
LOCATED = re.compile(r"^(\S+\.(yaml|yml|py|json):\d+(:\d+)?: |error: --[a-z-]+: )")


def seed_text(name: str) -> str:
    """A bundled scene that exports data only (its own outputs line replaced)."""
    lines = (ROOT / "scenes" / f"{name}.yaml").read_text("utf-8").splitlines()
    return "\n".join(CHEAP_OUTPUTS if line.startswith("outputs:") else line for line in lines) + "\n"


def includes(text: str) -> list[str]:
    return re.findall(r"\.\./(?:creatures|environments)/[\w.]+\.yaml", text)


@st.composite
def mutated(draw, text: str) -> str:
    """`text` after one to three mutations: a number replaced by an edge value, or one of
    tests/test_spec_fuzz.py's text mutations."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["number", "number", *TEXT_KINDS]))
        numbers = list(NUMBER.finditer(text))
        if kind != "number":
            text = mutate_text(draw, text, kind)
        elif numbers:
            m = draw(st.sampled_from(numbers))
            text = text[:m.start()] + draw(NUMBERS) + text[m.end():]
    return text


@st.composite
def mutant(draw) -> tuple[str, str, dict[str, str]]:
    """(seed, scene text, {included file in the project: its mutated text})."""
    seed = draw(st.sampled_from(SEEDS))
    scene = seed_text(seed)
    targets = ["scene", *includes(scene)]
    target = draw(st.sampled_from(targets))
    if target == "scene":
        return seed, draw(mutated(scene)), {}
    original = (ROOT / "scenes" / target).resolve()
    mutant_name = f"{original.parent.name}/mutant_{original.name}"
    text = draw(mutated(original.read_text("utf-8")))
    return seed, scene.replace(target, f"../{mutant_name}"), {mutant_name: text}


def corpus(capsys, *args: str) -> tuple[int, list[str]]:
    status = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, out + err
    return status, (out + err).splitlines()


def three_frames(path: Path) -> str:
    """--duration of three frames of the scene's dt, when it loads (else any: run fails first)."""
    try:
        return repr(FRAMES * load(path).simulation.dt)
    except CorpusError:
        return "0.01"


def check(project: Path, monkeypatch, capsys, case) -> None:
    seed, scene, files = case
    monkeypatch.chdir(project)
    for name, text in files.items():
        (project / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    path = project / "scenes" / "mutant.yaml"
    path.write_bytes(scene.encode("utf-8", "surrogatepass"))
    status, lines = corpus(capsys, "validate", "scenes/mutant.yaml")
    assert status in (0, 1), lines
    problems = [line for line in lines if not SUMMARY.match(line)]
    assert len(problems) < len(lines) and bool(problems) == (status == 1), lines
    assert all(LOCATED.match(line) for line in problems), lines
    out = project / "out"
    shutil.rmtree(out, ignore_errors=True)
    status, lines = corpus(capsys, "run", "scenes/mutant.yaml", "--duration", three_frames(path), "--out", "out",
                           "--quiet")
    assert status in (0, 1), lines
    if status == 1:
        assert lines and all(LOCATED.match(line) for line in lines), lines
        assert not out.exists()
    else:
        assert (out / "manifest.json").is_file()
        assert not lines


@settings(max_examples=FEW, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=mutant())
def test_mutated_bundled_scenes_through_validate_and_run(project, monkeypatch, capsys, case):
    check(project, monkeypatch, capsys, case)


@pytest.mark.slow
@settings(max_examples=MANY, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=mutant())
def test_many_mutated_bundled_scenes_through_validate_and_run(project, monkeypatch, capsys, case):
    check(project, monkeypatch, capsys, case)
