"""Small schema builders and expected texts shared by the tests."""

from __future__ import annotations

from typing import Any


def int_list(order: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "order": order, "items": {"type": "integer", "score": "exact"},
            **extra}


def str_list(order: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "order": order, "items": {"type": "string", "score": "exact"},
            **extra}


# The running example's feedback text: the block of ../shared/notes/spec-notes.md, verbatim.
SPEC_FEEDBACK = """\
The prediction scored 0.77 (deficit 0.23). Top 5 of 5 fix locations:
1. /agenda/0: extraneous list item 'reviews'. Removing it recovers +0.062.
2. /agenda/1: missing list item 'reviews'. Adding it recovers +0.062.
3. /period/1: expected 2025, got 2026. Fixing this recovers +0.062.
4. /people: list is missing item {'id': 6, 'name': 'Eve', 'role': 'Intern'}. Adding it recovers +0.042.
5. /agenda/2: expected 'closing', got 'closin'. Fixing this recovers +0.003.
The deficit is spread across multiple issue types (missing-list-item, primitive-value, extraneous-list-item)."""  # noqa: E501
