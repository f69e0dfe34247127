"""Every kernel a kernel without reference counting can call is itself compiled without them
(pipeline/nrt.py): numba keeps one compiled version of a function per signature and lets a
callee inherit its first caller's setting, so an ordinary callee would be compiled with or
without reference counts depending on which caller compiled it first in a fresh cache, and
the step loop would be 1.7x slower after a test run or a script that called, say, a contact
kernel from Python first (the roach: 3.0 s against 1.7 s per simulated second)."""
import importlib
import pkgutil
import types

from numba.core.registry import CPUDispatcher

PACKAGES = ("pipeline.physics", "pipeline.collision", "pipeline.control", "pipeline.particles")


def kernels() -> list[CPUDispatcher]:
    modules = [importlib.import_module("pipeline.nrt")]
    for package in PACKAGES:
        root = importlib.import_module(package)
        modules += [importlib.import_module(m.name)
                    for m in pkgutil.walk_packages(root.__path__, package + ".")]
    return list({id(v): v for m in modules for v in vars(m).values()
                 if isinstance(v, CPUDispatcher) and v.py_func.__module__ == m.__name__}.values())


def names(code: types.CodeType):
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from names(const)


def callees(kernel: CPUDispatcher) -> set:
    """The kernels its source names: globals, and attributes of modules it names (`S.f`)."""
    found = set()
    used = set(names(kernel.py_func.__code__))
    for name in used:
        value = kernel.py_func.__globals__.get(name)
        if isinstance(value, CPUDispatcher):
            found.add(value)
        elif isinstance(value, types.ModuleType):
            found.update(w for w in (getattr(value, a, None) for a in used) if isinstance(w, CPUDispatcher))
    return found


def no_refcounts(kernel) -> bool:
    return kernel.targetoptions.get("_nrt") is False


def test_kernels_reached_without_reference_counts_are_compiled_without_them():
    roots = [k for k in kernels() if no_refcounts(k)]
    assert len(roots) > 100  # the step loops and everything they call
    seen, stack = {}, list(roots)
    while stack:
        kernel = stack.pop()
        if id(kernel) not in seen:
            seen[id(kernel)] = kernel
            stack.extend(callees(kernel))
    shared = sorted(f"{k.py_func.__module__}.{k.py_func.__name__}" for k in seen.values()
                    if not no_refcounts(k) and k.targetoptions.get("inline") != "always")
    assert shared == []


def test_the_walk_finds_callees():
    from pipeline.physics import derivative
    from pipeline.physics.contact import forces

    assert forces.contact_forces in callees(derivative.evaluate)
    assert any(k.py_func.__module__ == "pipeline.physics.contact.laws" for k in callees(forces.ground_point_force))
