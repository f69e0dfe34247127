"""Running user Python code (controllers named by import path) so that it can only return
or fail with a located CorpusError.

User code can end in more ways than an `Exception`: `sys.exit` (SystemExit), `os._exit`,
or a class derived straight from BaseException. Each of these used to escape: `sys.exit(0)`
ended a batch job with status 0, which counted as done though nothing was published, and
`os._exit(0)` ended `corpus run` with status 0 and no outputs. Here every such ending is a
CorpusError at the scene entry that names the code, saying which line of it ended the run.
KeyboardInterrupt passes through: it is how Ctrl-C reaches the commands.
"""
from __future__ import annotations

import contextlib
import os
import sys
import sysconfig
import threading
import traceback
from pathlib import Path

from pipeline.control.commands import located
from pipeline.errors import CorpusError

_PIPELINE = Path(__file__).resolve().parents[1]
_LIBRARIES = [Path(sysconfig.get_path(k)).resolve() for k in ("stdlib", "purelib", "platlib")]


class ProcessExit(BaseException):
    """Raised in place of ending the process when user code calls os._exit."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


_inside = threading.local()  # depth: how many call_user frames this thread is in
_install_lock = threading.Lock()
_real_exit = os._exit


def _exit(code):
    """os._exit while user code runs in this thread raises ProcessExit; anywhere else (another
    thread, a child that user code forked, which inherits the replacement) it ends the process."""
    if getattr(_inside, "depth", 0) and _inside.pid == os.getpid():
        raise ProcessExit(code)
    _real_exit(code)


def _install() -> None:
    """Replace os._exit (and posix._exit, the same function under its own name) once, for good:
    replacing it around each call would race between threads (Dask runs evolve's simulations in
    a worker's threads). (Nothing stops a C library's exit(); a batch counts a job done only by
    its manifest, see batch.jobs.)"""
    with _install_lock:
        if os._exit is _exit:
            return
        for module in (os, sys.modules.get(os.name)):
            if module is not None:
                module._exit = _exit


@contextlib.contextmanager
def _no_process_exit():
    _install()
    depth = getattr(_inside, "depth", 0)
    _inside.depth, _inside.pid = depth + 1, os.getpid()
    try:
        yield
    finally:
        _inside.depth = depth


def call_user(what: str, where, when: str, fn, *args, passing: tuple = ()):
    """fn(*args); any ending but a return, a CorpusError or one of the `passing` exception
    types (which the caller reports itself) is a CorpusError at `where`.

    `what` names the code ("python controller 'mod:step'"), `when` says when it ran
    ("at t = 0.5 s", or "" while importing)."""
    try:
        with _no_process_exit():
            return fn(*args)
    except (CorpusError, KeyboardInterrupt, *passing):
        raise
    except BaseException as exc:  # noqa: BLE001  (user code: every other ending is its failure)
        raise CorpusError(located(_describe(exc, what, when), where)) from None


def _describe(exc: BaseException, what: str, when: str) -> str:
    line = code_line(exc)
    at = " ".join(part for part in (f"in {line}" if line else "", when) if part)
    at = f" {at}" if at else ""
    if isinstance(exc, SystemExit):
        return f"{what} called sys.exit({exc.code!r}){at}; it must return, not end the process"
    if isinstance(exc, ProcessExit):
        return f"{what} called os._exit({exc.code!r}){at}; it must return, not end the process"
    text = exc.msg if isinstance(exc, SyntaxError) else exc  # its str() repeats the file and line
    return f"{what} raised {type(exc).__name__}{at}: {text}"


def code_line(exc: BaseException) -> str:
    """`file:line` of the innermost frame of the user's own code in exc's traceback (not
    corpus, not the standard library or installed packages), else of the innermost frame
    outside corpus; "" when there is none (a module that failed to compile)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{_shown(exc.filename)}:{exc.lineno}"
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith("<")]  # <frozen importlib._bootstrap>, <string>
    frames = [(name, n) for name, n in frames if not Path(name).resolve().is_relative_to(_PIPELINE)]
    own = [(name, n) for name, n in frames
           if not any(Path(name).resolve().is_relative_to(lib) for lib in _LIBRARIES)]
    if not (own or frames):
        return ""
    name, n = (own or frames)[-1]
    return f"{_shown(name)}:{n}"


def _shown(filename: str) -> str:
    """A path relative to the working directory when it is inside it, else as Python has it."""
    try:
        return os.path.relpath(filename) if Path(filename).resolve().is_relative_to(Path.cwd()) else filename
    except (OSError, ValueError):
        return filename
