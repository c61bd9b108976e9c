"""Checking gold and candidate documents before they are scored.

Three checks, each naming the JSON Pointer of the problem:

* the value is JSON (dicts with string keys, lists, strings, finite numbers,
  booleans, null) within :class:`~oa_core.options.Limits` (nesting depth, items per
  array or object, characters per string), its strings and keys Unicode text (no
  lone surrogate: :func:`~oa_core.errors.lone_surrogate`);
* the gold satisfies the schema's standard JSON Schema keywords (an error
  otherwise: a gold that breaks its own schema is a bug in the gold or schema);
* the candidate's violations of those keywords are reported, not raised (by
  default they do not change the score; ``strict=True`` makes any violation
  score 0).

Whether there is any problem is answered first, fast: by the Rust conversion of the
document (:func:`~oa_core._engine.is_plain_json`) and the schema's assertions checked
natively (:func:`~oa_core._engine.schema_shape`: ``type``, ``properties``,
``required``, ``additionalProperties``, ``prefixItems``, ``items``, ``enum``,
``const``, the number bounds, the size bounds and ``uniqueItems``), else by
``jsonschema``'s own ``is_valid``. Only a document with a problem is walked again, to
describe it.

A violation's message shows the values it is about as JSON cut to a readable length
(:func:`~oa_core.errors.preview_json`); the full value is the diagnostic's ``values``.
``jsonschema`` writes each message with the Python repr of the value, built at once:
here it validates with keyword functions that see each value through a stand-in
whose repr is that preview, so a violation of a 5 MB candidate costs no 5 MB repr.

>>> schema = Schema.parse({"type": "object", "required": ["name"]})
>>> (violation,) = schema_violations(list(range(20_000)), schema, "candidate")
>>> violation.message[-48:], len(violation.values[0])
('25, 26, … (20,000 items) is not of type "object"', 20000)
>>> [d.message for d in schema_violations({}, schema, "candidate")]
['"name" is a required property']
"""

from __future__ import annotations

import json
import math
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError

from ._engine import SchemaShape, is_plain_json, schema_shape
from .errors import (
    INTEGER_OUT_OF_RANGE,
    INTEGER_OUT_OF_RANGE_FIX,
    LARGEST_FLOAT_INTEGER,
    Diagnostic,
    Document,
    InputError,
    lone_surrogate,
    lone_surrogate_error,
    preview_json,
)
from .options import Limits
from .pointer import join
from .schema import Schema

__all__ = ["check_json", "is_valid", "schema_violations", "schema_warnings"]



def check_json(value: Any, document: Document, limits: Limits | None = None) -> None:
    """Raise :class:`InputError` where ``value`` is not plain JSON or exceeds ``limits``.

    >>> check_json({"a": [1, 2.5, None, True, "x"]}, "gold")
    >>> try:
    ...     check_json({"a": [1, float("nan")]}, "candidate")
    ... except InputError as err:
    ...     print(err.pointer, err.message)
    /a/1 numbers must be finite, got NaN
    """
    limits = limits or Limits()
    if is_plain_json(value, limits):
        return  # the common case, without building a pointer per value
    # a problem to describe (or a document nested deeper than the Rust engine
    # follows, which the engine refuses when it scores it)
    raise_first_problem(value, document, limits)


