"""Many frames in one numba call: the step loop of frames whose boundaries need no Python.

A frame boundary needs Python only for controllers and due timeline commands; between them
`advance_frames` covers frame after frame in the kernel, with the runaway check of
pipeline/runaway.py after each (every component of y within its bound `limits`, NaN
failing too), and records the frames a run records into a trace, so a scene without
controllers pays no interpreter time per frame and no re-unboxing of its arrays.
`rollout` (pipeline/physics/rollout.py) runs it for many states in parallel.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba.experimental import structref

from pipeline.nrt import copy_into, njit_no_refcounts
from pipeline.physics.derivative import Live
from pipeline.physics.energy import input_work, mechanical_energy, push_power
from pipeline.physics.step import OK, advance
from pipeline.physics.structs import Struct

RUNAWAY = 4  # a status beyond step.py's: fail = [time, component of y beyond its bound]
GAINED = 5  # and another: fail = [time, energy gained] (pipeline/physics/energy.py)
# balance (a run's, in Data): energy gained that no input gave, and the energy the balance
# moved (input work and dissipation, in absolute value; what its trapezoids' errors scale with)
GAIN, FLOW = range(2)


@njit_no_refcounts
def first_beyond(y, limits):
    for i in range(y.shape[0]):
        if not abs(y[i]) <= limits[i]:
            return i
    return -1


@njit_no_refcounts
def first_traced(frame0, every, phase):
    """The least k >= 1 with (frame0 + k) % every == phase, or -1 when every is 0."""
    if every <= 0:
        return -1
    k = (phase - frame0) % every
    return k if k > 0 else every


@njit_no_refcounts
def advance_frames(st, lv, wk, method, dt, frame0, nframes, h, atol, rtol, h_min, h_max, y,
                   cstate, counters, hstate, fail, events, ev_log, ev_count, limits, balance,
                   margin, every, phase, trace, done):
    """Advance frames frame0 .. frame0 + nframes - 1 (frame f covers [f dt, (f + 1) dt],
    as Simulation._integrate does). done[0] counts the frames completed; on a STOP event
    (EVENT) or a failure the frame that ended it counts as completed, fail is set as by
    `advance`, and RUNAWAY reports fail = [time, component] of the first bound crossed.
    Unless margin[0] is infinite, every frame adds to balance[GAIN] the energy it gained
    that nothing gave it (pipeline/physics/energy.py) and GAINED reports fail = [time,
    gain] when that passes margin[0] + margin[1] balance[FLOW] (pipeline/runaway.py).
    The state after frame g = frame0 + f + 1, its first trace.shape[1] components, goes into
    the next row of trace when g % every == phase (every > 0), while rows are left; done[1]
    counts the rows written (the caller sizes trace to the records it wants)."""
    done[0] = 0
    done[1] = 0
    t = frame0 * dt
    weigh = margin[0] < math.inf
    e0 = d0 = p0 = 0.0
    if weigh:
        e0, d0 = mechanical_energy(st.tree, lv.gravity, lv.forces, st.dof_qpos, st.nq, y, wk.dyn)
        p0 = push_power(lv.pushes, t, t + dt, wk.dyn)
        copy_into(y, wk.y_frame)
    # the first f + 1 to trace; counting, not a modulo per frame: with `%` in the loop (its
    # zero-divisor branch) the box_drop scene's frames took twice as long
    traced = first_traced(frame0, every, phase)
    for f in range(nframes):
        wk.motor_work[0] = 0.0
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
        if weigh:
            e1, d1 = mechanical_energy(st.tree, lv.gravity, lv.forces, st.dof_qpos, st.nq, y,
                                       wk.dyn)
            p1 = push_power(lv.pushes, t, t1, wk.dyn)
            w_in = input_work(lv.forces, lv.ctrl, st.dof_qpos, st.nq, wk.y_frame, y, dt) + wk.motor_work[0]
            w_push = 0.5 * (p0 + p1) * dt
            dissipated = 0.5 * (d0 + d1) * dt
            balance[GAIN] += e1 - e0 - w_in - w_push + dissipated
            balance[FLOW] += abs(w_in) + abs(w_push) + dissipated
            if balance[GAIN] > margin[0] + margin[1] * balance[FLOW]:
                fail[0] = t1
                fail[1] = balance[GAIN]
                return GAINED
            e0, d0 = e1, d1
            p0 = push_power(lv.pushes, t1, t1 + dt, wk.dyn)
            copy_into(y, wk.y_frame)
        if f + 1 == traced and done[1] < trace.shape[0]:
            traced += every
            for i in range(trace.shape[1]):
                trace[done[1], i] = y[i]
            done[1] += 1
        t = t1
    return OK


@structref.register
class StepTablesType(Struct):
    pass


@structref.register
class LiveRefType(Struct):
    pass


class StepTables(structref.StructRefProxy):
    """What a Simulation hands every `advance_frames` call unchanged: its Statics, its step
    workspace (derivative.Work) and its event table, as one object (pipeline/physics/
    structs.py): a humanoid's 150-odd arrays cost 20 us a call to unbox, a fifth of a
    walking biped's frame."""


