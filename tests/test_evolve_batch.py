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
from pipeline.simulate.rollout import rollout as real_rollout

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


BOX_EVOLUTION = """evolution: box
scene: scene.yaml
genotype:
  vector:
    genes:
      gravity: {path: environment.gravity, bounds: [0.5, 20], start: 9.8}
algorithm: {ga: {population: 6}}
fitness: fall
metrics:
  fall: {metric: displacement, body: box, axis: z}
evaluation: {duration: 0.6, stop: {body: box, below: 0.3}, chunk: 0.1}
generations: 1
"""


@pytest.fixture(scope="module")
def boxes(tmp_path_factory):
    """Articulated individuals of one shape (a falling box under other gravities): some reach
    the stop level within the evaluation, some do not."""
    folder = tmp_path_factory.mktemp("box")
    (folder / "pyproject.toml").touch()
    (folder / "scene.yaml").write_text(
        f"scene: box\nenvironment: {ROOT / 'environments/flat.yaml'}\n"
        f"creatures: [{{use: {ROOT / 'creatures/box.yaml'}, at: [{{rotate: {{x: 20}}}}, {{move: [0, 0, 0.5]}}]}}]\n"
        "simulation: {duration: 1, dt: 1/240, integrator: rk4, h: 1/2400, record_every: 2}\n")
    (folder / "box.yaml").write_text(BOX_EVOLUTION)
    evo = load_evolution(folder / "box.yaml")
    return evo, [(evo.space.phenotype(np.array([g])), 7 + k) for k, g in enumerate([0.5, 2.0, 9.8, 9.8, 20.0])]


@pytest.mark.parametrize("workers", [1, 2])
def test_articulated_individuals_rolled_out_together_equal_them_one_by_one(boxes, workers, monkeypatch):
    from pipeline.simulate import rollout as rollouts

    evo, items = boxes
    calls = []
    monkeypatch.setattr(rollouts, "rollout", lambda sims, *a: calls.append(len(sims)) or real_rollout(sims, *a))
    alone = [_essence(evaluate_individual((evo.setup, overrides, seed))) for overrides, seed in items]
    assert calls == []  # alone, an individual steps by itself
    together = [_essence(r) for r in evaluate_individuals((evo.setup, items, workers))]
    assert together == alone
    assert calls and calls[0] == len(items)  # one kernel call per chunk for all of them
    times = [r["simulated_time"] for r in alone]
    assert min(times) < 0.6 - 1e-9 and max(times) == pytest.approx(0.6)  # stopped early, and not
