"""The scene's fsm controllers in the step loop (pipeline/control/controlled_frames.py).

`tick_machines` ticks machines (pipeline/control/fsm_machines.py) at a frame start inside
the kernel, in scene order with the Python controllers. Each frame's energy balance starts
after its tick (a new servo target or spring rest changes the stored energy; the tick is no
work the balance should count). `Machines` is the Python side: a Simulation's tables, sensor
scratch and the tick at a boundary.
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
from pipeline.physics.frames import GAINED

CONTROL_ERROR = GAINED + 1  # a status beyond frames.py's: fail = [time, machine, error code]


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
