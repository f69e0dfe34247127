"""The run's executor, restarted when a local worker process dies.

A process that dies (a crash in native code, `os._exit` in a fitness function) breaks the
whole local pool: every evaluation still pending fails with it, guilty or not. So the
evaluations lost that way are run again one at a time in fresh pools, which finds the one
that kills its worker (it fails with that message) and evaluates the others normally: the
database does not depend on which individuals happened to share the pool with it. (Dask
restarts lost workers and retries their tasks itself.)
"""
from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool
from typing import Callable


class Workers:
    def __init__(self, make: Callable):
        self.make = make  # () -> a LocalExecutor or DaskExecutor, not yet entered
        self.executor = None

    def __enter__(self):
        self.executor = self.make().__enter__()
        return self

    def __exit__(self, *exc):
        return self.executor.__exit__(*exc)

    @property
    def jobs(self) -> int:
        return self.executor.jobs

    def restart(self) -> None:
        self.executor.__exit__(None, None, None)
        self.executor = self.make().__enter__()

    def map(self, fn, items):
        """(index, result, error) per item, as the executors' map."""
        items = list(items)
        done: set[int] = set()
        try:
            for i, result, error in self.executor.map(fn, items):
                if not isinstance(error, BrokenProcessPool):
                    done.add(i)
                    yield i, result, error
        except BrokenProcessPool:  # the pool broke before every item was submitted
            pass
        lost = [i for i in range(len(items)) if i not in done]
        for k, i in enumerate(lost):
            if k == 0 or broke:
                self.restart()
            (_, result, error), = list(self.executor.map(fn, [items[i]]))
            broke = isinstance(error, BrokenProcessPool)
            yield i, result, (RuntimeError("its worker process died") if broke else error)
