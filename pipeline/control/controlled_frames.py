"""The one step loop of frames whose starts tick controllers inside the kernel.

`advance_controlled` is `advance_frames_of` (pipeline/physics/frames.py) one frame at a time
with, at every frame start but the first (whose tick ran at the Python boundary before the
call):
- the watched joints of the Python controllers (watch_frames.py) read first, the stretch
  ending before the start where one wakes (WOKEN);
- one kinematics and contact pass for the bipeds (biped_frames.py);
- the fsm machines (fsm_frames.py) and the bipeds ticking in scene order: `order` lists the
  runs of consecutive machines or bipeds, so a machine that reads a joint force sees the
  torques of the bipeds before it in the scene and not of those after. The bipeds' pass comes
  first: machines write servo targets, rests and joint forces, never q, qd or the contact
  state that pass reads.
A scene without one of the kinds passes None for it, and numba compiles that kind's code out
of the loop (it prunes branches on arguments that are None). The trace gets, after q and qd,
the machines' channels, then the bipeds'.

`advance_in_kernel` is the Python side of a call; `InKernel` holds a Simulation's machines
and bipeds.
"""
from __future__ import annotations

import numba
import numpy as np

from pipeline.control.biped_frames import Bipeds, pack, sense_bipeds, tick_bipeds, unpack
from pipeline.control.biped_walk_controller import BipedWalk
from pipeline.control.fsm_controller import FsmController
from pipeline.control.fsm_frames import CONTROL_ERROR, tick_machines
from pipeline.control.fsm_machines import channels
from pipeline.control.watch_frames import FORCE, WOKEN, join, split, woken
from pipeline.physics.frames import advance_frame_of, first_traced, trace_start
from pipeline.physics.step import OK as STEP_OK

MACHINES, BIPEDS = 0, 1  # the kinds of `order`'s runs


@numba.njit(cache=True)
def advance_controlled(tables, live, machines, bipeds, order, watch, method, dt, frame0, nframes, h, atol, rtol,
                       h_min, h_max, y, cstate, counters, hstate, fail, ev_log, ev_count, limits, balance, margin,
                       every, trace, done):
    """Frames frame0 .. frame0 + nframes - 1 as advance_frames_of advances them, the
    controllers ticking at each frame start but the first (module doc). machines is None or
    (tables, sensor scratch, slots, states, stack): CONTROL_ERROR when a tick fails (fail =
    [time, machine, error code]); bipeds None or (tables, sensor scratch, states, rows,
    strikes, nstrikes): biped k ticks on states[k], rows[k] holds its channels of the last
    tick, strikes[k, :nstrikes[k]] its foot-strikes (time, stance side, x, y); watch None or
    the Watch rows, dof_qpos and a joint-force scratch. With every > 0 the starts inside the
    stretch whose number is a multiple of every go into trace."""
    done[0] = 0
    done[1] = 0
    nm = 0
    if machines is not None:
        nm = machines[0].chan.shape[0]
    nc = nm
    if bipeds is not None:
        bipeds[5][:] = 0
        nc += bipeds[3].size
    row = np.empty(nc)
    forces = False
    if watch is not None:
        forces = np.any(watch[0] == FORCE)
    traced = first_traced(frame0, every, 0)
    for f in range(nframes):
        g = frame0 + f
        if f > 0:
            t = g * dt
            if watch is not None:
                kind, index, wakes, sign, level, side, dof_qpos, tau = watch
                if woken(kind, index, wakes, sign, level, side, forces, y, live, dof_qpos, tau):
                    return WOKEN
            if bipeds is not None:
                sense_bipeds(bipeds[1], t, y, cstate, live.ctrl.shape[0])
            for e in range(order.shape[0]):
                if order[e, 0] == BIPEDS:
                    if bipeds is not None:
                        bt, bsens, bstates, rows, strikes, nstrikes = bipeds
                        tick_bipeds(bt, order[e, 1], order[e, 2], bsens, t, dt, live, bstates, rows, strikes,
                                    nstrikes)
                elif machines is not None:
                    mt, msens, slots, mstates, stack = machines
                    if not tick_machines(mt, order[e, 1], order[e, 2], msens, t, dt, y, cstate, live, slots,
                                         mstates, stack, fail):
                        return CONTROL_ERROR
            if f == traced and done[1] < trace.shape[0]:
                traced += every
                if machines is not None:
                    channels(machines[0], machines[2], machines[3], row[:nm])
                if bipeds is not None:
                    row[nm:] = bipeds[3].ravel()
                trace_start(trace, done, y, row)
        status = advance_frame_of(tables, live, method, dt, g, h, atol, rtol, h_min, h_max, y, cstate, counters,
                                  hstate, fail, ev_log, ev_count, limits, balance, margin, done)
        if status != STEP_OK:  # a stop event or a failure
            return status
    return STEP_OK


