"""Euler, midpoint and RK4 over all masses, and `advance`: integrate, then detect and handle
floor events, backtracking on a missed event (Urban's Integrator.advance).

Urban names no backtracking strategy; ours bisects the sub-step (`pipeline.physics.events.bisect`,
the articulated step loop's event bracketing) and retries from the saved state until no mass
is deeper than the collision envelope (or the sub-step reaches `min_substep`), then handles
the event and continues with the remaining time at the full step. Urban's tolerance is a
depth (the envelope) where the articulated loop's is a time, so the bracket stops as soon as
the state is within it rather than at a fixed width.
"""
from __future__ import annotations

import numba
import numpy as np

from pipeline.particles.arrays import EULER, MIDPOINT
from pipeline.particles.forces import accumulate
from pipeline.physics.events import bisect

NONE, OCCURRING, MISSED = 0, 1, 2


@numba.njit(cache=True)
def _accel(m, live, pos, vel, t, h, f, acc, counters):
    accumulate(m, live, pos, vel, t, h, f)
    counters[1] += 1
    for i in range(pos.shape[0]):
        w = m.integrated[i] / m.mass[i]
        for k in range(3):
            acc[i, k] = f[i, k] * w


@numba.njit(cache=True)
def trial_step(m, live, method, pos, vel, t, h, pos_out, vel_out, counters):
    """One step of the chosen integrator from (pos, vel) into (pos_out, vel_out), no events."""
    n = pos.shape[0]
    f = np.empty((n, 3))
    a1 = np.empty((n, 3))
    vmask = np.empty((n, 1))
    vmask[:, 0] = m.integrated
    _accel(m, live, pos, vel, t, h, f, a1, counters)
    v1 = vel * vmask
    if method == EULER:
        pos_out[:] = pos + h * v1
        vel_out[:] = vel + h * a1
        return
    if method == MIDPOINT:
        a2 = np.empty((n, 3))
        pm = pos + 0.5 * h * v1
        vm = vel + 0.5 * h * a1
        _accel(m, live, pm, vm, t + 0.5 * h, h, f, a2, counters)
        pos_out[:] = pos + h * vm * vmask
        vel_out[:] = vel + h * a2
        return
    a2 = np.empty((n, 3))
    a3 = np.empty((n, 3))
    a4 = np.empty((n, 3))
    p2 = pos + 0.5 * h * v1
    v2 = vel + 0.5 * h * a1
    _accel(m, live, p2, v2, t + 0.5 * h, h, f, a2, counters)
    p3 = pos + 0.5 * h * v2 * vmask
    v3 = vel + 0.5 * h * a2
    _accel(m, live, p3, v3, t + 0.5 * h, h, f, a3, counters)
    p4 = pos + h * v3 * vmask
    v4 = vel + h * a3
    _accel(m, live, p4, v4, t + h, h, f, a4, counters)
    pos_out[:] = pos + (h / 6.0) * (v1 + 2.0 * v2 * vmask + 2.0 * v3 * vmask + v4 * vmask)
    vel_out[:] = vel + (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4)


@numba.njit(cache=True)
def floor_event_state(m, pos):
    """None / Occurring / Missed over all floor members (the worst one wins)."""
    state = NONE
    z0, env = m.floor[0], m.floor[1]
    for i in range(pos.shape[0]):
        if m.on_floor[i] == 0.0 or m.integrated[i] == 0.0:
            continue
        depth = z0 - (pos[i, 2] - m.radius[i])
        if depth > env:
            return MISSED
        if depth > 0.0:
            state = OCCURRING
    return state


@numba.njit(cache=True)
def handle_floor_events(m, pos, vel, counters):
    """Project penetrating masses onto the plane and reflect v_z by the restitution."""
    z0, v_rest = m.floor[0], m.floor[3]
    for i in range(pos.shape[0]):
        if m.on_floor[i] == 0.0 or m.integrated[i] == 0.0:
            continue
        if pos[i, 2] - m.radius[i] < z0:
            pos[i, 2] = z0 + m.radius[i]
            if vel[i, 2] < 0.0:
                counters[3] += 1
                vz = -m.restitution[i] * vel[i, 2]
                vel[i, 2] = vz if vz > v_rest else 0.0


@numba.njit(cache=True)
def advance(m, live, method, pos, vel, t, h, nsteps, counters):
    """Advance (pos, vel) in place by nsteps steps of h from time t; returns the new time."""
    n = pos.shape[0]
    p_new = np.empty((n, 3))
    v_new = np.empty((n, 3))
    min_sub = m.floor[4]
    for _ in range(nsteps):
        t_end = t + h
        sub = h
        while t < t_end - 1e-12 * h:
            sub = min(sub, t_end - t)
            trial_step(m, live, method, pos, vel, t, sub, p_new, v_new, counters)
            if floor_event_state(m, p_new) == MISSED and sub > min_sub:
                # the event was crossed by more than the envelope: bisect the step, as the
                # articulated step loop brackets its events, until it lands within it
                counters[2] += 1
                _, half = bisect(0.0, sub, True)
                sub = half
                continue
            handle_floor_events(m, p_new, v_new, counters)
            pos[:] = p_new
            vel[:] = v_new
            t += sub
            sub = h
        t = t_end
        counters[0] += 1
    return t
