"""Big scopes in less memory, same bits (issue 14).

* :func:`oa_core.matchtree._map_matrix` (a record matrix weighted and summed in
  place) gives map_score's bits, and :meth:`Scorer.matrix` of records still equals
  :meth:`Scorer.node` pair by pair;
* the memory-lean scope pairing measured in ``benchmarks/scope_proposal.py`` gives
  the same labels, colours, bonus, pairs and twin groups as the functions of
  :mod:`oa_core.referential` and :mod:`oa_core.assignment` it would replace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import oa_core
from oa_core.matchtree import Scorer, _map_matrix, map_score

SCORES = [0.0, 0.5, 1.0, 1 / 3, 0.7, 1e-300, 0.1 + 0.2]
WEIGHTS = [0.0, 1.0, 2.0, 2.5, 1e-300, 1e300, 1 / 3]


@st.composite
def _slots(draw: st.DrawFn) -> tuple[Any, ...]:
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    count = draw(st.integers(1, 4))
    values = [draw(st.sampled_from([0.0, 1.0]) | arrays(
        np.float64, (n, m), elements=st.sampled_from(SCORES))) for _ in range(count)]
    return ((n, m), [draw(st.sampled_from(SCORES)) for _ in range(count)], values,
            [draw(st.sampled_from(WEIGHTS)) for _ in range(count)],
            draw(st.sampled_from([0.0, 1.0, 0.3])), draw(st.sampled_from([1.0, 0.0, 2.0])),
            draw(st.integers(count, count + 2)))


@settings(max_examples=1000, deadline=None)
@given(_slots())
def test_map_matrix_in_place_equals_map_score(case: tuple[Any, ...]) -> None:
    shape, keys, values, weights, key_importance, value_importance, key_slots = case
    assume(key_importance + value_importance > 0)  # the schema refuses two zeros
    expected = map_score(keys, [v.copy() if isinstance(v, np.ndarray) else v
                                for v in values], weights, key_importance,
                         value_importance, key_slots)
    got = _map_matrix(keys, iter(values), weights, key_importance, value_importance,
                      key_slots, shape)
    expected_bits = np.broadcast_to(np.asarray(expected, dtype=np.float64), shape)
    got_bits = np.broadcast_to(np.asarray(got, dtype=np.float64), shape)
    assert (expected_bits.view(np.int64) == got_bits.view(np.int64)).all()


PEOPLE = {"type": "object", "properties": {
    "id": {"type": "integer", "idScope": "person"},
    "name": {"type": "string", "score": "jaro", "valueWeight": 2},
    "nick": {"type": ["string", "null"], "score": "levenshtein", "threshold": 0.5},
    "role": {"type": "string", "score": "exact"},
    "age": {"type": "number", "valueWeight": 0.5}}}
names = st.sampled_from(["Ann", "Anna", "Bob", "Bo", "", "Zoë"])
records = st.fixed_dictionaries(
    {"id": st.integers(1, 50)},
    optional={"name": names, "nick": names | st.none(), "role": st.sampled_from(["a", "b"]),
              "age": st.integers(0, 3) | st.sampled_from([0.5, 1e300]), "extra": names})


@settings(max_examples=300, deadline=None)
@given(st.lists(records, min_size=1, max_size=6), st.lists(records, min_size=1, max_size=6))
def test_record_matrix_equals_the_match_tree(golds: list[dict[str, Any]],
                                             candidates: list[dict[str, Any]]) -> None:
    schema = oa_core.Schema.parse({"type": "object", "properties": {
        "people": {"type": "array", "items": PEOPLE}}})
    record = schema.scopes["person"].record
    scorer = Scorer(schema.comparators, unresolved=frozenset({"person"}))
    matrix = scorer.matrix(golds, candidates, record)
    for i, gold in enumerate(golds):
        for j, candidate in enumerate(candidates):
            single = scorer.node(gold, candidate, record, "", "").score
            assert matrix[i, j].hex() == single.hex()


# -- the memory-lean scope pairing (benchmarks/scope_proposal.py) ------------------------

import pytest  # noqa: E402

from benchmarks import alignment_speed, scope_proposal  # noqa: E402
from oa_core import assignment, referential  # noqa: E402

MATRIX_SCORES = [0.0, -0.0, 0.5, 1.0, 1 / 3, 0.7, 1e-300]


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 2 rows, so that the block-by-block passes cross block boundaries."""
    monkeypatch.setattr(scope_proposal, "BLOCK_ROWS", 2)


@st.composite
def _scope(draw: st.DrawFn) -> tuple[Any, ...]:
    n, m = draw(st.integers(0, 7)), draw(st.integers(0, 7))
    matrix = draw(arrays(np.float64, (n, m), elements=st.sampled_from(MATRIX_SCORES)))
    if n > 1 and draw(st.booleans()):  # twins: a row copied
        matrix[n - 1] = matrix[0]
    if m > 1 and draw(st.booleans()):
        matrix[:, m - 1] = matrix[:, 0]
    return (matrix,
            draw(arrays(np.float64, (n, m), elements=st.sampled_from([0.0, 1.0]))),
            draw(arrays(np.int64, (n, m), elements=st.integers(0, 3))),
            draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
            draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))