@numba.njit(parallel=True, cache=True)
def rollout_bipeds(tabs, lives, bts, senss, states, rows, strikes, nstrikes, order, method, dt, frame0, nframes, h,
                   atol, rtol, h_min, h_max, Y, CS, counters, hstate, fail, ev_log, ev_count, limits, balance,
                   margins, every, traces, done, status):
    """advance_controlled with bipeds alone for every run i, in parallel: each on its own
    step tables, live inputs, biped tables and sensor scratch (tabs[i], lives[i], bts[i],
    senss[i]) and its own rows of the other arrays; status[i] its outcome."""
    for ip in numba.prange(Y.shape[0]):
        i = np.int64(ip)  # prange counts in uint64; typed lists index with int64
        status[i] = advance_controlled(tabs[i], lives[i], None, (bts[i], senss[i], states[i], rows[i], strikes[i],
                                                                 nstrikes[i]), order, None, method, dt, frame0,
                                       nframes, h, atol, rtol, h_min, h_max, Y[i], CS[i], counters[i], hstate[i],
                                       fail[i], ev_log[i], ev_count[i], limits[i], balance[i], margins[i], every,
                                       traces[i], done[i])


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


class InKernel:
    """A Simulation's controllers that tick in the step loop: its fsm machines
    (fsm_frames.Machines) and its bipeds (biped_frames.Bipeds), either of them None, and
    their scene order."""

    def __init__(self, machines, bipeds: Bipeds | None, order: np.ndarray):
        self.machines, self.bipeds, self.order = machines, bipeds, order
        self.names = (machines.names if machines else []) + (bipeds.names if bipeds else [])

    def fork(self, machines, bipeds: Bipeds | None) -> "InKernel":
        return InKernel(machines, bipeds, self.order)

    def publish(self, data) -> None:
        """Every controller's channels of its last tick."""
        for part in (self.machines, self.bipeds):
            if part is not None:
                part.publish(data)


def advance_in_kernel(sim, loop: InKernel | None, watching: list, args: tuple, trace, done) -> int:
    """`advance_controlled` over the frames of args (Simulation._integrate's) with loop's
    controllers and the Watch rows of `watching`: the controllers' states packed for the
    call and back."""
    d = sim.data
    machines = bipeds = watch = walkers = packed = joined = None
    order = np.zeros((0, 3), np.int64)
    if loop is not None:
        order = loop.order
        m, b = loop.machines, loop.bipeds
        if m is not None:
            machines = (m.tables, m.sens, d.machine_slots, d.machine_states, m.stack)
        if b is not None:
            walkers = Bipeds.walkers(d)
            packed = pack(walkers, args[3])
            bipeds = (b.tables, b.sens, *packed)
    if watching:
        joined = join(watching)
        watch = (*joined, sim.dof_qpos, np.zeros(sim.model.nv))
    try:
        return advance_controlled(sim._tables, sim._live_ref(), machines, bipeds, order, watch, *args, trace, done)
    finally:
        if packed is not None:
            unpack(walkers, *packed)
        if joined is not None:
            split(joined, watching)
