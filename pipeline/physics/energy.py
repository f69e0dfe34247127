"""The energy balance of a run, kept inside the step loop (the energy check of
pipeline/runaway.py).

Over a frame the mechanical energy E (kinetic, gravitational, and the potentials of the
joints' springs, exponential springs, limit springs and servos) changes by the work of the
scene's inputs (controller torques and biases, motors moving exponential springs' rests,
pushes) less what the joints' dampers dissipate:

    dE = W_in - D_joints - D_contact + (the integrator's error)

The step loop adds `dE - W_in + D_joints` of every frame to a running `gain`: the energy the
run has that nothing in the scene gave it. Contact (damping, friction) only takes energy
out, and the contact springs' stored energy is left out of E (it is what a body landing
lends the ground and takes back), so `gain` never exceeds the integrator's error by more
than the contact energy stored at the start. W_in and D are trapezoids over the frame
(controller torques are constant over a frame, so their work on a scalar joint is exact:
torque times the joint's travel), except the motors' work, which the step loop adds up step
by step (step.motor_work: a program may end inside a frame, where a trapezoid over the
frame misses most of a stiff spring's work). E is measured at each kernel call's start,
after Python ran: what commands and controllers do at frame boundaries (`velocity`,
`joint`, a new servo target) is outside the balance.
"""
from __future__ import annotations

import math

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.forces import (PUSH_BODY, PUSH_END, PUSH_FX, PUSH_NX, PUSH_PX, PUSH_PY,
                                     PUSH_PZ, PUSH_START)
from pipeline.physics.kinematics import joint_pass


@njit_no_refcounts
def mechanical_energy(tree, gravity, forces, dof_qpos, nq, y, w):
    """E at the state y (J), and the joint dampers' dissipated power there (W); leaves w's
    kinematics at y. Gravity's potential is zero at the world origin."""
    nv = dof_qpos.shape[0]
    qd = y[nq:nq + nv]
    joint_pass(tree, y[:nq], qd, w, True)
    gx, gy, gz = gravity[0], gravity[1], gravity[2]
    e = 0.0
    for b in range(tree.parent.shape[0]):
        R, c, I, v = w.xrot[b], tree.com[b], tree.inertia[b], w.v[b]
        ox, oy, oz = v[0], v[1], v[2]
        # the COM's velocity (body axes) and position (world)
        vx = v[3] + oy * c[2] - oz * c[1]
        vy = v[4] + oz * c[0] - ox * c[2]
        vz = v[5] + ox * c[1] - oy * c[0]
        spin = (ox * (I[0, 0] * ox + I[0, 1] * oy + I[0, 2] * oz)
                + oy * (I[1, 0] * ox + I[1, 1] * oy + I[1, 2] * oz)
                + oz * (I[2, 0] * ox + I[2, 1] * oy + I[2, 2] * oz))
        px = w.xpos[b, 0] + R[0, 0] * c[0] + R[0, 1] * c[1] + R[0, 2] * c[2]
        py = w.xpos[b, 1] + R[1, 0] * c[0] + R[1, 1] * c[1] + R[1, 2] * c[2]
        pz = w.xpos[b, 2] + R[2, 0] * c[0] + R[2, 1] * c[1] + R[2, 2] * c[2]
        m = tree.mass[b]
        e += 0.5 * (m * (vx * vx + vy * vy + vz * vz) + spin) - m * (gx * px + gy * py + gz * pz)
    dissipated = 0.0
    for j in range(nv):
        s = qd[j]
        e += 0.5 * tree.armature[j] * s * s
        damping = forces.damping[j] + forces.servo_kd[j]
        iq = dof_qpos[j]
        if iq >= 0:
            x = y[iq]
            d = x - forces.spring_rest[j]
            e += 0.5 * forces.spring_k[j] * d * d
            alpha, beta = forces.exp_alpha[j], forces.exp_beta[j]
            if alpha != 0.0 and beta != 0.0:
                # the exponential spring's potential: integral of alpha (e^(beta u) - 1) du
                u = abs(x - y[nq + nv + j])
                e += alpha * (math.expm1(beta * u) / beta - u)
            if x < forces.limit_lower[j]:
                d = forces.limit_lower[j] - x
                e += 0.5 * forces.limit_k[j] * d * d
                damping += forces.limit_b[j]
            elif x > forces.limit_upper[j]:
                d = x - forces.limit_upper[j]
                e += 0.5 * forces.limit_k[j] * d * d
                damping += forces.limit_b[j]
            d = forces.servo_target[j] - x
            e += 0.5 * forces.servo_kp[j] * d * d
        dissipated += damping * s * s
    return e, dissipated


@njit_no_refcounts
def push_power(pushes, ta, tb, w):
    """The pushes' power (W) on the bodies as w's kinematics have them, each weighted by the
    share of [ta, tb] it is active in."""
    p = 0.0
    for i in range(pushes.shape[0]):
        row = pushes[i]
        share = (min(tb, row[PUSH_END]) - max(ta, row[PUSH_START])) / (tb - ta)
        if share <= 0.0:
            continue
        b = int(row[PUSH_BODY])
        R, v = w.xrot[b], w.v[b]
        # the point's velocity in body axes: v + w x r, then into the world
        rx, ry, rz = row[PUSH_PX], row[PUSH_PY], row[PUSH_PZ]
        bx = v[3] + v[1] * rz - v[2] * ry
        by = v[4] + v[2] * rx - v[0] * rz
        bz = v[5] + v[0] * ry - v[1] * rx
        power = 0.0
        for k in range(3):
            power += (row[PUSH_FX + k] * (R[k, 0] * bx + R[k, 1] * by + R[k, 2] * bz)
                      + row[PUSH_NX + k] * (R[k, 0] * v[0] + R[k, 1] * v[1] + R[k, 2] * v[2]))
        p += share * power
    return p


@njit_no_refcounts
def input_work(forces, ctrl, dof_qpos, nq, y0, y1, dt):
    """The work (J) of the controller torques and biases from state y0 to y1 over a frame of
    dt. (The motors' is taken step by step: step.motor_work.)"""
    nv = dof_qpos.shape[0]
    work = 0.0
    for j in range(nv):
        torque = ctrl[j] + forces.bias[j]
        iq = dof_qpos[j]
        if iq < 0:  # a ball or free DOF: no coordinate to take the travel of
            work += torque * 0.5 * (y0[nq + j] + y1[nq + j]) * dt
        else:
            work += torque * (y1[iq] - y0[iq])
    return work
