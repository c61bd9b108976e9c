"""Reading JSON and JSONC text with errors that say where.

JSONC is JSON plus ``//`` and ``/* */`` comments and trailing commas; comments
are blanked out (not removed) so that reported line and column numbers stay those
of the original text.

Reading is linear in the length of the text and bounded by
:class:`~oa_core.options.Limits`: a text over ``max_input_bytes`` is refused before
it is parsed, and a value nested deeper than ``max_depth`` is refused at its JSON
Pointer, line and column (never a ``RecursionError``). Duplicate keys, numbers that
are not finite (``1e400``), integers too long for :func:`int` and strings or keys
holding a lone surrogate (an escaped ``\\ud800`` without its pair: no Unicode
text) are refused at their JSON Pointer too, with line and column.

Plain JSON that holds none of these is read in one pass by the engine
(``_engine.parse_plain_json``, which gives the value :func:`json.loads` gives); any
other text, JSONC included, is read here, where every refusal is worded.

Examples
--------
>>> loads('{"a": 1, // one\\n "b": [2, 3,],}', document="gold")
{'a': 1, 'b': [2, 3]}
>>> try:
...     loads('{"a": }', document="candidate")
... except InputError as err:
...     print(err.message)
invalid JSON at line 1, column 7: Expecting value
>>> try:
...     loads('{"a": {"b": 1,\\n "b": 2}}')
... except InputError as err:
...     print(err.pointer, err.message)
/a duplicate key "b" at line 2, column 2
>>> try:
...     loads('{"people": [{"name": "Ann"}, {"name": "Bo')
... except InputError as err:
...     print(err.message.replace(" and the", "\\nand the"))
invalid JSON: unterminated string: it opens at line 1, column 39
and the text ends before its closing quote (is the file cut off?): `"Bo`
>>> try:
...     loads('[1, 1e400]')
... except InputError as err:
...     print(err.pointer, err.message)
/1 number 1e400 is not finite (beyond about ±1.8e308) at line 1, column 5
"""

from __future__ import annotations

import codecs
import functools
import json
import math
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, AnyStr, overload

from ._engine import parse_plain_json
from .errors import (
    INTEGER_OUT_OF_RANGE,
    INTEGER_OUT_OF_RANGE_FIX,
    Document,
    InputError,
    OAError,
    SchemaError,
    lone_surrogate,
    lone_surrogate_error,
    preview_json,
)
from .options import Limits
from .pointer import join

__all__ = ["JsonlLines", "extract_json", "jsonl_lines", "loads", "loads_pair_line", "strip_jsonc"]

# JSONC in one pass. ``keep`` is a run of JSON strings (possibly unterminated: then
# to the end, as a parser reads it), other characters and commas that are neither
# trailing nor followed by a comment; ``blank`` a comment or a trailing comma (one
# that only white space and comments separate from } or ]). Few matches: the
# replacement function runs around comments and commas next to them only.
_BLOCK_COMMENT = r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/"
_JSONC = re.compile(rf"""
    (?P<keep>(?:"[^"\\]*(?:\\.[^"\\]*)*"?|[^"/,]+|,(?![ \t\r\n]*(?:[\]}}]|/[/*])))+)
  | (?P<blank>//[^\n]*|{_BLOCK_COMMENT}|/\*.*
       |,(?=(?:[ \t\r\n]+|//[^\n]*+|{_BLOCK_COMMENT})*[\]}}]))
  | [,/]
""", re.VERBOSE | re.DOTALL)
_MAYBE_TRAILING = re.compile(r",[ \t\r\n]*[\]}]")
_NOT_NEWLINE = re.compile(r"[^\n]")
# The tokens of JSON text, for locating a problem once the fast parser found one.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?'
                     r'(?:[eE][-+]?[0-9]+)?|[\[\]{},:]|true|false|null|-?Infinity|NaN', re.DOTALL)
_STRINGS_AND_PLAIN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^"\[\]{}]+', re.DOTALL)
_NOT_BRACKET = bytes(c for c in range(256) if c not in b"[]{}")
_BOM = "\ufeff"


# --------------------------------------------------------------------------- JSONC


