"""The algorithms as functions over a population and a generator (pipeline/evolve/algorithms.py,
cmaes.py): selection rules, failed individuals, determinism and resuming from a pickled State."""
import pickle

import numpy as np
import pytest

from pipeline.evolve.algorithms import ALGORITHMS, State, es_sizes, select, tournament
from pipeline.evolve.run import generation_rng
from pipeline.evolve.space import VectorSpace

SPACE = VectorSpace(tuple("abcd"), tuple("abcd"), np.zeros(4), np.full(4, 2.0), np.full(4, 0.2), sigma=0.05)
TARGET = np.array([1.5, 0.5, 1.0, 1.8])


def sphere(population) -> np.ndarray:
    return -((population - TARGET) ** 2).sum(1)


def evolve(name, settings, generations, fitness=sphere, seed=0, state=None, first=0):
    """The generation loop of pipeline/evolve/run.py without evaluation machinery."""
    algo = ALGORITHMS[name]()
    history = []
    for g in range(first, generations + 1):
        rng = generation_rng(seed, g)
        if state is None:
            population = algo.initial(SPACE, settings, rng)
            state = algo.start(population, fitness(population), SPACE, settings, rng)
        else:
            population = algo.ask(state, SPACE, settings, rng)
            state = algo.tell(state, population, fitness(population), SPACE, settings, rng)
        history.append(population)
    return state, history


@pytest.mark.parametrize("name, settings", [("one_plus_one", {}), ("es", {"mu": 4}),
                                            ("es", {"mu": 4, "plus": True, "selection": "proportional"}),
                                            ("ga", {"population": 24}), ("cmaes", {})])
def test_each_algorithm_climbs_a_sphere_deterministically_and_resumes_exactly(name, settings):
    state, history = evolve(name, settings, 40)
    start = sphere(SPACE.start[None])[0]
    assert np.nanmax(state.fitness) > start / 5, (name, np.nanmax(state.fitness), start)
    again, history_again = evolve(name, settings, 40)
    assert all((a == b).all() for a, b in zip(history, history_again))
    half, _ = evolve(name, settings, 20)
    resumed, tail = evolve(name, settings, 40, state=pickle.loads(pickle.dumps(half)), first=21)
    assert all((a == b).all() for a, b in zip(history[21:], tail))
    assert (resumed.population == state.population).all()


def test_one_plus_one_keeps_the_parent_unless_strictly_better_and_skips_failures():
    tell = ALGORITHMS["one_plus_one"]().tell
    parent = State(np.zeros((1, 4)), np.array([1.0]))
    child = np.ones((1, 4))
    assert tell(parent, child, np.array([1.0]), SPACE, {}, None) is parent
    assert tell(parent, child, np.array([np.nan]), SPACE, {}, None) is parent
    assert tell(parent, child, np.array([1.5]), SPACE, {}, None).population is child
    failed_parent = State(np.zeros((1, 4)), np.array([np.nan]))
    assert tell(failed_parent, child, np.array([-3.0]), SPACE, {}, None).population is child


def test_es_has_lambda_six_mu_and_comma_or_plus_survivors():
    algo = ALGORITHMS["es"]()
    assert es_sizes({"mu": 5}) == (5, 30)
    rng = np.random.default_rng(0)
    parents = State(np.zeros((2, 4)), np.array([10.0, 9.0]))
    kids = algo.ask(parents, SPACE, {"mu": 2}, rng)
    assert kids.shape == (12, 4)
    kid_fitness = np.arange(12.0)
    comma = algo.tell(parents, kids, kid_fitness, SPACE, {"mu": 2}, rng)
    assert list(comma.fitness) == [11.0, 10.0]
    plus = algo.tell(parents, kids, kid_fitness - 3, SPACE, {"mu": 2, "plus": True}, rng)
    assert list(plus.fitness) == [10.0, 9.0] and (plus.population == 0).all()


def test_failed_individuals_never_breed_or_survive():
    rng = np.random.default_rng(1)
    fitness = np.array([np.nan, 1.0, np.nan, 3.0, 2.0])
    assert set(select(fitness, 200, "proportional", rng)) == {3, 4}  # the worst valid one gets weight 0
    assert list(select(fitness, 5, "best", rng)) == [3, 4, 1, 3, 4]
    assert set(tournament(fitness, 500, 2, rng)) <= {1, 3, 4}
    population = np.array([[0.1] * 4, [1.9] * 4])
    kids = ALGORITHMS["es"]().ask(State(population, np.array([np.nan, 1.0])), SPACE, {"mu": 2}, rng)
    assert (np.abs(kids - 1.9) < 0.6).all()  # all bred from the valid parent


def test_proportional_selection_follows_fitness_above_the_worst():
    fitness = np.array([0.0, 1.0, 3.0])
    picks = select(fitness, 40_000, "proportional", np.random.default_rng(2))
    assert np.bincount(picks, minlength=3) / 40_000 == pytest.approx([0, 0.25, 0.75], abs=0.01)


def test_ga_keeps_its_elites_and_its_size():
    algo = ALGORITHMS["ga"]()
    settings = {"population": 6, "elitism": 2}
    rng = np.random.default_rng(3)
    population = np.linspace(0, 1.5, 24).reshape(6, 4)
    state = State(population, np.array([1.0, 5.0, np.nan, 4.0, 0.0, 2.0]))
    kids = algo.ask(state, SPACE, settings, rng)
    assert kids.shape == (4, 4)
    after = algo.tell(state, kids, np.zeros(4), SPACE, settings, rng)
    assert len(after.population) == 6 and (after.population[:2] == population[[1, 3]]).all()


def test_cmaes_leaves_numpys_global_generator_alone():
    np.random.seed(5)
    expected = np.random.random()
    np.random.seed(5)
    evolve("cmaes", {}, 3)
    assert np.random.random() == expected
