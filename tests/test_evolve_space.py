"""Genotype spaces, gene paths and evolution files (pipeline/evolve/space.py, paths.py, spec.py)."""
from pathlib import Path

import numpy as np
import pytest
import yaml

from pipeline.errors import CorpusError
from pipeline.evolve.paths import field_value
from pipeline.evolve.space import VectorSpace
from pipeline.evolve.spec import load_evolution
from pipeline.spec.loader import parse_text, plain

ROOT = Path(__file__).resolve().parents[1]
GUESS = [0.5, 0.6, 0.5, 0.5, 1, 0.5, 0.9, 5, 2, 0.05, 0.5, 1, 0.5, 0.1]


def space(**kw) -> VectorSpace:
    low, high = np.array([0.0, -5.0, 1e-3]), np.array([1.0, 5.0, 2e-3])
    return VectorSpace(("a", "b", "c"), ("x.a", "x.b", "y[0].c"), low, high, np.array([0.5, 0.0, 1.5e-3]), **kw)


def test_initial_population_is_the_start_and_its_mutants_or_uniform():
    s = space()
    pop = s.initial(5, np.random.default_rng(1))
    assert pop.shape == (5, 3) and (pop[0] == s.start).all() and not (pop[1:] == s.start).all(axis=1).any()
    pop = space(init="random").initial(1000, np.random.default_rng(1))
    assert (pop >= s.low).all() and (pop <= s.high).all()
    assert np.allclose(pop.mean(0), (s.low + s.high) / 2, atol=0.05 * (s.high - s.low))


def test_mutation_is_zero_mean_scaled_to_the_range_and_stays_in_bounds():
    s = space(sigma=0.01)
    parents = np.repeat(s.start[None], 100_000, axis=0)
    step = s.mutate(parents, np.random.default_rng(2)) - parents
    span = s.high - s.low
    assert np.allclose(step.std(0) / span, 0.01, rtol=0.02)
    assert (np.abs(step.mean(0)) < 3 * 0.01 * span / np.sqrt(len(parents))).all()  # no drift (Arnold M6)
    wild = space(sigma=7.0).mutate(parents[:1000], np.random.default_rng(3))
    assert (wild >= s.low).all() and (wild <= s.high).all()
    assert np.isclose(space().reflect(np.array([1.25, 5.5, 2.2e-3])), [0.75, 4.5, 1.8e-3]).all()


def test_mutation_rate_mutates_that_share_of_genes():
    s = space(rate=0.25)
    parents = np.repeat(s.start[None], 20_000, axis=0)
    changed = s.mutate(parents, np.random.default_rng(4)) != parents
    assert changed.mean() == pytest.approx(0.25, abs=0.01)


def test_crossover_discrete_takes_each_gene_from_a_parent_intermediate_averages():
    a, b = np.zeros((2000, 3)), np.ones((2000, 3))
    child = space().crossover(a, b, np.random.default_rng(5))
    assert set(np.unique(child)) == {0.0, 1.0} and child.mean() == pytest.approx(0.5, abs=0.02)
    assert (space(crossover_kind="intermediate").crossover(a, b, None) == 0.5).all()


def test_phenotype_is_overrides_by_path():
    assert space().phenotype(np.array([0.25, -1.0, 1e-3])) == {"x.a": 0.25, "x.b": -1.0, "y[0].c": 1e-3}


def test_yaml_round_trip_is_lossless():
    s = space(init="random")
    for genotype in s.initial(200, np.random.default_rng(6)):
        text = yaml.safe_dump({"genotype": s.to_data(genotype)})
        back = s.from_data(plain(parse_text(text, "g.yaml"))["genotype"])
        assert back.tobytes() == genotype.tobytes()


def test_from_data_refuses_other_genes_and_values_out_of_bounds():
    with pytest.raises(CorpusError, match="names the genes"):
        space().from_data({"a": 0.5, "b": 0.0})
    with pytest.raises(CorpusError, match="outside their bounds: b"):
        space().from_data({"a": 0.5, "b": 9.0, "c": 1.5e-3})


