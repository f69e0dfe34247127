"""`njit_no_refcounts`: numba.njit for kernels of inner loops, compiled without numba's
reference counting (NRT).

With NRT every read of an array out of a named tuple of arrays (a compiled model) inside a
loop increments and decrements that array's count atomically, and a kernel handed such a
tuple does it once per array per call: on the particle engine's force evaluation (33 arrays,
a few dozen reads) that was two thirds of its time, for results identical to the bit.
Without NRT a kernel cannot allocate (numba refuses to compile one that does), so its
callers hand it every scratch array; views and slices of its arguments are fine, as the
arrays outlive the call. An array assignment `dst[:] = src` allocates too (numba copies
src first in case the two overlap), so such kernels copy with `copy_into`.

Functions these kernels call are compiled without NRT too (numba passes the flag down), and
numba keeps one compiled version per signature, which an ordinary kernel calling the same
function may then share. That is safe because none of them returns an array: a caller with
reference counting would release a reference it was never given.
"""
from __future__ import annotations

import numba


def njit_no_refcounts(fn, signatures=None):
    """numba.njit(cache=True) without NRT; `signatures` as numba.njit's first argument
    (compile for exactly these)."""
    return numba.njit(signatures, cache=True, _nrt=False)(fn)


@numba.njit(cache=True)
def copy_into(src, dst):
    """dst[:] = src for 1-D arrays of one length, without allocating."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
