"""A worker's batch of individuals (pipeline.evolve.evaluate.evaluate_individuals): roobots
that differ only in FSM parameters run side by side in one kernel call per chunk
(pipeline/particles/batch.py) and give what each gives alone, to the bit, with one thread or
two; other genes fall back to one evaluation each; the time limit fails a batch's individuals."""
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from pipeline.evolve.evaluate import evaluate_individual, evaluate_individuals
from pipeline.evolve.spec import load_evolution

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def roobots():
    evo = load_evolution(ROOT / "evolutions" / "roobot_ga.yaml")
    setup = dataclasses.replace(evo.setup, duration=3.0)
    rng = np.random.default_rng(7)
    start = evo.space.initial(1, rng)[0]
    genotypes = [start] + [evo.space.reflect(start + rng.normal(0, 0.05, start.size) * (evo.space.high - evo.space.low))
                           for _ in range(4)]
    return evo, setup, [(evo.space.phenotype(g), 100 + k) for k, g in enumerate(genotypes)]


def _essence(result):
    return {k: result.get(k) for k in ("fitness", "metrics", "simulated_time", "error")}


@pytest.mark.parametrize("workers", [1, 2])  # two workers on this machine: one thread each
def test_a_batch_equals_its_individuals_one_by_one(roobots, workers):
    evo, setup, items = roobots
    alone = [_essence(evaluate_individual((setup, overrides, seed))) for overrides, seed in items]
    together = [_essence(r) for r in evaluate_individuals((setup, items, workers))]
    assert together == alone
    assert len({r["simulated_time"] for r in alone}) > 1  # some fell (the stop ended them), some did not


def test_other_genes_are_evaluated_one_by_one_in_the_same_batch(roobots):
    evo, setup, items = roobots
    mixed = [items[0], ({**items[1][0], "simulation.h": 0.001}, items[1][1]), items[2]]
    results = evaluate_individuals((setup, mixed, 1))
    assert [_essence(r) for r in results] == [_essence(evaluate_individual((setup, o, s))) for o, s in mixed]


def test_the_time_limit_fails_the_individuals_of_a_batch(roobots):
    evo, setup, items = roobots
    results = evaluate_individuals((dataclasses.replace(setup, time_limit=1e-9), items[:2], 1))
    assert all(r["timeout"] and r["error"].startswith("timeout: more than 1e-09 s of wall time") for r in results)
