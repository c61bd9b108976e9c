"""Optimal matchings of two collections from a similarity matrix.

Two regimes (paper, section "Sequences"):

* :func:`max_weight_matching`: order-agnostic, the maximum-weight assignment
  (scipy's ``linear_sum_assignment``) on a rectangular matrix;
* :func:`monotone_matching`: order-sensitive, the best monotone matching with
  gaps (the sequence-alignment dynamic program).

Both return only *genuine* matches: a pair the solver chose whose similarity is 0
is dropped (its elements count as missing and excess). Among optimal matchings of
equal total similarity both prefer the one with more genuine matches (it scores
higher, as the denominator shrinks); remaining ties are resolved by position, so
the result is a pure function of the matrix.

Examples
--------
>>> import numpy as np
>>> max_weight_matching(np.array([[0.2, 0.9], [0.8, 0.1]]))
[(0, 1), (1, 0)]
>>> monotone_matching(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.95]]))
[(0, 1), (2, 2)]
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = ["max_weight_matching", "monotone_matching", "tie_epsilon"]

Pairs = list[tuple[int, int]]


def tie_epsilon(matrix: np.ndarray) -> float:
    """A bonus small enough to break only exact ties of a matrix's entries.

    The smallest positive gap between distinct values of ``matrix`` divided by
    ``n*m + 1`` (``1/(n*m + 1)`` when all values are equal), so that bonuses summed
    over any matching stay below one gap.

    >>> tie_epsilon(np.array([[0.0, 0.5], [0.5, 1.0]]))
    0.1
    """
    n, m = matrix.shape
    values = np.unique(matrix)
    gap = float(np.min(np.diff(values))) if values.size > 1 else 1.0
    return gap / (n * m + 1)


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
    n, m = matrix.shape
    if n == 0 or m == 0:
        return []
    objective = matrix if bonus is None else matrix + bonus
    rows, cols = linear_sum_assignment(objective, maximize=True)
    pairs = [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if matrix[i, j] > 0]
    if len(pairs) < min(n, m) and np.count_nonzero(matrix) > len(pairs):
        # A zero pair was chosen: among equally good assignments prefer the one
        # with more genuine matches.
        positive = (matrix > 0).astype(np.float64)
        objective = objective + tie_epsilon(objective) * positive
        rows, cols = linear_sum_assignment(objective, maximize=True)
        pairs = [(int(i), int(j)) for i, j in zip(rows, cols, strict=True) if matrix[i, j] > 0]
    return sorted(pairs)


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
    n, m = matrix.shape
    if n == 0 or m == 0:
        return []
    values = matrix.tolist()
    # best[i][j]: (total, matches) for gold[:i] against candidate[:j]
    best = [[(0.0, 0)] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, above = best[i], best[i - 1]
        sims = values[i - 1]
        for j in range(1, m + 1):
            top = above[j]
            left = row[j - 1]
            cell = top if top >= left else left
            sim = sims[j - 1]
            if sim > 0:
                diag = above[j - 1]
                match = (diag[0] + sim, diag[1] + 1)
                if match > cell:
                    cell = match
            row[j] = cell
    pairs: Pairs = []
    i, j = n, m
    while i > 0 and j > 0:
        sim = values[i - 1][j - 1]
        if sim > 0 and best[i][j] == (best[i - 1][j - 1][0] + sim, best[i - 1][j - 1][1] + 1):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs
