"""feedback()'s match tree as node table rows (``nodetable.table_rows`` of the table
without its agreeing subtrees, walked by ``feedback._Collector``): its rows are
align()'s tree's in their order, every row it reads derives the values and effective
weights of align()'s tree, bit for bit, every row left out agrees with the gold, and
its repairs are those of align()'s tree's rows."""

from __future__ import annotations

import importlib

import pytest
from oa_helpers import SAMPLE_INDEX, kept_rows, load_sample

import oa_core
from oa_core.aligner import _repair_inputs
from oa_core.comparators import id_key
from oa_core.matchtree import MatchNode
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
    kept = kept_rows(lean, full)
    assert kept[0] == 0 and kept == sorted(kept)
    assert [None if p is None else kept[p] for p in lean.parent] == [full.parent[k] for k in kept]
    assert lean.score == [full.score[k] for k in kept]
    assert lean.childless == [full.childless[k] for k in kept]
    for row, (parent, k) in enumerate(zip(lean.parent, kept, strict=True)):
        if parent is None or lean.effective_weight[row] or lean.gold[row] is not None:
            assert lean.gold[row] == full.gold[k]
            assert lean.candidate[row] == full.candidate[k]
            assert lean.effective_weight[row].hex() == full.effective_weight[k].hex()
            assert lean.key_effective_weight[row].hex() == full.key_effective_weight[k].hex()
    nodes = _preorder(alignment.tree)
    left_out = set(range(len(nodes))) - set(kept)
    assert all(_agrees(nodes[k], alignment.bijections) for k in left_out)
    ranked = feedback_module._ranked_ops(inputs, False, feedback_module.DEFAULT_TEMPLATES,
                                         "python")
    assert [(op.to_dict(), op.delta.hex()) for op in ranked] == [
        (op.to_dict(), op.delta.hex()) for op in oa_core.repair_ops(alignment)]


def _preorder(root: MatchNode) -> list[MatchNode]:
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(reversed(node.children))
    return nodes


def _agrees(node: MatchNode, bijections: dict[str, dict[object, object]]) -> bool:
    """A node of a subtree with nothing to repair: matched, scoring 1 under one key,
    an identifier the image of the gold's, a reference pointing at it."""
    if not (node.status == "matched" and node.score >= 1.0
            and (node.gold_key is None or node.candidate_key is None
                 or node.gold_key == node.candidate_key)):
        return False
    if node.kind == "id":
        image = bijections[node.scope or ""].get(node.gold)
        return image is not None and id_key(image) == id_key(node.candidate)
    if node.kind == "ref":
        return node.expected is not None
    return all(_agrees(child, bijections) for child in node.children)
