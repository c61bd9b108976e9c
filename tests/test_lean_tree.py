"""feedback()'s lean match tree (``match_tree(..., perfect_leaves=False)``): align()'s
tree without the leaves that score 1 under the same key of a map that does not score 0,
every other node the same (score bits, values, effective weights, children order)."""

from __future__ import annotations

from typing import Any

import pytest
from oa_helpers import SAMPLE_INDEX, load_sample

import oa_core
from oa_core.aligner import _repair_inputs
from oa_core.kinds import NodeKind, Status
from oa_core.matchtree import MatchNode


def _left_out(node: MatchNode, parent: MatchNode) -> bool:
    return (node.kind == NodeKind.LEAF and node.status == Status.MATCHED
            and node.score >= 1.0 and node.gold_key == node.candidate_key
            and parent.kind == NodeKind.MAP and parent.score != 0.0)


def _pruned(node: MatchNode) -> dict[str, Any]:
    """``node.to_dict()`` without the children the lean tree leaves out."""
    shown = node.to_dict()
    shown["children"] = [_pruned(c) for c in node.children if not _left_out(c, node)]
    shown.update(gold=node.gold, candidate=node.candidate, expected=node.expected,
                 key_effective_weight=node.key_effective_weight.hex())
    return shown


def _cases() -> list[tuple[str, str, str]]:
    return [(e["id"], s["file"], c["file"]) for e in SAMPLE_INDEX for s in e["schemas"]
            for c in e["candidates"][:2]]


@pytest.mark.parametrize(("example", "schema_file", "candidate_file"), _cases())
def test_the_lean_tree_is_aligns_without_its_perfect_map_leaves(
        example: str, schema_file: str, candidate_file: str) -> None:
    gold, candidate = load_sample(example, "gold.json"), load_sample(example, candidate_file)
    schema = oa_core.Schema.parse(load_sample(example, schema_file))
    full = oa_core.align(gold, candidate, schema).tree
    lean = _repair_inputs(gold, candidate, schema, perfect_leaves=False).tree
    assert _pruned(lean) == _pruned(full)
    if schema.scopes:  # the lean tree is only made for schemas with scopes
        assert not any(_left_out(c, n) for n in lean.iter_nodes() for c in n.children)


def test_the_running_examples_lean_tree_leaves_out_its_perfect_leaves() -> None:
    gold, candidate, raw = (load_sample("running_example", f"{name}.json")
                            for name in ("gold", "candidate", "schema"))
    full = oa_core.align(gold, candidate, raw).tree
    lean = _repair_inputs(gold, candidate, raw, perfect_leaves=False).tree
    assert len(list(lean.iter_nodes())) < len(list(full.iter_nodes()))
    assert lean.score.hex() == full.score.hex()
