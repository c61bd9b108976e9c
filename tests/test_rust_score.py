"""The Rust scorer of scope-free documents (``oa_core.native.prepared_plan``).

The plan's score (no match tree) must have align()'s bits on random schemas and
documents (hypothesis); ``oa_core.score`` keeps the golden files' scores; hostile
documents get the outcome (bits, or the error's type, document, pointer and message)
frozen in ``tests/golden/hostile_documents.json.gz``, written while the Python and
Rust engines both gave it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import bits
from oa_core.native import prepared_plan
from oa_core.options import Limits
from oa_core.schema import Schema

KEYS = ["a", "b", "ab", "ba", "name", "nmae", "é"]

leaf_schemas = st.builds(
    lambda kind, comparator, threshold, null_score: {
        "type": kind, **({"score": comparator} if comparator else {}),
        **({"threshold": threshold} if threshold else {}),
        **({"nullScore": null_score} if null_score else {})},
    st.sampled_from(["string", "number", "integer", "boolean"]),
    st.sampled_from([None, "exact"]), st.sampled_from([0.0, 0.5]),
    st.sampled_from([0.0, 0.25]))
string_schemas = st.builds(
    lambda comparator, threshold: {"type": "string", "score": comparator,
                                   "threshold": threshold},
    st.sampled_from(["jaro", "jaro_winkler", "levenshtein", "osa", "indel", "lcsseq",
                     "damerau_levenshtein"]), st.sampled_from([0.0, 0.6]))
number_schemas = st.builds(lambda comparator: {"type": "number", "score": comparator},
                           st.sampled_from(["invdiff", "relative", "exact"]))


def _object(properties: dict[str, Any], weights: dict[str, float], key_importance: float,
            key_score: str, additional: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "keyImportance": key_importance,
                           "keyScore": key_score,
                           "properties": {k: {**v, **({"valueWeight": weights[k]}
                                                      if k in weights else {})}
                                          for k, v in properties.items()}}
    if additional is not None:
        out["additionalProperties"] = additional
    return out


def _array(items: Any, prefix: list[Any], order: str, ignore: tuple[bool, bool]) -> Any:
    out: dict[str, Any] = {"type": "array", "order": order}
    if items is not None:
        out["items"] = items
    if prefix:
        out["prefixItems"] = prefix
    if ignore[0]:
        out["ignoreMissing"] = True
    if ignore[1]:
        out["ignoreExcess"] = True
    return out


schemas = st.recursive(
    st.one_of(leaf_schemas, string_schemas, number_schemas, st.just({})),
    lambda inner: st.one_of(
        st.builds(_object, st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
                  st.dictionaries(st.sampled_from(KEYS), st.sampled_from([0.5, 2.0, 3.0]),
                                  max_size=2),
                  st.sampled_from([0.0, 0.0, 1.0]),
                  st.sampled_from(["jaro", "exact", "levenshtein"]),
                  st.one_of(st.none(), inner)),
        st.builds(_array, st.one_of(st.none(), inner), st.lists(inner, max_size=2),
                  st.sampled_from(["align", "fixed"]),
                  st.tuples(st.booleans(), st.booleans()))),
    max_leaves=8)

documents = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
              st.integers(-2**70, 2**70), st.sampled_from([0.5, -0.0, 1e16, 2.5e-7, 3.0]),
              st.text(alphabet="abé\n\"", max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
    max_leaves=12)


def _both(gold: Any, candidate: Any, schema: Schema,
          limits: Limits | None = None) -> tuple[str, str]:
    """(align's hex, the plan's hex), or twice the refusal's type and message."""
    limits = limits or Limits()
    try:
        expected = oa_core.align(gold, candidate, schema, limits=limits).score.hex()
    except oa_core.OAError as error:
        expected = f"{type(error).__name__}: {error}"
    try:
        got = prepared_plan(schema).score(gold, candidate, limits)
    except oa_core.OAError as error:
        return expected, f"{type(error).__name__}: {error}"
    return expected, "declined" if got is None else got.hex()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, documents, documents)
def test_random_schemas_and_documents_score_the_same_bits(raw, gold, candidate):
    try:
        schema = Schema.parse(raw)
    except oa_core.OAError:
        return
    for other in (candidate, gold):
        expected, got = _both(gold, other, schema)
        # the plan leaves a gold violating the schema to the checks before it
        assert got == expected or (got == "declined" and "gold violates" in expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(documents, max_size=6), st.lists(documents, max_size=6),
       st.sampled_from(["align", "fixed"]))
def test_lists_of_anything_score_as_align_scores_them(gold, candidate, order):
    schema = Schema.parse({"type": "array", "order": order})
    expected, got = _both(gold, candidate, schema)
    assert got == expected