def raise_first_problem(value: Any, document: Document, limits: Limits) -> None:
    """The slow walk of :func:`check_json`: raise at the first problem in document
    order (an object's keys all before its values), with its pointer (returns when
    there is none)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, pointer, depth = stack.pop()
        if depth > limits.max_depth:
            raise InputError(pointer, f"nested deeper than {limits.max_depth} levels",
                             fix="flatten the document, or raise Limits.max_depth",
                             document=document)
        if isinstance(node, dict | list) and len(node) > limits.max_items:
            raise InputError(pointer, f"{len(node):,} items, over the limit of "
                             f"{limits.max_items:,}", fix="split the document, or raise "
                             "Limits.max_items", document=document)
        if isinstance(node, str) and len(node) > limits.max_string_length:
            raise InputError(pointer, f"a string of {len(node):,} characters, over the limit "
                             f"of {limits.max_string_length:,}", fix="shorten it, or raise "
                             "Limits.max_string_length (edit distances take time quadratic "
                             "in the length)", document=document)
        if isinstance(node, str) and (point := lone_surrogate(node)) is not None:
            message, fix = lone_surrogate_error(point, key=False)
            raise InputError(pointer, message, fix=fix, document=document)
        if isinstance(node, dict):
            children = []
            for key, child in node.items():
                if not isinstance(key, str):
                    raise InputError(pointer, f"object key {preview_json(key)} is not a "
                                     "string", fix="use string keys", document=document,
                                     values=(key,))
                if (point := lone_surrogate(key)) is not None:
                    message, fix = lone_surrogate_error(point, key=True)
                    raise InputError(pointer, message, fix=fix, document=document)
                children.append((child, join(pointer, key), depth + 1))
            stack.extend(reversed(children))  # popped in document order
        elif isinstance(node, list):
            stack.extend((node[i], join(pointer, i), depth + 1)
                         for i in range(len(node) - 1, -1, -1))
        elif isinstance(node, int) and not isinstance(node, bool):
            if abs(node) > LARGEST_FLOAT_INTEGER:
                raise InputError(pointer, f"integer {INTEGER_OUT_OF_RANGE}",
                                 fix=INTEGER_OUT_OF_RANGE_FIX, document=document)
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise InputError(pointer, f"numbers must be finite, got {preview_json(node)}",
                                 fix="replace it with a finite number or null",
                                 document=document)
        elif not (node is None or isinstance(node, str | int | bool)):
            raise InputError(pointer, f"{type(node).__name__} is not a JSON value",
                             fix="convert it to a JSON type (object, array, string, number, "
                             "boolean, null)", document=document)


def _sort_key(error: ValidationError) -> tuple[str, str]:
    return (join("", *error.absolute_path), error.message)


# --------------------------------------------------------------------------- messages


class _QuietList(list[Any]):
    """A list whose repr is its JSON preview (a slice of it too)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return preview_json(self)

    def __getitem__(self, index: Any) -> Any:
        return _quiet(list.__getitem__(self, index))


