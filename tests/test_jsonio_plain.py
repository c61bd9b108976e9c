"""The engine's reader of plain JSON against ``loads``' own reading.

``_engine.parse_plain_json`` may only accept: whatever it reads must be what ``loads``
reads without it (the same types, the same float bits, the same key order), and any
text ``loads`` refuses must be handed back to ``loads`` untouched, so that the refusal
keeps its pointer and words.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oa_core import InputError, Limits, jsonio
from oa_core._engine import parse_plain_json

NOT_PLAIN = object()


def read_without_engine(text: str, limits: Limits) -> Any:
    """``loads``' value when its engine reader takes nothing (``InputError`` if refused)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonio, "parse_plain_json", lambda text, depth, otherwise: otherwise)
        return jsonio.loads(text, limits=limits)


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types; floats bit for bit, keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def agree(text: str, limits: Limits | None = None) -> Any:
    """Check the engine's reading of ``text`` against ``loads``'; the engine's value."""
    limits = limits or Limits()
    taken = parse_plain_json(text, limits.max_depth, NOT_PLAIN)
    try:
        expected = read_without_engine(text, limits)
    except InputError:
        assert taken is NOT_PLAIN, f"the engine took text loads refuses: {text!r}"
        return NOT_PLAIN
    if taken is not NOT_PLAIN:
        assert same(taken, expected), (text, taken, expected)
    return taken


json_scalars = (st.none() | st.booleans()
                | st.integers(min_value=-(10 ** 40), max_value=10 ** 40)
                | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(st.characters(exclude_categories=("Cs",)), max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=30)


@given(value=json_values, ascii_only=st.booleans(), indent=st.sampled_from([None, 0, 2]))
def test_every_json_dumps_text_is_read_as_loads_reads_it(value, ascii_only, indent):
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert agree(text) is not NOT_PLAIN


# Pieces that make text JSONC, invalid, or a problem loads names.
_HOSTILE = ["//c\n", "/*c*/", ",", "]", "}", "NaN", "Infinity", "-Infinity", "1e400",
            "-1E309", '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', "\t", "\x00", "\x1f",
            '"a":1,"a":2', "01", "1.", ".5", "-", "1e", "+1", "\ufeff", "\u00a0", " ",
            '"\\x"', '"\\u12"', "9" * 4400, "tru", "nul", "[" * 120, "]" * 120]


@given(value=json_values, cuts=st.lists(st.tuples(st.integers(0, 400),
                                                  st.sampled_from(_HOSTILE)), max_size=3))
def test_hostile_texts_are_left_to_loads_or_read_the_same(value, cuts):
    text = json.dumps(value, ensure_ascii=False)
    for where, piece in cuts:
        where = min(where, len(text))
        text = text[:where] + piece + text[where:]
    agree(text)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}', '{"a": {"b": [1, {"c": 1, "c": 1}]}}', "[1e400]", "[-1e999]",
    "NaN", "[Infinity]", '["\\ud800"]', '{"\\udfff": 1}', "[1, /* c */ 2]", "[1, 2,]",
    '"a\tb"', "[" + "9" * 5000 + "]", "[01]", "", "  ", "\ufeff[1]", "[1] x", "{'a': 1}",
])
def test_texts_loads_must_word_are_left_to_it(text):
    assert parse_plain_json(text, 100, NOT_PLAIN) is NOT_PLAIN
    agree(text)


def test_the_depth_limit_is_loads_own():
    for depth in (1, 5, 100):
        fits = "[" * (depth + 1) + "]" * (depth + 1)
        too_deep = "[" + fits + "]"
        assert parse_plain_json(fits, depth, NOT_PLAIN) == json.loads(fits)
        assert parse_plain_json(too_deep, depth, NOT_PLAIN) is NOT_PLAIN
        with pytest.raises(InputError, match="nested deeper"):
            jsonio.loads(too_deep, limits=Limits(max_depth=depth))


def test_deep_nesting_under_a_high_limit_goes_to_loads_not_the_stack():
    text = "[" * 200_000 + "]" * 200_000
    assert parse_plain_json(text, 10 ** 9, NOT_PLAIN) is NOT_PLAIN


