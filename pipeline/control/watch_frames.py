"""Stretches of frames that end where a watched joint would wake a Python controller.

A controller whose frame starts are quiet unless a joint angle crosses a level upward or a
joint's force falls to a level (McKenna's step and load reflexes, pipeline/control/gait.py)
hands `Watch` rows to the Simulation with its quiet frames. `advance_watching` is
`advance_frames_of` one frame at a time, reading them at every frame start but the first as
the controller would read its sensors there, and stops before the first start where one
wakes (status WOKEN, done[0] the frames done), so that frame's boundary runs the controller.

ANGLE rows (q component `index`, `sign`, `level`) keep their side sign (q - level) of the last
start read in `side` and wake, if `wakes`, when it passes from <= 0 to > 0; FORCE rows (DOF
`index`) wake, if `wakes`, when |joint force| is no longer above `level`. A start where a row
wakes leaves every side as it was at the start before, the one the controller compares with.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from pipeline.control.fsm_frames import CONTROL_ERROR
from pipeline.physics.forces import joint_forces
from pipeline.physics.frames import advance_frame_of, first_traced, trace_start
from pipeline.physics.step import OK as STEP_OK

ANGLE, FORCE = 0, 1
WOKEN = CONTROL_ERROR + 1  # a status beyond the loops': a watch woke, nothing failed


class Watch(NamedTuple):
    """Rows of watched joints (module doc); `side` is the controller's own array, which the
    kernel moves on."""
    kind: np.ndarray  # int64: ANGLE | FORCE
    index: np.ndarray  # int64: q component (ANGLE) or DOF (FORCE)
    wakes: np.ndarray  # bool: whether the row may wake the controller in this stretch
    sign: np.ndarray
    level: np.ndarray
    side: np.ndarray


@numba.njit(cache=True)
def woken(kind, index, wakes, sign, level, side, y, live, dof_qpos, tau) -> bool:
    """Whether a row wakes at the frame start whose state is y; if none does, every ANGLE
    row's side becomes this start's."""
    nv = live.ctrl.shape[0]
    nq = y.shape[0] - 2 * nv
    if np.any(kind == FORCE):
        joint_forces(live.forces, dof_qpos, y[:nq], y[nq:nq + nv], y[nq + nv:], live.ctrl, tau)
    for r in range(kind.shape[0]):
        if not wakes[r]:
            continue
        if kind[r] == ANGLE:
            if side[r] <= 0 and sign[r] * (y[index[r]] - level[r]) > 0:
                return True
        elif not abs(tau[index[r]]) > level[r]:
            return True
    for r in range(kind.shape[0]):
        if kind[r] == ANGLE:
            side[r] = sign[r] * (y[index[r]] - level[r])
    return False


@numba.njit(cache=True)
def advance_watching(tables, live, kind, index, wakes, sign, level, side, dof_qpos, tau, method, dt, frame0,
                     nframes, h, atol, rtol, h_min, h_max, y, cstate, counters, hstate, fail, ev_log, ev_count,
                     limits, balance, margin, every, trace, done):
    """Frames frame0 .. frame0 + nframes - 1 as advance_frames_of advances them, the watch
    rows read at each frame start but the first; WOKEN before the first start where one
    wakes. With every > 0 the starts inside the stretch whose number is a multiple of every
    go into trace (q, qd)."""
    done[0] = 0
    done[1] = 0
    nothing = np.empty(0)
    traced = first_traced(frame0, every, 0)
    for f in range(nframes):
        g = frame0 + f
        if f > 0:
            if woken(kind, index, wakes, sign, level, side, y, live, dof_qpos, tau):
                return WOKEN
            if f == traced and done[1] < trace.shape[0]:
                traced += every
                trace_start(trace, done, y, nothing)
        status = advance_frame_of(tables, live, method, dt, g, h, atol, rtol, h_min, h_max, y, cstate, counters,
                                  hstate, fail, ev_log, ev_count, limits, balance, margin, done)
        if status != STEP_OK:  # a stop event or a failure
            return status
    return STEP_OK


def join(watches: list[Watch]) -> Watch:
    """The rows of several controllers' watches as one (their sides copied: `split` puts
    them back)."""
    return Watch(*(np.concatenate([getattr(w, f) for w in watches]) for f in Watch._fields))


def split(joined: Watch, watches: list[Watch]) -> None:
    """The sides the kernel reached back into each controller's own array."""
    start = 0
    for w in watches:
        w.side[:] = joined.side[start:start + w.side.shape[0]]
        start += w.side.shape[0]
