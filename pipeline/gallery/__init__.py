"""The gallery: `index.html` in a batch's or an evolution's folder (or any folder of runs),
one card per run or individual with its poster frame, video, metrics, glTF and status, and a
sortable table of them. One self-contained file, rewritten atomically as jobs finish."""
from __future__ import annotations

import time
from pathlib import Path

from pipeline.errors import CorpusError, Problem

PAGE = "index.html"
# least seconds between two rewrites while jobs finish: a page embeds every poster (~30 kB
# each), so a batch of 500 jobs rewriting its ~15 MB page after each job would write GBs
EVERY_S = 2.0


def check_page_target(folder: Path) -> None:
    """An index.html that is not a gallery (a user's own page) is never overwritten."""
    from pipeline.gallery.page import GENERATOR

    page = Path(folder) / PAGE
    if page.is_dir() or (page.is_file() and f'<meta name="generator" content="{GENERATOR}">' not in _head(page)):
        raise CorpusError(Problem("is not a corpus gallery, so the gallery will not overwrite it; move it away",
                                  str(page)))


def write_gallery(folder: str | Path) -> Path:
    """(Re)write `folder`/index.html from what the folder holds now."""
    from pipeline.fileio import atomic_write_text
    from pipeline.gallery.collect import collect
    from pipeline.gallery.page import render

    folder = Path(folder)
    check_page_target(folder)
    page = folder / PAGE
    atomic_write_text(page, render(collect(folder)))
    return page


def _head(page: Path) -> str:
    """The start of a page, where a gallery names its generator."""
    try:
        with open(page, encoding="utf-8", errors="replace") as f:
            return f.read(2000)
    except OSError as exc:
        raise CorpusError(Problem(f"cannot read: {exc.strerror or exc}", str(page))) from exc


class LivePage:
    """The page of a folder whose jobs are still finishing: `update()` after each one rewrites
    it at most every EVERY_S seconds; leaving the block writes what the last skipped."""

    def __init__(self, folder: Path, every: float = EVERY_S):
        self.folder, self.every = Path(folder), every
        self.written = -float("inf")
        self.pending = False

    def update(self) -> None:
        self.pending = True
        if time.monotonic() - self.written >= self.every:
            self._write()

    def _write(self) -> None:
        write_gallery(self.folder)
        self.written, self.pending = time.monotonic(), False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self.pending:  # also after an interrupt: the page shows every job that finished
            self._write()
