"""blockBy scopes and scopes too big to keep whole, resolved in Rust.

Under ``OA_ENGINE=rust`` :func:`oa_core.score` resolves every scope in one Rust call
(``resolve_and_score``), a ``blockBy`` scope block by block and a blocked scope too
big to keep whole at its pairs' cells only. Its score must equal the Python
engine's to the bit (``float.hex``), and a scope or block over
``Limits.max_matrix_cells`` must raise the same :class:`~oa_core.errors.InputError`;
the Python resolution must not run.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
import oa_core.aligner as aligner
import oa_core.referential as referential
from benchmarks import alignment_speed, bits
from oa_core.native import native_resolved_score
from oa_core.options import Limits
from oa_core.pointer import split

MODES = ("tie_break", "blend", "none")


def _outcome(gold: Any, candidate: Any, schema: oa_core.Schema, mode: str,
             limits: Limits) -> tuple[str, ...]:
    """The score's bits, or the error's type, pointer, message and fix."""
    try:
        return (oa_core.score(gold, candidate, schema, wl_mode=mode, limits=limits).hex(),)
    except oa_core.OAError as error:
        return (type(error).__name__, error.pointer, error.message, error.fix)


def _both(monkeypatch: pytest.MonkeyPatch, gold: Any, candidate: Any,
          schema: oa_core.Schema, mode: str, limits: Limits,
          bar: bool = True) -> tuple[tuple[str, ...], ...]:
    """The Python engine's outcome, then Rust's; with ``bar``, the Python resolution
    barred (it must not run)."""
    monkeypatch.setenv("OA_ENGINE", "python")
    python = _outcome(gold, candidate, schema, mode, limits)
    monkeypatch.setenv("OA_ENGINE", "rust")
    with monkeypatch.context() as barred:
        if bar:  # aligner holds its own name for it
            barred.setattr(referential, "resolve_for_score", _barred)
            barred.setattr(aligner, "resolve_for_score", _barred)
        rust = _outcome(gold, candidate, schema, mode, limits)
    return python, rust


def _barred(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the Python resolution ran under OA_ENGINE=rust")


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


def _blocked_corpus() -> list[tuple[str, oa_core.Schema, Any, Any, bool]]:
    """The golden cases with scopes, blockBy added; each with whether Rust resolves
    the case without blockBy (else its scorer declines it whatever the pairing: a
    custom comparator, a value it does not take, and Python resolves it)."""
    found = []
    engine = os.environ.get("OA_ENGINE")
    os.environ["OA_ENGINE"] = "rust"  # for native_resolved_score
    try:
        for case in bits.corpus(**bits.GOLDEN_CORPUS):
            found += _blocked_case(*case)
    finally:
        if engine is None:
            os.environ.pop("OA_ENGINE")
        else:
            os.environ["OA_ENGINE"] = engine
    return found


def _blocked_case(name: str, schema: Any, gold: Any, candidate: Any, comparators: Any
                  ) -> list[tuple[str, oa_core.Schema, Any, Any, bool]]:
    """``name``'s case with blockBy added (none when the schema takes none), and
    whether Rust resolves the case without it."""
    variant = _blocked_variant(schema, comparators)
    if variant is None:
        return []
    try:
        parsed = oa_core.Schema.parse(variant, comparators=comparators)
    except oa_core.OAError:
        return []
    if not any(decl.records.block_by for decl in parsed.scopes.values()):
        return []
    original = oa_core.Schema.parse(schema, comparators=comparators)
    try:
        answered = native_resolved_score(gold, candidate, original, Limits(),
                                         "tie_break", 0.5) is not None
    except oa_core.OAError:
        answered = True  # refused by Rust itself
    return [(name, parsed, gold, candidate, answered)]


BLOCKED = _blocked_corpus()


def test_the_blocked_corpus_is_not_empty() -> None:
    assert sum(answered for *_, answered in BLOCKED) >= 100


def test_the_python_resolution_is_barred(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bar itself: the Python resolution, taken, fails the outcome
    schema = oa_core.Schema.parse(_TEAMS)
    people = {"people": [{"id": 1, "team": "a", "name": "x"}]}
    monkeypatch.setenv("OA_ENGINE", "rust")
    monkeypatch.setattr(aligner, "native_resolved_score", lambda *args, **kwargs: None)
    monkeypatch.setattr(aligner, "resolve_for_score", _barred)
    with pytest.raises(AssertionError, match="the Python resolution ran"):
        oa_core.score(people, people, schema)


@pytest.mark.parametrize("mode", MODES)
def test_blocked_golden_cases_score_python_s_bits(monkeypatch: pytest.MonkeyPatch,
                                                  mode: str) -> None:
    for name, schema, gold, candidate, answered in BLOCKED:
        python, rust = _both(monkeypatch, gold, candidate, schema, mode, Limits(), answered)
        assert rust == python, name


@pytest.mark.parametrize("seed", range(4))
def test_alignment_speed_graphs_score_python_s_bits(monkeypatch: pytest.MonkeyPatch,
                                                    seed: int) -> None:
    # the inputs of test_big_scopes.py and big_scopes_pinned.json, and the same
    # people in teams (blockBy)
    n = 24 + 20 * seed
    plain = oa_core.Schema.parse(alignment_speed.SCHEMA)
    blocked = oa_core.Schema.parse(alignment_speed.BLOCKED_SCHEMA)
    gold, candidate = alignment_speed.make_pair(n, seed=seed)
    team_gold, team_candidate = alignment_speed.make_pair(n, seed=seed, teams=3)
    for mode in MODES:
        for schema, g, c in ((plain, gold, candidate), (blocked, team_gold, team_candidate)):
            python, rust = _both(monkeypatch, g, c, schema, mode, Limits())
            assert rust == python
            assert len(rust) == 1  # a score, not a refusal


def test_a_blocked_scope_too_big_to_keep_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # over _SCORED_RECORDS people: their levels are kept at the pairs only
    schema = oa_core.Schema.parse(alignment_speed.BLOCKED_SCHEMA)
    assert referential._SCORED_RECORDS < 520
    gold, candidate = alignment_speed.make_pair(520, seed=5, teams=4)
    python, rust = _both(monkeypatch, gold, candidate, schema, "tie_break", Limits())
    assert rust == python and len(rust) == 1


def test_a_block_over_the_limit_is_refused_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = oa_core.Schema.parse(alignment_speed.BLOCKED_SCHEMA)
    gold, candidate = alignment_speed.make_pair(40, teams=2)
    for limits in (Limits(max_matrix_cells=50), Limits(max_matrix_cells=399)):
        python, rust = _both(monkeypatch, gold, candidate, schema, "tie_break", limits)
        assert rust == python
        assert rust[0] == "InputError" and rust[1] == "/people"
    plain = oa_core.Schema.parse(alignment_speed.SCHEMA)
    python, rust = _both(monkeypatch, gold, candidate, plain, "tie_break",
                         Limits(max_matrix_cells=1000))
    assert rust == python and rust[0] == "InputError"


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
    schema = oa_core.Schema.parse(_TEAMS)
    with pytest.MonkeyPatch.context() as monkeypatch:
        python, rust = _both(monkeypatch, {"people": gold}, {"people": candidate}, schema,
                             mode, Limits(max_matrix_cells=cells))
    assert rust == python
