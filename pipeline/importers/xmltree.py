"""A minimal XML element tree that remembers where each element starts (file, line, column),
so importer messages can point at the offending element. Built on expat (stdlib)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

import numpy as np

from pipeline.errors import CorpusError, Problem


@dataclass
class Element:
    tag: str
    attrib: dict[str, str]
    file: str
    line: int
    col: int
    children: list["Element"] = field(default_factory=list)

    def get(self, key: str, default=None):
        return self.attrib.get(key, default)

    def findall(self, tag: str) -> list["Element"]:
        return [c for c in self.children if c.tag == tag]

    def find(self, tag: str) -> "Element | None":
        return next((c for c in self.children if c.tag == tag), None)

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def problem(self, message: str, attr: str | None = None) -> Problem:
        path = f"<{self.tag}{' ' + attr if attr else ''}>"
        return Problem(message, file=self.file, line=self.line, col=self.col, path=path)


def parse_xml(path: str | Path) -> Element:
    """Parse `path` into Elements; malformed XML becomes a located CorpusError."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(Problem(f"cannot read: {exc.strerror}", file=str(path))) from None
    parser = expat.ParserCreate()
    stack: list[Element] = []
    roots: list[Element] = []

    def start(tag, attrs):
        el = Element(tag, dict(attrs), str(path), parser.CurrentLineNumber,
                     parser.CurrentColumnNumber + 1)
        (stack[-1].children if stack else roots).append(el)
        stack.append(el)

    def end(_tag):
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise CorpusError(Problem(f"malformed XML: {expat.errors.messages[exc.code]}",
                                  file=str(path), line=exc.lineno, col=exc.offset + 1)) from None
    return roots[0]


def floats(text: str | None, n: int | None = None, element: Element | None = None,
           attr: str = "") -> np.ndarray | None:
    if text is None:
        return None
    try:
        values = np.array([float(t) for t in text.split()])
    except ValueError:
        raise CorpusError(element.problem(f"expected numbers, got {text!r}", attr)) from None
    if n is not None and len(values) < n:
        raise CorpusError(element.problem(f"expected {n} numbers, got {text!r}", attr))
    return values


def attr_number(element: Element, attr: str, default: str | None = None, attrs: dict | None = None) -> float:
    """One numeric attribute (from `attrs` when given: defaults merged in), located when it is
    not a number."""
    text = (element.attrib if attrs is None else attrs).get(attr, default)
    if text is None:
        raise CorpusError(element.problem(f"missing the {attr} attribute", attr))
    return float(floats(text, 1, element, attr)[0])
