"""The gallery: `index.html` in a batch's or an evolution's folder (or any folder of runs),
one card per run or individual with its poster frame, video, metrics, glTF and status, and a
sortable table of them. One self-contained file, rewritten atomically as jobs finish."""
from __future__ import annotations

from pathlib import Path

from pipeline.errors import CorpusError, Problem

PAGE = "index.html"


def check_page_target(folder: Path) -> None:
    """An index.html that is not a gallery (a user's own page) is never overwritten."""
    from pipeline.gallery.page import GENERATOR

    page = Path(folder) / PAGE
    if page.is_dir() or (page.is_file() and f'<meta name="generator" content="{GENERATOR}">'
                         not in page.read_text(errors="replace")[:2000]):
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
