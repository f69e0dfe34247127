"""Runs of frames in one kernel call: each frame the creatures' machines (pipeline/particles/
machines.py), then the integrator with its floor events (integrators.advance), the runaway
check (pipeline/runaway.py's bounds) and every `every`-th frame a record and the stop
condition. `run_frames` is one run; `run_batch` runs many runs of one model in one call, each
with its own state, machines' memory, actuated forces and records, without the GIL (numba's
`prange` cannot hand the model's named tuples of arrays to its threads; Python threads can).

A frame is exactly what ParticleSimulation.step did with the machines in Python: the same
operations in the same order, so a run is the same to the bit.
"""
from __future__ import annotations

import numba
import numpy as np

from pipeline.control.fsm_code import OK
from pipeline.nrt import njit_no_refcounts
from pipeline.particles.arrays import Live
from pipeline.particles.integrators import WORK, copy_rows, advance
from pipeline.particles.machines import control

# how a call ended
DONE, STOPPED, RUNAWAY, HORIZON, CONTROL_ERROR = range(5)


@njit_no_refcounts
def _first_beyond(pos, vel, limits):
    """RunawayBounds.first_beyond of the state (pos, vel) stacked, without stacking it."""
    n = pos.shape[0]
    for i in range(n):
        for k in range(3):
            if not abs(pos[i, k]) <= limits[3 * i + k]:
                return 3 * i + k
    for i in range(n):
        for k in range(3):
            if not abs(vel[i, k]) <= limits[3 * (n + i) + k]:
                return 3 * (n + i) + k
    return -1


@njit_no_refcounts
def _record(r, t, pos, vel, slots, states, var_slots, rec_time, rec_pos, rec_vel, rec_state, rec_var):
    rec_time[r] = t
    copy_rows(pos, rec_pos[r])
    copy_rows(vel, rec_vel[r])
    for k in range(states.shape[0]):
        rec_state[r, k] = states[k]
    for k in range(var_slots.shape[0]):
        rec_var[r, k] = slots[var_slots[k]]


@njit_no_refcounts
def _stopped(pos, stop):
    """stop = (body, axis, level, rising): body < 0 is no stop condition."""
    body = int(stop[0])
    if body < 0:
        return False
    v = pos[body, int(stop[1])]
    return v > stop[2] if stop[3] != 0.0 else v < stop[2]


@njit_no_refcounts
def _release(pos, vel, members, source, jitter):
    """Recycle the topmost bubble of a column to its source, offset by jitter, at rest."""
    top = members[0]
    for i in members:
        if i >= 0 and pos[i, 2] > pos[top, 2]:
            top = i
    pos[top, 0] = source[0] + jitter[0]
    pos[top, 1] = source[1] + jitter[1]
    pos[top, 2] = source[2] + 0.0
    vel[top, :] = 0.0


@numba.njit(cache=True)
def scratch(m, c):
    """The scratch arrays `run_frames` takes: the machines' expression stack, the integrator's
    workspace."""
    return np.empty(max(c.code.stack, 1)), np.empty((WORK, m.mass.shape[0], 3))


@njit_no_refcounts
def run_frames(m, c, live, method, pos, vel, t, frame, dt, substep, nsub, counters, slots, states,
               nframes, limits, horizon, record_first, every, stop, var_slots,
               rec_time, rec_pos, rec_vel, rec_state, rec_var, columns, sources, releases, jitter,
               stack, work):
    """Up to `nframes` frames from time t and frame number `frame`, in place on pos, vel,
    live, counters, slots and states. Between the machines and the integrator, bubble
    column j (members `columns[j]`, padded with -1; source `sources[j]`) releases
    releases[f, j] bubbles in frame f, offset by the next rows of `jitter` (drawn in Python:
    pipeline/particles/spawners.py). Records (when every > 0) the starting frame if
    `record_first`, and each frame whose number is a multiple of `every`, into the rec_*
    rows from 0; a record that meets `stop` ends the call. `limits` bound the state (NaN
    fails them) for checks at times up to `horizon`: a frame ending later is not taken.

    `stack` and `work` are scratch (`scratch(m, c)`).

    Returns (status, frames done, t, frame, records written, control error code)."""
    floor_z = m.floor[0]
    nrec = 0
    drawn = 0
    if record_first and every > 0 and frame % every == 0:
        _record(0, t, pos, vel, slots, states, var_slots, rec_time, rec_pos, rec_vel, rec_state, rec_var)
        nrec = 1
        if _stopped(pos, stop):
            return STOPPED, 0, t, frame, nrec, OK
    for f in range(nframes):
        t_next = t + dt
        if t_next > horizon:
            return HORIZON, f, t, frame, nrec, OK
        err = control(c, pos, vel, floor_z, t, dt, slots, states, stack, live)
        if err != OK:
            return CONTROL_ERROR, f, t, frame, nrec, err
        for j in range(columns.shape[0]):
            for _ in range(releases[f, j]):
                _release(pos, vel, columns[j], sources[j], jitter[drawn])
                drawn += 1
        advance(m, live, method, pos, vel, t, substep, nsub, counters, work)
        t = t_next
        frame += 1
        if _first_beyond(pos, vel, limits) >= 0:
            return RUNAWAY, f + 1, t, frame, nrec, OK
        if every > 0 and frame % every == 0:
            _record(nrec, t, pos, vel, slots, states, var_slots, rec_time, rec_pos, rec_vel, rec_state, rec_var)
            nrec += 1
            if _stopped(pos, stop):
                return STOPPED, f + 1, t, frame, nrec, OK
    return DONE, nframes, t, frame, nrec, OK


@numba.njit(cache=True, nogil=True)
def run_batch(m, c, sp_rest, an_rest, tq_torque, cf_mag, method, pos, vel, t, frame, dt, substep, nsub,
              counters, slots, states, nframes, limits, horizon, record_first, every, stop, var_slots,
              rec_time, rec_pos, rec_vel, rec_state, rec_var, nrec, active, status, errors, columns,
              sources, releases, jitter):
    """`run_frames` for every run k with active[k], one after another without the GIL (so
    batches in other threads run at the same time): its state, live forces (rows of sp_rest,
    an_rest, tq_torque, cf_mag), machines' memory, records and bubble releases are row k of
    each array; it records from row nrec[k] on. Updates t, frame, nrec and sets status[k]
    and errors[k]."""
    stack, work = scratch(m, c)
    for k in range(pos.shape[0]):
        if not active[k]:
            continue
        live = Live(sp_rest[k], an_rest[k], tq_torque[k], cf_mag[k])
        r = nrec[k]
        s, _, tk, fk, written, err = run_frames(
            m, c, live, method, pos[k], vel[k], t[k], frame[k], dt, substep, nsub, counters[k], slots[k],
            states[k], nframes, limits, horizon, record_first, every, stop, var_slots, rec_time[k, r:],
            rec_pos[k, r:], rec_vel[k, r:], rec_state[k, r:], rec_var[k, r:], columns, sources, releases[k],
            jitter[k], stack, work)
        t[k] = tk
        frame[k] = fk
        nrec[k] = r + written
        status[k] = s
        errors[k] = err
