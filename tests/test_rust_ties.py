"""Parity of the Rust tie policy with today's Python (issue 22).

``oa_core.referential._pair_scope`` and ``_settle_by_score`` run their Python body
under ``OA_ENGINE=python`` and Rust (``crates/oa-engine/src/align/{policy,
structure,pairing,settle}.rs``, through :mod:`oa_core.ties_native`) under
``OA_ENGINE=rust``. Here both run on the same inputs: every call the golden cases
with scopes make (recorded while they are aligned by Python, in the three WL modes),
and hypothesis-drawn tie-heavy scopes; they must give the same pairs, rules, label
ties, canonical order, settled pairs, scorings asked for and budget left. The
ordered rule list lives in Rust; :class:`oa_core.kinds.TieRule`, the docs and the
explorer's rule words are checked against it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import bits
from oa_core import _engine, referential
from oa_core.kinds import TieRule, WLMode
from oa_core.referential import Record, _Budget, _Canonical, _Histories

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(deadline=None, max_examples=60, derandomize=True)
Pair = tuple[int, int]


@contextmanager
def engine(name: str) -> Iterator[None]:
    """``OA_ENGINE`` set to ``name`` inside the block (``selected_engine`` reads it
    at each call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OA_ENGINE", name)
        yield


def test_the_rules_are_one_ordered_list_that_python_docs_and_explorer_follow():
    names = [name for name, _ in _engine.tie_rules()]
    assert names == [rule.value for rule in TieRule]
    assert all(description for _, description in _engine.tie_rules())
    assert (_engine.SCORED_TRIALS, _engine.SCORED_RECORDS, _engine.ENUMERATED) == (
        referential._SCORED_TRIALS, referential._SCORED_RECORDS, referential._ENUMERATED)
    # the docs' tie section names the rules in their order
    schema_doc = (ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
    listed = re.search(r"The rules reported, in order \(`tie_rules\(\)`\): (.*?)\.\n",
                       schema_doc, re.S)
    assert listed is not None, "docs/schema.md lost its list of the tie rules"
    assert re.findall(r"`(\w+)`", listed.group(1)) == names
    # the explorer words every rule, in the same order
    from app.pair.scope_views import RULE_WORDS

    assert list(RULE_WORDS) == names


# --- the golden cases' calls, recorded under Python and replayed under Rust


def _scoped_cases() -> list[Any]:
    found = []
    for case in bits.corpus(**bits.GOLDEN_CORPUS):
        try:
            parsed = oa_core.Schema.parse(case[1], comparators=case[4])
        except oa_core.OAError:
            continue
        if parsed.scopes:
            found.append(case)
    return found


def _record_calls(cases: list[Any]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every ``_pair_scope`` and ``_settle_by_score`` call (arguments and result) the
    cases make when aligned by Python in every WL mode."""
    pairings: list[tuple[Any, ...]] = []
    settlings: list[tuple[Any, ...]] = []
    pair_scope, settle = referential._pair_scope, referential._settle_by_score

    def recording_pair(*args: Any) -> Any:
        result = pair_scope(*args)
        pairings.append((args, result))
        return result

    def recording_settle(pairs: list[Pair], label_ties: list[Pair], levels: list[Any],
                         score_of: Callable[[list[Pair]], float], budget: _Budget,
                         order: _Canonical, alike: Callable[[list[Pair]], Any]) -> Any:
        asked: list[tuple[tuple[Pair, ...], float]] = []

        def scoring(trial: list[Pair]) -> float:
            value = score_of(trial)
            asked.append((tuple(trial), value))
            return value

        keys: list[Any] = []

        def keyed(trial: list[Pair]) -> Any:
            keys.append(alike(trial))
            return keys[-1]

        before = budget.trials
        result = settle(list(pairs), list(label_ties), levels, scoring, budget, order, keyed)
        settlings.append(((list(pairs), list(label_ties), levels, before, order, alike), asked,
                          result, budget.trials, len(set(keys)) < len(keys)))
        return result

    with engine("python"), pytest.MonkeyPatch.context() as patch:
        patch.setattr(referential, "_pair_scope", recording_pair)
        patch.setattr(referential, "_settle_by_score", recording_settle)
        for _, schema, gold, candidate, comparators in cases:
            parsed = oa_core.Schema.parse(schema, comparators=comparators)
            for mode in bits.MODES:
                try:
                    oa_core.align(gold, candidate, parsed, wl_mode=mode)
                except oa_core.OAError:
                    continue
    return pairings, settlings


@pytest.fixture(scope="module")
def golden_calls() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    return _record_calls(_scoped_cases())


def _hexed(value: Any) -> Any:
    """``value`` with floats as ``float.hex`` and tuples as lists (compared bit for bit)."""
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, dict):
        return {str(k): _hexed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_hexed(v) for v in value]
    if isinstance(value, _Canonical):
        return [value.rows, value.cols]
    return value


def _pairing_view(result: Any) -> Any:
    pairs, rules, label_ties, order = result
    return _hexed([pairs, [[list(p), rules[p].value] for p in pairs], sorted(rules) == sorted(
        pairs), label_ties, order])


def test_every_golden_pairing_is_the_same_in_rust(golden_calls):
    pairings, _ = golden_calls
    assert len(pairings) > 500  # the corpus's scopes, in three modes
    for args, expected in pairings:
        with engine("rust"):
            got = referential._pair_scope(*args)
        assert _pairing_view(got) == _pairing_view(expected), (args[1], args[0].shape)


def _replay(asked: list[tuple[tuple[Pair, ...], float]], log: list[tuple[Pair, ...]]
            ) -> Callable[[list[Pair]], float]:
    scores = dict(asked)

    def score_of(trial: list[Pair]) -> float:
        log.append(tuple(trial))
        return scores[tuple(trial)]  # a KeyError: Rust asked for a pairing Python did not

    return score_of


def test_every_golden_settling_is_the_same_in_rust(golden_calls):
    _, settlings = golden_calls
    assert any(asked for _, asked, *_ in settlings), "no golden case scores a tie"
    # pairings alike (records equal but for unreferenced ids) are scored once
    assert any(repeated for *_, repeated in settlings), "no golden settling has alike pairings"
    for (pairs, label_ties, levels, before, order, alike), asked, expected, after, _ in (
            settlings):
        log: list[tuple[Pair, ...]] = []
        budget = _Budget(before)
        with engine("rust"):
            got = referential._settle_by_score(pairs, label_ties, levels,
                                               _replay(asked, log), budget, order, alike)
        assert _hexed(got) == _hexed(expected)
        assert log == [trial for trial, _ in asked]
        assert budget.trials == after


# --- hypothesis: tie-heavy scopes


@st.composite
def scopes(draw: st.DrawFn) -> tuple[np.ndarray, _Histories, list[Record], list[Record]]:
    """A tie-heavy C (values 0, 0.5 and 1, repeated rows and columns), colour
    histories of a few colours, random incident edges and occurrences (a nested
    scope's), and records whose JSON often repeats."""
    n, m = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    lines = draw(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=m, max_size=m),
                          min_size=1, max_size=3))
    matrix = np.array([draw(st.sampled_from(lines)) for _ in range(n)],
                      dtype=np.float64).reshape(n, m)
    rounds = draw(st.integers(1, 3))

    def history(count: int) -> np.ndarray:
        return np.array(draw(st.lists(st.lists(st.integers(0, 2), min_size=count,
                                               max_size=count),
                                      min_size=rounds, max_size=rounds)),
                        dtype=np.int64).reshape(rounds, count)

    def edges(count: int, gold: bool) -> list[list[tuple[str, str, str, int]]]:
        out: list[list[tuple[str, str, str, int]]] = []
        for k in range(count):
            line = []
            for direction, role, label, other in draw(st.lists(st.tuples(
                    st.sampled_from(["out", "in", "loop"]), st.sampled_from(["r", "s"]),
                    st.sampled_from(["", "x"]), st.integers(0, max(count - 1, 0))),
                    max_size=3)):
                loop_end = k if gold else -1
                line.append((direction, role, label, loop_end if direction == "loop"
                             else other))
            out.append(line)
        return out

    def occurrences(count: int) -> list[int]:  # hubs 100, 101 or none, as nesting gives
        return draw(st.lists(st.sampled_from([-1, 100, 101]), min_size=count, max_size=count))

    histories = _Histories(history(n), history(m), edges(n, True), edges(m, False),
                           occurrences(n), occurrences(m))

    def records(count: int, side: str) -> list[Record]:
        values = draw(st.lists(st.sampled_from([{"a": 1}, {"a": [2, 1]}, {"a": [1, 2]},
                                                {"b": "\ud800"}, {"b": "é"}]),
                               min_size=count, max_size=count))
        return [Record(f"/{side}/{k}", dict(v), k, None) for k, v in enumerate(values)]

    return matrix, histories, records(n, "g"), records(m, "c")


def _both(run: Callable[[], Any]) -> tuple[Any, Any]:
    with engine("python"):
        expected = run()
    with engine("rust"):
        got = run()
    return expected, got


@SETTINGS
@given(scopes(), st.sampled_from(list(WLMode)), st.sampled_from([0.25, 0.5]), st.data())
def test_drawn_scopes_pair_alike(scope, mode, wl_lambda, data):
    matrix, histories, gold, candidate = scope
    n, m = matrix.shape
    if mode == WLMode.NONE:
        structure = None
    elif data.draw(st.booleans()) and n and m:  # a block of the scope
        rows = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
        cols = sorted(data.draw(st.sets(st.integers(0, m - 1), min_size=1)))
        structure = histories.structure(rows, cols)
        matrix, gold, candidate = (matrix[np.ix_(rows, cols)], [gold[i] for i in rows],
                                   [candidate[j] for j in cols])
    else:
        structure = histories.structure()
    expected, got = _both(lambda: referential._pair_scope(
        matrix, mode, wl_lambda, structure, gold, candidate))
    assert _pairing_view(got) == _pairing_view(expected)


@SETTINGS
@given(scopes(), st.integers(0, 30), st.data())
def test_drawn_label_ties_settle_alike(scope, trials, data):
    matrix, histories, gold, candidate = scope
    structure = histories.structure()
    with engine("python"):
        pairs, _, ties, order = referential._pair_scope(
            matrix, WLMode.TIE_BREAK, 0.5, structure, gold, candidate)
    # any pairs may be called tied: the settling must agree on them as well
    ties = sorted(set(ties) | set(data.draw(st.sets(st.sampled_from(pairs))) if pairs
                                  else set()))
    levels = [matrix, structure.same, structure.depth][:data.draw(st.integers(1, 3))]

    def score_of(trial: list[Pair]) -> float:
        return float(sum((i * 7 + j * 3) % 5 for i, j in trial) % 3) / 2

    # pairings alike by the parity of their rows and columns, or each its own
    coarse = data.draw(st.booleans())

    def alike(trial: list[Pair]) -> Any:
        return tuple(sorted((i % 2, j % 2) if coarse else (i, j) for i, j in trial))

    logs: list[list[Any]] = []

    def run() -> Any:
        log: list[Any] = []
        logs.append(log)
        budget = _Budget(trials)

        def logged(trial: list[Pair]) -> float:
            log.append(trial)
            return score_of(trial)

        return referential._settle_by_score(pairs, ties, levels, logged, budget,
                                            order, alike), budget.trials

    expected, got = _both(run)
    assert _hexed(got) == _hexed(expected)
    assert logs[0] == logs[1]


def test_errors_of_callbacks_and_bad_input_are_raised_not_panics():
    structure = _Histories(np.zeros((1, 2), dtype=np.int64), np.zeros((1, 2), dtype=np.int64),
                           [[], []], [[], []], [-1, -1], [-1, -1]).structure()
    records = [Record(f"/{k}", {"k": k}, k, None) for k in range(2)]

    def failing(record: Record) -> tuple[str, str]:
        raise KeyError("no key")

    from oa_core import ties_native

    with pytest.raises(KeyError, match="no key"):
        ties_native.pair_scope(np.ones((2, 2)), "tie_break", 0.5, structure, records, records,
                               failing)
    with pytest.raises(ValueError, match="names no WL mode"):
        ties_native.pair_scope(np.ones((2, 2)), "other", 0.5, None, [], [], failing)
    with pytest.raises(ValueError, match="expected"):
        ties_native.pair_scope(np.ones((3, 2)), "tie_break", 0.5, structure, records, records,
                               failing)

    def refusing(trial: list[Pair]) -> float:
        raise RuntimeError("scoring failed")

    def unkeyed(trial: list[Pair]) -> Any:
        raise LookupError("no alike key")

    ties = [(0, 0), (1, 1)]
    with pytest.raises(RuntimeError, match="scoring failed"):
        ties_native.settle_by_score(ties, ties, [np.ones((2, 2))], refusing, 24, [0, 1], [0, 1],
                                    tuple)
    with pytest.raises(LookupError, match="no alike key"):
        ties_native.settle_by_score(ties, ties, [np.ones((2, 2))], refusing, 24, [0, 1], [0, 1],
                                    unkeyed)
    # one class for the four one-pair pairings that tell the records' classes
    with pytest.raises(ValueError, match="record classes"):
        _engine.settle_by_score(ties, ties, [np.ones((2, 2))], [], refusing, lambda _: [0],
                                24, [0, 1], [0, 1])
    with pytest.raises(ValueError, match="pairing classes"):  # one class for two pairings
        _engine.settle_by_score(ties, ties, [np.ones((2, 2))], [], refusing,
                                lambda found: [0] * len(found) if len(found[0]) == 1 else [],
                                24, [0, 1], [0, 1])
    with pytest.raises(ValueError):
        ties_native.settle_by_score([(0, 0)], [(0, 0)], [np.ones((2, 2))], refusing, 24, [0],
                                    [0, 1], tuple)


def test_alike_pairings_read_the_references_of_a_rust_index():
    """``_alike`` leaves out the ids no reference names; under ``OA_ENGINE=rust`` the
    references are in Rust's index (``DocumentIndex.carriers`` empty), and an id named
    there still counts (nested/hostile/4: every pairing was taken as alike)."""
    schema = oa_core.Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "number", "idScope": "p"},
        "boss": {"type": "number", "ref": "p"}}}})
    gold = [{"id": 1}, {"id": 2, "boss": 1.0}, {"id": 3}]
    candidate = [{"id": 7}, {"id": 8}, {"id": 9, "boss": 8}]

    def keys() -> tuple[list[Any], bool]:
        scope = schema.scopes["p"]
        indices = referential.index_document(gold, schema), referential.index_document(
            candidate, schema)
        alike = referential._alike(scope, *indices)
        return ([alike([(i, j)]) for i in range(3) for j in range(3)],
                indices[0].native is not None)

    with engine("python"):
        expected, native = keys()
    assert not native
    with engine("rust"):
        got, native = keys()
    assert native  # Rust indexed the documents
    assert got == expected
    # the named ids (1, 8) are kept, the others left out
    ((_, gold_json), (_, candidate_json)), = expected[1]
    assert ('"id":1' in gold_json, '"id":8' in candidate_json) == (True, True)
    ((_, gold_json), (_, candidate_json)), = expected[5]
    assert ('"id"' in gold_json, '"id"' in candidate_json) == (False, False)
