"""Where numba keeps compiled kernels: a folder named after a hash of the package's sources.

numba's own cache checks only the file of the function it compiled, not the kernels that
function inlined from other files; after an update to, say, aba.py, a cached step kernel
would silently keep the old ABA. Keying the whole cache by every source file's content
makes any change start a fresh cache. numba reads the folder from its configuration when
a kernel is defined, so a program that imported numba before corpus gets the configuration
reloaded; otherwise it would load stale kernels from the default __pycache__ folders.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


KEEP = 3  # cache folders of recent source versions kept; older ones are removed


def source_hash() -> str:
    """Hash of every module that holds numba kernels (the only ones a kernel can inline)."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text or b"njit" in text:  # njit: pipeline/nrt.py's decorator
            h.update(str(path.relative_to(PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()[:16]


def _prune(root: Path, current: Path) -> None:
    try:
        old = sorted((d for d in root.iterdir() if d.is_dir() and d != current),
                     key=lambda d: d.stat().st_mtime, reverse=True)[KEEP - 1:]
    except OSError:
        return
    for d in old:
        shutil.rmtree(d, ignore_errors=True)


def configure() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:  # the user chose; respect it
        return
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "corpus" / "numba"
    current = root / source_hash()
    if not current.is_dir():
        _prune(root, current)
    os.environ["NUMBA_CACHE_DIR"] = str(current)
    if "numba" in sys.modules:
        from numba.core import config

        config.reload_config()
