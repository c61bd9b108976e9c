"""The fast validation path gives ``jsonschema``'s and ``check_json``'s answers.

* :func:`oa_core.validation.is_valid` (the schema's shape checked in Rust, else
  ``jsonschema``) agrees with ``jsonschema``'s ``is_valid`` on every sample schema and
  document, and on random schemas and documents; the native verdict alone, wherever
  it gives one, agrees too;
* :func:`oa_core._engine.is_plain_json` says yes only where ``check_json`` accepts
  (and on plain JSON types exactly there);
* :func:`oa_core.validation.schema_violations` reports ``jsonschema``'s diagnostics.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as JSONSchemaError

import oa_core
from oa_core._engine import is_plain_json, schema_shape
from oa_core.errors import InputError
from oa_core.options import Limits
from oa_core.pointer import join
from oa_core.validation import check_json, is_valid, raise_first_problem, schema_violations

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "sample_data").iterdir() if (p / "gold.json").exists())
ACTIVE = frozenset(Draft202012Validator.VALIDATORS)


def _documents(folder: Path) -> list[Any]:
    files = [folder / "gold.json", folder / "candidate.json",
             *sorted((folder / "candidates").glob("*.json"))]
    return [json.loads(f.read_text()) for f in files if f.exists()]


def _slow_violations(document: Any, schema: oa_core.Schema, which: str) -> list[Any]:
    # where each violation is (the messages differ: ours show values as cut JSON)
    return sorted((which, join("", *e.absolute_path))
                  for e in schema.validator.iter_errors(document))


def _verdict(raw: Any, document: Any) -> bool | None:
    shape = schema_shape(raw, ACTIVE)
    return None if shape is None else shape.verdict(document)


def _nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_sample_schemas_have_shapes_and_agree(folder: Path) -> None:
    docs = _documents(folder)
    for schema_file in sorted(folder.glob("schema*.json")):
        raw = json.loads(schema_file.read_text())
        shape = schema_shape(raw, ACTIVE)
        assert shape is not None, f"{schema_file} should be checked natively"
        validator = Draft202012Validator(raw)
        parsed = oa_core.Schema.parse(raw)
        for doc in docs:
            assert shape.verdict(doc) == validator.is_valid(doc)
            assert sorted((d.document, d.pointer) for d in schema_violations(
                doc, parsed, "candidate")) == _slow_violations(doc, parsed, "candidate")


# -- random schemas and documents -------------------------------------------------------

KEYS = ["a", "b", "c"]
PATTERNS = ["^a", "b$", "[0-9]", "^$", "x|y"]

scalars = (st.none() | st.booleans() | st.integers(-5, 5) | st.integers()
           | st.sampled_from([2**53 + 1, float(2**53), 2**64, 2.0**64, -(2**70)])
           | st.floats(allow_nan=False, allow_infinity=False, width=32)
           | st.sampled_from([0.0, 1.0, 2.5, -0.0, 3.0]) | st.text("abxy01\U0001f600",
                                                                    max_size=4))
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(KEYS), inner, max_size=3), max_leaves=12)
# arrays with equal items (1 and 1.0, true and 1, nested copies): uniqueItems' cases
repeated = st.lists(json_values, min_size=1, max_size=3).flatmap(
    lambda items: st.permutations(items + items[:1] + [
        1, True, 1.0, [1], [True], {"a": 0}, {"a": False}][:len(items) + 2]))

TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"]
small_numbers = (st.integers(-3, 3) | st.sampled_from([0.5, 1.5, 2.0, -1.0, 2**64])
                 | st.sampled_from([2.0**64, 2**53 + 1]))


def _keywords(inner: st.SearchStrategy[Any], covered: bool) -> st.SearchStrategy[Any]:
    """A schema keyword: those the shape checks (``covered``), or any of Draft 2020-12's
    common ones."""
    native = [
        st.tuples(st.just("type"), st.sampled_from(TYPES)
                  | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)),
        st.tuples(st.just("properties"), st.dictionaries(st.sampled_from(KEYS), inner,
                                                          max_size=2)),
        st.tuples(st.just("required"), st.lists(st.sampled_from(KEYS), max_size=2,
                                                unique=True)),
        st.tuples(st.just("additionalProperties"), inner),
        st.tuples(st.just("items"), inner),
        st.tuples(st.just("prefixItems"), st.lists(inner, min_size=1, max_size=2)),
        st.tuples(st.just("enum"), st.lists(json_values, min_size=1, max_size=3)),
        st.tuples(st.just("const"), json_values),
        st.tuples(st.sampled_from(["minimum", "maximum", "exclusiveMinimum",
                                   "exclusiveMaximum"]), small_numbers),
        st.tuples(st.sampled_from(["minLength", "maxLength", "minItems", "maxItems",
                                   "minProperties", "maxProperties"]),
                  st.integers(0, 3) | st.just(2.0)),
        st.tuples(st.just("uniqueItems"), st.booleans()),
        st.tuples(st.just("format"), st.sampled_from(["email", "date"])),
        st.tuples(st.sampled_from(["score", "order", "idScope", "nullable", "then"]),
                  st.just("align")),  # OA's and unknown keywords: ignored by both
    ]
    if covered:
        return st.one_of(native)
    return st.one_of(
        *native,
        st.tuples(st.just("multipleOf"), st.sampled_from([1, 2, 0.5, 0.1, 3])),
        st.tuples(st.just("pattern"), st.sampled_from(PATTERNS)),
        st.tuples(st.sampled_from(["allOf", "anyOf", "oneOf"]),
                  st.lists(inner, min_size=1, max_size=3)),
        st.tuples(st.sampled_from(["not", "if", "contains", "propertyNames"]), inner),
        st.tuples(st.just("dependentRequired"), st.dictionaries(
            st.sampled_from(KEYS), st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
            max_size=2)))


def _schemas(covered: bool) -> st.SearchStrategy[Any]:
    return st.recursive(st.booleans() | st.just({}), lambda inner: st.booleans() | st.lists(
        _keywords(inner, covered), max_size=4).map(dict), max_leaves=8)


def _agree(raw: Any, documents: list[Any]) -> None:
    try:
        Draft202012Validator.check_schema(raw)
    except JSONSchemaError:
        assume(False)
    validator = Draft202012Validator(raw)
    try:
        parsed = oa_core.Schema.parse(raw) if isinstance(raw, dict) else None
    except oa_core.SchemaError:  # OA's keywords drawn where OA refuses them
        parsed = None
    for doc in documents:
        expected = validator.is_valid(doc)
        verdict = _verdict(raw, doc)
        assert verdict is None or verdict == expected, (raw, doc)
        if parsed is not None:
            assert is_valid(doc, parsed) == expected, (raw, doc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas(covered=True), st.lists(json_values, min_size=1, max_size=5), repeated)
def test_the_native_verdict_equals_jsonschema(raw: Any, documents: list[Any],
                                              items: list[Any]) -> None:
    """Schemas of the keywords the shape checks all have a shape, whose verdict is
    jsonschema's wherever it gives one (and None only for some uniqueItems arrays)."""
    assert schema_shape(raw, ACTIVE) is not None, raw
    _agree(raw, [*documents, items, {"a": items}])
    if isinstance(raw, dict) and "uniqueItems" not in json.dumps(raw):
        assert all(_verdict(raw, doc) is not None for doc in [*documents, items])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schemas(covered=False), st.lists(json_values, min_size=1, max_size=5))
