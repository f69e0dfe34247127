"""The `kind: fsm` controllers of articulated creatures inside numba: sensors -> machine ->
actuators, as plain arrays (the particle engine's pipeline/particles/machines.py for the
articulated engine's sensors).

`MachineTables` holds every fsm controller of a scene: their bytecode (`FsmCode`,
pipeline/control/fsm_code.py), their sensor rows (what `sim.sensors` would read, by index),
their actuator rows (a DOF of `servo_target`, `exp_rest` or `ctrl` and its range) and the
slots their channels come from. `control` ticks machines p0 .. p1 - 1 in turn at one state;
`advance_with_machines` (pipeline/control/fsm_frames.py) calls it at every frame start of a
stretch of frames, so a scene whose only controllers are machines runs without Python.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.control.fsm_code import OK, FsmCode, fsm_code
from pipeline.control.fsm_vm import tick
from pipeline.physics import sensing
from pipeline.physics.contact.state import GROUND_Z
from pipeline.physics.contact.surface import surface
from pipeline.physics.forces import joint_forces

# sensor kinds (the `sensor` of schemas/controller.schema.json); `axis` is 0-2 or -1
(COM_POS, COM_VEL, JOINT_ANGLE, JOINT_RATE, JOINT_FORCE, BODY_POS, BODY_UP, BODY_HEIGHT,
 BODY_VEL, CONTACT_FORCE, TOUCHING) = range(11)
# what an actuator sets (its `set:`), a DOF of it
ACTUATED = {"servo_target": 0, "exp_rest": 1, "force": 2}
SERVO_TARGET, EXP_REST, CTRL = range(3)
_AXES = {"x": 0, "y": 1, "z": 2}


class MachineTables(NamedTuple):
    """Machine p reads sensor rows [io[p, 0], io[p, 1]) into its first slots and drives
    actuator rows [io[p, 2], io[p, 3]) from the slots after them; io[p, 4] is 1 when one of
    its sensors reads a joint's force elements (computed for it, after the machines before
    it wrote theirs). Channel c is slot chan[c] of the slot array, or machine -1 - chan[c]'s
    state."""

    code: FsmCode
    io: np.ndarray  # (P, 5) int64
    kind: np.ndarray  # (Ns,) int64 sensor kind
    index: np.ndarray  # (Ns,) int64 body, DOF or q index
    axis: np.ndarray  # (Ns,) int64
    act_field: np.ndarray  # (Na,) int64 SERVO_TARGET, EXP_REST or CTRL
    act_dof: np.ndarray  # (Na,) int64
    act_range: np.ndarray  # (Na, 2) value at level 0 and at level 1
    chan: np.ndarray  # (C,) int64
    needs: np.ndarray  # (2,) int64: some sensor reads body states, contact wrenches
    dof_qpos: np.ndarray  # (nv,) q index of each DOF or -1 (joint_forces)
    mass: np.ndarray  # (nb,) body masses (the centre of mass)
    com: np.ndarray  # (nb, 3) body centres of mass, body axes
    tau: np.ndarray  # (nv,) scratch: joint force elements


def sensor_row(sim, spec: dict) -> tuple[int, int, int]:
    """(kind, index, axis) of one sensor (the schema's `sensor`); unknown bodies and joints
    raise CorpusError, as `sim.sensors` does."""
    q = spec.get("quantity")
    if "com" in spec:
        key = spec["com"]
        return (COM_POS, 0, _AXES[key]) if key in _AXES else (COM_VEL, 0, _AXES[key[1]])
    if "joint" in spec:
        dofs, qpos = sim.joint_dofs(spec["joint"])
        if dofs.size == 0:
            sim.sensors.joint(spec["joint"])  # the fixed joint's message
        if q == "force":
            return JOINT_FORCE, int(dofs[0]), -1
        return (JOINT_ANGLE, int(qpos[0]), -1) if q == "angle" else (JOINT_RATE, int(dofs[0]), -1)
    b = sim.body_index(spec["body"])
    if q in _AXES:
        return BODY_POS, b, _AXES[q]
    if q in ("up", "height"):
        return (BODY_UP if q == "up" else BODY_HEIGHT), b, -1
    if q in ("vx", "vy", "vz"):
        return BODY_VEL, b, _AXES[q[1]]
    return (TOUCHING if q == "touching" else CONTACT_FORCE), b, -1


def machine_tables(sim, machines) -> MachineTables:
    """The tables of `machines` (FsmController, in scene order) on sim's model."""
    m = sim.model
    sensors, acts, io, chan, base = [], [], [], [], 0
    for p, c in enumerate(machines):
        rows = [sensor_row(sim, s) for s in c.sensors]
        io.append([len(sensors), len(sensors) + len(rows), len(acts), len(acts) + len(c.actuators),
                   int(any(k == JOINT_FORCE for k, _, _ in rows))])
        sensors += rows
        acts += c.actuators
        names = c.program.slot_names
        chan += [-1 - p] + [base + names.index(v) for v in c.program.variable_names]
        base += len(names)
    kinds = {k for k, _, _ in sensors}
    touch = bool(kinds & {CONTACT_FORCE, TOUCHING})
    bodies = touch or bool(kinds - {JOINT_ANGLE, JOINT_RATE, JOINT_FORCE})
    return MachineTables(
        fsm_code([c.program for c in machines]), np.array(io, np.int64).reshape(-1, 5),
        np.array([k for k, _, _ in sensors], np.int64), np.array([i for _, i, _ in sensors], np.int64),
        np.array([a for _, _, a in sensors], np.int64),
        np.array([ACTUATED[f] for f, _, _, _ in acts], np.int64),
        np.array([d for _, d, _, _ in acts], np.int64),
        np.array([(lo, hi) for _, _, lo, hi in acts], np.float64).reshape(-1, 2),
        np.array(chan, np.int64), np.array([bodies, touch], np.int64), sim.dof_qpos,
        np.asarray(m.tree.mass, np.float64), np.asarray(m.tree.com, np.float64), np.zeros(m.nv))


@numba.njit(cache=True)
def _com(mt, w, axis, velocity):
    """One world component of the centre of mass of every body, or of its velocity."""
    a1, a2 = (axis + 1) % 3, (axis + 2) % 3
    total = 0.0
    acc = 0.0
    for b in range(mt.mass.shape[0]):
        R = w.xrot[b]
        c = mt.com[b]
        if velocity:  # R v + (R omega) x (R c)
            value = R[axis, 0] * w.v[b, 3] + R[axis, 1] * w.v[b, 4] + R[axis, 2] * w.v[b, 5]
            om1 = R[a1, 0] * w.v[b, 0] + R[a1, 1] * w.v[b, 1] + R[a1, 2] * w.v[b, 2]
            om2 = R[a2, 0] * w.v[b, 0] + R[a2, 1] * w.v[b, 1] + R[a2, 2] * w.v[b, 2]
            arm1 = R[a1, 0] * c[0] + R[a1, 1] * c[1] + R[a1, 2] * c[2]
            arm2 = R[a2, 0] * c[0] + R[a2, 1] * c[1] + R[a2, 2] * c[2]
            value += om1 * arm2 - om2 * arm1
        else:
            value = w.xpos[b, axis] + R[axis, 0] * c[0] + R[axis, 1] * c[1] + R[axis, 2] * c[2]
        acc += mt.mass[b] * value
        total += mt.mass[b]
    return acc / max(total, 1e-300)


@numba.njit(cache=True)
def sense(mt, r, sens, cstate, y, nq):
    """The level of sensor row r at the state whose body states and contact wrenches are in
    `sens` (and joint force elements in mt.tau)."""
    kind, i, axis = mt.kind[r], mt.index[r], mt.axis[r]
    w = sens.work
    if kind == JOINT_ANGLE:
        return y[i] if i >= 0 else math.nan
    if kind == JOINT_RATE:
        return y[nq + i]
    if kind == JOINT_FORCE:
        return mt.tau[i]
    if kind == COM_POS or kind == COM_VEL:
        return _com(mt, w, axis, kind == COM_VEL)
    if kind == BODY_POS:
        return w.xpos[i, axis]
    if kind == BODY_UP:
        return w.xrot[i, 2, 2]
    if kind == BODY_HEIGHT:
        c = sens.contact
        return w.xpos[i, 2] - surface(c.grid_h, c.grid_geom, cstate[GROUND_Z], w.xpos[i, 0],
                                      w.xpos[i, 1])[0]
    if kind == BODY_VEL:
        R = w.xrot[i]
        return R[axis, 0] * w.v[i, 3] + R[axis, 1] * w.v[i, 4] + R[axis, 2] * w.v[i, 5]
    f = sens.fext[i]
    if kind == TOUCHING:
        return 1.0 if f[3] != 0.0 or f[4] != 0.0 or f[5] != 0.0 else 0.0
    return math.sqrt(f[3] * f[3] + f[4] * f[4] + f[5] * f[5])


@numba.njit(cache=True)  # takes a StructRef (the sensors' tables): counts references
def control(mt, p0, p1, sens, t, dt, y, cstate, forces, ctrl, slots, states, stack):
    """Tick machines p0 .. p1 - 1 in turn at time t and state (y, cstate): each reads its
    sensors, ticks once (pipeline/control/fsm_vm.py) and writes its actuators into
    forces.servo_target, the exp_rest part of y or ctrl. Returns (machine, error code) of
    the first tick that failed, or (-1, OK)."""
    nv = ctrl.shape[0]
    nq = y.shape[0] - 2 * nv
    if mt.needs[0]:
        sensing.body_states(sens, y[:nq], y[nq:nq + nv])
    if mt.needs[1]:
        sensing.contact_wrenches(sens, t, cstate)
    for p in range(p0, p1):
        if mt.io[p, 4]:
            joint_forces(forces, mt.dof_qpos, y[:nq], y[nq:nq + nv], y[nq + nv:], ctrl, mt.tau)
        base = mt.code.prog[p, 0]
        own = slots[base:base + mt.code.prog[p, 1]]
        s0 = mt.io[p, 0]
        for r in range(s0, mt.io[p, 1]):
            own[r - s0] = sense(mt, r, sens, cstate, y, nq)
        state, err = tick(mt.code, p, own, states[p], t, dt, stack)
        if err != OK:
            return p, err
        states[p] = state
        first = mt.code.prog[p, 2]
        a0 = mt.io[p, 2]
        for k in range(a0, mt.io[p, 3]):
            lo, hi = mt.act_range[k, 0], mt.act_range[k, 1]
            value = lo + own[first + k - a0] * (hi - lo)
            dof = mt.act_dof[k]
            if mt.act_field[k] == SERVO_TARGET:
                forces.servo_target[dof] = value
            elif mt.act_field[k] == EXP_REST:
                y[nq + nv + dof] = value
            else:
                ctrl[dof] = value
    return -1, OK


@numba.njit(cache=True)
def channels(mt, slots, states, out):
    """Every machine's channels (its state, then its variables) into out."""
    for c in range(mt.chan.shape[0]):
        s = mt.chan[c]
        out[c] = states[-1 - s] if s < 0 else slots[s]
