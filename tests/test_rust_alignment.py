"""Parity of the Rust alignment solvers with today's Python (issue 22).

One harness, :func:`run`, computes every solver's output through one
implementation, Python (``oa_core.assignment``, ``oa_core.wl``, SciPy) or Rust
(``oa_core._engine``); the tests draw tie-heavy inputs and assert that both give
the same pairs, colours and rounds (floats compared as ``float.hex``).

Where the Rust solvers differ on purpose: they refuse every NaN or infinite cell
with a ``ValueError`` (SciPy refuses NaN and, when maximizing, +inf, but takes -inf;
Python's ``monotone_matching`` skips a NaN cell), and the twin repair sums a level's
best and worst pairings exactly where numpy sums them pairwise, the same numbers on
the integer levels the engine uses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from oa_core import _engine, assignment, wl

SETTINGS = settings(deadline=None, max_examples=200, derandomize=True)


@dataclass(frozen=True)
class Solvers:
    """The alignment functions of one implementation, with one calling convention."""

    lsa: Callable[[np.ndarray, bool], list[tuple[int, int]]]
    max_weight: Callable[[np.ndarray, np.ndarray | None], list[tuple[int, int]]]
    canonical: Callable[..., list[tuple[int, int]]]
    monotone: Callable[[np.ndarray], list[tuple[int, int]]]
    tie_epsilon: Callable[[np.ndarray], float]
    colours: Callable[[np.ndarray, list[int], list[int]], tuple[list[int], list[int]]]
    twins: Callable[[np.ndarray, int], list[list[int]]]
    refine: Callable[[int, list[tuple[int, int, str, str]], list[str]], list[list[int]]]
    repair: Callable[..., tuple[list[tuple[int, int]], dict[tuple[int, int], int]]]


def _python_lsa(matrix: np.ndarray, maximize: bool) -> list[tuple[int, int]]:
    rows, cols = linear_sum_assignment(matrix, maximize=maximize)
    return list(zip(rows.tolist(), cols.tolist(), strict=True))


def _python_colours(cells: np.ndarray, rows: list[int], cols: list[int]
                    ) -> tuple[list[int], list[int]]:
    row_colours, col_colours = assignment.bipartite_colours(cells, rows, cols)
    return row_colours.tolist(), col_colours.tolist()


def _python_refine(vertices: int, edges: list[tuple[int, int, str, str]],
                   initial: list[str]) -> list[list[int]]:
    nodes = [wl.WLVertex("gold", f"/v/{k}", k) for k in range(vertices)]
    links = [wl.WLEdge("gold", s, t, relation, label) for s, t, relation, label in edges]
    return wl.refine(nodes, links, initial).rounds


PYTHON = Solvers(
    lsa=_python_lsa, max_weight=assignment.max_weight_matching,
    canonical=assignment.canonical_matching, monotone=assignment.monotone_matching,
    tie_epsilon=assignment.tie_epsilon, colours=_python_colours,
    twins=assignment.twin_groups, refine=_python_refine, repair=assignment.repair_twins)
RUST = Solvers(
    lsa=_engine.linear_sum_assignment, max_weight=_engine.max_weight_matching,
    canonical=_engine.canonical_matching, monotone=_engine.monotone_matching,
    tie_epsilon=_engine.tie_epsilon, colours=_engine.bipartite_colours,
    twins=_engine.twin_groups, refine=_engine.wl_refine, repair=_engine.repair_twins)


def run(solvers: Solvers, case: str, *args: Any, **kwargs: Any) -> Any:
    """The output of solver ``case`` of one implementation, floats as hex."""
    result = getattr(solvers, case)(*args, **kwargs)
    return result.hex() if isinstance(result, float) else result


def same(case: str, *args: Any, **kwargs: Any) -> Any:
    """Run ``case`` through both implementations; assert equal outputs, return them."""
    expected = run(PYTHON, case, *args, **kwargs)
    assert run(RUST, case, *args, **kwargs) == expected
    return expected


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
        same("lsa", cells, True)
        same("lsa", cells, False)


def test_lsa_on_many_tie_heavy_matrices() -> None:
    rng = np.random.default_rng(2026)
    for k in range(1500):
        n, m = rng.integers(1, 12, 2)
        values = np.array(VALUE_SETS[k % len(VALUE_SETS)])
        same("lsa", rng.choice(values, size=(n, m)), bool(k % 2))
    same("lsa", rng.choice(np.array(VALUE_SETS[0]), size=(120, 90)), True)


@SETTINGS
@given(tie_matrices(), st.integers(0, 2))
def test_max_weight_matching(matrix: np.ndarray, bonus_kind: int) -> None:
    same("max_weight", matrix, None)
    same("max_weight", matrix.T, None)
    if bonus_kind:  # a structural bonus: 0/1 cells, scaled below or at the gaps
        rng = np.random.default_rng(matrix.size + bonus_kind)
        bonus = rng.integers(0, 2, size=matrix.shape) * (0.01 if bonus_kind == 1 else 0.5)
        same("max_weight", matrix, bonus)


def test_more_genuine_pairs_on_many_tie_heavy_matrices() -> None:
    """The bonus for genuine pairs changes the solver's pairs on a few matrices in a
    hundred ([[0.5, 1], [0, 0.5]]); its shrinking is tried on fewer ([[0.25, 0], [1,
    0.7]]) and finds other pairs on about one in 60,000 (the third case)."""
    rng = np.random.default_rng(22)
    changed = 0
    cases = [np.array([[0.5, 1.0], [0.0, 0.5]]), np.array([[0.25, 0.0], [1.0, 0.7]]),
             np.array([[0.5, 0.3, 0.0, 1.0, 0.0], [0.2, 0.0, 0.2, 0.7, 0.5],
                       [0.7, 0.5, 0.7, 0.45, 0.5], [0.3, 0.2, 0.25, 1.0, 1.0],
                       [0.0, 0.2, 0.5, 0.3, 0.5]])]
    cases += [rng.choice(np.array(VALUE_SETS[k % len(VALUE_SETS)]), size=rng.integers(1, 9, 2))
              for k in range(3000)]
    for matrix in cases:
        pairs = same("max_weight", matrix, None)
        plain = sorted((i, j) for i, j in _python_lsa(matrix, True) if matrix[i, j] > 0)
        changed += pairs != plain
    assert changed >= 5


def test_monotone_on_many_tie_heavy_matrices() -> None:
    rng = np.random.default_rng(23)
    for k in range(1500):
        shape = rng.integers(30, 50, 2) if k % 50 == 0 else rng.integers(1, 10, 2)
        same("monotone", rng.choice(np.array(VALUE_SETS[k % len(VALUE_SETS)]), size=shape))


@SETTINGS
@given(tie_matrices(), st.integers(0, 3), st.data())
def test_canonical_matching(matrix: np.ndarray, palette: int, data: st.DataObject) -> None:
    n, m = matrix.shape
    rows = np.array(data.draw(st.lists(st.integers(0, palette), min_size=n, max_size=n)),
                    dtype=np.int64)
    cols = np.array(data.draw(st.lists(st.integers(0, palette), min_size=m, max_size=m)),
                    dtype=np.int64)
    same("canonical", matrix, None, rows, cols)
    bonus = (matrix == matrix.max(initial=0)).astype(np.float64)
    scale = same("tie_epsilon", matrix) if matrix.size else "0x1p-10"
    same("canonical", matrix, bonus, rows, cols, bonus_scale=float.fromhex(scale))


@SETTINGS
@given(tie_matrices())
def test_monotone_matching(matrix: np.ndarray) -> None:
    same("monotone", matrix)
    same("monotone", matrix.T)


@SETTINGS
@given(tie_matrices())
def test_tie_epsilon(matrix: np.ndarray) -> None:
    if matrix.size:
        same("tie_epsilon", matrix)
        same("tie_epsilon", matrix * 3.0 - 1.0)


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
@given(label_matrices())
def test_bipartite_colours(case: tuple[np.ndarray, list[int], list[int]]) -> None:
    cells, rows, cols = case
    same("colours", cells, rows, cols)
    same("colours", np.ascontiguousarray(cells.T), cols, rows)


@SETTINGS
@given(tie_matrices(), st.data())
def test_twin_groups(matrix: np.ndarray, data: st.DataObject) -> None:
    n, m = matrix.shape
    if n and m:  # repeat some lines, one with a -0.0 (not the twin of 0.0)
        rows = data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n))
        matrix = matrix[rows + list(range(n))] if rows else matrix
        matrix = np.where(matrix == 0.0, np.float64(-0.0), matrix) if n % 3 == 0 else matrix
        matrix = np.ascontiguousarray(matrix)
    for axis in (0, 1):
        same("twins", matrix, axis)


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
@given(graphs())
def test_wl_refine(graph: tuple[int, list[tuple[int, int, str, str]], list[str]]) -> None:
    same("refine", *graph)


def test_wl_refine_on_the_running_example(running: tuple[Any, Any, Any]) -> None:
    import oa_core

    gold, candidate, schema = running
    trace = oa_core.align(gold, candidate, oa_core.Schema.parse(schema)).wl["person"]
    edges = [(e.source, e.target, e.relation, e.label) for e in trace.edges]
    seeds = [f"{c:08d}" for c in trace.rounds[0]]  # zero-padded: sorts as the colours
    assert same("refine", len(trace.vertices), edges, seeds) == trace.rounds
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
    pairs = assignment.max_weight_matching(matrix)
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


@settings(deadline=None, max_examples=150, derandomize=True)
@given(twin_matrices(), st.integers(0, 2**32 - 1), st.integers(0, 5), st.integers(1, 3))
def test_repair_twins(matrix: np.ndarray, seed: int, order: int, passes: int) -> None:
    same("repair", *repair_case(matrix, seed, order), passes=passes)


def test_repair_twins_of_a_big_group() -> None:
    """Groups of 8 x 7 (spreads from the solver, not by looking through pairings) and
    over 1,024 cells (the Python solver's numpy path: greedy, then LSA)."""
    for order in range(6):
        same("repair", *repair_case(np.ones((8, 7)), order, order))
    for order in (0, 1):
        same("repair", *repair_case(np.ones((36, 34)), 7, order))


def _floats(matrix: Any) -> np.ndarray:
    return np.ascontiguousarray(matrix, dtype=np.float64)


def _rust_engine_solvers(calls: Counter[str]) -> dict[str, dict[str, Callable[..., Any]]]:
    """Stand-ins for the Python solvers the engine imports, calling the Rust ones
    (each call counted), with the Python solvers' argument and result types."""

    def counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)
        return call

    def max_weight(matrix: Any, bonus: Any = None) -> Any:
        return _engine.max_weight_matching(_floats(matrix),
                                           None if bonus is None else _floats(bonus))

    def colours(cells: Any, row_seed: Any, col_seed: Any) -> Any:
        rows = np.asarray(row_seed, dtype=np.int64).tolist()
        cols = np.asarray(col_seed, dtype=np.int64).tolist()
        labels = np.asarray(cells, dtype=np.int64).reshape(len(rows), len(cols))
        found = _engine.bipartite_colours(labels, rows, cols)
        return np.array(found[0], dtype=np.int64), np.array(found[1], dtype=np.int64)

    def canonical(matrix: Any, bonus: Any, rows: Any, cols: Any, *,
                  bonus_scale: float = 1.0) -> Any:
        return _engine.canonical_matching(
            _floats(matrix), None if bonus is None else _floats(bonus),
            np.asarray(rows).tolist(), np.asarray(cols).tolist(), bonus_scale=bonus_scale)

    def repair(pairs: Any, matrix: Any, levels: Any, rows: Any, cols: Any, *,
               passes: int = 2) -> Any:
        levels = [level if callable(level) else _floats(level) for level in levels]
        return _engine.repair_twins(pairs, _floats(matrix), levels, np.asarray(rows).tolist(),
                                    np.asarray(cols).tolist(), passes=passes)

    def refine(vertices: Any, edges: Any, initial: Any, *, scope: str = "",
               mode: str = "tie_break") -> wl.WLTrace:
        assert all(isinstance(seed, str) for seed in initial)
        rounds = _engine.wl_refine(len(vertices), [(e.source, e.target, e.relation, e.label)
                                                   for e in edges], list(initial))
        return wl.WLTrace(scope, mode, list(vertices), list(edges), rounds)

    referential: dict[str, Callable[..., Any]] = {
        "max_weight_matching": max_weight, "bipartite_colours": colours,
        "canonical_matching": canonical, "repair_twins": repair, "refine": refine,
        "tie_epsilon": lambda matrix, distinct=None: _engine.tie_epsilon(_floats(matrix)),
        "twin_groups": lambda matrix, axis: _engine.twin_groups(_floats(matrix), axis)}
    matchtree: dict[str, Callable[..., Any]] = {
        "max_weight_matching": max_weight,
        "monotone_matching": lambda matrix: _engine.monotone_matching(_floats(matrix))}
    return {module: {name: counted(name, function) for name, function in functions.items()}
            for module, functions in (("referential", referential), ("matchtree", matchtree))}


