"""Small schema builders shared by the tests."""

from __future__ import annotations

from typing import Any


def int_list(order: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "order": order, "items": {"type": "integer", "score": "exact"},
            **extra}


def str_list(order: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "order": order, "items": {"type": "string", "score": "exact"},
            **extra}
