"""Small schema builders and expected texts shared by the tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

# The sample data and its index (what each example holds: schemas and candidates)
SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"
SAMPLE_INDEX: list[dict[str, Any]] = json.loads(
    (SAMPLES / "index.json").read_text(encoding="utf-8"))


def load_sample(example: str, name: str) -> Any:
    """The parsed JSON file ``name`` of the sample ``example``."""
    return json.loads((SAMPLES / example / name).read_text(encoding="utf-8"))


# Scores of a scope's C: ties, -0.0 next to 0.0, a subnormal-scale value
MATRIX_SCORES = [0.0, -0.0, 0.5, 1.0, 1 / 3, 0.7, 1e-300]


@st.composite
def scope_matrices(draw: st.DrawFn) -> tuple[Any, ...]:
    """(C, b, depth, row seeds, column seeds) of a scope of up to 8 x 8 records, with
    twins (a row, a column copied) half of the time."""
    n, m = draw(st.integers(0, 8)), draw(st.integers(0, 8))
    matrix = draw(arrays(np.float64, (n, m), elements=st.sampled_from(MATRIX_SCORES)))
    if n > 1 and draw(st.booleans()):
        matrix[n - 1] = matrix[0]
    if m > 1 and draw(st.booleans()):
        matrix[:, m - 1] = matrix[:, 0]
    return (matrix,
            draw(arrays(np.float64, (n, m), elements=st.sampled_from([0.0, 1.0]))),
            draw(arrays(np.int64, (n, m), elements=st.integers(0, 3))),
            draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
            draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))


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


class FrozenOutcomes:
    """Outcomes frozen in a JSON file (written while the Python engine and the Rust
    one both gave them), keyed by the running test's id and the number of its call.

    Call :meth:`reset` before each test (an autouse fixture), then
    :meth:`expected` once per outcome, in the order the outcomes were frozen.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._calls: dict[str, int] = {}

    def reset(self) -> None:
        self._calls.clear()

    def key(self) -> str:
        """The running test's id and the number of this call (from 1)."""
        test = os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[0].split("::", 1)[1]
        self._calls[test] = self._calls.get(test, 0) + 1
        return f"{test}#{self._calls[test]}"

    def expected(self) -> tuple[str, Any]:
        """(key, frozen outcome) of the next call of the running test."""
        key = self.key()
        return key, json.loads(self.path.read_text(encoding="utf-8"))[key]


def kept_rows(lean: Any, full: Any) -> list[int]:
    """Where each row of ``lean`` (:class:`~oa_core.nodetable.MatchRows` of a compacted
    node table) sits among the rows of ``full`` (the whole tree's), matched by its two
    pointers (unique per node)."""
    at = {pair: row for row, pair in enumerate(zip(full.gold_path, full.candidate_path,
                                                   strict=True))}
    return [at[pair] for pair in zip(lean.gold_path, lean.candidate_path, strict=True)]
