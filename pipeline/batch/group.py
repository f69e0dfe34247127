"""Groups: the jobs of one sweep simulated together in one warm worker.

The jobs of a sweep file usually compile to models of one shape (a sweep over seeds, gains
or durations), and `run_together` (pipeline/simulate/rollout.py) steps such Simulations in
one parallel kernel call, with the recordings each would give alone. That pays when a
worker has cores to itself (`--jobs` below the cores): its group runs on all of them. A group payload is
`{"group": [job payloads], "threads": t}`; its worker loads and compiles every job, runs
those of one shape together on t of numba's threads (the others alone), then saves,
exports and publishes each job as `corpus run` would, replying once per job.

A job's manifest says it ran in a group of n (`timings.together`); its `simulate_s` is its
share, the group's simulating time divided by n.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Callable

from pipeline.batch.warm import needs_own_process

# jobs in one group at most: a group holds every job's recording until it exports them
MOST_JOBS = 32


def group_payloads(payloads: list[dict], workers: int, cores: int, timeout: float | None) -> list[dict]:
    """The payloads with the jobs of each sweep (same origin file) put into groups when the
    workers leave cores free, each group on cores // workers threads: as many groups per
    sweep as workers, at most MOST_JOBS jobs each; a group of one is the job itself.

    With a core per worker (`--jobs` at least the cores, the default) jobs run one by one:
    a group on one thread only interleaves its runs, and 16 humanoid jobs of 50 s took 5.65
    and 6.00 s in groups of 8 against 5.20 and 5.23 s one by one (docs/batch.md). Not under
    a --timeout either, which is a job's own, nor for jobs that need a process of their own
    (user code)."""
    threads = cores // max(1, workers)
    if timeout is not None or threads < 2:
        return payloads
    sweeps: dict[str, list[dict]] = {}
    alone = []
    for p in payloads:
        (alone if not p.get("origin") or needs_own_process(p) else sweeps.setdefault(p["origin"], [])).append(p)
    out = list(alone)
    for jobs in sweeps.values():
        n = max(min(workers, len(jobs)), -(-len(jobs) // MOST_JOBS))
        out.extend({"group": part, "threads": threads} if len(part) > 1 else part[0]
                   for part in (jobs[k::n] for k in range(n)))
    return out


def jobs_of(payload: dict) -> list[dict]:
    """The job payloads a payload stands for."""
    return payload.get("group", [payload])


def run_group_here(group: dict, reply: Callable[[dict, str], None]) -> None:
    """Run a group payload in this process: reply(job, message) once per job as it ends,
    message "" when it published, else its located message (as worker.run_here's)."""
    import pipeline
    from pipeline.batch.worker import job_manifest, located_in_origin
    from pipeline.compile_watch import announced
    from pipeline.errors import CorpusError, raise_if_interrupted
    from pipeline.fileio import staging_folder
    from pipeline.run import prepare_run, publish_run, save_trajectory, timed
    from pipeline.simulate.articulated import Simulation
    from pipeline.simulate.rollout import run_together, together_key

    def failed(job, error):
        reply(job, str(located_in_origin(error, job.get("origin", ""), job.get("origin_file", ""))))

    shapes: dict[object, list] = {}
    with announced(True) as kernels:
        for job in group["group"]:
            try:
                run = prepare_run(job["source"], job["out_dir"], quiet=True, base_dir=job.get("base_dir") or None,
                                  extra_manifest=job_manifest(job))
                sim = timed(run.timings, "compile_s", kernels, lambda: pipeline.compile(run.scene))
            except CorpusError as error:
                failed(job, error)
                continue
            key = together_key(sim) if isinstance(sim, Simulation) else object()
            shapes.setdefault(key, []).append((job, run, sim))
        raise_if_interrupted()
        for jobs in shapes.values():
            t, compiling = time.perf_counter(), kernels.seconds
            results = run_together([sim for _, _, sim in jobs], threads=group["threads"]) if len(jobs) > 1 \
                else [_run_alone(jobs[0][2])]
            share = (time.perf_counter() - t - (kernels.seconds - compiling)) / len(jobs)
            raise_if_interrupted()
            ran = []
            for (job, run, sim), result in zip(jobs, results):
                if isinstance(result, CorpusError):
                    failed(job, result)
                else:
                    run.timings.update(simulate_s=share, together=len(jobs))
                    ran.append((job, run, sim, result))
            with ExitStack() as stages:
                staged = []
                for job, run, sim, recording in ran:
                    try:
                        staged.append((job, run, sim, recording,
                                       stages.enter_context(staging_folder(run.out_dir, "the run directory"))))
                    except CorpusError as error:
                        failed(job, error)
                # writing (and compressing, if asked) the recordings is most of a short job's
                # time besides simulating, and file writes and zlib let other threads run meanwhile
                with ThreadPoolExecutor(group["threads"]) as savers:
                    list(savers.map(lambda s: save_trajectory(s[1], s[3], kernels, s[4]), staged))
                for job, run, sim, recording, stage in staged:
                    try:
                        publish_run(run, sim, recording, kernels, stage)
                    except CorpusError as error:
                        failed(job, error)
                        continue
                    reply(job, "")


def _run_alone(sim):
    """sim.run()'s Recording, or the CorpusError it raised (run_together's results)."""
    from pipeline.errors import CorpusError

    try:
        return sim.run(progress=False)
    except CorpusError as error:
        return error