@overload
def jsonl_lines(text: str) -> list[str]: ...
@overload
def jsonl_lines(text: bytes) -> list[bytes]: ...
def jsonl_lines(text: str | bytes) -> list[str] | list[bytes]:
    """The lines of JSON Lines text, split at line feeds only, each without its ``\\r``.

    JSON strings may hold U+2028, U+2029 and U+0085 unescaped (``json.dumps`` with
    ``ensure_ascii=False`` writes them so), and :meth:`str.splitlines` would cut a line
    at each. A lone ``\\r`` does not end a line. As with :meth:`str.splitlines`, a
    final line feed ends the last line rather than starting an empty one, so line
    numbers are those an editor shows.

    Examples
    --------
    >>> jsonl_lines('{"a": "x\\u2028y"}\\r\\n\\n[2]\\n')
    ['{"a": "x\\u2028y"}', '', '[2]']
    >>> jsonl_lines(b"1\\n2"), jsonl_lines("")
    ([b'1', b'2'], [])
    """
    if isinstance(text, str):
        return _split_lines(text, "\n", "\r")
    return _split_lines(text, b"\n", b"\r")


class JsonlLines(Sequence[str]):
    """The lines of JSON Lines data held as UTF-8 bytes, as :func:`jsonl_lines` splits
    them, each decoded when it is read.

    A file of millions of lines is held once, as its bytes: no ``str`` of the whole text
    and none of each line until it is read (the lines of a run are read one at a time,
    by the worker process scoring them).

    Parameters
    ----------
    data : bytes
        The text, UTF-8 encoded; a byte order mark at its start is skipped, as the
        ``utf-8-sig`` codec does.

    Raises
    ------
    UnicodeDecodeError
        When ``data`` is not UTF-8 (its ``start`` is the offset of the first bad byte
        in ``data``).

    Examples
    --------
    >>> lines = JsonlLines('\\ufeff{"a": "x\\u2028y"}\\r\\n\\n[2]\\n'.encode())
    >>> len(lines), lines[0], lines[2]
    (3, '{"a": "x\\u2028y"}', '[2]')
    >>> list(lines) == jsonl_lines('{"a": "x\\u2028y"}\\r\\n\\n[2]\\n')
    True
    >>> lines.filled().tolist(), lines.longest
    ([0, 2], 15)
    """

    __slots__ = ("_data", "_ends", "_filled", "_starts", "longest")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._starts, self._ends = array("q"), array("q")
        self._filled: array[int] | None = None
        self.longest = 0
        """The bytes of the longest line, its line feed left out."""
        start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        _check_utf8(data, start)
        carriage, size, longest = b"\r" in data, len(data), 0
        starts, ends = self._starts, self._ends
        while start < size:
            newline = data.find(b"\n", start)
            if newline < 0:
                newline = size
            if newline - start > longest:
                longest = newline - start
            starts.append(start)
            # the line's \r is left out (a line holding just one ends where it starts)
            ends.append(newline - 1 if carriage and newline > start
                        and data[newline - 1] == 0x0D else newline)
            start = newline + 1
        self.longest = longest

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._data[self._starts[index]:self._ends[index]].decode("utf-8")

    def filled(self) -> array[int]:
        """The positions of the lines that are not blank (``line.strip()`` is not
        empty), found once and without decoding a line that starts with a visible
        ASCII character."""
        if self._filled is None:
            data, ends = self._data, self._ends
            self._filled = array("q", (
                position for position, start in enumerate(self._starts)
                if start < ends[position] and (0x21 <= data[start] <= 0x7E
                                                or self[position].strip())))
        return array("q", self._filled)


def _check_utf8(data: bytes, start: int) -> None:
    """Raise the :class:`UnicodeDecodeError` of ``data[start:]``, its offset counted
    from the start of ``data``: decoded a part at a time (and thrown away), so that no
    ``str`` of the whole text is made."""
    view = memoryview(data)
    while start < len(data):
        # a part ends after a line feed, never inside a character
        stop = data.find(b"\n", min(start + _UTF8_PART, len(data)))
        stop = len(data) if stop < 0 else stop + 1
        try:
            str(view[start:stop], "utf-8")
        except UnicodeDecodeError as exc:
            raise UnicodeDecodeError("utf-8", data, start + exc.start, start + exc.end,
                                     exc.reason) from None
        start = stop


_UTF8_PART = 1 << 20
"""Bytes decoded at a time by :func:`_check_utf8`."""


def _split_lines(text: AnyStr, newline: AnyStr, carriage: AnyStr) -> list[AnyStr]:
    lines = text.split(newline)
    if not lines[-1]:  # after a final line feed, or an empty text
        lines.pop()
    if carriage in text:
        return [line.removesuffix(carriage) for line in lines]
    return lines


