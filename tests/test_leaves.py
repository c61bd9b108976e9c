"""Primitive leaves: comparators, threshold, nullScore, type mismatches (paper III.B)."""

from __future__ import annotations

import pytest

import oa_core
from oa_core import InputError, SchemaError
from oa_core.comparators import BUILTIN_COMPARATORS, ComparatorRegistry


def leaf(type_: str, **keywords):
    return {"type": type_, **keywords}


@pytest.mark.parametrize(("name", "gold", "cand", "expected"), [
    ("exact", "abc", "abc", 1.0),
    ("exact", "abc", "abd", 0.0),
    ("jaro", "closing", "closin", (6 / 7 + 1.0 + 1.0) / 3.0),  # 6 matches, 0 transpositions
    ("levenshtein", "kitten", "sitting", 1 - 3 / 7),  # 3 edits over the longer length
])
def test_string_comparators(name, gold, cand, expected):
    assert oa_core.score(gold, cand, leaf("string", score=name)) == expected


def test_default_string_comparator_is_jaro():
    assert oa_core.score("closing", "closin", leaf("string")) == (6 / 7 + 1.0 + 1.0) / 3.0


@pytest.mark.parametrize(("name", "gold", "cand", "expected"), [
    ("invdiff", 2025, 2026, 0.5),
    ("invdiff", 1.5, 1.5, 1.0),
    ("exact", 3, 3.0, 1.0),
    ("exact", 3, 4, 0.0),
    ("relative", 10, 5, 0.5),
    ("relative", 0, 0, 1.0),
    ("relative", 10, -10, 0.0),
])
def test_number_comparators(name, gold, cand, expected):
    assert oa_core.score(gold, cand, leaf("number", score=name)) == expected


def test_default_number_comparator_is_invdiff():
    assert oa_core.score(3, 5, leaf("integer")) == 1 / 3


# 2**60 and 2**60 + 1 are one float64; their difference (1) is taken exactly.
# relative = 1 - 2**-60 rounds to 1.0: the correctly rounded value, not a collapse.
@pytest.mark.parametrize(("name", "expected"), [("invdiff", 0.5), ("relative", 1.0),
                                               ("exact", 0.0)])
def test_integers_beyond_float_precision_are_not_equal(name, expected):
    assert oa_core.score(2**60, 2**60 + 1, leaf("integer", score=name)) == expected


def test_booleans_compare_exactly_and_are_not_numbers():
    assert oa_core.score(True, True, leaf("boolean")) == 1.0
    assert oa_core.score(True, False, leaf("boolean")) == 0.0
    assert oa_core.score(1, True, {}) == 0.0  # 1 is a number, True a boolean


def test_threshold_zeroes_low_similarity():
    schema = leaf("string", score="jaro", threshold=0.96)
    assert oa_core.score("closing", "closin", schema) == 0.0
    schema["threshold"] = 0.95
    assert oa_core.score("closing", "closin", schema) > 0.95


def test_null_score_and_both_null():
    schema = {"type": ["string", "null"], "nullScore": 0.25}
    assert oa_core.score(None, None, schema) == 1.0
    assert oa_core.score("x", None, schema) == 0.25
    assert oa_core.score(None, "x", schema) == 0.25
    assert oa_core.score("x", None, {"type": ["string", "null"]}) == 0.0


def test_type_mismatch_scores_zero_and_is_reported():
    result = oa_core.align({"a": "12"}, {"a": 12}, {
        "type": "object", "properties": {"a": {"type": "string"}}})
    assert result.score == 0.0
    assert result.tree.children[0].status == "type-mismatch"
    assert [v.pointer for v in result.violations] == ["/a"]


def test_defect_24_strict_mode_zeroes_any_violation():
    schema = {"type": "object", "properties": {"role": {"type": "string", "enum": ["A", "B"]},
                                               "n": {"type": "integer"}}}
    gold = {"role": "A", "n": 1}
    candidate = {"role": "A", "n": "1"}  # violates "type" only; scores 0.5 by default
    lenient = oa_core.align(gold, candidate, schema)
    assert lenient.score == 0.5 and [v.pointer for v in lenient.violations] == ["/n"]
    assert oa_core.score(gold, candidate, schema, strict=True) == 0.0
    assert oa_core.score(gold, gold, schema, strict=True) == 1.0  # no violation: unchanged


def test_custom_comparator_by_name():
    schema = {"type": "string", "score": "first_letter"}
    result = oa_core.score("Bob", "Bill", schema,
                           comparators={"first_letter": lambda g, p: float(g[0] == p[0])})
    assert result == 1.0


def test_custom_comparator_may_not_shadow_builtin():
    with pytest.raises(SchemaError, match="built-in"):
        oa_core.Schema.parse({"type": "string"}, comparators={"jaro": lambda g, p: 1.0})


def test_custom_comparator_out_of_range_is_an_input_error():
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        oa_core.score("a", "b", {"type": "string", "score": "bad"},
                      comparators={"bad": lambda g, p: 2.0})


@pytest.mark.parametrize("name", sorted(BUILTIN_COMPARATORS))
def test_matrix_form_equals_scalar_form_bit_for_bit(name):
    comparator = ComparatorRegistry().get(name)
    if "string" in comparator.kinds:
        golds, cands = ["", "a", "closing", "Ünïcode"], ["closin", "", "a", "unicode", "x"]
    else:
        golds, cands = [0, 1, 2.5, -3, 1e9], [0, 1.0, 2, 7, -1e9]
    assert_matrix_is_scalar(comparator, golds, cands)
    if "number" in comparator.kinds:  # integers beyond 2**53 take the exact path
        assert_matrix_is_scalar(comparator, [2**60, 3, 2.5e18], [2**60 + 1, 2**60, -7, 0.5])


def assert_matrix_is_scalar(comparator, golds, cands):
    matrix = comparator.matrix(golds, cands)
    for i, g in enumerate(golds):
        for j, p in enumerate(cands):
            assert matrix[i, j] == comparator.scalar(g, p), (g, p)
