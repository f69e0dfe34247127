"""What a run needs to go on after its last finished generation, saved after every one
(`checkpoint.pkl`, the shared checkpoint format of pipeline/runstate.py). With the random
draws derived from (seed, generation), it is all `--resume` needs to continue exactly as
the uninterrupted run would have."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pipeline.evolve.algorithms import State
from pipeline.runstate import RunState

FILE = "checkpoint.pkl"


class Best(NamedTuple):
    genotype: np.ndarray
    fitness: float
    generation: int
    index: int
    seed: int  # the evaluation's simulation.seed
    metrics: dict


@dataclass
class Checkpoint(RunState):
    digest: str  # of the evolution file it belongs to
    seed: int
    generation: int  # the last finished generation
    state: State
    best: Best | None
