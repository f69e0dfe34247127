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

Prescribed DOFs keep their given accelerations (their rows are dqd = h qdd).
This is what MuJoCo's `implicit` integrator does for damping, extended to stiffness; the
first-order position update dissipates the contact vibration it cannot resolve (no bounce
at steps longer than a contact period), which is the point: the roach's 0.1 mg feet ring
at ~10^5-10^6 rad/s on a 52 500 N/m ground spring.
"""
from __future__ import annotations

import math

import numba

from pipeline.physics.contact.linearize import ground_point_derivatives
from pipeline.physics.crba import crba_after_joint_pass
from pipeline.physics.derivative import evaluate
from pipeline.physics.kinematics import nv_of, qdot


@numba.njit(cache=True)
def joint_stiffness(forces, dof_qpos, q, exp_rest, K, C, Krest):
    """Diagonal -dtau/dq (K), -dtau/dqd (C) and the exponential springs' stiffness with
    respect to their moving rest (Krest) of the joint elements in pipeline.physics.forces."""
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
        K[j, j] += k
        C[j, j] += c
        Krest[j] = kr


@numba.njit(cache=True)
def point_jacobian(tree, w, b, px, py, pz, J):
    """J (3, nv) <- d(world velocity of the point p fixed in body b) / d qd.

    The column of DOF d of body b or an ancestor i is v + w x (p - x_i), with the DOF's
    motion subspace in world axes w = R_i S[d, :3], v = R_i S[d, 3:]; the other columns
    are zero."""
    J[:, :] = 0.0
    i = b
    while i >= 0:
        R = w.xrot[i]
        rx, ry, rz = px - w.xpos[i, 0], py - w.xpos[i, 1], pz - w.xpos[i, 2]
        va = tree.vadr[i]
        for d in range(va, va + nv_of(tree.jtype[i])):
            s = w.S[d]
            wx = R[0, 0] * s[0] + R[0, 1] * s[1] + R[0, 2] * s[2]
            wy = R[1, 0] * s[0] + R[1, 1] * s[1] + R[1, 2] * s[2]
            wz = R[2, 0] * s[0] + R[2, 1] * s[1] + R[2, 2] * s[2]
            J[0, d] = R[0, 0] * s[3] + R[0, 1] * s[4] + R[0, 2] * s[5] + wy * rz - wz * ry
            J[1, d] = R[1, 0] * s[3] + R[1, 1] * s[4] + R[1, 2] * s[5] + wz * rx - wx * rz
            J[2, d] = R[2, 0] * s[3] + R[2, 1] * s[4] + R[2, 2] * s[5] + wx * ry - wy * rx
        i = tree.parent[i]


@numba.njit(cache=True)
def _add_point_terms(tree, b, J, Kp, Cp, K, C):
    """K += -J^T Kp J, C += -J^T Cp J over the columns of b's ancestors (J is zero
    elsewhere). Kp = dF/dp and Cp = dF/dv of the point force."""
    i = b
    while i >= 0:
        va = tree.vadr[i]
        for c1 in range(va, va + nv_of(tree.jtype[i])):
            # entry (c1, c2) of J^T Kp J is (J[:, c1]^T Kp) . J[:, c2]
            tk0 = J[0, c1] * Kp[0, 0] + J[1, c1] * Kp[1, 0] + J[2, c1] * Kp[2, 0]
            tk1 = J[0, c1] * Kp[0, 1] + J[1, c1] * Kp[1, 1] + J[2, c1] * Kp[2, 1]
            tk2 = J[0, c1] * Kp[0, 2] + J[1, c1] * Kp[1, 2] + J[2, c1] * Kp[2, 2]
            tc0 = J[0, c1] * Cp[0, 0] + J[1, c1] * Cp[1, 0] + J[2, c1] * Cp[2, 0]
            tc1 = J[0, c1] * Cp[0, 1] + J[1, c1] * Cp[1, 1] + J[2, c1] * Cp[2, 1]
            tc2 = J[0, c1] * Cp[0, 2] + J[1, c1] * Cp[1, 2] + J[2, c1] * Cp[2, 2]
            k = b
            while k >= 0:
                vk = tree.vadr[k]
                for c2 in range(vk, vk + nv_of(tree.jtype[k])):
                    K[c1, c2] -= tk0 * J[0, c2] + tk1 * J[1, c2] + tk2 * J[2, c2]
                    C[c1, c2] -= tc0 * J[0, c2] + tc1 * J[1, c2] + tc2 * J[2, c2]
                k = tree.parent[k]
        i = tree.parent[i]


@numba.njit(cache=True)
def tree_lu_factor(W, parent):
    """W <- its LU factors in place, for a W with the sparsity of a branched tree:
    W[i, j] != 0 only when DOF i is an ancestor of DOF j or the reverse (parent: the DOF
    parent array). Eliminating the DOFs leaves first makes no fill-in, so the cost is the
    sum of the squared DOF depths instead of n^3 / 3: Featherstone's L^T D L
    factorization (RBDA 6.5), here without relying on symmetry. Row i keeps the
    multiplier of each eliminated descendant k in W[i, k]. No pivoting: the step's
    W = M + h C + h^2 K is symmetric positive definite (the contact terms are reduced to
    their resisting part) as long as the joints' own constants are not negative.
    Returns False on a zero pivot."""
    for k in range(W.shape[0] - 1, -1, -1):
        pivot = W[k, k]
        if pivot == 0.0 or not math.isfinite(pivot):
            return False
        i = parent[k]
        while i >= 0:
            a = W[i, k] / pivot
            if a != 0.0:
                j = parent[k]
                while j >= 0:
                    W[i, j] -= a * W[k, j]
                    j = parent[j]
            W[i, k] = a
            i = parent[i]
    return True


@numba.njit(cache=True)
def tree_lu_solve(W, parent, x):
    """x <- W^-1 x with the factors of tree_lu_factor: the eliminations again, leaves
    first, then back substitution from the root outwards."""
    n = W.shape[0]
    for k in range(n - 1, -1, -1):
        i = parent[k]
        while i >= 0:
            x[i] -= W[i, k] * x[k]
            i = parent[i]
    for k in range(n):
        s = x[k]
        j = parent[k]
        while j >= 0:
            s -= W[k, j] * x[j]
            j = parent[j]
        x[k] = s / W[k, k]


@numba.njit(cache=True)
def factor_step_matrix(st, lv, wk, y, cstate, g):
    """Assemble and factor W = M + g C + g^2 K at y (module doc), after `evaluate` at y
    has left y's poses and velocities in the workspace. Prescribed DOFs get identity rows.
    Returns False on a zero pivot."""
    nq = st.nq
    nv = lv.ctrl.shape[0]
    tree = st.tree
    w = wk.dyn
    K = wk.stiff
    C = wk.damp
    K[:, :] = 0.0
    C[:, :] = 0.0
    joint_stiffness(lv.forces, st.dof_qpos, y[:nq], y[nq + nv:], K, C, wk.krest)
    n = ground_point_derivatives(st.contact, cstate, w.xpos, w.xrot, w.v, wk.lin_body,
                                 wk.lin_point, wk.lin_dfdp, wk.lin_dfdv)
    for m in range(n):
        b = wk.lin_body[m]
        point_jacobian(tree, w, b, wk.lin_point[m, 0], wk.lin_point[m, 1], wk.lin_point[m, 2],
                       wk.jac)
        _add_point_terms(tree, b, wk.jac, wk.lin_dfdp[m], wk.lin_dfdv[m], K, C)
    M = wk.mass
    crba_after_joint_pass(tree, M, w)
    A = wk.lin
    for i in range(nv):
        for j in range(nv):
            A[i, j] = M[i, j] + g * C[i, j] + g * g * K[i, j]
    # prescribed DOFs: their velocity change is known, so W's coupling to them moves to the
    # right-hand side (kept in C, no longer needed) and their rows and columns become unit
    for b in range(tree.parent.shape[0]):
        if tree.prescribed[b]:
            va = tree.vadr[b]
            for d in range(va, va + nv_of(tree.jtype[b])):
                for j in range(nv):
                    C[j, d] = A[j, d]
                    A[d, j] = 0.0
                    A[j, d] = 0.0
                A[d, d] = 1.0
    return tree_lu_factor(A, st.dof_parent)


@numba.njit(cache=True)
def stage_velocity(st, wk, g, fq, fv, frest, kv):
    """kv <- W^-1 (M fv - g K fq + g Krest frest), W = M + g C + g^2 K: the velocity
    part of a linearly implicit stage (I - g J) k = F of the mechanical system with
    F = (fq, fv, frest) (position rates, accelerations, rest rates); the position part is
    fq + g kv. The implicit Euler step is the stage with g = h and F = f(y).
    Prescribed DOFs take kv = fv (their given accelerations)."""
    M = wk.mass
    K = wk.stiff
    nv = kv.shape[0]
    for i in range(nv):
        acc = 0.0
        kq = 0.0
        for j in range(nv):
            acc += M[i, j] * fv[j]
            kq += K[i, j] * fq[j]
        kv[i] = acc - g * (kq - wk.krest[i] * frest[i])
    tree = st.tree
    for b in range(tree.parent.shape[0]):
        if tree.prescribed[b]:
            va = tree.vadr[b]
            for d in range(va, va + nv_of(tree.jtype[b])):
                for i in range(nv):
                    kv[i] -= wk.damp[i, d] * fv[d]
                kv[d] = fv[d]
    tree_lu_solve(wk.lin, st.dof_parent, kv)


@numba.njit(cache=True)
def _set_nan(ynew):
    for i in range(ynew.shape[0]):
        ynew[i] = math.nan


@numba.njit(cache=True)
def implicit_euler_step(st, lv, wk, t, h, y, cstate, ynew):
    """One linearly implicit Euler step (module doc); a singular system gives NaN, which
    the step loop reports as an unstable run."""
    nq = st.nq
    nv = lv.ctrl.shape[0]
    k0 = wk.k[0]
    evaluate(st, lv, wk, t, t + 0.5 * h, y, cstate, wk.cs_cand, k0)
    if not factor_step_matrix(st, lv, wk, y, cstate, h):
        _set_nan(ynew)
        return
    qd = y[nq:nq + nv]
    kv = wk.rhs
    stage_velocity(st, wk, h, qd, k0[nq:nq + nv], k0[nq + nv:], kv)
    for i in range(nv):
        ynew[nq + i] = qd[i] + h * kv[i]
        ynew[nq + nv + i] = y[nq + nv + i] + h * k0[nq + nv + i]
    qdot_new = wk.k[1]
    qdot(st.tree, y[:nq], ynew[nq:nq + nv], qdot_new)
    for i in range(nq):
        ynew[i] = y[i] + h * qdot_new[i]

