"""The scope resolution end to end in Rust (``oa_core.native.native_resolved_score``).

A scoped ``score()`` is resolved and scored in one Rust call
(``crates/oa-engine/src/align/refer/resolve.rs``); it must give the golden files' bits
(frozen from the Python resolution, in each WL mode) on every golden case with
scopes, score()'s outcome on hypothesis-drawn hostile scoped triples, nested scopes
included; ``blockBy`` scopes and a scope over the matrix limit too, see also
tests/test_rust_big_scopes.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import bits
from oa_core.errors import ComparatorError
from oa_core.native import native_resolved_score
from oa_core.options import Limits
from oa_core.schema import Schema
from synthetic import hostile

CASES = list(bits.scoped_cases())
GOLDEN = {family: bits.load_golden(family) for family in bits.FAMILIES}


def test_every_golden_scoped_case_scores_its_bits() -> None:
    answered = 0
    for name, parsed, gold, candidate in CASES:
        frozen = GOLDEN[bits.family(name)][name]
        for mode in bits.MODES:
            expected = frozen[mode].get("score")
            if not isinstance(expected, str):  # refused (the gold violates the schema)
                continue
            found = native_resolved_score(gold, candidate, parsed, Limits(), mode, 0.5)
            assert found is not None and found.hex() == expected, f"{name} [{mode}]"
            answered += 1
    assert answered >= 500


def test_a_scope_over_the_matrix_limit_raises_score_s_error() -> None:
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


def test_blocked_scopes_are_resolved_in_rust() -> None:
    schema = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"], "items": {
        "type": "object", "properties": {"id": {"type": "integer", "idScope": "p"},
                                          "k": {"type": "string", "score": "exact"}}}})
    docs = [{"id": 1, "k": "a"}, {"id": 2, "k": "b"}]
    assert native_resolved_score(docs, docs, schema, Limits(), "tie_break", 0.5) == 1.0
    assert oa_core.score(docs, docs, schema) == 1.0


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), nested=st.booleans(),
       mode=st.sampled_from(bits.MODES))
def test_hostile_scoped_triples_resolve_as_score_does(seed: int, nested: bool,
                                                       mode: str) -> None:
    schema, gold, candidate = hostile.triple(seed, nested=nested)
    try:
        parsed = Schema.parse(schema, comparators=hostile.COMPARATORS)
        expected = oa_core.score(gold, candidate, parsed, wl_mode=mode).hex()
    except oa_core.OAError:
        return
    if parsed.scopes:
        found = native_resolved_score(gold, candidate, parsed, Limits(), mode, 0.5)
        assert found is not None and found.hex() == expected


def test_a_custom_comparators_interruption_passes_through_and_its_error_is_raised(
) -> None:
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
