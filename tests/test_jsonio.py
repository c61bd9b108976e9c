"""Reading JSON/JSONC and raw model output."""

from __future__ import annotations

import pytest

from oa_core import InputError, SchemaError
from oa_core.jsonio import extract_json, loads, strip_jsonc


def test_comments_and_trailing_commas_keep_offsets():
    text = '{"a": "//not a comment", /* c */ "b": [1, 2,],\n // x\n "c": "a,]",}'
    assert loads(text) == {"a": "//not a comment", "b": [1, 2], "c": "a,]"}
    assert len(strip_jsonc(text)) == len(text)


def test_errors_give_line_and_column_and_the_document():
    with pytest.raises(InputError) as info:
        loads('{\n  "a": 1,\n  "b": ]\n}', document="gold")
    assert info.value.document == "gold"
    assert "line 3, column 8" in info.value.message
    with pytest.raises(SchemaError):
        loads("{", document="schema")


@pytest.mark.parametrize("text", ["", "   ", "NaN", '{"a": Infinity}', '{"a": 1, "a": 2}',
                                  b"\xff\xfe\x00"])
def test_bad_texts_are_input_errors(text):
    with pytest.raises(InputError):
        loads(text)


# Python's int() refuses literals over 4300 digits: the parser must still name the place.
@pytest.mark.parametrize(("text", "pointer", "digits"), [
    ('{"a": [1, ' + "9" * 5000 + "]}", "/a/1", 5000),
    ('{"b": 0, "x/y": {"c": -' + "7" * 4301 + '}, "d": ' + "8" * 6000 + "}", "/x~1y/c", 4301),
])
def test_integers_too_long_to_read_are_named_by_pointer(text, pointer, digits):
    with pytest.raises(InputError) as info:
        loads(text, document="gold")
    assert info.value.pointer == pointer and info.value.document == "gold"
    assert f"integer of {digits} digits" in info.value.message
    with pytest.raises(SchemaError) as schema_info:
        loads(text, document="schema")
    assert schema_info.value.pointer == pointer


def test_long_integers_within_reach_still_parse():
    assert loads("[" + "1" * 400 + "]") == [int("1" * 400)]  # range checks come later


@pytest.mark.parametrize(("text", "value"), [
    ('{"a": 1}', {"a": 1}),
    ('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}),
    ('The answer is {"a": "}"} as requested.', {"a": "}"}),
    ("noise [1, 2] more", [1, 2]),
    ('bad {"x": } then {"y": 2}', {"y": 2}),
])
def test_extract_json(text, value):
    assert extract_json(text) == value


def test_extract_json_says_why_it_failed():
    with pytest.raises(InputError, match="holds no JSON value"):
        extract_json("I cannot answer that.")
    with pytest.raises(InputError, match="empty"):
        extract_json("  ")