class LiveRef(structref.StructRefProxy):
    """A derivative.Live as one object, for the same reason; made again whenever one of its
    arrays is replaced (Python writes into them in place between frames)."""


# ("st" would clash with the constructor numba generates, whose struct variable is st)
structref.define_proxy(StepTables, StepTablesType, ["statics", "work", "events"])
structref.define_proxy(LiveRef, LiveRefType, list(Live._fields))


@numba.njit(cache=True)
def new_step_tables(statics, work, events):
    """StepTables(statics, work, events), made by a cached kernel (structs.py)."""
    return StepTables(statics, work, events)


@numba.njit(cache=True)
def new_live_ref(forces, gravity, ctrl, motor_active, motor_target, motor_vel, motor_end,
                 pushes, qdd_prescribed):
    """LiveRef(*live), made by a cached kernel (structs.py)."""
    return LiveRef(forces, gravity, ctrl, motor_active, motor_target, motor_vel, motor_end,
                   pushes, qdd_prescribed)


@numba.njit(cache=True)  # counts references (pipeline/physics/structs.py)
def advance_frames_of(tables, live, method, dt, frame0, nframes, h, atol, rtol, h_min, h_max,
                      y, cstate, counters, hstate, fail, ev_log, ev_count, limits, balance,
                      margin, every, phase, trace, done):
    """`advance_frames` with a Simulation's StepTables and LiveRef."""
    lv = Live(live.forces, live.gravity, live.ctrl, live.motor_active, live.motor_target,
              live.motor_vel, live.motor_end, live.pushes, live.qdd_prescribed)
    return advance_frames(tables.statics, lv, tables.work, method, dt, frame0, nframes, h, atol,
                          rtol, h_min, h_max, y, cstate, counters, hstate, fail, tables.events,
                          ev_log, ev_count, limits, balance, margin, every, phase, trace, done)


@numba.njit(cache=True)
def advance_frame_of(tables, live, method, dt, g, h, atol, rtol, h_min, h_max, y, cstate, counters, hstate, fail,
                     ev_log, ev_count, limits, balance, margin, done):
    """Frame g alone by `advance_frames_of`, counted in done[0]: the step of the loops whose
    controllers tick at every frame start (pipeline/control/fsm_frames.py, biped_frames.py)."""
    part = np.zeros(2, np.int64)
    status = advance_frames_of(tables, live, method, dt, g, 1, h, atol, rtol, h_min, h_max, y, cstate, counters,
                               hstate, fail, ev_log, ev_count, limits, balance, margin, 0, 0, np.empty((0, 0)), part)
    done[0] += part[0]
    return status


@numba.njit(cache=True)
def trace_start(trace, done, y, channels):
    """Row done[1] of such a loop's trace: q and qd from y, then the controllers' channels."""
    nqv = trace.shape[1] - channels.shape[0]
    for i in range(nqv):
        trace[done[1], i] = y[i]
    for i in range(channels.shape[0]):
        trace[done[1], nqv + i] = channels[i]
    done[1] += 1
