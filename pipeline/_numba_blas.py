"""numba's start-up without importing scipy.linalg.

The first kernel call of a process loads numba's lowering of numpy, which checks once that a
BLAS is there by importing `scipy.linalg.cython_blas`. Importing that imports the package
`scipy.linalg` first, and with it scipy's array-API layer, which clones numpy's namespace and
so imports numpy.f2py and numpy.testing: 16.6 MB and a third of a second in every process
that runs a kernel, for two modules of function pointers (docs/simulation.md, "Memory and
start-up"). `preload` loads those two extension modules by themselves, under their own
names, so the check (and numba's BLAS and LAPACK calls, which look their functions up there)
finds them; `bind` sets them on `scipy.linalg` when something imports it after all, where
an import of the submodule would have put them.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

MODULES = ("cython_blas", "cython_lapack")


def preload() -> None:
    if "scipy.linalg" in sys.modules:  # already paid for: numba imports the submodules as usual
        return
    spec = importlib.util.find_spec("scipy")
    if spec is None or spec.origin is None:  # no scipy: numba's check says there is no BLAS
        return
    folder = Path(spec.origin).parent / "linalg"
    for name in MODULES:
        full = f"scipy.linalg.{name}"
        found = next((p for p in folder.glob(f"{name}.*") if p.suffix in (".so", ".pyd")), None)
        if found is None or full in sys.modules:
            continue
        module_spec = importlib.util.spec_from_file_location(full, found)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[full] = module
        module_spec.loader.exec_module(module)


def bind(linalg) -> None:
    """Set the preloaded modules on the package `scipy.linalg`, imported after them."""
    for name in MODULES:
        module = sys.modules.get(f"{linalg.__name__}.{name}")
        if module is not None and not hasattr(linalg, name):
            setattr(linalg, name, module)