def _blank(match: re.Match[str]) -> str:
    """A comment or trailing comma as spaces (newlines kept); anything else unchanged."""
    blank = match.group("blank")
    return match.group() if blank is None else _NOT_NEWLINE.sub(" ", blank)


def strip_jsonc(text: str) -> str:
    """Blank out comments and trailing commas, keeping every offset in place.

    Returns ``text`` itself when it has no ``/`` and no trailing comma (plain JSON).

    >>> strip_jsonc('[1, /* two */ 2,]')
    '[1,           2 ]'
    >>> strip_jsonc('{"url": "http://x", "a": [1,], // c\\n}')
    '{"url": "http://x", "a": [1 ]      \\n}'
    """
    if "/" not in text and not _MAYBE_TRAILING.search(text):
        return text
    return _JSONC.sub(_blank, text)


# --------------------------------------------------------------------------- limits


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line}, column {offset - text.rfind(chr(10), 0, offset)}"


def _size_error(size: int, limits: Limits, what: str) -> OAError:
    return InputError("", f"{what} is {size:,} bytes, over the limit of "
                      f"{limits.max_input_bytes:,} bytes", fix="split the input, or raise "
                      "Limits.max_input_bytes")


def _utf8_size(text: str, limit: int) -> int:
    """The UTF-8 size of ``text``, exact when it may matter for ``limit``."""
    if len(text) * 4 <= limit:  # no character takes more than 4 bytes
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _may_be_deeper(text: str, limit: int) -> bool:
    """False when no value of ``text`` can be nested deeper than ``limit`` (fast)."""
    raw = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET)
    if len(raw) <= limit:
        return False
    # brackets inside strings count here (an upper bound), then not
    if _bracket_depth(raw) <= limit:
        return False
    return _bracket_depth(_STRINGS_AND_PLAIN.sub("", text).encode("ascii")) > limit


def _bracket_depth(brackets: bytes) -> int:
    """The deepest nesting of a string of brackets (any kind closes any kind)."""
    import numpy as np  # only for a long text, and the CLI starts without numpy

    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = ((codes == 91) | (codes == 123)).astype(np.int32) - (
        (codes == 93) | (codes == 125))
    return int(np.cumsum(steps).max(initial=0))


class _Frame:
    """One open object or array while scanning JSON text."""

    __slots__ = ("is_object", "key", "keys", "want_key")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.key: str | int = "" if is_object else 0
        self.keys: set[str] = set()
        self.want_key = is_object


# A problem found in JSON text: pointer, message, fix and the values the message shows.
Problem = tuple[str, str, str, tuple[Any, ...]]


def _first_problem(text: str, limits: Limits) -> Problem | None:
    """(pointer, message, fix, values) of the first problem in (stripped) JSON text, if
    any.

    Problems: a value nested deeper than ``limits.max_depth``, a repeated key in
    one object, a number that is not finite, an integer too long for ``int()``, a
    string or key holding a lone surrogate.
    One pass over the tokens; only run once the fast parser found a problem.
    """
    frames: list[_Frame] = []

    def pointer(frames: list[_Frame]) -> str:
        return join("", *(frame.key for frame in frames))

    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        top = frames[-1] if frames else None
        if top is not None and top.want_key and first == '"':
            try:
                key = json.loads(token)
            except ValueError:
                key = token
            if key in top.keys:
                return (pointer(frames[:-1]), f"duplicate key {preview_json(key)} at "
                        f"{_line_column(text, match.start())}",
                        "keep one member of that name", (key,))
            if isinstance(key, str) and (point := lone_surrogate(key)) is not None:
                message, fix = lone_surrogate_error(point, key=True)
                return (pointer(frames[:-1]), f"{message} at "
                        f"{_line_column(text, match.start())}", fix, ())
            top.keys.add(key)
            top.key = key
            top.want_key = False
            continue
        if first in "]}":
            if frames:
                frames.pop()
            continue
        if first == ",":
            if top is not None:
                if top.is_object:
                    top.want_key = True
                else:
                    top.key = int(top.key) + 1
            continue
        if first == ":":
            continue
        if len(frames) > limits.max_depth:
            return (pointer(frames), f"nested deeper than {limits.max_depth} levels at "
                    f"{_line_column(text, match.start())}",
                    "flatten the document, or raise Limits.max_depth", ())
        if first in "[{":
            frames.append(_Frame(first == "{"))
        elif first == '"':
            point = lone_surrogate(json.loads(token))
            if point is not None:
                message, fix = lone_surrogate_error(point, key=False)
                return (pointer(frames), f"{message} at {_line_column(text, match.start())}",
                        fix, ())
        elif token in ("NaN", "Infinity", "-Infinity"):
            return (pointer(frames), f"{token} is not valid JSON (numbers must be finite) "
                    f"at {_line_column(text, match.start())}",
                    "replace it with a finite number or null", ())
        elif first in "-0123456789":
            if any(c in token for c in ".eE"):
                if not math.isfinite(float(token)):
                    return (pointer(frames), f"number {token} is not finite (beyond about "
                            f"±1.8e308) at {_line_column(text, match.start())}",
                            "replace it with a finite number or null", ())
            else:
                try:
                    int(token)
                except ValueError:
                    return (pointer(frames), f"integer of {len(token.lstrip('-'))} digits, "
                            f"{INTEGER_OUT_OF_RANGE} at {_line_column(text, match.start())}",
                            INTEGER_OUT_OF_RANGE_FIX, ())
    return None


