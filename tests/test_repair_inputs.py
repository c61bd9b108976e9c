"""feedback()'s lean alignment (``aligner._repair_inputs``: the scopes' records and
bijections, no ScopeAlignment, trace or warning) is align()'s: the same score bits,
match tree rows (without the agreeing subtrees, but with WL off), bijections and
records on every sample, and the same feedback as rendering align()'s alignment."""

from __future__ import annotations

import pytest
from oa_helpers import SAMPLE_INDEX, kept_rows, load_sample

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
    kept = kept_rows(lean.rows, rows)
    if wl_mode == "none":  # every row: a list holding records is put in the gold's order
        assert kept == list(range(len(rows.parent)))
    assert [None if p is None else kept[p] for p in lean.rows.parent] == [
        rows.parent[k] for k in kept]
    assert (lean.rows.kind, lean.rows.status, lean.rows.score) == (
        [rows.kind[k] for k in kept], [rows.status[k] for k in kept],
        [rows.score[k] for k in kept])
    assert lean.bijections == full.bijections
    assert sorted(lean.scopes) == sorted(full.scopes)
    for name, records in lean.scopes.items():
        shown = full.scopes[name]
        assert (records.gold_ids, records.candidate_ids, records.gold_paths) == (
            shown.gold_ids, shown.candidate_ids, shown.gold_paths)
    found = oa_core.feedback(gold, candidate, schema, wl_mode=wl_mode, top_k=50)
    rendered = render_feedback(full, top_k=50)
    assert found.to_dict() == rendered.to_dict()


_SCOPED = {"type": "object", "properties": {
    "people": {"type": "array", "order": "align", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}, "name": {"type": "string"}}}},
    "boss": {"type": "integer", "ref": "p"}, "notes": {}}}
_PEOPLE = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("gold", "candidate", "limits"), [
    ({"people": _PEOPLE, "boss": float("nan")}, {"people": [], "boss": float("nan")}, {}),
    ({"people": _PEOPLE}, {"people": _PEOPLE, "boss": float("inf")}, {}),
    ({"people": [{"id": "x"}]}, {"people": [], "boss": float("nan")}, {}),
    ({"people": [{"id": "x"}]}, {"people": []}, {}),
    ({"people": [{"id": "x"}]}, {"people": _PEOPLE}, {"max_matrix_cells": 1}),
    ({"people": _PEOPLE}, {"people": _PEOPLE * 2}, {"max_matrix_cells": 1}),
    ({"people": _PEOPLE, "notes": _nested(600)}, {"people": [], "boss": float("nan")},
     {"max_depth": 700}),
    ({"people": [{"id": "x"}], "notes": _nested(600)}, {"people": []}, {"max_depth": 700}),
    ({"people": _PEOPLE}, {"people": _PEOPLE, "notes": _nested(600)}, {"max_depth": 700}),
])
def test_feedback_refuses_documents_as_align_does(gold: object, candidate: object,
                                                  limits: dict[str, int]) -> None:
    """The engine checks the documents of feedback() as it resolves them: the error is
    align()'s, in its order (each document's problems, then the gold's violations, then
    what the resolution refuses), also where the engine follows less nesting than the
    limits allow."""
    schema = oa_core.Schema.parse(_SCOPED)
    options = {"limits": oa_core.Limits(**limits)}
    with pytest.raises(Exception) as expected:
        oa_core.align(gold, candidate, schema, **options)
    with pytest.raises(type(expected.value)) as found:
        oa_core.feedback(gold, candidate, schema, **options)
    assert str(found.value) == str(expected.value)
