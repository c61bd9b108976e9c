"""feedback()'s match tree as node table rows (``nodetable.table_rows``, walked by
``feedback._Collector``): every row it reads derives the values and effective weights
of align()'s tree, bit for bit, and its repairs are those of align()'s tree's rows."""

from __future__ import annotations

import importlib

import pytest
from oa_helpers import SAMPLE_INDEX, load_sample

import oa_core
from oa_core.aligner import _repair_inputs
from oa_core.nodetable import tree_rows

feedback_module = importlib.import_module("oa_core.feedback")


def _cases() -> list[tuple[str, str, str]]:
    return [(e["id"], s["file"], c["file"]) for e in SAMPLE_INDEX for s in e["schemas"]
            for c in e["candidates"][:2]]


@pytest.mark.parametrize(("example", "schema_file", "candidate_file"), _cases())
def test_the_rows_the_walk_reads_are_aligns_tree(example: str, schema_file: str,
                                                 candidate_file: str) -> None:
    gold, candidate = load_sample(example, "gold.json"), load_sample(example, candidate_file)
    schema = oa_core.Schema.parse(load_sample(example, schema_file))
    alignment = oa_core.align(gold, candidate, schema)
    inputs = _repair_inputs(gold, candidate, schema)
    collector = feedback_module._Collector(inputs, inputs.rows, False, "python")
    collector.walk()
    full, lean = tree_rows(alignment.tree), inputs.rows
    assert lean.parent == full.parent and lean.score == full.score
    for row, parent in enumerate(lean.parent):
        if parent is None or lean.effective_weight[row] or lean.gold[row] is not None:
            assert lean.gold[row] == full.gold[row]
            assert lean.candidate[row] == full.candidate[row]
            assert lean.effective_weight[row].hex() == full.effective_weight[row].hex()
            assert (lean.key_effective_weight[row].hex()
                    == full.key_effective_weight[row].hex())
    ranked = feedback_module._ranked_ops(inputs, False, feedback_module.DEFAULT_TEMPLATES,
                                         "python")
    assert [(op.to_dict(), op.delta.hex()) for op in ranked] == [
        (op.to_dict(), op.delta.hex()) for op in oa_core.repair_ops(alignment)]
