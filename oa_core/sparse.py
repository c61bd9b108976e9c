"""Exact assignment of long lists from their positive pairs only.

A pair whose score is 0 is never matched (:func:`oa_core.assignment.max_weight_matching`
drops it), so the best pairing of two long lists depends only on the pairs that
score above 0. When those are few (references that agree, equal values compared
``exact``: a gold item agrees with a handful of candidates, not with all of
them), the lists are aligned from a sparse set of positive pairs instead of an
``n x m`` matrix: memory and time grow with the number of positive pairs.

:func:`max_weight_matching_sparse` gives an optimum of the same problem as the
dense :func:`~oa_core.assignment.max_weight_matching`: the largest total
similarity, and among those the most genuine matches (the same tie bonus, computed
from the same matrix). The score of a list depends only on that total and that
count, so it is the same to the bit; *which* of several equally good pairings is
returned may differ (the two solvers break exact ties differently), as may the
pairs shown in the match tree for them. One exception, where the dense rule itself
is ambiguous: where the similarities of one list span more than 2**52 (float sums
cannot tell ``1 + 1e-17`` from ``1``). (A tie bonus that would buy more pairs with
a smaller total, ``[[0.25, 0], [1, 0.7]]``: ``1.0 + eps == 0.95 + 2 eps``, is
refused by both: the total is checked exactly and the bonus shrunk.)

:func:`equal_pairs` finds the positive pairs of an equality (a reference, an
``exact`` comparator): a hash join of two code arrays. The join, the union of pair
sets, the tie bonus and the solver are Rust's (``crates/oa-engine/src/align/``);
:func:`positive_scores` gathers the cells for the Python engine's scorer
(:class:`oa_core.matchtree.Scorer`), whose schema walk it follows.

Examples
--------
>>> rows, cols = equal_pairs(np.array([7, 8, -1]), np.array([8, 7, 7, -1]))
>>> rows.tolist(), cols.tolist()
([0, 0, 1], [1, 2, 0])
>>> max_weight_matching_sparse(rows, cols, np.array([1.0, 0.5, 1.0]), (3, 4))
[(0, 1), (1, 0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _engine
from .comparators import id_key, value_kind
from .matchtree import Scorer, key_denominator, map_score, power_of_two_scale
from .matchtree import _comparator_for as comparator_for
from .schema import SchemaNode

__all__ = ["equal_pairs", "max_weight_matching_sparse", "positive_scores", "sparse_tie_epsilon",
           "union_pairs"]

Pairs = list[tuple[int, int]]


def equal_pairs(gold_codes: np.ndarray, candidate_codes: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(i, j)`` with ``gold_codes[i] == candidate_codes[j] >= 0``, sorted.

    Negative codes never match (a value that cannot be equal to anything).
    """
    found = _engine.equal_pairs(np.asarray(gold_codes, dtype=np.int64),
                                np.asarray(candidate_codes, dtype=np.int64))
    return _indices(found[0]), _indices(found[1])


def union_pairs(parts: list[tuple[np.ndarray, np.ndarray]], shape: tuple[int, int]
                ) -> tuple[np.ndarray, np.ndarray]:
    """The union of several sets of pairs, sorted by row then column, without repeats."""
    found = _engine.union_pairs([(np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64))
                                 for r, c in parts], shape)
    return _indices(found[0]), _indices(found[1])


def sparse_tie_epsilon(values: np.ndarray, shape: tuple[int, int]) -> float:
    """:func:`oa_core.assignment.tie_epsilon` of the dense matrix that holds ``values``
    at some cells and 0 at the others (``values`` are its non-zero entries).

    >>> sparse_tie_epsilon(np.array([0.5, 1.0]), (1, 3))
    0.125
    """
    return _engine.sparse_tie_epsilon(np.asarray(values, dtype=np.float64), shape)


