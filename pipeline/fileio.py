"""Atomic file writes: an interrupted run never leaves a file that looks complete, and a path
that cannot be written is a CorpusError naming it. Whole sets of outputs (a run, a render) are
built in a staging folder and published into their folder only when all of them are done."""
from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
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


def check_folder_target(folder: Path, what: str) -> None:
    """`folder` must be a folder or creatable as one: no file stands on its path."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        nested = "" if existing == folder else f"{folder} "
        raise CorpusError(Problem(f"is a file, not a folder: {what} {nested}cannot be made there",
                                  str(existing)))


@contextlib.contextmanager
def staging_folder(target: Path, what: str):
    """Yield a new empty folder beside `target` (`.NAME.partial-HOST-PID`) to build outputs in;
    it is removed when the block ends, whether or not `publish` moved its contents out.

    A process killed outright (SIGKILL, a lost machine) cannot remove its staging folder, so
    the stale ones of `target` are removed first: those of processes of this host that no
    longer run. The host is in the name because the folder may be on storage that several
    machines share (a Dask batch), where another host's process ids mean nothing here."""
    prefix = f".{target.name}.partial-"
    host = socket.gethostname()
    stage = target.parent / f"{prefix}{host}-{os.getpid()}"
    for stale in target.parent.glob(f"{glob.escape(prefix)}*"):
        owner, _, pid = stale.name[len(prefix):].rpartition("-")
        if owner == host and pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    shutil.rmtree(stage, ignore_errors=True)
    try:
        stage.mkdir(parents=True)
    except OSError as exc:
        raise CorpusError(Problem(f"cannot create {what}: {exc.strerror or exc}", str(target))) from exc
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (perhaps another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def publish(stage: Path, target: Path) -> None:
    """Move every file and folder of `stage` into `target`, each replacing its namesake (a
    folder of frames is replaced whole, so no frame of an older, longer sequence stays)."""
    try:
        target.mkdir(parents=True, exist_ok=True)
        for item in sorted(stage.iterdir()):
            destination = target / item.name
            if destination.is_dir() and not destination.is_symlink():
                shutil.rmtree(destination)
            os.replace(item, destination)
    except OSError as exc:
        raise CorpusError(Problem(f"cannot write: {exc.strerror or exc}", str(target))) from exc


def remove_all_but(folder: Path, keep: set[str]) -> None:
    """Remove every file and folder in `folder` whose name is not in `keep` (a link is
    removed, never followed)."""
    try:
        for item in folder.iterdir():
            if item.name in keep:
                continue
            if item.is_dir() and not item.is_symlink():
                shutil.rmtree(item)
            else:
                item.unlink()
    except OSError as exc:
        raise CorpusError(Problem(f"cannot remove an earlier run's file: {exc.strerror or exc}",
                                  str(exc.filename or folder))) from exc