def test_any_schema_is_validated_as_jsonschema_does(raw: Any, documents: list[Any]) -> None:
    _agree(raw, documents)


# -- each keyword, with JSON's equality -------------------------------------------------

@pytest.mark.parametrize("raw, document, valid", [
    ({"enum": [1, "a"]}, 1.0, True),
    ({"enum": [1, "a"]}, True, False),
    ({"enum": [0]}, False, False),
    ({"enum": [False]}, 0, False),
    ({"enum": [[1, {"a": True}]]}, [1.0, {"a": True}], True),
    ({"enum": [[1, {"a": True}]]}, [1.0, {"a": 1}], False),
    ({"const": 2**53 + 1}, float(2**53), False),
    ({"const": 2**64}, 2.0**64, True),
    ({"const": {"a": 0}}, {"a": -0.0}, True),
    ({"const": {"a": 0}}, {"a": 0, "b": 0}, False),
    ({"const": None}, None, True),
    ({"minimum": 2**53 + 1}, float(2**53), False),
    ({"maximum": 2.5}, 2, True),
    ({"exclusiveMinimum": 1}, 1.0, False),
    ({"exclusiveMaximum": 2**64}, 2.0**64, False),
    ({"minimum": 5}, True, True),
    ({"minimum": 5}, "a", True),
    ({"maxLength": 2}, "\U0001f600\U0001f600", True),
    ({"maxLength": 2.0}, "abc", False),
    ({"minLength": 1}, "\ud800", True),
    ({"minItems": 2}, [1], False),
    ({"maxProperties": 1}, {"a": 1, "b": 2}, False),
    ({"uniqueItems": True}, [1, 1.0], False),
    ({"uniqueItems": True}, [1, True], True),
    ({"uniqueItems": True}, [0, False, None, "0"], True),
    ({"uniqueItems": True}, [{"a": [1]}, {"a": [1.0]}], False),
    ({"uniqueItems": True}, [[1], [True], [1]], True),  # jsonschema's sort, not JSON
    ({"uniqueItems": False}, [1, 1], True),
    ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2}, False),
    ({"properties": {"a": {}}, "additionalProperties": {"type": "string"}},
     {"a": 1, "b": "x"}, True),
    ({"prefixItems": [{}], "items": False}, [1, 2], False),
    ({"prefixItems": [{}], "items": False}, [1], True),
    ({"properties": {"a": False}}, {"a": None}, False),
    ({"format": "email"}, "not an address", True),
    ({"type": "integer"}, 2.0, True),
])
def test_keyword(raw: dict[str, Any], document: Any, valid: bool) -> None:
    assert Draft202012Validator(raw).is_valid(document) == valid  # the reference
    assert is_valid(document, oa_core.Schema.parse(raw)) == valid
    assert _verdict(raw, document) in (valid, None)


