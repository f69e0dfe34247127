"""Python controllers named by import path (`python: package.module:function`).

The callable is imported when a Simulation is built for a run, never while validating a
scene, and is called once per frame as `function(sim, t, params)`. It reads `sim.data`
and writes `data.ctrl` (joint forces), `data.exp_rest`, motor programs or issues commands
(`sim.command(action, args)`); `data.channels[name] = value` publishes recorded channels.
"""
from __future__ import annotations

import importlib

from pipeline.control.commands import located, register_controller_kind
from pipeline.errors import CorpusError


def load_callable(target: str, where=None):
    """Import `package.module:attr[.attr...]` and return the object."""
    module_name, sep, attr = (target or "").partition(":")
    if not sep or not module_name or not attr:
        raise CorpusError(located(f"python controller {target!r}: expected "
                                  "'package.module:function'", where))
    try:
        obj = importlib.import_module(module_name)
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


def make_python_controller(sim, ref):
    func = load_callable(ref.python, ref.where)
    params = dict(ref.params)

    def controller(sim, t):
        try:
            func(sim, t, params)
        except CorpusError:
            raise
        except Exception as exc:  # user code: report where it is named, keep the cause
            raise CorpusError(located(f"python controller {ref.python!r} raised "
                                      f"{type(exc).__name__} at t = {t:.6g} s: {exc}",
                                      ref.where)) from exc

    return controller


register_controller_kind("python", make_python_controller)
