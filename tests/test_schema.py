"""Schema parsing: validation errors name the pointer and the fix; warnings."""

from __future__ import annotations

import pytest

import oa_core
from oa_core import SchemaError


@pytest.mark.parametrize(("schema", "pointer", "text"), [
    ({"type": "string", "score": "jaor"}, "/score", "did you mean 'jaro'"),
    ({"type": "string", "score": "invdiff"}, "/score", "does not compare string"),
    ({"type": "string", "threshold": 1.5}, "/threshold", "[0, 1]"),
    ({"type": "string", "threshold": "high"}, "/threshold", "must be a number"),
    ({"type": "object", "valueImportance": -1}, "/valueImportance", ">= 0"),
    ({"type": "array", "order": "sorted"}, "/order", "'align'"),
    ({"type": "array", "ignoreExcess": "yes"}, "/ignoreExcess", "true or false"),
    ({"type": "object", "properties": {"a": {"type": "number", "valueWeight": "x"}}},
     "/properties/a/valueWeight", "number"),
    ({"type": "object", "keyScore": "nope"}, "/keyScore", "unknown key comparator"),
    ({"type": "strin"}, "/type", "not valid JSON Schema"),
    ({"$ref": "#/$defs/missing"}, "/$ref", "points at nothing"),
    ({"type": "object", "properties": {"a": {"$ref": "http://x/y"}}}, "/properties/a/$ref",
     "only local $ref"),
])
def test_schema_errors_name_the_place(schema, pointer, text):
    with pytest.raises(SchemaError) as info:
        oa_core.Schema.parse(schema)
    assert info.value.pointer == pointer
    assert text in str(info.value)
    assert info.value.fix


def test_unknown_keyword_warns_with_a_suggestion():
    parsed = oa_core.Schema.parse({"type": "object", "properties": {
        "a": {"type": "string", "valueweight": 2}}})
    [warning] = parsed.warnings
    assert warning.code == "unknown-keyword"
    assert warning.pointer == "/properties/a/valueweight"
    assert "did you mean 'valueWeight'" in warning.message


def test_misplaced_keyword_warns():
    parsed = oa_core.Schema.parse({"type": "string", "order": "align"})
    assert [w.code for w in parsed.warnings] == ["misplaced-keyword"]


def test_comparator_on_an_id_is_ignored_with_a_warning():
    parsed = oa_core.Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "s", "score": "exact"}}}})
    assert [w.code for w in parsed.warnings] == ["comparator-ignored"]


def test_jsonc_text_is_accepted_and_errors_give_line_and_column():
    parsed = oa_core.Schema.parse('{\n "type": "string", // comment\n "score": "exact",\n}')
    assert parsed.root.comparator == "exact"
    with pytest.raises(SchemaError, match="line 2, column"):
        oa_core.Schema.parse('{\n "type": }')


def test_local_refs_and_recursion():
    schema = {"$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string", "score": "exact"},
        "children": {"type": "array", "order": "align", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"}
    tree = {"name": "a", "children": [{"name": "b", "children": []},
                                      {"name": "c", "children": []}]}
    other = {"name": "a", "children": [{"name": "c", "children": []},
                                       {"name": "b", "children": []}]}
    assert oa_core.score(tree, other, schema) == 1.0


def test_pydantic_optional_is_the_branch_made_nullable():
    parsed = oa_core.Schema.parse({"type": "object", "properties": {
        "x": {"anyOf": [{"type": "string", "score": "exact"}, {"type": "null"}],
              "default": None}}})
    node = parsed.root.properties["x"]
    assert node.type == "string" and node.nullable and node.comparator == "exact"


def test_valueweight_beside_a_ref_applies():
    parsed = oa_core.Schema.parse({"$defs": {"s": {"type": "string"}}, "type": "object",
                                   "properties": {"a": {"$ref": "#/$defs/s", "valueWeight": 4}}})
    assert parsed.root.weights == {"a": 4.0}


def test_invalid_gold_is_an_input_error():
    with pytest.raises(oa_core.InputError) as info:
        oa_core.score({"a": 1}, {"a": 1}, {"type": "object", "properties": {
            "a": {"type": "string"}}})
    assert info.value.document == "gold" and info.value.pointer == "/a"


@pytest.mark.parametrize(("value", "pointer"), [
    ({"a": [1, float("nan")]}, "/a/1"),
    ({"a": {1: 2}}, "/a"),
    ({"a": {"b": object()}}, "/a/b"),
    ({"a": [0, -(10**400)]}, "/a/1"),  # beyond float64: no numeric comparator can take it
])
def test_non_json_input_is_an_input_error(value, pointer):
    with pytest.raises(oa_core.InputError) as info:
        oa_core.score({}, value, {})
    assert info.value.pointer == pointer and info.value.document == "candidate"


def test_deep_nesting_is_refused_not_crashed():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(oa_core.InputError, match="deeper"):
        oa_core.score(deep, deep, {})


def test_bad_options():
    with pytest.raises(oa_core.InputError, match="wl_mode"):
        oa_core.score({}, {}, {}, wl_mode="fast")
    with pytest.raises(oa_core.InputError, match="wl_blend_lambda"):
        oa_core.score({}, {}, {}, wl_blend_lambda=2)