def test_the_plan_is_used_and_refuses_bad_input_itself():
    flat = Schema.parse({"type": "object", "properties": {"a": {"type": "string"}}})
    plan = prepared_plan(flat)
    assert plan is not None and prepared_plan(flat) is plan  # compiled once
    assert plan.score({"a": "x"}, {"a": "x"}, Limits()) == 1.0
    # not plain JSON, a list over the limits, a huge integer, nesting past the engine's
    with pytest.raises(oa_core.InputError, match="tuple is not a JSON value"):
        plan.score({"a": ("x",)}, {"a": "x"}, Limits())
    lists = prepared_plan(Schema.parse({"type": "array", "order": "align"}))
    assert lists is not None
    with pytest.raises(oa_core.InputError, match="needs 9 scores, over the limit of 8"):
        lists.score([1, 2, 3], [3, 2, 1], Limits(max_matrix_cells=8))
    with pytest.raises(oa_core.InputError, match="integer beyond the range"):
        lists.score([2**2000], [1], Limits())
    deep: Any = 1
    for _ in range(600):
        deep = [deep]
    with pytest.raises(oa_core.InputError, match="deeper than 512 levels"):
        lists.score(deep, deep, Limits(max_depth=10_000))
    blocked = prepared_plan(Schema.parse({"type": "array", "order": "align",
                                          "items": {"type": "object", "properties": {
                                              "k": {"type": "string"}}},
                                          "blockBy": ["k"]}))
    assert blocked is not None  # its lists are paired block by block in Rust
    assert blocked.score([{"k": "a"}], [{"k": "b"}], Limits()) == 0.0
    assert blocked.score([], [], Limits()) == 1.0


def test_a_custom_comparator_is_called_from_rust():
    schema = Schema.parse({"type": "string", "score": "mine"},
                          comparators={"mine": lambda g, p: 0.25})
    plan = prepared_plan(schema)  # tests/test_rust_custom.py tests it in full
    assert plan is not None and plan.score("a", "b", Limits()) == 0.25
    assert oa_core.score("a", "b", schema) == 0.25


_CORPUS = [c for c in bits.corpus(hostile_count=200, org2graph_count=0, nested_count=0)
           if bits.family(c[0]) in ("samples", "flat", "lists", "hostile")]


@pytest.mark.parametrize("family", ["flat", "lists", "samples"])
def test_score_keeps_the_golden_bits(family):
    golden = bits.load_golden(family)
    native = 0
    for name, raw, gold, candidate, comparators in _CORPUS:
        if bits.family(name) != family:
            continue
        schema = Schema.parse(raw, comparators=comparators)
        if schema.scopes:
            continue
        assert oa_core.score(gold, candidate, schema).hex() == golden[name]["blend"]["score"]
        plan = prepared_plan(schema)
        native += plan is not None and plan.score(gold, candidate, Limits()) is not None
    assert native >= (20 if family != "samples" else 1)


class _Dict(dict[Any, Any]):
    pass


class _List(list[Any]):
    pass


class _Str(str):
    pass


class _Int(int):
    pass


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


SMALL = Limits(max_depth=3, max_items=3, max_string_length=4)
HOSTILE = [
    float("nan"), float("inf"), -float("inf"), [1, float("nan")], {"a": float("inf")},
    2**1100, -(2**1100), 2**1023, int(1.7976931348623157e308), 2**64, [2**70],
    {1: "a"}, {"a": {None: 1}}, {(1,): 2}, (1, 2), {"a": (1,)}, {1, 2}, b"x",
    _Dict(a=1), _List([1]), _Str("ab"), _Int(3), {"a": _Str("x")}, [_Int(1)],
    True, [True, 1], {"a": False}, 1.0, {"a": 2.0},
    _nested(2), _nested(3), _nested(4), [[[]]], [[[[]]]], {"a": {"b": {"c": {}}}},
    "abcd", "abcde", ["abcde"], {"abcdefgh": 1}, [1, 2, 3], [1, 2, 3, 4],
    {"a": 1, "b": 2, "c": 3, "d": 4}, {"\ud800": 1}, "\ud800", [object()],
]
HOSTILE_SCHEMAS = [
    {"type": "array", "order": "align"},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    {"type": ["array", "object", "string", "number", "boolean", "null"],
     "prefixItems": [{"type": "integer"}], "items": {"type": "number"},
     "prefixImportance": 0.5, "restImportance": 0.5},
    {"type": "object", "properties": {"a": {"type": "string", "maxLength": 1}}},
]


FROZEN = Path(__file__).resolve().parent / "golden" / "hostile_documents.json.gz"
LIMITS = {"default": Limits(), "small": SMALL}


def test_hostile_documents_get_the_frozen_error_or_bits() -> None:
    """Keyed ``schema/limits/value/side/strict`` by the positions in the lists above
    (append to them, never reorder)."""
    with gzip.open(FROZEN, "rt", encoding="utf-8") as handle:
        frozen = json.load(handle)
    checked = 0
    for si, raw in enumerate(HOSTILE_SCHEMAS):
        schema = Schema.parse(raw)
        for name, limits in LIMITS.items():
            for vi, value in enumerate(HOSTILE):
                for side, (gold, candidate) in enumerate(((value, [1]), ([1], value),
                                                          (value, value))):
                    for strict in (False, True):
                        key = f"{si}/{name}/{vi}/{side}/{int(strict)}"
                        try:
                            got: Any = oa_core.score(gold, candidate, schema, strict=strict,
                                                     limits=limits).hex()
                        except oa_core.OAError as error:
                            got = [type(error).__name__, error.document, error.pointer,
                                   error.message]
                        assert got == frozen[key], (key, value)
                        checked += 1
    assert checked == len(frozen)


