"""Where the schemas and the bundled creatures/environments live.

In a source checkout (or an editable install) they sit beside the `pipeline` package; a
regular install (`pip install .`, pre-commit's hook environment) puts them under
`<prefix>/share/corpus/` (pyproject.toml, [tool.setuptools.data-files]), found through the
installed distribution's file list so that --user and --prefix installs work too.
"""
from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _installed_root() -> Path:
    try:
        dist = metadata.distribution("corpus-pipeline")
    except metadata.PackageNotFoundError:
        dist = None
    for file in (dist.files or ()) if dist else ():
        if file.name == "defs.schema.json":
            return Path(dist.locate_file(file)).resolve().parents[1]
    return Path(sys.prefix) / "share" / "corpus"


ASSET_ROOT = SOURCE_ROOT if (SOURCE_ROOT / "schemas").is_dir() else _installed_root()
