"""Forward dynamics: Featherstone's articulated-body algorithm, O(n), in body frames.

Passes (McKenna Eqs 35-46 in Featherstone-2008 form):
  1. outward: transforms, motion subspaces, velocities v and velocity products c
     (`kinematics.joint_pass`); rigid inertias and bias forces pA = v x* I v - f_ext;
  2. inward: U = IA S, D = S^T U + armature (factored LDL^T, never inverted), u = tau -
     S^T pA; each body hands its articulated inertia Ia = IA - U D^-1 U^T and bias
     pa = pA + Ia c + U D^-1 u to its parent (children's contributions are summed at
     branches);
  3. outward: a' = X a_parent + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd, starting from
     the world's fictitious acceleration -g (gravity acts on every body at its COM).

Prescribed joints (`tree.prescribed`, the root of a tree in root mode `prescribed`):
their qdd is an input; such a body hands its whole inertia and the bias of the known
acceleration to its parent and gets the spatial constraint force f = IA a + pA
(McKenna Eq 45), stored in `work.f` in body axes.
"""
from __future__ import annotations

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.kinematics import joint_pass, nv_of, unit_column
from pipeline.physics.model import PRISMATIC
from pipeline.physics.spatial import (add_force_to_parent, add_inertia_to_parent,
                                      cross_force_inertia, ldl_factor, ldl_solve,
                                      motion_to_child, rigid_inertia)


@njit_no_refcounts
def body_bias_forces(tree, fext, w, out):
    """Rigid inertias into w.IA and out[i] = v_i x* I_i v_i - f_ext_i (body frame).

    fext is (nb, 6) in world axes [torque about the body origin; force], or (0, 6)."""
    nb = tree.parent.shape[0]
    has_fext = fext.shape[0] == nb
    for i in range(nb):
        rigid_inertia(tree.mass, tree.com, tree.inertia, i, w.IA, i)
        cross_force_inertia(w.IA, i, w.v, i, out, i)
        if has_fext:
            for k in range(3):
                out[i, k] -= (w.xrot[i, 0, k] * fext[i, 0] + w.xrot[i, 1, k] * fext[i, 1]
                              + w.xrot[i, 2, k] * fext[i, 2])
                out[i, 3 + k] -= (w.xrot[i, 0, k] * fext[i, 3] + w.xrot[i, 1, k] * fext[i, 4]
                                  + w.xrot[i, 2, k] * fext[i, 5])


@njit_no_refcounts
def parent_acceleration(tree, gravity, w, a, i):
    """a[i] = X_i a_parent: the parent's acceleration seen in body i (world: -g)."""
    p = tree.parent[i]
    if p >= 0:
        motion_to_child(w.E, w.r, i, a, p, a, i)
    else:
        for k in range(3):
            a[i, k] = 0.0
            a[i, 3 + k] = -(w.E[i, k, 0] * gravity[0] + w.E[i, k, 1] * gravity[1]
                            + w.E[i, k, 2] * gravity[2])


@njit_no_refcounts
def bias_accelerations(tree, gravity, w, a0):
    """a0[i]: body i's spatial acceleration when the joint accelerations of the free
    joints are zero (the world's -g and the velocity products c carried outward), so
    that a_i = J_i qdd + a0[i] with J_i the body's Jacobian, prescribed DOFs included."""
    for i in range(tree.parent.shape[0]):
        parent_acceleration(tree, gravity, w, a0, i)
        for k in range(6):
            a0[i, k] += w.c[i, k]


@njit_no_refcounts
def aba(tree, gravity, q, qd, tau, fext, qdd, w):
    """qdd (nv,) <- forward dynamics. Entries of prescribed joints are read, not written.

    tree: TreeArrays; gravity (3,); q (nq,), qd/tau (nv,); fext (nb, 6) world axes or
    (0, 6); w: kinematics.Workspace of the same model. Allocates nothing."""
    joint_pass(tree, q, qd, w, True)
    aba_after_joint_pass(tree, gravity, tau, fext, qdd, w)


@njit_no_refcounts
def aba_after_joint_pass(tree, gravity, tau, fext, qdd, w):
    """Passes 2 and 3 of `aba` for a workspace on which `joint_pass(..., True)` has just
    run (a step kernel that needed the poses and velocities first saves one pass)."""
    body_bias_forces(tree, fext, w, w.pA)
    articulated_passes(tree, gravity, tau, tree.armature, qdd, w)


