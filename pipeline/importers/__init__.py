"""Importers: other programs' model files -> corpus YAML documents.

`IMPORTERS` maps a file extension to (format name, converter); `corpus convert` and
`use: model.xml` inside a scene both dispatch through it. A converter takes the path and
`drop_unsupported` and returns an object with the document lists `creatures`,
`controllers`, `environment`, `simulation`, `timeline` and `notes`
(`pipeline.importers.links.ImportResult`).
"""
from __future__ import annotations

from pathlib import Path

from pipeline.errors import CorpusError, Problem


def _mjcf(path, drop_unsupported=False):
    from pipeline.importers.mjcf import import_mjcf

    return import_mjcf(path, drop_unsupported=drop_unsupported)


def _urdf(path, drop_unsupported=False):
    from pipeline.importers.urdf import import_urdf

    return import_urdf(path, drop_unsupported=drop_unsupported)


def _corpus_script(path, drop_unsupported=False):
    from pipeline.importers.corpus_script import convert_corpus_script

    return convert_corpus_script(path)


IMPORTERS = {".xml": ("MuJoCo MJCF", _mjcf), ".urdf": ("URDF", _urdf),
             ".corpus": ("corpus command script", _corpus_script),
             ".txt": ("corpus command script", _corpus_script)}


def import_file(path, *, drop_unsupported: bool = False):
    """Convert `path` by its extension (see IMPORTERS)."""
    suffix = Path(path).suffix.lower()
    if Path(path).is_dir():
        raise CorpusError(Problem("is a folder; convert takes one model file", file=str(path)))
    if suffix not in IMPORTERS:
        known = ", ".join(sorted(IMPORTERS))
        raise CorpusError(Problem(f"no importer for {suffix or 'files without an extension'} "
                                  f"(known: {known})", file=str(path)))
    return IMPORTERS[suffix][1](path, drop_unsupported=drop_unsupported)


def load_model_file(path, *, drop_unsupported: bool = False) -> dict:
    """The creature document (a plain dict, mesh paths absolute) of a model file holding one
    tree: the hook behind `use: model.xml` in a scene."""
    result = import_file(path, drop_unsupported=drop_unsupported)
    if len(result.creatures) != 1:
        raise CorpusError(Problem(f"holds {len(result.creatures)} creatures; a `use:` takes "
                                  "one — convert it to a scene with `corpus convert --as scene`",
                                  file=str(path)))
    return result.creatures[0]
