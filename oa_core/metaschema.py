"""Whether a schema is valid JSON Schema (draft 2020-12), remembered per schema.

``jsonschema`` checks a schema against the 2020-12 meta-schema in 15-60 ms (its
vocabularies are joined by ``$dynamicRef``, resolved at every level), while
:meth:`oa_core.Schema.parse` does the rest of its work in about 2 ms. Code that passes
the same schema as JSON data again and again (``oa_core.score(gold, candidate,
schema_dict)`` in a loop, an explorer page that reruns) would spend nearly all its time
there. :func:`check_json_schema` runs the check once per schema and remembers the
schemas that passed, by their canonical JSON text, so that the same schema written
with its keys in another order is the same entry.

Only plain JSON data is remembered (dicts with string keys, lists, str, int, float,
bool, None, and no subclasses): ``jsonschema`` tells a tuple from a list, which JSON
text cannot, so such a schema is checked every time. A schema that fails is never
remembered: each call raises ``jsonschema``'s own error, so the message does not
depend on what was parsed before.

Examples
--------
>>> check_json_schema({"type": "object", "properties": {"a": {"type": "string"}}})
>>> remembered({"properties": {"a": {"type": "string"}}, "type": "object"})
True
>>> check_json_schema({"type": 5})
Traceback (most recent call last):
    ...
jsonschema.exceptions.SchemaError: 5 is not valid under any of the given schemas
...
>>> remembered({"type": 5})
False
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["MAX_REMEMBERED", "check_json_schema", "remembered"]

MAX_REMEMBERED = 256
"""Valid schemas remembered at once; the least recently used one is forgotten first."""

_VALID: OrderedDict[str, None] = OrderedDict()
_LOCK = threading.Lock()  # an explorer serves its sessions from several threads
_PLAIN = (str, int, float, bool, type(None))


def check_json_schema(schema: dict[str, Any]) -> None:
    """Raise ``jsonschema.exceptions.SchemaError`` when ``schema`` is not valid JSON
    Schema 2020-12 (formats checked, as ``Draft202012Validator.check_schema`` does).

    Parameters
    ----------
    schema : dict
        The schema as JSON data.

    Raises
    ------
    jsonschema.exceptions.SchemaError
        ``jsonschema``'s best-matching error, with its path into ``schema``.
    """
    key = _canonical(schema)
    if key is not None:
        with _LOCK:
            if key in _VALID:
                _VALID.move_to_end(key)
                return
    Draft202012Validator.check_schema(schema)
    if key is not None:
        with _LOCK:
            _VALID[key] = None
            if len(_VALID) > MAX_REMEMBERED:
                _VALID.popitem(last=False)


def remembered(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` passed :func:`check_json_schema` and is still remembered."""
    key = _canonical(schema)
    with _LOCK:
        return key is not None and key in _VALID


def _canonical(schema: dict[str, Any]) -> str | None:
    """The JSON text of ``schema`` with sorted keys, or None when it holds anything but
    plain JSON data (whose text would stand for more than one schema)."""
    stack: list[Any] = [schema]
    containers: set[int] = set()  # a container met twice may be a cycle: not remembered
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is dict or kind is list:
            if id(node) in containers:
                return None
            containers.add(id(node))
        if kind is dict:
            if any(type(key) is not str for key in node):
                return None
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        elif kind not in _PLAIN:
            return None
    try:
        return json.dumps(schema, sort_keys=True, ensure_ascii=False, allow_nan=True)
    except RecursionError:  # nesting beyond Python's stack
        return None
