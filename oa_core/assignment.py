"""Optimal matchings of two collections from a similarity matrix (the Rust solvers).

Two regimes (paper, section "Sequences"):

* :func:`max_weight_matching`: order-agnostic, the maximum-weight assignment on a
  rectangular matrix;
* :func:`monotone_matching`: order-sensitive, the best monotone matching with
  gaps (the sequence-alignment dynamic program).

Both return only *genuine* matches: a pair the solver chose whose similarity is 0
is dropped (its elements count as missing and excess). Among optimal matchings of
equal total similarity both prefer the one with more genuine matches (it scores
higher, as the denominator shrinks); remaining ties are resolved by position, so
the result is a pure function of the matrix.

The rules live in ``crates/oa-engine/src/align/`` and are reached through
``oa_core._engine`` (``crates/oa-python/src/align.rs``); these functions only
convert numpy in and out for the Python engine's callers. Every NaN or infinite
cell is refused with a ``ValueError``.

Examples
--------
>>> import numpy as np
>>> max_weight_matching(np.array([[0.2, 0.9], [0.8, 0.1]]))
[(0, 1), (1, 0)]
>>> monotone_matching(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.95]]))
[(0, 1), (2, 2)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import _engine

__all__ = [
    "Level",
    "bipartite_colours",
    "canonical_matching",
    "max_weight_matching",
    "monotone_matching",
    "repair_twins",
    "tie_epsilon",
    "twin_groups",
]

Pairs = list[tuple[int, int]]
Level = np.ndarray | Callable[[dict[int, int], list[int], list[int]], np.ndarray]


def _floats(matrix: np.ndarray) -> np.ndarray:
    """A C-contiguous float64 view (or copy) of ``matrix``: the buffer Rust reads."""
    return np.ascontiguousarray(matrix, dtype=np.float64)


def _ints(colours: Sequence[int] | np.ndarray) -> list[int]:
    return np.asarray(colours, dtype=np.int64).tolist()


def tie_epsilon(matrix: np.ndarray) -> float:
    """A bonus small enough to break only exact ties of a matrix's entries.

    The smallest positive gap between distinct values of ``matrix`` divided by
    ``n*m + 1`` (``1/(n*m + 1)`` when all values are equal), so that bonuses summed
    over any matching stay below one gap.

    >>> tie_epsilon(np.array([[0.0, 0.5], [0.5, 1.0]]))
    0.1
    """
    return _engine.tie_epsilon(_floats(matrix))


def max_weight_matching(matrix: np.ndarray, bonus: np.ndarray | None = None) -> Pairs:
    """Maximum-weight assignment; pairs with similarity 0 are dropped.

    Parameters
    ----------
    matrix : ndarray, shape (n, m)
        Similarities in [0, 1].
    bonus : ndarray, shape (n, m), optional
        Added to ``matrix`` for the solver only (e.g. a structural tie-break);
        whether a pair is genuine is judged on ``matrix`` alone.

    Returns
    -------
    list of (i, j)
        Sorted by i.
    """
    return _engine.max_weight_matching(_floats(matrix),
                                       None if bonus is None else _floats(bonus))


def bipartite_colours(cells: np.ndarray | list[list[int]], row_seed: Sequence[int],
                      col_seed: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Colour refinement of a complete bipartite graph with labelled cells.

    A row's colour becomes (its colour, the sorted multiset of (cell label, column
    colour)), a column's likewise, until the number of colours stops growing. Colours
    depend only on the labels and seeds, never on positions, so sorting rows and
    columns by colour gives an order that is the same for any permutation of the input.

    Parameters
    ----------
    cells : ndarray of int64, shape (n, m), or its lines as lists of ints
        A label per cell (equal labels for equal cells).
    row_seed, col_seed : sequence of int
        Initial colours.

    Returns
    -------
    row_colours, col_colours : ndarray of int64

    >>> rows, cols = bipartite_colours(np.array([[1, 0], [0, 0]]), [0, 0], [0, 0])
    >>> rows.tolist(), cols.tolist()
    ([1, 0], [1, 0])
    """
    rows, cols = _ints(row_seed), _ints(col_seed)
    labels = np.asarray(cells, dtype=np.int64).reshape(len(rows), len(cols))
    found = _engine.bipartite_colours(labels, rows, cols)
    return np.array(found[0], dtype=np.int64), np.array(found[1], dtype=np.int64)


