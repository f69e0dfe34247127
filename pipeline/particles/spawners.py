"""Bubble columns (Urban's BubbleCollumn): a fixed pool of buoyant masses; at Poisson-random
times the topmost bubble is recycled to the source with a small random offset and at rest."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BubbleColumn:
    members: np.ndarray  # int mass indices of the pool
    source: np.ndarray  # (3,) world
    spread: float
    rate: float  # releases per second

    def frame(self, pos: np.ndarray, vel: np.ndarray, dt: float, rng: np.random.Generator) -> None:
        """Release as many bubbles as the Poisson process produced in dt."""
        for _ in range(rng.poisson(self.rate * dt)):
            top = self.members[np.argmax(pos[self.members, 2])]
            jitter = rng.uniform(-self.spread, self.spread, 2)
            pos[top] = self.source + np.array([jitter[0], jitter[1], 0.0])
            vel[top] = 0.0
