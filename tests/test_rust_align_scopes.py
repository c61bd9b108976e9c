"""align()'s scope resolution in Rust (``oa_core.scopes_native``).

:func:`oa_core.align` resolves its scopes in one Rust call
(``crates/oa-engine/src/align/refer/trace.rs``) and must show what the Python
resolution (the port's parity oracle) showed: on every golden case with scopes and in
every WL mode, the score's bits, the bijections, every field of every ScopeAlignment
(arrays bit for bit, floats by hex), the WL traces (vertices with their labels,
edges, rounds), the warnings, and on every 7th case the feedback built on them.
``tests/golden/scoped_alignments.json`` holds a digest of each, written while both
engines gave the same (``tests/test_frozen_details.py`` shows a difference field by
field on a part of the corpus). Rewrite it only when a rule changes on purpose:
``PYTHONPATH=. python tests/test_rust_align_scopes.py`` (then look at which cases moved).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import bits
from oa_core import ScopeAlignment
from oa_core.options import Limits
from oa_core.schema import Schema
from synthetic import hostile

CASES = list(bits.scoped_cases())
RUNNING = Path(__file__).resolve().parent.parent / "sample_data" / "running_example"
FEEDBACK_EVERY = 7  # feedback (ops and deltas) on every 7th case: it scores a lot
FROZEN = Path(__file__).resolve().parent / "golden" / "scoped_alignments.json"


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


def _outcome(gold: Any, candidate: Any, parsed: Schema, mode: str, feedback: bool) -> Any:
    try:
        shown = _shown(oa_core.align(gold, candidate, parsed, wl_mode=mode))
        if feedback:
            shown["feedback"] = _plain(oa_core.feedback(gold, candidate, parsed,
                                                        wl_mode=mode).to_dict())
        return shown
    except oa_core.OAError as error:
        return type(error).__name__, error.pointer, str(error)


def _digest(outcome: Any) -> str:
    return hashlib.sha256(repr(outcome).encode("utf-8", "surrogatepass")).hexdigest()[:20]


def digests(modes: tuple[str, ...] = bits.MODES) -> dict[str, str]:
    """The digest of every case in each of ``modes``, keyed as the frozen file is."""
    return {f"{name}/{mode}": _digest(_outcome(gold, candidate, parsed, mode,
                                               k % FEEDBACK_EVERY == 0))
            for k, (name, parsed, gold, candidate) in enumerate(CASES)
            for mode in modes}


@pytest.mark.parametrize("mode", bits.MODES)
def test_align_shows_what_the_python_resolution_showed(mode: str) -> None:
    frozen = json.loads(FROZEN.read_text(encoding="utf-8"))
    for key, digest in digests((mode,)).items():
        assert digest == frozen[key], key
    assert len(CASES) * len(bits.MODES) == len(frozen)


def test_the_running_example_aligns() -> None:
    gold, candidate, schema = (json.loads((RUNNING / f"{part}.json").read_text())
                               for part in ("gold", "candidate", "schema"))
    alignment = oa_core.align(gold, candidate, Schema.parse(schema))
    assert alignment.score == 0.7678571428571429
    assert alignment.wl and all(s.pairs for s in alignment.scopes.values())


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), nested=st.booleans(),
       mode=st.sampled_from(bits.MODES))
def test_hostile_scoped_triples_score_as_they_align(seed: int, nested: bool,
                                                    mode: str) -> None:
    schema, gold, candidate = hostile.triple(seed, nested=nested)
    try:
        parsed = Schema.parse(schema, comparators=hostile.COMPARATORS)
        expected = oa_core.align(gold, candidate, parsed, wl_mode=mode).score.hex()
    except oa_core.OAError as error:
        with pytest.raises(type(error)):
            oa_core.score(gold, candidate, schema, wl_mode=mode,
                          comparators=hostile.COMPARATORS)
        return
    assert oa_core.score(gold, candidate, parsed, wl_mode=mode).hex() == expected


def test_blocked_scopes_and_the_matrix_limit() -> None:
    blocked = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"], "items": {
        "type": "object", "properties": {"id": {"type": "integer", "idScope": "p"},
                                          "k": {"type": "string", "score": "exact"}}}})
    docs = [{"id": 1, "k": "a"}, {"id": 2, "k": "b"}]
    assert oa_core.align(docs, docs, blocked).scopes["p"].pairs == [(0, 0), (1, 1)]
    plain = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}}}})
    many = [{"id": k} for k in range(3)]
    with pytest.raises(oa_core.InputError, match="over the limit") as refused:
        oa_core.align(many, many, plain, limits=Limits(max_matrix_cells=4))
    assert refused.value.to_dict() == {  # as the Python engine worded it
        "type": "InputError", "document": "candidate", "pointer": "",
        "message": "aligning 3 gold with 3 candidate records needs 9 scores, over the "
                   "limit of 4",
        "fix": "raise Limits.max_matrix_cells if the memory is there (8 bytes a score)"}


if __name__ == "__main__":
    before = json.loads(FROZEN.read_text(encoding="utf-8"))
    after = digests()
    FROZEN.write_text(json.dumps(after, indent=0, sort_keys=True), encoding="utf-8")
    moved = sorted(key for key in after if before.get(key) != after[key])
    print(f"{len(after)} digests written to {FROZEN}; {len(moved)} moved: {moved}")
