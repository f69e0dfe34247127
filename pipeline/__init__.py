"""corpus: a declarative pipeline for physically simulated creatures.

    scene = pipeline.load("scenes/box_drop.yaml")
    sim = pipeline.compile(scene)
    recording = sim.run()

Heavy modules (numba kernels, rendering) are imported lazily so `import pipeline` and
`corpus validate` stay fast.
"""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["load", "load_scene", "compile", "evaluate", "CorpusError", "__version__"]

from pipeline import _numba_cache, _numba_start
from pipeline.errors import CorpusError

_numba_cache.configure()
_numba_start.install()


def load(source, **kwargs):
    """Load and validate a YAML path or a dict into a resolved spec (see pipeline.spec)."""
    from pipeline.spec.resolve import load as _load

    return _load(source, **kwargs)


def load_scene(source, **kwargs):
    """Like `load`, but a creature is wrapped into a default scene (flat ground, 1 s)."""
    from pipeline.spec.resolve import load_scene as _load_scene

    return _load_scene(source, **kwargs)


def compile(spec, **kwargs):  # noqa: A001 - the public name the design promises
    """Compile a resolved spec into a Simulation (immutable Model + mutable Data): an
    articulated scene or creature, or a particle/spring one (pipeline/simulate)."""
    from pipeline.simulate import compile as _compile

    return _compile(spec, **kwargs)


def evaluate(scene, overrides=None, metrics=None, **kwargs) -> dict:
    """Simulate a scene in memory and return named metrics (pipeline/simulate/evaluate.py);
    loading and compiling are cached across calls in one process."""
    from pipeline.simulate.evaluate import DEFAULT_METRICS, evaluate as _evaluate

    return _evaluate(scene, overrides, DEFAULT_METRICS if metrics is None else metrics, **kwargs)
