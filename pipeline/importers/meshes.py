"""Reading mesh files named by imported models (STL, OBJ, PLY, ... through trimesh)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pipeline.errors import CorpusError


def load_mesh(path: Path, element) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (n, 3) and triangles (m, 3) of the mesh file at `path`; a missing or
    unreadable file is a CorpusError located at the element that names it."""
    import trimesh

    if not Path(path).is_file():
        raise CorpusError(element.problem(f"mesh file not found: {path}", "file"))
    try:
        mesh = trimesh.load(path, force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds for unreadable files
        raise CorpusError(element.problem(f"cannot read mesh {path}: {exc}", "file")) from None
    return np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=np.int64)
