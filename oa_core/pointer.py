"""RFC 6901 JSON Pointers: building, splitting and resolving.

Examples
--------
>>> join("/people", 3, "name")
'/people/3/name'
>>> join("", "a/b", "m~n")
'/a~1b/m~0n'
>>> split("/a~1b/m~0n")
['a/b', 'm~n']
>>> resolve({"a": [10, {"b": 2}]}, "/a/1/b")
2
"""

from __future__ import annotations

from typing import Any

__all__ = ["escape", "join", "resolve", "split", "unescape"]


def escape(token: str | int) -> str:
    """Escape one reference token (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo :func:`escape`."""
    return token.replace("~1", "/").replace("~0", "~")


def join(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a pointer."""
    if len(tokens) == 1:  # the scorer's hot path: one key or index at a time
        token = tokens[0]
        text = token if type(token) is str else str(token)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        return base + "/" + text
    return base + "".join("/" + escape(t) for t in tokens)


def split(pointer: str) -> list[str]:
    """The unescaped reference tokens of a pointer ("" gives [])."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer must start with '/': {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> Any:
    """The value a pointer names; ``KeyError`` if it names nothing."""
    node = document
    for token in split(pointer):
        if isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                raise KeyError(pointer)
            node = node[int(token)]
        elif isinstance(node, dict):
            if token not in node:
                raise KeyError(pointer)
            node = node[token]
        else:
            raise KeyError(pointer)
    return node
