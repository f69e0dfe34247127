"""One model's scratch for the Python entry points of `pipeline.physics`, kept between calls.

`forward_dynamics`, `inverse_dynamics`, `mass_matrix` and `prescribed_dynamics` are called
from Python, often in loops of thousands. Allocating a Workspace per call cost more than
the dynamics (19 arrays), and so did numba's dispatch: typing a call whose arguments are
NamedTuples of arrays goes through numba's Python-level typeof for every array of every
tuple (5.5 us for a tree and a workspace). Here the model's tree, gravity and Workspace
sit in one numba StructRef, which the dispatcher types and unboxes as a single object, so
a call passes that, the state arrays and its output.

The scratch is made on a model's first call and dropped with the model. Calls that share a
model share its workspace, which is safe because the kernels hold the GIL (none is
`nogil`) and every output is a fresh array.
"""
from __future__ import annotations

import weakref

import numba
import numpy as np
from numba.core import types
from numba.experimental import structref

from pipeline.physics.aba import aba
from pipeline.physics.crba import crba
from pipeline.physics.kinematics import make_workspace
from pipeline.physics.rnea import rnea


@structref.register
class ScratchType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Scratch(structref.StructRefProxy):
    """tree, gravity and Workspace of one model (see module doc)."""


structref.define_proxy(Scratch, ScratchType, ["tree", "gravity", "w"])


@numba.njit(cache=True)
def forward(s, q, qd, tau, fext, qdd):
    aba(s.tree, s.gravity, q, qd, tau, fext, qdd, s.w)


@numba.njit(cache=True)
def inverse(s, q, qd, qdd, fext, tau):
    rnea(s.tree, s.gravity, q, qd, qdd, fext, tau, s.w)


@numba.njit(cache=True)
def mass(s, q, M):
    crba(s.tree, q, M, s.w)


# id(model) -> (weak reference to the model, its Scratch, its Workspace, an empty f_ext)
_SCRATCH: dict = {}


def scratch(model):
    """(Scratch, Workspace, empty f_ext) of `model`, made on its first call."""
    entry = _SCRATCH.get(id(model))
    if entry is not None and entry[0]() is model:
        return entry[1:]
    w = make_workspace(model.nbody, model.nv)
    entry = (weakref.ref(model), Scratch(model.tree, np.ascontiguousarray(model.gravity, float), w),
             w, np.zeros((0, 6)))
    _SCRATCH[id(model)] = entry
    weakref.finalize(model, _SCRATCH.pop, id(model), None)
    return entry[1:]
