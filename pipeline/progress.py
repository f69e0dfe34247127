"""A simulation's progress bar, shared by both engines.

It counts frames of `dt` (the intervals at whose starts controllers and commands run) and
says so with their length, because output frames (fps) and integration steps (h) are other
counts a newcomer could read into the word. It is drawn on stderr, only on a terminal, and
stands still while numba compiles: the compile's seconds are taken out of its elapsed time,
so the rate and the time left are those of the simulation alone.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from fractions import Fraction
from typing import Iterator


def frame_length(dt: float) -> str:
    """1/2400 s rather than 0.000416667 s where dt is the reciprocal of a whole number."""
    per_second = Fraction(1.0 / dt).limit_denominator(1000)
    if per_second.denominator == 1 and abs(1.0 / int(per_second) - dt) <= 1e-12 * dt:
        return f"1/{int(per_second)} s"
    return f"{dt:g} s"


@contextmanager
def frame_progress(name: str, frames: int, dt: float, show: bool | None = None) -> Iterator:
    """A bar over `frames` frames of dt (`show` None: when stderr is a terminal); yields
    its `update(n=1)`."""
    if not (sys.stderr.isatty() if show is None else show):
        yield lambda n=1: None
        return
    from tqdm import tqdm

    from pipeline.compile_watch import watching

    bar = tqdm(total=frames, desc=name, unit="frame", leave=False, file=sys.stderr,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} frames of "
                          + frame_length(dt) + " [{elapsed}<{remaining}, {rate_fmt}]")

    def compiled(seconds: float) -> None:
        bar.start_t += seconds  # as if the compile had not happened
        bar.last_print_t += seconds

    try:
        with watching(on_end=compiled):
            yield bar.update
    finally:
        bar.close()
