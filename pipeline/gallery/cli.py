"""`corpus gallery DIR`: (re)build DIR/index.html from the runs DIR holds."""
from __future__ import annotations

import sys
from pathlib import Path

from pipeline.errors import CorpusError, Problem


def add_parser(sub) -> None:
    p = sub.add_parser("gallery", help="write index.html: a page of the runs in a batch, evolution or any folder",
                       description="Write DIR/index.html: a card per run (poster frame, video, metrics, glTF, "
                                   "status and message) and a sortable table. `corpus batch` and `corpus evolve` "
                                   "keep it current themselves; this rebuilds it for any folder of runs.")
    p.add_argument("folder", metavar="DIR", help="a batch folder, an evolution folder, or any folder of run folders")
    p.add_argument("--quiet", action="store_true", help="do not print the page's path")
    p.set_defaults(func=main)


def main(args) -> int:
    from pipeline.gallery import write_gallery

    folder = Path(args.folder)
    if not folder.exists():
        raise CorpusError(Problem("no such folder", str(folder)))
    if not folder.is_dir():
        raise CorpusError(Problem("is a file, not a folder of runs", str(folder)))
    page = write_gallery(folder)
    if not args.quiet:
        print(page)
    return 0
