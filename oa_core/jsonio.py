"""Reading JSON and JSONC text with errors that say where.

JSONC is JSON plus ``//`` and ``/* */`` comments and trailing commas; comments
are blanked out (not removed) so that reported line and column numbers stay those
of the original text.

Examples
--------
>>> loads('{"a": 1, // one\\n "b": [2, 3,],}', document="gold")
{'a': 1, 'b': [2, 3]}
>>> try:
...     loads('{"a": }', document="candidate")
... except InputError as err:
...     print(err.message)
invalid JSON at line 1, column 7: Expecting value
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .errors import (
    INTEGER_OUT_OF_RANGE,
    INTEGER_OUT_OF_RANGE_FIX,
    Document,
    InputError,
    SchemaError,
)
from .pointer import join

__all__ = ["extract_json", "loads", "strip_jsonc"]

def strip_jsonc(text: str) -> str:
    """Blank out comments and trailing commas, keeping every offset in place."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
        elif ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i = end
        else:
            out.append(ch)
            i += 1
    return _blank_trailing_commas("".join(out))


def _structural(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, character) of every character outside JSON strings, from ``start``."""
    in_string = False
    i = start
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        else:
            yield i, ch
        i += 1


def _blank_trailing_commas(text: str) -> str:
    """Blank every comma that only white space separates from a closing bracket."""
    result = list(text)
    for i, ch in _structural(text):
        if ch == ",":
            j = i + 1
            while j < len(text) and text[j] in " \t\r\n":
                j += 1
            if j < len(text) and text[j] in "}]":
                result[i] = " "
    return "".join(result)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (numbers must be finite)")


def _pointer_of(value: Any, target: object) -> str:
    """JSON Pointer of the node that is ``target`` (by identity) inside ``value``."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, pointer = stack.pop()
        if node is target:
            return pointer
        if isinstance(node, dict):
            stack.extend((child, join(pointer, key)) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, join(pointer, i)) for i, child in enumerate(node))
    raise LookupError("target is not inside value")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r} in one object")
        obj[key] = value
    return obj


def loads(text: str | bytes, *, document: Document = "candidate") -> Any:
    """Parse JSON or JSONC text; raise a typed error with line and column.

    Parameters
    ----------
    text : str or bytes
        The text (UTF-8 if bytes).
    document : {"schema", "gold", "candidate", "options"}
        Which input this is, for the error message. ``"schema"`` raises
        :class:`SchemaError`, everything else :class:`InputError`.
    """
    error = SchemaError if document == "schema" else InputError
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise error("", f"not UTF-8 text (byte {exc.start})",
                        fix="save the file as UTF-8 JSON", document=document) from None
    if not text.strip():
        raise error("", "the text is empty", fix="provide a JSON value", document=document)
    # int() refuses literals over sys.get_int_max_str_digits() (4300) digits, and the
    # parser knows no position then: such a literal becomes a unique placeholder whose
    # JSON Pointer is looked up once parsing is done.
    oversized: list[tuple[str, object]] = []

    def parse_int(literal: str) -> int | object:
        try:
            return int(literal)
        except ValueError:
            oversized.append((literal, object()))
            return oversized[-1][1]

    try:
        value = json.loads(strip_jsonc(text), parse_constant=_reject_constant,
                           parse_int=parse_int, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise error("", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
                    fix="correct the JSON syntax there", document=document) from None
    except (ValueError, RecursionError) as exc:
        raise error("", f"invalid JSON: {exc}", fix="correct the JSON there",
                    document=document) from None
    if oversized:  # the first one in the text is the first in document order
        literal, placeholder = oversized[0]
        raise error(_pointer_of(value, placeholder),
                    f"integer of {len(literal.lstrip('-'))} digits, {INTEGER_OUT_OF_RANGE}",
                    fix=INTEGER_OUT_OF_RANGE_FIX, document=document)
    return value


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any:
    """Find the one JSON value in raw model output.

    Tries, in order: the whole text; the contents of the first fenced code block;
    the first balanced ``{...}`` or ``[...]`` span that parses. Raises
    :class:`InputError` (document "candidate") saying why nothing was found.

    >>> extract_json('Sure! ```json\\n{"a": 1}\\n``` Hope this helps.')
    {'a': 1}
    >>> extract_json('The answer is [1, 2] as requested.')
    [1, 2]
    """
    stripped = text.strip()
    if not stripped:
        raise InputError("", "the model output is empty",
                         fix="make the model answer with one JSON value")
    first_error: InputError | None = None
    try:
        return loads(stripped)
    except InputError as exc:
        first_error = exc
    fence = _FENCE.search(text)
    if fence:
        return loads(fence.group(1))
    for start, ch in enumerate(text):
        if ch not in "{[":
            continue
        end = _balanced_end(text, start)
        if end is not None:
            try:
                return loads(text[start:end])
            except InputError:
                continue
    raise InputError("", f"the model output holds no JSON value ({first_error.message})",
                     fix="make the model answer with one JSON object or array")


def _balanced_end(text: str, start: int) -> int | None:
    depth = 0
    for i, ch in _structural(text, start):
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None
