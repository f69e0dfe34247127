"""Safe YAML reading that keeps where every value came from.

PyYAML composes the text into nodes (with line/column marks); we build our own containers
from those nodes instead of letting PyYAML construct objects, so that

* only plain data exists afterwards (no tags that build Python objects),
* every mapping and list remembers the file/line/col of its entries (`MDict`, `MList`),
* duplicate keys, alias bombs, oversized, binary and non-UTF-8 files are refused with a
  located `Problem` instead of a traceback or a hang.

Scalars follow the YAML 1.2 core schema (the one editors use): `on`/`off`/`yes` stay
strings and `1e-6` is a float.
"""
from __future__ import annotations

import copy
import math
import os
import stat
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from pipeline.errors import CorpusError, Problem
from pipeline.spec.types import Where

MAX_FILE_BYTES = 10 * 1024 * 1024
# An alias may repeat a subtree; past this many repeated nodes the file is an alias bomb.
MAX_ALIAS_NODES = 10_000
MAX_NODES = 2_000_000
# ... and past this much text: a few aliases of one long string are a bomb of few nodes (100
# aliases of a 1 MB string made a 106 MB scene.json). Without aliases a document's text is
# never longer than its file, so this is the file limit.
MAX_EXPANDED_CHARS = MAX_FILE_BYTES
MAX_DEPTH = 200

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Mark:
    """A position in a source file (1-based line and column)."""

    file: str | None
    line: int | None
    col: int | None

    def problem(self, message: str, path: str = "") -> Problem:
        return Problem(message, self.file, self.line, self.col, path)


NOWHERE = Mark(None, None, None)


class MDict(dict):
    """A mapping that knows where it and each of its keys and values were written."""

    def __init__(self, *args, mark: Mark = NOWHERE, **kwargs):
        super().__init__(*args, **kwargs)
        self.mark = mark
        self.key_marks: dict = {}
        self.value_marks: dict = {}

    def key_mark(self, key) -> Mark:
        return self.key_marks.get(key, self.mark)

    def value_mark(self, key) -> Mark:
        return self.value_marks.get(key, self.key_mark(key))

    def set(self, key, value, key_mark: Mark | None = None, value_mark: Mark | None = None):
        self[key] = value
        if key_mark is not None:
            self.key_marks[key] = key_mark
        if value_mark is not None:
            self.value_marks[key] = value_mark

    def __deepcopy__(self, memo):
        new = MDict(mark=self.mark)
        for k, v in self.items():
            new[k] = copy.deepcopy(v, memo)
        new.key_marks = dict(self.key_marks)
        new.value_marks = dict(self.value_marks)
        return new


class MList(list):
    """A list that knows where it and each of its items were written."""

    def __init__(self, *args, mark: Mark = NOWHERE):
        super().__init__(*args)
        self.mark = mark
        self.item_marks: list[Mark] = []

    def item_mark(self, i: int) -> Mark:
        return self.item_marks[i] if 0 <= i < len(self.item_marks) else self.mark

    def add(self, value, mark: Mark | None = None):
        self.append(value)
        self.item_marks.append(mark or getattr(value, "mark", self.mark))

    def __deepcopy__(self, memo):
        new = MList(mark=self.mark)
        for v in self:
            new.append(copy.deepcopy(v, memo))
        new.item_marks = list(self.item_marks)
        return new


def child_mark(container, key) -> Mark:
    """Mark of `container[key]` (a dict key or a list index)."""
    if isinstance(container, MDict):
        return container.value_mark(key)
    if isinstance(container, MList):
        return container.item_mark(key)
    return getattr(container, "mark", NOWHERE)


def mark_at(doc, path) -> Mark:
    """The most precise mark along `path` (a sequence of keys/indices) inside `doc`."""
    mark = getattr(doc, "mark", NOWHERE)
    node = doc
    for key in path:
        try:
            mark = child_mark(node, key)
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    return mark


def join_path(path: str, rest: str) -> str:
    """"creatures[0]" + "bodies" -> "creatures[0].bodies"; "" + "bodies" -> "bodies"."""
    return f"{path}.{rest}" if path else rest


def problem_at(where: Where, message: str, path: str) -> Problem:
    """A problem at the dotted field `path` ("simulation.h") of the file `where` points into,
    at the line that writes it; at `where` itself when that file is gone (a scene given as a
    dict: `corpus batch` locates its jobs' problems by path) or does not write the field."""
    mark = None
    if where.file:
        try:
            doc = read_file(where.file)
        except CorpusError:
            doc = None
        mark = mark_at(doc, path.split(".")) if doc is not None else None
        if doc is not None and mark is doc.mark:
            mark = None
    if mark is None:
        return Problem(message, file=where.file, line=where.line, col=where.col, path=path)
    return Problem(message, file=mark.file, line=mark.line, col=mark.col, path=path)


