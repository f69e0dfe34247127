"""Many runs of one particle model side by side: one numba call (pipeline/particles/frames.py:
run_batch, which releases the GIL, so batches in several threads run at once) advances all of
them, each from its own `ParticleData` (state, machines' memory and parameters, actuated
forces, random generator). For evolution: individuals that
differ only in FSM parameters and seeds share the model, so a generation is a few kernel calls
instead of a Python loop per individual. Every run is the same to the bit as
`ParticleSimulation.frames` over its data.

    batch = Batch(sim, datas, frames, stop)     # datas: ParticleData of `sim`'s model
    while batch.running():
        batch.advance(500)                      # frames, for every run still going
    batch.recording(k), batch.errors[k]
"""
from __future__ import annotations

import numpy as np

from pipeline.control.fsm_code import raise_error
from pipeline.errors import CorpusError
from pipeline.particles.frames import CONTROL_ERROR, RUNAWAY, STOPPED, run_batch
from pipeline.particles.simulation import NO_STOP, ParticleSimulation
from pipeline.particles.spawners import draw_releases


class Batch:
    def __init__(self, sim: ParticleSimulation, datas: list, frames: int, stop: tuple = NO_STOP):
        self.sim, self.datas, self.frames = sim, datas, frames
        m = sim.model
        every = sim.settings.record_every
        rows = frames // every + 1
        n, runs = m.nbody, len(datas)
        memory = [_memory(d) for d in datas]
        self.slots = np.array([s for s, _ in memory]).reshape(runs, -1)
        self.states = np.array([s for _, s in memory], np.int64).reshape(runs, -1)
        self.pos = np.array([d.pos for d in datas]).reshape(runs, n, 3)
        self.vel = np.array([d.vel for d in datas]).reshape(runs, n, 3)
        self.live = [np.array([getattr(d.live, f) for d in datas]).reshape(runs, -1) for f in datas[0].live._fields]
        self.t = np.array([d.time for d in datas], np.float64)
        self.frame = np.array([d.frame for d in datas], np.int64)
        self.counters = np.array([d.counters for d in datas], np.int64).reshape(runs, 4)
        self.var_slots = np.array([base + c.runtime.program.slot_names.index(v)
                                   for c, base in zip(datas[0].controllers, m.control.code.prog[:, 0])
                                   for v in c.runtime.program.variable_names], np.int64)
        self.rec = (np.empty((runs, rows)), np.empty((runs, rows, n, 3)), np.empty((runs, rows, n, 3)),
                    np.empty((runs, rows, self.states.shape[1]), np.int64),
                    np.empty((runs, rows, self.var_slots.size)))
        self.nrec = np.zeros(runs, np.int64)
        self.active = np.ones(runs, np.bool_)
        self.status = np.zeros(runs, np.int64)
        self.codes = np.zeros(runs, np.int64)
        self.errors: list[Exception | None] = [None] * runs
        self.stop = np.array(stop, np.float64)
        self.done = 0
        self.stopped = np.zeros(runs, np.bool_)

    def running(self) -> bool:
        return bool(self.active.any()) and self.done < self.frames

    def work(self) -> np.ndarray:
        """Force evaluations of every run so far (what its frames cost)."""
        return self.counters[:, 1].copy()

    def abandon(self, k: int, error: Exception) -> None:
        self.active[k] = False
        self.errors[k] = error

    def advance(self, n: int) -> None:
        """Up to n more frames of every run still going (all are at the same time)."""
        sim = self.sim
        n = min(n, self.frames - self.done)
        going = np.flatnonzero(self.active)
        t = float(self.t[going[0]])
        t_next = t + sim.dt
        horizon = max(sim.settings.duration, t_next)
        if t_next > sim.settings.duration:  # past the duration, limits grow with time: a frame a call
            n = 1
        generators = [d.rng.bit_generator.state for d in self.datas]
        draws = [draw_releases(d.spawners, n, sim.dt, d.rng) for d in self.datas]
        width = max(j.shape[0] for _, j in draws)
        releases = np.array([r for r, _ in draws], np.int64).reshape(len(draws), n, -1)
        jitter = np.zeros((len(draws), width, 2))
        for k, (_, j) in enumerate(draws):
            jitter[k, :j.shape[0]] = j
        before = self.frame.copy()
        m = sim.model
        args = (m.arrays, m.control, *self.live, sim.method, self.pos, self.vel, self.t, self.frame, sim.dt,
                sim.substep, sim.substeps, self.counters, self.slots, self.states, n, sim.runaway.limits(t_next),
                horizon, self.done == 0, sim.settings.record_every, self.stop, self.var_slots, *self.rec, self.nrec,
                self.active, self.status, self.codes, sim.columns, sim.sources, releases, jitter)
        run_batch(*args)
        for k, d in enumerate(self.datas):
            did = int(self.frame[k] - before[k])
            if d.spawners and did < n:  # draw again only what the frames done used
                d.rng.bit_generator.state = generators[k]
                draw_releases(d.spawners, did, sim.dt, d.rng)
        self.done += n
        for k in going:
            if self.status[k] == STOPPED:
                self.active[k] = False
                self.stopped[k] = True
            elif self.status[k] == CONTROL_ERROR:
                try:
                    raise_error(int(self.codes[k]))
                except (ArithmeticError, ValueError) as exc:
                    self.abandon(k, exc)
            elif self.status[k] == RUNAWAY:
                self.abandon(k, self._runaway_error(k))

    def _runaway_error(self, k: int) -> CorpusError:
        """The message a run alone would raise (ParticleSimulation.check_state)."""
        probe = self.sim.fork()
        probe.data.pos, probe.data.vel, probe.data.time = self.pos[k], self.vel[k], float(self.t[k])
        try:
            probe.check_state()
        except CorpusError as exc:
            return exc
        raise AssertionError("the kernel saw a runaway that the bounds do not")

    def recording(self, k: int):
        """Run k's Recording: its start, every `record_every`-th frame, up to its stop."""
        r = int(self.nrec[k])
        return self.sim.recording_of(self.datas[k], *(a[k, :r] for a in self.rec))


def _memory(data) -> tuple[list, list]:
    return [v for c in data.controllers for v in c.runtime.slots], [c.runtime.state for c in data.controllers]
