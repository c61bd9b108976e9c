"""The Rust scorer of documents with scopes (oa_core.native) against the Python one.

Under a referential state (bijections, candidate ids, unresolved scopes, record
pairs) the Rust engine gives the documents' score (``native_scoped_score``) and a
scope's C matrix (``native_matrix``); each must equal Python's ``Scorer`` (its
``node(...).score`` and ``matrix``) bit for bit: on the golden corpus's cases with
scopes, on the states their resolution reaches, and on hypothesis-drawn states.
"""

from __future__ import annotations

import collections
import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
import oa_core.aligner as aligner
import oa_core.native as native
from benchmarks import bits
from oa_core.errors import ComparatorError
from oa_core.matchtree import Scorer
from oa_core.native import ScopeState, native_matrix, native_scoped_score
from oa_core.options import AlignOptions, Limits
from oa_core.referential import index_document
from oa_core.schema import Schema
from oa_core.validation import check_json

Case = tuple[str, Schema, Any, Any]


CASES = list(bits.scoped_cases())


def _python_scorer(parsed: Schema, state: ScopeState) -> Scorer:
    return Scorer(parsed.comparators,
                  bijections={k: dict(v) for k, v in state.bijections.items()},
                  candidate_ids={k: set(v) for k, v in state.candidate_ids.items()},
                  unresolved=state.unresolved,
                  record_pairs={k: (scope, dict(pairs))
                                for k, (scope, pairs) in state.record_pairs.items()},
                  limits=Limits())


def _python_matrix(parsed: Schema, golds: list[Any], cands: list[Any], node: Any,
                   state: ScopeState, paths: Any = None) -> np.ndarray:
    return _python_scorer(parsed, state).matrix(golds, cands, node, paths)


def _python_score(parsed: Schema, gold: Any, candidate: Any, state: ScopeState) -> float:
    return _python_scorer(parsed, state).node(gold, candidate, parsed.root, "", "").score


def _final_state(parsed: Schema, gold: Any, candidate: Any) -> ScopeState:
    """The state of the final pass, as Python's resolution reaches it."""
    opts = AlignOptions()
    bijections, candidate_ids, scopes, _, _ = aligner._resolved(gold, candidate, parsed, opts)
    scorer = aligner._final_scorer(parsed, opts, bijections, candidate_ids, scopes)
    return ScopeState(bijections, candidate_ids, frozenset(), scorer.record_pairs)


def _same_matrix(rust: np.ndarray | None, python: np.ndarray) -> bool:
    return rust is not None and rust.shape == python.shape and (
        rust.tobytes() == np.ascontiguousarray(python, dtype=np.float64).tobytes())


