"""align()'s scope resolution in Rust (``oa_core.scopes_native``).

Under ``OA_ENGINE=rust`` :func:`oa_core.align` resolves its scopes in one Rust call
(``crates/oa-engine/src/align/refer/trace.rs``) and must show exactly what the
Python resolution (``oa_core.referential.resolve_scopes``, the parity oracle) shows:
on every golden case with scopes and in every WL mode, the score's bits, the
bijections, every field of every ScopeAlignment (arrays bit for bit, floats by
hex), the WL traces (vertices with their labels, edges, rounds), the warnings, and
the feedback built on them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
import oa_core.referential as referential
from benchmarks import bits
from oa_core.options import Limits
from oa_core.referential import ScopeAlignment
from oa_core.schema import Schema
from oa_core.scopes_native import native_align_scopes
from synthetic import hostile

CASES = list(bits.scoped_cases())
RUNNING = Path(__file__).resolve().parent.parent / "sample_data" / "running_example"
FEEDBACK_EVERY = 7  # feedback (ops and deltas) compared on every 7th case: it scores a lot


def _plain(value: Any) -> Any:
    """``value`` with floats as hex and arrays as (dtype, shape, bytes): equal only
    when equal bit for bit."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else value.hex()
    if isinstance(value, np.ndarray):
        return str(value.dtype), value.shape, value.tobytes()
    if isinstance(value, dict):
        return [(_plain(k), _plain(v)) for k, v in value.items()]
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _scope(found: ScopeAlignment) -> dict[str, Any]:
    return {name: _plain(getattr(found, name)) if name != "rules" else sorted(
        (pair, str(rule)) for pair, rule in found.rules.items())
        for name in ScopeAlignment.__dataclass_fields__}


def _shown(alignment: oa_core.Alignment) -> dict[str, Any]:
    return {
        "score": alignment.score.hex(),
        "bijections": _plain(alignment.bijections),
        "scopes": {name: _scope(s) for name, s in sorted(alignment.scopes.items())},
        "wl": {name: (t.scope, t.mode, _plain([v.__repr__() for v in t.vertices]),
                      [e.__repr__() for e in t.edges], t.rounds)
               for name, t in sorted(alignment.wl.items())},
        "warnings": [(w.code, w.document, w.pointer, w.message) for w in alignment.warnings],
        "tree": _plain(alignment.tree.to_dict()),
    }


def _outcome(engine: str, gold: Any, candidate: Any, parsed: Schema, mode: str,
             monkeypatch: pytest.MonkeyPatch, feedback: bool) -> Any:
    with monkeypatch.context() as patched:
        patched.setenv("OA_ENGINE", engine)
        try:
            shown = _shown(oa_core.align(gold, candidate, parsed, wl_mode=mode))
            if feedback:
                shown["feedback"] = _plain(oa_core.feedback(gold, candidate, parsed,
                                                            wl_mode=mode).to_dict())
            return shown
        except oa_core.OAError as error:
            return type(error).__name__, error.pointer, str(error)


@pytest.mark.parametrize("mode", bits.MODES)
def test_align_under_rust_shows_what_the_python_resolution_shows(
        mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    answered = 0
    for k, (name, parsed, gold, candidate) in enumerate(CASES):
        feedback = k % FEEDBACK_EVERY == 0
        expected = _outcome("python", gold, candidate, parsed, mode, monkeypatch, feedback)
        found = _outcome("rust", gold, candidate, parsed, mode, monkeypatch, feedback)
        assert found == expected, f"{name} [{mode}]"
        with monkeypatch.context() as patched:
            patched.setenv("OA_ENGINE", "rust")
            try:
                answered += native_align_scopes(gold, candidate, parsed, Limits(), mode,
                                                0.5) is not None
            except oa_core.OAError:  # refused by Rust itself: answered there too
                answered += 1
    # Rust answered most of the corpus itself (the rest: custom comparators the plan
    # leaves to Python), not the Python fallback
    assert answered >= 230, answered  # of 271 cases


def test_under_rust_the_python_resolution_does_not_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Python resolution ran")

    monkeypatch.setenv("OA_ENGINE", "rust")
    monkeypatch.setattr(referential, "resolve_scopes", refused)
    import oa_core.aligner as aligner

    monkeypatch.setattr(aligner, "resolve_scopes", refused)
    ran = 0
    for name, parsed, gold, candidate in CASES[:40]:
        try:
            if native_align_scopes(gold, candidate, parsed, Limits(), "tie_break",
                                   0.5) is None:
                continue
        except oa_core.OAError:  # input Rust refuses itself
            continue
        alignment = oa_core.align(gold, candidate, parsed)
        assert alignment.scopes, name
        ran += 1
    assert ran >= 20


def test_the_running_example_aligns_in_rust(monkeypatch: pytest.MonkeyPatch) -> None:
    gold, candidate, schema = (json.loads((RUNNING / f"{part}.json").read_text())
                               for part in ("gold", "candidate", "schema"))
    monkeypatch.setenv("OA_ENGINE", "rust")
    parsed = Schema.parse(schema)
    assert native_align_scopes(gold, candidate, parsed, Limits(), "tie_break",
                               0.5) is not None
    alignment = oa_core.align(gold, candidate, parsed)
    assert alignment.score == 0.7678571428571429
    assert alignment.wl and all(s.pairs for s in alignment.scopes.values())


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), nested=st.booleans(),
       mode=st.sampled_from(bits.MODES))
def test_hostile_scoped_triples_align_the_same_in_rust(seed: int, nested: bool, mode: str,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    schema, gold, candidate = hostile.triple(seed, nested=nested)
    try:
        parsed = Schema.parse(schema, comparators=hostile.COMPARATORS)
    except oa_core.OAError:
        return
    assert (_outcome("rust", gold, candidate, parsed, mode, monkeypatch, False)
            == _outcome("python", gold, candidate, parsed, mode, monkeypatch, False))


def test_blocked_scopes_and_the_matrix_limit_are_answered_by_rust(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OA_ENGINE", "rust")
    blocked = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"], "items": {
        "type": "object", "properties": {"id": {"type": "integer", "idScope": "p"},
                                          "k": {"type": "string", "score": "exact"}}}})
    docs = [{"id": 1, "k": "a"}, {"id": 2, "k": "b"}]
    found = native_align_scopes(docs, docs, blocked, Limits(), "tie_break", 0.5)
    assert found is not None and found[2]["p"].pairs == [(0, 0), (1, 1)]
    assert oa_core.align(docs, docs, blocked).scopes["p"].pairs == [(0, 0), (1, 1)]
    plain = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}}}})
    many = [{"id": k} for k in range(3)]
    with pytest.raises(oa_core.InputError, match="over the limit") as rust:
        native_align_scopes(many, many, plain, Limits(max_matrix_cells=4), "tie_break", 0.5)
    monkeypatch.setenv("OA_ENGINE", "python")
    with pytest.raises(oa_core.InputError, match="over the limit") as python:
        oa_core.align(many, many, plain, limits=Limits(max_matrix_cells=4))
    assert rust.value.to_dict() == python.value.to_dict()
