"""`pipeline.evaluate`: one run in memory, measured by named metrics; no run folder.

    pipeline.evaluate("scenes/roobot_hop.yaml",
                      overrides={"simulation.duration": 5, "creatures[0].at": [...]},
                      metrics={"forward": {"metric": "displacement", "axis": "x"}})
    -> {"forward": 1.93, "simulated_time": 5.0}

Loading and compiling are cached per (scene, overrides) in the process, so repeated calls
(an evolution's worker, a sweep) pay only for simulating: a cached Simulation is reset to
its compiled initial state before each run. Overrides are `{field path: value}` on the
scene's canonical document (the paths of sweeps, pipeline/spec/paths.py).
"""
from __future__ import annotations

import copy
import json
from collections import OrderedDict
from pathlib import Path

from pipeline.errors import CorpusError
from pipeline.simulate.metrics import compute

DEFAULT_METRICS = ("speed", "final_position", "fell")
_CACHE_SIZE = 8
_cache: OrderedDict = OrderedDict()


def _scene_key(scene):
    if isinstance(scene, (str, Path)):
        p = Path(scene).resolve()
        return ("path", str(p), p.stat().st_mtime_ns if p.exists() else None)
    if isinstance(scene, dict):
        return ("dict", json.dumps(scene, sort_keys=True, default=str))
    return ("object", id(scene))


def _load(scene, overrides):
    from pipeline.simulate import compile as compile_spec
    from pipeline.spec.loader import plain
    from pipeline.spec.paths import set_path
    from pipeline.spec.resolve import load_scene

    base = scene if hasattr(scene, "source") else load_scene(scene)
    if not overrides:
        return compile_spec(base)
    doc = copy.deepcopy(base.source)
    for path, value in overrides.items():
        set_path(doc, path, plain(value))
    folder = str(Path(base.where.file).resolve().parent) if base.where.file else None
    return compile_spec(load_scene(doc, base_dir=folder))


def simulation_for(scene, overrides=None):
    """The cached Simulation of a scene (path, dict or resolved Scene) with overrides."""
    key = (_scene_key(scene), json.dumps(overrides or {}, sort_keys=True, default=str))
    if key not in _cache:
        # the scene is kept alive with its Simulation: its id() is part of the key
        _cache[key] = (_load(scene, overrides), scene)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    _cache.move_to_end(key)
    return _cache[key][0]


def evaluate(scene, overrides=None, metrics=DEFAULT_METRICS, *, duration=None) -> dict:
    """Simulate a scene in memory and return its metrics (pipeline/simulate/metrics.py)
    and `simulated_time`. Raises CorpusError (SimulationError) as `corpus run` would."""
    sim = simulation_for(scene, overrides)
    sim.reset()
    return _measured(sim.run(duration, progress=False), sim.model, metrics)


def _measured(recording, model, metrics) -> dict:
    out = compute(recording, model, metrics)
    out["simulated_time"] = float(recording.time[-1]) if len(recording.time) else 0.0
    return out


def evaluate_batch(scene, overrides_list, metrics=DEFAULT_METRICS, *, duration=None) -> list[dict]:
    """`evaluate` for many overrides of one scene at once: when the variants share one
    layout (pipeline/simulate/rollout.py: run_together), the stretches of frames that need no
    Python run for all of them in one parallel kernel call; otherwise one after another.
    Returns one dict per variant, as `evaluate` would, or {"error": message} for a variant
    that failed."""
    from pipeline.simulate.articulated import Simulation
    from pipeline.simulate.rollout import run_together

    sims, seen = [], set()
    for overrides in overrides_list:
        sim = simulation_for(scene, overrides)
        sim = sim.fork() if id(sim) in seen else sim  # the same variant twice
        seen.add(id(sim))
        sim.reset()
        sims.append(sim)
    if not sims:
        return []
    if not all(isinstance(sim, Simulation) for sim in sims):  # the particle engine
        return [_one(sim, metrics, duration) for sim in sims]
    try:
        runs = run_together(sims, duration)
    except CorpusError:  # layouts differ, or fsm machines
        return [_one(sim, metrics, duration) for sim in sims]
    return [{"error": str(run)} if isinstance(run, CorpusError) else _measured(run, sim.model, metrics)
            for sim, run in zip(sims, runs)]


def _one(sim, metrics, duration) -> dict:
    try:
        recording = sim.run(duration, progress=False)
    except CorpusError as exc:
        return {"error": str(exc)}
    return _measured(recording, sim.model, metrics)
