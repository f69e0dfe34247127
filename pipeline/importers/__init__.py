"""Importers: other simulators' model files -> corpus creature documents.

`IMPORTERS` maps a file extension to its converter; `corpus convert` and `use: model.xml`
inside a scene both dispatch through it.
"""
from __future__ import annotations

from pathlib import Path

from pipeline.errors import CorpusError, Problem


def _mjcf(path, **kw):
    from pipeline.importers.mjcf import import_mjcf

    return import_mjcf(path, **kw)


IMPORTERS = {".xml": _mjcf}


def import_file(path, *, drop_unsupported: bool = False):
    """Convert `path` by its extension; returns an ImportResult."""
    suffix = Path(path).suffix.lower()
    if suffix not in IMPORTERS:
        known = ", ".join(sorted(IMPORTERS))
        raise CorpusError(Problem(f"no importer for {suffix or 'files without extension'} "
                                  f"(known: {known})", file=str(path)))
    return IMPORTERS[suffix](path, drop_unsupported=drop_unsupported)
