"""numba's cache folder is keyed by the kernels' sources (pipeline/_numba_cache.py), also
for programs that import numba before corpus: otherwise they silently load stale kernels
compiled from older sources out of the default __pycache__ folders."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cache_dir_seen_by_numba(first: str, tmp_path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = f"import {first}; import numba, pipeline; from numba.core import config; print(config.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


def test_cache_folder_is_keyed_by_source_whichever_is_imported_first(tmp_path):
    from pipeline._numba_cache import source_hash

    expected = str(tmp_path / "corpus" / "numba" / source_hash())
    assert cache_dir_seen_by_numba("pipeline", tmp_path) == expected
    assert cache_dir_seen_by_numba("numba", tmp_path) == expected
