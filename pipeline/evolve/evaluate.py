"""One individual's evaluation, as a worker runs it: the base scene with the individual's
overrides, simulated in chunks until the duration, the stop condition or the time limit,
then measured by the metrics and the fitness.

`evaluate_individual((setup, overrides, seed))` never raises: whatever goes wrong (a scene
the overrides break, a diverging simulation, a fitness function that raises, the time
limit) comes back as {"error": message}, so the coordinator logs it once per individual and
no exception crosses the process boundary (a user's exception class may not unpickle there).
The compiled simulation is cached per worker (pipeline.simulate.evaluate.simulation_for).
"""
from __future__ import annotations

import functools
import math
import multiprocessing
import os
import re
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from pipeline.compile_watch import watching
from pipeline.errors import CorpusError
from pipeline.particles.simulation import NO_STOP
from pipeline.recording import Recording
from pipeline.spec.types import Where


@dataclass(frozen=True)
class Stop:
    body: str
    axis: int  # 0, 1, 2: world x, y, z
    level: float
    rising: bool  # stop when the coordinate rises above the level (else falls below it)
    where: Where = Where()  # where the stop is written


@dataclass(frozen=True)
class Setup:
    """Everything a worker needs besides the individual: small and picklable."""

    scene: str  # the base scene file
    duration: float | None  # None: the scene's
    chunk: float  # simulated seconds between stop and time-limit checks
    stop: Stop | None
    time_limit: float | None  # wall seconds
    metrics: dict  # name -> metric spec (pipeline/simulate/metrics.py)
    fitness: str | None  # an expression over the metrics and simulated_time ...
    python: str | None  # ... or 'module:function' of (recording, model)
    where: Where = Where()  # where the fitness is written: python modules are found beside it


class EvaluationTimeout(Exception):
    pass


def evaluate_individual(task) -> dict:
    """(setup, overrides, seed) -> {fitness, metrics, simulated_time, wall, worker} or
    {error, wall, worker}."""
    _leave_ctrl_c_to_the_coordinator()
    setup, overrides, seed = task
    started = time.perf_counter()
    out = {"worker": _worker()}
    try:
        out.update(_evaluate(setup, overrides, seed))
    except CorpusError as exc:
        out["error"] = _message(exc)
    except EvaluationTimeout as exc:
        out["error"] = f"timeout: {exc}"
        out["timeout"] = True
    except Exception as exc:  # the user's fitness function, or a bug: one line, no traceback
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["wall"] = time.perf_counter() - started
    return out


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _message(exc: CorpusError) -> str:
    """Problems of an overridden scene have no file of their own: their message alone."""
    return "\n".join(str(p) if p.file else p.message for p in exc.problems)


def _past_limit(setup: Setup, simulated: float, duration: float) -> str:
    return f"more than {setup.time_limit:g} s of wall time ({simulated:g} of {duration:g} simulated s done)"


def _leave_ctrl_c_to_the_coordinator() -> None:
    """In a worker process: ignore SIGINT. Ctrl-C reaches the whole process group; the
    coordinator checkpoints and stops its workers (SIGTERM), and a worker waiting for its
    next task would print KeyboardInterrupt's traceback. (Dask runs tasks in threads of its
    worker, which handles its signals itself.)"""
    if multiprocessing.parent_process() is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _evaluate(setup: Setup, overrides: dict, seed: int) -> dict:
    sim = simulation(setup, overrides, seed)
    return measure(setup, sim, run_until(sim, setup, time.perf_counter()))


