"""Batched rollouts (docs/simulation.md): many articulated runs stepped in one kernel call,
in parallel over the cores (pipeline/physics/rollout.py).

    runs = rollout_states(sim, states, frames=400)      # N states of one model
    runs = rollout(sims, frames=400)                    # N Simulations of one shape
    runs.y (N, T, ny), runs.time (T,), runs.status, runs.errors, runs.recording(i)
    recordings = run_together(sims, duration=5.0)       # sim.run() of each, together

Each Simulation goes on from its own Data and keeps the result (state, time, counters), as if
`sim.step(frames)` had been called on each. Its frame starts must need no Python: the
controllers are called once at the first frame and must return HOLD (or there are none),
and no timeline command may fall inside the frames. A run that fails keeps the state it
failed in and its message (the SimulationError `sim.step` would raise) in `errors[i]`; the
others are unaffected.

`run_together` is `sim.run()` for each of N Simulations of one shape, with the same
recordings to the bit: timeline commands and controllers run between stretches as in a
run, and each stretch that needs no Python runs for all of them in one call. `corpus batch`
runs the jobs of one sweep this way (pipeline/batch/group.py), `evaluate_batch` its variants.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import NamedTuple

import numba
import numpy as np

from pipeline.control.biped_frames import Bipeds, pack, unpack
from pipeline.control.controlled_frames import rollout_bipeds
from pipeline.errors import CorpusError
from pipeline.physics.rollout import rollout as _kernel, typed_list
from pipeline.physics.step import trajectory_poses
from pipeline.recording import Recorder, Recording


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
    every = max(1, int(record_every))
    traj, status, done, fail = _advance(sims, frames, every, frame0 % every, -(-frames // every) + 1, threads)
    errors = []
    for i, sim in enumerate(sims):
        d = sim.data
        d.frame = frame0 + int(done[i, 0])
        d.boundary_frame = d.frame - 1
        d.time = d.frame * sim.dt
        error = sim._settle(int(status[i]), fail[i])
        errors.append(None if error is None else str(error))
    time = np.minimum(np.arange(traj.shape[1]) * every, frames) * first.dt + frame0 * first.dt
    return Rollout(time, traj, status, errors, sims)


def _advance(sims, frames: int, every: int, phase: int, rows: int, threads: int | None):
    """One parallel kernel call: every Simulation (of one shape, at one frame) advanced
    `frames` frames, its Data's arrays updated (not its frame, time or outcome: the caller
    settles them). Returns (traj (N, rows, ny): the start, then the states after the frames
    g with g % every == phase while rows last; status; done (N, 2): frames completed and
    rows traced; fail)."""
    first = sims[0]
    threads = _threads(threads)
    tables = {}  # runs of one model share its tables: id(model) -> (index, statics)
    for sim in sims:
        tables.setdefault(id(sim.model), (len(tables), sim._statics))
    index = np.array([tables[id(sim.model)][0] for sim in sims], np.int64)
    sts = typed_list([statics for _, statics in tables.values()])
    lvs = typed_list([sim._live() for sim in sims])
    wks = typed_list([first._make_work() for _ in range(min(threads, len(sims)))])
    n = len(sims)
    data = _stacked(sims, frames)
    Y, CS, counters, hstate, ev_log, ev_count, limits, balance, margins = data
    fail = np.zeros((n, 2))
    status = np.zeros(n, np.int64)
    done = np.zeros((n, 2), np.int64)
    traj = np.zeros((n, rows, Y.shape[1]))
    s = first.settings
    with _using(threads):
        _kernel(sts, index, lvs, wks, first.method, first.dt, first.data.frame, frames, every, phase,
                first.h, float(s.atol), float(s.rtol), float(s.h_min), first.h_max, Y, CS, counters, hstate,
                fail, status, done, first._events, ev_log, ev_count, limits, balance, margins, traj)
    _unstacked(sims, data)
    return traj, status, done, fail


def _advance_bipeds(sims, frames: int, threads: int | None):
    """`sim._integrate(frames, rec)`'s kernel call for every Simulation (bipeds ticking in
    their step loops; one shape, at one frame) in one parallel call (control/biped_frames.py):
    returns (status, fail, done, traces) for each one's `_conclude`."""
    first = sims[0]
    n = len(sims)
    walkers = [Bipeds.walkers(sim.data) for sim in sims]
    packed = [np.stack(arrays) for arrays in zip(*(pack(w, frames) for w in walkers))]
    data = _stacked(sims, frames)
    Y, CS, counters, hstate, ev_log, ev_count, limits, balance, margins = data
    fail = np.zeros((n, 3))
    status = np.zeros(n, np.int64)
    done = np.zeros((n, 2), np.int64)
    traces = np.stack([sim._new_trace(frames, True) for sim in sims])
    s = first.settings
    with _using(_threads(threads)):
        rollout_bipeds(typed_list([sim._tables for sim in sims]), typed_list([sim._live_ref() for sim in sims]),
                       typed_list([sim.bipeds.tables for sim in sims]), typed_list([sim.bipeds.sens for sim in sims]),
                       *packed, first._in_kernel.order, first.method, first.dt, first.data.frame, frames, first.h, float(s.atol),
                       float(s.rtol), float(s.h_min), first.h_max, Y, CS, counters, hstate, fail, ev_log, ev_count,
                       limits, balance, margins, int(s.record_every), traces, done, status)
    _unstacked(sims, data)
    for i, w in enumerate(walkers):
        unpack(w, *(a[i] for a in packed))
    return status, fail, done, traces


