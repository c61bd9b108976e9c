"""The engine's JSON writer (``_engine.dump_plain_json``): json.dumps' text, or a miss."""

from __future__ import annotations

import enum
import json
import math
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oa_core._engine import dump_plain_json
from oa_core.runs.batch import record_text

MISS = object()

texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["", '"', "\\", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "é\u2028\u0085😀", "a\"b\\c\nd"])
scalars = (st.none() | st.booleans() | st.integers(-(2 ** 63), 2 ** 63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | texts)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(texts, inner, max_size=5),
    max_leaves=30)


@given(values)
def test_plain_values_are_written_as_json_dumps_writes_them(value: Any) -> None:
    assert dump_plain_json(value, MISS) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("number", [
    0.0, -0.0, 1e-7, 1e16, 1e22, 5e-324, 0.1 + 0.2, 1.7976931348623157e308, -123456.789,
    2 ** 63 - 1, -(2 ** 63), 1e-4, 9.999999999999999e-05, -1e-05, 9999999999999998.0,
    1e15, 123456789012345680.0, 2.5e-10, 1.5e300, 2.2250738585072014e-308, 1e100, 0.5,
    # the true value halfway between two shortest texts: Python's repr takes the even one
    1000000000000000.2, -1113178120592002.2, 825312615810.4062, 921325198817727.2,
    -227145692812095.62, -74210080308928.62])
def test_numbers_are_written_as_their_repr(number: float) -> None:
    assert dump_plain_json([number], MISS) == f"[{number!r}]"


@given(st.floats(allow_nan=False, allow_infinity=False)
       | st.integers(0, 2 ** 64 - 1).map(lambda bits: struct.unpack("<d", struct.pack(
           "<Q", bits))[0]).filter(math.isfinite))
def test_every_float_is_written_as_its_repr(number: float) -> None:
    assert dump_plain_json(number, MISS) == repr(number)


class Kind(enum.IntEnum):
    A = 1


class Name(enum.StrEnum):
    B = "b\n"


class Number(float):
    def __repr__(self) -> str:
        return "number"


def test_str_and_int_subclasses_are_written_as_their_values() -> None:
    value = {Name.B: [Name.B, Kind.A, True]}
    assert dump_plain_json(value, MISS) == json.dumps(value) == '{"b\\n": ["b\\n", 1, true]}'


def _cycle() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize("value", [
    2 ** 63, -(2 ** 63) - 1, math.nan, math.inf, -math.inf, "\ud800", {"\udc00": 1},
    {1: "a"}, {None: 1}, Number(1.5), {1, 2}, object(), [[[[1]]]] * 2 + [_cycle()],
    json.loads("[" * 600 + "]" * 600)])
def test_anything_else_is_left_to_json_dumps(value: Any) -> None:
    assert dump_plain_json(value, MISS) is MISS


def test_a_record_the_engine_leaves_is_written_by_json_dumps() -> None:
    assert record_text({"id": 2 ** 70, "v": math.inf}) == '{"id": 1180591620717411303424, ' \
        '"v": Infinity}'
    assert record_text({"id": "\ud800", "n": {1}}) == '{"id": "\\ud800", "n": "{1}"}'
    with pytest.raises(ValueError, match="Circular reference"):
        record_text({"loop": _cycle()})
