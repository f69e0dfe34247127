"""Includes (`use:` + `with:`): where a file may come from, reading it, and deep merging.

A `use:` path resolves relative to the file that names it. It must stay inside the project
root (the nearest folder above the top-level file holding `pyproject.toml` or
`corpus.toml`, else that file's folder) or inside the bundled `creatures/` and
`environments/`; anything else is refused unless `allow_outside`. Include cycles are
reported with the whole chain.
"""
from __future__ import annotations

import copy
import difflib
from pathlib import Path

from pipeline.errors import CorpusError
from pipeline.importers import IMPORTERS, load_model_file
from pipeline.spec.assets import ASSET_ROOT
from pipeline.spec.loader import MDict, MList, Mark, from_plain, read_file

BUNDLED_DIRS = (ASSET_ROOT / "creatures", ASSET_ROOT / "environments")
ROOT_MARKERS = ("pyproject.toml", "corpus.toml")


def project_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding a root marker, else `start`."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).is_file() for marker in ROOT_MARKERS):
            return folder
    return start


def display_path(path: Path) -> Path:
    """`path` relative to the working folder when inside it (as editors and CI show files)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class Includes:
    """Include policy and bookkeeping for one load: the root, files read, the chain."""

    def __init__(self, root: Path, allow_outside: bool = False):
        self.root = root.resolve()
        self.allow_outside = allow_outside
        self.files: list[str] = []
        self.chain: list[Path] = []

    def locate(self, value: str, mark: Mark, path: str) -> Path:
        """Resolve a file reference written at `mark` and check the policy."""
        base = Path(mark.file).resolve().parent if mark.file else Path.cwd()
        target = (base / value).resolve()
        if not self.allow_outside and not any(
                _inside(target, folder) for folder in (self.root, *BUNDLED_DIRS)):
            raise CorpusError(mark.problem(
                f"refused: '{value}' is outside the project ({self.root}) and the bundled "
                "creatures/environments; pass --allow-outside to permit it", path))
        if target.is_dir():
            raise CorpusError(mark.problem(f"'{value}' is a folder ({target}), not a file", path))
        if not target.is_file():
            hint = ""
            if target.parent.is_dir():
                names = [p.name for p in target.parent.iterdir() if p.is_file()]
                close = difflib.get_close_matches(target.name, names, n=1, cutoff=0.6)
                if close:
                    hint = f"; did you mean '{close[0]}'?"
            raise CorpusError(mark.problem(f"file not found: '{value}' ({target}){hint}", path))
        return target

    def read(self, value: str, mark: Mark, path: str) -> tuple[MDict, Path]:
        """Read an included file, refusing cycles; the caller pops `chain` when done."""
        target = self.locate(value, mark, path)
        if target in self.chain:
            names = " -> ".join(self.shown(p) for p in (*self.chain[self.chain.index(target):], target))
            raise CorpusError(mark.problem(f"include cycle: {names}", path))
        self.chain.append(target)
        self.note(target)
        if target.suffix.lower() in IMPORTERS:  # another program's model (MJCF, URDF, ...)
            return from_plain(load_model_file(target), mark), target
        return read_file(display_path(target)), target

    def shown(self, file: Path) -> str:
        """A file as messages show it: relative to the project root when inside it."""
        return str(file.relative_to(self.root)) if _inside(file, self.root) else str(file)

    def note(self, file: Path) -> None:
        if str(file) not in self.files:
            self.files.append(str(file))


def merge(base, override):
    """Deep merge: mappings merge key by key, lists of named mappings merge by `name`,
    anything else is replaced. Returns a new marked structure; inputs are not changed."""
    if isinstance(base, dict) and isinstance(override, dict):
        out = copy.deepcopy(base)
        for key, value in override.items():
            merged = merge(base[key], value) if key in base else copy.deepcopy(value)
            if isinstance(override, MDict) and isinstance(out, MDict):
                out.set(key, merged, override.key_mark(key), override.value_mark(key))
            else:
                out[key] = merged
        return out
    if isinstance(base, list) and isinstance(override, list) and _named(base) and _named(override):
        out = copy.deepcopy(base)
        index = {item["name"]: i for i, item in enumerate(out)}
        for j, item in enumerate(override):
            if item["name"] in index:
                out[index[item["name"]]] = merge(out[index[item["name"]]], item)
            elif isinstance(out, MList):
                out.add(copy.deepcopy(item), override.item_mark(j) if isinstance(override, MList) else None)
            else:
                out.append(copy.deepcopy(item))
        return out
    return copy.deepcopy(override)


def _named(items: list) -> bool:
    return all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in items)
