"""The built-in comparators (Rust, crates/oa-engine/src/compare/) on hostile input.

The engine calls the Rust measures; their rule here is that the two forms
agree: every case runs through the scalar form and the matrix form, and both must
give the same outcome: the same float bits (:meth:`float.hex`), or the same exception
type. Hypothesis draws hostile strings (astral and combining characters, lone
surrogates, long runs around 64-character blocks) and hostile numbers (integers
beyond 2**53, 2**63 and the float range, NaN, infinities, signed zeros, subnormals);
known values pin the measures themselves.
"""

from __future__ import annotations

import doctest
import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from oa_core import _engine, comparators
from oa_core.comparators import BUILTIN_COMPARATORS, ComparatorRegistry
from oa_core.errors import LARGEST_FLOAT_INTEGER

STRING_NAMES = ["jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel",
                "lcsseq", "exact"]
NUMBER_NAMES = ["invdiff", "relative", "exact"]


def outcome(call: Callable[[], Any]) -> str:
    """What a comparison gives: its float bits, or the type of what it raised."""
    try:
        value = call()
    except (OverflowError, TypeError) as exc:
        return type(exc).__name__
    if isinstance(value, np.ndarray):
        return f"{value.shape} {[v.hex() for v in value.ravel().tolist()]}"
    assert type(value) is float
    return value.hex()


def assert_same_scalar(name: str, gold: Any, candidate: Any) -> str:
    """The scalar's outcome, asserted equal to the 1 x 1 matrix's."""
    comparator = BUILTIN_COMPARATORS[name]
    scalar = outcome(partial(comparator.scalar, gold, candidate))
    matrix = outcome(partial(comparator.matrix, [gold], [candidate]))
    assert matrix == (scalar if scalar.endswith("Error") else f"(1, 1) [{scalar!r}]"), (
        name, gold, candidate, scalar, matrix)
    return scalar


def assert_same_matrix(name: str, golds: Sequence[Any], candidates: Sequence[Any]) -> str:
    """The matrix's outcome, asserted equal to its cells' scalars (an error: one a
    scalar raises, when there are cells)."""
    comparator = BUILTIN_COMPARATORS[name]
    matrix = outcome(partial(comparator.matrix, golds, candidates))
    cells = [outcome(partial(comparator.scalar, g, p)) for g in golds for p in candidates]
    if matrix.endswith("Error"):
        assert not cells or matrix in cells, (name, golds, candidates, matrix, cells)
    else:
        assert matrix == f"{(len(golds), len(candidates))} {cells}", (name, golds, candidates)
    return matrix


# --- hostile strings
# "e" + U+0301 (combining) is two code points; U+1F600 is one astral code point (two
# UTF-16 units); U+D800 and U+DFFF are lone surrogates, which JSON text may carry.
HOSTILE = ["a", "b", "c", "é", "e", "\u0301", "\U0001F600", "\U0001F601", "\ud800", "\udfff",
           "\x00", " ", "\u00df", "\uffff"]
near_alphabet = st.text(st.sampled_from(HOSTILE[:4]), max_size=12)
long_runs = st.text(st.sampled_from(HOSTILE), min_size=50, max_size=140)
any_text = st.text(st.characters(exclude_categories=()), max_size=20)
texts = st.one_of(near_alphabet, st.text(st.sampled_from(HOSTILE), max_size=20), long_runs,
                  any_text)


@st.composite
def string_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """An unrelated pair, or a near copy (Jaro above 0.7, a shared prefix, transpositions)."""
    gold = draw(texts)
    if draw(st.booleans()):
        return gold, draw(texts)
    cut = draw(st.integers(0, len(gold)))
    end = draw(st.integers(cut, len(gold)))
    middle = gold[cut:end][::-1] if draw(st.booleans()) else draw(near_alphabet)[:3]
    return gold, gold[:cut] + middle + gold[end:]


