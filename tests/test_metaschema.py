"""The meta-schema check of Schema.parse: run once per schema, never wrong."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

import oa_core
from oa_core import metaschema
from oa_core.metaschema import MAX_REMEMBERED, check_json_schema, remembered


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The schemas jsonschema itself is asked to check, from a fresh memory."""
    monkeypatch.setattr(metaschema, "_VALID", type(metaschema._VALID)())
    seen: list[Any] = []
    original = Draft202012Validator.check_schema

    def counting(schema: Any, *args: Any, **kwargs: Any) -> None:
        seen.append(schema)
        original(schema, *args, **kwargs)

    monkeypatch.setattr(Draft202012Validator, "check_schema", staticmethod(counting))
    return seen


def test_the_same_schema_is_checked_once_whatever_its_key_order(checks):
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {}}}
    for _ in range(3):
        oa_core.score({"a": "x"}, {"a": "y"}, schema)
    oa_core.Schema.parse({"properties": {"b": {}, "a": {"type": "string"}},
                          "type": "object"})
    assert len(checks) == 1


def test_an_invalid_schema_is_refused_every_time_with_the_same_error(checks):
    errors = []
    for _ in range(2):
        with pytest.raises(oa_core.SchemaError) as caught:
            oa_core.Schema.parse({"type": "object", "properties": {"a": {"type": 5}}})
        errors.append((caught.value.pointer, caught.value.message))
    assert len(checks) == 2 and errors[0] == errors[1]
    assert errors[0][0] == "/properties/a/type"


def test_a_tuple_is_not_taken_for_the_list_its_text_would_be(checks):
    valid = {"type": "object", "required": ["a"]}
    check_json_schema(valid)
    assert remembered(valid)
    # jsonschema tells a tuple from an array: the same JSON text, another verdict
    with pytest.raises(oa_core.SchemaError, match="not valid JSON Schema"):
        oa_core.Schema.parse({"type": "object", "required": ("a",)})
    assert not remembered({"type": "object", "required": ("a",)})


def test_numbers_and_booleans_keep_their_own_entries(checks):
    variants = [{"minimum": 1}, {"minimum": 1.0}, {"const": True}, {"const": 1}]
    check_json_schema(variants[0])
    check_json_schema(variants[2])
    assert [remembered(v) for v in variants] == [True, False, True, False]


def test_subclasses_and_shared_containers_are_checked_every_time(checks):
    class Named(str):
        pass

    shared: dict[str, Any] = {"type": "string"}
    for schema in ({"type": Named("object")}, {"properties": {"a": shared, "b": shared}}):
        check_json_schema(schema)
        check_json_schema(schema)
        assert not remembered(schema)
    assert len(checks) == 4


def test_the_memory_is_bounded_and_forgets_the_least_recently_used(checks):
    first = {"title": "first"}
    check_json_schema(first)
    for n in range(MAX_REMEMBERED):
        check_json_schema({"title": str(n)})
        if n == MAX_REMEMBERED // 2:
            check_json_schema(first)  # used again: kept
    assert remembered(first)
    assert not remembered({"title": "0"}) and remembered({"title": str(MAX_REMEMBERED - 1)})
    assert len(metaschema._VALID) == MAX_REMEMBERED
