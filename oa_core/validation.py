"""Checking gold and candidate documents before they are scored.

Three checks, each naming the JSON Pointer of the problem:

* the value is JSON (dicts with string keys, lists, strings, finite numbers,
  booleans, null) within :class:`~oa_core.options.Limits` (nesting depth, items per
  array or object, characters per string);
* the gold satisfies the schema's standard JSON Schema keywords (an error
  otherwise: a gold that breaks its own schema is a bug in the gold or schema);
* the candidate's violations of those keywords are reported, not raised (by
  default they do not change the score; ``strict=True`` makes any violation
  score 0).
"""

from __future__ import annotations

import math
import weakref
from typing import Any

from jsonschema.exceptions import ValidationError

from .errors import (
    INTEGER_OUT_OF_RANGE,
    INTEGER_OUT_OF_RANGE_FIX,
    LARGEST_FLOAT_INTEGER,
    Diagnostic,
    Document,
    InputError,
)
from .fastcheck import Check, compile_schema, is_plain_json
from .options import Limits
from .pointer import join
from .schema import Schema

__all__ = ["check_json", "schema_violations"]


def check_json(value: Any, document: Document, limits: Limits | None = None) -> None:
    """Raise :class:`InputError` where ``value`` is not plain JSON or exceeds ``limits``.

    >>> check_json({"a": [1, 2.5, None, True, "x"]}, "gold")
    >>> try:
    ...     check_json({"a": [1, float("nan")]}, "candidate")
    ... except InputError as err:
    ...     print(err.pointer, err.message)
    /a/1 numbers must be finite, got nan
    """
    limits = limits or Limits()
    if is_plain_json(value, limits):
        return  # the common case, without building a pointer per value
    raise_first_problem(value, document, limits)


def raise_first_problem(value: Any, document: Document, limits: Limits) -> None:
    """The slow walk of :func:`check_json`: raise at the first problem, with its pointer
    (returns when there is none)."""
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
        if isinstance(node, dict):
            for key, child in node.items():
                if not isinstance(key, str):
                    raise InputError(pointer, f"object key {key!r} is not a string",
                                     fix="use string keys", document=document)
                stack.append((child, join(pointer, key), depth + 1))
        elif isinstance(node, list):
            stack.extend((child, join(pointer, i), depth + 1) for i, child in enumerate(node))
        elif isinstance(node, int) and not isinstance(node, bool):
            if abs(node) > LARGEST_FLOAT_INTEGER:
                raise InputError(pointer, f"integer {INTEGER_OUT_OF_RANGE}",
                                 fix=INTEGER_OUT_OF_RANGE_FIX, document=document)
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise InputError(pointer, f"numbers must be finite, got {node!r}",
                                 fix="replace it with a finite number or null",
                                 document=document)
        elif not (node is None or isinstance(node, str | int | bool)):
            raise InputError(pointer, f"{type(node).__name__} is not a JSON value",
                             fix="convert it to a JSON type (object, array, string, number, "
                             "boolean, null)", document=document)


def _sort_key(error: ValidationError) -> tuple[str, str]:
    return (join("", *error.absolute_path), error.message)


# The compiled check of each parsed schema (None: jsonschema only), made on first use.
_COMPILED: weakref.WeakKeyDictionary[Schema, Check | None] = weakref.WeakKeyDictionary()
_MISSING = object()


def _compiled(schema: Schema) -> Check | None:
    found = _COMPILED.get(schema, _MISSING)
    if found is _MISSING:
        found = _COMPILED[schema] = compile_schema(schema.raw)
    return found  # type: ignore[return-value]


def schema_violations(document: Any, schema: Schema, which: str) -> list[Diagnostic]:
    """Every violation of the schema's standard keywords, sorted by pointer.

    A valid document is recognised by the schema's compiled check
    (:func:`~oa_core.fastcheck.compile_schema`, exact); ``jsonschema`` then only runs
    to describe the violations of an invalid one.
    """
    check = _compiled(schema)
    if check is not None:
        try:
            if check(document):
                return []
        except RecursionError:  # deeper than the compiled closures may go: the slow way
            pass
    errors = sorted(schema.validator.iter_errors(document), key=_sort_key)
    return [Diagnostic("schema-violation", which, join("", *e.absolute_path), e.message)
            for e in errors]