class _QuietDict(dict[Any, Any]):
    """A dict whose repr is its JSON preview; its keys (iterated) are quiet strings,
    so "'x' was unexpected" reads ``"x" was unexpected``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return preview_json(self)

    def __iter__(self) -> Iterator[Any]:
        return map(_quiet, dict.__iter__(self))


class _QuietStr(str):
    """A string whose repr is its JSON preview."""

    __slots__ = ()

    def __repr__(self) -> str:
        return preview_json(str(self))


def _quiet(value: Any) -> Any:
    """``value`` as a stand-in whose repr is :func:`preview_json` (same type family, so
    the validator's type checks and comparisons see the same value)."""
    if isinstance(value, _QuietList | _QuietDict | _QuietStr):
        return value
    if isinstance(value, list):
        return _QuietList(value)
    if isinstance(value, dict):
        return _QuietDict(value)
    if isinstance(value, str):
        return _QuietStr(value)
    return value


# Keywords whose own value is data the message repeats (a type name, a required
# property, an enum): their items are shown as JSON too.
_DATA_KEYWORDS = frozenset({"type", "required", "enum", "const", "pattern",
                            "dependentRequired"})
# Keywords whose message repeats the value checked (or its keys or items); the others
# only hand parts of it on, and need no stand-in (a copy per call).
_SHOWING_KEYWORDS = frozenset({
    "type", "enum", "const", "contains", "minItems", "maxItems", "uniqueItems", "pattern",
    "minLength", "maxLength", "minProperties", "maxProperties", "anyOf", "oneOf", "not",
    "items", "prefixItems", "additionalProperties", "unevaluatedProperties",
    "unevaluatedItems"})

KeywordFunction = Callable[[Any, Any, Any, Any], Any]


def _quiet_keyword(keyword: str, function: KeywordFunction) -> KeywordFunction:
    data = keyword in _DATA_KEYWORDS
    showing = keyword in _SHOWING_KEYWORDS
    typed = keyword == "type"

    def check(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        if typed and any(validator.is_type(instance, name) for name in (
                [value] if isinstance(value, str) else value)):
            return ()  # the common case: no error, no stand-in
        if data:
            value = _QuietList(map(_quiet, value)) if type(value) is list else _quiet(value)
        return function(validator, value, _quiet(instance) if showing else instance, schema)

    return check


_QuietValidator = validators.extend(Draft202012Validator, validators={
    keyword: _quiet_keyword(keyword, function)
    for keyword, function in Draft202012Validator.VALIDATORS.items()})

# Each parsed schema's native shape (None when it asserts more than a shape checks)
# and quiet validator, made on first use.
_SHAPES: weakref.WeakKeyDictionary[Schema, SchemaShape | None] = weakref.WeakKeyDictionary()
_QUIET: weakref.WeakKeyDictionary[Schema, Any] = weakref.WeakKeyDictionary()
_MISSING = object()
# The keywords jsonschema acts on: a subschema using one the shape does not check
# leaves the schema to jsonschema.
_ACTIVE = frozenset(Draft202012Validator.VALIDATORS)


def _shape(schema: Schema) -> SchemaShape | None:
    found = _SHAPES.get(schema, _MISSING)
    if found is _MISSING:
        found = _SHAPES[schema] = schema_shape(schema.raw, _ACTIVE)
    return found  # type: ignore[return-value]


def _quiet_validator(schema: Schema) -> Any:
    found = _QUIET.get(schema)
    if found is None:
        found = _QUIET[schema] = _QuietValidator(schema.raw)
    return found


def is_valid(document: Any, schema: Schema) -> bool:
    """Whether ``document`` satisfies the schema's standard keywords: ``jsonschema``'s
    ``is_valid``, answered natively where the schema's shape covers it (else by the
    quiet validator, so that a violation's message builds no full repr either).

    >>> schema = Schema.parse({"type": "array", "items": {"enum": [1, "a"]},
    ...                        "uniqueItems": True})
    >>> is_valid([1.0, "a"], schema), is_valid([1, 1.0], schema), is_valid([True], schema)
    (True, False, False)
    """
    shape = _shape(schema)
    verdict = None if shape is None else shape.verdict(document)
    if verdict is None:
        return bool(_quiet_validator(schema).is_valid(document))
    return verdict


def _unquiet(value: Any) -> Any:
    """The plain value behind a stand-in (a nested keyword may hand one on)."""
    if isinstance(value, _QuietList):
        return list(value)
    if isinstance(value, _QuietDict):
        return dict(value.items())
    if isinstance(value, _QuietStr):
        return str(value)
    return value


def schema_violations(document: Any, schema: Schema, which: str) -> list[Diagnostic]:
    """Every violation of the schema's standard keywords, sorted by pointer.

    A valid document is recognised by :func:`is_valid`; ``jsonschema`` then only runs
    to describe the violations of an invalid one. Each message shows the values as
    cut JSON; the violating value is the diagnostic's ``values[0]``, in full.
    """
    if is_valid(document, schema):
        return []
    errors = sorted(_quiet_validator(schema).iter_errors(document), key=_sort_key)
    return [Diagnostic("schema-violation", which, join("", *e.absolute_path), _message(e),
                       values=(_unquiet(e.instance),))
            for e in errors]


def _message(error: ValidationError) -> str:
    """The error's message; one opening on a value no stand-in can take (``True``,
    ``None``: Python will not subclass them) opens on its JSON instead."""
    value = error.instance
    if value is None or isinstance(value, bool):
        shown = repr(value) + " "
        if error.message.startswith(shown):
            return json.dumps(value) + error.message[len(shown) - 1:]
    return error.message


def schema_warnings(schema: Schema | Mapping[str, Any]) -> list[Diagnostic]:
    """The warnings of an OA schema (an unknown or misspelt keyword, ...), in order.

    What every ``oa`` command prints once it has read the schema, and what the HTML
    report shows: one function, so they always agree.

    Raises
    ------
    SchemaError
        When ``schema`` (a raw schema) is invalid.

    >>> [d.message for d in schema_warnings({"type": "object", "propertis": {}})]
    ["unknown keyword 'propertis' is ignored; did you mean 'properties'?"]
    """
    parsed = schema if isinstance(schema, Schema) else Schema.parse(schema)
    return list(parsed.warnings)
