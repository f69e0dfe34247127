"""Stretches of frames with fsm machines and `biped_walk` controllers both ticking inside the
kernel, for scenes that have both.

`advance_with_machines_and_bipeds` is `advance_with_machines` (fsm_frames.py) and
`advance_with_bipeds` (biped_frames.py) in one loop. At each frame start but the first the
controllers tick in scene order, as a frame boundary ticks them from Python: `order` lists
the runs of consecutive machines or bipeds, so a machine that reads a joint force sees the
torques of the bipeds before it in the scene and not of those after. The bipeds' kinematics
and contact pass comes first: machines write servo targets, rests and joint forces, never
q, qd or the contact state that pass reads. The trace gets, after q and qd, the machines'
channels, then the bipeds'.
"""
from __future__ import annotations

import numba
import numpy as np

from pipeline.control.biped_frames import Bipeds, pack, sense_bipeds, tick_bipeds, unpack
from pipeline.control.biped_walk_controller import BipedWalk
from pipeline.control.fsm_controller import FsmController
from pipeline.control.fsm_frames import CONTROL_ERROR, tick_machines
from pipeline.control.fsm_machines import channels
from pipeline.physics.frames import advance_frame_of, first_traced, trace_start
from pipeline.physics.step import OK as STEP_OK

MACHINES, BIPEDS = 0, 1  # the kinds of `order`'s runs


@numba.njit(cache=True)
def advance_with_machines_and_bipeds(tables, live, mt, msens, slots, mstates, stack, bt, bsens, bstates, rows,
                                     strikes, nstrikes, order, method, dt, frame0, nframes, h, atol, rtol, h_min,
                                     h_max, y, cstate, counters, hstate, fail, ev_log, ev_count, limits, balance,
                                     margin, every, trace, done):
    """Frames frame0 .. frame0 + nframes - 1 as advance_frames_of advances them, the runs
    order[e] = (kind, first, end) of machines or bipeds ticking in turn at each frame start
    but the first (the machines as advance_with_machines ticks them, the bipeds as
    advance_with_bipeds does). CONTROL_ERROR when a machine's tick fails."""
    done[0] = 0
    done[1] = 0
    nstrikes[:] = 0
    nm = mt.chan.shape[0]
    row = np.empty(nm + rows.size)
    traced = first_traced(frame0, every, 0)
    for f in range(nframes):
        g = frame0 + f
        if f > 0:
            t = g * dt
            sense_bipeds(bsens, t, y, cstate, live.ctrl.shape[0])
            for e in range(order.shape[0]):
                if order[e, 0] == BIPEDS:
                    tick_bipeds(bt, order[e, 1], order[e, 2], bsens, t, dt, live, bstates, rows, strikes, nstrikes)
                    continue
                if not tick_machines(mt, order[e, 1], order[e, 2], msens, t, dt, y, cstate, live, slots, mstates,
                                     stack, fail):
                    return CONTROL_ERROR
            if f == traced and done[1] < trace.shape[0]:
                traced += every
                channels(mt, slots, mstates, row[:nm])
                row[nm:] = rows.ravel()
                trace_start(trace, done, y, row)
        status = advance_frame_of(tables, live, method, dt, g, h, atol, rtol, h_min, h_max, y, cstate, counters,
                                  hstate, fail, ev_log, ev_count, limits, balance, margin, done)
        if status != STEP_OK:  # a stop event or a failure
            return status
    return STEP_OK


def scene_order(controllers) -> np.ndarray:
    """The runs (kind, first, end) of consecutive machines or bipeds among `controllers`, in
    scene order (other controllers, which tick from Python, do not split a run)."""
    runs, counts = [], [0, 0]
    for c in controllers:
        kind = MACHINES if isinstance(c, FsmController) else BIPEDS if isinstance(c, BipedWalk) else None
        if kind is None:
            continue
        if runs and runs[-1][0] == kind:
            runs[-1][2] += 1
        else:
            runs.append([kind, counts[kind], counts[kind] + 1])
        counts[kind] += 1
    return np.array(runs, np.int64).reshape(-1, 3)


class MachinesAndBipeds:
    """A Simulation's fsm machines (fsm_frames.Machines) and bipeds (biped_frames.Bipeds) when
    a scene has both: one step loop ticks them in scene order."""

    def __init__(self, machines, bipeds: Bipeds, order: np.ndarray):
        self.machines, self.bipeds, self.order = machines, bipeds, order
        self.names = machines.names + bipeds.names

    def fork(self, machines, bipeds: Bipeds) -> "MachinesAndBipeds":
        return MachinesAndBipeds(machines, bipeds, self.order)

    def advance(self, sim, args, trace, done) -> int:
        """`advance_with_machines_and_bipeds` over the frames of args (Simulation._integrate's)."""
        walkers = Bipeds.walkers(sim.data)
        packed = pack(walkers, args[3])
        m, b, d = self.machines, self.bipeds, sim.data
        try:
            return advance_with_machines_and_bipeds(sim._tables, sim._live_ref(), m.tables, m.sens, d.machine_slots,
                                                    d.machine_states, m.stack, b.tables, b.sens, *packed,
                                                    self.order, *args, trace, done)
        finally:
            unpack(walkers, *packed)

    def publish(self, data) -> None:
        self.machines.publish(data)
        self.bipeds.publish(data)
