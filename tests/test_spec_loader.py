"""The YAML loader: marks, YAML 1.2 scalars, and refusing hostile input quickly."""
from __future__ import annotations

import math
import os
import time

import pytest

from pipeline.errors import CorpusError
from pipeline.spec.loader import MAX_FILE_BYTES, MDict, MList, parse_text, read_file


def problems_of(fn, *args) -> list[str]:
    with pytest.raises(CorpusError) as info:
        fn(*args)
    return [str(p) for p in info.value.problems]


def test_every_value_keeps_file_line_and_column():
    doc = parse_text("a:\n  b: [1, {c: x}]\n  d: 2\n", "f.yaml")
    assert isinstance(doc, MDict) and isinstance(doc["a"]["b"], MList)
    assert doc.key_mark("a") == doc.mark == type(doc.mark)("f.yaml", 1, 1)
    inner = doc["a"]
    assert (inner.value_mark("b").line, inner.value_mark("b").col) == (2, 6)
    assert (inner["b"].item_mark(1).line, inner["b"].item_mark(1).col) == (2, 10)
    assert (inner["b"][1].value_mark("c").line, inner["b"][1].value_mark("c").col) == (2, 14)
    assert (inner.key_mark("d").line, inner.key_mark("d").col) == (3, 3)


def test_yaml_1_2_core_scalars():
    doc = parse_text("a: off\nb: yes\nc: 1e-6\nd: 0x1f\ne: 0o17\nf: .inf\ng: ~\nh: True\ni: '1'\nj: 1/2400\n")
    assert doc["a"] == "off" and doc["b"] == "yes"  # YAML 1.1 booleans stay strings
    assert doc["c"] == 1e-6 and isinstance(doc["c"], float)
    assert (doc["d"], doc["e"]) == (31, 15)
    assert math.isinf(doc["f"]) and doc["g"] is None and doc["h"] is True
    assert doc["i"] == "1" and doc["j"] == "1/2400"


def test_duplicate_keys_are_all_reported():
    assert problems_of(parse_text, "a: 1\nb: 2\na: 3\nb: 4\n", "d.yaml") == [
        "d.yaml:3:1: duplicate key 'a' (first defined at line 1)",
        "d.yaml:4:1: duplicate key 'b' (first defined at line 2)"]


def test_aliases_to_plain_data_are_copies():
    doc = parse_text("a: &x {k: 1}\nb: *x\n")
    assert doc["a"] == doc["b"] and doc["a"] is not doc["b"]


def test_alias_bomb_is_refused_quickly():
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    start = time.perf_counter()
    (message,) = problems_of(parse_text, "\n".join(lines) + "\n", "bomb.yaml")
    assert time.perf_counter() - start < 2.0
    assert "alias bomb" in message and message.startswith("bomb.yaml:")


def test_fifty_megabyte_file_is_refused_without_reading_it(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(50 * 1024 * 1024)
    start = time.perf_counter()
    assert problems_of(read_file, big) == [
        f"{big}: refused: the file is 50.0 MB; YAML files may be at most {MAX_FILE_BYTES // 2**20} MB"]
    assert time.perf_counter() - start < 0.5


def test_binary_garbage_is_refused_quickly(tmp_path):
    garbage = tmp_path / "garbage.yaml"
    garbage.write_bytes(b"\x01" * 100 + b"\n" + b"\xff" * 10 + b"\x00" + os.urandom(8192))
    start = time.perf_counter()
    assert problems_of(read_file, garbage) == [f"{garbage}:2:11: refused: a NUL byte: this is a binary file, "
                                               "not YAML text"]
    assert time.perf_counter() - start < 0.5


def test_non_utf8_text_points_at_the_byte(tmp_path):
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("creature: caf\xe9\n".encode("latin-1"))
    assert problems_of(read_file, latin) == [
        f"{latin}:1:14: refused: not UTF-8 text (byte 0xe9); save the file as UTF-8"]


def test_deep_nesting_is_refused_before_the_composer_recurses():
    # 100 000 brackets used to overflow libyaml's recursive composer (a segfault); libyaml
    # >= 0.2.5 refuses past its own limit of 1000 first, and the message must still be ours
    (message,) = problems_of(parse_text, "a: " + "[" * 100_000 + "]" * 100_000 + "\n", "deep.yaml")
    assert message == "deep.yaml:1:203: refused: nesting deeper than 200 levels"


def test_tags_that_build_objects_are_refused():
    (message,) = problems_of(parse_text, "a: !!python/name:os.system ''\n", "t.yaml")
    assert message == ("t.yaml:1:4: unsupported tag 'tag:yaml.org,2002:python/name:os.system': "
                       "only plain YAML data is allowed")


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbfcreature: c\n")
    assert read_file(bom) == {"creature": "c"}
