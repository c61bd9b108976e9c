"""The Rust tie policy (``crates/oa-engine/src/align/{policy,structure,pairing,
settle}.rs``): its ordered rule list, which :class:`oa_core.kinds.TieRule`, the docs
and the explorer's rule words follow, and its refusals of bad input and failing
callbacks (raised, never a panic). The pairings and settlings of the golden cases
(compared with the Python tie policy while it existed) are in ``tests/golden/``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from oa_core import _engine
from oa_core.kinds import TieRule

ROOT = Path(__file__).resolve().parents[1]
Pair = tuple[int, int]


def test_the_rules_are_one_ordered_list_that_docs_and_explorer_follow():
    names = [name for name, _ in _engine.tie_rules()]
    assert names == [rule.value for rule in TieRule]
    assert all(description for _, description in _engine.tie_rules())
    # the budgets the Python engine had (docs/schema.md states them)
    assert (_engine.SCORED_TRIALS, _engine.SCORED_RECORDS, _engine.ENUMERATED) == (
        24, 500, 5040)
    # the docs' tie section names the rules in their order
    schema_doc = (ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
    listed = re.search(r"The rules reported, in order \(`tie_rules\(\)`\): (.*?)\.\n",
                       schema_doc, re.S)
    assert listed is not None, "docs/schema.md lost its list of the tie rules"
    assert re.findall(r"`(\w+)`", listed.group(1)) == names
    # the explorer words every rule, in the same order
    from app.pair.scope_views import RULE_WORDS

    assert list(RULE_WORDS) == names


def test_errors_of_callbacks_and_bad_input_are_raised_not_panics():
    def refusing(trial: list[Pair]) -> float:
        raise RuntimeError("scoring failed")

    def unkeyed(found: list[list[Pair]]) -> Any:
        raise LookupError("no alike key")

    def classes(found: list[list[Pair]]) -> list[int]:
        return list(range(len(found)))

    ties = [(0, 0), (1, 1)]
    ones = [np.ones((2, 2))]
    with pytest.raises(RuntimeError, match="scoring failed"):
        _engine.settle_by_score(ties, ties, ones, [], refusing, classes, 24, [0, 1], [0, 1])
    with pytest.raises(LookupError, match="no alike key"):
        _engine.settle_by_score(ties, ties, ones, [], refusing, unkeyed, 24, [0, 1], [0, 1])
    # one class for the four one-pair pairings that tell the records' classes
    with pytest.raises(ValueError, match="record classes"):
        _engine.settle_by_score(ties, ties, ones, [], refusing, lambda _: [0], 24, [0, 1],
                                [0, 1])
    with pytest.raises(ValueError, match="pairing classes"):  # one class for two pairings
        _engine.settle_by_score(ties, ties, ones, [], refusing,
                                lambda found: [0] * len(found) if len(found[0]) == 1 else [],
                                24, [0, 1], [0, 1])
    with pytest.raises(ValueError):  # canonical ranks for one row of two
        _engine.settle_by_score([(0, 0)], [(0, 0)], ones, [], refusing, classes, 24, [0],
                                [0, 1])
    with pytest.raises(ValueError, match="names no WL mode"):
        _engine.pair_scope(np.ones((2, 2)), "other", 0.5, None, lambda side, rows: [])
