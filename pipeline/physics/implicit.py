"""Linearly implicit Euler: the stiff forces (joint springs and dampers, ground contact)
are taken at the end of the step, linearised, so the step is limited by accuracy instead of
by the vibration of a stiff spring on a light link.

With M(q) qdd = f(q, qd), stiffness K = -df/dq and damping C = -df/dqd (both in velocity
coordinates), one step of h solves

    (M + h C + h^2 K) dqd = h M qdd - h^2 K qd + h^2 K_rest rest_rate

for dqd, then qd += dqd and q advances with the new qd (the semi-implicit position update).
qdd is the articulated-body acceleration at the start of the step, so only the matrix is
approximate: whatever K and C miss (collisions, attach springs, Coriolis terms) is explicit,
and the step stays first-order consistent. K and C gather:

* joint elements, per DOF: linear, exponential and limit springs, servo gains, dampers;
* every ground contact point that pushes or is held by a sticky anchor: J^T Kp J and
  J^T Cp J with the point Jacobian J (3 x nv) and the 3 x 3 derivatives of the point's
  force with respect to its position and velocity, differentiated by hand from the
  contact law (pipeline.physics.contact.linearize) and reduced to the part that resists.

The system is never assembled. With kv = dqd / h it reads M kv = f - h K qd + h K_rest
rest_rate - (h C + h^2 K) kv: the forces at the step's end, linear in kv. A joint element
acts on its own DOF, so h c + h^2 k joins the DOF's armature and -h k qd its force. A
contact point's term J^T A J (A = -(h dF/dv + h^2 dF/dp)) is, with J = X J_b for the
body's Jacobian J_b, a spatial inertia X^T A X added to the body's: the body resists the
acceleration J_b kv as a heavier body would. So one articulated-body pass with those
inertias and diagonals solves the system in O(n), where assembling M + h C + h^2 K (the
CRBA, one Jacobian product per point) and factoring it cost three times as much. The
pass's bodies accelerate by a_b = J_b kv + a0_b (a0_b: gravity's -g and the velocity
products, `bias_accelerations`), so the added inertias' share of a0_b is taken back out
of the bias forces, and -h K qd is the force h dF/dp v_p at each point.

Prescribed DOFs keep their given accelerations (the ABA reads them: kv = qdd there).
This is what MuJoCo's `implicit` integrator does for damping, extended to stiffness; the
first-order position update dissipates the contact vibration it cannot resolve (no bounce
at steps longer than a contact period), which is the point: the roach's 0.1 mg feet ring
at ~10^5-10^6 rad/s on a 52 500 N/m ground spring.
"""
from __future__ import annotations

import math

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.aba import articulated_passes, bias_accelerations, body_bias_forces
from pipeline.physics.contact.linearize import ground_point_derivatives
from pipeline.physics.contact.points import point_velocity
from pipeline.physics.derivative import evaluate, prescribed_accelerations
from pipeline.physics.kinematics import qdot, turn_free_velocities


@njit_no_refcounts
def joint_stiffness(forces, dof_qpos, q, exp_rest, K, C, Krest):
    """-dtau_j/dq_j (K), -dtau_j/dqd_j (C) and the exponential springs' stiffness with
    respect to their moving rest (Krest), per DOF, of the joint elements in
    pipeline.physics.forces (each acts on its own DOF alone)."""
    for j in range(C.shape[0]):
        c = forces.damping[j] + forces.servo_kd[j]
        k = 0.0
        kr = 0.0
        iq = dof_qpos[j]
        if iq >= 0:
            x = q[iq]
            k = forces.spring_k[j] + forces.servo_kp[j]
            if forces.exp_alpha[j] != 0.0:
                kr = forces.exp_alpha[j] * forces.exp_beta[j] * math.exp(
                    forces.exp_beta[j] * abs(x - exp_rest[j]))
                k += kr
            if x < forces.limit_lower[j] or x > forces.limit_upper[j]:
                k += forces.limit_k[j]
                c += forces.limit_b[j]
        K[j] = k
        C[j] = c
        Krest[j] = kr


