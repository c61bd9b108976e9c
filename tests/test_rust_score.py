"""The Rust scorer of scope-free documents (oa_core.native) against the Python one.

One harness over both engines: ``prepared_plan(schema).score`` (Rust) and
``scoreonly.score_objects`` (Python) must give the same ``float.hex`` on random
schemas and documents (hypothesis), on the scope-free cases of the bits corpus, and
``oa_core.score`` under ``OA_ENGINE=rust`` must keep the golden files' scores.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import bits
from oa_core.native import prepared_plan, score_scope_free
from oa_core.options import Limits
from oa_core.schema import Schema
from oa_core.scoreonly import Unsupported, score_objects
from oa_core.validation import check_json

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
          limits: Limits | None = None) -> tuple[str | None, str | None]:
    """(Python's hex, Rust's hex); None where an engine does not score them."""
    limits = limits or Limits()
    try:
        check_json(gold, "gold", limits)
        check_json(candidate, "candidate", limits)
        expected: str | None = score_objects(gold, candidate, schema, limits).hex()
    except Unsupported:
        expected = None
    except oa_core.OAError as error:  # a custom key comparator's error: Python's to say
        expected = type(error).__name__
    plan = prepared_plan(schema)
    try:
        got = None if plan is None else plan.score(gold, candidate, limits)
    except oa_core.OAError as error:  # refused by Rust as Python refuses it
        return expected, type(error).__name__
    return expected, None if got is None else got.hex()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, documents, documents)
def test_random_schemas_and_documents_score_the_same_bits(raw, gold, candidate):
    try:
        schema = Schema.parse(raw)
    except oa_core.OAError:
        return
    expected, got = _both(gold, candidate, schema)
    if got is not None:  # Rust declines only what Python must do itself
        assert got == expected
    expected, got = _both(gold, gold, schema)
    assert got == expected or got is None


@settings(max_examples=100, deadline=None)
@given(st.lists(documents, max_size=6), st.lists(documents, max_size=6),
       st.sampled_from(["align", "fixed"]))
def test_lists_of_anything_pair_as_python_pairs_them(gold, candidate, order):
    schema = Schema.parse({"type": "array", "order": order})
    expected, got = _both(gold, candidate, schema)
    assert got == expected or got is None


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
    scoped = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}}}})
    assert prepared_plan(scoped) is None


def test_a_custom_comparator_is_called_from_rust(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
    schema = Schema.parse({"type": "string", "score": "mine"},
                          comparators={"mine": lambda g, p: 0.25})
    plan = prepared_plan(schema)  # tests/test_rust_custom.py tests it in full
    assert plan is not None and plan.score("a", "b", Limits()) == 0.25
    assert oa_core.score("a", "b", schema) == 0.25


_CORPUS = [c for c in bits.corpus(hostile_count=200, org2graph_count=0, nested_count=0)
           if bits.family(c[0]) in ("samples", "flat", "lists", "hostile")]


def test_the_scope_free_corpus_scores_the_same_bits():
    scored = 0
    for name, raw, gold, candidate, comparators in _CORPUS:
        try:
            schema = Schema.parse(raw, comparators=comparators)
        except oa_core.OAError:
            continue
        if schema.scopes:
            continue
        expected, got = _both(gold, candidate, schema)
        if got is not None:
            assert got == expected, name
            scored += 1
    assert scored >= 100


@pytest.mark.parametrize("family", ["flat", "lists", "samples"])
def test_score_under_the_rust_engine_keeps_the_golden_bits(family, monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
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


def test_the_switch_picks_the_engine(monkeypatch):
    schema = Schema.parse({"type": "array", "order": "align"})
    monkeypatch.setenv("OA_ENGINE", "rust")
    assert score_scope_free([1, 2], [2, 3], schema, Limits()) == 0.5 * 2 / 3 + 1 / 3
    monkeypatch.setenv("OA_ENGINE", "python")
    assert score_scope_free([1, 2], [2, 3], schema, Limits()) == 0.5 * 2 / 3 + 1 / 3


def _public_score(patch: pytest.MonkeyPatch, engine: str, gold: Any, candidate: Any,
                  schema: Schema, strict: bool) -> str:
    patch.setenv("OA_ENGINE", engine)
    try:
        return oa_core.score(gold, candidate, schema, strict=strict).hex()
    except oa_core.OAError as error:  # a bad document: the same typed error
        return f"{type(error).__name__} {error.document} {error.pointer} {error.message}"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, documents, documents, st.booleans())
def test_score_is_the_same_under_either_engine(raw, gold, candidate, strict):
    try:
        schema = Schema.parse(raw)
    except oa_core.OAError:
        return
    with pytest.MonkeyPatch.context() as patch:
        expected = _public_score(patch, "python", gold, candidate, schema, strict)
        assert _public_score(patch, "rust", gold, candidate, schema, strict) == expected


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


@pytest.mark.parametrize("raw", HOSTILE_SCHEMAS)
@pytest.mark.parametrize("limits", [Limits(), SMALL], ids=["default", "small"])
def test_hostile_documents_get_the_same_error_or_bits_under_either_engine(raw, limits):
    schema = Schema.parse(raw)
    with pytest.MonkeyPatch.context() as patch:
        for value in HOSTILE:
            for gold, candidate in ((value, [1]), ([1], value), (value, value)):
                for strict in (False, True):
                    outcomes = []
                    for engine in ("python", "rust"):
                        patch.setenv("OA_ENGINE", engine)
                        try:
                            outcomes.append(oa_core.score(
                                gold, candidate, schema, strict=strict,
                                limits=limits).hex())
                        except oa_core.OAError as error:
                            outcomes.append((type(error).__name__, error.document,
                                             error.pointer, error.message))
                    assert outcomes[0] == outcomes[1], (value, gold is value, strict)


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
    assert plan.score({"a": 1}, {}, Limits()) == score_objects({"a": 1}, {}, schema,
                                                               Limits())