def test_the_plan_checks_only_the_assertions_it_knows():
    validated = [{"type": "object", "required": ["a"], "$comment": "x",
                  "properties": {"a": {"type": ["integer", "null"], "score": "exact"},
                                 "b": True}},
                 {"type": "array", "prefixItems": [{}], "items": {"type": "string"},
                  "prefixImportance": 0.5, "restImportance": 0.5},
                 {"type": "object", "additionalProperties": False},
                 {"type": "string", "minLength": 2}, {"type": "array", "items": False}]
    python_only = [{"type": "array", "items": {"$ref": "#/$defs/x"},
                    "$defs": {"x": {"type": "string"}}},
                   {"type": "string", "pattern": "^a"}, {"type": "number", "multipleOf": 2}]
    for raw in validated:
        plan = prepared_plan(Schema.parse(raw))
        assert plan is not None and plan.validates, raw
    for raw in python_only:
        plan = prepared_plan(Schema.parse(raw))
        assert plan is None or not plan.validates, raw


def test_a_gold_violating_the_schema_is_left_to_python_and_strict_scores_zero():
    schema = Schema.parse({"type": "object", "required": ["a"],
                           "properties": {"a": {"type": "integer"}}})
    plan = prepared_plan(schema)
    assert plan is not None and plan.validates
    assert plan.score({"a": 1.5}, {"a": 1}, Limits()) is None  # the gold violates
    assert plan.score({"a": 1}, {"a": 1.0}, Limits(), strict=True) == 1.0
    assert plan.score({"a": 1}, {"a": 1.5}, Limits(), strict=True) == 0.0
    assert plan.score({"a": 1}, {}, Limits(), strict=True) == 0.0
    assert plan.score({"a": 1}, {}, Limits()) == oa_core.align({"a": 1}, {}, schema).score


class _OwnHashKey(str):
    """A key equal to its ``str`` but hashed its own way: a dict can hold both."""

    def __hash__(self) -> int:
        return 7


def test_a_key_subclass_equal_to_another_key_keeps_the_later_value() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    twice = {_OwnHashKey("name"): "Ann", "name": "Bo"}
    assert len(twice) == 2
    assert oa_core.score({"name": "Bo"}, twice, schema) == 1.0
    assert oa_core.score({"name": "Ann"}, twice, schema) < 1.0


def test_documents_converted_after_others_give_the_same_bits() -> None:
    """Converted documents' buffers are reused by the next conversions on the thread:
    long and short strings and keys, nested objects, in any order, give equal bits."""
    schema = {"type": "object", "properties": {
        "name": {"type": "string", "score": "levenshtein"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "inner": {"type": "object", "properties": {"note": {"type": "string"}}}}}
    documents = [
        {"name": "Ann", "tags": ["a", "b"], "inner": {"note": "x" * 300}},
        {"name": "Anne" * 100, "tags": [], "inner": {}},
        {"name": "", "tags": ["b" * 257, "a"], "inner": {"note": "é" * 40},
         "extra" * 60: 1},
        {"name": "Bo", "tags": ["a"], "inner": {"note": "y"}},
    ]
    pairs = [(gold, candidate) for gold in documents for candidate in documents]
    first = [oa_core.score(gold, candidate, schema).hex() for gold, candidate in pairs]
    again = [oa_core.score(gold, candidate, schema).hex()
             for gold, candidate in reversed(pairs)]
    assert again[::-1] == first
    assert all(first[index * 5] == (1.0).hex() for index in range(len(documents)))


def test_no_limits_are_the_default_limits() -> None:
    """``ScorePlan.score`` given no limits (a metric's call) scores and refuses as under
    ``Limits()``: the same bits, the same first problem."""
    schema = oa_core.Schema.parse({"type": "object", "properties": {
        "a": {"type": "string", "score": "levenshtein"}, "b": {"type": "array"}}})
    plan = prepared_plan(schema).plan
    pair = ({"a": "kitten", "b": [1]}, {"a": "sitting", "b": [1, 2]})
    assert plan.score(*pair, None, False).hex() == plan.score(*pair, Limits(), False).hex()
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(Limits().max_depth + 1):
        inner["b"] = {}
        inner = inner["b"]
    for hostile in ({"a": "x" * (Limits().max_string_length + 1)}, deep):
        refusals = []
        for limits in (None, Limits()):
            with pytest.raises(oa_core.InputError) as caught:
                plan.score(hostile, {}, limits, False)
            refusals.append((caught.value.pointer, caught.value.message))
        assert refusals[0] == refusals[1]
