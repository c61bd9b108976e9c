"""feedback()'s lean alignment (``aligner._repair_inputs``: the scopes' records and
bijections, no ScopeAlignment, trace or warning) is align()'s: the same score bits,
match tree, bijections and records on every sample, and the same feedback as
rendering align()'s alignment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import oa_core
from oa_core.aligner import _repair_inputs
from oa_core.feedback import render_feedback

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"
INDEX = json.loads((SAMPLES / "index.json").read_text(encoding="utf-8"))


def _load(example: str, name: str) -> Any:
    return json.loads((SAMPLES / example / name).read_text(encoding="utf-8"))


def _cases() -> list[tuple[str, str, str]]:
    return [(e["id"], s["file"], c["file"]) for e in INDEX for s in e["schemas"]
            for c in e["candidates"][:1]]


@pytest.mark.parametrize(("example", "schema_file", "candidate_file"), _cases())
@pytest.mark.parametrize("wl_mode", ["tie_break", "none"])
def test_the_lean_alignment_is_aligns(example: str, schema_file: str, candidate_file: str,
                                      wl_mode: str) -> None:
    gold, candidate = _load(example, "gold.json"), _load(example, candidate_file)
    schema = oa_core.Schema.parse(_load(example, schema_file))
    full = oa_core.align(gold, candidate, schema, wl_mode=wl_mode)
    lean = _repair_inputs(gold, candidate, schema, wl_mode=wl_mode)
    assert lean.score.hex() == full.score.hex()
    assert lean.tree.to_dict() == full.tree.to_dict()
    assert lean.bijections == full.bijections
    assert sorted(lean.scopes) == sorted(full.scopes)
    for name, records in lean.scopes.items():
        shown = full.scopes[name]
        assert (records.gold_ids, records.candidate_ids, records.gold_paths) == (
            shown.gold_ids, shown.candidate_ids, shown.gold_paths)
    found = oa_core.feedback(gold, candidate, schema, wl_mode=wl_mode, top_k=50)
    rendered = render_feedback(full, top_k=50)
    assert found.to_dict() == rendered.to_dict()