def evaluate_individuals(task) -> list[dict]:
    """(setup, [(overrides, seed), ...], workers) -> a result per individual, as
    evaluate_individual gives it; `workers` share this machine's cores (threads of the batch).
    Individuals whose genes are all FSM parameters of a particle scene run side by side in one
    kernel call per chunk (pipeline/particles/batch.py); articulated individuals of one shape
    whose frames need no Python are rolled out together, a chunk of all of them in one
    parallel kernel call (pipeline/simulate/rollout.py); both the same to the bit as one by
    one; the others one by one. A batch individual's wall time is its share of the batch's
    (in proportion to its force evaluations for particles, equal shares for rollouts), and
    the time limit applies to that."""
    _leave_ctrl_c_to_the_coordinator()
    setup, items, workers = task
    threads = max(1, (os.cpu_count() or 1) // workers)
    out: list[dict | None] = [None] * len(items)
    batch, others = [], []
    for k, (overrides, seed) in enumerate(items):
        try:
            sim = _parameter_simulation(setup, overrides, seed)
        except CorpusError:
            sim = None  # evaluate_individual reports it
        if sim is None:
            others.append(k)
        else:
            batch.append((k, sim, sim.data))  # the next reset gives the simulation new data
    if batch:
        for (k, _, _), result in zip(batch, _evaluate_in_threads(setup, batch[0][1], [d for _, _, d in batch],
                                                                   threads)):
            out[k] = result
    rolled = _evaluate_rollouts(setup, [items[k] for k in others], threads) if len(others) > 1 else None
    for j, k in enumerate(others):
        out[k] = rolled[j] if rolled is not None else evaluate_individual((setup, *items[k]))
    return out


def _evaluate_in_threads(setup: Setup, sim, datas: list, threads: int) -> list[dict]:
    """The runs split into `threads` batches, each simulated to its end in a thread of its own
    (the kernel releases the GIL). Threads that met at every chunk, each with a run or two,
    spent a fifth of their time waiting for each other."""
    groups = [list(g) for g in np.array_split(np.arange(len(datas)), min(threads, len(datas)))]
    if len(groups) == 1:
        return _evaluate_batch(setup, sim, datas)
    with ThreadPoolExecutor(len(groups)) as pool:
        parts = pool.map(lambda g: _evaluate_batch(setup, sim, [datas[i] for i in g]), groups)
        return [result for part in parts for result in part]


def _evaluate_batch(setup: Setup, sim, datas: list) -> list[dict]:
    from pipeline.particles.batch import Batch

    duration = sim.scene.simulation.duration if setup.duration is None else setup.duration
    frames = max(0, int(math.ceil(duration / sim.dt - 1e-9)))
    per_chunk = max(1, int(round(setup.chunk / sim.dt)))
    stop = NO_STOP
    if setup.stop:
        stop = (sim.model.body_names.index(setup.stop.body), setup.stop.axis, setup.stop.level, int(setup.stop.rising))
    batch = Batch(sim, datas, frames, stop)
    wall = np.zeros(len(datas))
    timeouts: dict[int, str] = {}
    with watching() as compiles:
        while batch.running():
            work, started, compiled = batch.work(), time.perf_counter(), compiles.seconds
            batch.advance(per_chunk)
            spent = time.perf_counter() - started - (compiles.seconds - compiled)
            share = batch.work() - work
            wall += spent * share / max(share.sum(), 1)
            for k in np.flatnonzero(batch.active):
                if setup.time_limit is not None and wall[k] > setup.time_limit:
                    timeouts[k] = _past_limit(setup, batch.done * sim.dt, duration)
                    batch.abandon(k, None)

    def recording(k):
        if batch.errors[k] is not None:
            raise batch.errors[k]
        return batch.recording(k)

    return [_result(setup, sim, lambda: recording(k), wall[k], timeouts.get(k)) for k in range(len(datas))]


def _evaluate_rollouts(setup: Setup, items: list, threads: int) -> list[dict] | None:
    """Articulated individuals stepped together: each chunk of every run still going is one
    parallel kernel call. None when they cannot be (another engine, a scene the genes break,
    Python at the frame starts, a timeline command inside the evaluation, shapes that
    differ): the caller runs them one by one. A chunk's wall time is shared equally."""
    from pipeline.simulate.articulated import Simulation
    from pipeline.simulate.rollout import check, rollout

    sims = []
    try:
        for overrides, seed in items:
            sim = simulation(setup, overrides, seed)
            if not isinstance(sim, Simulation):
                return None
            sims.append(sim.fork() if any(sim is s for s in sims) else sim)  # the same individual twice
        first = sims[0]
        duration = first.scene.simulation.duration if setup.duration is None else setup.duration
        frames = max(0, int(math.ceil(duration / first.dt - 1e-9)))
        check(sims, frames)
    except CorpusError:
        return None
    per_chunk = max(1, int(round(setup.chunk / first.dt)))
    stop_body = first.model.body_names.index(setup.stop.body) if setup.stop else None
    parts: list[list[Recording]] = [[] for _ in sims]
    failed: dict[int, CorpusError] = {}
    timeouts: dict[int, str] = {}
    wall = np.zeros(len(sims))
    going, done = list(range(len(sims))), 0
    with watching() as compiles:
        while going and done < frames:
            n = min(per_chunk, frames - done)
            started, compiled = time.perf_counter(), compiles.seconds
            runs = rollout([sims[i] for i in going], n, first.settings.record_every, threads)
            done += n
            still = []
            for j, i in enumerate(going):
                if runs.errors[j] is not None:
                    failed[i] = CorpusError(runs.errors[j])
                    continue
                part = runs.recording(j)
                if parts[i]:
                    part = _slice(part, slice(1, None))  # its first record ended the last chunk
                hit = _first_stop(part, setup.stop, stop_body) if setup.stop else None
                parts[i].append(part if hit is None else _slice(part, slice(0, hit + 1)))
                if hit is None and sims[i].data.stopped_by < 0:  # no stop condition, no stop event
                    still.append(i)
            wall[going] += (time.perf_counter() - started - (compiles.seconds - compiled)) / len(going)
            going = []
            for i in still:
                if setup.time_limit is not None and wall[i] > setup.time_limit:
                    timeouts[i] = _past_limit(setup, done * first.dt, duration)
                else:
                    going.append(i)

    def recording(i):
        if i in failed:
            raise failed[i]
        return _concatenate(parts[i])

    return [_result(setup, sims[i], lambda: recording(i), wall[i], timeouts.get(i)) for i in range(len(sims))]


def _result(setup: Setup, sim, recording, wall: float, timeout: str | None) -> dict:
    """A batched individual's result, as evaluate_individual gives it: its timeout, the error
    its run raised (`recording()` raises it), or its measures."""
    started = time.perf_counter()
    out = {"worker": _worker()}
    try:
        if timeout is not None:
            out.update(error=f"timeout: {timeout}", timeout=True)
        else:
            out.update(measure(setup, sim, recording()))
    except CorpusError as exc:
        out["error"] = _message(exc)
    except Exception as exc:  # the machine's arithmetic, the user's fitness function
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["wall"] = float(wall) + time.perf_counter() - started
    return out


# a gene over a particle creature's FSM parameter (creatures[i].with.controller.params.name)
_FSM_PARAM = re.compile(r"creatures\[(\d+)\]\.with\.controller\.params\.([A-Za-z_]\w*)")


def simulation(setup: Setup, overrides: dict, seed: int):
    """The individual's simulation, reset to its start. Genes that only set FSM parameters
    of particle creatures are written into the machines of the base scene's simulation,
    compiled once per worker (compiling the overridden scene would cost more than a minute
    of simulated hopping); any other gene compiles the scene with the overrides."""
    from pipeline.simulate.evaluate import simulation_for

    sim = _parameter_simulation(setup, overrides, seed)
    if sim is None:
        sim = simulation_for(setup.scene, {**overrides, "simulation.seed": int(seed)})
        sim.reset()
    return sim


def _parameter_simulation(setup: Setup, overrides: dict, seed: int):
    """The base scene's particle simulation reset with the individual's seed and FSM
    parameters, or None when a gene is anything else."""
    from pipeline.particles.simulation import ParticleSimulation
    from pipeline.simulate.evaluate import simulation_for

    params = {}
    for path, value in overrides.items():
        m = _FSM_PARAM.fullmatch(path)
        if m is None:
            return None
        params[int(m[1]), m[2]] = value
    sim = simulation_for(setup.scene, {})
    vectors = sim.param_vectors(params) if isinstance(sim, ParticleSimulation) else None
    if vectors is None:
        return None
    sim.reset(seed=int(seed))
    for creature, vector in vectors.items():
        sim.set_params(creature, vector)
    return sim


def measure(setup: Setup, sim, recording: Recording) -> dict:
    """The metrics and the fitness of an evaluation's recording."""
    from pipeline.simulate.metrics import compute

    metrics = compute(recording, sim.model, setup.metrics)
    simulated = float(recording.time[-1] - recording.time[0]) if len(recording.time) else 0.0
    if setup.python:
        fitness = _python_fitness(setup.python, setup.where)(recording, sim.model)
    else:
        fitness = _expression(setup.fitness, tuple(metrics))([*metrics.values(), simulated])
    try:
        fitness = float(fitness)
    except (TypeError, ValueError):
        raise CorpusError(f"the fitness is not a number: {fitness!r}") from None
    if not math.isfinite(fitness):
        raise CorpusError(f"the fitness is {fitness} (the simulation diverged?)")
    return {"fitness": fitness, "metrics": _plain(metrics), "simulated_time": simulated}


def run_until(sim, setup: Setup, started: float) -> Recording:
    """Simulate `setup.duration` in chunks; end early at the stop condition (the recording is
    cut at its first frame that meets it, as a scene event with `do: stop` would end it) or
    when an engine event stopped the run; raise EvaluationTimeout past the time limit.

    The time limit counts simulating only, not numba compiling kernels inside a worker's first
    frames (a minute with a cold cache, many on a loaded machine): counted, it failed the first
    individual of every worker, and a run's results depended on how warm the cache was."""
    with watching() as compiles:
        return _run_until(sim, setup, started, compiles)


def _run_until(sim, setup: Setup, started: float, compiles) -> Recording:
    from pipeline.particles.simulation import ParticleSimulation

    duration = sim.scene.simulation.duration if setup.duration is None else setup.duration
    frames = max(0, int(math.ceil(duration / sim.dt - 1e-9)))
    per_chunk = max(1, int(round(setup.chunk / sim.dt)))
    stop_body = sim.model.body_names.index(setup.stop.body) if setup.stop else None
    particles = isinstance(sim, ParticleSimulation)
    if particles and setup.stop:
        stop = (stop_body, setup.stop.axis, setup.stop.level, int(setup.stop.rising))
    parts: list[Recording] = []
    done = 0
    while True:
        n = min(per_chunk, frames - done)
        before = sim.data.time
        if particles:  # the stop condition is checked inside the kernel, at every record
            part, stopped = sim.frames(n, record=True, stop=stop if setup.stop else NO_STOP, first=not parts)
            parts.append(part)
            done += n
            if stopped:
                break
        else:
            part = sim.run(n * sim.dt, progress=False)
            if parts and len(part.time) and part.time[0] == parts[-1].time[-1]:
                part = _slice(part, slice(1, None))  # the chunk's first frame ended the last one
            parts.append(part)
            done += n
            hit = _first_stop(part, setup.stop, stop_body) if setup.stop else None
            if hit is not None:
                parts[-1] = _slice(part, slice(0, hit + 1))
                break
        stopped_early = sim.data.time < before + (n - 0.5) * sim.dt  # a scene event ended it
        if done >= frames or stopped_early:
            break
        if setup.time_limit is not None and time.perf_counter() - started - compiles.seconds > setup.time_limit:
            raise EvaluationTimeout(_past_limit(setup, done * sim.dt, duration))
    return _concatenate(parts)


def _first_stop(rec: Recording, stop: Stop, body: int) -> int | None:
    values = rec.body_pos[:, body, stop.axis]
    hit = np.flatnonzero(values > stop.level if stop.rising else values < stop.level)
    return int(hit[0]) if hit.size else None


def _slice(rec: Recording, s: slice) -> Recording:
    return Recording(rec.time[s], rec.body_names, rec.body_pos[s], rec.body_quat[s], rec.q[s], rec.qd[s],
                     {k: v[s] for k, v in rec.channels.items()})


def _concatenate(parts: list[Recording]) -> Recording:
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    channels = {k: np.concatenate([p.channels[k] for p in parts]) for k in first.channels
                if all(k in p.channels for p in parts)}
    return Recording(*(np.concatenate([getattr(p, f) for p in parts]) if f != "body_names" else first.body_names
                       for f in ("time", "body_names", "body_pos", "body_quat", "q", "qd")), channels)


@functools.lru_cache(maxsize=16)
def _expression(text: str, names: tuple[str, ...]):
    from pipeline.control.fsm import compile_expression

    return compile_expression(text, {name: i for i, name in enumerate((*names, "simulated_time"))})


@functools.lru_cache(maxsize=16)
def _python_fitness(target: str, where: Where):
    from pipeline.control.python_ctrl import load_callable

    return load_callable(target, where)


def _plain(metrics: dict) -> dict:
    """Metric values as JSON data (numpy scalars and arrays to numbers and lists)."""
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v.item() if isinstance(v, np.generic) else v)
            for k, v in metrics.items()}