def canonical_matching(matrix: np.ndarray, bonus: np.ndarray | None,
                       row_colours: np.ndarray, col_colours: np.ndarray, *,
                       bonus_scale: float = 1.0) -> Pairs:
    """:func:`max_weight_matching` of ``matrix`` (plus ``bonus_scale * bonus``) on
    rows and columns sorted by colour.

    Whatever order the records came in, the solver sees the same matrix, so it
    returns the same pairs (up to rows or columns of equal colour).

    >>> canonical_matching(np.ones((2, 2)), None, np.array([1, 0]), np.array([0, 1]))
    [(0, 1), (1, 0)]
    """
    return _engine.canonical_matching(
        _floats(matrix), None if bonus is None else _floats(bonus), _ints(row_colours),
        _ints(col_colours), bonus_scale=bonus_scale)


def repair_twins(pairs: Pairs, matrix: np.ndarray, levels: Sequence[Level],
                 row_colours: np.ndarray, col_colours: np.ndarray, *,
                 passes: int = 2) -> tuple[Pairs, dict[tuple[int, int], int]]:
    """Re-pair twins (identical rows, or identical columns, of ``matrix``) by ``levels``.

    Permuting twins among the partners they were given keeps the total of
    ``matrix`` and which pairs are genuine, so within each group the pairing is
    solved again, exactly, maximizing the ``levels`` lexicographically (e.g. the
    paper's colour bonus, then the agreement depth).

    Parameters
    ----------
    pairs : list of (i, j)
        An optimal matching of ``matrix``.
    matrix : ndarray, shape (n, m)
    levels : sequence of ndarray of non-negative integers, shape (n, m), or callables
        A callable level ``level(pairing, rows, cols)`` gives the (rows x cols) values
        from the current pairing ``{i: j}`` (e.g. how many references agree through
        it); it is evaluated for each group as it is re-paired.
    row_colours, col_colours : ndarray
        A canonical order for the remaining ties (see :func:`bipartite_colours`).
    passes : int
        Passes over the groups, at most (a pass that changes no pair ends them).

    Returns
    -------
    pairs : list of (i, j)
        Sorted by i.
    decided : dict (i, j) -> int
        For pairs inside a twin group: the first level that tells the group's
        pairings apart, ``len(levels)`` when none does or when the pair was one of
        several equally good choices (the canonical order decided).

    >>> repair_twins([(0, 0), (1, 1)], np.ones((2, 2)), [np.array([[0, 1], [1, 0]])],
    ...              np.array([0, 1]), np.array([0, 1]))
    ([(0, 1), (1, 0)], {(0, 1): 0, (1, 0): 0})
    """
    return _engine.repair_twins(
        pairs, _floats(matrix), [level if callable(level) else _floats(level)
                                 for level in levels],
        _ints(row_colours), _ints(col_colours), passes=passes)


def twin_groups(matrix: np.ndarray, axis: int) -> list[list[int]]:
    """The groups of two or more identical rows (``axis`` 0) or columns (1) of
    ``matrix`` (bit for bit), each increasing, in the order of their first line.

    >>> twin_groups(np.array([[1.0, 0.0], [0.5, 0.5], [1.0, 0.0]]), 0)
    [[0, 2]]
    """
    return _engine.twin_groups(_floats(matrix), axis)


def monotone_matching(matrix: np.ndarray) -> Pairs:
    """Best order-preserving matching with insertions and deletions.

    Maximizes (total similarity, number of matches) lexicographically over
    matchings whose pairs increase in both indices; only pairs with positive
    similarity may match. Ties on the way back prefer a match, then skipping the
    gold element (a missing element), then skipping the candidate's.

    Returns
    -------
    list of (i, j)
        Increasing in i and j.
    """
    return _engine.monotone_matching(_floats(matrix))
