"""The engine refuses bad input itself, with typed errors.

The conversion raises ``check_json``'s ``InputError`` (nesting, sizes, keys, lone
surrogates, NaN, integers beyond the float range, non-JSON types), the scorer a list
over ``max_matrix_cells`` as an ``InputError`` and a failing comparator as a
``ComparatorError`` at its ``score``/``keyScore``. Each outcome (class, document,
pointer, message, fix, comparator, cause) through ``score``, ``align`` and
``feedback`` is compared with ``tests/golden/refusals.json``, written while the
Python engine and the Rust one both gave it (keyed by test and call, in order).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oa_helpers import FrozenOutcomes

import oa_core
from oa_core.errors import LARGEST_FLOAT_INTEGER, OAError
from oa_core.options import Limits

FROZEN = FrozenOutcomes(Path(__file__).resolve().parent / "golden" / "refusals.json")

ARRAY = {"type": "array", "order": "align"}
OBJECT = {"type": "object", "properties": {"a": {"type": "array"}}}


def _outcome(call: Any) -> Any:
    try:
        return ("score", call())
    except OAError as error:
        cause = error.__cause__
        return (type(error).__name__, error.document, error.pointer, error.message,
                error.fix, getattr(error, "comparator", None),
                None if cause is None else (type(cause).__name__, str(cause)))


@pytest.fixture(autouse=True)
def _count_calls() -> None:
    FROZEN.reset()


def _same(call: Any) -> Any:
    """``call()``'s outcome, which must be the frozen one."""
    key, frozen = FROZEN.expected()
    found = _outcome(call)
    assert json.loads(json.dumps(found)) == frozen, key
    return found


class _Opaque:
    pass


_BAD = [
    ("nan", [1, float("nan")], "/1"),
    ("infinity", {"a": [float("-inf")]}, "/a/0"),
    ("key", {"a": {3: 1}}, "/a"),
    ("tuple", {"a": (1, 2)}, "/a"),
    ("set", [{1}], "/0"),
    ("object", {"x~/y": _Opaque()}, "/x~0~1y"),
    ("huge integer", [LARGEST_FLOAT_INTEGER + 1], "/0"),
    ("surrogate", ["ok", "a\ud800"], "/1"),
    ("surrogate key", {"b": {"\udfff": 1}}, "/b"),
    ("deep", [[[[[[1]]]]]], "/0/0/0/0"),
    ("items", {"a": list(range(12))}, "/a"),
    ("string", {"a": "x" * 40}, "/a"),
]
_LIMITS = Limits(max_depth=3, max_items=10, max_string_length=30)


@pytest.mark.parametrize("which", ["gold", "candidate"])
@pytest.mark.parametrize(("name", "value", "pointer"), _BAD, ids=[c[0] for c in _BAD])
def test_a_bad_document_is_refused_alike(which, name, value, pointer):
    good: Any = {"a": [1]} if isinstance(value, dict) else [1]
    gold, candidate = (value, good) if which == "gold" else (good, value)
    for call in (lambda: oa_core.score(gold, candidate, {}, limits=_LIMITS),
                 lambda: oa_core.align(gold, candidate, {}, limits=_LIMITS).score,
                 lambda: oa_core.feedback(gold, candidate, {}, limits=_LIMITS).score):
        found = _same(call)
        assert found[:3] == ("InputError", which, pointer), name


def test_the_first_problem_in_document_order_is_named():
    # keys before values, then values in order (the Python walk agrees)
    value = {"a": [float("nan")], "b": [float("inf")], 1: 2}
    assert _same(lambda: oa_core.score(value, value, {}))[2] == ""
    value = {"a": [float("nan")], "b": [float("inf")]}
    assert _same(lambda: oa_core.score(value, value, {}))[2] == "/a/0"


def test_a_string_is_measured_in_characters_not_bytes():
    # 2 bytes a character in UTF-8: over the limit in bytes, within it in characters
    within, over = {"a": "\u00e9" * 30}, {"a": "\u00e9" * 31}
    assert _outcome(lambda: oa_core.score(within, within, {}, limits=_LIMITS)) == (
        "score", 1.0)
    refused = _outcome(lambda: oa_core.score(within, over, {}, limits=_LIMITS))
    assert refused[:3] == ("InputError", "candidate", "/a")
    assert "31" in refused[3]