@numba.njit(cache=True, inline="always")
def articulated_passes(tree, gravity, tau, diag, qdd, w):
    """The inward and outward passes of the ABA over the inertias w.IA and bias forces w.pA
    the caller has set, with diag (nv,) added to every D = S^T IA S (the armature).

    Any symmetric IA and diag that keep the joint-space matrix positive definite work:
    the implicit step adds the linearised contact forces to IA and the joint elements'
    stiffness and damping to diag (pipeline.physics.implicit). Inlined into its two
    callers: a call handing over the tree's and the workspace's tuples of arrays costs
    a reference count on each array."""
    nb = tree.parent.shape[0]
    S, U, IA, Ia = w.S, w.U, w.IA, w.Ia
    for i in range(nb - 1, -1, -1):
        p = tree.parent[i]
        n = nv_of(tree.jtype[i])
        va = tree.vadr[i]
        if n == 0 or tree.prescribed[i]:
            if p < 0:
                continue
            # the joint's acceleration is known: S qdd joins c and the inertia passes whole
            for k in range(6):
                acc = w.c[i, k]
                for d in range(va, va + n):
                    acc += S[d, k] * qdd[d]
                w.a[i, k] = acc  # scratch until the outward pass
            for a in range(6):
                acc = w.pA[i, a]
                for b in range(6):
                    acc += IA[i, a, b] * w.a[i, b]
                w.pa[i, a] = acc
            add_inertia_to_parent(w.E, w.r, i, IA, i, IA, p)
            add_force_to_parent(w.E, w.r, i, w.pa, i, w.pA, p)
            continue
        jt = tree.jtype[i]
        for d in range(va, va + n):
            k = unit_column(jt, d - va)
            if k >= 0:  # ball and free joints: S picks one coordinate, U one column of IA
                for a in range(6):
                    U[d, a] = IA[i, a, k]
                w.u[d] = tau[d] - w.pA[i, k]
                continue
            # the other joints move along an axis: S is angular-only or linear-only
            o = 3 if jt == PRISMATIC else 0
            s0, s1, s2 = S[d, o], S[d, o + 1], S[d, o + 2]
            for a in range(6):
                U[d, a] = IA[i, a, o] * s0 + IA[i, a, o + 1] * s1 + IA[i, a, o + 2] * s2
            w.u[d] = tau[d] - (s0 * w.pA[i, o] + s1 * w.pA[i, o + 1] + s2 * w.pA[i, o + 2])
        if n == 1:
            o = 3 if jt == PRISMATIC else 0
            dinv = 1.0 / (S[va, o] * U[va, o] + S[va, o + 1] * U[va, o + 1]
                          + S[va, o + 2] * U[va, o + 2] + diag[va])
            w.Dfac[i, 0, 0] = dinv
            if p < 0:
                continue
            # Ia = IA - U U^T / D,  pa = pA + Ia c + U u / D
            ud = w.u[va] * dinv
            for a in range(6):
                wa = U[va, a] * dinv
                for b in range(a, 6):
                    Ia[i, a, b] = Ia[i, b, a] = IA[i, a, b] - wa * U[va, b]
            for a in range(6):
                acc = w.pA[i, a] + U[va, a] * ud
                for b in range(6):
                    acc += Ia[i, a, b] * w.c[i, b]
                w.pa[i, a] = acc
        else:
            D = w.W6
            for d in range(n):
                kd = unit_column(jt, d)
                for e in range(d, n):
                    if kd >= 0:
                        acc = U[va + e, kd]
                    else:
                        acc = 0.0
                        for k in range(6):
                            acc += S[va + d, k] * U[va + e, k]
                    D[d, e] = acc
                    D[e, d] = acc
                D[d, d] += diag[va + d]
            ldl_factor(D, n, w.Dfac, i)
            if p < 0:
                continue
            # with D = L diag(dd) L^T:  G = L^-1 U^T (n x 6, in T6), g = L^-1 u (in F2[0]);
            # Ia = IA - G^T diag(1/dd) G,  pa = pA + Ia c + G^T diag(1/dd) g
            G = w.T6
            g = w.F2
            for d in range(n):
                gd = w.u[va + d]
                for m in range(d):
                    gd -= w.Dfac[i, d, m] * g[0, m]
                g[0, d] = gd
                for a in range(6):
                    acc = U[va + d, a]
                    for m in range(d):
                        acc -= w.Dfac[i, d, m] * G[m, a]
                    G[d, a] = acc
            for a in range(6):
                for b in range(a, 6):
                    acc = IA[i, a, b]
                    for d in range(n):
                        acc -= G[d, a] * w.Dfac[i, d, d] * G[d, b]
                    Ia[i, a, b] = Ia[i, b, a] = acc
            for a in range(6):
                acc = w.pA[i, a]
                for b in range(6):
                    acc += Ia[i, a, b] * w.c[i, b]
                for d in range(n):
                    acc += G[d, a] * w.Dfac[i, d, d] * g[0, d]
                w.pa[i, a] = acc
        add_inertia_to_parent(w.E, w.r, i, Ia, i, IA, p)
        add_force_to_parent(w.E, w.r, i, w.pa, i, w.pA, p)

    rhs = w.F2
    for i in range(nb):
        n = nv_of(tree.jtype[i])
        va = tree.vadr[i]
        parent_acceleration(tree, gravity, w, w.a, i)
        for k in range(6):
            w.a[i, k] += w.c[i, k]
        if n > 0 and not tree.prescribed[i]:
            # qdd = D^-1 (u - U^T a')
            for d in range(n):
                acc = w.u[va + d]
                for k in range(6):
                    acc -= U[va + d, k] * w.a[i, k]
                rhs[0, d] = acc
            ldl_solve(w.Dfac, i, n, rhs, 0)
            for d in range(n):
                qdd[va + d] = rhs[0, d]
        for d in range(va, va + n):
            for k in range(6):
                w.a[i, k] += S[d, k] * qdd[d]
        if tree.prescribed[i]:
            for a in range(6):
                acc = w.pA[i, a]
                for b in range(6):
                    acc += IA[i, a, b] * w.a[i, b]
                w.f[i, a] = acc
