"""The particle creatures' FSM controllers inside numba: sensors -> machine -> actuators.

`ControlArrays` holds every machine of a scene as plain arrays: their bytecode and tables
(`FsmCode`, pipeline/control/fsm_code.py), their sensors (Urban §3.2.1.3, §4.2; the kinds of
docs/particles.md) and their actuators. `control` runs all of them once, as a frame starts,
inside the step kernel's frame loop (pipeline/particles/frames.py), so a run of frames is one
kernel call. Sensors read the state arrays directly (Urban's admitted "cheat": they read the
simulation). World z is up, so Urban's y-height is our z and his leg angle
atan(leg.x / leg.y) is atan(leg . heading / leg . up).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from pipeline.control.fsm_code import OK, DOMAIN, FsmCode, fsm_code
from pipeline.control.fsm_vm import tick
from pipeline.nrt import njit_no_refcounts

HEIGHT, LEG_ANGLE, SPEED, TIME_TO_TOUCHDOWN, FOOD, POSITION = range(6)
SENSOR_KINDS = {"height": HEIGHT, "leg_angle": LEG_ANGLE, "speed": SPEED,
                "time_to_touchdown": TIME_TO_TOUCHDOWN, "food": FOOD, "position": POSITION}
# the `Live` field an actuator drives, by the kind of its force
ACTUATED_FIELD = {"spring": 0, "angle": 1, "torque": 2, "constant": 3}  # sp_rest, an_rest, tq_torque, cf_mag


class ControlArrays(NamedTuple):
    """Machine p reads sensors rows [sensors_of[p, 0], sensors_of[p, 1]) in the order of
    `order` (time-to-touchdown after the heights it reads) into its first slots, and drives
    actuator rows [sensors_of[p, 2], sensors_of[p, 3]) from the slots after them."""

    code: FsmCode
    sensors_of: np.ndarray  # (P, 4) int64
    order: np.ndarray  # (Ns,) int64 sensor row to evaluate k-th (rows of the same machine)
    kind: np.ndarray  # (Ns,) int64
    masses: np.ndarray  # (Ns, 2) int64: the sensed mass, the second (foot, food) or -1
    axis: np.ndarray  # (Ns, 3) creature axis (speed, leg angle heading, position)
    up: np.ndarray  # (Ns, 3)
    values: np.ndarray  # (Ns, 6): scale, offset, clamp (1/0), legacy leg-angle scaling (1/0), radius, g
    height_slot: np.ndarray  # (Ns,) int64 slot of the height sensor a time-to-touchdown reads
    act_field: np.ndarray  # (Na,) int64 ACTUATED_FIELD code
    act_index: np.ndarray  # (Na,) int64 slot of the force in that Live field
    act_range: np.ndarray  # (Na, 2) min, max


def control_arrays(bindings) -> ControlArrays:
    """The arrays of the machines bound to a model (pipeline/particles/controller.py)."""
    sensors = [s for b in bindings for s in b.sensors]
    acts = [a for b in bindings for a in b.actuators]
    sensors_of, order, s0, a0 = [], [], 0, 0
    for b in bindings:
        sensors_of.append([s0, s0 + len(b.sensors), a0, a0 + len(b.actuators)])
        order += [s0 + k for k in b.order]
        s0, a0 = s0 + len(b.sensors), a0 + len(b.actuators)
    rows = len(sensors)
    return ControlArrays(
        fsm_code([b.program for b in bindings]), np.array(sensors_of, np.int64).reshape(-1, 4),
        np.array(order, np.int64), np.array([SENSOR_KINDS[s.kind] for s in sensors], np.int64),
        np.array([(s.masses + (-1,))[:2] for s in sensors], np.int64).reshape(rows, 2),
        np.array([s.axis for s in sensors], np.float64).reshape(rows, 3),
        np.array([s.up for s in sensors], np.float64).reshape(rows, 3),
        np.array([(s.scale, s.offset, float(s.clamp), float(s.legacy_scaling), s.radius, s.g)
                  for s in sensors], np.float64).reshape(rows, 6),
        np.array([s.height_level for s in sensors], np.int64),
        np.array([ACTUATED_FIELD[a[0]] for a in acts], np.int64), np.array([a[1] for a in acts], np.int64),
        np.array([(a[2], a[3]) for a in acts], np.float64).reshape(-1, 2))


@numba.njit(cache=True, inline="always")
def _level(x, clamp):
    """max(0, min(1, x)) as Python evaluates it (a NaN reads 1)."""
    if clamp == 0.0:
        return x
    r = 1.0
    if x < 1.0:
        r = x
    return r if r > 0.0 else 0.0


@numba.njit(cache=True, inline="always")
def sense(c, r, pos, vel, floor_z, slots):
    """The level of sensor row r now; slots are its machine's (a time-to-touchdown reads the
    height level evaluated before it). Returns (level, error code)."""
    kind = c.kind[r]
    i = c.masses[r, 0]
    ax, ay, az = c.axis[r, 0], c.axis[r, 1], c.axis[r, 2]
    scale, offset, clamp = c.values[r, 0], c.values[r, 1], c.values[r, 2]
    if kind == HEIGHT:
        return _level(pos[i, 2] - c.values[r, 4] - floor_z, clamp), OK
    if kind == LEG_ANGLE:
        j = c.masses[r, 1]
        dx, dy, dz = pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1], pos[i, 2] - pos[j, 2]
        lx = dx * ax + dy * ay + dz * az
        lz = dx * c.up[r, 0] + dy * c.up[r, 1] + dz * c.up[r, 2]
        angle = math.atan(lx / lz) if lz != 0.0 else math.copysign(math.pi / 2.0, lx)
        gain = math.pi / 2.0 if c.values[r, 3] != 0.0 else 1.0 / (2.0 * math.pi)
        return _level(0.5 + angle * gain, clamp), OK
    if kind == SPEED:
        return _level(vel[i, 0] * ax + vel[i, 1] * ay + vel[i, 2] * az, clamp), OK
    if kind == TIME_TO_TOUCHDOWN:
        vz, g = vel[i, 2], c.values[r, 5]
        under = vz * vz + 2.0 * g * slots[c.height_slot[r]]
        if under < 0.0:
            return math.nan, DOMAIN
        return _level((vz + math.sqrt(under)) / g, clamp), OK
    if kind == FOOD:
        j = c.masses[r, 1]
        d = math.hypot(pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1])
        return _level(scale / d if d > 0 else 1.0, clamp), OK
    return _level(scale * (pos[i, 0] * ax + pos[i, 1] * ay + pos[i, 2] * az) + offset, clamp), OK


@numba.njit(cache=True, inline="always")
def apply(c, p, slots, live):
    """Map machine p's actuator levels onto their force parameters."""
    first = c.code.prog[p, 2]
    for k in range(c.sensors_of[p, 2], c.sensors_of[p, 3]):
        level = slots[first + k - c.sensors_of[p, 2]]
        value = c.act_range[k, 0] + level * (c.act_range[k, 1] - c.act_range[k, 0])
        field = c.act_field[k]
        if field == 0:
            live.sp_rest[c.act_index[k]] = value
        elif field == 1:
            live.an_rest[c.act_index[k]] = value
        elif field == 2:
            live.tq_torque[c.act_index[k]] = value
        else:
            live.cf_mag[c.act_index[k]] = value


