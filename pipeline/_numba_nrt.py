"""numba's runtime functions loaded as machine code instead of compiled in every process.

numba compiles its reference-counting functions (NRT) from LLVM IR when a process first
calls a kernel, cached or not. That compile runs LLVM's optimiser and code generator, whose
code alone is 27 MB of the process's memory, for 0.08 s (docs/simulation.md, "Memory and
start-up"); a process that only loads cached kernels needs neither. Here the compiled
functions are kept in numba's cache folder, keyed by their IR, the CPU and the numba and
llvmlite versions, and later processes load them like a cached kernel
(pipeline/_numba_lazy_ir.py). Anything unexpected compiles them numba's way.
"""
from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from pipeline.errors import CorpusError
from pipeline.fileio import atomic_write_bytes


def patch(nrtdynmod) -> None:
    """Make `nrtdynmod` (numba.core.runtime.nrtdynmod) load its functions from the cache."""
    import llvmlite
    import numba
    from numba.core import config

    def compile_nrt_functions(ctx):
        ir_module, library = nrtdynmod.create_nrt_module(ctx)
        codegen = ctx.codegen()
        if not config.CACHE_DIR:
            library.add_ir_module(ir_module)
            library.finalize()
            return library
        key = hashlib.sha256(repr((str(ir_module), codegen.magic_tuple(), numba.__version__,
                                   llvmlite.__version__)).encode()).hexdigest()[:16]
        path = Path(config.CACHE_DIR) / f"nrt-{key}.pickle"
        try:
            return codegen.unserialize_library(pickle.loads(path.read_bytes()))
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
            pass  # not there yet (or damaged): compile and keep it
        library.enable_object_caching()
        library.add_ir_module(ir_module)
        library.finalize()
        try:
            atomic_write_bytes(path, pickle.dumps(library.serialize_using_object_code()))
        except CorpusError:  # a cache folder we cannot write: the next process compiles again
            pass
        return library

    nrtdynmod.compile_nrt_functions = compile_nrt_functions