# --------------------------------------------------------------------------- loads

# What the engine's reader of plain JSON gives back for text it leaves to ``loads``.
_NOT_PLAIN = object()


class _Problems:
    """Hooks for :func:`json.loads` noting duplicate keys and non-finite numbers."""

    def __init__(self) -> None:
        self.found = False

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            self.found = True
        return obj

    def number(self, literal: str) -> float:
        value = float(literal)
        if value in (math.inf, -math.inf):
            self.found = True
        return value

    def parse(self, text: str) -> Any:
        return json.loads(text, parse_constant=_reject_constant, parse_float=self.number,
                          object_pairs_hook=self.pairs)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (numbers must be finite)")


def _as_text(text: str | bytes, limits: Limits, error: type[OAError],
             document: Document) -> str:
    """``text`` as a str without a BOM, within ``limits.max_input_bytes``."""
    size = len(text) if isinstance(text, bytes) else _utf8_size(text, limits.max_input_bytes)
    if size > limits.max_input_bytes:
        err = _size_error(size, limits, "the text")
        raise error("", err.message, fix=err.fix, document=document)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise error("", f"not UTF-8 text (byte {exc.start})",
                        fix="save the file as UTF-8 JSON", document=document) from None
    return text[1:] if text.startswith(_BOM) else text


def loads(text: str | bytes, *, document: Document = "candidate",
          limits: Limits | None = None) -> Any:
    """Parse JSON or JSONC text; raise a typed error with line and column.

    Parameters
    ----------
    text : str or bytes
        The text (UTF-8 if bytes); a leading byte order mark is ignored.
    document : {"schema", "gold", "candidate", "options"}
        Which input this is, for the error message. ``"schema"`` raises
        :class:`SchemaError`, everything else :class:`InputError`.
    limits : Limits, optional
        ``max_input_bytes`` bounds the text, ``max_depth`` the nesting.

    Raises
    ------
    InputError or SchemaError
        Invalid JSON (line and column); too big or too deep; a duplicate key, a
        number that is not finite or an integer too long to read (at its JSON
        Pointer, line and column).

    Examples
    --------
    >>> loads(b'\\xef\\xbb\\xbf[1]') == loads('\\ufeff[1]') == [1]
    True
    >>> try:
    ...     loads("[" * 16000)
    ... except InputError as err:
    ...     print(err.message)
    nested deeper than 100 levels at line 1, column 102
    """
    limits = limits or Limits()
    error = SchemaError if document == "schema" else InputError
    text = _as_text(text, limits, error, document)
    value = parse_plain_json(text, limits.max_depth, _NOT_PLAIN)
    if value is not _NOT_PLAIN:
        return value
    return _loads_worded(text, limits, error, document)


def loads_pair_line(text: str, *, limits: Limits) -> Any:
    """A line of ``oa batch`` (``{"gold": ..., "candidate": ...}``) as :func:`loads`
    reads it, its documents held to ``limits`` (they sit one level below the line).

    Parameters
    ----------
    text : str
    limits : Limits
        The documents' limits.

    Raises
    ------
    InputError
        As :func:`loads` with ``document="options"``.

    Examples
    --------
    >>> loads_pair_line('{"gold": [1], "candidate": [2]}', limits=Limits())
    {'gold': [1], 'candidate': [2]}
    """
    return loads(text, document="options", limits=_line_limits(limits))