def test_subclasses_and_wide_integers_are_taken_exactly():
    wide = 2**200 + 1
    gold = OrderedDict(a=[wide, 2**1023, LARGEST_FLOAT_INTEGER], b=True)
    candidate = {"a": [wide, 2**1023 + 1, -LARGEST_FLOAT_INTEGER], "b": 1}
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "integer", "score": "exact"}}}}
    for call in (lambda: oa_core.score(gold, candidate, schema),
                 lambda: oa_core.score(gold, candidate, {}),
                 lambda: oa_core.align(gold, candidate, {}).score):
        found = _same(call)
        assert found[0] == "score"


@pytest.mark.parametrize("schema", [ARRAY, OBJECT])
def test_a_list_over_the_matrix_limit_is_refused_alike(schema):
    lists = [[1, 2, 3], [3, 2, 1]]
    gold, candidate = ((lists[0], lists[1]) if schema is ARRAY
                       else ({"a": lists[0]}, {"a": lists[1]}))
    limits = Limits(max_matrix_cells=4)
    for call in (lambda: oa_core.score(gold, candidate, schema, limits=limits),
                 lambda: oa_core.align(gold, candidate, schema, limits=limits).score):
        found = _same(call)
        assert found[:3] == ("InputError", "candidate", "" if schema is ARRAY else "/a")


def test_a_list_inside_a_matrix_cell_is_named_from_the_cell():
    # Python scores a cell, and an object's slot in one, from the pointer "": the
    # inner list is named at ""
    gold = [{"a": [1, 2, 3]}, {"a": [4]}]
    candidate = [{"a": [3, 2, 1]}, {"a": [5]}]
    found = _same(lambda: oa_core.score(gold, candidate, {"type": "array"},
                                                     limits=Limits(max_matrix_cells=8)))
    assert found[:3] == ("InputError", "candidate", "")


def _raises(gold: Any, candidate: Any) -> float:
    if gold != candidate:
        raise KeyError(gold)
    return 1.0


def _above(gold: Any, candidate: Any) -> Any:
    return 1.0 if gold == candidate else 7


@pytest.mark.parametrize("custom", [_raises, _above])
@pytest.mark.parametrize("keyword", ["score", "keyScore"])
def test_a_failing_custom_comparator_is_refused_alike(custom, keyword):
    if keyword == "score":
        schema = {"type": "object", "properties": {"n": {"type": "string", "score": "c"}}}
        gold, candidate = {"n": "ab"}, {"n": "ax"}
    else:
        schema = {"type": "object", "keyScore": "c"}
        gold, candidate = {"ab": 1}, {"ax": 1}
    for call in (lambda: oa_core.score(gold, candidate, schema, comparators={"c": custom}),
                 lambda: oa_core.align(gold, candidate, schema,
                                       comparators={"c": custom}).score):
        found = _same(call)
        assert found[0] == "ComparatorError" and found[2].endswith(keyword)
        assert (found[6] is not None) == (custom is _raises)


def test_an_interrupt_from_a_custom_comparator_passes_through():
    def interrupt(gold: Any, candidate: Any) -> float:
        raise KeyboardInterrupt

    schema = {"type": "object", "properties": {"n": {"type": "string", "score": "c"}}}
    with pytest.raises(KeyboardInterrupt):
        oa_core.score({"n": "a"}, {"n": "b"}, schema, comparators={"c": interrupt})


def test_a_schema_with_a_lone_surrogate_is_refused():
    with pytest.raises(oa_core.SchemaError) as caught:
        oa_core.Schema.parse({"type": "object", "properties": {"a": {
            "description": "x\udc00"}}})
    assert caught.value.pointer == "/properties/a/description"
    assert "U+DC00" in caught.value.message


_HOSTILE = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**1100), max_value=2**1100)
    | st.floats() | st.text(alphabet=st.sampled_from("ab\ud800\udfff~/")),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner)
    | st.dictionaries(st.text(alphabet="ab\ud801") | st.integers(0, 2), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=40, deadline=None)
@given(gold=_HOSTILE, candidate=_HOSTILE)
def test_hostile_values_are_scored_or_refused_alike_by_every_entry_point(gold, candidate):
    limits = Limits(max_depth=3)
    found = _outcome(lambda: oa_core.score(gold, candidate, {}, limits=limits))
    assert _outcome(lambda: oa_core.align(gold, candidate, {}, limits=limits).score) == found
    assert _outcome(lambda: oa_core.feedback(gold, candidate, {},
                                             limits=limits).score) == found
