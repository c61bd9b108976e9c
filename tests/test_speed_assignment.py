"""The plain-Python paths of small matrices (oa_core.assignment._SMALL_CELLS) give
what the numpy paths give."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from oa_helpers import scope_matrices

from oa_core import assignment, referential


def _both(monkeypatch: pytest.MonkeyPatch, fn: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    """``fn(*args)`` on its small path, then with every matrix counted as large."""
    small = fn(*args)
    with monkeypatch.context() as patch:
        patch.setattr(assignment, "_SMALL_CELLS", -1)
        large = fn(*args)
    return small, large


@pytest.mark.parametrize("seed", range(40))
def test_intern_rows_small_equals_numpy(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, width = int(rng.integers(1, 12)), int(rng.integers(1, 5))
    rows = rng.integers(-3, 3, size=(n, width)).astype(np.int64)
    rows[rng.integers(n)] = rows[0]  # some repeated rows
    small, large = _both(monkeypatch, assignment._intern_rows, rows)
    assert small.dtype == large.dtype == np.int64
    assert small.tolist() == large.tolist()


@pytest.mark.parametrize("seed", range(40))
def test_twin_groups_small_equals_numpy(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    matrix = rng.choice([0.0, -0.0, 0.5, 1.0, 1 / 3], size=(n, m))
    matrix[rng.integers(n)] = matrix[0]
    matrix[:, rng.integers(m)] = matrix[:, 0]
    for axis in (0, 1):
        small, large = _both(monkeypatch, assignment.twin_groups, matrix, axis)
        assert small == large
    # -0.0 and 0.0 differ in their bits: no twins
    assert assignment.twin_groups(np.array([[0.0], [-0.0]]), 0) == []


def test_bipartite_colours_and_distinct_values_small_equal_numpy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    for _ in range(30):
        n, m = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        cells = rng.integers(0, 3, size=(n, m)).astype(np.int64)
        seeds = (rng.integers(0, 2, n).tolist(), rng.integers(0, 2, m).tolist())
        small, large = _both(monkeypatch, assignment.bipartite_colours, cells, *seeds)
        assert [c.tolist() for c in small] == [c.tolist() for c in large]
        values = rng.choice([0.0, 0.25, 1.0], size=(n, m))
        assert (assignment.distinct_values(values).tolist()
                == np.unique(values).tolist())


@pytest.mark.parametrize("seed", range(60))
def test_monotone_matching_small_equals_numpy(monkeypatch: pytest.MonkeyPatch,
                                              seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    # few distinct values: ties of totals and of counts everywhere
    matrix = rng.choice([0.0, 0.1, 0.2, 0.3, 0.5, 1.0], size=(n, m))
    small, large = _both(monkeypatch, assignment.monotone_matching, matrix)
    assert small == large


@settings(max_examples=400, deadline=None)
@given(scope_matrices())
def test_small_cell_labels_and_epsilon_equal_numpy(case: tuple[Any, ...]) -> None:
    """A small scope's cell labels, distinct values and tie bonus in Python (what
    _pair_scope uses up to _SMALL_CELLS cells) equal the numpy ones, and the colours
    of the labels' lines equal those of their array (-0.0 and 0.0, 1e-300, twins)."""
    matrix, same, depth, row_seed, col_seed = case
    assume(matrix.size > 0)
    small = referential._cell_labels_small(matrix, same, depth)
    assert small is not None
    labels, distinct = small
    numpy_distinct = assignment.distinct_values(matrix)
    numpy_labels = referential._cell_labels(matrix, same, depth, numpy_distinct)
    assert labels == numpy_labels.tolist()
    assert distinct == numpy_distinct.tolist()
    assert (assignment.tie_epsilon(matrix, distinct).hex()
            == assignment.tie_epsilon(matrix, numpy_distinct).hex())
    from_lines = assignment.bipartite_colours(labels, row_seed, col_seed)
    from_array = assignment.bipartite_colours(numpy_labels, row_seed, col_seed)
    assert [c.tolist() for c in from_lines] == [c.tolist() for c in from_array]
    assert all(c.dtype == np.int64 for c in from_lines)


def test_small_cell_labels_leave_nan_to_numpy() -> None:
    matrix = np.array([[0.5, np.nan], [np.nan, 1.0]])
    assert referential._cell_labels_small(matrix, np.zeros((2, 2)),
                                          np.zeros((2, 2), dtype=np.int64)) is None


def test_colours_of_lines_that_could_wrap_go_to_numpy() -> None:
    """Lines whose signatures could leave int64 are refined as an int64 array."""
    lines = [[2**61, 0], [0, 2**61]]
    rows, cols = assignment.bipartite_colours(lines, [0, 0], [0, 0])
    expected = assignment.bipartite_colours(np.array(lines, dtype=np.int64), [0, 0], [0, 0])
    assert rows.tolist() == expected[0].tolist() and cols.tolist() == expected[1].tolist()
