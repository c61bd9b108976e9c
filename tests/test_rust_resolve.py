"""The scope resolution end to end in Rust (``oa_core.native.native_resolved_score``).

Under ``OA_ENGINE=rust`` a scoped ``score()`` is resolved and scored in one Rust call
(``crates/oa-engine/src/align/refer/resolve.rs``); it must give the bits of the
Python resolution (``oa_core.referential.resolve_for_score`` and the final pass): on
every golden case with scopes (its frozen score, in each WL mode) and on hypothesis-
drawn hostile scoped triples, nested scopes included; ``blockBy`` scopes and a scope
over the matrix limit too (Python's error), see also tests/test_rust_big_scopes.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
import oa_core.native as native
from benchmarks import bits
from oa_core.errors import ComparatorError
from oa_core.native import ScopeState, native_resolved_score, native_scoped_score
from oa_core.options import Limits
from oa_core.schema import Schema
from synthetic import hostile

CASES = list(bits.scoped_cases())
GOLDEN = {family: bits.load_golden(family) for family in bits.FAMILIES}


def _outcome(gold: Any, candidate: Any, parsed: Schema, mode: str,
             monkeypatch: pytest.MonkeyPatch, python_resolution: str | None = None) -> str:
    """score()'s bits or error; with ``python_resolution`` (an engine), the Python
    resolution under that engine (the Rust one-call path not taken)."""
    import oa_core.aligner as aligner

    with monkeypatch.context() as patched:
        if python_resolution is not None:
            patched.setenv("OA_ENGINE", python_resolution)
            patched.setattr(aligner, "native_resolved_score", lambda *args: None)
        try:
            return oa_core.score(gold, candidate, parsed, wl_mode=mode).hex()
        except oa_core.OAError as error:
            return type(error).__name__


@pytest.fixture
def rust(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OA_ENGINE", "rust")


def test_every_golden_scoped_case_scores_its_bits_in_rust(rust: None) -> None:
    answered = declined = 0
    for name, parsed, gold, candidate in CASES:
        frozen = GOLDEN[bits.family(name)][name]
        for mode in bits.MODES:
            expected = frozen[mode].get("score")
            if not isinstance(expected, str):  # refused (the gold violates the schema)
                continue
            found = native_resolved_score(gold, candidate, parsed, Limits(), mode, 0.5)
            if found is None:
                declined += 1
                # only what the plan does not hold (a custom comparator) and
                # documents the Rust scorer declines whatever the state
                assert native._scoped_plan(parsed) is None or (
                    native_scoped_score(gold, candidate, parsed, Limits(), ScopeState())
                    is None), f"{name} [{mode}]: Rust declined"
                continue
            answered += 1
            assert found.hex() == expected, f"{name} [{mode}]"
    # Rust answered the corpus (519 of 789 mode-cases; the rest use custom comparators
    # or values the Rust scorer declines), not the fallback
    assert answered >= 500


def test_the_public_score_takes_the_rust_path(rust: None, monkeypatch) -> None:
    import oa_core.aligner as aligner

    calls = []

    def python_path(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("the Python resolution ran")

    monkeypatch.setattr(aligner, "resolve_for_score", python_path)
    schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}, "boss": {"type": "integer", "ref": "p"},
        "n": {"type": "string"}}}})
    gold = [{"id": 1, "n": "a"}, {"id": 2, "boss": 1, "n": "b"}, {"id": 3, "boss": 1}]
    candidate = [{"id": 9, "n": "a"}, {"id": 7, "boss": 9}, {"id": 8, "boss": 7, "n": "b"}]
    value = oa_core.score(gold, candidate, schema)
    assert not calls
    monkeypatch.setenv("OA_ENGINE", "python")
    monkeypatch.undo()
    assert oa_core.score(gold, candidate, schema).hex() == value.hex()


def test_a_scope_over_the_matrix_limit_raises_the_python_error(rust: None) -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}}}}
    docs = [{"id": k} for k in range(3)]
    parsed = Schema.parse(schema)
    with pytest.raises(oa_core.InputError, match="over the limit") as in_rust:
        native_resolved_score(docs, docs, parsed, Limits(max_matrix_cells=4), "tie_break", 0.5)
    with pytest.raises(oa_core.InputError, match="over the limit") as raised:
        oa_core.score(docs, docs, schema, limits=Limits(max_matrix_cells=4))
    assert raised.value.pointer == in_rust.value.pointer == ""
    assert str(raised.value) == str(in_rust.value)


def test_blocked_scopes_are_resolved_in_rust(rust: None) -> None:
    schema = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"], "items": {
        "type": "object", "properties": {"id": {"type": "integer", "idScope": "p"},
                                          "k": {"type": "string", "score": "exact"}}}})
    docs = [{"id": 1, "k": "a"}, {"id": 2, "k": "b"}]
    assert native_resolved_score(docs, docs, schema, Limits(), "tie_break", 0.5) == 1.0
    assert oa_core.score(docs, docs, schema) == 1.0


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), nested=st.booleans(),
       mode=st.sampled_from(bits.MODES))
def test_hostile_scoped_triples_rust_equals_python(seed: int, nested: bool, mode: str,
                                                   rust: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    schema, gold, candidate = hostile.triple(seed, nested=nested)
    try:
        parsed = Schema.parse(schema, comparators=hostile.COMPARATORS)
    except oa_core.OAError:
        return
    # the Python engine, and the Python resolution under rust (the same tie policy:
    # the orchestration alone)
    expected = {_outcome(gold, candidate, parsed, mode, monkeypatch, engine)
                for engine in ("python", "rust")}
    assert len(expected) == 1
    outcome = expected.pop()
    assert _outcome(gold, candidate, parsed, mode, monkeypatch) == outcome
    if parsed.scopes and outcome.startswith(("0x", "-0x")):
        found = native_resolved_score(gold, candidate, parsed, Limits(), mode, 0.5)
        assert found is None or found.hex() == outcome


def test_a_custom_comparators_interruption_passes_through_and_its_error_falls_back(
        rust: None) -> None:
    def interrupted(g: Any, p: Any) -> float:
        raise KeyboardInterrupt

    def refusing(g: Any, p: Any) -> float:
        raise ValueError("no")

    def scoped(name: str, comparator: Any) -> Schema:
        return Schema.parse({"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "p"}, "n": {"score": name}}}},
            comparators={name: comparator})

    gold, candidate = [{"id": 1, "n": "a"}], [{"id": 2, "n": "b"}]
    stop = scoped("stop", interrupted)
    with pytest.raises(KeyboardInterrupt):  # raised at once, by the Rust call itself
        native_resolved_score(gold, candidate, stop, Limits(), "tie_break", 0.5)
    with pytest.raises(KeyboardInterrupt):
        oa_core.score(gold, candidate, stop)
    refuse = scoped("refuse", refusing)
    # an ordinary error: raised by Rust as Python raises it, with its pointer
    with pytest.raises(ComparatorError) as caught:
        native_resolved_score(gold, candidate, refuse, Limits(), "tie_break", 0.5)
    assert caught.value.pointer == "/items/properties/n/score"
    with pytest.raises(ComparatorError):
        oa_core.score(gold, candidate, refuse)