def _stacked(sims, frames: int) -> tuple:
    """The Simulations' Data arrays a batched kernel steps, stacked run by run, with their
    runaway bounds at the end of `frames` frames and their energy margins."""
    frame0 = sims[0].data.frame
    ds = [sim.data for sim in sims]
    return (np.stack([d.y for d in ds]), np.stack([d.cstate for d in ds]), np.stack([d.counters for d in ds]),
            np.stack([d.h_next for d in ds]), np.stack([d.event_log for d in ds]),
            np.stack([d.event_count for d in ds]), np.stack([sim._runaway.limits((frame0 + frames) * sim.dt)
                                                             for sim in sims]),
            np.stack([d.balance for d in ds]), np.stack([sim._energy_margin for sim in sims]))


def _unstacked(sims, data: tuple) -> None:
    """The stepped arrays back into each Simulation's Data."""
    Y, CS, counters, hstate, ev_log, ev_count, _, balance, _ = data
    for i, sim in enumerate(sims):
        d = sim.data
        d.y[:], d.cstate[:], d.counters[:], d.h_next[:] = Y[i], CS[i], counters[i], hstate[i]
        d.event_log[:], d.event_count[:] = ev_log[i], ev_count[i]
        d.balance[:] = balance[i]


def _threads(threads: int | None) -> int:
    return numba.get_num_threads() if threads is None else max(1, min(threads, numba.config.NUMBA_NUM_THREADS))


@contextmanager
def _using(threads: int):
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


# frames a stretch must have for run_together to step it in one parallel call; shorter ones
# (a controller that runs every frame) cost more in the call's stacking than they gain
_TOGETHER_FRAMES = 16
# frames of one call at most: the trace of a whole 50 s humanoid run in one call (16 MB a
# run, copied into its Recording) made 8 runs together 1.5x slower than one by one
_STRETCH_FRAMES = 128