def test_numbers_keep_their_types_and_bits():
    text = "[0, -0, -0.0, 1E2, 5e-324, 2.2250738585072011e-308, 1.7976931348623157e308, " \
           "12345678901234567890123, -9223372036854775808, 9223372036854775808, 0.1]"
    taken = parse_plain_json(text, 100, NOT_PLAIN)
    assert same(taken, json.loads(text))
    assert math.copysign(1.0, taken[2]) == -1.0 and type(taken[1]) is int


def test_a_str_with_a_lone_surrogate_of_its_own_is_left_to_loads():
    assert parse_plain_json('["\ud800"]', 100, NOT_PLAIN) is NOT_PLAIN
    with pytest.raises(InputError, match="surrogate"):
        jsonio.loads('["\ud800"]')


def test_repeated_keys_are_read_once_and_as_loads_reads_them():
    """Records repeat their keys: each key is made once per text (the same ``str``
    object in every record), escaped or not, long or short, however many there are."""
    records = [{"id": k, "name": "x", "\u00e9t\u00e9": k} for k in range(3)]
    value = agree(json.dumps(records, ensure_ascii=False) + " ")
    assert value is not NOT_PLAIN
    assert value[0] is not value[1]
    keys = [list(record) for record in value]
    assert all(a is b for a, b in zip(keys[0], keys[2], strict=True))
    # an escaped key and its plain twin are one key: a duplicate in one object, and
    # the same key across objects
    assert agree('[{"a": 1}, {"\\u0061": 2}, {"a": 3, "\\u0061": 4}]') is NOT_PLAIN
    assert agree('[{"a": 1}, {"\\u0061": 2}]') == [{"a": 1}, {"a": 2}]
    # more distinct keys than are remembered, a key longer than is remembered, a key
    # with a raw control character (refused)
    many = {f"k{k}": k for k in range(100)}
    assert agree(json.dumps([many, many])) == [many, many]
    long_key = "k" * 100
    assert agree(json.dumps([{long_key: 1}, {long_key: 2}])) == [{long_key: 1}, {long_key: 2}]
    assert agree('[{"a": 1}, {"a\n": 2}]') is NOT_PLAIN


def test_short_strings_share_their_slots_and_read_as_loads_reads_them():
    """Short keys and values are made once per text in a table of slots: more distinct
    strings than slots, strings that collide, long and escaped ones read the same."""
    ids = [f"{n:x}" for n in range(3000)]
    records = [{"id": k, "ref": ids[-1 - i], "v": [k, "\u00e9" + k, "\u2028" * 40 + k]}
               for i, k in enumerate(ids)]
    value = agree(json.dumps(records, ensure_ascii=False))
    assert value == records
    value = agree('["same", "same", "sa\\u006de", "emas"]')
    assert value == ["same", "same", "same", "emas"] and value[0] is value[1]


# --- a pair line (loads_pair_line): its documents held to the limits, one level down

@given(gold=json_values, candidate=json_values, extra=json_values, depth=st.integers(1, 6))
def test_a_pair_line_is_read_as_loads_reads_it_one_level_deeper(
        gold: Any, candidate: Any, extra: Any, depth: int) -> None:
    text = json.dumps({"id": extra, "gold": gold, "candidate": candidate}, ensure_ascii=False)
    line = Limits(max_depth=depth + 1)
    try:
        value = jsonio.loads_pair_line(text, limits=Limits(max_depth=depth))
    except InputError as err:  # nested deeper than the limits: refused as loads refuses it
        with pytest.raises(InputError) as refused:
            jsonio.loads(text, document="options", limits=line)
        assert (refused.value.pointer, refused.value.message) == (err.pointer, err.message)
        return
    assert same(value, read_without_engine(text, line))


@pytest.mark.parametrize("text", [
    '{"gold": 1, "prediction": "x"}', '[{"gold": 1, "candidate": 2}]', '{"gold": 1}',
    '{"gold": 123456789012345678901234567890, "candidate": 1}', '{"gold": 1, // c\n'
    '"candidate": 2}', '{"gold": "x", "candidate": 1, "gold": 2}'])
def test_a_pair_line_of_any_shape_is_read_as_loads_reads_it(text: str) -> None:
    try:
        value = jsonio.loads_pair_line(text, limits=Limits())
    except InputError as err:  # the duplicate key, as loads names it
        assert "duplicate key" in err.message
        return
    assert same(value, jsonio.loads(text, limits=Limits(max_depth=101)))
