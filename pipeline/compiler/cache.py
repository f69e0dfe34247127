"""Compiled models remembered by content, so a long-lived process compiles a scene once.

A warm batch worker (pipeline/batch/warm.py) or an evaluation worker meets the same model
again and again: a sweep over seeds, durations or controller gains changes nothing that
compiles. The key is the scene's creatures and environment, pickled (exact: every float,
every mark), plus the content hash of every file compiling read (meshes, height files,
recorded through `note_read` while it ran); an edited file compiles again. Errors are never
remembered. The Model is shared by whoever asks (nothing writes to it once compiled: the
mutable parts of a run live in Data); the initial contact state is copied for each caller.
"""
from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from typing import Callable

from pipeline.contents import file_state

_SIZE = 16  # models remembered (a humanoid's is about 1 MB)
_cache: OrderedDict = OrderedDict()
_reads: list[set[str]] = []  # files read by the compiles running now (innermost last)


def note_read(path) -> None:
    """Record that the compile running now read `path` (its content is part of the key)."""
    for reads in _reads:
        reads.add(str(path))


def compiled(scene, build: Callable):
    """`build(scene)` -> (model, cstate0), or the remembered result for the same content."""
    try:
        key = hashlib.blake2b(pickle.dumps((scene.creatures, scene.environment), protocol=5),
                              digest_size=20).digest()
    except (pickle.PicklingError, TypeError, AttributeError):  # something unpicklable: no caching
        return build(scene)
    hit = _cache.get(key)
    if hit is not None and all(file_state(f) == state for f, state in hit[2]):
        _cache.move_to_end(key)
        return hit[0], hit[1].copy()
    reads: set[str] = set()
    _reads.append(reads)
    try:
        model, cstate0 = build(scene)
    finally:
        _reads.pop()
    _cache[key] = (model, cstate0.copy(), tuple((f, file_state(f)) for f in sorted(reads)))
    while len(_cache) > _SIZE:
        _cache.popitem(last=False)
    return model, cstate0
