"""Many frames in one numba call: the step loop of frames whose boundaries need no Python.

A frame boundary needs Python only for controllers and due timeline commands; between them
`advance_frames` covers frame after frame in the kernel, with the runaway check of
pipeline/runaway.py after each (every component of y within its bound `limits`, NaN
failing too), so a scene without controllers pays no interpreter time per frame and no
re-unboxing of its arrays. `rollout` (pipeline/physics/rollout.py) runs it for many states
in parallel.
"""
from __future__ import annotations

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.step import OK, advance

RUNAWAY = 4  # a status beyond step.py's: fail = [time, component of y beyond its bound]


@numba.njit(cache=True)
def first_beyond(y, limits):
    for i in range(y.shape[0]):
        if not abs(y[i]) <= limits[i]:
            return i
    return -1


@njit_no_refcounts
def advance_frames(st, lv, wk, method, dt, frame0, nframes, h, atol, rtol, h_min, h_max, y,
                   cstate, counters, hstate, fail, events, ev_log, ev_count, limits, done):
    """Advance frames frame0 .. frame0 + nframes - 1 (frame f covers [f dt, (f + 1) dt],
    as Simulation._integrate does). done[0] counts the frames completed; on a STOP event
    (EVENT) or a failure the frame that ended it counts as completed, fail is set as by
    `advance`, and RUNAWAY reports fail = [time, component] of the first bound crossed."""
    done[0] = 0
    t = frame0 * dt
    for f in range(nframes):
        t1 = (frame0 + f + 1) * dt
        status = advance(st, lv, wk, method, t, t1, h, atol, rtol, h_min, h_max, y, cstate,
                         counters, hstate, fail, events, ev_log, ev_count)
        done[0] = f + 1
        if status != OK:  # a stop event or a failure
            return status
        bad = first_beyond(y, limits)
        if bad >= 0:
            fail[0] = t1
            fail[1] = bad
            return RUNAWAY
        t = t1
    return OK
