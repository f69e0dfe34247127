"""The largest stable step of a particle model (Urban: every system has a maximum safe step,
and real time needs it above 1/framerate; stiff seaweed in strong currents lowers it)."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from pipeline.errors import SimulationError


def is_stable(sim, seconds: float, bound: float = 100.0) -> bool:
    """True if `sim` runs `seconds` without a non-finite state or any mass leaving a ball of
    radius `bound` around where it started."""
    start = sim.data.pos.copy()
    try:
        sim.step(int(round(seconds / sim.dt)))
    except SimulationError:
        return False
    return bool(np.abs(sim.data.pos - start).max() < bound)


def max_stable_step(make_sim: Callable[[float], object], seconds: float, lo: float = 1e-4,
                    hi: float = 0.2, iterations: int = 12, bound: float = 100.0) -> float:
    """Bisect (geometrically) for the largest step h in [lo, hi] at which `make_sim(h)` stays
    stable for `seconds`; returns the last stable h found (lo if even lo fails)."""
    for _ in range(iterations):
        mid = math.sqrt(lo * hi)
        if is_stable(make_sim(mid), seconds, bound):
            lo = mid
        else:
            hi = mid
    return lo