@numba.njit(cache=True, inline="always")
def add_contact_inertias(wk, n, h):
    """Add the linearised ground contact of the n points ground_point_derivatives left in
    wk (runs of one body each) to the ABA's inputs, after body_bias_forces: to each
    touching body's inertia IA the spatial inertia sum X^T A X (A = -(h dF/dv + h^2 dF/dp),
    X = [-(r x) | 1] maps the body's spatial acceleration to the point's, r the point
    from the body origin); to its bias force pA, minus the wrench of the forces h dF/dp v
    at the points and of A X a0 (module doc). Summed in world axes, rotated once a body."""
    w = wk.dyn
    A6 = wk.touch6
    fw = wk.touchf
    m = 0
    while m < n:
        b = wk.lin_body[m]
        A6[0, :, :] = 0.0
        fw[:] = 0.0
        while m < n and wk.lin_body[m] == b:
            px, py, pz = wk.lin_point[m, 0], wk.lin_point[m, 1], wk.lin_point[m, 2]
            P = wk.lin_dfdp[m]
            V = wk.lin_dfdv[m]
            vx, vy, vz = point_velocity(b, px, py, pz, w.xpos, w.xrot, w.v)
            fx = h * (P[0, 0] * vx + P[0, 1] * vy + P[0, 2] * vz)
            fy = h * (P[1, 0] * vx + P[1, 1] * vy + P[1, 2] * vz)
            fz = h * (P[2, 0] * vx + P[2, 1] * vy + P[2, 2] * vz)
            rx, ry, rz = px - w.xpos[b, 0], py - w.xpos[b, 1], pz - w.xpos[b, 2]
            fw[0] += ry * fz - rz * fy
            fw[1] += rz * fx - rx * fz
            fw[2] += rx * fy - ry * fx
            fw[3] += fx
            fw[4] += fy
            fw[5] += fz
            _add_point_inertia(A6[0], rx, ry, rz, P, V, h)
            m += 1
        _add_body_terms(w, wk.a0, b, A6, fw)


@njit_no_refcounts
def _add_point_inertia(A6, rx, ry, rz, P, V, h):
    """A6 += X^T A X with A = -(h V + h^2 P) (symmetric) and X = [-(r x) | 1]:
    [[(r x) A (r x)^T, (r x) A], [A (r x)^T, A]]."""
    a00 = -(h * V[0, 0] + h * h * P[0, 0])
    a01 = -(h * V[0, 1] + h * h * P[0, 1])
    a02 = -(h * V[0, 2] + h * h * P[0, 2])
    a11 = -(h * V[1, 1] + h * h * P[1, 1])
    a12 = -(h * V[1, 2] + h * h * P[1, 2])
    a22 = -(h * V[2, 2] + h * h * P[2, 2])
    # B = (r x) A, row by row: (r x) e_k = r x e_k
    b00 = ry * a02 - rz * a01
    b01 = ry * a12 - rz * a11
    b02 = ry * a22 - rz * a12
    b10 = rz * a00 - rx * a02
    b11 = rz * a01 - rx * a12
    b12 = rz * a02 - rx * a22
    b20 = rx * a01 - ry * a00
    b21 = rx * a11 - ry * a01
    b22 = rx * a12 - ry * a02
    # (r x) A (r x)^T = B (r x)^T: entry (i, j) is row i of B dotted with row j of (r x)
    c00 = ry * b02 - rz * b01
    c01 = rz * b00 - rx * b02
    c02 = rx * b01 - ry * b00
    c11 = rz * b10 - rx * b12
    c12 = rx * b11 - ry * b10
    c22 = rx * b21 - ry * b20
    A6[0, 0] += c00
    A6[0, 1] += c01
    A6[0, 2] += c02
    A6[1, 1] += c11
    A6[1, 2] += c12
    A6[2, 2] += c22
    A6[0, 3] += b00
    A6[0, 4] += b01
    A6[0, 5] += b02
    A6[1, 3] += b10
    A6[1, 4] += b11
    A6[1, 5] += b12
    A6[2, 3] += b20
    A6[2, 4] += b21
    A6[2, 5] += b22
    A6[3, 3] += a00
    A6[3, 4] += a01
    A6[3, 5] += a02
    A6[4, 4] += a11
    A6[4, 5] += a12
    A6[5, 5] += a22


