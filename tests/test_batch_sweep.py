"""Sweep expansion and field paths: pure functions, no simulation."""
import pytest

from pipeline.batch.jobs import job_name
from pipeline.spec.paths import parse_path, set_path
from pipeline.batch.sweep import expand_parameters
from pipeline.errors import CorpusError


def test_parse_path_keys_indices_and_names():
    assert parse_path("environment.material.friction") == ["environment", "material", "friction"]
    assert parse_path("creatures[0].at") == ["creatures", 0, "at"]
    assert parse_path("creatures[roach].bodies[head].joint.damping") == [
        "creatures", "[roach]", "bodies", "[head]", "joint", "damping"]


def test_set_path_by_index_by_name_and_creating_mappings():
    doc = {"creatures": [{"creature": "a", "bodies": [{"name": "head", "joint": {}}]}], "simulation": {}}
    set_path(doc, "creatures[a].bodies[head].joint.damping", 0.5)
    set_path(doc, "creatures[0].at", [{"move": [0, 0, 1]}])
    set_path(doc, "environment.material.friction", 0.2)
    assert doc["creatures"][0]["bodies"][0]["joint"]["damping"] == 0.5
    assert doc["creatures"][0]["at"] == [{"move": [0, 0, 1]}]
    assert doc["environment"] == {"material": {"friction": 0.2}}


@pytest.mark.parametrize("path, message", [
    ("creatures[5].at", "index 5 out of range"),
    ("creatures[zebra].at", "no item named 'zebra'"),
    ("simulation[0]", "is not a list"),
])
def test_set_path_errors_name_the_path(path, message):
    doc = {"creatures": [{"creature": "a"}], "simulation": {}}
    with pytest.raises(CorpusError, match=message):
        set_path(doc, path, 1)


def test_grid_is_the_cartesian_product_in_order():
    runs = expand_parameters({"parameters": {"a": [1, 2], "b": ["x", "y", "z"]}})
    assert runs == [{"a": a, "b": b} for a in (1, 2) for b in ("x", "y", "z")]


def test_list_mode_takes_runs_verbatim():
    assert expand_parameters({"mode": "list", "runs": [{"a": 1}, {"a": 2, "b": 3}]}) == [{"a": 1}, {"a": 2, "b": 3}]


def test_random_mode_is_seeded_and_in_range():
    block = {"mode": "random", "samples": 50, "seed": 7,
             "parameters": {"u": {"uniform": [0.2, 0.9]}, "i": {"integers": [3, 5]}, "c": {"choice": ["p", "q"]}}}
    runs = expand_parameters(block)
    assert runs == expand_parameters(block)  # same seed, same jobs
    assert len(runs) == 50
    assert all(0.2 <= r["u"] <= 0.9 and r["i"] in (3, 4, 5) and r["c"] in ("p", "q") for r in runs)
    assert {r["i"] for r in runs} == {3, 4, 5}
    assert runs != expand_parameters({**block, "seed": 8})


def test_job_names_are_readable_and_filesystem_safe():
    assert job_name("roach", {}) == "roach"
    assert job_name("roach", {"environment.material.friction": 0.5, "simulation.seed": 2}) == \
        "roach__friction=0.5__seed=2"
    assert "/" not in job_name("s", {"a.b": "x/y z"})