def test_the_scoped_corpus_scores_its_golden_bits(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
    # per (case, mode): the scores and matrices Rust gave (None: left to Python)
    answered: collections.Counter[tuple[str, str]] = collections.Counter()
    current = ["", ""]

    def counted(name: str) -> Any:
        function = getattr(native, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            found = function(*args, **kwargs)
            if found is not None:
                answered[current[0], current[1]] += 1
            return found
        return call

    for name in ("native_matrix", "native_scoped_score", "native_resolved_score"):
        monkeypatch.setattr(aligner, name, counted(name))
    golden = {family: bits.load_golden(family) for family in bits.FAMILIES}
    for name, parsed, gold, candidate in CASES:
        expected = golden[bits.family(name)][name]
        for mode in bits.MODES:
            current[:] = [name, mode]
            try:
                got: Any = oa_core.score(gold, candidate, parsed, wl_mode=mode).hex()
            except oa_core.OAError as error:
                got = bits.public_view(bits._refused(error))
            assert got == expected[mode]["score"], f"{name} ({mode})"
    # every case the plan takes is scored in Rust (the hostile family's blockBy
    # lists and refused documents aside); custom comparators are Python's
    assert len(CASES) > 200
    planned = [name for name, parsed, *_ in CASES if native._compiled(parsed) is not None
               and all(isinstance(golden[bits.family(name)][name][mode]["score"], str)
                       for mode in bits.MODES)]  # refused documents aside
    assert len(planned) > 100
    for name in planned:
        if not name.startswith(("hostile", "nested/hostile")):
            assert all(answered[name, mode] for mode in bits.MODES), name
    scored = sum(bool(answered[name, mode]) for name in planned for mode in bits.MODES)
    assert scored >= 0.9 * 3 * len(planned)


def test_c_matrices_and_final_passes_equal_pythons_on_the_corpus(monkeypatch):
    compared = 0
    for name, parsed, gold, candidate in CASES:
        if native._compiled(parsed) is None:
            continue  # a built-in name bound to another comparator: Python's
        monkeypatch.setenv("OA_ENGINE", "python")
        try:
            check_json(gold, "gold", Limits())
            check_json(candidate, "candidate", Limits())
            final = _final_state(parsed, gold, candidate)
        except oa_core.OAError:
            continue
        monkeypatch.setenv("OA_ENGINE", "rust")
        gold_index, cand_index = index_document(gold, parsed), index_document(
            candidate, parsed)
        unresolved = ScopeState(unresolved=frozenset(parsed.scopes))
        for scope, decl in parsed.scopes.items():
            golds = [r.value for r in gold_index.records[scope]]
            cands = [r.value for r in cand_index.records[scope]]
            paths = ([r.pointer for r in gold_index.records[scope]],
                     [r.pointer for r in cand_index.records[scope]])
            for state, where in ((unresolved, None), (final, paths)):
                try:
                    found = native_matrix(golds, cands, decl.record, parsed, Limits(),
                                          state, where)
                except ComparatorError as error:
                    found = error
                try:
                    expected = _python_matrix(parsed, golds, cands, decl.record, state,
                                              where)
                except ComparatorError as error:  # a custom comparator raised: Rust too
                    assert isinstance(found, ComparatorError), f"{name}: C of {scope}"
                    assert found.to_dict() == error.to_dict(), f"{name}: C of {scope}"
                    continue
                if found is None and "hostile" in name:
                    continue  # a blockBy list, or a limit: Python names it
                assert _same_matrix(found, expected), f"{name}: C of {scope}"
                compared += 1
        try:
            found_score = native_scoped_score(gold, candidate, parsed, Limits(), final)
        except ComparatorError as error:
            found_score = error
        try:
            expected_score = _python_score(parsed, gold, candidate, final)
        except ComparatorError as error:  # a custom comparator raised: Rust too
            assert isinstance(found_score, ComparatorError), name
            assert found_score.to_dict() == error.to_dict(), name
            continue
        if found_score is None and "hostile" in name:
            continue
        assert found_score is not None and found_score.hex() == expected_score.hex(), name
    assert compared > 300


# -- hypothesis: random states on small documents ------------------------------------

_SMALL = [case for case in CASES if case[0].startswith(("nested/groups", "nested/array",
                                                          "org2graph/0", "org2graph/1"))]
_SMALL += [case for case in CASES if "running_example" in case[0]][:2]
_EXTRA_IDS = [("number", 1), ("number", 1.0), ("number", 2.5), ("number", 99),
              ("string", "1"), ("string", "zz")]


@st.composite
def _states(draw: st.DrawFn, case: Case, paired: bool) -> ScopeState:
    _, parsed, gold, candidate = case
    gold_index, cand_index = index_document(gold, parsed), index_document(candidate, parsed)
    bijections: dict[str, dict[Any, Any]] = {}
    candidate_ids: dict[str, set[Any]] = {}
    record_pairs: dict[str, tuple[str, dict[str, str]]] = {}
    for scope, decl in sorted(parsed.scopes.items()):
        gold_keys = sorted({r.key for r in gold_index.records[scope] if r.key is not None},
                           key=repr) + _EXTRA_IDS
        cand_keys = sorted({r.key for r in cand_index.records[scope] if r.key is not None},
                           key=repr) + _EXTRA_IDS
        images = st.none() | st.sampled_from(cand_keys)
        bijections[scope] = draw(st.dictionaries(st.sampled_from(gold_keys), images,
                                                 max_size=6))
        candidate_ids[scope] = draw(st.sets(st.sampled_from(cand_keys), max_size=8))
        if paired:
            gold_pointers = [r.pointer for r in gold_index.records[scope]] + ["/nowhere"]
            cand_pointers = [r.pointer for r in cand_index.records[scope]] + ["/0/x/7"]
            pairs = draw(st.dictionaries(st.sampled_from(gold_pointers),
                                         st.sampled_from(cand_pointers), max_size=6))
            record_pairs[decl.records.pointer] = (scope, pairs)
    unresolved = draw(st.frozensets(st.sampled_from(sorted(parsed.scopes))))
    return ScopeState(bijections, candidate_ids, unresolved, record_pairs)


@st.composite
def _drawn(draw: st.DrawFn) -> tuple[Case, ScopeState]:
    case = draw(st.sampled_from(_SMALL))
    return case, draw(_states(case, paired=draw(st.booleans())))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(_drawn())
def test_drawn_states_score_the_same_bits_in_both_engines(monkeypatch, drawn):
    (name, parsed, gold, candidate), state = drawn
    monkeypatch.setenv("OA_ENGINE", "rust")
    found = native_scoped_score(gold, candidate, parsed, Limits(), state)
    assert found is not None, name
    assert found.hex() == _python_score(parsed, gold, candidate, state).hex(), name
    gold_index, cand_index = index_document(gold, parsed), index_document(candidate, parsed)
    for scope, decl in parsed.scopes.items():
        golds = [r.value for r in gold_index.records[scope]]
        cands = [r.value for r in cand_index.records[scope]]
        paths = ([r.pointer for r in gold_index.records[scope]],
                 [r.pointer for r in cand_index.records[scope]])
        for where in (paths, None):
            matrix = native_matrix(golds, cands, decl.record, parsed, Limits(), state, where)
            if matrix is None:  # a paired records array below, met without pointers
                assert where is None and state.record_pairs, name
                continue
            expected = _python_matrix(parsed, golds, cands, decl.record, state, where)
            assert _same_matrix(matrix, expected), f"{name}: C of {scope}"


def test_the_pool_of_drawn_cases_holds_nested_and_flat_scopes():
    names = [name for name, *_ in _SMALL]
    assert any(name.startswith("nested/groups") for name in names)
    assert any(name.startswith("org2graph") for name in names)
    assert len(names) >= 8


@pytest.mark.parametrize("key", [("number", True), ("boolean", True), ("number", (1,)),
                                 ("string", 1), "x", ("number",)])
def test_a_state_the_engine_does_not_read_as_python_goes_to_python(monkeypatch, key):
    monkeypatch.setenv("OA_ENGINE", "rust")
    _, parsed, gold, candidate = _SMALL[0]
    scope = sorted(parsed.scopes)[0]
    state = ScopeState({scope: {key: None}})
    assert native_scoped_score(gold, candidate, parsed, Limits(), state) is None


def test_the_python_engine_takes_no_native_path(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "python")
    _, parsed, gold, candidate = _SMALL[0]
    assert native_scoped_score(gold, candidate, parsed, Limits(), ScopeState()) is None
    record = next(iter(parsed.scopes.values())).record
    assert native_matrix([], [], record, parsed, Limits(), ScopeState()) is None


def test_ints_and_floats_are_one_identifier_in_both_engines(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
    parsed = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "number", "idScope": "p"}, "to": {"type": "number", "ref": "p"}}}})
    big = 2**64
    gold = [{"id": 1, "to": 1}, {"id": big, "to": big}, {"id": 2.5, "to": 2.5}]
    candidate = [{"id": 1.0, "to": 1.0}, {"id": float(big), "to": float(big)},
                 {"id": 2.5, "to": big + 1}]
    keys = [("number", 1), ("number", big), ("number", 2.5)]
    images = [("number", 1.0), ("number", float(big)), ("number", 2.5)]
    state = ScopeState({"p": dict(zip(keys, images, strict=True))}, {"p": set(images)})
    found = native_scoped_score(gold, candidate, parsed, Limits(), state)
    expected = _python_score(parsed, gold, candidate, state)
    assert found is not None and found.hex() == expected.hex()
    assert expected < 1.0  # big + 1 is no image of big
    for scoped in itertools.product([state, ScopeState(unresolved=frozenset({"p"}))]):
        record = parsed.scopes["p"].record
        assert _same_matrix(native_matrix(gold, candidate, record, parsed, Limits(),
                                          scoped[0]),
                            _python_matrix(parsed, gold, candidate, record, scoped[0]))


@pytest.mark.parametrize("state", [
    ({}, {}, frozenset(), {"/": ("p", 3)}),
    ((), {}, frozenset(), {}),
    ({"p": [1]}, {}, frozenset(), {}),
    ({}, {"p": 5}, frozenset(), {}),
    ({}, {}, 5, {}),
    ({}, {}, frozenset(), {"": ("nowhere", {})}),
])
def test_a_state_of_other_forms_goes_to_python_not_to_an_exception(state):
    parsed = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "integer", "idScope": "p"}, "r": {"type": "integer", "ref": "p"}}}})
    plan = native._compiled(parsed)
    assert plan is not None
    documents = [{"id": 1, "r": 1}]
    assert plan.score_scoped(documents, documents, *state, Limits()) is None
    assert plan.score_scoped(documents, documents, {}, {}, frozenset(), {}, Limits()) == 1.0
