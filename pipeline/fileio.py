"""Atomic file writes: an interrupted run never leaves a file that looks complete, and a path
that cannot be written is a CorpusError naming it."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pipeline.errors import CorpusError, Problem


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside `path`; rename it onto `path` only if the block succeeds.

    The temporary name keeps the final suffix (`x.tmp-123.npz`) so libraries that pick a
    format from the extension still work.
    """
    path = Path(path)
    tmp = path.with_name(f"{path.stem}.tmp-{os.getpid()}{path.suffix}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise CorpusError(Problem("cannot write: a file stands where its folder belongs", str(path))) from exc
    except OSError as exc:
        raise CorpusError(Problem(f"cannot write: {exc.strerror or exc}", str(path))) from exc
    try:
        yield tmp
        os.replace(tmp, path)
    except OSError as exc:  # a folder where the file belongs, no permission, a full disk
        raise CorpusError(Problem(f"cannot write: {exc.strerror or exc}", str(path))) from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
