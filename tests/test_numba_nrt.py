"""numba's runtime functions loaded from the cache instead of compiled in every process
(pipeline/_numba_nrt.py): the first process compiles and keeps them, the next loads them,
and kernels that allocate and free arrays, cached or compiled then, run on them."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

KERNELS = '''
import numba, numpy as np

@numba.njit(cache=True)
def cumulative(n):
    out = np.zeros(n)  # allocated and freed through the runtime's reference counts
    for i in range(n):
        out[i] = out[i - 1] + i if i else 0.0
    return out[-1] + np.ones(3).sum()
'''

PROBE = '''
import json
import numpy as np, numba
import pipeline
from numba.core.runtime import rtsys
import kernels

first = kernels.cumulative(100)

@numba.njit
def later(n):  # compiled in this process, linked against the runtime's functions
    return np.arange(n).astype(np.float64).sum() + kernels.cumulative(n)

print(json.dumps({"first": first, "later": later(100),
                  "runtime_loaded": hasattr(rtsys.library, "_corpus_bitcode")}))
'''


def test_runtime_compiled_once_then_loaded(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    runs = [json.loads(subprocess.run([sys.executable, "-c", PROBE], env=env, check=True, capture_output=True,
                                      text=True).stdout) for _ in range(2)]
    assert len(list(cache.glob("nrt-*.pickle"))) == 1
    assert [r["runtime_loaded"] for r in runs] == [False, True]
    expected = sum(range(100)) + 3.0
    for r in runs:
        assert r["first"] == expected
        assert r["later"] == np.arange(100).sum() + expected
