"""Python controllers named by import path (`python: package.module:function`).

The module is looked up first in the folder of the scene file that names it, then on sys.path.
The callable is imported when a Simulation is built for a run, never while validating a
scene, and is called once per frame as `function(sim, t, params)`. It reads `sim.data`
and writes `data.ctrl` (joint forces), `data.exp_rest`, motor programs or issues commands
(`sim.command(action, args)`); `data.channels[name] = value` publishes recorded channels.
"""
from __future__ import annotations

import contextlib
import copy
import importlib
import sys
from pathlib import Path

from pipeline.control.commands import located, register_controller_kind
from pipeline.control.user_code import call_user
from pipeline.errors import CorpusError


def load_callable(target: str, where=None):
    """Import `package.module:attr[.attr...]` and return the object."""
    module_name, sep, attr = (target or "").partition(":")
    if not sep or not module_name or not attr:
        raise CorpusError(located(f"python controller {target!r}: expected "
                                  "'package.module:function'", where))
    try:
        with _scene_folder_first(where):
            obj = call_user(f"python controller {target!r}: importing {module_name!r}", where, "",
                            importlib.import_module, module_name, passing=(ImportError,))
    except ImportError as exc:
        raise CorpusError(located(f"python controller {target!r}: cannot import "
                                  f"{module_name!r} ({exc})", where)) from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise CorpusError(located(f"python controller {target!r}: {module_name!r} has no "
                                      f"attribute {attr!r}", where)) from None
    if not callable(obj):
        raise CorpusError(located(f"python controller {target!r} is not callable", where))
    return obj


@contextlib.contextmanager
def _scene_folder_first(where):
    """While importing, put the folder of the file that names the controller first on
    sys.path, so `python: mymod:step` finds mymod.py beside the scene; then take it out again."""
    folder = str(Path(where.file).resolve().parent) if where is not None and where.file else None
    if folder is None:
        yield
        return
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # the module itself may have edited sys.path
            sys.path.remove(folder)


class _Hold:
    def __repr__(self):
        return "HOLD"


# What a controller returns when its outputs stay as they are until a command runs: the
# simulation then stops calling it until the next timeline command or sim.command(), and the
# frames in between run in one kernel call (docs/simulation.md).
HOLD = _Hold()


class PythonController:
    """A named Python callable as a controller. It is part of a run's Data: copied with a
    fork, and pickled into a checkpoint by its import path, re-imported when loaded."""

    def __init__(self, ref):
        self.ref = ref
        self.params = dict(ref.params)
        self.func = load_callable(ref.python, ref.where)

    def __getstate__(self):
        return {"ref": self.ref, "params": self.params}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.func = load_callable(self.ref.python, self.ref.where)

    def __deepcopy__(self, memo):
        twin = copy.copy(self)
        twin.params = copy.deepcopy(self.params, memo)
        return twin

    def __call__(self, sim, t: float):
        return call_user(f"python controller {self.ref.python!r}", self.ref.where, f"at t = {t:.6g} s",
                  self.func, sim, t, self.params)


def make_python_controller(sim, ref):
    return PythonController(ref)


register_controller_kind("python", make_python_controller)
