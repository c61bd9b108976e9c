"""Messages show values as cut JSON, built lazily; the full value is one flag (or one
attribute) away. The case from the issue: a 5 MB candidate of 20,000 records that
violates the schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from oa_core.cli import main
from oa_core.errors import PREVIEW_LIMIT, ComparatorError, Diagnostic, InputError, preview_json
from oa_core.jsonio import loads
from oa_core.schema import Schema
from oa_core.validation import check_json, schema_violations


class CountingList(list[Any]):
    """A list that counts the items read from it."""

    read = 0

    def __iter__(self) -> Iterator[Any]:
        for item in list.__iter__(self):
            CountingList.read += 1
            yield item


class NoRepr(dict[str, Any]):
    """A record whose repr must never be built."""

    def __repr__(self) -> str:
        raise AssertionError("a full repr was built")


def records(n: int = 20_000) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"Person {i}", "email": f"person{i}@example.org",
             "bio": "b" * 180} for i in range(n)]


# --------------------------------------------------------------------------- preview_json


def test_short_values_are_their_json() -> None:
    value = {"name": "Eve", "ok": True, "none": None, "n": [1, 2.5, -3], "s": 'a"b\n'}
    assert preview_json(value) == json.dumps(value, ensure_ascii=False)
    assert preview_json("café") == '"café"' and preview_json(None) == "null"


def test_long_values_are_cut_with_their_size() -> None:
    assert preview_json(list(range(10_000)), 20) == "[0, 1, 2, 3, 4, 5, … (10,000 items)"
    assert preview_json({"a": "x" * 500}, 20) == '{"a": "xxxxxxxxxxxx… (1 key)'
    assert preview_json("y" * 300, 10) == '"yyyyyyyy… (300 characters)'
    assert preview_json({"k": 1, "l": [1]}, None) == '{"k": 1, "l": [1]}'


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30)
                    | st.floats(allow_nan=False),
                    lambda inner: st.lists(inner, max_size=5)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=5), max_leaves=40),
       st.integers(5, 120))
def test_a_preview_is_the_json_or_a_prefix_of_it(value: Any, limit: int) -> None:
    whole = json.dumps(value, ensure_ascii=False)
    shown = preview_json(value, limit)
    if len(whole) <= limit:
        assert shown == whole
    else:
        text, _, size = shown.rpartition("…")  # a key or text may hold "…" too
        assert whole.startswith(text.rstrip(" ")) and len(text) <= limit
        assert size in ("", f" ({preview_size(value)})")


_TEXT = st.text(st.sampled_from("ab'\"\\é\n"), max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats() | _TEXT
                    | st.integers(-(2 ** 70), 2 ** 70),
                    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner)
                    | st.dictionaries(_TEXT | st.integers(0, 9), inner, max_size=4),
                    max_leaves=12),
       st.booleans(), st.integers(1, 40))
def test_a_prefix_is_the_same_written_whole_or_in_pieces(value: Any, python: bool,
                                                         length: int) -> None:
    # json_prefix writes a small plain value whole (repr, the C encoder); piece by
    # piece it must read the same, whatever is cut (a cut string's repr may change
    # its quotes), a key that is not a string, a tuple, a 70-bit integer
    from oa_core.errors import _pieces, json_prefix
    assert json_prefix(value, length, python=python) == "".join(
        _pieces(value, length, python))[:length]


def preview_size(value: Any) -> str:
    unit = {str: "character", dict: "key", list: "item"}[type(value)]
    return f"{len(value):,} {unit}{'s' * (len(value) != 1)}"


def test_preview_stops_early() -> None:
    CountingList.read = 0
    big = CountingList(records())
    assert preview_json(big).endswith("… (20,000 items)")
    assert CountingList.read <= 2  # the first record fills the preview
    deep: Any = "end"
    for _ in range(50_000):  # deeper than Python could repr or dump
        deep = [deep]
    assert preview_json(deep, 30) == "[" * 29 + "… (1 item)"


def test_values_that_are_not_json() -> None:
    assert preview_json((1, 2)) == "(1, 2)"
    assert preview_json(float("nan")) == "NaN"
    assert preview_json(10 ** 5000) == "(an integer of 16,610 bits)"  # no 5,000 digits
    assert preview_json(10 ** 100, 12) == "10000000000…"


# --------------------------------------------------------------------------- violations


def test_a_violation_of_a_5_mb_candidate_is_short_and_keeps_the_value() -> None:
    candidate = records()
    assert len(json.dumps(candidate)) > 5_000_000
    gold = {"people": candidate[:2]}
    schema = {"type": "object", "properties": {"people": {"type": "array"}}}
    alignment = oa_core.align(gold, candidate, schema)
    (violation,) = alignment.violations
    assert violation.message.endswith('… (20,000 items) is not of type "object"')
    assert violation.message.startswith('[{"id": 0, "name": "Person 0"')
    assert len(violation.message) < 200
    assert violation.values == (candidate,)  # the whole value, for "show full"
    assert set(violation.to_dict()) == {"code", "document", "pointer", "message"}


def test_no_full_repr_is_built_for_a_violation() -> None:
    candidate = [NoRepr(record) for record in records(2_000)]
    schema = Schema.parse({"type": "object", "minProperties": 1})
    messages = [d.message for d in schema_violations(candidate, schema, "candidate")]
    assert messages and all(len(message) < 200 for message in messages)
    items = Schema.parse({"type": "array", "items": {"type": "string"}, "maxItems": 3,
                          "uniqueItems": True, "contains": {"const": 1}})
    found = schema_violations(candidate[:300], items, "candidate")  # uniqueItems: n²
    assert len(found) == 300 + 2  # each record not a string, too many, no 1
    assert all(len(d.message) < 200 for d in found)


def test_violation_messages_write_json() -> None:
    schema = Schema.parse({"type": "object", "required": ["name"],
                           "additionalProperties": False,
                           "properties": {"tags": {"enum": [None, True, "x"]}}})
    messages = {d.message for d in schema_violations({"tags": False, "extra": 1}, schema,
                                                     "gold")}
    assert messages == {'"name" is a required property',
                        'Additional properties are not allowed ("extra" was unexpected)',
                        'false is not one of [null, true, "x"]'}


def test_the_quiet_validator_finds_what_jsonschema_finds() -> None:
    cases = [({"type": ["string", "null"], "minLength": 2}, "a"),
             ({"prefixItems": [{"type": "string"}], "items": False}, ["a", 1, {"b": 2}]),
             ({"anyOf": [{"type": "string"}, {"minimum": 3}]}, 2),
             ({"patternProperties": {"^a": {"maxLength": 1}}, "propertyNames": {
                 "pattern": "^[a-z]+$"}}, {"ab": "xyz", "B": 1}),
             ({"dependentRequired": {"a": ["b"]}, "not": {"required": ["c"]}},
              {"a": 1, "c": 2})]
    for raw, document in cases:
        schema = Schema.parse(raw)
        ours = sorted(d.pointer for d in schema_violations(document, schema, "candidate"))
        theirs = sorted("".join(f"/{part}" for part in error.absolute_path)
                        for error in schema.validator.iter_errors(document))
        assert ours == theirs and ours, raw


# --------------------------------------------------------------------------- errors


def test_error_messages_cut_values_and_keep_them() -> None:
    key = "k" * 1_000
    with pytest.raises(InputError) as caught:
        loads(json.dumps({key: 1})[:-1] + f', "{key}": 2}}')
    assert f'duplicate key "{key[:40]}' in caught.value.message
    assert "(1,000 characters)" in caught.value.message
    assert len(caught.value.message) < 200
    with pytest.raises(InputError) as caught:
        check_json({(1, 2): "x"}, "candidate")
    assert caught.value.message == "object key (1, 2) is not a string"
    assert caught.value.values == ((1, 2),)


def test_diagnostic_values_take_no_part_in_equality() -> None:
    one = Diagnostic("c", "gold", "/a", "m", values=([1],))
    assert one == Diagnostic("c", "gold", "/a", "m") and hash(one) == hash(
        Diagnostic("c", "gold", "/a", "m"))


def test_feedback_text_cuts_big_values() -> None:
    big = records(500)
    result = oa_core.feedback({"people": big, "x": 1}, {"x": 1}, {"type": "object"})
    (line,) = [line for line in result.text.splitlines() if "/people" in line]
    assert "… (500 items)" in line and len(line) < 400
    assert result.ops[0].gold == big  # the op keeps the whole value


# --------------------------------------------------------------------------- command line


@pytest.fixture
def five_mb(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "gold.json").write_text(json.dumps({"people": records(2)}))
    (tmp_path / "cand.json").write_text(json.dumps(records()))
    (tmp_path / "schema.json").write_text(json.dumps(
        {"type": "object", "properties": {"people": {"type": "array"}}}))
    return {name: str(tmp_path / f"{name}.json") for name in ("gold", "cand", "schema")}


def test_cli_violation_is_short_and_full_values_is_one_flag_away(
        five_mb: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["score", five_mb["gold"], five_mb["cand"], "-s", five_mb["schema"]]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"oa: violation: {five_mb['cand']} (candidate) at (root): "
                          "[schema-violation] [{")
    assert "… (20,000 items) is not of type \"object\"" in err and len(err) < 400
    assert main([*argv, "--full-values"]) == 0
    err = capsys.readouterr().err
    (value,) = [line for line in err.splitlines() if line.startswith("  value: ")]
    assert json.loads(value.removeprefix("  value: ")) == records()


def test_cli_error_values_with_full_values(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    key = "k" * 300
    (tmp_path / "c.json").write_text(f'{{"{key}": 1, "{key}": 2}}')
    (tmp_path / "s.json").write_text('{"type": "object"}')
    argv = ["score", str(tmp_path / "c.json"), str(tmp_path / "c.json"), "-s",
            str(tmp_path / "s.json")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "(300 characters)" in err and key not in err
    assert main([*argv, "--full-values"]) == 2
    assert f'  value: "{key}"' in capsys.readouterr().err


def test_many_violations_are_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "g.json").write_text("[]")
    (tmp_path / "c.json").write_text(json.dumps(list(range(30))))
    (tmp_path / "s.json").write_text('{"type": "array", "items": {"type": "string"}}')
    assert main(["score", *(str(tmp_path / f) for f in ("g.json", "c.json")), "-s",
                 str(tmp_path / "s.json")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 11 and err[-1] == ("oa: violation: ... and 20 more (oa score --json "
                                          "lists them all)")
    assert PREVIEW_LIMIT >= 80


def test_comparator_and_gold_errors_cut_values_and_keep_them() -> None:
    long = "z" * 5_000

    def broken(gold: Any, candidate: Any) -> float:
        return 2.0

    schema = {"type": "object", "properties": {"a": {"type": "string", "score": "broken"}}}
    with pytest.raises(ComparatorError) as caught:
        oa_core.align({"a": long}, {"a": long + "!"}, schema, comparators={"broken": broken})
    message = caught.value.message
    assert message.startswith("custom comparator 'broken' returned 2.0 for (\"zzz")
    assert "(5,000 characters)" in message and len(message) < 400
    assert caught.value.values == (long, long + "!")
    with pytest.raises(InputError) as caught_gold:
        oa_core.align({"a": 1}, {"a": "x"}, {"type": "object", "properties": {
            "a": {"type": "string"}}})
    assert caught_gold.value.message == ('the gold violates the schema: 1 is not of type '
                                         '"string"')
    assert caught_gold.value.values == (1,)
