"""numba StructRefs for handing a kernel many arrays from Python as one object.

numba's dispatcher unboxes every array of the named tuples it is handed, about 0.15 us an
array, on every call: a model's tree, contact tables and workspaces are 30 to 150 arrays,
which costs a frame's kernel calls more than their work on small models. A StructRef is
unboxed as one object. Its fields are read like a named tuple's inside a kernel; it needs
numba's reference counting there (pipeline/nrt.py), so a kernel taking one is an ordinary
`numba.njit` that calls the reference-count-free kernels with its fields.

Make them from Python with a cached kernel that calls the proxy class (`new_step_tables`,
...), not with the class itself: numba compiles the constructor `define_proxy` generates in
every process, never caching it, which for the step tables' types was 9 s and 60 MB.
"""
from __future__ import annotations

from numba.core import types


class Struct(types.StructRef):
    """The numba type of the StructRefs here: fields typed by their values, not literals."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)
