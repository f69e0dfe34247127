"""The numba step loop: advance the state over one frame [t0, t1] without touching Python.

A frame is covered by internal steps of h (fixed-step integrators; the last one of the
frame is trimmed to land on t1) or by adaptive RKF45 steps. Motor programs reaching their
target and pushes starting or ending are discontinuities of the right-hand side, so a step
never crosses one: it is cut to end there (events). A step is committed only when accepted:
the state, the contact state candidate, and motor programs that have reached their target
(rest snapped to the target, program deactivated). A rejected RKF45 attempt commits
nothing, so every non-integrated value stays bit for bit what it was.

Step-size control (Hairer-Norsett-Wanner I II.4, II IV.2): scaled max-norm error `err`;
accept when err <= 1. After an accepted step h *= clamp(0.9 err^-0.17 err_prev^0.04, 0.1, 5)
(a PI controller with DOPRI5's constants: fewer rejections where stiffness limits the step),
but never more than 1 right after a rejection; after a rejection h *= max(0.2, 0.9 err^-0.2);
fail below h_min. hstate = [proposed h, last accepted error] carries over between frames.
"""
from __future__ import annotations

import math

import numba

from pipeline.physics.implicit import implicit_euler_step
from pipeline.physics.integrators import (
    IMPLICIT_EULER, MCKENNA_EULER_LITERAL, RK4, RKF45, SYMPLECTIC_EULER, euler_step,
    rk4_step, rkf45_attempt, rkf45_first_stage, symplectic_euler_step)
from pipeline.physics.events import (EV_ACTION, RECORD, bisect, event_values,
                                     first_crossing)
from pipeline.physics.forces import PUSH_END, PUSH_START, exp_spring_force
from pipeline.physics.kinematics import joint_pass, normalize_quaternions
from pipeline.nrt import copy_into, njit_no_refcounts
from pipeline.physics.spatial import rot_to_quat

# advance() status codes
OK, NONFINITE, UNDERFLOW, EVENT = range(4)
# counters: derivative evaluations, accepted steps, rejected steps
N_EVAL, N_ACCEPT, N_REJECT = range(3)
_EVALS_PER_STEP = (1, 1, 1, 4, 6, 1)  # by method code (RKF45 counts its own)


@njit_no_refcounts
def next_event(lv, t, limit, tol):
    """Earliest motor-program end or push start/end after t, or `limit` (the frame end or
    the nominal step end) when none comes first. Events within tol of limit are limit."""
    e = limit
    for j in range(lv.motor_active.shape[0]):
        if lv.motor_active[j] != 0:
            te = lv.motor_end[j]
            if t + tol < te < e:
                e = te
    for i in range(lv.pushes.shape[0]):
        for te in (lv.pushes[i, PUSH_START], lv.pushes[i, PUSH_END]):
            if t + tol < te < e:
                e = te
    if limit - e <= tol:
        e = limit
    return e


@njit_no_refcounts
def commit(st, lv, wk, t_new, tol, y, cstate):
    """Accept the candidate step in wk.ynew (see module doc)."""
    nq = st.nq
    nv = lv.ctrl.shape[0]
    wk.motor_work[0] += motor_work(lv, st.dof_qpos, nq, y, wk.ynew, t_new, tol)
    copy_into(wk.ynew, y)
    normalize_quaternions(st.tree, y[:nq])
    copy_into(wk.cs_cand, cstate)
    for j in range(nv):
        if lv.motor_active[j] != 0 and lv.motor_end[j] <= t_new + tol:
            y[nq + nv + j] = lv.motor_target[j]
            lv.motor_active[j] = 0


@njit_no_refcounts
def motor_work(lv, dof_qpos, nq, y0, y1, t_new, tol):
    """The work (J) of the motors moving exponential springs' rests over a step from y0 to
    y1 (a trapezoid in the spring's force; a program ending at t_new snaps to its target):
    the energy balance's (pipeline/physics/energy.py), taken step by step because a program
    may end inside a frame."""
    nv = lv.ctrl.shape[0]
    forces = lv.forces
    work = 0.0
    for j in range(nv):
        if lv.motor_active[j] == 0 or forces.exp_alpha[j] == 0.0 or dof_qpos[j] < 0:
            continue
        iq = dof_qpos[j]
        r0 = y0[nq + nv + j]
        r1 = lv.motor_target[j] if lv.motor_end[j] <= t_new + tol else y1[nq + nv + j]
        # the rest moves against the spring's force on the joint
        f0 = exp_spring_force(forces.exp_alpha[j], forces.exp_beta[j], y0[iq] - r0)
        f1 = exp_spring_force(forces.exp_alpha[j], forces.exp_beta[j], y1[iq] - r1)
        work += 0.5 * (f0 + f1) * (r1 - r0)
    return work