# --- hostile numbers
WIDEST = 2**1024 - 2**970  # the smallest integer Python's float() refuses
EDGE_INTEGERS = [0, 1, -1, 2**53, 2**53 + 1, -(2**53) - 1, 2**63 - 1, 2**63, -(2**63),
                 -(2**63) - 1, 2**64 + 2**11, 2**64 + 2**11 + 1, LARGEST_FLOAT_INTEGER,
                 LARGEST_FLOAT_INTEGER + 1, -LARGEST_FLOAT_INTEGER, WIDEST - 1, WIDEST,
                 -WIDEST, 2**1024, 10**400]
EDGE_FLOATS = [0.0, -0.0, 5e-324, 0.5, 1.0, 2.0**53, 2.0**63, 2.0**64, 1e308,
               1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, math.nan]
integers = st.one_of(st.integers(), st.integers(-(2**1030), 2**1030),
                     st.sampled_from(EDGE_INTEGERS))
numbers = st.one_of(integers, st.floats(), st.sampled_from(EDGE_FLOATS))


@st.composite
def number_pairs(draw: st.DrawFn) -> tuple[int | float, int | float]:
    """An unrelated pair, or neighbours: a small step, or the same value as the other type."""
    gold = draw(numbers)
    choice = draw(st.integers(0, 2))
    if choice == 0 or (isinstance(gold, float) and not math.isfinite(gold)):
        return gold, draw(numbers)
    if choice == 1:
        step = draw(st.integers(-3, 3))
        return gold, (gold + step if isinstance(gold, int) else gold + step * 2.0**-40)
    if isinstance(gold, float):
        return gold, int(gold)
    try:
        return gold, float(gold)
    except OverflowError:
        return gold, gold


@settings(max_examples=400)
@given(string_pairs(), st.sampled_from(STRING_NAMES))
def test_string_scalars(pair: tuple[str, str], name: str) -> None:
    assert_same_scalar(name, *pair)
    assert_same_scalar(name, pair[1], pair[0])


# Python's float difference of two infinities warns (numpy); the value is what counts.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=400)
@given(number_pairs(), st.sampled_from(NUMBER_NAMES))
def test_number_scalars(pair: tuple[int | float, int | float], name: str) -> None:
    assert_same_scalar(name, *pair)
    assert_same_scalar(name, pair[1], pair[0])


@settings(max_examples=100)
@given(st.lists(texts, max_size=4), st.lists(texts, max_size=4), st.sampled_from(STRING_NAMES))
def test_string_matrices(golds: list[str], candidates: list[str], name: str) -> None:
    assert_same_matrix(name, golds, candidates)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=100)
@given(st.lists(numbers, max_size=4), st.lists(numbers, max_size=4),
       st.sampled_from(["invdiff", "relative"]))
def test_number_matrices(golds: list[Any], candidates: list[Any], name: str) -> None:
    assert_same_matrix(name, golds, candidates)


# exact across kinds: 1 and 1.0 agree, True and 1 and "1" differ; NaN equals nothing,
# itself included, in both forms (the scorer never meets NaN: documents are validated).
primitives = st.one_of(texts, numbers, st.booleans())


@settings(max_examples=300)
@given(primitives, primitives)
def test_exact_scalars_across_kinds(gold: Any, candidate: Any) -> None:
    assert_same_scalar("exact", gold, candidate)
    assert_same_scalar("exact", gold, gold)


@settings(max_examples=100)
@given(st.lists(primitives, max_size=5), st.lists(primitives, max_size=5))
def test_exact_matrices_across_kinds(golds: list[Any], candidates: list[Any]) -> None:
    assert_same_matrix("exact", golds, golds + candidates)


