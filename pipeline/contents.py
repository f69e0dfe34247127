"""Content hashes of files, remembered per stat signature, for caches keyed by what files say.

A long-lived process (a warm batch worker, an evolution's worker) asks again and again
whether the files a scene was built from changed; hashing a large mesh each time would cost
more than the work the cache saves. A hash is reused while the file's (size, mtime_ns,
inode, ctime_ns) stay the same, as git's index does, but only for a file last changed well
before it was hashed: file times tick coarsely (a few ms), so an edit right after the hash
could keep the old time (git's "racy clean" entries).
"""
from __future__ import annotations

import hashlib
import os
import time

_known: dict[str, tuple[tuple, str]] = {}
_MAX = 4096  # remembered files; past it the memory starts over
_SETTLED_NS = 2_000_000_000  # a file unchanged this long before its hash keeps it


def _signature(st: os.stat_result) -> tuple:
    return st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes (OSError if it cannot be read)."""
    key = os.fspath(path)
    st = os.stat(key)
    signature = _signature(st)
    known = _known.get(key)
    if known is not None and known[0] == signature:
        return known[1]
    hashed_at = time.time_ns()
    h = hashlib.sha256()
    with open(key, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    if len(_known) >= _MAX:
        _known.clear()
    if max(st.st_mtime_ns, st.st_ctime_ns) < hashed_at - _SETTLED_NS:
        _known[key] = (signature, h.hexdigest())
    return h.hexdigest()


def file_state(path: str | os.PathLike) -> str:
    """file_sha256, or "missing" for a path that is not a readable file."""
    try:
        return file_sha256(path)
    except OSError:
        return "missing"