@njit_no_refcounts
def first_nonfinite(y):
    for i in range(y.shape[0]):
        if not math.isfinite(y[i]):
            return i
    return -1


@njit_no_refcounts
def fixed_step(st, lv, wk, method, t, h, y, cstate):
    if method == RK4:
        rk4_step(st, lv, wk, t, h, y, cstate, wk.ynew)
    elif method == IMPLICIT_EULER:
        implicit_euler_step(st, lv, wk, t, h, y, cstate, wk.ynew)
    elif method == SYMPLECTIC_EULER:
        symplectic_euler_step(st, lv, wk, t, h, y, cstate, wk.ynew)
    else:
        euler_step(st, lv, wk, t, h, y, cstate, wk.ynew, method == MCKENNA_EULER_LITERAL)


@njit_no_refcounts
def save_step_start(lv, wk, y, cstate):
    copy_into(y, wk.y_old)
    copy_into(cstate, wk.cs_old)
    copy_into(lv.motor_active, wk.motor_old)
    wk.motor_work[1] = wk.motor_work[0]


@njit_no_refcounts
def _restore_step_start(lv, wk, y, cstate):
    copy_into(wk.y_old, y)
    copy_into(wk.cs_old, cstate)
    copy_into(wk.motor_old, lv.motor_active)
    wk.motor_work[0] = wk.motor_work[1]


@njit_no_refcounts
def locate_event(st, lv, wk, method, events, t, tn, tol, y, cstate, counters):
    """The state has just crossed event `first_crossing(ev_old, ev_new)` over the step
    [t, tn] (y, cstate committed at tn; the start saved by `save_step_start`). Bisect the
    crossing time by re-integrating from the start, and leave y, cstate at the bracket's
    right end (at most tol past the crossing; re-integrated even when the bracket is the
    whole step, since bisecting overwrote y); returns that time. RKF45 re-integrates with
    RK4 steps, which are of its order within a bracket."""
    stepper = RK4 if method == RKF45 else method
    lo, hi = t, tn
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        _restore_step_start(lv, wk, y, cstate)
        fixed_step(st, lv, wk, stepper, t, mid - t, y, cstate)
        counters[N_EVAL] += _EVALS_PER_STEP[stepper]
        event_values(st.tree, events, st.nq, wk.ynew, wk.dyn, wk.ev_new)
        lo, hi = bisect(lo, hi, first_crossing(wk.ev_old, wk.ev_new) >= 0)
    _restore_step_start(lv, wk, y, cstate)
    fixed_step(st, lv, wk, stepper, t, hi - t, y, cstate)
    counters[N_EVAL] += _EVALS_PER_STEP[stepper]
    commit(st, lv, wk, hi, tol, y, cstate)
    event_values(st.tree, events, st.nq, y, wk.dyn, wk.ev_new)
    return hi


@njit_no_refcounts
def after_step(st, lv, wk, method, events, t, tn, tol, y, cstate, counters, ev_log, ev_count,
               fail):
    """Event handling after a committed step [t, tn]: returns the time the step now ends
    (tn, or the earliest crossing's) and whether the run stops there (then fail = [time,
    event]). Every event crossing at that time is logged (RECORD) or stops the run (STOP)."""
    event_values(st.tree, events, st.nq, y, wk.dyn, wk.ev_new)
    stop = False
    if first_crossing(wk.ev_old, wk.ev_new) >= 0:
        tn = locate_event(st, lv, wk, method, events, t, tn, tol, y, cstate, counters)
        for i in range(events.shape[0]):
            if not wk.ev_old[i] < 0.0 <= wk.ev_new[i]:
                continue
            if events[i, EV_ACTION] == RECORD:
                k = ev_count[0]
                if k < ev_log.shape[0]:
                    ev_log[k, 0] = tn
                    ev_log[k, 1] = i
                ev_count[0] = k + 1
            elif not stop:
                stop = True
                fail[0] = tn
                fail[1] = i
    copy_into(wk.ev_new, wk.ev_old)
    return tn, stop