@pytest.mark.parametrize(("name", "gold", "candidate", "expected"), [
    ("invdiff", 2025, 2026, 0.5),
    ("invdiff", 2**60, 2**60 + 1, 0.5),  # integers are subtracted exactly
    ("invdiff", 2**1023, -(2**1023), 0.0),  # the exact difference is beyond the float range
    ("relative", 0, -0.0, 1.0),
    ("relative", 10, 5, 0.5),
    ("exact", 10**400, 10**400, 1.0),  # exact does not need a float
    ("exact", 2**53 + 1, float(2**53), 0.0),
    ("exact", True, 1, 0.0),
    ("jaro", "", "", 1.0),
    ("jaro", "", "a", 0.0),
    ("levenshtein", "e\u0301", "e", 0.5),  # code points, not grapheme clusters
    ("levenshtein", "\U0001F600", "\U0001F601", 0.0),  # one code point each
    ("indel", "\ud800a", "a", 1 - 1 / 3),  # a lone surrogate is a code point too
])
def test_known_values(name: str, gold: Any, candidate: Any, expected: float) -> None:
    assert assert_same_scalar(name, gold, candidate) == expected.hex()


def test_jaro_is_cdists_similarity_not_one_minus_the_distance() -> None:
    # The scalar follows process.cdist: (m/|g| + m/|p| + (m-t)/m) / 3 itself, where
    # rapidfuzz's single-pair function gives 1 - (1 - that), one bit off here.
    gold, candidate = "aaaaa", "babb"  # one match, no transposition
    similarity = (1 / 5 + 1 / 4 + 1.0) / 3.0
    assert 1.0 - (1.0 - similarity) != similarity
    assert assert_same_scalar("jaro", gold, candidate) == similarity.hex()
    # below 0.7 Winkler adds nothing
    assert assert_same_scalar("jaro_winkler", gold, candidate) == similarity.hex()
    closing = (6 / 7 + 1.0 + 1.0) / 3.0
    prefixed = closing + 4 * 0.1 * (1.0 - closing)  # prefix weight 0.1, prefix up to 4
    assert assert_same_scalar("jaro_winkler", "closing", "closin") == prefixed.hex()


@pytest.mark.parametrize("value", [10**400, -(2**1024), WIDEST])
def test_integers_beyond_the_float_range_raise_overflow(value: int) -> None:
    for name in ("invdiff", "relative"):
        assert assert_same_scalar(name, value, 1) == "OverflowError"
        assert assert_same_matrix(name, [1], [2, value]) == "OverflowError"
        assert assert_same_matrix(name, [value], []) == "OverflowError"
    assert assert_same_scalar("invdiff", WIDEST - 1, 0) == "0x0.0p+0"


def test_the_rust_binding_refuses_what_it_cannot_compare() -> None:
    with pytest.raises(KeyError):
        _engine.compare_scalar("Jaro", "a", "b")
    with pytest.raises(TypeError, match="does not compare number values"):
        _engine.compare_scalar("jaro", 1, "b")
    with pytest.raises(TypeError, match="not list"):
        _engine.compare_matrix("exact", [[1]], [1])  # type: ignore[list-item]
    assert _engine.comparator_names() == list(BUILTIN_COMPARATORS)
    matrix = BUILTIN_COMPARATORS["jaro"].matrix(["a"], ["a", "b"])
    matrix[matrix < 0.5] = 0.0  # writable, as the key pairing needs
    assert matrix.tolist() == [[1.0, 0.0]]


# --- the same (Rust) built-ins in every registry


def test_every_registry_holds_the_rust_builtins(running: tuple[Any, Any, Any]) -> None:
    assert ComparatorRegistry().get("jaro") is BUILTIN_COMPARATORS["jaro"]
    gold, candidate, schema = running
    parsed = oa_core.Schema.parse(schema)
    assert parsed.comparators.get("invdiff") is BUILTIN_COMPARATORS["invdiff"]
    assert oa_core.score(gold, candidate, parsed) == 0.7678571428571429


def test_comparator_doctests() -> None:
    result = doctest.testmod(comparators, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
