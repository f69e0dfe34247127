"""Evolution throughput on Urban's roobot (issue 16):

1. roobot evaluations per second on one core, and simulated seconds per wall second, through
   the workers' own function (pipeline.evolve.evaluate.evaluate_individual), with where the
   time goes (profiled separately: the Python FSM controller and its sensors, the numba step);
2. the speed-up of one generation with 2 local workers against 1;
3. CMA-ES (popsize 8) over the 14 parameters through `corpus evolve`'s path (executor with
   one worker, database, checkpoints) against `cma` driving `pipeline.evaluate` directly in
   one process, in time per evaluation.

    .venv/bin/python benchmarks/evolve.py [--duration 10] [--calls 5] [--individuals 8]
                                          [--generations 4]

Every evaluation simulates `--duration` s of the bundled hand-tuned roobot or mutants of it
(they hop the whole time: equal work per evaluation). The machine's load average is printed:
other processes on the cores skew every figure.
"""
from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.batch.executors import LocalExecutor  # noqa: E402
from pipeline.evolve.evaluate import evaluate_individual  # noqa: E402
from pipeline.evolve.spec import load_evolution  # noqa: E402

EVOLUTION = ROOT / "evolutions" / "roobot_ga.yaml"


def bundled_setup(duration: float):
    """The roobot evolution, started at the bundled params, without its stop condition."""
    evo = load_evolution(EVOLUTION)
    params = yaml.safe_load((ROOT / "creatures/roobot.yaml").read_text())["controller"]["params"]
    start = np.array([params[name] for name in evo.space.names], float)
    setup = dataclasses.replace(evo.setup, duration=duration, stop=None, time_limit=None)
    return evo, setup, start


def per_core(setup, overrides, calls: int) -> None:
    evaluate_individual((setup, overrides, 0))  # loads the kernels and compiles the scene
    start = time.perf_counter()
    for k in range(calls):
        result = evaluate_individual((setup, overrides, k))
        assert "error" not in result, result
    wall = (time.perf_counter() - start) / calls
    print(f"one core: {1 / wall:.2f} evaluations/s of {setup.duration:g} s "
          f"= {setup.duration / wall:.1f} simulated s per wall s (goal 5000)")
    from pipeline.simulate.evaluate import simulation_for

    sim = simulation_for(setup.scene, {**overrides, "simulation.seed": 0})
    sim.reset()
    profile = cProfile.Profile()
    profile.enable()
    sim.run(setup.duration, progress=False)
    profile.disable()
    stats = pstats.Stats(profile).stats

    def cumulative(file_end: str, name: str) -> float:
        return sum(v[3] for (f, _, n), v in stats.items() if f.endswith(file_end) and n == name)

    total = cumulative("particles/simulation.py", "run")
    control = cumulative("particles/controller.py", "__call__")
    kernel = cumulative("particles/integrators.py", "advance")
    frames = int(round(setup.duration / sim.dt))
    print(f"  where the time goes (profiled run, {frames} frames): controllers (Python FSM + sensors) "
          f"{control / total:.0%}, numba step {kernel / total:.0%}, the rest (per-frame checks, "
          f"recording) {1 - (control + kernel) / total:.0%}; {total / frames * 1e6:.0f} us per frame profiled")


def warm_up(executor, setup, overrides) -> None:
    """Start the workers and load their kernels, so that timings start with living workers."""
    short = (dataclasses.replace(setup, duration=0.1), overrides, 0)
    list(executor.map(evaluate_individual, [short] * 4))


def speed_up(setup, evo, start, individuals: int) -> None:
    rng = np.random.default_rng(0)
    genotypes = evo.space.reflect(start + rng.normal(0, 0.01, (individuals, start.size)) * (evo.space.high - evo.space.low))
    tasks = [(setup, evo.space.phenotype(g), i) for i, g in enumerate(genotypes)]
    times = {}
    for jobs in (1, 2):
        with LocalExecutor(jobs) as executor:
            warm_up(executor, setup, evo.space.phenotype(start))
            t = time.perf_counter()
            results = [r for _, r, _ in executor.map(evaluate_individual, tasks)]
            times[jobs] = time.perf_counter() - t
        assert all("error" not in r for r in results)
    print(f"one generation of {individuals} x {setup.duration:g} s: 1 worker {times[1]:.2f} s, "
          f"2 workers {times[2]:.2f} s: speed-up {times[1] / times[2]:.2f}x (goal 1.8x)")


def cmaes_paths(setup, evo, start, generations: int) -> None:
    import cma

    import pipeline
    from pipeline.evolve.run import evolve

    popsize = 8
    doc = yaml.safe_load(EVOLUTION.read_text())
    doc["scene"] = str(ROOT / "scenes" / "roobot_hop.yaml")
    doc["algorithm"] = {"cmaes": {"popsize": popsize, "sigma": 0.05}}
    doc["evaluation"] = {"duration": setup.duration}
    for name, value in zip(evo.space.names, start):
        doc["genotype"]["vector"]["genes"][name]["start"] = float(value)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cmaes.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        cma_evo = load_evolution(path, allow_outside=True)
        with LocalExecutor(1) as executor:
            warm_up(executor, setup, evo.space.phenotype(start))
            t = time.perf_counter()
            checkpoint = evolve(cma_evo, Path(folder), executor, generations=generations, quiet=True)
            ours = (time.perf_counter() - t) / (1 + generations * popsize)
    span = evo.space.high - evo.space.low
    es = cma.CMAEvolutionStrategy((start - evo.space.low) / span, 0.05,
                                  {"bounds": [0, 1], "popsize": popsize, "seed": 1, "verbose": -9})
    metrics = setup.metrics
    t = time.perf_counter()
    pipeline.evaluate(setup.scene, evo.space.phenotype(start), metrics, duration=setup.duration)
    best = -np.inf
    for _ in range(generations):
        unit = es.ask()
        values = []
        for u in unit:
            m = pipeline.evaluate(setup.scene, evo.space.phenotype(evo.space.low + np.array(u) * span), metrics,
                                  duration=setup.duration)
            values.append(-m["survival"] * m["forward"])
        es.tell(unit, values)
        best = max(best, -min(values))
    direct = (time.perf_counter() - t) / (1 + generations * popsize)
    print(f"CMA-ES, popsize {popsize}, {generations} generations of {setup.duration:g} s evaluations: "
          f"corpus evolve path {ours:.3f} s per evaluation (best {checkpoint.best.fitness:.1f}), "
          f"cma + pipeline.evaluate {direct:.3f} s (best {best:.1f}): ratio {ours / direct:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--individuals", type=int, default=8)
    ap.add_argument("--generations", type=int, default=4)
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    evo, setup, start = bundled_setup(args.duration)
    per_core(setup, evo.space.phenotype(start), args.calls)
    speed_up(setup, evo, start, args.individuals)
    cmaes_paths(setup, evo, start, args.generations)


if __name__ == "__main__":
    main()
