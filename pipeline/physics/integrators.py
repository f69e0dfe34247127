"""Single steps of the integrators over the flat state y = [q | qd | exp_rest].

* symplectic (semi-implicit) Euler: qd += h qdd, then q advances with the new qd.
* McKenna's Euler (corpus `integration euler`): qd += h qdd and the position takes the
  constant-acceleration update q += h q' + h^2/2 q''. The thesis prints Eq 11 as
  q += h (q'_old + q'_new)/2 + h^2/2 q'', which counts the acceleration twice (digest §2.7
  errata); that literal form is kept as `mckenna_euler_literal` to reproduce corpus.
* RK4 (Numerical Recipes' classic four stages).
* RKF45: Fehlberg's 4(5) pair (tableau in digest §2.7), advancing the 5th-order solution;
  the step controller lives in pipeline.physics.step.

Contact state: the first evaluation of a step reads the committed `cstate` and writes the
candidate `cs_cand`; the later stages read `cs_cand` and write scratch. The step loop copies
`cs_cand` into `cstate` only when it accepts the step, so a rejected step leaves every
non-integrated value exactly as it was.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.derivative import evaluate
from pipeline.physics.kinematics import qdot, turn_free_velocities
from pipeline.physics.model import BALL, FREE, PRISMATIC, REVOLUTE, UNIVERSAL

SYMPLECTIC_EULER, MCKENNA_EULER, MCKENNA_EULER_LITERAL, RK4, RKF45, IMPLICIT_EULER = range(6)
INTEGRATORS = {
    "symplectic_euler": SYMPLECTIC_EULER,
    "euler": MCKENNA_EULER,  # corpus's `integration euler` is McKenna's Euler
    "mckenna_euler": MCKENNA_EULER,
    "mckenna_euler_literal": MCKENNA_EULER_LITERAL,
    "rk4": RK4,
    "rkf45": RKF45,
    "implicit_euler": IMPLICIT_EULER,  # pipeline.physics.implicit: for stiff contact
}

# Fehlberg 4(5): nodes, stage matrix, 5th-order weights and (5th - 4th) error weights
RKF_C = np.array([0.0, 1 / 4, 3 / 8, 12 / 13, 1.0, 1 / 2])
RKF_A = np.array([
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [1 / 4, 0.0, 0.0, 0.0, 0.0],
    [3 / 32, 9 / 32, 0.0, 0.0, 0.0],
    [1932 / 2197, -7200 / 2197, 7296 / 2197, 0.0, 0.0],
    [439 / 216, -8.0, 3680 / 513, -845 / 4104, 0.0],
    [-8 / 27, 2.0, -3544 / 2565, 1859 / 4104, -11 / 40],
])
RKF_B5 = np.array([16 / 135, 0.0, 6656 / 12825, 28561 / 56430, -9 / 50, 2 / 55])
RKF_B4 = np.array([25 / 216, 0.0, 1408 / 2565, 2197 / 4104, -1 / 5, 0.0])
RKF_E = RKF_B5 - RKF_B4


@njit_no_refcounts
def config_acceleration(tree, q, qd, qdd, out):
    """out (nq) = d^2 q / dt^2 for joint velocities qd and accelerations qdd.

    Free position: d/dt (R v) = R (w x v + v'). Quaternion q' = 1/2 q (x) w, so
    q'' = 1/2 (q' (x) w + q (x) w'). Scalar joints: qdd itself.
    """
    for b in range(tree.parent.shape[0]):
        t = tree.jtype[b]
        a = tree.qadr[b]
        v = tree.vadr[b]
        if t == REVOLUTE or t == PRISMATIC:
            out[a] = qdd[v]
        elif t == UNIVERSAL:
            out[a] = qdd[v]
            out[a + 1] = qdd[v + 1]
        elif t == FREE or t == BALL:
            o = a + 3 if t == FREE else a
            w = v + 3 if t == FREE else v
            qw, qx, qy, qz = q[o], q[o + 1], q[o + 2], q[o + 3]
            wx, wy, wz = qd[w], qd[w + 1], qd[w + 2]
            ax, ay, az = qdd[w], qdd[w + 1], qdd[w + 2]
            dw = -0.5 * (qx * wx + qy * wy + qz * wz)
            dx = 0.5 * (qw * wx + qy * wz - qz * wy)
            dy = 0.5 * (qw * wy + qz * wx - qx * wz)
            dz = 0.5 * (qw * wz + qx * wy - qy * wx)
            out[o] = 0.5 * (-dx * wx - dy * wy - dz * wz - qx * ax - qy * ay - qz * az)
            out[o + 1] = 0.5 * (dw * wx + dy * wz - dz * wy + qw * ax + qy * az - qz * ay)
            out[o + 2] = 0.5 * (dw * wy + dz * wx - dx * wz + qw * ay + qz * ax - qx * az)
            out[o + 3] = 0.5 * (dw * wz + dx * wy - dy * wx + qw * az + qx * ay - qy * ax)
            if t == FREE:
                ux, uy, uz = qd[v], qd[v + 1], qd[v + 2]
                cx = wy * uz - wz * uy + qdd[v]
                cy = wz * ux - wx * uz + qdd[v + 1]
                cz = wx * uy - wy * ux + qdd[v + 2]
                # rotate c into the parent frame: c + w t + q_vec x t, t = 2 q_vec x c
                tx = 2.0 * (qy * cz - qz * cy)
                ty = 2.0 * (qz * cx - qx * cz)
                tz = 2.0 * (qx * cy - qy * cx)
                out[a] = cx + qw * tx + qy * tz - qz * ty
                out[a + 1] = cy + qw * ty + qz * tx - qx * tz
                out[a + 2] = cz + qw * tz + qx * ty - qy * tx


@njit_no_refcounts
def euler_step(st, lv, wk, t, h, y, cstate, ynew, literal):
    """McKenna's Euler: qd += h qdd; q += h q' + h^2/2 q'' (literal Eq 11: see module doc)."""
    nq = st.nq
    nv = lv.ctrl.shape[0]
    n = y.shape[0]
    k0 = wk.k[0]
    evaluate(st, lv, wk, t, t + 0.5 * h, y, cstate, wk.cs_cand, k0)
    q = y[:nq]
    config_acceleration(st.tree, q, y[nq:nq + nv], k0[nq:nq + nv], wk.qacc)
    for i in range(nq, n):
        ynew[i] = y[i] + h * k0[i]
    if literal:
        qdot_new = wk.k[1]
        qdot(st.tree, q, ynew[nq:nq + nv], qdot_new)
        for i in range(nq):
            ynew[i] = y[i] + 0.5 * h * (k0[i] + qdot_new[i]) + 0.5 * h * h * wk.qacc[i]
    else:
        for i in range(nq):
            ynew[i] = y[i] + h * k0[i] + 0.5 * h * h * wk.qacc[i]


@njit_no_refcounts
def symplectic_euler_step(st, lv, wk, t, h, y, cstate, ynew):
    """Semi-implicit Euler: qd += h qdd (free joints' linear velocities turned exactly,
    `turn_free_velocities`), then q += h qdot(q, qd_new)."""
    nq = st.nq
    nv = lv.ctrl.shape[0]
    n = y.shape[0]
    k0 = wk.k[0]
    evaluate(st, lv, wk, t, t + 0.5 * h, y, cstate, wk.cs_cand, k0)
    for i in range(nq, n):
        ynew[i] = y[i] + h * k0[i]
    turn_free_velocities(st.tree, y[nq:nq + nv], h, ynew[nq:nq + nv])
    qdot_new = wk.k[1]
    qdot(st.tree, y[:nq], ynew[nq:nq + nv], qdot_new)
    for i in range(nq):
        ynew[i] = y[i] + h * qdot_new[i]


@njit_no_refcounts
def rk4_step(st, lv, wk, t, h, y, cstate, ynew):
    """Classic fourth-order Runge-Kutta."""
    n = y.shape[0]
    k = wk.k
    yt = wk.ytmp
    evaluate(st, lv, wk, t, t + 0.5 * h, y, cstate, wk.cs_cand, k[0])
    for s in range(1, 4):
        c = h if s == 3 else 0.5 * h
        for i in range(n):
            yt[i] = y[i] + c * k[s - 1, i]
        evaluate(st, lv, wk, t + c, t + 0.5 * h, yt, wk.cs_cand, wk.cs_scratch, k[s])
    for i in range(n):
        ynew[i] = y[i] + h / 6.0 * (k[0, i] + 2.0 * k[1, i] + 2.0 * k[2, i] + k[3, i])


@njit_no_refcounts
def rkf45_first_stage(st, lv, wk, t, ts, y, cstate):
    """k[0] = f(t, y): shared by every attempt from the same start (a retry reuses it);
    ts is a time strictly inside the step before the next switching event."""
    evaluate(st, lv, wk, t, ts, y, cstate, wk.cs_cand, wk.k[0])


@njit_no_refcounts
def rkf45_attempt(st, lv, wk, t, ts, h, y, atol, rtol, ynew):
    """One Fehlberg attempt of size h from (t, y), k[0] already evaluated.

    Writes the 5th-order solution to ynew and returns (err, i): the scaled error
    max_i |e_i| / (atol + rtol max(|y_i|, |ynew_i|)) and the component that set it
    (inf and the first non-finite component when the attempt produced NaN/inf).
    """
    n = y.shape[0]
    k = wk.k
    yt = wk.ytmp
    for s in range(1, 6):
        for i in range(n):
            acc = 0.0
            for r in range(s):
                acc += RKF_A[s, r] * k[r, i]
            yt[i] = y[i] + h * acc
        evaluate(st, lv, wk, t + RKF_C[s] * h, ts, yt, wk.cs_cand, wk.cs_scratch, k[s])
    err = 0.0
    where = 0
    for i in range(n):
        acc5 = 0.0
        acce = 0.0
        for s in range(6):
            acc5 += RKF_B5[s] * k[s, i]
            acce += RKF_E[s] * k[s, i]
        ynew[i] = y[i] + h * acc5
        scale = atol + rtol * max(abs(y[i]), abs(ynew[i]))
        r = abs(h * acce) / scale
        if not math.isfinite(r) or not math.isfinite(ynew[i]):
            return math.inf, i
        if r > err:
            err = r
            where = i
    return err, where