def max_weight_matching_sparse(rows: np.ndarray, cols: np.ndarray, values: np.ndarray,
                               shape: tuple[int, int]) -> Pairs:
    """The best pairing of a matrix given by its positive entries (0 elsewhere).

    Parameters
    ----------
    rows, cols : ndarray of int
        The cells of the positive entries (each cell once).
    values : ndarray of float64
        The entries, all > 0 (others are dropped: they are never matched).
    shape : (n, m)

    Returns
    -------
    list of (i, j)
        Sorted by i; a matching of the largest total of ``values``, and among
        those of the most pairs, as :func:`~oa_core.assignment.max_weight_matching`
        finds on the dense matrix.

    Raises
    ------
    ValueError
        On a cell outside the matrix or given twice, or a NaN or infinite value.

    Notes
    -----
    The Rust solver (``align/sparse.rs``) under both engines. As the dense
    solver: a matching of the largest total first; when it leaves elements
    unmatched that positive pairs could take, the objective ``value + eps`` per
    pair (``eps`` from :func:`sparse_tie_epsilon`) prefers more pairs, and is
    kept only if its total (summed exactly) is as large, ``eps`` shrunk below
    what it gave up otherwise. Complete blocks of one value (equal items) are
    paired in order; the rest by LAPJVsp on the classic reduction that lets an
    element stay unmatched (a dummy column per gold row, a dummy row per
    candidate column, the dummies weighing the smallest positive float). It
    gives SciPy's ``min_weight_full_bipartite_matching`` pairs wherever SciPy
    finishes, and finishes where SciPy loops forever (graded cells, several a
    row: it detects the repeated augmentation).
    """
    return _engine.max_weight_matching_sparse(
        np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
        np.asarray(values, dtype=np.float64), (int(shape[0]), int(shape[1])))


def _indices(found: bytearray) -> np.ndarray:
    """The Rust engine's int64 bytes as an array (writable, no copy)."""
    return np.frombuffer(found, dtype=np.int64)


# -- the positive pairs of two lists under a schema ----------------------------------------

Cells = tuple[np.ndarray, np.ndarray, np.ndarray]  # rows, cols, values (> 0), sorted


def positive_scores(scorer: Scorer, golds: Sequence[Any], candidates: Sequence[Any],
                    schema: SchemaNode) -> Cells | None:
    """The positive entries of ``scorer.matrix(golds, candidates, schema)``, or None.

    Only schemas whose scores come from equalities are handled (so the positive
    pairs are found by hash joins, never by trying every pair): references,
    primitives compared ``exact`` (booleans by default), and objects whose
    properties are such (or nested such objects), with no key term. Anything else
    (a string compared by Jaro, an identifier worth 1 everywhere, a null that
    scores ``nullScore`` > 0, objects of several key sets) gives None: the dense
    matrix is the way then.

    Returns
    -------
    rows, cols, values : ndarray
        Sorted by row, then column; ``values`` equal the dense matrix's entries to
        the bit (the same element-wise arithmetic on the same operands).
    """
    n, m = len(golds), len(candidates)
    if n == 0 or m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0)
    if schema.id_scope is not None or (schema.ref is not None
                                       and schema.ref in scorer.unresolved):
        return None  # 1.0 everywhere
    nulls = sum(g is None for g in golds) + sum(p is None for p in candidates)
    if nulls and schema.null_score > 0:
        return None  # a null against a value scores null_score: positive everywhere
    if schema.ref is not None:
        return _ref_cells(scorer, golds, candidates, schema.ref)
    if schema.type == "object" and not schema.inferred:
        if nulls or not all(isinstance(v, dict) for v in (*golds, *candidates)):
            return None
        return _object_cells(scorer, golds, candidates, schema)
    if schema.is_primitive and all(v is None or value_kind(v) in _PRIMITIVE_KINDS
                                   for v in (*golds, *candidates)):
        return _leaf_cells(scorer, golds, candidates, schema)
    return None


_PRIMITIVE_KINDS = frozenset({"string", "number", "boolean"})


def _gather(cells: Cells, flat: np.ndarray, width: int) -> np.ndarray:
    """The values of ``cells`` at the flat indices ``flat`` (0.0 where absent)."""
    rows, cols, values = cells
    own = rows * np.int64(width) + cols
    at = np.searchsorted(own, flat)
    inside = at < own.size
    found = np.zeros(flat.size, dtype=bool)
    found[inside] = own[at[inside]] == flat[inside]
    out = np.zeros(flat.size, dtype=np.float64)
    out[found] = values[at[found]]
    return out


def _equal_cells(gold_codes: np.ndarray, cand_codes: np.ndarray, value: float) -> Cells:
    rows, cols = equal_pairs(gold_codes, cand_codes)
    values = np.full(rows.size, value, dtype=np.float64)
    keep = values > 0
    return rows[keep], cols[keep], values[keep]


