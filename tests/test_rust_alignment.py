"""The alignment solvers (Rust, ``crates/oa-engine/src/align/``) against their rules.

The engine calls these solvers in Rust; here they are called through
``oa_core._engine``. The tests draw tie-heavy inputs and check
each solver against an independent oracle or invariant: SciPy's
``linear_sum_assignment`` for the assignment (the same tie-breaking, the same
optimum), the tie bonus's formula, bit-equal lines for twin groups, and invariance
under permutation for the canonical order and the colour refinement.

The Rust solvers refuse every NaN or infinite cell with a ``ValueError`` (SciPy
refuses NaN and, when maximizing, +inf, but takes -inf).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from oa_core import _engine

SETTINGS = settings(deadline=None, max_examples=200, derandomize=True)


def scipy_lsa(matrix: np.ndarray, maximize: bool) -> list[tuple[int, int]]:
    rows, cols = linear_sum_assignment(matrix, maximize=maximize)
    return list(zip(rows.tolist(), cols.tolist(), strict=True))


def total(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> float:
    return math.fsum(matrix[i, j] for i, j in pairs)


VALUE_SETS = [(0.0, 0.5, 1.0), (0.0, 1.0), (0.0, 0.25, 0.5, 0.75, 1.0), (0.0, 0.1, 0.2, 0.3)]


@st.composite
def tie_matrices(draw: st.DrawFn, max_side: int = 9) -> np.ndarray:
    """A matrix of few distinct values (many ties) or of any floats in [0, 1]; shapes
    from 0 x N to ``max_side`` square, now and then big enough (over 1,024 cells) for
    the Python solvers' numpy paths."""
    big = draw(st.integers(0, 9)) == 0
    low = 25 if big else 0
    n = draw(st.integers(low, 45 if big else max_side))
    m = draw(st.integers(low, 45 if big else max_side))
    kind = draw(st.integers(0, len(VALUE_SETS)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == len(VALUE_SETS):
        return rng.random((n, m)).round(draw(st.integers(1, 17)))
    return rng.choice(np.array(VALUE_SETS[kind]), size=(n, m))


@SETTINGS
@given(tie_matrices())
def test_lsa_breaks_ties_as_scipy(matrix: np.ndarray) -> None:
    for cells in (matrix, matrix.T, -matrix):
        assert _engine.linear_sum_assignment(cells, True) == scipy_lsa(cells, True)
        assert _engine.linear_sum_assignment(cells, False) == scipy_lsa(cells, False)


def test_lsa_on_many_tie_heavy_matrices() -> None:
    rng = np.random.default_rng(2026)
    for k in range(1500):
        n, m = rng.integers(1, 12, 2)
        cells = rng.choice(np.array(VALUE_SETS[k % len(VALUE_SETS)]), size=(n, m))
        assert _engine.linear_sum_assignment(cells, bool(k % 2)) == scipy_lsa(cells, bool(k % 2))
    cells = rng.choice(np.array(VALUE_SETS[0]), size=(120, 90))
    assert _engine.linear_sum_assignment(cells, True) == scipy_lsa(cells, True)


def assert_best_genuine_matching(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> None:
    """``pairs``: sorted, a matching of positive cells only, of SciPy's optimal total
    (to rounding) and with at least as many pairs as SciPy's genuine ones."""
    assert pairs == sorted(pairs) and len({j for _, j in pairs}) == len(pairs)
    assert all(matrix[i, j] > 0 for i, j in pairs)
    best = scipy_lsa(matrix, True) if matrix.size else []
    genuine = [(i, j) for i, j in best if matrix[i, j] > 0]
    assert total(matrix, pairs) == pytest.approx(total(matrix, best), rel=1e-12, abs=1e-12)
    assert len(pairs) >= len(genuine)


@SETTINGS
@given(tie_matrices(), st.integers(0, 2))
def test_max_weight_matching(matrix: np.ndarray, bonus_kind: int) -> None:
    assert_best_genuine_matching(matrix, _engine.max_weight_matching(matrix))
    assert_best_genuine_matching(matrix.T, _engine.max_weight_matching(matrix.T))
    if bonus_kind:  # a structural bonus: 0/1 cells, scaled below or at the gaps
        rng = np.random.default_rng(matrix.size + bonus_kind)
        bonus = rng.integers(0, 2, size=matrix.shape) * (0.01 if bonus_kind == 1 else 0.5)
        pairs = _engine.max_weight_matching(matrix, bonus)
        assert pairs == sorted(pairs) and len({j for _, j in pairs}) == len(pairs)
        assert all(matrix[i, j] > 0 for i, j in pairs)  # genuine by the matrix alone


def test_more_genuine_pairs_on_many_tie_heavy_matrices() -> None:
    """The bonus for genuine pairs changes the solver's pairs on a few matrices in a
    hundred ([[0.5, 1], [0, 0.5]]); its shrinking is tried on fewer ([[0.25, 0], [1,
    0.7]]): never more pairs for a smaller total."""
    rng = np.random.default_rng(22)
    changed = 0
    cases = [np.array([[0.5, 1.0], [0.0, 0.5]]), np.array([[0.25, 0.0], [1.0, 0.7]]),
             np.array([[0.5, 0.3, 0.0, 1.0, 0.0], [0.2, 0.0, 0.2, 0.7, 0.5],
                       [0.7, 0.5, 0.7, 0.45, 0.5], [0.3, 0.2, 0.25, 1.0, 1.0],
                       [0.0, 0.2, 0.5, 0.3, 0.5]])]
    cases += [rng.choice(np.array(VALUE_SETS[k % len(VALUE_SETS)]), size=rng.integers(1, 9, 2))
              for k in range(3000)]
    for matrix in cases:
        pairs = _engine.max_weight_matching(matrix)
        assert_best_genuine_matching(matrix, pairs)
        plain = sorted((i, j) for i, j in scipy_lsa(matrix, True) if matrix[i, j] > 0)
        changed += pairs != plain
    assert _engine.max_weight_matching(np.array([[0.5, 1.0], [0.0, 0.5]])) == [(0, 0), (1, 1)]
    assert _engine.max_weight_matching(np.array([[0.25, 0.0], [1.0, 0.7]])) == [(1, 0)]
    assert changed >= 5


def _permuted(rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.permutation(n), rng.permutation(m)


@SETTINGS
@given(tie_matrices(), st.integers(0, 2**32 - 1))
def test_canonical_matching_ignores_the_input_order(matrix: np.ndarray, seed: int) -> None:
    """Rows and columns of distinct colours: a permuted input gives the permuted pairs."""
    n, m = matrix.shape
    rng = np.random.default_rng(seed)
    rows, cols = rng.permutation(n), rng.permutation(m)  # distinct colours
    bonus = (matrix == matrix.max(initial=0)).astype(np.float64)
    scale = _engine.tie_epsilon(matrix) if matrix.size else 1.0
    pairs = _engine.canonical_matching(matrix, bonus, rows.tolist(), cols.tolist(),
                                       bonus_scale=scale)
    p, q = _permuted(rng, n, m)
    moved = _engine.canonical_matching(
        np.ascontiguousarray(matrix[np.ix_(p, q)]), np.ascontiguousarray(bonus[np.ix_(p, q)]),
        rows[p].tolist(), cols[q].tolist(), bonus_scale=scale)
    assert sorted((int(p[a]), int(q[b])) for a, b in moved) == pairs
    assert total(matrix, pairs) == pytest.approx(total(matrix, _engine.max_weight_matching(
        matrix)), rel=1e-12, abs=1e-12)


@SETTINGS
@given(tie_matrices())
def test_tie_epsilon_is_the_smallest_gap_over_the_cells(matrix: np.ndarray) -> None:
    for cells in (matrix, matrix * 3.0 - 1.0):
        if cells.size:
            distinct = np.unique(cells)
            gap = float(np.min(np.diff(distinct))) if distinct.size > 1 else 1.0
            assert _engine.tie_epsilon(cells).hex() == (gap / (cells.size + 1)).hex()


@st.composite
def label_matrices(draw: st.DrawFn) -> tuple[np.ndarray, list[int], list[int]]:
    """Cell labels with few values (or huge ones, whose products wrap in int64) and seeds."""
    big = draw(st.integers(0, 7)) == 0
    n = draw(st.integers(25 if big else 0, 45 if big else 8))
    m = draw(st.integers(25 if big else 0, 45 if big else 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    top = draw(st.sampled_from([2, 4, 2**62]))
    cells = rng.integers(0, top, size=(n, m), dtype=np.int64)
    seeds = draw(st.integers(1, 3))
    return (cells, rng.integers(0, seeds, n).tolist(), rng.integers(0, seeds, m).tolist())


@SETTINGS
@given(label_matrices(), st.integers(0, 2**32 - 1))
def test_bipartite_colours_ignore_positions(case: tuple[np.ndarray, list[int], list[int]],
                                            seed: int) -> None:
    """Permuted rows and columns get the permuted colours; equal colours only for lines
    with equal seeds."""
    cells, rows, cols = case
    row_colours, col_colours = _engine.bipartite_colours(cells, rows, cols)
    p, q = _permuted(np.random.default_rng(seed), len(rows), len(cols))
    moved = _engine.bipartite_colours(np.ascontiguousarray(cells[np.ix_(p, q)]),
                                      [rows[k] for k in p], [cols[k] for k in q])
    assert moved == ([row_colours[k] for k in p], [col_colours[k] for k in q])
    for seeds, colours in ((rows, row_colours), (cols, col_colours)):
        assert all(seeds[a] == seeds[b] for a in range(len(seeds)) for b in range(len(seeds))
                   if colours[a] == colours[b])


@SETTINGS
@given(tie_matrices(), st.data())
def test_twin_groups_are_the_bit_equal_lines(matrix: np.ndarray, data: st.DataObject) -> None:
    n, m = matrix.shape
    if n and m:  # repeat some lines, one with a -0.0 (not the twin of 0.0)
        rows = data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n))
        matrix = matrix[rows + list(range(n))] if rows else matrix
        matrix = np.where(matrix == 0.0, np.float64(-0.0), matrix) if n % 3 == 0 else matrix
        matrix = np.ascontiguousarray(matrix)
    for axis in (0, 1):
        lines = matrix if axis == 0 else matrix.T
        same: dict[bytes, list[int]] = {}
        for k, line in enumerate(lines):
            same.setdefault(np.ascontiguousarray(line).tobytes(), []).append(k)
        expected = sorted(group for group in same.values() if len(group) > 1)
        assert _engine.twin_groups(matrix, axis) == expected


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int, str, str]], list[str]]:
    """A union of two small reference graphs: relations, labels and loops from few
    values, seeds from a few strings (non-ASCII among them)."""
    vertices = draw(st.integers(0, 30))
    if not vertices:
        return 0, [], []
    vertex = st.integers(0, vertices - 1)
    edge = st.tuples(vertex, vertex, st.sampled_from(["mentor->mentee", "a", "é", "b->a"]),
                     st.sampled_from(["", '"x"', "[1]"]))
    edges = draw(st.lists(edge, max_size=2 * vertices))
    seeds = draw(st.lists(st.sampled_from(["record", "hub", "récord", "Z"]),
                          min_size=vertices, max_size=vertices))
    return vertices, edges, seeds


@SETTINGS
@given(graphs(), st.integers(0, 2**32 - 1))
def test_wl_refine_ignores_vertex_numbering(
        graph: tuple[int, list[tuple[int, int, str, str]], list[str]], seed: int) -> None:
    """Renumbered vertices get the renumbered colours, round by round; the last round
    is stable (one more round would split no colour)."""
    vertices, edges, seeds = graph
    rounds = _engine.wl_refine(vertices, edges, seeds)
    order = np.random.default_rng(seed).permutation(vertices).tolist()
    new = {old: k for k, old in enumerate(order)}
    moved = _engine.wl_refine(vertices, [(new[s], new[t], r, lab) for s, t, r, lab in edges],
                              [seeds[old] for old in order])
    assert moved == [[colours[old] for old in order] for colours in rounds]
    if vertices:
        assert len(set(rounds[-1])) >= len(set(rounds[0]))


def test_wl_refine_on_the_running_example(running: tuple[Any, Any, Any]) -> None:
    import oa_core

    gold, candidate, schema = running
    trace = oa_core.align(gold, candidate, oa_core.Schema.parse(schema)).wl["person"]
    edges = [(e.source, e.target, e.relation, e.label) for e in trace.edges]
    seeds = [f"{c:08d}" for c in trace.rounds[0]]  # zero-padded: sorts as the colours
    assert _engine.wl_refine(len(trace.vertices), edges, seeds) == trace.rounds
    assert len(trace.rounds) > 1


class Agreement:
    """A dynamic tie level as referential alignment's reference agreement: how many of
    gold record i's edges (relation, other record) record j has to other's partner
    (a self-loop to itself)."""

    def __init__(self, rng: np.random.Generator, n: int, m: int, relations: int) -> None:
        def edges(count: int) -> list[list[tuple[int, int]]]:
            return [[(int(rng.integers(relations)), int(rng.integers(count)))
                     for _ in range(int(rng.integers(0, 3)))] for _ in range(count)]

        self.gold, self.candidate = edges(n), edges(m)

    def __call__(self, partner: dict[int, int], rows: list[int], cols: list[int]
                 ) -> np.ndarray:
        agreement = np.zeros((len(rows), len(cols)), dtype=np.int64)
        for a, i in enumerate(rows):
            for relation, other in self.gold[i]:
                target = -1 if other == i else partner.get(other)
                if target is None:
                    continue
                for b, j in enumerate(cols):
                    agreement[a, b] += ((relation, target) in self.candidate[j]
                                        or (target == -1 and (relation, j) in self.candidate[j]))
        return agreement


def repair_case(matrix: np.ndarray, seed: int, order: int
                ) -> tuple[list[tuple[int, int]], np.ndarray, list[Any], np.ndarray, np.ndarray]:
    """An optimal matching of ``matrix``, tie levels (colour bonus, depth, agreement;
    ``order`` picks which and in what order) and canonical colours."""
    rng = np.random.default_rng(seed)
    n, m = matrix.shape
    bonus = rng.integers(0, 2, size=(n, m), dtype=np.int64)
    depth = rng.integers(0, 3, size=(n, m), dtype=np.int64)
    agreement = Agreement(rng, n, m, 2)
    choices: list[list[Any]] = [[bonus, depth, agreement], [bonus, depth], [agreement],
                                [bonus, agreement, agreement], [depth * 2**40, agreement],
                                [agreement, bonus]]  # a dynamic level first: sliced as Python
    levels = choices[order]
    pairs = _engine.max_weight_matching(matrix)
    rows = rng.integers(0, max(n // 2, 1), n, dtype=np.int64)
    cols = rng.integers(0, max(m // 2, 1), m, dtype=np.int64)
    return pairs, matrix, levels, rows, cols


@st.composite
def twin_matrices(draw: st.DrawFn) -> np.ndarray:
    """Tie-heavy matrices with repeated rows and columns (twin groups)."""
    base = draw(tie_matrices(max_side=5))
    n, m = base.shape
    if not (n and m) or base.size > 100:
        return np.ones((3, 4))
    rows = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=2 * n))
    cols = draw(st.lists(st.integers(0, m - 1), min_size=m, max_size=2 * m))
    return np.ascontiguousarray(base[np.ix_(rows, cols)])


def assert_repair_keeps_the_optimum(matrix: np.ndarray, seed: int, order: int,
                                    passes: int = 2) -> None:
    """The repaired pairing re-pairs twins only: the same pairs of each twin-free
    row, the same total of ``matrix`` and the same number of pairs, each pair's
    verdict a level index (or ``len(levels)``)."""
    pairs, _, levels, rows, cols = repair_case(matrix, seed, order)
    repaired, decided = _engine.repair_twins(pairs, matrix, levels, rows.tolist(),
                                             cols.tolist(), passes=passes)
    assert len(repaired) == len(pairs) and repaired == sorted(repaired)
    assert len({j for _, j in repaired}) == len(repaired)
    assert math.fsum(matrix[i, j] for i, j in repaired) == math.fsum(
        matrix[i, j] for i, j in pairs)
    twins = {i for group in _engine.twin_groups(matrix, 0) for i in group}
    twin_cols = {j for group in _engine.twin_groups(matrix, 1) for j in group}
    assert {(i, j) for i, j in pairs if i not in twins and j not in twin_cols} <= set(repaired)
    assert set(decided) <= set(repaired)
    assert all(0 <= verdict <= len(levels) for verdict in decided.values())


@settings(deadline=None, max_examples=150, derandomize=True)
@given(twin_matrices(), st.integers(0, 2**32 - 1), st.integers(0, 5), st.integers(1, 3))
def test_repair_twins(matrix: np.ndarray, seed: int, order: int, passes: int) -> None:
    assert_repair_keeps_the_optimum(matrix, seed, order, passes)


def test_repair_twins_of_a_big_group() -> None:
    for order in range(6):
        assert_repair_keeps_the_optimum(np.ones((8, 7)), order, order)
    for order in (0, 1):
        assert_repair_keeps_the_optimum(np.ones((36, 34)), 7, order)


def test_twins_are_repaired_by_the_first_level_that_tells_them_apart() -> None:
    """Two twin rows paired against the first level: re-paired by it (verdict 0)."""
    assert _engine.repair_twins([(0, 0), (1, 1)], np.ones((2, 2)),
                                [np.array([[0.0, 1.0], [1.0, 0.0]])], [0, 1], [0, 1]) == (
        [(0, 1), (1, 0)], {(0, 1): 0, (1, 0): 0})
    # nothing tells them apart: the canonical order decides (verdict len(levels))
    assert _engine.repair_twins([(0, 1), (1, 0)], np.ones((2, 2)), [np.zeros((2, 2))],
                                [0, 1], [0, 1])[1] == {(0, 0): 1, (1, 1): 1}


def test_a_failing_level_raises_its_own_error() -> None:
    def broken(partner: dict[int, int], rows: list[int], cols: list[int]) -> np.ndarray:
        raise KeyError("level")

    with pytest.raises(KeyError, match="level"):
        _engine.repair_twins([(0, 0), (1, 1)], np.ones((2, 2)), [broken], [0, 0], [0, 0])


def test_nan_is_refused_by_the_assignment() -> None:
    matrix = np.array([[0.5, np.nan], [1.0, 0.0]])
    with pytest.raises(ValueError, match="invalid numeric entries"):
        _engine.max_weight_matching(matrix)
    with pytest.raises(ValueError, match="invalid numeric entries"):
        _engine.linear_sum_assignment(np.array([[np.inf, 0.0]]), True)


def test_rust_refuses_bad_input_with_value_errors() -> None:
    with pytest.raises(ValueError, match="NaN or infinity"):
        _engine.monotone_matching([[0.5, float("nan")]])  # Python once skipped the cell
    with pytest.raises(ValueError, match="2-D"):
        _engine.max_weight_matching(np.zeros(3))
    with pytest.raises(ValueError, match="differ in length"):
        _engine.max_weight_matching([[1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="bonus"):
        _engine.max_weight_matching(np.ones((2, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="row colours"):
        _engine.canonical_matching(np.ones((2, 2)), None, [0], [0, 1])
    with pytest.raises(ValueError, match="vertex 5"):
        _engine.wl_refine(2, [(0, 5, "r", "")], ["a", "a"])
    with pytest.raises(ValueError, match="axis"):
        _engine.twin_groups(np.ones((2, 2)), 2)
    assert _engine.max_weight_matching(np.zeros((0, 4))) == []
    assert _engine.monotone_matching(np.zeros((4, 0))) == []
    assert _engine.max_weight_matching(np.ones((1, 20000))) == [(0, 0)]