def test_field_paths_look_through_includes_and_suggest_names():
    doc = {"creatures": [{"use": str(ROOT / "creatures/roobot.yaml"), "name": "r"}],
           "simulation": {"dt": "1/500"}}
    assert field_value(doc, "creatures[0].with.controller.params.leap_rate") == pytest.approx(7.3)
    assert field_value(doc, "creatures[r].with.masses[0].mass") == 1.0
    assert field_value(doc, "simulation.dt") == "1/500"
    for path, message in [("creatures[0].with.controller.params.leap_rte", "no field 'leap_rte'; did you mean 'leap_rate'"),
                          ("simulation.dtt", "simulation has no field 'dtt'; did you mean 'dt'"),
                          ("creatures[3].at", "creatures has no item [3]"),
                          ("creatures[q].at", "no item named 'q'")]:
        with pytest.raises(ValueError, match=message.replace("[", r"\[")):
            field_value(doc, path)


def test_roobot_evolution_loads_its_fourteen_genes():
    evo = load_evolution(ROOT / "evolutions/roobot_ga.yaml")
    assert len(evo.space.names) == 14 and list(evo.space.start) == GUESS
    assert evo.algorithm == "one_plus_one" and evo.setup.stop.body == "hip" and evo.setup.duration == 60
    assert evo.space.paths[0] == "creatures[0].with.controller.params.stance_leg"


def write(tmp_path, text: str) -> Path:
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "scene.yaml").write_text(
        f"scene: s\ncreatures: [{{use: {ROOT / 'creatures/roobot.yaml'}}}]\nsimulation: {{duration: 1, dt: 1/500}}\n")
    path = tmp_path / "evo.yaml"
    path.write_text(text)
    return path


BASE = """evolution: e
scene: scene.yaml
genotype:
  vector:
    prefix: creatures[0].with.controller.params
    genes:
      leap_rate: {bounds: [0, 20]}
algorithm: {one_plus_one: {}}
fitness: forward
metrics: {forward: {metric: displacement, body: hip}}
"""


def test_a_gene_start_defaults_to_the_scene_value(tmp_path):
    assert load_evolution(write(tmp_path, BASE)).space.start[0] == pytest.approx(7.3)


@pytest.mark.parametrize("edit, where, message", [
    (("leap_rate: {bounds: [0, 20]}", "leap_rte: {bounds: [0, 20]}"), ":7:7:",
     "no field 'leap_rte'; did you mean 'leap_rate'?"),
    (("[0, 20]", "[0, 5]"), ":7:27:", "start value 7.3 is outside the bounds [0, 5]"),
    (("[0, 20]", "[3, 3]"), ":7:27:", "lo must be below hi"),
    (("fitness: forward", "fitness: forwrd * 2"), ":9:10:", "unknown name 'forwrd'"),
    (("metric: displacement", "metric: displacment"), ":10:20:", "unknown metric 'displacment'; did you mean 'displacement'?"),
    (("one_plus_one: {}", "ga: {population: 4, elitism: 4}"), ":8:17:", "elitism must be smaller than the population"),
    (("leap_rate: {bounds: [0, 20]}", "k: {path: 'creatures[0].with.forces[leg].k', bounds: [0, 1e4]}"), ":7:",
     "cannot be set: sweep path 'creatures[0].with.forces[leg].k': forces is not a list"),
])
def test_semantic_problems_are_located(tmp_path, edit, where, message):
    path = write(tmp_path, BASE.replace(*edit))
    with pytest.raises(CorpusError) as info:
        load_evolution(path)
    assert f"{path}{where}" in str(info.value) or f"evo.yaml{where}" in str(info.value), str(info.value)
    assert message in str(info.value)


def test_the_schema_is_titled_described_and_strict():
    from tests.test_spec_reference import _objects
    from pipeline.spec.schema import schema_documents

    for path, node in _objects(schema_documents()["evolution"]):
        assert node.get("additionalProperties") is False, path
        for key, prop in node["properties"].items():
            assert prop.get("title") and prop.get("description"), f"{path}/properties/{key}"
