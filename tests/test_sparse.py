"""The sparse assignment finds the dense one's optimum (issue 14).

:func:`oa_core.sparse.max_weight_matching_sparse` must reach the same total
similarity and the same number of genuine pairs as
:func:`oa_core.assignment.max_weight_matching` on the dense matrix (what a list's
score depends on), on random matrices with many ties and many zeros.
"""

from __future__ import annotations

import math

import numpy as np
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
