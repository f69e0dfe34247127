"""Kernels loaded from numba's cache without parsing their LLVM IR (pipeline/_numba_lazy_ir.py):
the symbols read from the machine code are the ones numba would have read from the IR, a
cached kernel runs without its IR parsed, and a kernel compiled later that calls it links
against the IR parsed then."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from pipeline._numba_lazy_ir import defined_symbols

ROOT = Path(__file__).resolve().parents[1]

KERNELS = '''
import numba, numpy as np

@numba.njit(cache=True)
def inner(a, k):
    out = np.empty_like(a)
    for i in range(a.size):
        out[i] = np.sin(a[i]) * k
    return out

@numba.njit(cache=True)
def outer(a):
    return inner(a, 2.0).sum()
'''

# compiles them (a cold cache) and compares the symbols of `outer`'s object with its IR's
FIRST = '''
import json
import llvmlite.binding as ll, numpy as np
import pipeline
from pipeline._numba_lazy_ir import defined_symbols
import kernels

kernels.outer(np.linspace(0.0, 1.0, 7))
lib = kernels.outer.overloads[kernels.outer.signatures[0]].library
_, kind, (obj, bitcode) = lib.serialize_using_object_code()
module = ll.parse_bitcode(bitcode)
in_ir = {gv.name for group in (module.functions, module.global_variables) for gv in group
         if not gv.is_declaration and gv.linkage != ll.Linkage.private}
print(json.dumps({"kind": kind, "in_ir": sorted(in_ir), "in_object": sorted(defined_symbols(obj))}))
'''

# loads `inner` from the cache, then compiles a new kernel that calls it
LATER = '''
import json, sys
import numpy as np, numba
import pipeline
import kernels

a = np.linspace(0.0, 1.0, 7)
r = kernels.inner(a, 3.0)
lib = kernels.inner.overloads[kernels.inner.signatures[0]].library
state = {"hits": sum(kernels.inner.stats.cache_hits.values()), "ir_parsed": lib._shared_module is not None}

@numba.njit
def later(a):
    return kernels.inner(a, 3.0).sum() + 1.0

state["later"] = later(a)
state["inner"] = r.tolist()
state["ir_parsed_after_link"] = lib._shared_module is not None
print(json.dumps(state))
'''


def test_not_an_elf_object_loads_numbas_way():
    assert defined_symbols(b"\xcf\xfa\xed\xfe" + bytes(60)) is None  # Mach-O


def test_symbols_and_a_cached_kernel_run_unparsed_and_linked_later(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    first = json.loads(subprocess.run([sys.executable, "-c", FIRST], env=env, check=True, capture_output=True,
                                      text=True).stdout)
    assert first["kind"] == "object"
    assert any("outer" in name for name in first["in_ir"])
    assert first["in_object"] == first["in_ir"]
    out = subprocess.run([sys.executable, "-c", LATER], env=env, check=True, capture_output=True, text=True)
    state = json.loads(out.stdout)
    a = np.linspace(0.0, 1.0, 7)
    assert state["hits"] == 1  # loaded from the cache, not compiled
    assert not state["ir_parsed"]
    np.testing.assert_allclose(state["inner"], np.sin(a) * 3.0, rtol=1e-15)
    assert state["ir_parsed_after_link"]
    np.testing.assert_allclose(state["later"], (np.sin(a) * 3.0).sum() + 1.0, rtol=1e-14)
