"""Where jobs run: a local pool of worker processes, or a Dask cluster.

Two kinds of work:
- `run(payloads, timeout)`: `corpus batch` jobs in child processes, warm workers that stay
  alive from job to job (`run_job`, pipeline/batch/warm.py), so a job that hangs or crashes
  is killed alone and its result does not depend on the executor;
- `map(fn, items)`: any picklable function over items (in-memory evaluations: evolution,
  `pipeline.evaluate` sweeps). Workers stay alive between tasks and keep what they loaded
  and compiled; a task that raises yields its exception, the others go on.
"""
from __future__ import annotations

import functools
import os
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from typing import Callable, Iterable, Iterator

from pipeline.batch.warm import WarmPool
from pipeline.batch.group import jobs_of
from pipeline.batch.worker import JobOutcome, die_with_parent, kill_all, run_jobs, worker_env
from pipeline.errors import CorpusError


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class LocalExecutor:
    """Up to `jobs` worker processes at once on this machine."""

    def __init__(self, jobs: int | None = None):
        self.jobs = max(1, jobs or default_jobs())
        self._warm = WarmPool(worker_env())

    def __enter__(self):
        self._pool = ThreadPoolExecutor(max_workers=self.jobs)
        self._workers = None
        return self

    def prestart(self) -> None:
        """Start the warm job workers now (see runner.run_batch); __exit__ or close() ends them."""
        self._warm.start(min(self.jobs, default_jobs()))

    def close(self) -> None:
        self._warm.close()

    def __exit__(self, exc_type, *exc):
        if exc_type is not None:  # interrupted: running jobs must not outlive the batch
            kill_all()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._warm.close()
        if self._workers is not None:
            if exc_type is not None:  # an evaluation still running would go on after we exit
                terminate_workers(self._workers)
            self._workers.shutdown(wait=exc_type is None, cancel_futures=True)

    def map(self, fn: Callable, items: Iterable) -> Iterator[tuple[int, object, BaseException | None]]:
        """(index, result, None) or (index, None, exception) per item, as they finish."""
        if self._workers is None:
            # spawned, not forked: a fork of a process holding Dask or tqdm threads can hang
            # they die with us even when we are killed outright and cannot clean up
            self._workers = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=functools.partial(die_with_parent, os.getpid()))
        futures = {self._workers.submit(fn, item): i for i, item in enumerate(items)}
        for fut in as_completed(futures):
            error = fut.exception()
            yield futures[fut], (None if error else fut.result()), error

    def run(self, payloads: list[dict], timeout: float | None) -> Iterator[tuple[dict, JobOutcome]]:
        """(job payload, outcome) per job; a payload may be a group (pipeline/batch/group.py)."""
        futures = [self._pool.submit(run_jobs, p, timeout, warm=self._warm) for p in payloads]
        for fut in as_completed(futures):
            yield from fut.result()


def terminate_workers(pool: ProcessPoolExecutor) -> None:
    """SIGTERM every process of the pool (Python 3.14 has pool.terminate_workers())."""
    for proc in list((pool._processes or {}).values()):
        proc.terminate()


class DaskExecutor:
    """Jobs as Dask tasks: a LocalCluster of `jobs` single-threaded workers, or an existing
    cluster at `scheduler` (tcp://host:8786). Output folders must be on storage the workers
    share with this machine (see docs/batch.md)."""

    def __init__(self, jobs: int | None = None, scheduler: str | None = None):
        self.jobs = max(1, jobs or default_jobs())
        self.scheduler = scheduler

    def __enter__(self):
        from dask.distributed import Client, LocalCluster

        try:
            if self.scheduler:
                self._cluster = None
                self._client = Client(self.scheduler, timeout="20s")
            else:
                self._cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                             dashboard_address=None, silence_logs=40)
                self._client = Client(self._cluster)
        except (OSError, TimeoutError, ValueError) as e:  # ValueError: a malformed address
            raise CorpusError(f"cannot reach the Dask scheduler {self.scheduler or '(local cluster)'}: {e}") from None
        self._submitted = []
        return self

    def prestart(self) -> None:
        """Nothing to start ahead: the cluster's workers keep their warm job workers."""

    def close(self) -> None:
        pass

    def __exit__(self, exc_type, *exc):
        if exc_type is not None and self._submitted:
            # interrupted: the scheduler must not start them, and running ones give up
            # (run_dask_job); with an external scheduler nothing else would stop them
            self._client.cancel(self._submitted, force=True)
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def map(self, fn: Callable, items: Iterable) -> Iterator[tuple[int, object, BaseException | None]]:
        """(index, result, None) or (index, None, exception) per item, as they finish."""
        from dask.distributed import as_completed as dask_completed

        futures = {self._client.submit(fn, item, pure=False): i for i, item in enumerate(items)}
        for fut in dask_completed(futures):
            try:
                yield futures[fut], fut.result(), None
            except Exception as error:  # the task raised, or its worker was lost
                yield futures[fut], None, error

    def run(self, payloads: list[dict], timeout: float | None) -> Iterator[tuple[dict, JobOutcome]]:
        """(job payload, outcome) per job; a payload may be a group (pipeline/batch/group.py)."""
        from dask.distributed import as_completed as dask_completed

        futures = {self._client.submit(run_dask_job, p, timeout, key=f"corpus-{jobs_of(p)[0]['hash'][:16]}",
                                       pure=False): p
                   for p in payloads}
        self._submitted = list(futures)
        for fut in dask_completed(futures):
            try:
                yield from fut.result()
            except Exception as e:  # a lost worker or a scheduler failure is these jobs' failure only
                for job in jobs_of(futures[fut]):
                    yield job, JobOutcome("failed", f"dask: {type(e).__name__}: {e}")


def run_dask_job(payload: dict, timeout: float | None) -> list[tuple[dict, JobOutcome]]:
    """run_job_process on a Dask worker, abandoning the job once its task is cancelled: the
    client cancelled it, or was killed or lost and the scheduler released its work. Dask
    cannot stop a running task by itself; the job's process would simulate on for nothing."""
    from distributed import get_worker
    from distributed.worker import thread_state

    worker, key = get_worker(), getattr(thread_state, "key", None)

    def still_wanted() -> bool:
        task = worker.state.tasks.get(key)
        return task is not None and task.state not in ("cancelled", "released", "forgotten")

    return run_jobs(payload, timeout, still_wanted if key is not None else None, warm=dask_warm_pool())


@functools.cache
def dask_warm_pool() -> WarmPool:
    """The warm job workers of this Dask worker process: they serve batch after batch and end
    with the process (die_with_parent)."""
    return WarmPool(worker_env())


def make_executor(kind: str, jobs: int | None, scheduler: str | None):
    if kind == "local":
        if scheduler:
            raise CorpusError("--scheduler needs --executor dask")
        return LocalExecutor(jobs)
    if kind == "dask":
        return DaskExecutor(jobs, scheduler)
    raise CorpusError(f"--executor: unknown executor {kind!r} (choose local or dask)")
