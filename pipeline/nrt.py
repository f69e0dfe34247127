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

Every kernel these kernels call is declared with `njit_no_refcounts` too
(`tests/test_nrt_kernels.py` walks the calls). numba keeps one compiled version of a
function per signature, and an ordinary callee takes the setting of whichever caller
compiled it first: a contact kernel first called from Python (a test, a script) was
compiled with reference counts, and the step loops compiled after it in that fresh cache
linked that version, which made the roach's frames 1.7x slower until the sources changed.
Declared here, a kernel is compiled one way whoever calls it first. Callers that count may
call these kernels because none of them returns an array: such a caller would release a
reference it was never given.
"""
from __future__ import annotations

import numba


def njit_no_refcounts(fn, signatures=None):
    """numba.njit(cache=True) without NRT; `signatures` as numba.njit's first argument
    (compile for exactly these)."""
    return numba.njit(signatures, cache=True, _nrt=False)(fn)


@njit_no_refcounts
def copy_into(src, dst):
    """dst[:] = src for 1-D arrays of one length, without allocating."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
