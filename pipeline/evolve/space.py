"""Genotype spaces: what an individual is, and the operators evolution applies to it.

A space is any object with these methods (the Arnold and Sims genotypes add spaces of their
own; the algorithms in pipeline/evolve/algorithms.py only call these):

    initial(n, rng) -> population        n individuals of generation 0
    mutate(population, rng) -> population
    crossover(a, b, rng) -> population   row i is a child of a[i] and b[i]
    phenotype(genotype) -> {path: value} overrides of the base scene (pipeline/spec/paths.py)
    to_data(genotype) -> plain data      for YAML and the database; from_data inverts it exactly
    from_data(data) -> genotype

A population is an array whose first axis is the individual. This module holds the one
space the roobot needs: a named real vector with bounds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.errors import CorpusError


@dataclass(frozen=True, eq=False)
class VectorSpace:
    """Named real genes, each setting one numeric field of the scene."""

    names: tuple[str, ...]
    paths: tuple[str, ...]
    low: np.ndarray
    high: np.ndarray
    start: np.ndarray
    sigma: float = 0.05  # mutation step, as a fraction of each gene's range
    rate: float = 1.0  # probability that a gene mutates
    crossover_kind: str = "discrete"  # or "intermediate"
    init: str = "start"  # or "random"

    @property
    def size(self) -> int:
        return len(self.names)

    def initial(self, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.init == "random":
            return rng.uniform(self.low, self.high, (n, self.size))
        population = np.repeat(self.start[None], n, axis=0)
        # the start itself, and mutants of it around it
        return np.concatenate([population[:1], self.mutate(population[1:], rng)])

    def mutate(self, population: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        span = self.high - self.low
        step = rng.normal(0.0, self.sigma, population.shape) * span
        if self.rate < 1.0:
            step *= rng.random(population.shape) < self.rate
        return self.reflect(population + step)

    def reflect(self, x: np.ndarray) -> np.ndarray:
        """Fold values back into the bounds like a mirror: a step past a bound keeps its
        length, so the mutation stays symmetric near the bounds instead of piling up there."""
        span = self.high - self.low
        t = np.mod(x - self.low, 2.0 * span)
        return self.low + np.where(t > span, 2.0 * span - t, t)

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.crossover_kind == "intermediate":
            return 0.5 * (a + b)
        return np.where(rng.random(a.shape) < 0.5, a, b)

    def phenotype(self, genotype: np.ndarray) -> dict:
        return {path: float(v) for path, v in zip(self.paths, genotype)}

    def to_data(self, genotype: np.ndarray) -> dict:
        # Python floats print with repr, the shortest text that reads back to the same double
        return {name: float(v) for name, v in zip(self.names, genotype)}

    def from_data(self, data) -> np.ndarray:
        if not isinstance(data, dict) or set(data) != set(self.names):
            got = sorted(data) if isinstance(data, dict) else type(data).__name__
            raise CorpusError(f"a genotype of this space names the genes {list(self.names)}, got {got}")
        values = np.array([data[name] for name in self.names], dtype=float)
        outside = [n for n, v, lo, hi in zip(self.names, values, self.low, self.high) if not lo <= v <= hi]
        if outside:
            raise CorpusError(f"genes outside their bounds: {', '.join(outside)}")
        return values
