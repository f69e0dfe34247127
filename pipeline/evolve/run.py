"""The generation loop: ask the algorithm for individuals, evaluate them on an executor,
log every evaluation, tell the algorithm, checkpoint. Reproducible by construction:

- the algorithm's draws in generation g come from a generator seeded by (seed, g), and an
  individual's `simulation.seed` from (seed, g, index), so neither depends on how many
  workers there are or in which order results arrive;
- the checkpoint after generation g holds the algorithm's State and the best so far, so a
  run resumed after a crash, a kill or Ctrl-C redoes the unfinished generation from the
  same draws and ends identical to an uninterrupted one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError
from pipeline.evolve.algorithms import ALGORITHMS
from pipeline.evolve.checkpoint import FILE, Best, Checkpoint
from pipeline.evolve.database import Database
from pipeline.evolve.evaluate import evaluate_individual, evaluate_individuals
from pipeline.evolve.outputs import write_individual
from pipeline.evolve.progress import Progress
from pipeline.gallery import LivePage
from pipeline.runstate import load_checkpoint

DATABASE = "evolution.db"


def generation_rng(seed: int, generation: int) -> np.random.Generator:
    return np.random.default_rng([seed, 2, generation])


def evaluation_seed(seed: int, generation: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, 1, generation, index]).generate_state(1)[0])


def evolve(evo, out: Path, executor, *, generations: int, resume: bool = False, quiet: bool = False) -> Checkpoint:
    """Run generations up to `generations` (generation 0 is the initial population) into
    `out`; returns the last checkpoint. `executor` is an entered Local/DaskExecutor, or
    pipeline.evolve.workers.Workers around one."""
    algorithm = ALGORITHMS[evo.algorithm]()
    db = Database(out / DATABASE)
    checkpoint = resumed(evo, out, db) if resume else None
    first = 0 if checkpoint is None else checkpoint.generation + 1
    progress = Progress(evo.name, first, generations, quiet)
    with LivePage(out) as page:  # the generations table and the snapshots so far, every few seconds
        try:
            for g in range(first, generations + 1):
                rng = generation_rng(evo.seed, g)
                if checkpoint is None:
                    population = algorithm.initial(evo.space, evo.settings, rng)
                else:
                    population = algorithm.ask(checkpoint.state, evo.space, evo.settings, rng)
                fitness, results = evaluate_generation(executor, evo, population, g, db, progress)
                if checkpoint is None:
                    state = algorithm.start(population, fitness, evo.space, evo.settings, rng)
                else:
                    state = algorithm.tell(checkpoint.state, population, fitness, evo.space, evo.settings, rng)
                best = fittest(checkpoint.best if checkpoint else None, population, fitness, results, evo.seed, g)
                stats = generation_stats(fitness, best)
                db.add_generation(g, stats, evo.space.to_data(best.genotype) if best else {})
                checkpoint = Checkpoint(evo.digest, evo.seed, g, state, best)
                checkpoint.save(out / FILE)
                if evo.every and g % evo.every == 0 and best is not None:
                    write_individual(out / "best" / f"generation-{g:04d}.yaml", evo, best, best.metrics)
                page.update()
                progress.generation(g, stats)
        finally:
            progress.close()
            db.close()
    return checkpoint


def resumed(evo, out: Path, db: Database) -> Checkpoint | None:
    path = out / FILE
    if not path.exists():
        return None  # nothing finished yet: start from generation 0
    checkpoint = load_checkpoint(path, Checkpoint)
    if checkpoint.digest != evo.digest or checkpoint.seed != evo.seed:
        raise CorpusError(f"{path}: this checkpoint belongs to another version of {evo.file} or another "
                          f"seed (it has seed {checkpoint.seed}); --resume continues only the same evolution")
    db.forget_after(checkpoint.generation)
    return checkpoint


BATCHES_PER_WORKER = 4


def batches(n: int, workers: int) -> list[range]:
    """Individuals 0..n-1 in contiguous batches, about BATCHES_PER_WORKER per worker: large
    enough that one kernel call runs many, small enough that a generation's results reach
    the database while it runs (queryable, and kept by a run that is killed mid-generation)."""
    size = -(-n // max(1, min(workers * BATCHES_PER_WORKER, n))) if n else 1
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def evaluate_generation(executor, evo, population, generation: int, db: Database, progress: Progress):
    """Evaluate every individual in batches (pipeline.evolve.evaluate.
    evaluate_individuals: one kernel call for many where they share a model); (fitness
    with NaN for failures, results by index)."""
    seeds = [evaluation_seed(evo.seed, generation, i) for i in range(len(population))]
    tasks = [(evo.setup, evo.space.phenotype(x), s) for x, s in zip(population, seeds)]
    workers = getattr(executor, "jobs", 1)
    groups = batches(len(tasks), workers)
    fitness = np.full(len(population), np.nan)
    results: list[dict] = [{}] * len(population)

    def outcomes():
        lost = []
        for b, batch, error in executor.map(evaluate_individuals, [(evo.setup, [t[1:] for t in tasks[g.start:g.stop]],
                                                                     workers) for g in groups]):
            if error is None:
                yield from zip(groups[b], batch, [None] * len(batch))
            else:  # its worker died: one at a time, so that only the individual that kills it fails
                lost += groups[b]
        if lost:
            for k, result, error in executor.map(evaluate_individual, [tasks[i] for i in lost]):
                yield lost[k], result, error

    for i, result, error in outcomes():
        if error is not None:  # the worker itself died (evaluate_individual never raises)
            result = {"error": f"the worker was lost: {type(error).__name__}: {error}"}
        result["seed"] = seeds[i]
        results[i] = result
        db.add_evaluation(generation, i, evo.space.to_data(population[i]), seeds[i], result)
        if "error" in result:
            progress.failed(generation, i, result["error"])
        else:
            fitness[i] = result["fitness"]
    return fitness, results


def fittest(best: Best | None, population, fitness, results, seed: int, generation: int) -> Best | None:
    """The best so far: replaced only by a strictly fitter individual (the earliest wins ties)."""
    valid = np.flatnonzero(np.isfinite(fitness))
    if valid.size == 0:
        return best
    i = int(valid[np.argmax(fitness[valid])])
    if best is not None and not fitness[i] > best.fitness:
        return best
    return Best(population[i].copy(), float(fitness[i]), generation, i, results[i]["seed"], results[i]["metrics"])


def generation_stats(fitness: np.ndarray, best: Best | None) -> dict:
    """Best so far; mean and quartiles of this generation's valid evaluations."""
    valid = fitness[np.isfinite(fitness)]
    q1, median, q3 = (np.percentile(valid, [25, 50, 75]) if valid.size else (np.nan,) * 3)
    return {"best": best.fitness if best else np.nan, "mean": float(valid.mean()) if valid.size else np.nan,
            "q1": float(q1), "median": float(median), "q3": float(q3),
            "evaluated": int(len(fitness)), "failed": int(len(fitness) - valid.size)}
