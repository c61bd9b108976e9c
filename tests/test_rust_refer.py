"""Referential indexing and resolution order on hostile shapes: a reference cycle
through fixed lists with shared and mistyped ids, and a prepared gold's copies.
(The indexes and WL graphs of the Python and Rust engines were compared here while
both existed; the corpus's WL traces and scope pairings stay in ``tests/golden/``.)"""

from __future__ import annotations

import copy

import oa_core

_CYCLE = {"type": "object", "properties": {
    "people": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "string", "idScope": "person"},
        "team": {"type": "string", "ref": "team"},
        "score": {"type": "number", "score": "exact"},
        "tags": {"type": "array", "order": "fixed", "items": {"type": "string",
                                                              "ref": "person"}}}}},
    "teams": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string", "idScope": "team"},
        "lead": {"type": "string", "ref": "person"},
        "flag": {"type": "boolean"}}}}}}

GOLD = {"teams": [{"name": "t", "lead": "a", "flag": True}, {"name": "t", "lead": "z"}],
        "people": [{"id": "a", "team": "t", "score": 1.0, "tags": ["b", "a", "b"]},
                   {"id": "b", "team": "u", "score": 2, "tags": ["a"], "x": [3, 1]}]}
# the candidate may violate the schema: ids shared, mistyped, an object, a null team
CANDIDATE = {"people": [{"id": 1, "team": "t\u00e9"}, {"id": "a", "tags": ["a", 1]},
                        {"id": "b", "team": None, "tags": []}, {"id": 1.0, "team": "t"},
                        {"id": {"no": "id"}}],
             "teams": [{"name": "t\u00e9", "lead": 1}, {"name": "t", "lead": "b"}]}


FROZEN_CYCLE = ("0x1.58bf258bf258bp-2", {"person": [(0, 2), (1, 3)], "team": [(0, 1), (1, 0)]})


def test_a_cycle_with_fixed_lists_and_shared_ids() -> None:
    """The two scopes form one group resolved together (a ``reference-cycle``
    warning); the score, pairs and warnings are the ones both engines gave (frozen)."""
    result = oa_core.align(GOLD, CANDIDATE, _CYCLE)
    assert [w.code for w in result.warnings] == [
        "reference-cycle", "duplicate-id", "missing-id", "tie-content", "duplicate-id",
        "tie-content"]
    assert all(scope.cyclic for scope in result.scopes.values())
    assert sorted(result.scopes) == ["person", "team"]
    assert (result.score.hex(), {name: scope.pairs for name, scope in result.scopes.items()}
            ) == FROZEN_CYCLE
    assert oa_core.score(GOLD, CANDIDATE, _CYCLE).hex() == result.score.hex()


def test_a_prepared_gold_copies() -> None:
    gold = {"people": [{"id": "a", "team": "t"}], "teams": [{"name": "t", "lead": "a"}]}
    candidate = {"people": [{"id": "b", "team": "u"}], "teams": [{"name": "u", "lead": "b"}]}
    prepared = oa_core.prepare_gold(gold, _CYCLE)
    copied = copy.deepcopy(prepared)
    expected = oa_core.score(gold, candidate, _CYCLE)
    assert oa_core.score(copied, candidate, _CYCLE) == expected
    assert oa_core.score(prepared, candidate, _CYCLE) == expected
