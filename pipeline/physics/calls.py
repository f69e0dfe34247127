"""One model's scratch for the Python entry points of `pipeline.physics`, kept between calls.

`forward_dynamics`, `inverse_dynamics`, `mass_matrix` and `prescribed_dynamics` are called
from Python, often in loops of thousands, where what a call costs besides the dynamics
decides their speed (issue 15: at most Pinocchio's `pin.aba` per call). So:

- no allocation but the output: the model's tree, gravity and Workspace sit in one numba
  StructRef, made on the model's first call and dropped with the model; numba's dispatcher
  types and unboxes it as one object (a NamedTuple of arrays goes through numba's
  Python-level typeof for every array, 5.5 us for a tree and a workspace);
- no checks or conversions in Python on the way in: the kernels are compiled for exactly
  one signature (C-contiguous float64 arrays and this StructRef type) and never compile
  another, so an argument of another dtype, layout or kind fails numba's own (C) typing
  with a TypeError, and one of the wrong length fails the length check inside the kernel
  with a ValueError. Either sends the caller to its checked path (`pipeline.physics`),
  which converts the arguments or says which one is wrong.

Calls that share a model share its workspace, which is safe because the kernels hold the
GIL (none is `nogil`) and every output is a fresh array.
"""
from __future__ import annotations

import weakref
from typing import NamedTuple

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref

from pipeline.physics.aba import aba
from pipeline.physics.crba import crba
from pipeline.physics.kinematics import Workspace, make_workspace
from pipeline.physics.rnea import rnea
from pipeline.physics.structs import Struct


@structref.register
class ScratchType(Struct):
    pass


class ScratchRef(structref.StructRefProxy):
    """tree, gravity, Workspace and nq of one model (see module doc)."""


structref.define_proxy(ScratchRef, ScratchType, ["tree", "gravity", "w", "nq"])


@numba.njit(cache=True)
def _new_scratch_ref(tree, gravity, w, nq):
    """ScratchRef(...), made by a cached kernel (pipeline/physics/structs.py)."""
    return ScratchRef(tree, gravity, w, nq)


@numba.njit(cache=True)
def _check(s, q, a, b, c, fext_shape):
    """The lengths the kernels index by without bounds checks (see module doc): q (nq,),
    a, b, c (nv,), f_ext (nb, 6) or (0, 6)."""
    nv = s.w.u.shape[0]
    if (q.shape[0] != s.nq or a.shape[0] != nv or b.shape[0] != nv or c.shape[0] != nv
            or fext_shape[1] != 6
            or (fext_shape[0] != 0 and fext_shape[0] != s.tree.parent.shape[0])):
        raise ValueError("arrays do not match the model")


def _forward(s, q, qd, tau, fext, qdd):
    _check(s, q, qd, tau, qdd, fext.shape)
    aba(s.tree, s.gravity, q, qd, tau, fext, qdd, s.w)


def _inverse(s, q, qd, qdd, fext, tau):
    _check(s, q, qd, qdd, tau, fext.shape)
    rnea(s.tree, s.gravity, q, qd, qdd, fext, tau, s.w)


def _mass(s, q, M):
    _check(s, q, M[0], M[:, 0], M[0], (0, 6))
    crba(s.tree, q, M, s.w)


class Scratch(NamedTuple):
    """What a Python entry point needs of one model."""

    ref: ScratchRef
    forward: object  # forward(ref, q, qd, tau, fext (nb|0, 6), qdd out); raises as above
    inverse: object  # inverse(ref, q, qd, qdd, fext, tau out)
    mass: object  # mass(ref, q, M out (nv, nv))
    w: Workspace
    no_fext: np.ndarray  # (0, 6): no external forces


# ScratchType -> (forward, inverse, mass) compiled for it alone
_KERNELS: dict = {}
# id(model) -> (weak reference to the model, its Scratch)
_SCRATCH: dict = {}


def _kernels(stype):
    """The three kernels for one StructRef type (every model has the same one unless its
    tree's array types differ), each compiled (or loaded from numba's cache) for that one
    signature, which also stops numba compiling any other."""
    k = _KERNELS.get(stype)
    if k is None:
        vec, mat = types.float64[::1], types.float64[:, ::1]
        k = _KERNELS[stype] = (
            numba.njit([types.void(stype, vec, vec, vec, mat, vec)], cache=True)(_forward),
            numba.njit([types.void(stype, vec, vec, vec, mat, vec)], cache=True)(_inverse),
            numba.njit([types.void(stype, vec, mat)], cache=True)(_mass))
    return k


def scratch(model) -> Scratch:
    """The Scratch of `model`, made on its first call."""
    entry = _SCRATCH.get(id(model))
    if entry is not None and entry[0]() is model:
        return entry[1]
    w = make_workspace(model.nbody, model.nv)
    ref = _new_scratch_ref(model.tree, np.ascontiguousarray(model.gravity, float), w, model.nq)
    sc = Scratch(ref, *_kernels(numba.typeof(ref)), w, np.zeros((0, 6)))
    _SCRATCH[id(model)] = (weakref.ref(model), sc)
    weakref.finalize(model, _SCRATCH.pop, id(model), None)
    return sc
