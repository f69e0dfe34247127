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

from pipeline.nrt import njit_no_refcounts
from pipeline.particles.arrays import EULER, MIDPOINT
from pipeline.particles.forces import accumulate
from pipeline.physics.events import bisect

NONE, OCCURRING, MISSED = 0, 1, 2


@njit_no_refcounts
def _accel(m, live, pos, vel, t, h, f, acc, counters):
    accumulate(m, live, pos, vel, t, h, f)
    counters[1] += 1
    for i in range(pos.shape[0]):
        w = m.integrated[i] / m.mass[i]
        for k in range(3):
            acc[i, k] = f[i, k] * w


WORK = 11  # scratch (n, 3) arrays of `advance`: f, a1..a4, stage position, v2..v4, the trial's position and velocity


@njit_no_refcounts
def trial_step(m, live, method, pos, vel, t, h, pos_out, vel_out, counters, w):
    """One step of the chosen integrator from (pos, vel) into (pos_out, vel_out), no events;
    w is the workspace. Scalar loops instead of array expressions: the temporaries of those
    were most of a frame's time. Every element sees the operations of the textbook
    formulas in their order (v_i masked by `integrated` where positions move)."""
    n = pos.shape[0]
    f, a1, a2, a3, a4, ps, v2, v3, v4 = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]
    msk = m.integrated
    _accel(m, live, pos, vel, t, h, f, a1, counters)
    if method == EULER:
        for i in range(n):
            for k in range(3):
                pos_out[i, k] = pos[i, k] + h * (vel[i, k] * msk[i])
                vel_out[i, k] = vel[i, k] + h * a1[i, k]
        return
    half = 0.5 * h
    for i in range(n):
        for k in range(3):
            ps[i, k] = pos[i, k] + half * (vel[i, k] * msk[i])
            v2[i, k] = vel[i, k] + half * a1[i, k]
    _accel(m, live, ps, v2, t + 0.5 * h, h, f, a2, counters)
    if method == MIDPOINT:
        for i in range(n):
            for k in range(3):
                pos_out[i, k] = pos[i, k] + h * v2[i, k] * msk[i]
                vel_out[i, k] = vel[i, k] + h * a2[i, k]
        return
    for i in range(n):
        for k in range(3):
            ps[i, k] = pos[i, k] + half * v2[i, k] * msk[i]
            v3[i, k] = vel[i, k] + half * a2[i, k]
    _accel(m, live, ps, v3, t + 0.5 * h, h, f, a3, counters)
    for i in range(n):
        for k in range(3):
            ps[i, k] = pos[i, k] + h * v3[i, k] * msk[i]
            v4[i, k] = vel[i, k] + h * a3[i, k]
    _accel(m, live, ps, v4, t + h, h, f, a4, counters)
    h6 = h / 6.0
    for i in range(n):
        mk = msk[i]
        for k in range(3):
            pos_out[i, k] = pos[i, k] + h6 * (vel[i, k] * mk + 2.0 * v2[i, k] * mk + 2.0 * v3[i, k] * mk
                                              + v4[i, k] * mk)
            vel_out[i, k] = vel[i, k] + h6 * (a1[i, k] + 2.0 * a2[i, k] + 2.0 * a3[i, k] + a4[i, k])


@njit_no_refcounts
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


@njit_no_refcounts
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


@numba.njit(cache=True, inline="always")
def copy_rows(src, dst):
    """dst[:] = src for (n, 3) arrays (an array assignment needs numba's reference counting)."""
    for i in range(src.shape[0]):
        for k in range(3):
            dst[i, k] = src[i, k]


@njit_no_refcounts
def advance(m, live, method, pos, vel, t, h, nsteps, counters, w):
    """Advance (pos, vel) in place by nsteps steps of h from time t (w: `workspace`);
    returns the new time."""
    p_new = w[9]
    v_new = w[10]
    min_sub = m.floor[4]
    for _ in range(nsteps):
        t_end = t + h
        sub = h
        while t < t_end - 1e-12 * h:
            sub = min(sub, t_end - t)
            trial_step(m, live, method, pos, vel, t, sub, p_new, v_new, counters, w)
            if floor_event_state(m, p_new) == MISSED and sub > min_sub:
                # the event was crossed by more than the envelope: bisect the step, as the
                # articulated step loop brackets its events, until it lands within it
                counters[2] += 1
                _, half = bisect(0.0, sub, True)
                sub = half
                continue
            handle_floor_events(m, p_new, v_new, counters)
            copy_rows(p_new, pos)
            copy_rows(v_new, vel)
            t += sub
            sub = h
        t = t_end
        counters[0] += 1
    return t
