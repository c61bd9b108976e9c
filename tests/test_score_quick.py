""":func:`oa_core.score`'s quick path: once a schema's plan is made (its first score), a
call with the default options reads it from the schema; every later call gives what
the first gave (the same bits, the same error), a plain or a prepared gold, and a
deep copy of the schema plans itself again.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import oa_core
from oa_core.errors import InputError
from oa_core.native import prepared_plan

FLAT = {"type": "object", "properties": {
    "s": {"type": "string", "score": "levenshtein"},
    "n": {"type": "number", "score": "exact"},
    "r": {"type": "string", "enum": ["a", "b"]}}}
# a pattern: the engine does not check it, the validator does (no quick path)
PATTERNED = {"type": "object", "properties": {
    "s": {"type": "string", "pattern": "^[a-z]+$"}}}


def _outcome(call: Any) -> tuple[str, Any]:
    """A call's score as ``float.hex`` or its error's type, pointer, message, fix."""
    try:
        return "score", float.hex(call())
    except InputError as err:
        return type(err).__name__, (err.document, err.pointer, err.message, err.fix)


@pytest.mark.parametrize(("raw", "gold", "candidate"), [
    (FLAT, {"s": "kitten", "n": 1, "r": "a"}, {"s": "sitting", "n": 1, "r": "b"}),
    (FLAT, {"s": "x", "n": 1, "r": "z"}, {"s": "x"}),  # the gold violates its enum
    (FLAT, {"s": "x", "n": 1}, {"s": "x", "n": float("nan")}),  # no JSON
    (FLAT, {"s": "x", "n": 1}, {"s": "x", "r": "z"}),  # only the candidate violates
    (PATTERNED, {"s": "ab"}, {"s": "AB"}),
    (PATTERNED, {"s": "AB"}, {"s": "ab"}),  # the gold violates the pattern
])
def test_every_call_gives_the_first_calls_outcome(raw: dict[str, Any], gold: Any,
                                                   candidate: Any) -> None:
    schema = oa_core.Schema.parse(raw)
    first = _outcome(lambda: oa_core.score(gold, candidate, schema))
    assert schema._plan is not None  # planned: the next calls may take the quick path
    assert [_outcome(lambda: oa_core.score(gold, candidate, schema))
            for _ in range(2)] == [first, first]
    assert _outcome(lambda: oa_core.score(gold, candidate, schema, strict=False)) == first
    if first[0] == "score":
        assert first[1] == float.hex(oa_core.align(gold, candidate, schema).score)


def test_a_prepared_gold_scores_as_its_document() -> None:
    schema = oa_core.Schema.parse(FLAT)
    gold, candidate = {"s": "kitten", "n": 1, "r": "a"}, {"s": "sitting", "n": 2}
    plain = oa_core.score(gold, candidate, schema)
    prepared = oa_core.prepare_gold(gold, schema)
    other = oa_core.prepare_gold(gold, oa_core.Schema.parse(FLAT))  # checked elsewhere
    assert [float.hex(oa_core.score(g, candidate, schema))
            for g in (prepared, prepared, other, other)] == [float.hex(plain)] * 4


def test_a_deep_copy_of_a_schema_plans_again_and_scores_the_same() -> None:
    schema = oa_core.Schema.parse(FLAT)
    gold, candidate = {"s": "ab", "n": 1}, {"s": "abc", "n": 1}
    value = oa_core.score(gold, candidate, schema)
    copied = copy.deepcopy(schema)
    assert copied._plan is None
    assert oa_core.score(gold, candidate, copied) == value
    assert prepared_plan(copied) is not prepared_plan(schema)
