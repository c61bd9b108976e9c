"""Reading JSON/JSONC and raw model output."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oa_core import InputError, Limits, SchemaError
from oa_core.jsonio import JsonlLines, extract_json, jsonl_lines, loads, strip_jsonc


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


# --------------------------------------------------------------------------- defects


@pytest.mark.timeout(20)
@pytest.mark.parametrize(("text", "pointer"), [
    ("[" * 16000, "/0" * 101),
    ('{"a":' * 16000, "/a" * 101),
    ("[" * 16000 + "]" * 16000, "/0" * 101),
    ('{"a":' * 2000 + "1" + "}" * 2000, "/a" * 101),  # valid JSON, too deep
])
def test_defect_04_extract_json_is_linear(text, pointer):
    with pytest.raises(InputError, match="nested deeper than 100 levels"):
        extract_json(text)
    with pytest.raises(InputError) as info:  # never a RecursionError
        loads(text, document="gold")
    assert info.value.pointer == pointer and info.value.document == "gold"
    assert "nested deeper than 100 levels at line 1, column" in info.value.message


def test_defect_04_depth_limit_matches_check_json():
    # the root is level 0, as in validation.check_json: 100 levels of arrays are fine
    assert loads("[" * 100 + "]" * 100) is not None
    assert loads("[" * 101 + "]" * 101) is not None  # the innermost array is at level 100
    with pytest.raises(InputError) as info:
        loads("[" * 101 + "1" + "]" * 101)
    assert info.value.pointer == "/0" * 101
    assert loads('{"a": "' + "[" * 500 + '"}') == {"a": "[" * 500}  # brackets in strings
    with pytest.raises(InputError, match="nested deeper than 3 levels"):
        loads("[[[[[1]]]]]", limits=Limits(max_depth=3))


@pytest.mark.timeout(20)
def test_defect_04_extract_json_tries_each_span_once():
    assert extract_json("[x] " * 5000 + '{"a": 1}') == {"a": 1}
    assert extract_json('He said "no. Then {"a": "}"} and [3]') == {"a": "}"}
    # inside a bracket that never closes, the balanced spans within it are tried
    assert extract_json('{"answer": [1, 2] and then nothing') == [1, 2]
    with pytest.raises(InputError, match="first 10,000 bracketed spans"):
        extract_json("[x]" * 20000)


def test_defect_04_extract_json_refuses_oversized_input():
    with pytest.raises(InputError) as info:
        extract_json("x" * 200, limits=Limits(max_input_bytes=100))
    assert "200 bytes, over the limit of 100 bytes" in info.value.message
    assert "max_input_bytes" in info.value.fix


def test_defect_12_loads_refuses_oversized_input():
    for text in ('["' + "é" * 60 + '"]', ('["' + "é" * 60 + '"]').encode()):
        with pytest.raises(InputError) as info:
            loads(text, document="gold", limits=Limits(max_input_bytes=100))
        assert info.value.document == "gold"
        assert "124 bytes, over the limit of 100 bytes" in info.value.message
    assert loads('["' + "é" * 40 + '"]', limits=Limits(max_input_bytes=100)) == ["é" * 40]


def test_defect_12_jsonc_keeps_exact_positions():
    # the fast path (plain JSON) fails on comments; the JSONC pass keeps offsets
    text = '// head\n{"a": [1, 2,], /* b\n c */ "b": x}'
    with pytest.raises(InputError) as info:
        loads(text)
    assert "line 3, column 12" in info.value.message
    assert loads('{"url": "http://x/*y*/", "s": "a,]"} // tail') == {
        "url": "http://x/*y*/", "s": "a,]"}
    assert strip_jsonc("[1, // c\n 2]") == "[1,     \n 2]"  # not a trailing comma
    assert strip_jsonc("[1, // c\n ]") == "[1" + " " * 6 + "\n ]"
    assert strip_jsonc("[1, 2]") == "[1, 2]"


@pytest.mark.parametrize(("text", "pointer", "where"), [
    ('{"a": {"b": 1,\n "b": 2}}', "/a", "line 2, column 2"),
    ('{"a": 1, "a": 2}', "", "line 1, column 10"),
    ('[{"x": 1}, {"x": 1, "y": {}, "x": 2}]', "/1", "line 1, column 30"),
    ('{"k": {"\\u0041": 1, "A": 2}}', "/k", "line 1, column 21"),  # equal once decoded
    ('// c\n{"a": 1, "a": 2,}', "", "line 2, column 10"),  # JSONC
])
def test_defect_17_duplicate_key_names_object_line_and_column(text, pointer, where):
    with pytest.raises(InputError) as info:
        loads(text)
    assert info.value.pointer == pointer
    assert "duplicate key" in info.value.message and where in info.value.message


@pytest.mark.parametrize(("text", "pointer"), [
    ("[1e400]", "/0"),
    ('{"a": {"b": -1E+999}}', "/a/b"),
    ("[0.5, " + "9" * 400 + ".0]", "/1"),
    ('{"a": NaN}', "/a"),
    ("[1, -Infinity]", "/1"),
])
def test_defect_20_non_finite_numbers_are_refused_at_read_time(text, pointer):
    with pytest.raises(InputError) as info:
        loads(text, document="candidate")
    assert info.value.pointer == pointer and "finite" in info.value.message


def test_defect_20_bom_in_str_and_bytes():
    assert loads("\ufeff[1]") == loads(b"\xef\xbb\xbf[1]") == [1]
    assert loads("\ufeff// c\n{\"a\": 1,}") == {"a": 1}
    assert extract_json('\ufeff{"a": 1}') == {"a": 1}
    with pytest.raises(InputError) as info:
        loads("\ufeff[1,\n x]")
    assert "line 2, column 2" in info.value.message  # the BOM is not a column


@pytest.mark.parametrize(("text", "expected"), [
    ('{"people": [{"name": "Ann"}, {"name": "Bo',
     "unterminated string: it opens at line 1, column 39 and the text ends before its "
     'closing quote (is the file cut off?): `"Bo`'),
    ('{"a": [1, 2', "the text ends at line 1, column 12 before the value is complete (is "
     "the file cut off?): an array opened at line 1, column 7 is never closed; it ends "
     'with `{"a": [1, 2`'),
    ('[\n {"x": "]"},\n {"y": ', "the text ends at line 3, column 8 before the value is "
     "complete (is the file cut off?): an object opened at line 3, column 2 is never "
     'closed; it ends with `[ {"x": "]"}, {"y":`'),
    ('{"a": 1 // note\n, "b": "x', "unterminated string: it opens at line 2, column 8"),
])
def test_a_cut_off_text_says_what_is_unterminated_and_where(text, expected):
    with pytest.raises(InputError) as info:
        loads(text)
    message = info.value.message
    assert message.startswith("invalid JSON: ") and expected in message
    assert not message.rstrip().endswith(("starting at", "at"))


def test_a_cut_off_text_shows_only_its_end():
    with pytest.raises(InputError) as info:
        loads('{"items": [' + ", ".join(['"abcdefgh"'] * 50_000))
    message = info.value.message
    assert len(message) < 300 and message.endswith('"abcdefgh", "abcdefgh"`')
    assert "an array opened at line 1, column 11 is never closed" in message


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x1c", "\r"])
def test_jsonl_lines_end_at_line_feeds_only(separator: str) -> None:
    # a JSON string may hold these unescaped; str.splitlines() would cut the line there
    line = '{"a": "x' + separator + 'y"}'
    assert jsonl_lines(f"{line}\n\n{line}\r\n") == [line, "", line]
    assert jsonl_lines(f"{line}\n".encode()) == [line.encode()]


@pytest.mark.parametrize("text", ["", "\n", "1", "1\n", "1\n\n", "\n1", "1\r\n2", "1\r\n\r\n"])
def test_jsonl_lines_number_lines_as_splitlines_does_on_plain_text(text: str) -> None:
    assert jsonl_lines(text) == text.splitlines()


# pieces a JSON Lines file is made of, the awkward ones included: line ends of each
# kind, separators str.splitlines() would cut at, white space str.strip() removes
# (ASCII and not), and characters of every UTF-8 length
_PIECES = st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\u0085", "\x1c", " ", "\t",
                           "\u00a0", "\u3000", "{", '"a"', "1", "é", "€", "\U0001f600"])


@given(st.lists(_PIECES, max_size=30).map("".join), st.booleans())
def test_jsonl_lines_held_as_bytes_are_the_lines_of_the_text(text: str, bom: bool) -> None:
    data = (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8")
    lines = JsonlLines(data)
    assert list(lines) == jsonl_lines(text)
    assert lines[1:3] == jsonl_lines(text)[1:3]
    assert lines.filled().tolist() == [n for n, line in enumerate(jsonl_lines(text))
                                       if line.strip()]
    assert lines.longest == max((len(line.encode()) for line in text.split("\n")),
                                default=0)


def test_jsonl_lines_held_as_bytes_refuse_what_is_not_utf8_at_its_byte() -> None:
    good = b'{"a": "\xc3\xa9"}\n' * 100_000  # past the first part checked
    for data, offset in [(b"\xff", 0), (b'{"a": 1}\n\xc3(', 9), (good + b"\xe2\x82", len(good))]:
        with pytest.raises(UnicodeDecodeError) as info:
            JsonlLines(data)
        assert info.value.start == offset