@functools.lru_cache(maxsize=8)
def _line_limits(limits: Limits) -> Limits:
    """The limits of a whole pairs line: its documents sit one level down (made once,
    not per line)."""
    return replace(limits, max_depth=limits.max_depth + 1)


def _loads_worded(text: str, limits: Limits, error: type[OAError], document: Document) -> Any:
    """:func:`loads` of a text the engine's reader did not take: JSONC, or a problem to
    name, read here, where every refusal is worded."""
    if not text.strip():
        raise error("", "the text is empty", fix="provide a JSON value", document=document)
    problems = _Problems()
    source = text
    try:  # plain JSON first: the C parser, no comment stripping
        value = problems.parse(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        source = strip_jsonc(text)
        if source is text and isinstance(exc, json.JSONDecodeError):
            _check_depth(source, limits, error, document)
            raise _syntax_error(exc, error, document) from None
        value = _parse_stripped(source, problems, limits, error, document)
    except ValueError as exc:  # an integer too long for int(), NaN, Infinity
        raise _problem(strip_jsonc(text), limits, error, document, str(exc)) from None
    else:
        _check_depth(source, limits, error, document)
    if problems.found:
        raise _problem(source, limits, error, document, "a duplicate key or a number that "
                       "is not finite")
    if _SURROGATE_ESCAPE.search(source) or lone_surrogate(source) is not None:
        found = _first_problem(source, limits)  # a lone one, or a pair (no problem)
        if found is not None:
            raise _located(found, error, document)
    return value


# An escaped surrogate (of a pair, or lone): the text is looked at closer.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _problem(source: str, limits: Limits, error: type[OAError], document: Document,
             fallback: str) -> OAError:
    """The first problem of ``source``, at its pointer, line and column."""
    found = _first_problem(source, limits)
    if found is None:
        return error("", f"invalid JSON: {fallback}", fix="correct the JSON there",
                     document=document)
    return _located(found, error, document)


def _syntax_error(exc: json.JSONDecodeError, error: type[OAError],
                  document: Document) -> OAError:
    where = f"line {exc.lineno}, column {exc.colno}"
    text = exc.doc
    if exc.msg.startswith("Unterminated string"):
        message = (f"invalid JSON: unterminated string: it opens at {where} and the text "
                   f"ends before its closing quote (is the file cut off?): "
                   f"{_excerpt(text, exc.pos)}")
        return error("", message, fix="close the string, or give the whole file",
                     document=document)
    if exc.pos >= len(text.rstrip()):
        opened = _unclosed(text)
        what = (f"{opened[0]} opened at {_line_column(text, opened[1])} is never closed"
                if opened else "a value is missing")
        message = (f"invalid JSON: the text ends at {where} before the value is complete "
                   f"(is the file cut off?): {what}; it ends with "
                   f"{_excerpt(text, len(text.rstrip()), before=True)}")
        return error("", message, fix="give the whole file, or close what is open",
                     document=document)
    return error("", f"invalid JSON at {where}: {exc.msg}",
                 fix="correct the JSON syntax there", document=document)


_EXCERPT = 40
_BRACKETS_AND_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def _excerpt(text: str, offset: int, *, before: bool = False) -> str:
    """A few characters of ``text`` from ``offset`` (or up to it), on one line, quoted.

    >>> _excerpt('{"name": "Ann', 9)
    '`"Ann`'
    >>> _excerpt("[1, 2," + " 3," * 30, 96, before=True)
    '`…, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,`'
    """
    start, end = (max(offset - _EXCERPT, 0), offset) if before else (
        offset, min(offset + _EXCERPT, len(text)))
    piece = " ".join(text[start:end].split())
    if before:
        return f"`{'…' if start > 0 else ''}{piece}`"
    return f"`{piece}{'…' if end < len(text.rstrip()) else ''}`"


def _unclosed(text: str) -> tuple[str, int] | None:
    """The innermost object or array of ``text`` that never closes (kind, offset)."""
    stack: list[tuple[str, int]] = []
    for match in _BRACKETS_AND_STRINGS.finditer(text):
        char = match.group()
        if char in "[{":
            stack.append(("an object" if char == "{" else "an array", match.start()))
        elif char in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _located(found: Problem, error: type[OAError], document: Document) -> OAError:
    pointer, message, fix, values = found
    return error(pointer, message, fix=fix, document=document, values=values)


def _check_depth(text: str, limits: Limits, error: type[OAError],
                 document: Document) -> None:
    if _may_be_deeper(text, limits.max_depth):
        found = _first_problem(text, limits)
        if found is not None and found[1].startswith("nested deeper"):
            raise _located(found, error, document)


