"""Likely mistakes in a trio (keys the schema does not declare, no shared keys), as
plain sentences for the page."""

from __future__ import annotations

from typing import Any

from oa_core.errors import OAError
from oa_core.pointer import join
from oa_core.schema import Schema

__all__ = ["all_keys", "trio_warnings", "undeclared_keys"]


def undeclared_keys(gold: Any, schema: Any, limit: int = 8) -> list[tuple[str, str]]:
    """Keys of ``gold`` that the schema (JSON, or already a parsed :class:`Schema`) does
    not declare where it declares properties.

    An object schema with ``properties`` and no ``additionalProperties`` lists its
    keys; a gold key outside that list is compared with default settings, which is
    often a typo or a schema written for another document.

    Returns
    -------
    list of (key, JSON Pointer of its first occurrence in the gold)
        At most ``limit`` distinct keys, in document order.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {"a": {"type": "array", "items": {
    ...     "type": "object", "properties": {"x": {"type": "string"}}}}}}
    >>> undeclared_keys({"a": [{"x": "1"}, {"y": 2}], "b": 3}, schema)
    [('b', '/b'), ('y', '/a/1/y')]
    """
    try:
        root = (schema if isinstance(schema, Schema) else Schema.parse(schema)).root
    except OAError:
        return []
    found: dict[str, str] = {}
    stack: list[tuple[Any, Any, str]] = [(gold, root, "")]
    while stack and len(found) < limit:
        value, node, pointer = stack.pop()
        children: list[tuple[Any, Any, str]] = []
        if isinstance(value, dict):
            declares = bool(node.properties) and node.additional is None
            for key, item in value.items():
                if declares and key not in node.properties:
                    found.setdefault(key, join(pointer, key))
                children.append((item, node.property_schema(key), join(pointer, key)))
        elif isinstance(value, list):
            children = [(item, node.item_schema(k), join(pointer, str(k)))
                        for k, item in enumerate(value)]
        stack.extend(reversed(children))
    ordered = sorted(found.items(), key=lambda kv: (kv[1].count("/"), kv[1]))
    return ordered[:limit]


def all_keys(value: Any) -> set[str]:
    """Every object key anywhere in a JSON value.

    Examples
    --------
    >>> sorted(all_keys({"a": [{"b": 1}], "c": {"d": None}}))
    ['a', 'b', 'c', 'd']
    """
    keys: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            keys.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return keys


def trio_warnings(gold: Any, candidate: Any, schema: Any) -> list[str]:
    """Likely mistakes in a trio, as plain sentences (escape them for Markdown).

    Examples
    --------
    >>> trio_warnings({"a": 1}, {"b": 1}, {"type": "object"})[0][:44]
    'The gold and the candidate share no keys at '
    """
    warnings: list[str] = []
    gold_keys, candidate_keys = all_keys(gold), all_keys(candidate)
    if gold_keys and candidate_keys and not gold_keys & candidate_keys:
        warnings.append(
            "The gold and the candidate share no keys at all: is one of them the wrong "
            "document? (A whole trio file now loads as a trio, whichever uploader takes it.)")
    undeclared = undeclared_keys(gold, schema)
    if undeclared:
        listed = ", ".join(f"“{key}” (at {pointer})" for key, pointer in undeclared)
        warnings.append(
            f"The gold has keys the schema does not declare: {listed}. They are compared "
            "with default settings (weight 1); is the schema meant for this gold?")
    return warnings
