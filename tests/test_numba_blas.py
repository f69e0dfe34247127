"""numba's start-up without importing scipy.linalg (pipeline/_numba_blas.py): kernels that
call BLAS and LAPACK give numpy's answers, scipy.linalg is never imported for them, and a
later import of it finds the preloaded modules where an import would have put them."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = '''
import json, sys
import numpy as np, numba
import pipeline

@numba.njit
def kernel(a, b):
    return a @ b + np.linalg.solve(a, b[:, 0]).sum()

rng = np.random.default_rng(7)
a, b = rng.normal(size=(6, 6)) + 6 * np.eye(6), rng.normal(size=(6, 6))
got = kernel(a, b)
out = {"error": float(np.abs(got - (a @ b + np.linalg.solve(a, b[:, 0]).sum())).max()),
       "linalg_imported": "scipy.linalg" in sys.modules}
import scipy.linalg
from scipy.linalg import cython_lapack
out["bound"] = scipy.linalg.cython_blas is sys.modules["scipy.linalg.cython_blas"] \\
    and cython_lapack is sys.modules["scipy.linalg.cython_lapack"]
out["scipy_solve"] = float(np.abs(scipy.linalg.solve(a, b) - np.linalg.solve(a, b)).max())
print(json.dumps(out))
'''


def test_blas_and_lapack_kernels_without_scipy_linalg():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = json.loads(subprocess.run([sys.executable, "-c", PROBE], env=env, check=True, capture_output=True,
                                    text=True).stdout)
    assert not out["linalg_imported"]
    assert out["error"] < 1e-12
    assert out["bound"]
    assert out["scipy_solve"] < 1e-12
