"""Sequences: align (Hungarian) and fixed (monotone DP) regimes, prefixes (III.C)."""

from __future__ import annotations

import pytest
from oa_helpers import int_list, str_list

import oa_core
from oa_core import SchemaError

GOLD = [1, 2, 4, 3]


@pytest.mark.parametrize(("candidate", "fixed", "aligned"), [
    ([1, 4, 2, 3], 0.6, 1.0),
    ([3, 4, 2, 1], 1 / 7, 1.0),
    ([1, 2, 4], 0.75, 0.75),
])
def test_facts2order_figure(candidate, fixed, aligned):
    assert oa_core.score(GOLD, candidate, int_list("fixed")) == pytest.approx(fixed, abs=1e-15)
    assert oa_core.score(GOLD, candidate, int_list("align")) == pytest.approx(aligned, abs=1e-15)


def test_default_order_is_fixed():
    schema = {"type": "array", "items": {"type": "integer", "score": "exact"}}
    assert oa_core.score([1, 2], [2, 1], schema) == 1 / 3


def test_zero_scoring_pair_is_missing_plus_excess():
    assert oa_core.score(["a", "b"], ["a", "c"], str_list("align")) == 1 / 3
    tree = oa_core.align(["a", "b"], ["a", "c"], str_list("align")).tree
    assert sorted(c.status for c in tree.children) == ["excess", "matched", "missing"]


def test_ignore_missing_and_excess():
    assert oa_core.score([1, 2, 3], [1], int_list("align", ignoreMissing=True)) == 1.0
    assert oa_core.score([1], [1, 2, 3], int_list("align", ignoreExcess=True)) == 1.0
    assert oa_core.score([1], [1, 2, 3], int_list("align")) == 1 / 3
    assert oa_core.score([], [5], int_list("align", ignoreExcess=True)) == 1.0


def test_empty_lists():
    assert oa_core.score([], [], int_list("fixed")) == 1.0
    assert oa_core.score([1], [], int_list("fixed")) == 0.0
    assert oa_core.score([], [1], int_list("align")) == 0.0


def test_fuzzy_items_use_the_best_pairing():
    schema = {"type": "array", "order": "align", "items": {"type": "string"}}
    result = oa_core.align(["apple", "banana"], ["banan", "appel"], schema)
    assert sorted(result.tree.pairs) == [(0, 1), (1, 0)]
    assert result.tree.matrix is not None and result.tree.matrix.shape == (2, 2)


def test_fixed_order_transposition_is_penalized_on_both():
    schema = str_list("fixed")
    assert oa_core.score(["a", "b", "c"], ["b", "a", "c"], schema) == 2 / 4


def test_null_items_do_not_hang():
    schema = {"type": "array", "order": "align", "items": {"type": ["string", "null"]}}
    assert oa_core.score([None, "a"], ["a", None], schema) == 1.0
    assert oa_core.score([None] * 50, [None] * 60, schema) == 50 / 60


def test_prefix_items_tuple():
    schema = {"type": "array", "prefixWeights": [3, 1], "prefixItems": [
        {"type": "integer", "score": "exact"}, {"type": "integer", "score": "exact"}]}
    assert oa_core.score([1, 2], [1, 9], schema) == 0.75
    assert oa_core.score([1, 2], [9, 2], schema) == 0.25
    assert oa_core.score([1, 2], [1], schema) == 0.75  # an absent position scores nullScore
    assert oa_core.score([1, 2], [1, 2, 3], schema) == 4 / 5  # extra position, weight 1


def test_prefix_and_rest():
    schema = {"type": "array", "prefixItems": [{"type": "string", "score": "exact"}],
              "items": {"type": "integer", "score": "exact"}, "order": "align",
              "prefixImportance": 1, "restImportance": 3}
    assert oa_core.score(["h", 1, 2], ["h", 2, 1], schema) == 1.0
    assert oa_core.score(["h", 1, 2], ["x", 2, 1], schema) == 0.75
    assert oa_core.score(["h", 1, 2], ["h", 1], schema) == 0.25 + 0.75 / 2


def test_prefix_and_rest_need_importances():
    with pytest.raises(SchemaError) as info:
        oa_core.Schema.parse({"type": "array", "prefixItems": [{"type": "string"}],
                              "items": {"type": "string"}})
    assert "restImportance" in info.value.message or "prefixImportance" in info.value.message


def test_prefix_weights_length_must_match():
    with pytest.raises(SchemaError) as info:
        oa_core.Schema.parse({"type": "array", "prefixWeights": [1],
                              "prefixItems": [{"type": "string"}, {"type": "string"}]})
    assert info.value.pointer == "/prefixWeights"


def test_nested_lists_of_objects():
    schema = {"type": "array", "order": "align", "items": {
        "type": "object", "properties": {
            "name": {"type": "string", "score": "exact"},
            "tags": {"type": "array", "order": "align",
                     "items": {"type": "string", "score": "exact"}}}}}
    gold = [{"name": "a", "tags": ["x", "y"]}, {"name": "b", "tags": []}]
    cand = [{"name": "b", "tags": []}, {"name": "a", "tags": ["y"]}]
    assert oa_core.score(gold, cand, schema) == (1 + (1 + 0.5) / 2) / 2
