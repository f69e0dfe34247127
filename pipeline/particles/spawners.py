"""Bubble columns (Urban's BubbleCollumn): a fixed pool of buoyant masses; at Poisson-random
times the topmost bubble is recycled to the source with a small random offset and at rest.
The releases are drawn here, in Python, in the order the run's generator always drew them
(per frame and column: the count, then two offsets per release); the step kernel recycles
the bubbles (pipeline/particles/frames.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BubbleColumn:
    members: np.ndarray  # int mass indices of the pool
    source: np.ndarray  # (3,) world
    spread: float
    rate: float  # releases per second


def draw_releases(columns, frames: int, dt: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(releases (frames, columns) int64, offsets (total releases, 2)) of the next frames."""
    counts = np.zeros((frames, len(columns)), np.int64)
    if not columns:  # most scenes: no per-frame loop
        return counts, np.zeros((0, 2))
    offsets = []
    for f in range(frames):
        for j, col in enumerate(columns):
            counts[f, j] = n = rng.poisson(col.rate * dt)
            if n:
                offsets.append(rng.uniform(-col.spread, col.spread, (n, 2)))
    return counts, (np.concatenate(offsets) if offsets else np.zeros((0, 2)))


def column_arrays(columns) -> tuple[np.ndarray, np.ndarray]:
    """(members (columns, most members) int64 padded with -1, sources (columns, 3))."""
    width = max((len(c.members) for c in columns), default=0)
    members = np.full((len(columns), width), -1, np.int64)
    for j, c in enumerate(columns):
        members[j, :len(c.members)] = c.members
    return members, np.array([c.source for c in columns], np.float64).reshape(-1, 3)
