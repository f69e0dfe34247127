"""Forward dynamics: Featherstone's articulated-body algorithm, O(n), in body frames.

Passes (McKenna Eqs 35-46 in Featherstone-2008 form):
  1. outward: transforms, motion subspaces, velocities v and velocity products c
     (`kinematics.joint_pass`); rigid inertias and bias forces pA = v x* I v - f_ext;
  2. inward: U = IA S, D = S^T U + armature, u = tau - S^T pA; each body hands its
     articulated inertia Ia = IA - U D^-1 U^T and bias pa = pA + Ia c + U D^-1 u to its
     parent (children's contributions are summed at branches);
  3. outward: a' = X a_parent + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd, starting from
     the world's fictitious acceleration -g (gravity acts on every body at its COM).

Prescribed joints (`tree.prescribed`, the root of a tree in root mode `prescribed`):
their qdd is an input; such a body hands its whole inertia and the bias of the known
acceleration to its parent and gets the spatial constraint force f = IA a + pA
(McKenna Eq 45), stored in `work.f` in body axes.
"""
from __future__ import annotations

import numba

from pipeline.physics.kinematics import joint_pass, nv_of
from pipeline.physics.spatial import (add_force_to_parent, add_inertia_to_parent,
                                      cross_force, mat6_vec, motion_to_child, rigid_inertia,
                                      spd_inverse)


@numba.njit(cache=True)
def body_bias_forces(tree, fext, w, out):
    """Rigid inertias into w.IA and out[i] = v_i x* I_i v_i - f_ext_i (body frame).

    fext is (nb, 6) in world axes [torque about the body origin; force], or (0, 6)."""
    nb = tree.parent.shape[0]
    has_fext = fext.shape[0] == nb
    Iv = w.y6
    for i in range(nb):
        I = w.IA[i]
        rigid_inertia(tree.mass[i], tree.com[i], tree.inertia[i], I)
        mat6_vec(I, w.v[i], Iv)
        cross_force(w.v[i], Iv, out[i])
        if has_fext:
            R = w.xrot[i]
            for k in range(3):
                out[i, k] -= R[0, k] * fext[i, 0] + R[1, k] * fext[i, 1] + R[2, k] * fext[i, 2]
                out[i, 3 + k] -= R[0, k] * fext[i, 3] + R[1, k] * fext[i, 4] + R[2, k] * fext[i, 5]


@numba.njit(cache=True)
def parent_acceleration(tree, gravity, w, i, out):
    """out = X_i a_parent: the parent's acceleration seen in body i (world: -g)."""
    p = tree.parent[i]
    if p >= 0:
        motion_to_child(w.E[i], w.r[i], w.a[p], out)
    else:
        E = w.E[i]
        for k in range(3):
            out[k] = 0.0
            out[3 + k] = -(E[k, 0] * gravity[0] + E[k, 1] * gravity[1] + E[k, 2] * gravity[2])


@numba.njit(cache=True)
def aba(tree, gravity, q, qd, tau, fext, qdd, w):
    """qdd (nv,) <- forward dynamics. Entries of prescribed joints are read, not written.

    tree: TreeArrays; gravity (3,); q (nq,), qd/tau (nv,); fext (nb, 6) world axes or
    (0, 6); w: kinematics.Workspace of the same model. Allocates nothing."""
    joint_pass(tree, q, qd, w, True)
    aba_after_joint_pass(tree, gravity, tau, fext, qdd, w)


@numba.njit(cache=True)
def aba_after_joint_pass(tree, gravity, tau, fext, qdd, w):
    """Passes 2 and 3 of `aba` for a workspace on which `joint_pass(..., True)` has just
    run (a step kernel that needed the poses and velocities first saves one pass)."""
    nb = tree.parent.shape[0]
    body_bias_forces(tree, fext, w, w.pA)
    Ia = w.M6
    pa = w.x6
    W = w.T6
    for i in range(nb - 1, -1, -1):
        p = tree.parent[i]
        n = nv_of(tree.jtype[i])
        va = tree.vadr[i]
        IA = w.IA[i]
        pA = w.pA[i]
        c = w.c[i]
        if n == 0 or tree.prescribed[i]:
            if p < 0:
                continue
            # the joint's acceleration is known: S qdd joins c, the inertia passes whole
            for k in range(6):
                pa[k] = c[k]
            for d in range(va, va + n):
                for k in range(6):
                    pa[k] += w.S[d, k] * qdd[d]
            mat6_vec(IA, pa, w.y6)
            for k in range(6):
                w.y6[k] += pA[k]
            add_inertia_to_parent(w.E[i], w.r[i], IA, w.IA[p], W)
            add_force_to_parent(w.E[i], w.r[i], w.y6, w.pA[p])
            continue
        D = w.W6
        for d in range(n):
            s = w.S[va + d]
            U = w.U[va + d]
            for a in range(6):
                acc = 0.0
                for b in range(6):
                    acc += IA[a, b] * s[b]
                U[a] = acc
            acc = tau[va + d]
            for k in range(6):
                acc -= s[k] * pA[k]
            w.u[va + d] = acc
        for d in range(n):
            s = w.S[va + d]
            for e in range(d, n):
                U = w.U[va + e]
                acc = 0.0
                for k in range(6):
                    acc += s[k] * U[k]
                D[d, e] = acc
                D[e, d] = acc
            D[d, d] += tree.armature[va + d]
        Dinv = w.Dinv[i]
        if n == 1:
            Dinv[0, 0] = 1.0 / D[0, 0]
        else:
            spd_inverse(D, n, Dinv, W)
        if p < 0:
            continue
        # Wd = U D^-1 (6 x n, kept in W's columns), Ia = IA - Wd U^T, pa = pA + Ia c + Wd u
        for a in range(6):
            for d in range(n):
                acc = 0.0
                for e in range(n):
                    acc += w.U[va + e, a] * Dinv[e, d]
                W[a, d] = acc
        for a in range(6):
            for b in range(a, 6):
                acc = IA[a, b]
                for d in range(n):
                    acc -= W[a, d] * w.U[va + d, b]
                Ia[a, b] = acc
                Ia[b, a] = acc
        for a in range(6):
            acc = pA[a]
            for b in range(6):
                acc += Ia[a, b] * c[b]
            for d in range(n):
                acc += W[a, d] * w.u[va + d]
            pa[a] = acc
        add_inertia_to_parent(w.E[i], w.r[i], Ia, w.IA[p], W)
        add_force_to_parent(w.E[i], w.r[i], pa, w.pA[p])

    for i in range(nb):
        n = nv_of(tree.jtype[i])
        va = tree.vadr[i]
        ai = w.a[i]
        parent_acceleration(tree, gravity, w, i, ai)
        for k in range(6):
            ai[k] += w.c[i, k]
        if n > 0 and not tree.prescribed[i]:
            # qdd = D^-1 (u - U^T a')
            r = w.x6
            for d in range(n):
                acc = w.u[va + d]
                for k in range(6):
                    acc -= w.U[va + d, k] * ai[k]
                r[d] = acc
            Dinv = w.Dinv[i]
            for d in range(n):
                acc = 0.0
                for e in range(n):
                    acc += Dinv[d, e] * r[e]
                qdd[va + d] = acc
        for d in range(va, va + n):
            for k in range(6):
                ai[k] += w.S[d, k] * qdd[d]
        if tree.prescribed[i]:
            mat6_vec(w.IA[i], ai, w.f[i])
            for k in range(6):
                w.f[i, k] += w.pA[i, k]
