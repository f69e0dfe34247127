"""Evolutionary algorithms as plain functions over a population array and a random generator.

Each algorithm is four functions, called by the generation loop (pipeline/evolve/run.py):

    initial(space, settings, rng) -> population          generation 0, to evaluate
    start(population, fitness, space, settings, rng) -> State
    ask(state, space, settings, rng) -> offspring        the next generation, to evaluate
    tell(state, offspring, fitness, space, settings, rng) -> State

Fitness is maximised; NaN marks a failed evaluation (crashed, timed out, diverged), which
never breeds and never survives. `rng` is derived by the loop from (seed, generation), so a
run resumed from a checkpoint of its State draws exactly what the uninterrupted run drew.
The CMA-ES wrapper is pipeline/evolve/cmaes.py.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np


class State(NamedTuple):
    population: np.ndarray  # the current parents (or population), evaluated
    fitness: np.ndarray  # (n,), NaN = failed
    extra: object = None  # an algorithm's own state (CMA-ES's strategy object)


class Algorithm(NamedTuple):
    initial: Callable
    start: Callable
    ask: Callable
    tell: Callable


def ranked(fitness: np.ndarray) -> np.ndarray:
    """Indices of the valid individuals, fittest first (ties keep their order)."""
    valid = np.flatnonzero(np.isfinite(fitness))
    return valid[np.argsort(-fitness[valid], kind="stable")]


def start(population, fitness, space, settings, rng) -> State:
    return State(population, fitness)


# --- (1+1): Urban's hill climber ------------------------------------------------------------

def one_plus_one_initial(space, settings, rng):
    return space.initial(1, rng)


def one_plus_one_ask(state, space, settings, rng):
    return space.mutate(state.population, rng)


def one_plus_one_tell(state, offspring, fitness, space, settings, rng) -> State:
    # strictly better replaces (Urban); any valid child replaces a failed parent
    if np.isfinite(fitness[0]) and not state.fitness[0] >= fitness[0]:
        return State(offspring, fitness)
    return state


# --- (mu, lambda) and (mu + lambda): Arnold's evolution strategy ----------------------------

def es_sizes(settings) -> tuple[int, int]:
    mu = settings.get("mu", 16)
    return mu, settings.get("lambda", 6 * mu)


def es_initial(space, settings, rng):
    return space.initial(es_sizes(settings)[0], rng)


def breeders(fitness: np.ndarray) -> np.ndarray:
    """Who may breed: the valid individuals, or everyone when none is valid."""
    valid = np.flatnonzero(np.isfinite(fitness))
    return valid if valid.size else np.arange(len(fitness))


def es_ask(state, space, settings, rng):
    lam = es_sizes(settings)[1]
    pool = breeders(state.fitness)
    first, second = rng.choice(pool, lam), rng.choice(pool, lam)
    children = state.population[first].copy()
    crossed = rng.random(lam) < settings.get("recombination", 1.0)
    if crossed.any():
        children[crossed] = space.crossover(children[crossed], state.population[second[crossed]], rng)
    return space.mutate(children, rng)


def select(fitness: np.ndarray, n: int, how: str, rng) -> np.ndarray:
    """n survivors among the valid: the fittest ("best", cycling if fewer are valid), or n
    draws with probability proportional to fitness minus the worst ("proportional")."""
    order = ranked(fitness)
    if how == "best":
        return np.resize(order, n)
    weight = fitness[order] - fitness[order].min()
    p = weight / weight.sum() if weight.sum() > 0 else None  # all equal: uniform
    return rng.choice(order, n, p=p)


def es_tell(state, offspring, fitness, space, settings, rng) -> State:
    mu = es_sizes(settings)[0]
    if settings.get("plus", False):
        offspring = np.concatenate([state.population, offspring])
        fitness = np.concatenate([state.fitness, fitness])
    if not np.isfinite(fitness).any():
        return state  # nothing valid to select from: the parents go on
    chosen = select(fitness, mu, settings.get("selection", "best"), rng)
    return State(offspring[chosen], fitness[chosen])


# --- generational GA: elitism, tournaments, crossover, mutation -----------------------------

def ga_initial(space, settings, rng):
    return space.initial(settings.get("population", 50), rng)


def elites(fitness: np.ndarray, settings) -> np.ndarray:
    return ranked(fitness)[:settings.get("elitism", 1)]


def tournament(fitness: np.ndarray, n: int, k: int, rng) -> np.ndarray:
    """n winners, each the fittest of k individuals drawn from the breeders."""
    entrants = rng.choice(breeders(fitness), (n, k))
    scores = np.where(np.isfinite(fitness[entrants]), fitness[entrants], -np.inf)
    return entrants[np.arange(n), np.argmax(scores, axis=1)]


def ga_ask(state, space, settings, rng):
    n = settings.get("population", 50) - len(elites(state.fitness, settings))
    k = settings.get("tournament", 3)
    first = tournament(state.fitness, n, k, rng)
    second = tournament(state.fitness, n, k, rng)
    children = state.population[first].copy()
    crossed = rng.random(n) < settings.get("crossover", 0.7)
    if crossed.any():
        children[crossed] = space.crossover(children[crossed], state.population[second[crossed]], rng)
    return space.mutate(children, rng)


def ga_tell(state, offspring, fitness, space, settings, rng) -> State:
    kept = elites(state.fitness, settings)
    return State(np.concatenate([state.population[kept], offspring]),
                 np.concatenate([state.fitness[kept], fitness]))


def _cmaes() -> Algorithm:
    from pipeline.evolve import cmaes

    return Algorithm(cmaes.initial, cmaes.start, cmaes.ask, cmaes.tell)


ALGORITHMS: dict[str, Callable[[], Algorithm]] = {
    "one_plus_one": lambda: Algorithm(one_plus_one_initial, start, one_plus_one_ask, one_plus_one_tell),
    "es": lambda: Algorithm(es_initial, start, es_ask, es_tell),
    "ga": lambda: Algorithm(ga_initial, start, ga_ask, ga_tell),
    "cmaes": _cmaes,
}