def _ref_cells(scorer: Scorer, golds: Sequence[Any], candidates: Sequence[Any],
               scope: str) -> Cells:
    # Scorer._ref_matrix's codes: the expected candidate id of each gold reference,
    # the id of each candidate one; dangling meets dangling, unmatched meets nothing.
    bijection = scorer.bijections.get(scope, {})
    existing = scorer.candidate_ids.get(scope, set())
    table: dict[Any, int] = {}
    dangling = table.setdefault(("\x00dangling",), 0)
    gold_codes = np.empty(len(golds), dtype=np.int64)
    for i, g in enumerate(golds):
        key = id_key(g) if g is not None else None
        if g is None:
            gold_codes[i] = table.setdefault(("\x00null",), len(table))
        elif key is None or key not in bijection:
            gold_codes[i] = dangling
        else:
            target = bijection[key]
            gold_codes[i] = (table.setdefault(target, len(table))
                             if target is not None and target in existing else -1)
    cand_codes = np.empty(len(candidates), dtype=np.int64)
    for j, p in enumerate(candidates):
        if p is None:
            cand_codes[j] = table.setdefault(("\x00null",), len(table))
            continue
        key = id_key(p)
        cand_codes[j] = table.setdefault(key, len(table)) if key in existing else dangling
    return _equal_cells(gold_codes, cand_codes, 1.0)


def _leaf_cells(scorer: Scorer, golds: Sequence[Any], candidates: Sequence[Any],
                schema: SchemaNode) -> Cells | None:
    kinds = {value_kind(v) for v in golds if v is not None} & {
        value_kind(v) for v in candidates if v is not None}
    for kind in kinds:  # a kind on both sides must be compared by equality
        comparator = comparator_for(scorer.comparators, schema, kind)
        if comparator is not None and comparator.name != "exact":
            return None
    exact = [kind for kind in kinds
             if comparator_for(scorer.comparators, schema, kind) is not None]
    # _leaf_matrix: 1.0 for equal values of a compared kind, zeroed under the
    # threshold; Scorer.matrix: 1.0 for two nulls (and null_score = 0 otherwise)
    table: dict[tuple[str, Any], int] = {}

    def code(v: Any) -> int:
        if v is None:
            return table.setdefault(("null", None), len(table))
        kind = value_kind(v)
        return table.setdefault((kind, v), len(table)) if kind in exact else -1

    gold_codes = np.fromiter((code(g) for g in golds), dtype=np.int64, count=len(golds))
    cand_codes = np.fromiter((code(p) for p in candidates), dtype=np.int64,
                             count=len(candidates))
    value = np.zeros(1)
    value[0] = 1.0
    value[value < schema.threshold] = 0.0
    null_code = table.get(("null", None))
    if null_code is None or float(value[0]) == 1.0:
        return _equal_cells(gold_codes, cand_codes, float(value[0]))
    # thresholded away, but two nulls still score 1
    both = _equal_cells(np.where(gold_codes == null_code, null_code, -1),
                        np.where(cand_codes == null_code, null_code, -1), 1.0)
    return both


def _object_cells(scorer: Scorer, golds: Sequence[Any], candidates: Sequence[Any],
                  schema: SchemaNode) -> Cells | None:
    gold_keys = {tuple(sorted(g)) for g in golds}
    cand_keys = {tuple(sorted(p)) for p in candidates}
    if len(gold_keys) != 1 or len(cand_keys) != 1:
        return None  # several key sets: several blocks of slots (the dense way)
    (g_keys,), (c_keys,) = gold_keys, cand_keys
    slots = scorer.key_slots(g_keys, c_keys, schema)
    key_scores = [similarity for *_, similarity in slots]
    weights = [Scorer._slot_schema(schema, g, c)[1] for g, c, _ in slots]
    d = key_denominator(len(g_keys), len(c_keys))
    # map_score's constant part: a positive key term, or no weight at all, makes
    # every pair positive
    if len(slots) == 0 or sum(power_of_two_scale(weights)) <= 0 or (
            schema.key_importance > 0 and any(s > 0 for s in key_scores)):
        return None
    parts: list[Cells | None] = []
    for (gold_key, cand_key, _), weight in zip(slots, weights, strict=True):
        if gold_key is None or cand_key is None or weight == 0:
            parts.append(None)  # scores 0 (or weighs 0): adds exactly 0.0
            continue
        sub = Scorer._slot_schema(schema, gold_key, cand_key)[0]
        cells = positive_scores(scorer, [g[gold_key] for g in golds],
                                [p[cand_key] for p in candidates], sub)
        if cells is None:
            return None
        parts.append(cells)
    n, m = len(golds), len(candidates)
    rows, cols = union_pairs([(r, c) for r, c, _ in (p for p in parts if p is not None)],
                             (n, m))
    flat = rows * np.int64(m) + cols
    columns = [0.0 if part is None else _gather(part, flat, m) for part in parts]
    values = map_score(key_scores, columns, weights, schema.key_importance,
                       schema.value_importance, d)
    values = np.broadcast_to(np.asarray(values, dtype=np.float64), flat.shape)
    keep = values > 0
    return rows[keep], cols[keep], np.array(values[keep])
