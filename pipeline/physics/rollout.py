"""Batched rollouts: many runs stepped in one numba call, in parallel over the cores.

Run i reads the model tables sts[model[i]] and the live inputs lvs[i] (its own copy: a
committed step writes the motor columns), and integrates its own rows of Y and CS; thread t
works through the runs t, t + nt, ... with the scratch wks[t]. So N states of one model
(every model[i] = 0) and N models of one shape (the same array layout, model[i] = i) are the
same call. The frames are those of `advance_frames` (pipeline/physics/frames.py): no Python
at any frame start, the runaway checks of every frame in the kernel. y is recorded every
`every` frames (the start included) into traj[i, k], by advance_frames' trace; a run that
fails or stops repeats its last state in the records after it.
"""
from __future__ import annotations

import numba
import numpy as np

from pipeline.physics.frames import advance_frames


@numba.njit(parallel=True, cache=True)
def rollout(sts, model, lvs, wks, method, dt, frame0, nframes, every, h, atol, rtol, h_min,
            h_max, Y, CS, counters, hstate, fail, status, done, events, ev_log, ev_count,
            limits, balance, margins, traj):
    """Advance every run nframes frames from frame0; status[i] and done[i] as
    advance_frames' for run i (its frames completed), fail[i] its failure."""
    n = Y.shape[0]
    nt = len(wks)
    for tp in numba.prange(nt):
        t = np.int64(tp)  # prange counts in uint64; typed lists index with int64
        wk = wks[t]
        part = np.zeros(2, np.int64)
        for i in range(t, n, nt):
            traj[i, 0, :] = Y[i]
            status[i] = advance_frames(sts[model[i]], lvs[i], wk, method, dt, frame0, nframes, h,
                                       atol, rtol, h_min, h_max, Y[i], CS[i], counters[i],
                                       hstate[i], fail[i], events, ev_log[i], ev_count[i], limits,
                                       balance[i], margins[i], every, frame0 % every,
                                       traj[i, 1:], part)
            done[i] = part[0]
            for j in range(part[1] + 1, traj.shape[1]):  # a failed or stopped run's: its last state
                traj[i, j, :] = Y[i]
