"""Jobs: one fully resolved scene each, named by a content hash of everything it depends on."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pipeline
from pipeline.run import file_sha256


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
            h.update(file_sha256(f).encode() if Path(f).is_file() else b"missing")
        return h.hexdigest()

    def out_dir(self, root: Path) -> Path:
        return Path(root) / f"{self.name}-{self.hash[:12]}"

    def is_complete(self, root: Path) -> bool:
        """A job is done when its directory has a manifest for exactly this job."""
        manifest = self.out_dir(root) / "manifest.json"
        try:
            return json.loads(manifest.read_text()).get("job_hash") == self.hash
        except (OSError, ValueError):
            return False


def job_name(scene_name: str, params: dict) -> str:
    if not params:
        return scene_name
    parts = [f"{path.split('.')[-1]}={value}" for path, value in params.items()]
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", "__".join([scene_name, *parts]))[:150]