def run_together(sims, duration: float | None = None, threads: int | None = None) -> list:
    """`sim.run(duration)` for N Simulations of one shape (same layout, integrator, dt, h,
    events, record_every, number of bipeds and frame; no fsm controllers): the same recordings to the bit, but
    the stretches of frames that need no Python run for all of them in one parallel kernel
    call. Returns per Simulation its Recording or the SimulationError (CorpusError) its run
    raised; the others go on. Raises CorpusError when they cannot run together."""
    sims = list(sims)
    first = sims[0]
    key = together_key(first)
    if key is None or any(together_key(sim) != key for sim in sims):
        raise CorpusError("run_together: every simulation must have the first one's layout, integrator, dt, h, "
                          "events, record_every, number of bipeds and frame, and no fsm controllers (the parallel loop does not take them)")
    every = int(first.settings.record_every)
    m = first.model
    ends = [sim.data.frame + sim.frames_in(duration) for sim in sims]
    recs = [Recorder(sim.model.body_names, m.nq, m.nv) for sim in sims]
    out: list = [None] * len(sims)
    active = list(range(len(sims)))
    while active:
        stretch = []
        for i in active:
            sim, d = sims[i], sims[i].data
            try:
                sim._boundary()
                if d.frame >= ends[i] or d.stopped_by >= 0:  # as run() ends
                    sim._record(recs[i], always=d.stopped_by >= 0)
                    out[i] = sim.recording = recs[i].finish()
                    continue
                sim._record(recs[i])
                stretch.append((i, sim._quiet_frames(min(ends[i] - d.frame, _STRETCH_FRAMES))))
            except CorpusError as error:
                out[i] = error
        active = [i for i, _ in stretch]
        if not active:
            break
        k = min(frames for _, frames in stretch)
        if k < _TOGETHER_FRAMES or len(active) == 1 or any(sims[i]._watching for i in active):
            for i in active:
                try:
                    sims[i]._integrate(k, recs[i])
                except CorpusError as error:
                    out[i] = error
        else:
            _together(sims, active, k, every, recs, out, threads)
        active = [i for i in active if out[i] is None]
    return out


def _together(sims, active, k, every, recs, out, threads) -> None:
    """`sim._integrate(k, rec)` for the active Simulations in one parallel call."""
    group = [sims[i] for i in active]
    if group[0].bipeds is not None:
        status, fail, done, traces = _advance_bipeds(group, k, threads)
    else:
        frame0 = group[0].data.frame
        rows = 1 + (frame0 + k - 1) // every - frame0 // every  # the trace _integrate would keep, after the start
        traj, status, done, fail = _advance(group, k, every, 0, rows, threads)
        traces = traj[:, 1:, :group[0].model.nq + group[0].model.nv]
    for j, i in enumerate(active):
        try:
            group[j]._conclude(k, int(status[j]), fail[j], done[j], traces[j], recs[i])
        except CorpusError as error:
            out[i] = error


def _check(sim, first, frame0: int, frames: int) -> None:
    """Same layout, settings and frame as the first; no Python at the frame starts."""
    _check_layout(sim, first)
    sim._boundary()
    d = sim.data
    if len(d.held) < len(d.controllers):
        raise CorpusError("rollout: a controller runs every frame (only controllers that return HOLD may run)")
    if d.next_command < len(sim._timeline) and sim._timeline[d.next_command].at < (frame0 + frames) * sim.dt:
        raise CorpusError("rollout: a timeline command falls inside the frames; roll out up to it")
    if d.stopped_by >= 0:
        raise CorpusError("rollout: a simulation was stopped by an event")


def _check_layout(sim, first) -> None:
    """Same layout, settings, events and frame as the first: what one kernel call needs."""
    if _layout(sim) != _layout(first):
        raise CorpusError("rollout: every simulation must have the first one's layout, integrator, dt, h, "
                          "events and frame")


def _layout(sim) -> tuple:
    return (sim.model.nq, sim.model.nv, sim.data.cstate.shape, sim.method, sim.dt, sim.h, sim.data.frame,
            sim._events.shape, sim._events.tobytes())


def together_key(sim):
    """Equal for Simulations that run_together can run together; None for one it cannot
    run with others (fsm machines, which the parallel step loop does not take)."""
    if sim.machines is not None:
        return None
    return (*_layout(sim), int(sim.settings.record_every), len(sim.bipeds.names) if sim.bipeds else 0)
