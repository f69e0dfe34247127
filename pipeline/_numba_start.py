"""What corpus changes in numba's start-up, applied as numba is imported: importing numba
here would cost every `import pipeline` 65 MB, and `corpus validate` never runs a kernel.

- kernels load from numba's cache without parsing their LLVM IR (`_numba_lazy_ir.py`);
- numba's runtime functions load from that cache instead of being compiled (`_numba_nrt.py`);
- numba's check for a BLAS does not import scipy.linalg (`_numba_blas.py`).
"""
from __future__ import annotations

import importlib.machinery
import sys
from typing import Callable

from pipeline import _numba_blas, _numba_lazy_ir, _numba_nrt


class _AfterImport:
    """Runs `then(module)` right after the module `name` is executed, the first time."""

    def __init__(self, name: str, then: Callable):
        self.name, self.then = name, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then(module):
            exec_module(module)
            self.then(module)

        spec.loader.exec_module = exec_then
        return spec


def _numba_imported(codegen) -> None:
    _numba_lazy_ir.patch(codegen)
    _numba_blas.preload()


HOOKS = {"numba.core.codegen": _numba_imported, "numba.core.runtime.nrtdynmod": _numba_nrt.patch,
         "scipy.linalg": _numba_blas.bind}


def install() -> None:
    for name, then in HOOKS.items():
        if name in sys.modules:
            then(sys.modules[name])
        elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
            sys.meta_path.insert(0, _AfterImport(name, then))
