"""blockBy scopes and scopes too big to keep whole.

:func:`oa_core.score` resolves a ``blockBy`` scope block by block and a blocked scope
too big to keep whole at its pairs' cells only. Its outcomes (the score's bits, or a
scope or block over ``Limits.max_matrix_cells`` refused with its
:class:`~oa_core.errors.InputError`) are compared with
``tests/golden/big_scopes.json.gz``, written while the Python and Rust engines both
gave them (keyed by case and WL mode).
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import alignment_speed, bits
from oa_core.options import Limits
from oa_core.pointer import split

MODES = ("tie_break", "blend", "none")
FROZEN = Path(__file__).resolve().parent / "golden" / "big_scopes.json.gz"


def _outcome(gold: Any, candidate: Any, schema: oa_core.Schema, mode: str,
             limits: Limits) -> list[str]:
    """The score's bits, or the error's type, pointer, message and fix."""
    try:
        return [oa_core.score(gold, candidate, schema, wl_mode=mode, limits=limits).hex()]
    except oa_core.OAError as error:
        return [type(error).__name__, error.pointer, error.message, error.fix]


def _frozen() -> dict[str, list[str]]:
    with gzip.open(FROZEN, "rt", encoding="utf-8") as handle:
        data: dict[str, list[str]] = json.load(handle)
    return data


def _check(key: str, gold: Any, candidate: Any, schema: oa_core.Schema, mode: str,
           limits: Limits) -> list[str]:
    """The outcome, which must be the frozen one of ``key``."""
    found = _outcome(gold, candidate, schema, mode, limits)
    assert found == _frozen()[key], key
    return found


def _blocked_variant(schema: Any, comparators: Any) -> Any | None:
    """``schema`` with ``blockBy`` on each scope's records array (the records' first
    property other than the id), or None when none takes it."""
    try:
        parsed = oa_core.Schema.parse(schema, comparators=comparators)
    except oa_core.OAError:
        return None
    changed = copy.deepcopy(schema)
    added = False
    for decl in parsed.scopes.values():
        others = [name for name in decl.record.properties if name != decl.id_field]
        if not others:
            continue
        node = changed
        for step in split(decl.records.pointer):
            node = node[int(step)] if isinstance(node, list) else node[step]
        if not isinstance(node, dict):
            continue
        node["blockBy"] = others[0]
        added = True
    return changed if added else None


def _blocked_corpus() -> list[tuple[str, oa_core.Schema, Any, Any]]:
    """The golden cases with scopes, blockBy added."""
    found = []
    for name, schema, gold, candidate, comparators in bits.corpus(**bits.GOLDEN_CORPUS):
        variant = _blocked_variant(schema, comparators)
        if variant is None:
            continue
        try:
            parsed = oa_core.Schema.parse(variant, comparators=comparators)
        except oa_core.OAError:
            continue
        if any(decl.records.block_by for decl in parsed.scopes.values()):
            found.append((name, parsed, gold, candidate))
    return found


BLOCKED = _blocked_corpus()


def test_the_blocked_corpus_is_not_empty() -> None:
    assert len(BLOCKED) >= 100


@pytest.mark.parametrize("mode", MODES)
def test_blocked_golden_cases_keep_their_bits(mode: str) -> None:
    for name, schema, gold, candidate in BLOCKED:
        _check(f"blocked/{name}/{mode}", gold, candidate, schema, mode, Limits())


@pytest.mark.parametrize("seed", range(4))
def test_alignment_speed_graphs_keep_their_bits(seed: int) -> None:
    # the inputs of test_big_scopes.py and big_scopes_pinned.json, and the same
    # people in teams (blockBy)
    n = 24 + 20 * seed
    plain = oa_core.Schema.parse(alignment_speed.SCHEMA)
    blocked = oa_core.Schema.parse(alignment_speed.BLOCKED_SCHEMA)
    gold, candidate = alignment_speed.make_pair(n, seed=seed)
    team_gold, team_candidate = alignment_speed.make_pair(n, seed=seed, teams=3)
    for mode in MODES:
        for kind, schema, g, c in (("plain", plain, gold, candidate),
                                   ("blocked", blocked, team_gold, team_candidate)):
            found = _check(f"graph/{seed}/{kind}/{mode}", g, c, schema, mode, Limits())
            assert len(found) == 1  # a score, not a refusal


def test_a_blocked_scope_too_big_to_keep_whole() -> None:
    # 520 people: their levels are kept at the pairs only
    schema = oa_core.Schema.parse(alignment_speed.BLOCKED_SCHEMA)
    gold, candidate = alignment_speed.make_pair(520, seed=5, teams=4)
    found = _check("graph/520", gold, candidate, schema, "tie_break", Limits())
    assert len(found) == 1


def test_a_block_over_the_limit_is_refused() -> None:
    schema = oa_core.Schema.parse(alignment_speed.BLOCKED_SCHEMA)
    gold, candidate = alignment_speed.make_pair(40, teams=2)
    for cells in (50, 399):
        found = _check(f"limit/{cells}", gold, candidate, schema, "tie_break",
                       Limits(max_matrix_cells=cells))
        assert found[0] == "InputError" and found[1] == "/people"
    plain = oa_core.Schema.parse(alignment_speed.SCHEMA)
    found = _check("limit/plain", gold, candidate, plain, "tie_break",
                   Limits(max_matrix_cells=1000))
    assert found[0] == "InputError"


# a person may have no team (the block of those without one)
_PERSON = st.fixed_dictionaries({
    "id": st.integers(1, 6),
    "name": st.sampled_from(["x", "y", "xy"]),
    "boss": st.integers(1, 6) | st.none(),
}, optional={"team": st.sampled_from(["a", "b", 1, 1.0, True, None])})

_TEAMS: dict[str, Any] = {"type": "object", "properties": {"people": {
    "type": "array", "order": "align", "blockBy": "team", "items": {
        "type": "object", "properties": {
            "id": {"type": "integer", "idScope": "p"},
            "team": {"type": ["string", "number", "boolean", "null"], "score": "exact"},
            "name": {"type": "string", "score": "exact"},
            "boss": {"type": ["integer", "null"], "ref": "p"}}}}}}


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PERSON, max_size=7), st.lists(_PERSON, max_size=7),
       st.sampled_from(MODES), st.integers(1, 60))
def test_small_blocked_scopes_at_any_limit(gold: list[Any], candidate: list[Any],
                                           mode: str, cells: int) -> None:
    """score() and align() give the same bits, or the same refusal."""
    schema = oa_core.Schema.parse(_TEAMS)
    limits = Limits(max_matrix_cells=cells)
    found = _outcome({"people": gold}, {"people": candidate}, schema, mode, limits)
    try:
        aligned = [oa_core.align({"people": gold}, {"people": candidate}, schema,
                                 wl_mode=mode, limits=limits).score.hex()]
    except oa_core.OAError as error:
        aligned = [type(error).__name__, error.pointer, error.message, error.fix]
    # align keeps each scope's whole matrix (the explorer draws it): over the limit it
    # refuses where score, block by block, answers or refuses a smaller block (both
    # engines did)
    def over_the_limit(outcome: list[str]) -> bool:
        return outcome[:2] == ["InputError", "/people"] and "over the limit" in outcome[2]

    assert aligned == found or (over_the_limit(aligned)
                                and (len(found) == 1 or over_the_limit(found)))
