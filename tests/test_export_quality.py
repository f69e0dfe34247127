"""outputs.quality: parsed and checked where it is given (a scene field or --quality)."""
from __future__ import annotations

import argparse

import pytest

from pipeline.errors import CorpusError
from pipeline.export.options import resolve_options
from pipeline.run import export_flags


def test_quality_defaults_to_final_and_accepts_draft():
    assert resolve_options({}).quality == "final"
    assert resolve_options({"quality": "draft"}).quality == "draft"


@pytest.mark.parametrize("bad", ["best", "", None, 1])
def test_a_bad_quality_is_a_located_error(bad):
    with pytest.raises(CorpusError) as e:
        resolve_options({"quality": bad})
    assert str(e.value) == f"<input>: outputs.quality: expected one of draft, final, got {bad!r}"


def test_the_quality_flag_is_checked_and_named():
    assert export_flags(argparse.Namespace(quality="draft")) == {"quality": "draft"}
    with pytest.raises(CorpusError) as e:
        export_flags(argparse.Namespace(quality="fast"))
    assert str(e.value) == "<input>: --quality: expected one of draft, final, got 'fast'"
