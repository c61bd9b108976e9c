"""Big scopes in less memory, same bits (issue 14).

* :func:`oa_core.matchtree._map_matrix` (a record matrix weighted and summed in
  place) gives map_score's bits, and :meth:`Scorer.matrix` of records still equals
  :meth:`Scorer.node` pair by pair;
* the scope pairing's block-by-block passes (labels, colours, the solver's input,
  twin groups, WL agreement) give what the plain whole-matrix formulas give, and
  graphs are paired as before they were made lean (pinned pairs).
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


# -- the memory-lean scope pairing, against the plain whole-matrix formulas ------------

import hashlib  # noqa: E402

import pytest  # noqa: E402
from oa_helpers import scope_matrices  # noqa: E402

from benchmarks import alignment_speed  # noqa: E402
from oa_core import assignment, referential  # noqa: E402


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 2 rows, so that the block-by-block passes cross block boundaries."""
    monkeypatch.setattr(referential, "_BLOCK_ROWS", 2)


def plain_groups(matrix: np.ndarray, axis: int) -> list[list[int]]:
    lines = matrix if axis == 0 else matrix.T
    groups: dict[bytes, list[int]] = {}
    for index in range(lines.shape[0]):
        groups.setdefault(lines[index].tobytes(), []).append(index)
    return [g for g in groups.values() if len(g) > 1]


@settings(max_examples=600, deadline=None)
@given(scope_matrices())
def test_block_passes_equal_the_whole_matrix_formulas(case: tuple[Any, ...]) -> None:
    matrix, same, depth, *_ = case
    distinct = referential.distinct_values(matrix)
    # the same values (which of -0.0 and 0.0 stands for zero may differ: no comparison
    # or difference can tell them apart)
    plain = np.unique(matrix)
    assert distinct.shape == plain.shape and (distinct == plain).all()
    # the labels made block by block against their plain formula
    _, codes = np.unique(matrix, return_inverse=True)
    rounds = int(depth.max(initial=0)) + 1
    plain_labels = (codes.reshape(matrix.shape).astype(np.int64) * 2
                    + same.astype(np.int64)) * rounds + depth
    assert (referential._cell_labels(matrix, same, depth, distinct) == plain_labels).all()
    for axis in (0, 1):
        assert assignment.twin_groups(matrix, axis) == plain_groups(matrix, axis)


@settings(max_examples=600, deadline=None)
@given(scope_matrices())
def test_canonical_matching_solves_the_permuted_objective(case: tuple[Any, ...]) -> None:
    matrix, same, _, row_seed, col_seed = case
    rows = np.asarray(row_seed, dtype=np.int64)
    cols = np.asarray(col_seed, dtype=np.int64)
    row_order = np.argsort(rows, kind="stable")
    col_order = np.argsort(cols, kind="stable")
    grid = np.ix_(row_order, col_order)
    eps = assignment.tie_epsilon(matrix) if matrix.size else 0.0
    for bonus, scale in ((None, 1.0), (same, eps), (same, 1.0)):
        whole = None if bonus is None else scale * bonus
        expected = sorted((int(row_order[i]), int(col_order[j])) for i, j in
                          assignment.max_weight_matching(
                              matrix[grid], None if whole is None else whole[grid]))
        assert assignment.canonical_matching(matrix, bonus, rows, cols,
                                             bonus_scale=scale) == expected


def _pinned(result: oa_core.Alignment) -> list[str]:
    scope = result.scopes["person"]
    blob = json.dumps([sorted(scope.pairs),
                       sorted((list(k), v.value) for k, v in scope.rules.items()),
                       sorted(scope.structural_pairs), sorted(scope.label_ties)])
    return [result.score.hex(), hashlib.sha256(blob.encode()).hexdigest()[:16]]


# Pairs, rules, twins and label ties of alignment_speed's graphs as the scope pairing
# gave them with whole-matrix temporaries (commit 95d214f), every WL mode.
PINNED = json.loads(Path(__file__).with_name("big_scopes_pinned.json").read_text("utf-8"))


@pytest.mark.parametrize("seed", range(4))
def test_graphs_are_paired_as_with_whole_matrices(seed: int) -> None:
    gold, candidate = alignment_speed.make_pair(24 + 20 * seed, seed=seed)
    schema = oa_core.Schema.parse(alignment_speed.SCHEMA)
    for mode in ("tie_break", "blend", "none"):
        result = oa_core.align(gold, candidate, schema, wl_mode=mode)
        assert _pinned(result) == PINNED[f"{seed}-{mode}"]
        if mode == "none":
            continue
        trace = result.wl["person"]
        structure = referential._structure(trace, "person")
        gold_vertices = [k for k, v in enumerate(trace.vertices) if v.side == "gold"
                         and v.kind == "record" and v.scope == "person"]
        cand_vertices = [k for k, v in enumerate(trace.vertices) if v.side == "candidate"
                         and v.kind == "record" and v.scope == "person"]
        g = np.array([[c[k] for k in gold_vertices] for c in trace.rounds])
        c = np.array([[c[k] for k in cand_vertices] for c in trace.rounds])
        equal = g[:, :, None] == c[:, None, :]
        assert structure.depth.dtype == np.int64
        assert (structure.depth == equal.sum(axis=0)).all()
        assert (structure.same == equal[-1].astype(np.float64)).all()
