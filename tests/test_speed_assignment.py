"""The plain-Python paths of small matrices (oa_core.assignment._SMALL_CELLS) give
what the numpy paths give."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oa_helpers import scope_matrices
from scipy.optimize import linear_sum_assignment

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


# -- twin repair: a group repeating the one before is skipped; the old loop, kept as
# the reference ---------------------------------------------------------------------

def _old_repair_twins(pairs: list[tuple[int, int]], matrix: np.ndarray,
                      levels: Sequence[Any], row_colours: np.ndarray, col_colours: np.ndarray,
                      *, passes: int = 2
                      ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], int]]:
    """repair_twins before groups repeating the one before were skipped."""
    partner = dict(pairs)
    decided: dict[tuple[int, int], int] = {}
    # canonical group order: by the smallest colour of a member, never by position
    groups_of = [sorted(assignment.twin_groups(matrix, 0),
                        key=lambda m: min(row_colours[k] for k in m)),
                 sorted(assignment.twin_groups(matrix, 1),
                        key=lambda m: min(col_colours[k] for k in m))]
    for _ in range(passes if any(callable(level) for level in levels) else 1):
        start = dict(partner)
        # Within a pass a pair keeps the least decisive verdict of the groups that
        # chose it: a column group cannot undo that its row group chose arbitrarily.
        decided = {}
        taken = {j: i for i, j in partner.items()}  # kept up to date group by group
        for axis, members in ((a, m) for a in (0, 1) for m in groups_of[a]):
            if axis == 0:
                rows = sorted(members, key=lambda i: row_colours[i])
                cols = sorted((partner[i] for i in members if i in partner),
                              key=lambda j: col_colours[j])
            else:
                cols = sorted(members, key=lambda j: col_colours[j])
                rows = sorted((taken[j] for j in members if j in taken),
                              key=lambda i: row_colours[i])
            if not rows or not cols:
                continue
            for i in rows:
                old = partner.pop(i, None)
                if old is not None and taken.get(old) == i:
                    del taken[old]
            dynamic = [level for level in levels if callable(level)]
            arbitrary: set[tuple[int, int]] = set()
            if dynamic and len(rows) * len(cols) <= assignment._SMALL_CELLS:
                # a small group: each level's cells as the Python floats of its
                # astype(float64) (read cell by cell: no index grid), its spread and
                # its greedy pairing from them
                cells = [level(partner, rows, cols).astype(np.float64).tolist()
                         if callable(level) else
                         [[float(level[i, j]) for j in cols] for i in rows]
                         for level in levels]
                deciding = next((k for k, sub in enumerate(cells)
                                 if assignment._spread_of(sub) > 0), len(cells))
                chosen, arbitrary = assignment._greedy_small(
                    rows, cols, cells[:len(levels) - len(dynamic)], dynamic, partner)
                for i, j in chosen:
                    partner[i] = j
                    verdict = len(levels) if (i, j) in arbitrary else deciding
                    decided[i, j] = max(verdict, decided.get((i, j), verdict))
                for i in rows:
                    if i in partner:
                        taken[partner[i]] = i
                continue
            grid = np.ix_(rows, cols)
            subs = [(level(partner, rows, cols) if callable(level) else level[grid]).astype(
                np.float64) for level in levels]
            deciding = next((k for k, sub in enumerate(subs)
                             if assignment._spread(sub) > 0), len(subs))
            if dynamic and len(rows) * len(cols) <= assignment._GREEDY_CELLS:
                chosen, arbitrary = assignment._greedy(
                    rows, cols, subs[:len(levels) - len(dynamic)], dynamic, partner)
            else:
                r, c = linear_sum_assignment(assignment._lexicographic(subs, len(rows), len(cols)),
                                             maximize=True)
                chosen = [(rows[a], cols[b]) for a, b in zip(r, c, strict=True)]
            for i, j in chosen:
                partner[i] = j
                verdict = len(levels) if (i, j) in arbitrary else deciding
                decided[i, j] = max(verdict, decided.get((i, j), verdict))
            for i in rows:
                if i in partner:
                    taken[partner[i]] = i
        # nothing a pass reads changes but the pairing: from an unchanged pairing the
        # next pass would repeat this one, verdicts included
        if partner == start:
            break
    result = sorted(partner.items())
    return result, {p: decided[p] for p in result if p in decided}



def _counted(table: np.ndarray, calls: list[int]) -> Callable[..., np.ndarray]:
    """A level that follows the pairing (the parity of the pairs on ``table``'s
    positive cells shifts every cell), counting its calls."""
    def follows(pairing: dict[int, int], rows: list[int], cols: list[int]) -> np.ndarray:
        calls.append(1)
        shift = sum(1 for i, j in pairing.items() if table[i, j] > 0) % 2
        return (table[np.ix_(rows, cols)] + shift).astype(np.int64)
    return follows


@settings(max_examples=400, deadline=None)
@given(scope_matrices(), st.integers(0, 2**32), st.booleans())
def test_twin_repair_skipping_repeated_groups_equals_the_old_loop(
        case: tuple[Any, ...], seed: int, small: bool) -> None:
    """repair_twins' pairs and verdicts equal those of the loop that re-paired a
    group of the rows and columns the group before had just re-paired (twin rows
    paired with twin columns), on the small and the numpy paths."""
    matrix, same, depth, row_seed, col_seed = case
    assume(matrix.size > 0)
    table = np.random.default_rng(seed).integers(0, 3, size=matrix.shape)
    pairs = assignment.max_weight_matching(matrix)
    rows, cols = np.array(row_seed, dtype=np.int64), np.array(col_seed, dtype=np.int64)
    new_calls: list[int] = []
    old_calls: list[int] = []
    old = assignment._SMALL_CELLS
    assignment._SMALL_CELLS = old if small else 0
    try:
        new = assignment.repair_twins(list(pairs), matrix,
                                      [same, depth, _counted(table, new_calls)], rows, cols)
        reference = _old_repair_twins(list(pairs), matrix,
                                      [same, depth, _counted(table, old_calls)], rows, cols)
    finally:
        assignment._SMALL_CELLS = old
    assert new == reference
    assert len(new_calls) <= len(old_calls)


def test_twin_rows_paired_with_twin_columns_are_repaired_once() -> None:
    """Two twin rows paired with two twin columns: the column group is the row group
    again, and is not re-paired (fewer level calls, the same result)."""
    matrix = np.ones((2, 2))
    levels = [np.zeros((2, 2)), np.array([[2, 0], [0, 2]], dtype=np.int64)]
    new_calls: list[int] = []
    old_calls: list[int] = []
    table = np.array([[1, 0], [0, 1]])
    colours = np.array([0, 1], dtype=np.int64)
    new = assignment.repair_twins([(0, 1), (1, 0)], matrix,
                                  [*levels, _counted(table, new_calls)], colours, colours)
    reference = _old_repair_twins([(0, 1), (1, 0)], matrix,
                                  [*levels, _counted(table, old_calls)], colours, colours)
    assert new == reference == ([(0, 0), (1, 1)], {(0, 0): 1, (1, 1): 1})
    assert len(new_calls) < len(old_calls)