def _parse_stripped(source: str, problems: _Problems, limits: Limits,
                    error: type[OAError], document: Document) -> Any:
    """Parse JSONC text whose comments and trailing commas are blanked."""
    _check_depth(source, limits, error, document)  # before the recursive parser
    problems.found = False
    try:
        return problems.parse(source)
    except json.JSONDecodeError as exc:
        raise _syntax_error(exc, error, document) from None
    except RecursionError:
        raise error("", "nested too deeply to read", fix="flatten the document",
                    document=document) from None
    except ValueError as exc:
        raise _problem(source, limits, error, document, str(exc)) from None


# --------------------------------------------------------------------------- extract_json


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)```", re.DOTALL)
_OPENING = re.compile(r"[\[{]")
# Inside a candidate span: a JSON string (on one line, as JSON requires) or a bracket.
_INSIDE = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|[\[\]{}]')
MAX_SPANS = 10_000
"""Candidate spans :func:`extract_json` tries at most (each is parsed at most once)."""


def _candidate_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the balanced ``{...}``/``[...]`` spans worth parsing, in order.

    One scan. Outside brackets, quotes are prose and ignored; inside, JSON strings
    are skipped. Yields the outermost balanced spans, and inside a bracket that never
    closes, the outermost balanced spans within it. Spans never overlap, so parsing
    them all reads each character at most once.
    """
    opened: list[int] = []
    closed: list[tuple[int, int]] = []  # balanced spans not yet known to be outermost
    pos = 0
    while True:
        match = (_INSIDE if opened else _OPENING).search(text, pos)
        if match is None:
            break
        pos = match.end()
        char = match.group()[0]
        if char in "[{":
            opened.append(match.start())
        elif char in "]}":
            start = opened.pop()
            while closed and closed[-1][0] > start:
                closed.pop()
            closed.append((start, pos))
            if not opened:
                yield from closed
                closed.clear()
    yield from closed


def extract_json(text: str, *, limits: Limits | None = None) -> Any:
    """Find the one JSON value in raw model output.

    Tries, in order: the whole text; the contents of the first fenced code block;
    the first outermost balanced ``{...}`` or ``[...]`` span that parses (a span
    inside one that fails is not tried, unless the outer bracket never closes).
    Raises :class:`InputError` (document "candidate") saying why nothing was found.

    The work is linear in the length of the text: one scan finds the candidate
    spans, which do not overlap, and each is parsed at most once (at most
    :data:`MAX_SPANS` of them). A text over ``limits.max_input_bytes`` is refused.

    >>> extract_json('Sure! ```json\\n{"a": 1}\\n``` Hope this helps.')
    {'a': 1}
    >>> extract_json('The answer is [1, 2] as requested.')
    [1, 2]
    >>> extract_json('He said "no. Then {"a": [1, 2], "b": "}"} and [3]')
    {'a': [1, 2], 'b': '}'}
    """
    limits = limits or Limits()
    size = _utf8_size(text, limits.max_input_bytes)
    if size > limits.max_input_bytes:
        raise _size_error(size, limits, "the model output")
    stripped = text.strip().removeprefix(_BOM)
    if not stripped:
        raise InputError("", "the model output is empty",
                         fix="make the model answer with one JSON value")
    try:
        return loads(stripped, limits=limits)
    except InputError as exc:
        first_error = exc
    fence = _FENCE.search(text)
    if fence:
        return loads(fence.group(1), limits=limits)
    offset = text.find(stripped)
    whole = (offset, offset + len(stripped))
    reason = first_error.message  # why the first bracketed span failed, if there is one
    for tried, (start, end) in enumerate(_candidate_spans(text)):
        if tried >= MAX_SPANS:
            raise InputError("", f"the model output holds no JSON value in its first "
                             f"{MAX_SPANS:,} bracketed spans ({reason})",
                             fix="make the model answer with one JSON object or array")
        if (start, end) == whole:
            continue  # already tried as the whole text
        try:
            return loads(text[start:end], limits=limits)
        except InputError as exc:
            if tried == 0 and whole[0] != start:
                line = text.count("\n", 0, start) + 1
                where = f"line {line}, column {start - text.rfind(chr(10), 0, start)}"
                reason = f"in the bracketed span from {where}: {exc.message}"
    raise InputError("", f"the model output holds no JSON value ({reason})",
                     fix="make the model answer with one JSON object or array")