def test_the_engine_gives_the_same_bits_through_the_rust_solvers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every score, pair, tie rule, WL round and feedback delta of a corpus (the
    samples, Org2Graph, flat and list workloads, a 60-person graph, hostile triples
    and hostile triples with scopes nested in arrays;
    ``benchmarks/bits.py``) in the three WL modes, with the engine's solvers swapped
    for the Rust ones (a test-only swap: the engine itself is not wired to Rust)."""
    from benchmarks import bits
    from oa_core import matchtree, referential

    monkeypatch.setenv("OA_ENGINE", "python")  # the Python engine, its solvers swapped
    cases = list(bits.corpus(hostile_count=12, org2graph_count=2, nested_count=12))
    expected = {name: bits.case(*case) for name, *case in cases}
    calls: Counter[str] = Counter()
    for module, functions in _rust_engine_solvers(calls).items():
        for name, function in functions.items():
            monkeypatch.setattr({"referential": referential, "matchtree": matchtree}[module],
                                name, function)
    for name, *case in cases:
        assert bits.case(*case) == expected[name], name
    assert {"max_weight_matching", "monotone_matching", "bipartite_colours", "refine",
            "canonical_matching", "repair_twins", "tie_epsilon"} <= set(calls)


@pytest.mark.parametrize("solvers", [PYTHON, RUST], ids=["python", "rust"])
def test_a_failing_level_raises_its_own_error(solvers: Solvers) -> None:
    def broken(partner: dict[int, int], rows: list[int], cols: list[int]) -> np.ndarray:
        raise KeyError("level")

    with pytest.raises(KeyError, match="level"):
        run(solvers, "repair", [(0, 0), (1, 1)], np.ones((2, 2)), [broken],
            np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("solvers", [PYTHON, RUST], ids=["python", "rust"])
def test_nan_is_refused_by_the_assignment(solvers: Solvers) -> None:
    matrix = np.array([[0.5, np.nan], [1.0, 0.0]])
    with pytest.raises(ValueError, match="invalid numeric entries"):
        run(solvers, "max_weight", matrix, None)
    with pytest.raises(ValueError, match="invalid numeric entries"):
        run(solvers, "lsa", np.array([[np.inf, 0.0]]), True)


def test_rust_refuses_bad_input_with_value_errors() -> None:
    with pytest.raises(ValueError, match="NaN or infinity"):
        _engine.monotone_matching([[0.5, float("nan")]])  # Python skips the cell
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