@pytest.mark.parametrize("raw", [
    {"pattern": "^a"},
    {"multipleOf": 2},
    {"patternProperties": {"^a": {"type": "string"}}},
    {"properties": {"a": {"$id": "https://example.com/a", "type": "string"}}},
    {"unevaluatedProperties": False},
    {"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}},
    {"anyOf": [{"type": "string"}, {"type": "null"}]},
    {"enum": [math.nan]},
])
def test_what_the_shape_does_not_check_goes_through_jsonschema(raw: dict[str, Any]) -> None:
    assert schema_shape(raw, ACTIVE) is None
    parsed = oa_core.Schema.parse(raw)
    for doc in [None, "a", "b", 2, {"a": "x"}, {"a": 1}]:
        assert is_valid(doc, parsed) == Draft202012Validator(raw).is_valid(doc)


def test_documents_the_conversion_declines_are_validated_by_jsonschema() -> None:
    parsed = oa_core.Schema.parse({"type": "array", "items": {"type": "array"}})
    deep = _nested(600)  # beyond the native nesting
    shape = schema_shape(parsed.raw, ACTIVE)
    assert shape is not None and shape.verdict(deep) is None
    assert is_valid(deep, parsed) and not is_valid([[], 1], parsed)
    assert shape.verdict([1, float("nan")]) is None
    assert not is_valid([1, float("nan")], parsed)


def test_invalid_candidates_keep_their_diagnostics(running: tuple[Any, Any, Any]) -> None:
    _gold, candidate, raw = running
    parsed = oa_core.Schema.parse(raw)
    broken = {**candidate, "people": [{"id": "x", "name": 3}], "extra": None}
    fast = schema_violations(broken, parsed, "candidate")
    assert fast and sorted((d.document, d.pointer) for d in fast) == _slow_violations(
        broken, parsed, "candidate")


def test_strict_score_of_an_array_only_jsonschema_judges() -> None:
    """uniqueItems over arrays holding booleans: the native verdict leaves it to
    jsonschema (unique by its sort), and a strict score follows jsonschema."""
    raw = {"type": "array", "uniqueItems": True}
    assert oa_core.score([[1]], [[1], [True], [1]], raw, strict=True) > 0.0
    assert oa_core.score([[1]], [[1], [1]], raw, strict=True) == 0.0


# -- plain JSON ---------------------------------------------------------------------------

class _Odd:
    pass


class _Dict(dict):  # type: ignore[type-arg]
    pass


hostile_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.just(2**1100) | st.just(-(2**1100))
    | st.floats() | st.text(max_size=7) | st.just(_Odd()) | st.just((1, 2)),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.text(max_size=2) | st.integers(0, 2) | st.none(), inner, max_size=5),
    max_leaves=20)


def _check_json_accepts(value: Any, limits: Limits) -> bool:
    try:
        raise_first_problem(value, "gold", limits)  # the walk that names the pointer
    except InputError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(hostile_values, st.integers(1, 4), st.integers(1, 5), st.integers(1, 6))
def test_is_plain_json_equals_check_json(value: Any, depth: int, items: int,
                                         length: int) -> None:
    for limits in (Limits(max_depth=depth, max_items=items, max_string_length=length),
                   Limits()):
        accepts = _check_json_accepts(value, limits)
        assert is_plain_json(value, limits) == accepts
        try:
            check_json(value, "gold", limits)
        except InputError:
            assert not accepts
        else:
            assert accepts


@pytest.mark.parametrize("value", [_Dict(a=1), 2**1023, {"a": [_Dict()]}])
def test_the_conversion_takes_what_python_accepts(value: Any) -> None:
    assert is_plain_json(value, Limits())
    check_json(value, "gold", Limits())


def test_a_lone_surrogate_is_refused_by_both() -> None:
    for value in ({"\ud800": 1}, ["a\udfff"]):
        assert not is_plain_json(value, Limits())
        with pytest.raises(InputError, match="lone surrogate"):
            check_json(value, "gold", Limits())


def test_nesting_beyond_the_engine_within_the_limits_is_left_to_it() -> None:
    limits = Limits(max_depth=1000)
    assert not is_plain_json(_nested(600), limits)  # the engine refuses it when scoring
    check_json(_nested(600), "gold", limits)  # the slow walk finds no problem


def test_check_json_still_names_the_pointer() -> None:
    with pytest.raises(InputError) as err:
        check_json({"a": [1, {"b": math.inf}]}, "candidate")
    assert err.value.pointer == "/a/1/b"