@njit_no_refcounts
def _add_body_terms(w, a0, b, A6, fw):
    """Body b's summed contact inertia A6[0] (upper triangles of its diagonal blocks and
    the whole upper-right block, world axes) and wrench fw (world axes) into its ABA
    inputs in body axes (E = R^T): with Ab = E A6 E^T (left in A6[1]), IA += Ab and
    pA -= E fw + Ab a0."""
    R = w.xrot[b]
    Aw = A6[0]
    Ab = A6[1]
    for i in range(3):
        for j in range(i):
            Aw[i, j] = Aw[j, i]
            Aw[3 + i, 3 + j] = Aw[3 + j, 3 + i]
    for blk in range(3):  # top-left, top-right, bottom-right
        oi = 0 if blk < 2 else 3
        oj = 0 if blk == 0 else 3
        for i in range(3):
            for j in range(3):
                acc = 0.0  # (R^T B R)_ij = sum_k R[k, i] (B R)[k, j]
                for k in range(3):
                    acc += R[k, i] * (Aw[oi + k, oj] * R[0, j] + Aw[oi + k, oj + 1] * R[1, j]
                                      + Aw[oi + k, oj + 2] * R[2, j])
                Ab[oi + i, oj + j] = acc
                if blk == 1:
                    Ab[3 + j, i] = acc
    IA = w.IA
    for i in range(6):
        acc = 0.0
        for j in range(6):
            IA[b, i, j] += Ab[i, j]
            acc += Ab[i, j] * a0[b, j]
        w.pA[b, i] -= acc
    for i in range(3):
        w.pA[b, i] -= R[0, i] * fw[0] + R[1, i] * fw[1] + R[2, i] * fw[2]
        w.pA[b, 3 + i] -= R[0, i] * fw[3] + R[1, i] * fw[4] + R[2, i] * fw[5]


@njit_no_refcounts
def implicit_euler_step(st, lv, wk, t, h, y, cstate, ynew):
    """One linearly implicit Euler step (module doc). A system the articulated-body pass
    cannot solve gives NaN, which the step loop reports as an unstable run."""
    nq = st.nq
    nv = lv.ctrl.shape[0]
    tree = st.tree
    w = wk.dyn
    q = y[:nq]
    qd = y[nq:nq + nv]
    evaluate(st, lv, wk, t, t + 0.5 * h, y, cstate, wk.cs_cand, wk.k[0], True)
    rate = wk.k[1][:nv]
    for j in range(nv):
        rate[j] = lv.motor_vel[j] if lv.motor_active[j] != 0 else 0.0
    joint_stiffness(lv.forces, st.dof_qpos, q, y[nq + nv:], wk.stiff, wk.damp, wk.krest)
    for j in range(nv):
        wk.tau[j] += h * (wk.krest[j] * rate[j] - wk.stiff[j] * qd[j])
        wk.diag[j] = tree.armature[j] + h * wk.damp[j] + h * h * wk.stiff[j]
    n = ground_point_derivatives(st.contact, cstate, w.xpos, w.xrot, w.v, wk.lin_body,
                                 wk.lin_point, wk.lin_dfdp, wk.lin_dfdv)
    kv = wk.k[0][:nv]
    prescribed_accelerations(tree, w, qd, lv.qdd_prescribed, kv)
    body_bias_forces(tree, wk.fext, w, w.pA)
    if n > 0:
        bias_accelerations(tree, lv.gravity, w, wk.a0)
        add_contact_inertias(wk, n, h)
    articulated_passes(tree, lv.gravity, wk.tau, wk.diag, kv, w)
    for i in range(nv):
        ynew[nq + i] = qd[i] + h * kv[i]
        ynew[nq + nv + i] = y[nq + nv + i] + h * rate[i]
    turn_free_velocities(tree, qd, h, ynew[nq:nq + nv])
    qdot_new = wk.k[1]
    qdot(tree, q, ynew[nq:nq + nv], qdot_new)
    for i in range(nq):
        ynew[i] = q[i] + h * qdot_new[i]
