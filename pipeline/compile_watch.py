"""numba compiling kernels: said while it happens, and timed apart from the work it delays.

numba compiles a kernel the first time it is called unless its cache (pipeline/_numba_cache.py)
holds it, so a fresh install, or any edit to a kernel, spends about a minute in LLVM inside
the first frame. Counted as simulation, that minute made "simulated 3 s in 82 s" and a
progress bar that predicted hours. numba announces every real compile, never a cache load,
as a "numba:compile" event; listening to it tells a cold cache from a warm one exactly,
without guessing from how long a frame took.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator

from numba.core import event

NOTICE = "compiling kernels (first run only, about a minute)"


class CompileWatch(event.Listener):
    """Wall time inside numba's compiles while installed. A kernel's compile triggers the
    compiles of the kernels it calls: only the outermost one is timed, so nothing counts twice.

    `on_start()` runs when an outermost compile begins, `on_end(seconds)` when it ends.
    """

    def __init__(self, on_start: Callable[[], None] | None = None,
                 on_end: Callable[[float], None] | None = None):
        self.seconds = 0.0
        self.compiles = 0  # outermost compiles seen
        self._depth = 0
        self._t0 = 0.0
        self._on_start, self._on_end = on_start, on_end

    def on_start(self, ev) -> None:
        self._depth += 1
        if self._depth == 1:
            self.compiles += 1
            self._t0 = time.perf_counter()
            if self._on_start:
                self._on_start()

    def on_end(self, ev) -> None:
        self._depth -= 1
        if self._depth == 0:
            spent = time.perf_counter() - self._t0
            self.seconds += spent
            if self._on_end:
                self._on_end(spent)


@contextmanager
def watching(on_start: Callable[[], None] | None = None,
             on_end: Callable[[float], None] | None = None) -> Iterator[CompileWatch]:
    """A CompileWatch listening to numba for the duration of the block."""
    with event.install_listener("numba:compile", CompileWatch(on_start, on_end)) as watch:
        yield watch


def say(message: str) -> None:
    """A status line on stderr that does not break a progress bar being drawn there."""
    import sys

    from tqdm import tqdm

    tqdm.write(message, file=sys.stderr)


@contextmanager
def announced(quiet: bool = False) -> Iterator[CompileWatch]:
    """Watch compiles and say NOTICE once, when the first one starts (unless quiet)."""
    def first():
        if watch.compiles == 1 and not quiet:
            say(NOTICE)

    with watching(on_start=first) as watch:
        yield watch
