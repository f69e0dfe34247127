"""Batched rollouts: many runs stepped in one numba call, in parallel over the cores.

Run i reads the model tables sts[model[i]] and the live inputs lvs[i] (its own copy: a
committed step writes the motor columns), and integrates its own rows of Y and CS; thread t
works through the runs t, t + nt, ... with the scratch wks[t]. So N states of one model
(every model[i] = 0) and N models of one shape (the same array layout, model[i] = i) are the
same call. The frames are those of `advance_frames` (pipeline/physics/frames.py): no Python
at any frame start, the runaway checks of every frame in the kernel. y is recorded at the
start and then every `every` frames into traj[i, k], by advance_frames' trace; a run that
fails or stops repeats its last state in the records after it.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.typed import List

from pipeline.physics.frames import advance_frames


@numba.njit(parallel=True, cache=True)
def rollout(sts, model, lvs, wks, method, dt, frame0, nframes, every, phase, h, atol, rtol,
            h_min, h_max, Y, CS, counters, hstate, fail, status, done, events, ev_log,
            ev_count, limits, balance, margins, traj):
    """Advance every run nframes frames from frame0; status[i] and done[i] (frames
    completed, rows traced) as advance_frames' for run i, fail[i] its failure, limits[i] its
    runaway bounds. traj[i, 0] is the state at frame0; the trace (the states after frames g
    with g % every == phase) fills the rows after it."""
    n = Y.shape[0]
    nt = len(wks)
    for tp in numba.prange(nt):
        t = np.int64(tp)  # prange counts in uint64; typed lists index with int64
        wk = wks[t]
        for i in range(t, n, nt):
            traj[i, 0, :] = Y[i]
            status[i] = advance_frames(sts[model[i]], lvs[i], wk, method, dt, frame0, nframes, h,
                                       atol, rtol, h_min, h_max, Y[i], CS[i], counters[i],
                                       hstate[i], fail[i], events, ev_log[i], ev_count[i], limits[i],
                                       balance[i], margins[i], every, phase, traj[i, 1:], done[i])
            for j in range(done[i, 1] + 1, traj.shape[1]):  # a failed or stopped run's: its last state
                traj[i, j, :] = Y[i]


@numba.njit(cache=True)
def list_of(item):
    """A typed List holding `item`. Built in a cached kernel, as `append_to` grows it: a
    typed List made from Python compiles its methods for the item type in every process
    (3-4 s for the step tables), and numba caches them only inside a cached kernel."""
    items = List()
    items.append(item)
    return items


@numba.njit(cache=True)
def append_to(items, item):
    items.append(item)


def typed_list(items):
    """`List(items)` for a non-empty sequence, by the cached kernels above."""
    out = list_of(items[0])
    for item in items[1:]:
        append_to(out, item)
    return out
