"""Typed errors and structured diagnostics.

Every problem the library reports names *where* it is (a JSON Pointer into the
schema, the gold or the candidate document) and *what to do* about it.

Examples
--------
>>> err = SchemaError("/properties/age/threshold", "threshold must be in [0, 1]",
...                   fix="use a number between 0 and 1")
>>> str(err)
'schema /properties/age/threshold: threshold must be in [0, 1] (fix: use a number between 0 and 1)'

Every value a message shows goes through :func:`preview_json`: JSON (not a Python
repr), cut to a readable length with its size, built lazily so that a message about a
5 MB document costs no more than one about a small one. The full value stays on the
error or diagnostic (``values``), one flag away in the command line
(``--full-values``).

>>> preview_json([{"id": i, "name": f"Person {i}"} for i in range(20_000)], 64)
'[{"id": 0, "name": "Person 0"}, {"id": 1, "name": "Person 1"}, … (20,000 items)'
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["PREVIEW_LIMIT", "ComparatorError", "Diagnostic", "InputError", "OAError",
           "SchemaError", "json_prefix", "lone_surrogate", "lone_surrogate_error",
           "preview_json"]

PREVIEW_LIMIT = 100
"""Characters of JSON a message shows of one value (then "…" and the value's size)."""

Document = Literal["schema", "gold", "candidate", "options"]


class OAError(ValueError):
    """Base class of every error raised on bad input.

    Parameters
    ----------
    document : {"schema", "gold", "candidate", "options"}
        Which input the problem is in.
    pointer : str
        RFC 6901 JSON Pointer into that document ("" is the root).
    message : str
        What is wrong.
    fix : str, optional
        What the user should do about it.
    values : tuple, optional
        The document values the message is about, in full (the message shows them cut
        by :func:`preview_json`).
    """

    document: Document = "schema"

    def __init__(self, pointer: str, message: str, *, fix: str = "",
                 document: Document | None = None, values: tuple[Any, ...] = ()) -> None:
        if document is not None:
            self.document = document
        self.pointer = pointer
        self.message = message
        self.fix = fix
        self.values = values
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.document} {self.pointer or '/'}" if self.pointer != "" else (
            f"{self.document} (root)")
        text = f"{where}: {self.message}"
        return f"{text} (fix: {self.fix})" if self.fix else text

    def to_dict(self) -> dict[str, str]:
        """The error as plain data (for JSON output and the explorer)."""
        return {"type": type(self).__name__, "document": self.document,
                "pointer": self.pointer, "message": self.message, "fix": self.fix}


class SchemaError(OAError):
    """The OA schema is invalid; ``pointer`` points into the schema."""

    document: Document = "schema"


class InputError(OAError):
    """Gold, candidate or an option is unusable; ``document`` says which."""

    document: Document = "candidate"


class ComparatorError(InputError):
    """A custom comparator raised or broke its contract (a number in [0, 1]).

    ``pointer`` names the schema keyword that selects the comparator (``.../score`` or
    ``.../keyScore``); the comparator's own exception, if any, is chained as
    ``__cause__``.
    """

    document: Document = "schema"

    def __init__(self, pointer: str, message: str, *, comparator: str, fix: str = "",
                 document: Document | None = None, values: tuple[Any, ...] = ()) -> None:
        self.comparator = comparator
        super().__init__(pointer, message, fix=fix, document=document, values=values)

    def at(self, pointer: str) -> ComparatorError:
        """The same error, naming the schema keyword at ``pointer``."""
        located = ComparatorError(pointer, self.message, comparator=self.comparator,
                                  fix=self.fix, document=self.document, values=self.values)
        located.__cause__ = self.__cause__
        return located


# An integer no float64 can hold, refused both while reading JSON text (jsonio) and
# when checking documents given as Python values (validation): one wording for both.
INTEGER_OUT_OF_RANGE = "beyond the range of a number (about ±1.8e308)"
INTEGER_OUT_OF_RANGE_FIX = "write it as a string if it is an identifier, or scale it down"
# The largest finite float64 as an exact integer: an integer is out of range when its
# magnitude exceeds it.
LARGEST_FLOAT_INTEGER = int(sys.float_info.max)


