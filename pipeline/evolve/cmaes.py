"""CMA-ES through the `cma` package, behind the same four functions as the other algorithms
(pipeline/evolve/algorithms.py): the modern baseline they are compared with.

cma works on the genes scaled to [0, 1] within their bounds (its own bound handling keeps
samples inside), starting at the start values with step `sigma` (a fraction of the range).
It draws from NumPy's global generator; every call into it runs with that generator seeded
from the loop's `rng` and restored afterwards, so a resumed run samples what the
uninterrupted one sampled and nothing else in the process is disturbed. (cma's default
sampler is the bound method `np.random.randn`, which pickles a private copy of the global
generator into a checkpoint: a resumed strategy would draw from that copy.) cma minimises:
it is told minus the fitness, and a failed individual ranks below the worst valid one
(cma's update needs a value for every sample it drew).

The strategy object is stateful: `ask` keeps the samples it drew (in `State.extra`) and
`tell` hands exactly those back to cma. The loop checkpoints after `tell`, so a resumed run
continues from the same strategy.
"""
from __future__ import annotations

import contextlib

import numpy as np

from pipeline.errors import CorpusError
from pipeline.evolve.algorithms import State


@contextlib.contextmanager
def seeded_global_numpy(rng: np.random.Generator):
    saved = np.random.get_state()
    np.random.seed(int(rng.integers(2**32)))
    try:
        yield
    finally:
        np.random.set_state(saved)


def initial(space, settings, rng):
    if not hasattr(space, "start") or not hasattr(space, "low"):
        raise CorpusError("cmaes needs a real vector genotype (genotype: {vector: ...})")
    return space.start[None].copy()  # generation 0 evaluates the start point


def global_randn(*shape):
    """Normal samples from NumPy's global generator as it is when called (pickled by name)."""
    return np.random.randn(*shape)


def options(settings) -> dict:
    # no log files, no printing, and no stopping on its own: the run's generations decide
    opts = {"bounds": [0.0, 1.0], "randn": global_randn, "verbose": -9, "verb_disp": 0, "verb_log": 0,
            "tolx": 0, "tolfun": 0, "tolfunhist": 0, "tolstagnation": 10**9}
    if settings.get("popsize"):
        opts["popsize"] = settings["popsize"]
    return opts


def start(population, fitness, space, settings, rng) -> State:
    import cma

    with seeded_global_numpy(rng):
        unit_start = (population[0] - space.low) / (space.high - space.low)
        es = cma.CMAEvolutionStrategy(unit_start, settings.get("sigma", 0.2),
                                      options(settings))
    return State(population, fitness, {"es": es, "asked": None})


def ask(state, space, settings, rng):
    with seeded_global_numpy(rng):
        state.extra["asked"] = state.extra["es"].ask()
    return space.low + np.array(state.extra["asked"]) * (space.high - space.low)


def tell(state, offspring, fitness, space, settings, rng) -> State:
    valid = np.isfinite(fitness)
    worst = fitness[valid].min() - (np.ptp(fitness[valid]) + 1.0) if valid.any() else 0.0
    with seeded_global_numpy(rng):
        state.extra["es"].tell(state.extra["asked"], list(-np.where(valid, fitness, worst)))
    state.extra["asked"] = None
    return State(offspring, fitness, state.extra)