def where_of(mark: Mark, path: str) -> Where:
    """The `Where` a Spec object keeps: its mark and field path."""
    return Where(mark.file, mark.line, mark.col, path)


def format_path(path) -> str:
    """["bodies", 2, "joint"] -> "bodies[2].joint"."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out += ("." if out else "") + str(key)
    return out


# --- YAML 1.2 core schema resolution ---------------------------------------------------

class _Loader(_BaseLoader):
    """The libyaml (or pure Python) parser with YAML 1.2 core implicit types."""


_Loader.yaml_implicit_resolvers = {}
_CORE_RESOLVERS = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]
for _tag, _regex, _first in _CORE_RESOLVERS:
    _Loader.add_implicit_resolver(_tag, re.compile(_regex), list(_first))


def _scalar(node: yaml.ScalarNode):
    tag, text = node.tag, node.value
    if tag == "tag:yaml.org,2002:str":
        return text
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool":
        return text.lower() == "true"
    if tag == "tag:yaml.org,2002:int":
        if text.startswith("0o"):
            return int(text[2:], 8)
        return int(text, 16) if text.startswith("0x") else int(text)
    if tag == "tag:yaml.org,2002:float":
        low = text.lower().lstrip("+")
        if low in (".inf", "-.inf"):
            return -math.inf if low.startswith("-") else math.inf
        if low == ".nan":
            return math.nan
        return float(text)
    raise ValueError(f"unsupported tag {tag!r}: only plain YAML data is allowed")


def _mark(file: str | None, node: yaml.Node) -> Mark:
    return Mark(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _Builder:
    """Turns a composed node graph into MDict/MList/scalars, enforcing the limits."""

    def __init__(self, file: str | None):
        self.file = file
        self.problems: list[Problem] = []
        self.nodes = 0
        self.alias_nodes = 0
        self.chars = 0  # text of every scalar built, keys included, repeats counted again
        self.seen: set[int] = set()
        self.active: set[int] = set()

    def build(self, node: yaml.Node, depth: int = 0, in_alias: bool = False):
        mark = _mark(self.file, node)
        self.nodes += 1
        in_alias = in_alias or id(node) in self.seen
        if in_alias:
            self.alias_nodes += 1
        if self.alias_nodes > MAX_ALIAS_NODES or self.nodes > MAX_NODES:
            raise CorpusError(mark.problem(
                "refused: aliases expand to too many nodes (an alias bomb?); "
                f"at most {MAX_ALIAS_NODES} repeated nodes are allowed"))
        if depth > MAX_DEPTH:
            raise CorpusError(mark.problem(f"refused: nesting deeper than {MAX_DEPTH} levels"))
        if id(node) in self.active:
            raise CorpusError(mark.problem("refused: an alias refers to the node that contains it"))
        self.seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            self._count_text(node.value, mark)
            try:
                return _scalar(node)
            except ValueError as exc:
                self.problems.append(mark.problem(str(exc)))
                return None
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                self._check_tag(node, "tag:yaml.org,2002:seq", mark)
                out = MList(mark=mark)
                for item in node.value:
                    out.add(self.build(item, depth + 1, in_alias), _mark(self.file, item))
                return out
            self._check_tag(node, "tag:yaml.org,2002:map", mark)
            return self._mapping(node, mark, depth, in_alias)
        finally:
            self.active.discard(id(node))

    def _count_text(self, text: str, mark: Mark) -> None:
        self.chars += len(text)
        if self.chars > MAX_EXPANDED_CHARS:
            raise CorpusError(mark.problem(
                f"refused: aliases expand the document to more than {MAX_EXPANDED_CHARS // 2**20} MB of "
                "text (an alias bomb?), more than a file may hold"))

    def _check_tag(self, node, expected: str, mark: Mark) -> None:
        if node.tag != expected:
            self.problems.append(mark.problem(
                f"unsupported tag {node.tag!r}: only plain YAML data is allowed"))

    def _mapping(self, node: yaml.MappingNode, mark: Mark, depth: int, in_alias: bool) -> MDict:
        out = MDict(mark=mark)
        for key_node, value_node in node.value:
            key_mark = _mark(self.file, key_node)
            if key_node.tag == "tag:yaml.org,2002:merge" or (
                    isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and not key_node.style):
                self.problems.append(key_mark.problem(
                    "merge keys (<<) are not supported; include with `use:` and `with:` instead"))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problems.append(key_mark.problem("a key must be a plain string"))
                continue
            key = key_node.value
            self._count_text(key, key_mark)
            if key in out:
                first = out.key_marks[key]
                self.problems.append(key_mark.problem(
                    f"duplicate key '{key}' (first defined at line {first.line})"))
                continue
            value = self.build(value_node, depth + 1, in_alias)
            out.set(key, value, key_mark, _mark(self.file, value_node))
        return out


def _decode(data: bytes, file: str | None) -> str:
    nul = data.find(b"\x00", 0, 65536)
    if nul >= 0:
        raise CorpusError(_byte_mark(data, nul, file).problem("refused: a NUL byte: this is a binary file, "
                                                              "not YAML text"))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(_byte_mark(data, exc.start, file).problem(
            f"refused: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8")) from None


def _byte_mark(data: bytes, i: int, file: str | None) -> Mark:
    """The line and column (in bytes) of byte i."""
    before = data[:i]
    return Mark(file, before.count(b"\n") + 1, i - (before.rfind(b"\n") + 1) + 1)


def _check_depth(text: str, file: str | None) -> None:
    """Refuse deep nesting from the event stream, before the (recursive) composer sees it:
    libyaml's composer would overflow the C stack on a few hundred thousand brackets.

    libyaml >= 0.2.5 (PyYAML >= 6.0.4) has a nesting limit of its own, and its scanner reads
    ahead, so its error can fire before our event reaches MAX_DEPTH. On any library error
    the text is re-read by the pure-Python parser, whose look-ahead is bounded, so a file too
    deep gets our located message whichever limit fires first."""
    try:
        _deepest(text, file, _Loader)
    except yaml.YAMLError as library_error:
        if _Loader is not yaml.SafeLoader:
            try:
                _deepest(text, file, yaml.SafeLoader)
            except yaml.YAMLError:
                pass
        raise library_error


def _deepest(text: str, file: str | None, loader) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise CorpusError(Mark(file, event.start_mark.line + 1, event.start_mark.column + 1).problem(
                    f"refused: nesting deeper than {MAX_DEPTH} levels"))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def parse_text(text: str, file: str | None = None):
    """Parse YAML text into MDict/MList/scalars; raises CorpusError with every problem found."""
    try:
        _check_depth(text, file)
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or str(exc)
        if exc.context and exc.problem:
            message = f"{exc.context}: {exc.problem}" if "while" not in exc.context else exc.problem
        where = Mark(file, mark.line + 1, mark.column + 1) if mark else Mark(file, None, None)
        raise CorpusError(where.problem(f"YAML syntax error: {message}")) from None
    except yaml.reader.ReaderError as exc:  # a control character: a position, not a mark
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - text.rfind("\n", 0, exc.position)
        code = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        raise CorpusError(Mark(file, line, col).problem(f"YAML error: unacceptable character {code}: "
                                                        f"{exc.reason}")) from None
    except yaml.YAMLError as exc:
        raise CorpusError(Mark(file, None, None).problem(f"YAML error: {exc}")) from None
    except RecursionError:
        raise CorpusError(Mark(file, None, None).problem(
            f"refused: nesting deeper than {MAX_DEPTH} levels")) from None
    if node is None:
        raise CorpusError(Mark(file, 1, 1).problem("the file is empty"))
    builder = _Builder(file)
    try:
        doc = builder.build(node)
    except RecursionError:
        raise CorpusError(_mark(file, node).problem(
            f"refused: nesting deeper than {MAX_DEPTH} levels")) from None
    if builder.problems:
        raise CorpusError(builder.problems)
    return doc


def read_file(path: str | os.PathLike) -> MDict:
    """Read one YAML file into marked containers; the top level must be a mapping."""
    path = Path(path)
    file = str(path)
    try:
        info = path.stat()
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            # /dev/zero never ends, a pipe blocks or cannot be read twice (includes, hashes)
            raise CorpusError(Mark(file, None, None).problem(
                "refused: this is a device or a pipe, not a file"))
        if info.st_size > MAX_FILE_BYTES:
            raise CorpusError(Mark(file, None, None).problem(
                f"refused: the file is {info.st_size / 2**20:.1f} MB; YAML files may be at most "
                f"{MAX_FILE_BYTES // 2**20} MB"))
        data = path.read_bytes()
    except CorpusError:
        raise
    except OSError as exc:
        raise CorpusError(Mark(file, None, None).problem(
            f"cannot read the file: {exc.strerror or exc}")) from None
    doc = parse_text(_decode(data, file), file)
    if not isinstance(doc, MDict):
        raise CorpusError(getattr(doc, "mark", Mark(file, 1, 1)).problem(
            "the top level must be a mapping such as `creature: name`"))
    return doc


def from_plain(value, mark: Mark = NOWHERE):
    """Wrap plain Python data (a dict given to `pipeline.load`) in marked containers."""
    if isinstance(value, dict):
        out = MDict(mark=mark)
        for k, v in value.items():
            out.set(k, from_plain(v, mark), mark, mark)
        return out
    if isinstance(value, (list, tuple)):
        out = MList(mark=mark)
        for v in value:
            out.add(from_plain(v, mark), mark)
        return out
    return value


def plain(value):
    """A copy of marked data as plain dicts and lists (for JSON and for other stages)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
