"""The Rust pairing strategies: the sparse solver, ``blockBy`` blocks, long lists.

The sparse solver (``_engine.max_weight_matching_sparse``; SciPy's LAPJVsp looped
forever on some graded cells) must return the pairs of the SciPy solver it replaced
(kept here as the oracle, ``_scipy_pairs``) wherever that one finishes, and refuses
(``ValueError``) a cell outside the matrix or given twice and a NaN or infinite value.
``_engine.blocks`` partitions lists by their ``blockBy`` keys, whatever their order.

The scorer pairs ``blockBy`` lists within their blocks, and long unordered lists from
their positive cells (no whole matrix kept) where every other pair scores 0: the
scores of lists of the Python engine's days are frozen here (``float.hex``), and
score() has align()'s bits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, min_weight_full_bipartite_matching

import oa_core
from oa_core import _engine

SETTINGS = settings(deadline=None, max_examples=150, derandomize=True)


# -- the sparse solver -----------------------------------------------------------------

TIES = [1.0, 0.5, 0.25, 1 / 3, 2 / 3]
# beyond [0, 1], spread over far more than 2**52, subnormal, or dropped (<= 0)
WIDE = [3.0, 1e300, 1e-300, 5e-324, 2.0**-1070, 1.0, 0.0, -1.0]

Cells = tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]


@st.composite
def cell_sets(draw: st.DrawFn) -> Cells:
    """Unique cells of an ``n x m`` matrix in shuffled order: tied values, complete
    blocks of one value (equal items), free floats, or values of every scale."""
    n, m = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    kind = draw(st.sampled_from(["ties", "uniform", "floats", "wide"]))
    found: dict[tuple[int, int], float] = {}
    if kind == "uniform":
        row_group = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        col_group = draw(st.lists(st.integers(0, 2), min_size=m, max_size=m))
        value = draw(st.sampled_from(TIES))
        for i in range(n):
            for j in range(m):
                if row_group[i] == col_group[j]:
                    found[i, j] = value if row_group[i] else draw(st.sampled_from(TIES))
    elements = {"ties": st.sampled_from(TIES), "uniform": st.sampled_from(TIES),
                "floats": st.floats(1e-6, 1.0), "wide": st.sampled_from(WIDE)}[kind]
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, m - 1), elements),
                          max_size=n * m))
    for i, j, value in extra:
        found.setdefault((i, j), value)
    cells = draw(st.permutations(sorted(found.items())))
    rows = np.array([i for (i, _), _ in cells], dtype=np.int64)
    cols = np.array([j for (_, j), _ in cells], dtype=np.int64)
    values = np.array([v for _, v in cells], dtype=np.float64)
    return rows, cols, values, (n, m)


BONUS_TRIES = 4  # the solvers' tries for more pairs (crates/oa-engine/src/align/)


def _scipy_pairs(rows: np.ndarray, cols: np.ndarray, values: np.ndarray,
                 shape: tuple[int, int]) -> list[tuple[int, int]]:
    """The oracle: the SciPy solver ``sparse.py`` used before the Rust one (complete
    blocks of one value paired in order, the rest by SciPy's LAPJVsp on the reduction
    that lets an element stay unmatched, the tie bonus checked by an exact total).
    It loops forever on some graded cells, never on the drawn ones."""
    n, m = shape
    keep = values > 0
    rows, cols, values = rows[keep], cols[keep], values[keep]
    if not values.size:
        return []
    values = np.ldexp(values, -(math.frexp(float(values.max()))[1] - 1))
    eps = _engine.sparse_tie_epsilon(values, shape)
    labels = connected_components(coo_matrix((np.ones(rows.size), (rows, n + cols)),
                                             shape=(n + m, n + m)), directed=False)[1]
    pairs: list[tuple[int, int]] = []
    rest = np.ones(rows.size, dtype=bool)
    for label in np.unique(labels[rows]):
        members = np.flatnonzero(labels[rows] == label)
        block_rows, block_cols = np.unique(rows[members]), np.unique(cols[members])
        if (members.size == block_rows.size * block_cols.size
                and bool(np.all(values[members] == values[members[0]]))):
            pairs += zip(block_rows.tolist(), block_cols.tolist(), strict=False)
            rest[members] = False
    rows, cols, values = rows[rest], cols[rest], values[rest]
    if not values.size:
        return sorted(pairs)
    lookup = dict(zip(zip(rows.tolist(), cols.tolist(), strict=True), values.tolist(),
                      strict=True))

    def full(objective: np.ndarray) -> list[tuple[int, int]]:
        big_rows = np.concatenate([rows, np.arange(n), n + np.arange(m), n + cols])
        big_cols = np.concatenate([cols, m + np.arange(n), np.arange(m), m + rows])
        weights = np.concatenate([objective, np.full(n + m + rows.size, 5e-324)])
        graph = coo_matrix((weights, (big_rows, big_cols)), shape=(n + m, n + m)).tocsr()
        got_rows, got_cols = min_weight_full_bipartite_matching(graph, maximize=True)
        real = (got_rows < n) & (got_cols < m)
        return list(zip(got_rows[real].tolist(), got_cols[real].tolist(), strict=True))

    best = full(values)
    if len(best) < min(shape) and len(best) < values.size:
        largest = math.fsum(lookup[p] for p in best)
        for _ in range(BONUS_TRIES):
            more = full(values + eps)
            lost = largest - math.fsum(lookup[p] for p in more)
            if lost <= 0:
                best = more
                break
            eps = lost / (min(shape) + 1)
    return sorted(pairs + best)


@pytest.mark.filterwarnings("ignore:explicit zero weights")  # SciPy's, on subnormal cells
@SETTINGS
@given(cell_sets())
def test_the_sparse_solver_returns_scipys_pairs(cells: Cells) -> None:
    rows, cols, values, shape = cells
    pairs = _engine.max_weight_matching_sparse(rows, cols, values, shape)
    assert pairs == _scipy_pairs(rows, cols, values, shape)


@SETTINGS
@given(cell_sets())
def test_the_sparse_tie_epsilon_is_the_dense_one(cells: Cells) -> None:
    rows, cols, values, shape = cells
    keep = values > 0
    dense = np.zeros(shape)
    dense[rows[keep], cols[keep]] = values[keep]
    if keep.any():
        assert (_engine.sparse_tie_epsilon(values[keep], shape).hex()
                == _engine.tie_epsilon(dense).hex())


@pytest.mark.parametrize(("rows", "cols", "values", "message"), [
    ([0, 0], [1, 1], [1.0, 0.5], "given twice"),
    ([2], [0], [1.0], "outside"),
    ([0], [-1], [1.0], "negative"),
    ([0], [0], [float("nan")], "NaN"),
    ([0], [0], [float("inf")], "NaN or infinity"),
    ([0, 1], [0], [1.0, 1.0], "expected"),
])
def test_the_rust_solver_refuses_bad_cells(rows: list[int], cols: list[int],
                                           values: list[float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _engine.max_weight_matching_sparse(np.array(rows), np.array(cols), np.array(values),
                                           (2, 2))


@SETTINGS
@given(st.integers(0, 6), st.integers(0, 6),
       st.lists(st.tuples(st.integers(-1, 7), st.integers(-1, 7),
                          st.floats(allow_nan=True, allow_infinity=True)), max_size=20))
def test_hostile_cells_give_a_matching_or_a_value_error(
        n: int, m: int, cells: list[tuple[int, int, float]]) -> None:
    rows, cols, values = ([c[k] for c in cells] for k in range(3))
    try:
        pairs = _engine.max_weight_matching_sparse(rows, cols, values, (n, m))
    except ValueError:
        return
    given_cells = {(i, j): v for i, j, v in cells}
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    assert all(given_cells[i, j] > 0 for i, j in pairs)


@pytest.mark.parametrize("rows", [2**61, 2**64 - 3])  # past isize::MAX bytes: no allocation tried
def test_the_rust_solver_refuses_a_reduction_beyond_memory(rows: int) -> None:
    with pytest.raises(ValueError, match="memory"):
        _engine.max_weight_matching_sparse([0], [0], [1.0], (rows, 2))


# -- blocks ----------------------------------------------------------------------------

# (no lone surrogate: the documents refuse it before any blocking; tests/test_rust_errors.py)
KEY_VALUES = st.one_of(
    st.sampled_from(["a", "b", "", "é", "\U0001f600", "1"]),
    st.sampled_from([0, 1, -0.0, 0.0, 1.0, 1.5, 2**53, 2**53 + 1, 2.0**53, 2**80, -(2**70)]),
    st.booleans(), st.none(),
    st.sampled_from([[], [1], [1.0], {"x": 1}, {"x": [True, None]}, {}]),
)
RECORDS = st.one_of(
    st.dictionaries(st.sampled_from(["role", "size", "other"]), KEY_VALUES, max_size=3),
    st.sampled_from([None, "role", 3, [{"role": "a"}]]),
)
PROPERTIES = st.sampled_from([["role"], ["role", "size"], ["size", "role"], [], ["role", "role"]])


@SETTINGS
@given(st.lists(RECORDS, max_size=10), st.lists(RECORDS, max_size=10), PROPERTIES,
       st.randoms(use_true_random=False))
def test_blocks_partition_the_lists_whatever_their_order(
        golds: list[Any], candidates: list[Any], properties: list[str], rng: Any) -> None:
    """Every position in one block; reordered lists give the same blocks, in the same
    order (the keys'), with the positions moved."""
    found = _engine.blocks(golds, candidates, properties)
    assert found is not None  # plain JSON: keyed in Rust
    assert sorted(i for g, _ in found for i in g) == list(range(len(golds)))
    assert sorted(j for _, c in found for j in c) == list(range(len(candidates)))
    assert all(g == sorted(g) and c == sorted(c) for g, c in found)
    p, q = list(range(len(golds))), list(range(len(candidates)))
    rng.shuffle(p)
    rng.shuffle(q)
    moved = _engine.blocks([golds[k] for k in p], [candidates[k] for k in q], properties)
    assert moved is not None
    assert [(sorted(p[a] for a in g), sorted(q[c] for c in cs)) for g, cs in moved] == [
        (list(g), list(c)) for g, c in found]


# -- one entry point: dense, sparse and blocked pairing of a list -----------------------

ROLES = st.sampled_from(["a", "b", "c"])
ITEMS = st.fixed_dictionaries(
    {"role": ROLES, "v": st.integers(0, 2)},
    optional={"w": st.sampled_from([0, 1, 2.5])})


def _schema(exact: bool) -> oa_core.Schema:
    properties: dict[str, Any] = {"role": {"type": "string", "score": "exact"},
                                  "v": {"type": "integer", "score": "exact"}}
    if not exact:  # invdiff: every pair positive, no sparse cells
        properties["w"] = {"type": "number"}
    return oa_core.Schema.parse({"type": "array", "order": "align", "blockBy": "role",
                                 "items": {"type": "object", "properties": properties}})


def test_a_long_list_is_paired_from_its_cells() -> None:
    """Over ``SPARSE_FROM_CELLS`` pairs the scorer takes the sparse way; the Rust
    solver gives it the Python engine's pairs, hence its bits (frozen)."""
    schema = {"type": "array", "order": "align", "items": {"type": "integer",
                                                           "score": "exact"}}
    gold = [k % 700 for k in range(1100)]
    candidate = [(k * 7) % 900 for k in range(1000)]
    assert oa_core.score(gold, candidate, schema).hex() == "0x1.2131375206de1p-1"


def _graded_cells(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three cells a row of an ``n x n`` matrix, two-decimal values in (0, 1]."""
    rng = np.random.default_rng(seed)
    flat = np.unique(np.repeat(np.arange(n), 3) * n + rng.integers(0, n, 3 * n))
    return flat // n, flat % n, np.ceil(rng.random(flat.size) * 100) / 100


@pytest.mark.parametrize("n", [50, 200])
def test_the_rust_solver_ends_where_scipys_row_reduction_loops(n: int) -> None:
    """On these cells SciPy's augmenting row reduction trades one column between two
    rows forever (a dual lowered by less than its rounding), so the Python path never
    returns (not run here); the Rust solver sends the displaced row on and reaches
    the dense optimum: the same total and number of pairs."""
    rows, cols, values = _graded_cells(n, 0)
    pairs = _engine.max_weight_matching_sparse(rows, cols, values, (n, n))
    matrix = np.zeros((n, n))
    matrix[rows, cols] = values
    dense = _engine.max_weight_matching(matrix)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    assert (math.fsum(matrix[i, j] for i, j in pairs), len(pairs)) == (
        math.fsum(matrix[i, j] for i, j in dense), len(dense))


# -- the strategies inside the Rust scorer: oa_core.score and the match tree ---------------

def _scored_alike(gold: Any, candidate: Any, schema: oa_core.Schema) -> oa_core.Alignment:
    """align() of the lists; score() must have its bits, and an unordered list's
    score must not depend on the order of either side (the pairing is the best
    one, not the first found)."""
    result = oa_core.align(gold, candidate, schema)
    assert oa_core.score(gold, candidate, schema).hex() == result.score.hex()
    assert oa_core.score(gold[::-1], candidate, schema).hex() == result.score.hex()
    assert oa_core.score(gold, candidate[::-1], schema).hex() == result.score.hex()
    return result


@settings(deadline=None, max_examples=40, derandomize=True)
@given(st.lists(ITEMS, max_size=8), st.lists(ITEMS, max_size=8), st.booleans())
def test_block_by_lists_pair_within_their_blocks(golds: list[Any], candidates: list[Any],
                                                 exact: bool) -> None:
    tree = _scored_alike(golds, candidates, _schema(exact)).tree
    assert all(golds[i]["role"] == candidates[j]["role"] for i, j in tree.pairs)


def _items(count: int, salt: int) -> list[dict[str, Any]]:
    return [{"role": "abcdefghij"[(k * salt) % 10], "v": (k * 7 + salt) % 600}
            for k in range(count)]


def test_a_long_blocked_list_keeps_no_whole_matrix() -> None:
    """1,100 x 1,000 items in ten blocks: each block dense, the whole over
    ``SPARSE_FROM_CELLS`` so no matrix is kept."""
    schema = _schema(exact=False)
    gold, candidate = _items(1100, 3), _items(1000, 7)
    tree = _scored_alike(gold, candidate, schema).tree
    assert tree.matrix is None and tree.pairs
    assert all(gold[i]["role"] == candidate[j]["role"] for i, j in tree.pairs)


@pytest.mark.parametrize(("items", "sparse_way"), [
    ({"type": "integer", "score": "exact"}, True),
    ({"type": "object", "properties": {"role": {"type": "string", "score": "exact"},
                                       "v": {"type": "integer", "score": "exact"}}}, True),
    # a key term (every key agrees) and Jaro strings: positive everywhere, dense
    ({"type": "object", "keyImportance": 0.5, "properties": {
        "role": {"type": "string", "score": "exact"},
        "v": {"type": "integer", "score": "exact"}}}, False),
    ({"type": "string"}, False),
    # 1 and 1.0, candidate nulls, booleans and strings: equal by kind and value
    ({"type": "number", "score": "exact"}, True),
    ({"type": "number", "score": "exact", "nullScore": 0.5}, False),
])
def test_a_long_list_is_paired_from_its_cells_where_no_other_pair_scores(
        items: dict[str, Any], sparse_way: bool) -> None:
    schema = oa_core.Schema.parse({"type": "array", "order": "align", "items": items})
    if items["type"] == "object":
        gold, candidate = _items(1001, 3), _items(1000, 7)
    elif items["type"] == "string":
        gold = [f"w{k % 300}" for k in range(1001)]
        candidate = [f"w{(k * 7) % 400}" for k in range(1000)]
    elif items["type"] == "number":
        numbers = [1, 1.0, 2**60, 2.0**60, 0.5, -0.0, 0]
        mixed = [*numbers, True, "1", None, False]
        gold = [numbers[k % 7] if k % 3 else k for k in range(1100)]
        candidate = [mixed[(k * 7) % 11] if k % 2 else k * 2 for k in range(1000)]
    else:
        gold = [k % 700 for k in range(1100)]
        candidate = [(k * 7) % 900 for k in range(1000)]
    tree = _scored_alike(gold, candidate, schema).tree
    assert (tree.matrix is None) == sparse_way


def test_a_long_list_of_references_is_paired_from_its_cells() -> None:
    schema = oa_core.Schema.parse({"type": "object", "properties": {
        "people": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer", "idScope": "p"}, "name": {"type": "string"}}}},
        "links": {"type": "array", "order": "align", "items": {"type": "integer",
                                                                 "ref": "p"}}}})
    people = [{"id": k, "name": name} for k, name in enumerate(["ann", "bob", "cy"])]
    gold = {"people": people, "links": [k % 4 for k in range(1100)]}
    candidate = {"people": people[::-1], "links": [(k * 5) % 5 for k in range(1000)]}
    # the Python engine's bits, frozen
    assert oa_core.score(gold, candidate, schema).hex() == "0x1.269349a4d2693p-1"


LEAVES = st.one_of(st.integers(-3, 3), st.sampled_from([2**64, 1.0, -0.0, 0.5, 1e308]),
                   st.booleans(), st.sampled_from(["", "a", "1", "\U0001f600"]), st.none())
ITEM_SCHEMAS = {
    "integer": ({"type": "integer", "score": "exact"}, st.integers(-3, 3)),
    "number": ({"type": "number", "score": "exact"},
               st.one_of(st.integers(-3, 3), st.sampled_from([2**64, 1.0, -0.0, 0.5]))),
    "boolean": ({"type": "boolean"}, st.booleans()),
    "string": ({"type": "string", "score": "exact", "nullScore": 0.25},
               st.sampled_from(["", "a", "\U0001f600"])),
    "object": ({"type": "object", "properties": {
        "a": {"type": "integer", "score": "exact"},
        "b": {"type": "object", "properties": {"c": {"type": "boolean"}}}}},
        st.fixed_dictionaries({"a": st.integers(0, 2),
                               "b": st.fixed_dictionaries({"c": st.booleans()})})),
}


@settings(deadline=None, max_examples=12, derandomize=True)
@given(st.sampled_from(sorted(ITEM_SCHEMAS)), st.data())
def test_drawn_long_lists_score_whatever_their_order(kind: str, data: st.DataObject) -> None:
    """1,001 x 1,000 items cycled from a few drawn values (the candidate's of any
    kind): the sparse way or the dense one, score() and align() the same bits."""
    items, values = ITEM_SCHEMAS[kind]
    gold_pool = data.draw(st.lists(values, min_size=1, max_size=5))
    cand_pool = data.draw(st.lists(st.one_of(values, LEAVES), min_size=1, max_size=5))
    schema = oa_core.Schema.parse({"type": "array", "order": "align", "items": items})
    gold = [gold_pool[(k * 3) % len(gold_pool)] for k in range(1001)]
    candidate = [cand_pool[(k * 5) % len(cand_pool)] for k in range(1000)]
    _scored_alike(gold, candidate, schema)


class _Text(str):
    """A subclass of a JSON type (Python documents may hold one)."""


@pytest.mark.parametrize(("odd", "plain"), [(_Text("a"), "a"), (_Text("b"), "b")])
def test_a_subclass_is_blocked_as_its_plain_value(odd: Any, plain: Any) -> None:
    def scored(value: Any) -> str:
        golds = [{"role": value, "v": 1}, {"role": "a", "v": 2}, {"role": "b", "v": 1}]
        candidates = [{"role": "a", "v": 1}, {"role": value, "v": 2}, {"role": "b", "v": 2}]
        result = oa_core.align(golds, candidates, _schema(exact=True))
        return f"{result.score.hex()} {result.tree.pairs}"

    assert scored(odd) == scored(plain)