@njit_no_refcounts
def advance(st, lv, wk, method, t0, t1, h, atol, rtol, h_min, h_max, y, cstate,
            counters, hstate, fail, events, ev_log, ev_count):
    """Integrate y (and the non-integrated state) from t0 to t1; returns a status code.

    On failure fail = [time, index of the offending component of y]; on a STOP event
    (status EVENT) fail = [event time, event index] and y is the state then. hstate
    carries RKF45's proposed step and last accepted error from one frame to the next.
    `events` (pipeline.physics.events) may be empty; RECORD events append [time, index]
    rows to ev_log (ev_count[0] counts them, also past its capacity).
    """
    tol = 1e-9 * (t1 - t0)
    t = t0
    ne = events.shape[0]
    if ne > 0:
        event_values(st.tree, events, st.nq, y, wk.dyn, wk.ev_old)
    if method != RKF45:
        nsub = max(1, int(math.ceil((t1 - t0) / h - 1e-9)))
        kgrid = 1
        while True:
            grid = t1 if kgrid >= nsub else t0 + (t1 - t0) * kgrid / nsub
            tn = next_event(lv, t, grid, tol)
            if ne > 0:
                save_step_start(lv, wk, y, cstate)
            fixed_step(st, lv, wk, method, t, tn - t, y, cstate)
            counters[N_EVAL] += _EVALS_PER_STEP[method]
            bad = first_nonfinite(wk.ynew)
            if bad >= 0:
                fail[0] = tn
                fail[1] = bad
                return NONFINITE
            commit(st, lv, wk, tn, tol, y, cstate)
            counters[N_ACCEPT] += 1
            if ne > 0:
                te, stop = after_step(st, lv, wk, method, events, t, tn, tol, y, cstate,
                                      counters, ev_log, ev_count, fail)
                if stop:
                    return EVENT
                if te < tn:  # a logged event cut the step: go on from there
                    t = te
                    continue
            t = tn
            if tn == grid:
                if kgrid >= nsub:
                    return OK
                kgrid += 1

    hh = min(hstate[0], h_max)
    have_k1 = False
    rejected = False  # no growth right after a rejection (Hairer-Norsett-Wanner II.4)
    err_old = hstate[1]
    while t1 - t > tol:
        limit = next_event(lv, t, t1, tol)
        clipped = t + hh >= limit - tol
        hs = limit - t if clipped else hh
        tn = limit if clipped else t + hh
        ts = 0.5 * (t + limit)  # no switching event in (t, limit): pushes are constant there
        if not have_k1:
            rkf45_first_stage(st, lv, wk, t, ts, y, cstate)
            counters[N_EVAL] += 1
            have_k1 = True
        if ne > 0:
            save_step_start(lv, wk, y, cstate)
        err, where = rkf45_attempt(st, lv, wk, t, ts, hs, y, atol, rtol, wk.ynew)
        counters[N_EVAL] += 5
        if err <= 1.0:
            commit(st, lv, wk, tn, tol, y, cstate)
            counters[N_ACCEPT] += 1
            if ne > 0:
                te, stop = after_step(st, lv, wk, method, events, t, tn, tol, y, cstate,
                                      counters, ev_log, ev_count, fail)
                if stop:
                    hstate[0] = hh
                    hstate[1] = err_old
                    return EVENT
                tn = te
            t = tn
            have_k1 = False
            # PI control (Gustafsson; DOPRI5's constants): the previous error damps the change
            fac = min(5.0, max(0.1, 0.9 * max(err, 1e-10) ** -0.17 * err_old ** 0.04))
            err_old = max(err, 1e-4)
            if rejected:
                fac = min(fac, 1.0)
                rejected = False
            hn = hs * fac
            # a step cut short by an event says nothing against the longer proposal
            if clipped and fac >= 1.0 and hn < hh:
                hn = hh
            hh = min(hn, h_max)
        else:
            counters[N_REJECT] += 1
            rejected = True
            fac = 0.2 if not math.isfinite(err) else max(0.2, 0.9 * err ** -0.2)
            hh = hs * fac
            if hh < h_min:
                fail[0] = t
                fail[1] = where
                hstate[0] = hh
                return UNDERFLOW if math.isfinite(err) else NONFINITE
    hstate[0] = hh
    hstate[1] = err_old
    return OK


@numba.njit(cache=True)
def body_poses(tree, q, w, pos, quat):
    """World positions (nb, 3) and orientations (nb, 4, w x y z) of the body frames."""
    joint_pass(tree, q, q[:0], w, False)
    for b in range(pos.shape[0]):
        for k in range(3):
            pos[b, k] = w.xpos[b, k]
        rot_to_quat(w.xrot[b], quat[b])


@numba.njit(cache=True)
def trajectory_poses(tree, qs, w, pos, quat):
    """`body_poses` of every row of qs (T, >= nq) into pos (T, nb, 3) and quat (T, nb, 4)."""
    for k in range(qs.shape[0]):
        body_poses(tree, qs[k], w, pos[k], quat[k])