@njit_no_refcounts
def apply_all(c, slots, live):
    for p in range(c.code.prog.shape[0]):
        base = c.code.prog[p, 0]
        apply(c, p, slots[base:base + c.code.prog[p, 1]], live)


@njit_no_refcounts
def read_sensors(c, p, pos, vel, floor_z, own):
    """Machine p's sensor levels into its first slots `own`; returns an error code or OK."""
    s0 = c.sensors_of[p, 0]
    for k in range(s0, c.sensors_of[p, 1]):
        r = c.order[k]
        level, err = sense(c, r, pos, vel, floor_z, own)
        if err != OK:
            return err
        own[r - s0] = level
    return OK


@njit_no_refcounts
def control(c, pos, vel, floor_z, t, dt, slots, states, stack, live):
    """Every machine in turn: its sensors, one tick, its actuators. Returns an error code
    (`pipeline.control.fsm_code.raise_error`) or OK."""
    for p in range(c.code.prog.shape[0]):
        base = c.code.prog[p, 0]
        own = slots[base:base + c.code.prog[p, 1]]
        err = read_sensors(c, p, pos, vel, floor_z, own)
        if err != OK:
            return err
        state, err = tick(c.code, p, own, states[p], t, dt, stack)
        if err != OK:
            return err
        states[p] = state
        apply(c, p, own, live)
    return OK
