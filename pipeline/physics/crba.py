"""The joint-space mass matrix by the composite-rigid-body algorithm.

Composite inertias Ic accumulate inward (Ic_parent += X^T Ic X). For each DOF column
F = Ic_i S_i, M[i, i] = S_i^T F; F then travels to the root through the ancestors
(F = X^T F), filling M[i, j] = M[j, i] = S_j^T F. Armature adds to the diagonal.
"""
from __future__ import annotations

import numba

from pipeline.nrt import njit_no_refcounts
from pipeline.physics.kinematics import joint_pass, nv_of
from pipeline.physics.spatial import add_force_to_parent, add_inertia_to_parent, rigid_inertia


@njit_no_refcounts
def crba(tree, q, M, w):
    """M (nv, nv) <- mass matrix at configuration q. Allocates nothing."""
    joint_pass(tree, q, q[:0], w, False)
    nb = tree.parent.shape[0]
    nv = M.shape[0]
    for i in range(nb):
        rigid_inertia(tree.mass, tree.com, tree.inertia, i, w.IA, i)
    for i in range(nb - 1, -1, -1):
        p = tree.parent[i]
        if p >= 0:
            add_inertia_to_parent(w.E, w.r, i, w.IA, i, w.IA, p)
    for a in range(nv):
        for b in range(nv):
            M[a, b] = 0.0
    F = w.F2  # row 0: the column force F, row 1: its transform to the parent
    S = w.S
    for i in range(nb):
        va = tree.vadr[i]
        n = nv_of(tree.jtype[i])
        for d in range(va, va + n):
            for a in range(6):
                acc = 0.0
                for b in range(6):
                    acc += w.IA[i, a, b] * S[d, b]
                F[0, a] = acc
            for e in range(va, va + n):
                acc = 0.0
                for k in range(6):
                    acc += S[e, k] * F[0, k]
                M[d, e] = acc
            j = i
            while tree.parent[j] >= 0:
                for k in range(6):
                    F[1, k] = 0.0
                add_force_to_parent(w.E, w.r, j, F, 0, F, 1)
                for k in range(6):
                    F[0, k] = F[1, k]
                j = tree.parent[j]
                vj = tree.vadr[j]
                for e in range(vj, vj + nv_of(tree.jtype[j])):
                    acc = 0.0
                    for k in range(6):
                        acc += S[e, k] * F[0, k]
                    M[d, e] = acc
                    M[e, d] = acc
        for d in range(va, va + n):
            M[d, d] += tree.armature[d]
