"""Inverse dynamics: the recursive Newton-Euler algorithm in body frames.

Outward: a_i = X_i a_parent + c_i + S_i qdd_i (the world accelerates at -g), body force
f_i = I_i a_i + v_i x* I_i v_i - f_ext_i. Inward: tau_i = S_i^T f_i + armature qdd_i, and
f_parent += X_i^T f_i.
"""
from __future__ import annotations

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.aba import body_bias_forces, parent_acceleration
from pipeline.physics.kinematics import joint_pass, nv_of
from pipeline.physics.spatial import add_force_to_parent


@njit_no_refcounts
def rnea(tree, gravity, q, qd, qdd, fext, tau, w):
    """tau (nv,) <- joint forces that produce qdd in state (q, qd) under fext (world axes,
    (nb, 6) or (0, 6)). The body forces are left in w.f (body frame). Allocates nothing."""
    nb = tree.parent.shape[0]
    joint_pass(tree, q, qd, w, True)
    body_bias_forces(tree, fext, w, w.f)
    for i in range(nb):
        parent_acceleration(tree, gravity, w, w.a, i)
        va = tree.vadr[i]
        for k in range(6):
            acc = w.a[i, k] + w.c[i, k]
            for d in range(va, va + nv_of(tree.jtype[i])):
                acc += w.S[d, k] * qdd[d]
            w.a[i, k] = acc
        for a in range(6):
            acc = 0.0
            for b in range(6):
                acc += w.IA[i, a, b] * w.a[i, b]
            w.f[i, a] += acc
    for i in range(nb - 1, -1, -1):
        va = tree.vadr[i]
        for d in range(va, va + nv_of(tree.jtype[i])):
            acc = tree.armature[d] * qdd[d]
            for k in range(6):
                acc += w.S[d, k] * w.f[i, k]
            tau[d] = acc
        p = tree.parent[i]
        if p >= 0:
            add_force_to_parent(w.E, w.r, i, w.f, i, w.f, p)
