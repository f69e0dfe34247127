"""Stretches of frames with the scene's fsm controllers ticking inside the kernel.

`advance_with_machines` is `advance_frames_of` (pipeline/physics/frames.py) one frame at a
time with the machines (pipeline/control/fsm_machines.py) ticking at every frame start but
the first, whose tick ran at the Python boundary before the call, in scene order with the
Python controllers. Each frame's energy balance starts after its tick (a new servo target
or spring rest changes the stored energy; the tick is no work the balance should count).
The trace gets, after q and qd, every machine's channels. `Machines` is the Python side: a
Simulation's tables, sensor scratch and the tick at a boundary.
"""
from __future__ import annotations

import copy

import numba
import numpy as np

from pipeline.control.commands import located
from pipeline.control.fsm_code import OK, error_message
from pipeline.control.fsm_machines import channels, control, machine_tables
from pipeline.errors import CorpusError
from pipeline.physics import sensing
from pipeline.physics.frames import GAINED, advance_frame_of, first_traced, trace_start
from pipeline.physics.step import OK as STEP_OK

CONTROL_ERROR = GAINED + 1  # a status beyond frames.py's: fail = [time, machine, error code]


@numba.njit(cache=True)
def advance_with_machines(tables, live, mt, sens, slots, states, stack, method, dt, frame0,
                          nframes, h, atol, rtol, h_min, h_max, y, cstate, counters, hstate,
                          fail, ev_log, ev_count, limits, balance, margin, every, trace, done):
    """Frames frame0 .. frame0 + nframes - 1 as advance_frames_of advances them, the
    machines ticking at each frame start but the first. With every > 0 the starts inside
    the stretch whose number is a multiple of every go into trace (q, qd, then the
    channels). CONTROL_ERROR when a tick fails (fail = [time, machine, error code])."""
    done[0] = 0
    done[1] = 0
    row = np.empty(mt.chan.shape[0])
    traced = first_traced(frame0, every, 0)
    for f in range(nframes):
        g = frame0 + f
        if f > 0:
            t = g * dt
            if not tick_machines(mt, 0, states.shape[0], sens, t, dt, y, cstate, live, slots, states, stack, fail):
                return CONTROL_ERROR
            if f == traced and done[1] < trace.shape[0]:
                traced += every
                channels(mt, slots, states, row)
                trace_start(trace, done, y, row)
        status = advance_frame_of(tables, live, method, dt, g, h, atol, rtol, h_min, h_max, y, cstate, counters,
                                  hstate, fail, ev_log, ev_count, limits, balance, margin, done)
        if status != STEP_OK:  # a stop event or a failure
            return status
    return STEP_OK


@numba.njit(cache=True)
def tick_machines(mt, p0, p1, sens, t, dt, y, cstate, live, slots, states, stack, fail) -> bool:
    """Machines p0 .. p1 - 1 tick at time t (fsm_machines.control); False when one failed,
    with fail = [time, machine, error code]."""
    p, err = control(mt, p0, p1, sens, t, dt, y, cstate, live.forces, live.ctrl, slots, states, stack)
    if err == OK:
        return True
    fail[0] = t
    fail[1] = p
    fail[2] = err
    return False


class Machines:
    """A Simulation's fsm controllers in the step loop: their tables (pipeline/control/
    fsm_machines.py), built once from the first controllers made, and the sensor scratch
    of this Simulation (a fork makes its own). Their slots and states are run state, in
    Data (`machine_slots`, `machine_states`)."""

    def __init__(self, sim, controllers):
        self.tables = machine_tables(sim, controllers)
        self.initial_slots = np.concatenate([c.program.initial_values for c in controllers])
        self.initial_states = np.array([c.program.initial_state for c in controllers], np.int64)
        self.names = [name for c in controllers for name in c.channel_names()]
        self.labels = [(c.name, c.where) for c in controllers]
        self._scratch(sim)

    def _scratch(self, sim) -> None:
        self.sens = sensing.scratch_sensor_tables(sim.model, sim._cstate0)
        self.stack = np.empty(max(self.tables.code.stack, 1))

    def fork(self, sim) -> "Machines":
        twin = copy.copy(self)
        twin.tables = self.tables._replace(tau=np.zeros_like(self.tables.tau))
        twin._scratch(sim)
        return twin

    def tick(self, sim, p: int) -> None:
        """Machine p's tick at sim's current state (its frame boundary)."""
        d = sim.data
        p_failed, err = control(self.tables, p, p + 1, self.sens, d.time, sim.dt, d.y, d.cstate, d.forces,
                         d.ctrl, d.machine_slots, d.machine_states, self.stack)
        if err != OK:
            raise self.error(p_failed, err, d.time)

    def publish(self, data) -> None:
        """Every machine's channels (`<controller>_state`, `<controller>_<variable>`) now."""
        out = np.empty(len(self.names))
        channels(self.tables, data.machine_slots, data.machine_states, out)
        data.channels.update(zip(self.names, out.tolist()))

    def error(self, p: int, code: int, t: float) -> CorpusError:
        """The located error of machine p's failed tick at time t (what Python's float
        arithmetic would have raised for the same operation)."""
        name, where = self.labels[p]
        return CorpusError(located(f"fsm controller {name!r}: {error_message(code)} in an "
                                       f"expression at t = {t:.6g} s", where))
