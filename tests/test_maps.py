"""Maps: key alignment by the key comparator, key and value terms (III.D)."""

from __future__ import annotations

import pytest

import oa_core

WEIGHTED = {"type": "object", "properties": {
    "a": {"type": "number", "valueWeight": 3}, "b": {"type": "number"}}}


@pytest.mark.parametrize(("candidate", "expected"), [
    ({"a": 1, "b": 2, "c": 3}, 0.8),
    ({"a": 5, "b": 2}, 0.4),
    ({"b": 2}, 0.25),
    ({"a": 1, "b": 2}, 1.0),
])
def test_spec_note_checks(candidate, expected):
    assert oa_core.score({"a": 1, "b": 2}, candidate, WEIGHTED) == pytest.approx(expected,
                                                                                  abs=1e-15)


def test_a_missing_key_never_beats_a_wrong_value():
    missing = oa_core.score({"a": 1, "b": 2}, {"b": 2}, WEIGHTED)
    wrong = oa_core.score({"a": 1, "b": 2}, {"a": 1000, "b": 2}, WEIGHTED)
    assert missing < wrong


def test_keys_pair_by_key_similarity_not_values():
    schema = {"type": "object", "keyScore": "jaro"}
    result = oa_core.align({"name": "x"}, {"nme": "y"}, schema)
    child = result.tree.children[0]
    assert child.status == "matched" and child.label == "name ~ nme"
    assert 0 < child.key_score < 1


def test_exact_key_comparator_treats_renames_as_missing_and_excess():
    schema = {"type": "object", "keyScore": "exact"}
    result = oa_core.align({"name": "x"}, {"nme": "x"}, schema)
    assert sorted(c.status for c in result.tree.children) == ["excess", "missing"]
    assert result.score == 0.0


def test_key_threshold_drops_weak_key_pairs():
    schema = {"type": "object", "keyThreshold": 0.99}
    assert oa_core.score({"name": "x"}, {"nme": "x"}, schema) == 0.0


def test_key_importance_mixes_the_key_term():
    schema = {"type": "object", "keyImportance": 1, "valueImportance": 1}
    result = oa_core.align({"name": "x"}, {"nme": "x"}, schema)
    key = result.tree.children[0].key_score
    assert result.score == pytest.approx((key + 1.0) / 2, abs=1e-15)
    with pytest.raises(oa_core.SchemaError):
        oa_core.Schema.parse({"type": "object", "keyImportance": 0, "valueImportance": 0})


def test_empty_objects_agree():
    assert oa_core.score({}, {}, {"type": "object"}) == 1.0
    assert oa_core.score({"a": 1}, {}, {"type": "object"}) == 0.0


def test_dict_order_does_not_change_the_bits():
    gold = {"b": "beta", "a": "alpha", "c": 1.5}
    cand_1 = {"a": "alpah", "c": 1.25, "b": "bet"}
    cand_2 = {"c": 1.25, "b": "bet", "a": "alpah"}
    assert oa_core.score(gold, cand_1, {}) == oa_core.score(dict(reversed(gold.items())),
                                                             cand_2, {})
