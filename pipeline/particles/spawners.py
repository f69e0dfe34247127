"""Bubble columns (Urban's BubbleCollumn): a fixed pool of buoyant masses; at Poisson-random
times the topmost bubble is recycled to the source with a small random offset and at rest."""
from __future__ import annotations

import numpy as np


class BubbleColumn:
    def __init__(self, members: np.ndarray, source: np.ndarray, spread: float, rate: float,
                 rng: np.random.Generator):
        self.members = members
        self.source = source
        self.spread = spread
        self.rate = rate
        self.rng = rng

    def frame(self, pos: np.ndarray, vel: np.ndarray, dt: float) -> None:
        """Release as many bubbles as the Poisson process produced in dt."""
        for _ in range(self.rng.poisson(self.rate * dt)):
            top = self.members[np.argmax(pos[self.members, 2])]
            jitter = self.rng.uniform(-self.spread, self.spread, 2)
            pos[top] = self.source + np.array([jitter[0], jitter[1], 0.0])
            vel[top] = 0.0
