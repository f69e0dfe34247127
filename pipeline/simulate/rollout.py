"""Batched rollouts (docs/simulation.md): many articulated runs stepped in one kernel call,
in parallel over the cores (pipeline/physics/rollout.py).

    runs = rollout_states(sim, states, frames=400)      # N states of one model
    runs = rollout(sims, frames=400)                    # N Simulations of one shape
    runs.y (N, T, ny), runs.time (T,), runs.status, runs.errors, runs.recording(i)

Each Simulation goes on from its own Data and keeps the result (state, time, counters), as if
`sim.step(frames)` had been called on each. Its frame starts must need no Python: the
controllers are called once at the first frame and must return HOLD (or there are none),
and no timeline command may fall inside the frames. A run that fails keeps the state it
failed in and its message (the SimulationError `sim.step` would raise) in `errors[i]`; the
others are unaffected.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.typed import List

from pipeline.errors import CorpusError
from pipeline.physics.rollout import rollout as _kernel
from pipeline.physics.step import trajectory_poses
from pipeline.recording import Recording


class Rollout(NamedTuple):
    time: np.ndarray  # (T,) recorded times (shared; a run that stopped early repeats its last state)
    y: np.ndarray  # (N, T, ny) integrated state [q | qd | exp_rest] at those times
    status: np.ndarray  # (N,) 0 ok, else the step loop's status (pipeline/physics/step.py, frames.py)
    errors: list  # (N,) None, or the message sim.step would have raised
    sims: list  # the Simulations, advanced

    def recording(self, i: int) -> Recording:
        """Run i as a Recording (body poses from its recorded states), for metrics. A run that
        a `stop` event ended has its records before the stop's time, then the stop state at
        that time, as `sim.run` records it."""
        sim = self.sims[i]
        m = sim.model
        rows = np.arange(self.time.shape[0])
        time = self.time.copy()
        if sim.data.stopped_by >= 0:
            before = np.flatnonzero(time < sim.data.time - 1e-12)
            rows = np.r_[before, before.size]  # the rollout repeats the stop state after it
            time = time[rows]
            time[-1] = sim.data.time
        y = self.y[i, rows]
        pos, quat = np.zeros((rows.size, m.nbody, 3)), np.zeros((rows.size, m.nbody, 4))
        trajectory_poses(m.tree, y, sim._work.dyn, pos, quat)
        return Recording(time=time, body_names=tuple(m.body_names), body_pos=pos, body_quat=quat,
                         q=y[:, :m.nq].copy(), qd=y[:, m.nq:m.nq + m.nv].copy(), channels={})


def rollout_states(sim, states, frames: int, record_every: int = 1) -> Rollout:
    """N runs of one Simulation from the states (N, ny) (rows of y = [q | qd | exp_rest]),
    each a fork of `sim` (its time, contact state and live inputs)."""
    states = np.asarray(states, dtype=np.float64)
    if states.ndim != 2 or states.shape[1] != sim.data.y.shape[0]:
        raise CorpusError(f"states must be (N, {sim.data.y.shape[0]}), got {states.shape}")
    sims = []
    for row in states:
        twin = sim.fork()
        twin.data.y[:] = row
        sims.append(twin)
    return rollout(sims, frames, record_every)


def check(sims, frames: int) -> None:
    """Raise CorpusError unless the Simulations can be rolled out together for the next
    `frames` frames, in one call or several: one shape, settings and frame, and no Python at
    their frame starts (this runs the controllers of the first one, as stepping would)."""
    first = sims[0]
    for sim in sims:
        _check(sim, first, first.data.frame, frames)


def rollout(sims, frames: int, record_every: int = 1, threads: int | None = None) -> Rollout:
    """Advance N Simulations of one shape (same scene layout, settings and frame) by
    `frames` frames in one parallel kernel call (module doc) on `threads` of numba's threads
    (default: as many as numba uses now)."""
    sims = list(sims)
    first = sims[0]
    frame0 = first.data.frame
    check(sims, frames)
    threads = numba.get_num_threads() if threads is None else max(1, min(threads, numba.config.NUMBA_NUM_THREADS))
    tables = {}  # runs of one model share its tables: id(model) -> (index, statics)
    for sim in sims:
        tables.setdefault(id(sim.model), (len(tables), sim._statics))
    index = np.array([tables[id(sim.model)][0] for sim in sims], np.int64)
    sts = List([statics for _, statics in tables.values()])
    lvs = List([sim._live() for sim in sims])
    wks = List([first._make_work() for _ in range(min(threads, len(sims)))])
    n = len(sims)
    Y = np.stack([sim.data.y for sim in sims])
    CS = np.stack([sim.data.cstate for sim in sims])
    counters = np.stack([sim.data.counters for sim in sims])
    hstate = np.stack([sim.data.h_next for sim in sims])
    ev_log = np.stack([sim.data.event_log for sim in sims])
    ev_count = np.stack([sim.data.event_count for sim in sims])
    balance = np.stack([sim.data.balance for sim in sims])
    fail = np.zeros((n, 2))
    status = np.zeros(n, np.int64)
    done = np.zeros(n, np.int64)
    every = max(1, int(record_every))
    nrec = -(-frames // every) + 1
    traj = np.zeros((n, nrec, Y.shape[1]))
    s = first.settings
    limits = first._runaway.limits((frame0 + frames) * first.dt)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        _kernel(sts, index, lvs, wks, first.method, first.dt, frame0, frames, every,
                first.h, float(s.atol), float(s.rtol), float(s.h_min), first.h_max, Y, CS, counters, hstate,
                fail, status, done, first._events, ev_log, ev_count, limits, balance,
                np.stack([sim._energy_margin for sim in sims]), traj)
    finally:
        numba.set_num_threads(before)
    errors = []
    for i, sim in enumerate(sims):
        d = sim.data
        d.y[:], d.cstate[:], d.counters[:], d.h_next[:] = Y[i], CS[i], counters[i], hstate[i]
        d.event_log[:], d.event_count[:] = ev_log[i], ev_count[i]
        d.balance[:] = balance[i]
        d.frame = frame0 + int(done[i])
        d.boundary_frame = d.frame - 1
        d.time = d.frame * sim.dt
        error = sim._settle(int(status[i]), fail[i])
        errors.append(None if error is None else str(error))
    time = np.minimum(np.arange(nrec) * every, frames) * first.dt + frame0 * first.dt
    return Rollout(time, traj, status, errors, sims)


def _check(sim, first, frame0: int, frames: int) -> None:
    """Same layout, settings and frame as the first; no Python at the frame starts."""
    if (sim.model.nq, sim.model.nv, sim.data.cstate.shape, sim.method, sim.dt, sim.h, sim.data.frame) != (
            first.model.nq, first.model.nv, first.data.cstate.shape, first.method, first.dt, first.h, frame0):
        raise CorpusError("rollout: every simulation must have the first one's layout, integrator, dt, h and frame")
    if not np.array_equal(sim._events, first._events):
        raise CorpusError("rollout: every simulation must have the first one's events")
    sim._boundary()
    d = sim.data
    if len(d.held) < len(d.controllers):
        raise CorpusError("rollout: a controller runs every frame (only controllers that return HOLD may run)")
    if d.next_command < len(sim._timeline) and sim._timeline[d.next_command].at < (frame0 + frames) * sim.dt:
        raise CorpusError("rollout: a timeline command falls inside the frames; roll out up to it")
    if d.stopped_by >= 0:
        raise CorpusError("rollout: a simulation was stopped by an event")
