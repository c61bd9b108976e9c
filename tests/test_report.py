"""Text rendering of alignments and errors (:mod:`oa_core.report`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import oa_core
from oa_core import InputError
from oa_core.report import (
    RED,
    Painter,
    describe_error,
    explain_table,
    printable,
    render_explain,
    short,
)

RUNNING = Path(__file__).resolve().parent.parent / "sample_data" / "running_example"


def running_alignment() -> oa_core.Alignment:
    gold, candidate, schema = (json.loads((RUNNING / f"{n}.json").read_text())
                               for n in ("gold", "candidate", "schema"))
    return oa_core.align(gold, candidate, schema)


def test_explain_table_rows() -> None:
    lines = explain_table(running_alignment(), only_imperfect=True).splitlines()
    assert lines[0].split()[:3] == ["path", "kind", "status"]
    assert [line.split()[0] for line in lines[1:]] == [
        "(root)", "/agenda", "/agenda/1", "/agenda/2", "/agenda/0", "/people", "/people/5",
        "/period", "/period/1"]
    assert explain_table(running_alignment(), max_depth=0).count("\n") == 1


def test_render_explain_names_sources_and_scopes() -> None:
    text = render_explain(running_alignment(), title="g vs c", source=lambda d: f"<{d}>")
    assert text.startswith("score 0.7679  deficit 0.2321  (g vs c)")
    assert "scope person: 1→91, 2→94, 3→93, 4→92, 5→90, 6→null" in text
    colored = render_explain(running_alignment(), Painter(True))
    assert f"\033[{RED}m" in colored


def test_defect_15_printable_escapes_lone_surrogates_only() -> None:
    assert printable("plain") == "plain"
    assert printable("café → 😀") == "café → 😀"
    assert printable("a\ud800b\udfff") == "a\\ud800b\\udfff"
    assert printable("a\ud800b").encode("utf-8")  # now encodable
    with pytest.raises(InputError) as caught:  # a document holding one is refused
        oa_core.align({"a": "\ud800"}, {"a": "x"}, {"type": "object"})
    str(caught.value).encode("utf-8")


def test_describe_error_and_short() -> None:
    err = InputError("/a/0", "bad value", fix="fix it", document="gold")
    assert describe_error(err, "g.json") == "g.json (gold) at /a/0: bad value\n  fix: fix it"
    assert describe_error(err, "p.jsonl line 3", "/gold") == (
        "p.jsonl line 3 (gold) at /gold/a/0: bad value\n  fix: fix it")
    assert describe_error(InputError("", "empty"), "c.json") == (
        "c.json (candidate) at (root): empty")
    assert short("x" * 40, 10) == '"xxxxxxxx…'