@settings(max_examples=600, deadline=None)
@given(_scope())
def test_lean_labels_colours_and_matching_equal_the_library(case: tuple[Any, ...]) -> None:
    matrix, same, depth, row_seed, col_seed = case
    if matrix.size:
        assert scope_proposal.tie_epsilon(matrix) == assignment.tie_epsilon(matrix)
    labels = referential._cell_labels(matrix, same, depth)
    lean = scope_proposal.cell_labels(matrix, same, depth)
    assert lean.dtype == labels.dtype and (lean == labels).all()
    assert (scope_proposal.intern_rows(labels) == assignment._intern_rows(labels)).all()
    rows, cols = assignment.bipartite_colours(labels, row_seed, col_seed)
    lean_rows, lean_cols = scope_proposal.bipartite_colours(labels, row_seed, col_seed)
    assert (rows == lean_rows).all() and (cols == lean_cols).all()
    bonus = None if not matrix.size else (
        assignment.tie_epsilon(matrix) * same if row_seed[:1] == [0] else None)
    assert scope_proposal.canonical_matching(matrix, bonus, rows, cols) == (
        assignment.canonical_matching(matrix, bonus, rows, cols))
    pairs = assignment.canonical_matching(matrix, bonus, rows, cols)
    assert scope_proposal.twin_pairs(matrix, pairs) == referential._twin_pairs(matrix, pairs)

    def agreement(partner: dict[int, int], rs: list[int], cs: list[int]) -> np.ndarray:
        # a level that reads the pairing: how many other pairs i's row agrees with
        out = np.zeros((len(rs), len(cs)), dtype=np.int64)
        for a, i in enumerate(rs):
            for b, j in enumerate(cs):
                out[a, b] = sum(int(depth[k, partner[k]] == depth[i, j]) for k in partner
                                if k != i) % 3
        return out

    for levels in ([same.astype(np.int64), depth], [same.astype(np.int64), depth, agreement]):
        assert scope_proposal.repair_twins(pairs, matrix, levels, rows, cols) == (
            assignment.repair_twins(pairs, matrix, levels, rows, cols))


@pytest.mark.parametrize(("seed", "level"), [(s, k) for s in range(4) for k in (1, 2, 3)])
def test_lean_scope_pairing_aligns_graphs_as_the_library(seed: int, level: int) -> None:
    gold, candidate = alignment_speed.make_pair(24 + 20 * seed, seed=seed)
    schema = oa_core.Schema.parse(alignment_speed.SCHEMA)
    for mode in ("tie_break", "blend", "none"):
        expected = oa_core.align(gold, candidate, schema, wl_mode=mode)
        with scope_proposal.patched(level >= 2, level >= 3):
            lean = oa_core.align(gold, candidate, schema, wl_mode=mode)
        assert lean.score.hex() == expected.score.hex()
        assert lean.bijections == expected.bijections
        got, want = lean.scopes["person"], expected.scopes["person"]
        assert got.pairs == want.pairs and got.rules == want.rules
        assert got.structural_pairs == want.structural_pairs
        if mode == "none":
            continue
        assert (got.colour_agreement == want.colour_agreement).all()
        assert (got.depth_agreement == want.depth_agreement).all()
        trace = expected.wl["person"]
        old, new = referential._structure(trace, "person"), scope_proposal.structure(
            trace, "person")
        assert old.same.dtype == new.same.dtype and (old.same == new.same).all()
        assert old.depth.dtype == new.depth.dtype and (old.depth == new.depth).all()


def _pairings(result: oa_core.Alignment) -> dict[str, Any]:
    return {name: (scope.pairs, scope.rules, scope.label_ties)
            for name, scope in result.scopes.items()}


def test_lean_scope_pairing_scores_every_sample_as_the_library() -> None:
    samples = Path(__file__).resolve().parent.parent / "sample_data"
    for entry in json.loads((samples / "index.json").read_text(encoding="utf-8")):
        folder = samples / entry["id"]
        gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
        for spec in entry["schemas"]:
            schema = json.loads((folder / spec["file"]).read_text(encoding="utf-8"))
            for cand in entry["candidates"]:
                candidate = json.loads((folder / cand["file"]).read_text(encoding="utf-8"))
                for mode in ("tie_break", "blend", "none"):
                    expected = oa_core.align(gold, candidate, schema, wl_mode=mode)
                    with scope_proposal.patched(restructured=True, shared_levels=True):
                        lean = oa_core.align(gold, candidate, schema, wl_mode=mode)
                    assert lean.score.hex() == expected.score.hex(), (entry["id"], mode)
                    assert lean.bijections == expected.bijections
                    assert _pairings(lean) == _pairings(expected)
