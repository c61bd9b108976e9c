"""The sparse assignment finds the dense one's optimum (issue 14).

:func:`oa_core.sparse.max_weight_matching_sparse` must reach the same total
similarity and the same number of genuine pairs as
:func:`oa_core.assignment.max_weight_matching` on the dense matrix (what a list's
score depends on), on random matrices with many ties and many zeros.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from oa_core.assignment import max_weight_matching, tie_epsilon
from oa_core.sparse import (
    equal_pairs,
    max_weight_matching_sparse,
    sparse_tie_epsilon,
    union_pairs,
)

VALUES = [0.0, 0.0, 0.0, 1.0, 0.5, 0.25, 1 / 3, 2 / 3, 0.1, 0.7]


@st.composite
def sparse_matrices(draw: st.DrawFn) -> np.ndarray:
    n, m = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    if draw(st.booleans()):
        cells = draw(arrays(np.float64, (n, m), elements=st.sampled_from(VALUES)))
    else:
        # similarities within a factor 1e6 of each other: far wider apart, the dense
        # solver's float sums drop the small ones (1 + 1e-17 == 1) and the two
        # disagree on whether a tiny pair is worth a match (see oa_core.sparse)
        cells = draw(arrays(np.float64, (n, m), elements=st.floats(1e-6, 1.0)))
        mask = draw(arrays(np.bool_, (n, m)))
        cells = np.where(mask, cells, 0.0)
    return cells


def _sparse(matrix: np.ndarray) -> list[tuple[int, int]]:
    rows, cols = np.nonzero(matrix)
    return max_weight_matching_sparse(rows, cols, matrix[rows, cols], matrix.shape)


def _summary(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[float, int]:
    return math.fsum(matrix[i, j] for i, j in pairs), len(pairs)


@settings(max_examples=1500, deadline=None)
@given(sparse_matrices())
def test_sparse_reaches_the_dense_optimum(matrix: np.ndarray) -> None:
    dense, sparse = max_weight_matching(matrix), _sparse(matrix)
    assert len({i for i, _ in sparse}) == len(sparse) == len({j for _, j in sparse})
    assert all(matrix[i, j] > 0 for i, j in sparse)
    assert _summary(matrix, sparse) == _summary(matrix, dense)


@pytest.mark.parametrize("matrix", [[[0.25, 0.0], [1.0, 0.7]],
                                    [[0.25, 0.0, 0.0], [1.0, 0.7, 0.0], [0.0, 0.0, 0.3]]])
def test_the_tie_bonus_never_buys_more_pairs_with_a_smaller_total(
        matrix: list[list[float]]) -> None:
    # eps is a share of the smallest gap between entries, not between totals:
    # 1.0 + eps == 0.95 + 2 eps. The paper's argmax is the larger total.
    dense = np.array(matrix)
    rows, cols = np.nonzero(dense)
    total = 1.0 + (0.3 if dense.shape[0] == 3 else 0.0)
    for pairs in (max_weight_matching(dense),
                  max_weight_matching_sparse(rows, cols, dense[rows, cols], dense.shape)):
        assert _summary(dense, pairs)[0] == total
        assert (1, 0) in pairs


def test_the_tie_bonus_still_prefers_more_pairs_at_an_equal_total() -> None:
    dense = np.array([[1.0, 0.5], [0.5, 0.0]])
    rows, cols = np.nonzero(dense)
    assert max_weight_matching(dense) == [(0, 1), (1, 0)]
    assert max_weight_matching_sparse(rows, cols, dense[rows, cols], dense.shape) == [
        (0, 1), (1, 0)]


@settings(max_examples=300, deadline=None)
@given(sparse_matrices())
def test_tie_epsilon_of_the_stored_values(matrix: np.ndarray) -> None:
    rows, cols = np.nonzero(matrix)
    if rows.size:
        assert sparse_tie_epsilon(matrix[rows, cols], matrix.shape) == tie_epsilon(matrix)


@given(st.lists(st.integers(-2, 5), max_size=30), st.lists(st.integers(-2, 5), max_size=30))
def test_equal_pairs_is_the_equality_join(gold: list[int], cand: list[int]) -> None:
    rows, cols = equal_pairs(np.array(gold, dtype=np.int64), np.array(cand, dtype=np.int64))
    expected = [(i, j) for i, g in enumerate(gold) for j, c in enumerate(cand)
                if g == c and g >= 0]
    assert list(zip(rows.tolist(), cols.tolist(), strict=True)) == expected


def test_union_pairs_sorts_and_dedupes() -> None:
    rows, cols = union_pairs([(np.array([1, 0]), np.array([2, 1])),
                              (np.array([0, 1]), np.array([1, 0]))], (2, 3))
    assert list(zip(rows.tolist(), cols.tolist(), strict=True)) == [(0, 1), (1, 0), (1, 2)]


def test_a_long_sparse_list_in_linear_memory() -> None:
    # 20,000 x 20,000 would be 3.2 GB dense; here a shifted identity plus noise
    n = 20_000
    rng = np.random.default_rng(0)
    rows = np.concatenate([np.arange(n), rng.integers(0, n, n)])
    cols = np.concatenate([(np.arange(n) + 7) % n, rng.integers(0, n, n)])
    flat = np.unique(rows * n + cols)
    rows, cols = flat // n, flat % n
    values = np.where((cols - rows) % n == 7, 1.0, 0.5)
    pairs = max_weight_matching_sparse(rows, cols, values, (n, n))
    assert len(pairs) == n and all((j - i) % n == 7 for i, j in pairs)


def test_graded_cells_that_hung_scipys_solver_return_the_optimum() -> None:
    # SciPy's LAPJVsp (the solver before the Rust one) traded a column between two
    # rows forever on these cells; a hang shows as the suite's timeout
    matrix = np.array([[0.0, 0.0, 0.48, 0.0], [0.0, 0.34, 0.48, 0.0],
                       [0.0, 0.69, 0.0, 0.97], [0.2, 0.0, 0.0, 0.97]])
    pairs = _sparse(matrix)
    assert pairs == max_weight_matching(matrix) == [(0, 2), (2, 1), (3, 3)]


# -- positive_scores: the dense matrix's positive entries, to the bit -------------------

import oa_core  # noqa: E402
from oa_core.matchtree import Scorer  # noqa: E402
from oa_core.sparse import positive_scores  # noqa: E402


def _edge_schema(weight_b: float, threshold: float, null_score: float,
                 key_importance: float, with_jaro: bool) -> oa_core.Schema:
    record: dict[str, object] = {"type": "object", "keyImportance": key_importance,
                                 "properties": {
        "src": {"type": "integer", "ref": "p"},
        "dst": {"type": "integer", "ref": "p", "valueWeight": 2},
        "kind": {"type": "string", "score": "exact", "threshold": threshold,
                 "nullScore": null_score},
        "flag": {"type": "boolean", "valueWeight": weight_b},
        "meta": {"type": "object", "properties": {"tag": {"type": "string",
                                                           "score": "exact"}}},
        **({"note": {"type": "string"}} if with_jaro else {})}}
    return oa_core.Schema.parse({"type": "object", "properties": {
        "people": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "p"}}}},
        "edges": {"type": "array", "order": "align", "items": record}}})


edge_values = st.fixed_dictionaries({
    "src": st.integers(0, 6) | st.none(), "dst": st.integers(0, 6),
    "kind": st.sampled_from(["a", "b"]) | st.none(), "flag": st.booleans(),
    "meta": st.fixed_dictionaries({"tag": st.sampled_from(["x", "y"])}),
    "note": st.sampled_from(["n1", "n2"])})


@settings(max_examples=300, deadline=None)
@given(st.lists(edge_values, max_size=8), st.lists(edge_values, max_size=8),
       st.sampled_from([0.0, 1.0, 2.0]), st.sampled_from([0.0, 0.5, 1.0]),
       st.sampled_from([0.0, 0.25]), st.sampled_from([0.0, 1.0]), st.booleans(),
       st.booleans())
def test_positive_scores_are_the_dense_entries(golds: list[dict[str, object]],
                                               cands: list[dict[str, object]],
                                               weight_b: float, threshold: float,
                                               null_score: float, key_importance: float,
                                               with_jaro: bool, drop_key: bool) -> None:
    if not with_jaro:
        golds = [{k: v for k, v in g.items() if k != "note"} for g in golds]
        cands = [{k: v for k, v in c.items() if k != "note"} for c in cands]
    if drop_key:  # other key sets on the candidate side
        cands = [{k: v for k, v in c.items() if k != "flag"} for c in cands]
    parsed = _edge_schema(weight_b, threshold, null_score, key_importance, with_jaro)
    item = parsed.root.properties["edges"].items
    assert item is not None
    bijection = {("number", k): (None if k == 3 else ("number", 10 + k)) for k in range(5)}
    scorer = Scorer(parsed.comparators, bijections={"p": bijection},
                    candidate_ids={"p": {("number", k) for k in range(2, 9)}})
    found = positive_scores(scorer, golds, cands, item)
    if with_jaro and golds and cands:
        assert found is None
    if found is None:
        return
    dense = scorer.matrix(golds, cands, item)
    rows, cols, values = found
    assert (values > 0).all()
    assert dense[rows, cols].tobytes() == values.tobytes()
    rest = dense.copy()
    rest[rows, cols] = 0.0
    assert not rest.any()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5) | st.sampled_from([True, "1", 1.0]) | st.none(),
                max_size=12),
       st.lists(st.integers(0, 5) | st.sampled_from([False, "1", 2.0]) | st.none(),
                max_size=12),
       st.sampled_from([0.0, 0.5, 1.0]))
def test_positive_scores_of_primitives(golds: list[object], cands: list[object],
                                       threshold: float) -> None:
    parsed = oa_core.Schema.parse({"type": "array", "order": "align", "items": {
        "type": "integer", "score": "exact", "threshold": threshold}})
    item = parsed.root.items
    assert item is not None
    scorer = Scorer(parsed.comparators)
    found = positive_scores(scorer, golds, cands, item)
    assert found is not None
    dense = scorer.matrix(golds, cands, item)
    rows, cols, values = found
    assert dense[rows, cols].tobytes() == values.tobytes()
    rest = dense.copy()
    rest[rows, cols] = 0.0
    assert not rest.any()


# -- long unordered lists aligned from their positive pairs (oa_core.sparse) -------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from hypothesis import HealthCheck  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "sample_data").iterdir() if (p / "gold.json").exists())


def _documents(folder: Path) -> list[Any]:
    files = [folder / "gold.json", folder / "candidate.json",
             *sorted((folder / "candidates").glob("*.json"))]
    return [json.loads(f.read_text()) for f in files if f.exists()]


def _scores_both_ways(monkeypatch: pytest.MonkeyPatch, gold: Any, candidate: Any,
                      schema: Any, **options: Any) -> tuple[Any, Any]:
    from oa_core import matchtree

    def outcome() -> Any:
        try:
            return oa_core.score(gold, candidate, schema, **options)
        except oa_core.OAError as exc:
            return type(exc).__name__
    dense = outcome()
    with monkeypatch.context() as patch:
        patch.setattr(matchtree, "SPARSE_FROM_CELLS", 0)  # every list, however short
        sparse = outcome()
    return dense, sparse


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_sparse_lists_score_the_same_on_samples(folder: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    docs = _documents(folder)
    for schema_file in sorted(folder.glob("schema*.json")):
        raw = json.loads(schema_file.read_text())
        for candidate in docs:
            for mode in ("tie_break", "none"):
                dense, sparse = _scores_both_ways(monkeypatch, docs[0], candidate, raw,
                                                  wl_mode=mode)
                assert repr(dense) == repr(sparse), (schema_file, mode)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_sparse_lists_score_the_same_on_hostile_triples(seed: int,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    from synthetic import hostile
    schema, gold, candidate = hostile.triple(seed)
    dense, sparse = _scores_both_ways(monkeypatch, gold, candidate, schema,
                                      comparators=hostile.COMPARATORS)
    assert repr(dense) == repr(sparse)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(3, 60), seed=st.integers(0, 10**6))
def test_sparse_lists_score_the_same_on_graphs(n: int, seed: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.alignment_speed import SCHEMA, make_pair
    gold, candidate = make_pair(n, seed)
    dense, sparse = _scores_both_ways(monkeypatch, gold, candidate, SCHEMA)
    assert repr(dense) == repr(sparse)


def test_a_long_list_of_references_needs_no_dense_matrix() -> None:
    from benchmarks.alignment_speed import SCHEMA, make_pair
    gold, candidate = make_pair(700)  # mentorships: 1,400 x 1,400 > SPARSE_FROM_CELLS
    result = oa_core.align(gold, candidate, SCHEMA)
    lists = {c.label: c for c in result.tree.children}
    assert lists["mentorships"].matrix is None
    assert len(lists["mentorships"].pairs) >= 1390
