"""Evolution throughput on Urban's roobot (issue 16):

1. roobot evaluations per second on one core, and simulated seconds per wall second (and per
   CPU second of the process, which other load on the machine skews less), through the
   workers' own function (pipeline.evolve.evaluate.evaluate_individual); the CPU time of a
   frame of the kernel and of one integrator step, against what 5000 simulated s per s needs;
2. the speed-up of one generation with 2 local workers against 1 (each worker's batches in
   kernel runs of one thread, evaluate_individuals), and with one worker in 2 threads; every
   pool warmed up on every worker first;
3. CMA-ES (popsize 8) over the 14 parameters through `corpus evolve`'s path (executor with
   one worker, database, checkpoints, gallery) against `cma` driving the same
   evaluate_individuals in one process, in time per evaluation (and `cma` with
   `pipeline.evaluate`, which compiles each individual's scene).

    .venv/bin/python benchmarks/evolve.py [--duration 60] [--calls 5] [--individuals 16]
                                          [--generations 4]

Every evaluation simulates `--duration` s of the bundled hand-tuned roobot or mutants of it
(they hop the whole time: equal work per evaluation). The machine's load average is printed:
other processes on the cores skew every figure.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.batch.executors import LocalExecutor  # noqa: E402
from pipeline.particles.forces import accumulate  # noqa: E402
from pipeline.evolve.evaluate import evaluate_individual, evaluate_individuals  # noqa: E402
from pipeline.evolve.run import batches  # noqa: E402
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
    wall, cpu = time.perf_counter(), time.process_time()
    for k in range(calls):
        result = evaluate_individual((setup, overrides, k))
        assert "error" not in result, result
    wall, cpu = (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls
    print(f"one core: {1 / wall:.1f} evaluations/s of {setup.duration:g} s = {setup.duration / wall:.0f} simulated s "
          f"per wall s ({setup.duration / cpu:.0f} per CPU s of this process; goal 5000)")
    from pipeline.simulate.evaluate import simulation_for

    sim = simulation_for(setup.scene, {})
    sim.reset()
    frames = int(round(setup.duration / sim.dt))
    cpu = time.process_time()
    sim.step(frames)
    per_frame = (time.process_time() - cpu) / frames
    evaluations = sim.data.counters[1] / max(sim.data.counters[0], 1)
    print(f"  a frame (dt {sim.dt * 1e3:g} ms, {sim.settings.integrator}, {evaluations:.2f} force evaluations): "
          f"{per_frame * 1e6:.2f} us CPU in the kernel (machines, integrator, floor events, checks); 5000 "
          f"simulated s per s would need {sim.dt / 5000 * 1e6:.2f} us per frame")
    force = np.zeros_like(sim.data.pos)
    args = (sim.model.arrays, sim.data.live, sim.data.pos, sim.data.vel, sim.data.time, sim.dt, force)
    _forces(*args, 1)
    calls = 200_000
    cpu = time.process_time()
    _forces(*args, calls)
    print(f"  a force evaluation (5 masses, 4 springs, 3 angle joints, 2 torques, drag, floor): "
          f"{(time.process_time() - cpu) / calls * 1e6:.3f} us CPU")


@numba.njit
def _forces(m, live, pos, vel, t, h, f, calls):
    for _ in range(calls):
        accumulate(m, live, pos, vel, t, h, f)


def _warm(workers: int):
    """A pool of `workers` whose every process has loaded the kernels and compiled the scene."""
    executor = LocalExecutor(workers).__enter__()
    seen = set()
    while len(seen) < workers:  # tasks long enough that every worker takes some
        short = [(SETUP_SHORT, [(OVERRIDES, 0)], workers)] * (2 * workers)
        seen |= {r[0]["worker"] for _, r, _ in executor.map(evaluate_individuals, short)}
    return executor


def speed_up(setup, evo, start, individuals: int) -> None:
    """One generation on one core (a worker running its batches in one thread), on two worker
    processes of one thread each, and on one worker whose batches run in two threads (what
    `--jobs 1` does on a 2-core machine: a worker's threads share the cores it is given)."""
    rng = np.random.default_rng(0)
    genotypes = evo.space.reflect(start + rng.normal(0, 0.01, (individuals, start.size)) * (evo.space.high - evo.space.low))
    items = [(evo.space.phenotype(g), i) for i, g in enumerate(genotypes)]
    cores = os.cpu_count() or 1
    times = {}
    for workers, threads in ((1, 1), (2, 1), (1, 2)):
        executor = _warm(workers)
        try:
            # evaluate_individuals gives each batch cores // (its third field) threads
            tasks = [(setup, [items[i] for i in group], max(1, cores // threads))
                     for group in batches(len(items), workers)]
            t = time.perf_counter()
            results = [r for _, batch, _ in executor.map(evaluate_individuals, tasks) for r in batch]
            times[workers, threads] = time.perf_counter() - t
        finally:
            executor.__exit__(None, None, None)
        assert all("error" not in r for r in results)
    simulated = individuals * setup.duration
    one = times[1, 1]
    print(f"one generation of {individuals} x {setup.duration:g} s: 1 worker {one:.2f} s "
          f"({simulated / one:.0f} simulated s per wall s); 2 workers {times[2, 1]:.2f} s: speed-up "
          f"{one / times[2, 1]:.2f}x (goal 1.8x); 1 worker in 2 threads {times[1, 2]:.2f} s: {one / times[1, 2]:.2f}x")


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
    evaluations = 1 + generations * popsize
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cmaes.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        cma_evo = load_evolution(path, allow_outside=True)
        executor = _warm(1)
        try:
            t = time.perf_counter()
            checkpoint = evolve(cma_evo, Path(folder), executor, generations=generations,
                                quiet=True)
            ours = (time.perf_counter() - t) / evaluations
        finally:
            executor.__exit__(None, None, None)
    span = evo.space.high - evo.space.low
    direct = {}
    for name in ("evaluate_individuals", "pipeline.evaluate"):
        es = cma.CMAEvolutionStrategy((start - evo.space.low) / span, 0.05,
                                      {"bounds": [0, 1], "popsize": popsize, "seed": 1, "verbose": -9})
        t = time.perf_counter()
        best = -np.inf
        for g in range(generations + 1):
            unit = [(start - evo.space.low) / span] if g == 0 else es.ask()
            phenotypes = [evo.space.phenotype(evo.space.low + np.array(u) * span) for u in unit]
            if name == "pipeline.evaluate":  # a scene compiled per individual
                values = [m["survival"] * m["forward"] for m in
                          (pipeline.evaluate(setup.scene, p, setup.metrics, duration=setup.duration) for p in phenotypes)]
            else:
                values = [r["fitness"] for r in evaluate_individuals((setup, [(p, 0) for p in phenotypes], 1))]
            if g:
                es.tell(unit, [-v for v in values])
            best = max(best, max(values))
        direct[name] = (time.perf_counter() - t) / evaluations
    print(f"CMA-ES, popsize {popsize}, {generations} generations of {setup.duration:g} s evaluations, time per "
          f"evaluation: corpus evolve (1 worker, database, checkpoints, gallery) {ours * 1e3:.1f} ms "
          f"(best {checkpoint.best.fitness:.1f}); cma + the same evaluate_individuals in one process "
          f"{direct['evaluate_individuals'] * 1e3:.1f} ms: ratio {ours / direct['evaluate_individuals']:.3f}; "
          f"cma + pipeline.evaluate (compiles each individual's scene) {direct['pipeline.evaluate'] * 1e3:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=60.0)  # roobot_ga.yaml's evaluation
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--individuals", type=int, default=16)
    ap.add_argument("--generations", type=int, default=4)
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    evo, setup, start = bundled_setup(args.duration)
    global SETUP_SHORT, OVERRIDES
    SETUP_SHORT, OVERRIDES = dataclasses.replace(setup, duration=0.5), evo.space.phenotype(start)
    per_core(setup, evo.space.phenotype(start), args.calls)
    speed_up(setup, evo, start, args.individuals)
    cmaes_paths(setup, evo, start, args.generations)


if __name__ == "__main__":
    main()