def lone_surrogate(text: str) -> int | None:
    r"""The first lone surrogate (U+D800..U+DFFF) ``text`` holds, as a code point, or
    None: such a string has no UTF-8 form, so it is no Unicode text (a JSON text may
    escape one, ``"\ud800"``, and a Python ``str`` may hold one).

    >>> lone_surrogate("caf\u00e9"), hex(lone_surrogate("a\ud800b"))
    (None, '0xd800')
    """
    if text.isascii():
        return None  # the common case, without encoding
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return ord(text[error.start])
    return None


def lone_surrogate_error(point: int, *, key: bool) -> tuple[str, str]:
    """The message and fix of a string (or, ``key``, an object key) holding the lone
    surrogate ``point``: one wording for documents and schemas.

    >>> lone_surrogate_error(0xD800, key=False)[0]
    'a string holds a lone surrogate (U+D800), which is not Unicode text'
    """
    what = "an object key" if key else "a string"
    return (f"{what} holds a lone surrogate (U+{point:04X}), which is not Unicode text",
            "decode the source as UTF-8, or replace the character")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning or a schema violation: a code, where, and a message.

    ``document`` is one of "schema", "gold", "candidate". ``values`` holds the
    document values the message is about, in full (the message shows them cut by
    :func:`preview_json`), so that a page can offer "show full"; they take no part in
    equality and are left out of :meth:`to_dict`.

    >>> diag = Diagnostic("schema-violation", "candidate", "", '[1, 2] is not of type '
    ...                   '"object"', values=([1, 2],))
    >>> diag.to_dict()["message"], diag.values
    ('[1, 2] is not of type "object"', ([1, 2],))
    """

    code: str
    document: str
    pointer: str
    message: str
    values: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "document": self.document, "pointer": self.pointer,
                "message": self.message}

    def __str__(self) -> str:
        return f"[{self.code}] {self.document} {self.pointer or '(root)'}: {self.message}"


# --------------------------------------------------------------------------- previews


def preview_json(value: Any, limit: int | None = PREVIEW_LIMIT, *,
                 python: bool = False) -> str:
    """``value`` as JSON for a message: whole when short, else cut with its size.

    The text is made piece by piece and stops once it is ``limit`` characters long,
    so a huge value costs no more than a small one (no full repr or dump is built).
    A cut text ends with "…" and the size of the whole value (items of an array, keys
    of an object, characters of a string). A value that is not JSON (a tuple key, a
    set) is shown by its Python repr.

    Parameters
    ----------
    value : Any
        The value to show.
    limit : int or None
        At most this many characters of JSON before the "…"; ``None`` gives the whole
        value (what ``--full-values`` prints).
    python : bool
        Write Python literals instead of JSON (``'a'``, ``True``, ``None``): the
        paper's figure of the optimizer feedback does.

    Examples
    --------
    >>> preview_json({"name": "Eve", "ok": True, "n": None})
    '{"name": "Eve", "ok": true, "n": null}'
    >>> preview_json("x" * 5_000_000, 12)
    '"xxxxxxxxxx… (5,000,000 characters)'
    >>> preview_json({"a": list(range(100))}, 20)
    '{"a": [0, 1, 2, 3, … (1 key)'
    >>> preview_json({"a": 1}, None)
    '{"a": 1}'
    >>> preview_json({"id": 6, "name": "Eve", "ok": None}, python=True)
    "{'id': 6, 'name': 'Eve', 'ok': None}"
    """
    if limit is None:
        if python:
            return repr(value)
        try:
            return json.dumps(value, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):  # non-string keys of several types, a cycle
            return repr(value)
    # a message shows several values, most of them small: their whole text is taken
    # here, without json_prefix's call
    whole = _whole_text(value, limit + 1, python)
    text = json_prefix(value, limit + 1, python=python) if whole is None else whole[:limit + 1]
    if len(text) <= limit:
        return text
    text = text[: max(limit - 1, 0)].rstrip()
    size = _size(value)
    return f"{text}{' ' * text.endswith(',')}…" + (f" ({size})" if size else "")


# isinstance's tuples, made once (``dict | list`` makes a union at each call): every
# value a message shows asks
_CONTAINERS = (dict, list)
# json.dumps(value, ensure_ascii=False), its encoder made once rather than per call
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False).encode
_BOOL_OR_FLOAT = (bool, float)


def json_prefix(value: Any, length: int, *, python: bool = False) -> str:
    """The first ``length`` characters of ``value``'s JSON text (all of it when
    shorter), made piece by piece: the rest is never built.

    >>> json_prefix({"a": [1, 2, 3]}, 9), json_prefix([1], 9)
    ('{"a": [1,', '[1]')
    """
    whole = _whole_text(value, length, python)
    if whole is not None:
        return whole[:length]
    if not isinstance(value, _CONTAINERS):  # one piece
        return _scalar(value, length, python)[:length]
    pieces: list[str] = []
    total = 0
    for piece in _pieces(value, length, python):
        pieces.append(piece)
        total += len(piece)
        if total >= length:
            break
    return "".join(pieces)[:length]


# the types whose text is the same whole or piece by piece: a str no longer than the
# text asked for (cut, its repr could switch quotes) and an int of at most 64 bits
# (str() refuses some huge ones), exact types only (a subclass may write itself
# otherwise)
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def _whole_text(value: Any, budget: int, python: bool) -> str | None:
    """The whole text of a small value of plain JSON (most a message shows), written at
    once by repr or the C encoder: the text its pieces would join. None for a value that
    is not plain JSON or whose text may be longer than ``budget``."""
    if _whole_within(value, budget) < 0:
        return None
    return repr(value) if python else _JSON_TEXT(value)


def _whole_within(value: Any, budget: int) -> int:
    """What is left of ``budget`` (characters) once ``value``'s text is paid for, at
    least one per value, or -1 when it is not plain JSON of dicts with str keys,
    lists and :data:`_PLAIN_TYPES` within it (a cycle exhausts it)."""
    if budget < 0:  # also what bounds the recursion: each level costs a character
        return -1
    kind = type(value)
    if kind is dict:
        for key, child in value.items():
            if type(key) is not str:
                return -1
            budget = _whole_within(child, budget - len(key) - 1)
            if budget < 0:
                return -1
        return budget - 1
    if kind is list:
        for child in value:
            budget = _whole_within(child, budget - 1)
            if budget < 0:
                return -1
        return budget - 1
    if kind not in _PLAIN_TYPES:
        return -1
    if kind is str:
        return budget - len(value) - 1
    if kind is int and not -(1 << 63) <= value < 1 << 63:
        return -1
    return budget - 1


def _size(value: Any) -> str:
    if isinstance(value, str):
        return f"{len(value):,} character{'s' * (len(value) != 1)}"
    if isinstance(value, dict):
        return f"{len(value):,} key{'s' * (len(value) != 1)}"
    if isinstance(value, list | tuple):
        return f"{len(value):,} item{'s' * (len(value) != 1)}"
    return ""


def _scalar(value: Any, limit: int, python: bool) -> str:
    if isinstance(value, str):
        # one character more than shown, so the caller sees it was cut
        return repr(value[: limit + 1]) if python else json.dumps(value[: limit + 1],
                                                                  ensure_ascii=False)
    if value is None or isinstance(value, _BOOL_OR_FLOAT):
        return repr(value) if python else json.dumps(value)
    if isinstance(value, int):
        try:
            return str(value)[: limit + 1]
        except ValueError:  # more digits than Python converts to text
            return f"(an integer of {value.bit_length():,} bits)"
    return repr(value)[: limit + 1]


def _pieces(value: Any, limit: int, python: bool) -> Iterator[str]:
    """The JSON text of ``value`` in pieces, depth first (the caller stops early; a
    value nested deeper than ``limit`` is never reached, as each level costs a
    character)."""
    if isinstance(value, dict):
        yield "{"
        for index, (key, child) in enumerate(value.items()):
            yield (", " if index else "") + _scalar(key if isinstance(key, str) else
                                                     str(key), limit, python) + ": "
            yield from _pieces(child, limit, python)
        yield "}"
    elif isinstance(value, list):
        yield "["
        for index, child in enumerate(value):
            if index:
                yield ", "
            yield from _pieces(child, limit, python)
        yield "]"
    else:
        yield _scalar(value, limit, python)
