"""Jobs: one fully resolved scene each, named by a content hash of everything it depends on."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pipeline
from pipeline.contents import file_state


@dataclass(frozen=True)
class Job:
    name: str  # readable: scene name plus the swept values
    source: dict  # canonical expanded scene document (pipeline.load accepts it)
    files: tuple[str, ...]  # every file the scene was built from
    params: dict = field(default_factory=dict)  # swept path -> value
    origin: str = ""  # the file the job came from, for messages
    base_dir: str = ""  # the scene file's folder: where its Python controllers' modules live

    @cached_property  # read once: out_dir, is_complete and the runner ask for it many times
    def hash(self) -> str:
        h = hashlib.sha256()
        h.update(pipeline.__version__.encode())
        h.update(json.dumps(self.source, sort_keys=True, separators=(",", ":")).encode())
        for f in sorted(self.files):
            h.update(f.encode())
            h.update(file_state(f).encode())
        return h.hexdigest()

    def out_dir(self, root: Path) -> Path:
        return Path(root) / f"{self.name}-{self.hash[:12]}"

    def is_complete(self, root: Path) -> bool:
        return published(self.out_dir(root), self.hash)


def published(out_dir: str | Path, job_hash: str) -> bool:
    """A job is done when its directory has a manifest for exactly this job (a process that
    exits 0 is not enough: user code may have ended it before anything was published)."""
    try:
        return json.loads((Path(out_dir) / "manifest.json").read_text()).get("job_hash") == job_hash
    except (OSError, ValueError, AttributeError):  # AttributeError: a manifest that is not a mapping
        return False


def job_name(scene_name: str, params: dict) -> str:
    if not params:
        return scene_name
    parts = [f"{path.split('.')[-1]}={value}" for path, value in params.items()]
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", "__".join([scene_name, *parts]))[:150]
