"""What a gallery page shows, independent of where it came from (a batch, an evolution, a
folder of runs) and of how it is drawn (pipeline/gallery/page.py)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Card:
    """One run or individual. Hrefs are relative to the page, so the folder can move."""
    name: str
    status: str  # done | cached | failed | timeout | invalid (batch); ok (evolution)
    message: str = ""  # why it failed, located (file:line:col) where the stage knew where
    values: dict = field(default_factory=dict)  # column -> value: its metrics, in the card and the table
    params: dict = field(default_factory=dict)  # swept path -> value
    video: str = ""  # href of an mp4 the page plays
    poster: str = ""  # data: URI of its middle frame
    links: list[tuple[str, str]] = field(default_factory=list)  # (label, href)


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list]
    note: str = ""


@dataclass
class Page:
    title: str
    summary: str
    cards: list[Card]
    cards_title: str = "Runs"
    figures: list[tuple[str, str]] = field(default_factory=list)  # (caption, href)
    tables: list[Table] = field(default_factory=list)  # besides the table of the cards
