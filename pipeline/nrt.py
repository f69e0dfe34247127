"""`njit_no_refcounts`: numba.njit for kernels of inner loops, compiled without numba's
reference counting (NRT).

With NRT every read of an array out of a named tuple of arrays (a compiled model) inside a
loop increments and decrements that array's count atomically, and a kernel handed such a
tuple does it once per array per call: on the particle engine's force evaluation (33 arrays,
a few dozen reads) that was two thirds of its time, for results identical to the bit.
Without NRT a kernel cannot allocate (numba refuses to compile one that does), so its
callers hand it every scratch array; views and slices of its arguments are fine, as the
arrays outlive the call.
"""
from __future__ import annotations

import numba


def njit_no_refcounts(fn):
    return numba.njit(cache=True, _nrt=False)(fn)
