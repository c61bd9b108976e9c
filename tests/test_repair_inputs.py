"""feedback()'s lean alignment (``aligner._repair_inputs``: the scopes' records and
bijections, no ScopeAlignment, trace or warning) is align()'s: the same score bits,
match tree rows, bijections and records on every sample, and the same feedback as
rendering align()'s alignment."""

from __future__ import annotations

import pytest
from oa_helpers import SAMPLE_INDEX, load_sample

import oa_core
from oa_core.aligner import _repair_inputs
from oa_core.feedback import render_feedback
from oa_core.nodetable import tree_rows


def _cases() -> list[tuple[str, str, str]]:
    return [(e["id"], s["file"], c["file"]) for e in SAMPLE_INDEX for s in e["schemas"]
            for c in e["candidates"][:1]]


@pytest.mark.parametrize(("example", "schema_file", "candidate_file"), _cases())
@pytest.mark.parametrize("wl_mode", ["tie_break", "none"])
def test_the_lean_alignment_is_aligns(example: str, schema_file: str, candidate_file: str,
                                      wl_mode: str) -> None:
    gold, candidate = load_sample(example, "gold.json"), load_sample(example, candidate_file)
    schema = oa_core.Schema.parse(load_sample(example, schema_file))
    full = oa_core.align(gold, candidate, schema, wl_mode=wl_mode)
    lean = _repair_inputs(gold, candidate, schema, wl_mode=wl_mode)
    assert lean.score.hex() == full.score.hex()
    rows = tree_rows(full.tree)
    assert (lean.rows.parent, lean.rows.kind, lean.rows.status, lean.rows.gold_path,
            lean.rows.candidate_path, lean.rows.score) == (
        rows.parent, rows.kind, rows.status, rows.gold_path, rows.candidate_path, rows.score)
    assert lean.bijections == full.bijections
    assert sorted(lean.scopes) == sorted(full.scopes)
    for name, records in lean.scopes.items():
        shown = full.scopes[name]
        assert (records.gold_ids, records.candidate_ids, records.gold_paths) == (
            shown.gold_ids, shown.candidate_ids, shown.gold_paths)
    found = oa_core.feedback(gold, candidate, schema, wl_mode=wl_mode, top_k=50)
    rendered = render_feedback(full, top_k=50)
    assert found.to_dict() == rendered.to_dict()
