"""`ParticleData`: every mutable part of a particle run, so that it copies, forks and
checkpoints as one object (`copy`, `save`, `load` of `pipeline.runstate.RunState`, shared
with the articulated engine's Data).
"""
from __future__ import annotations

import numpy as np

from pipeline.particles.arrays import Live
from pipeline.runstate import RunState


class ParticleData(RunState):
    """The state that changes while simulating.

    `pos`, `vel` (n, 3) of every mass; `live` the actuated force parameters (spring and angle
    rest values, torques, constant-force magnitudes); `time` and `frame`; `counters`: steps,
    force evaluations, backtracks, impacts; `channels`: what controllers publish for
    recording; `controllers`: the creatures' FSM controllers (pipeline.particles.controller),
    each with its runtime and sensor memory; `spawners`: the bubble columns, drawing from
    `rng` (seeded by `simulation.seed`). `sim.data = ParticleData.load(path)` resumes a run.
    """

    def __init__(self, model, seed: int = 0):
        self.pos = np.array(model.pos0, dtype=np.float64)
        self.vel = np.array(model.vel0, dtype=np.float64)
        self.live = Live(*(np.array(a, dtype=np.float64) for a in model.live0))
        self.time = 0.0
        self.frame = 0
        self.counters = np.zeros(4, np.int64)
        self.channels: dict = {}
        self.controllers: list = []
        self.spawners: list = list(model.spawners)
        self.rng = np.random.default_rng(seed)
