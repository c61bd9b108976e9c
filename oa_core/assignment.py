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

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = [
    "Level",
    "bipartite_colours",
    "canonical_matching",
    "distinct_values",
    "max_weight_matching",
    "monotone_matching",
    "repair_twins",
    "row_blocks",
    "tie_epsilon",
    "twin_groups",
]

Pairs = list[tuple[int, int]]
# Bonuses tried for more genuine pairs before the first optimum is kept: each try
# shrinks the bonus below the total the last one gave up, which rules that matching out.
BONUS_TRIES = 4
# Rows per block of the block-by-block passes over big matrices: a block of a
# 10,000-column matrix is 20 MB, small next to the matrix, big enough for numpy.
_BLOCK_ROWS = 256
# Matrices of at most this many cells are worked on in plain Python where numpy's
# cost per call (microseconds) exceeds the work: a small scope's few twins.
_SMALL_CELLS = 1024


def row_blocks(rows: int) -> Iterator[slice]:
    """Slices of ``_BLOCK_ROWS`` rows covering ``range(rows)``: big matrices are
    worked on block by block, so that a temporary is one block, not one matrix."""
    for start in range(0, rows, _BLOCK_ROWS):
        yield slice(start, min(start + _BLOCK_ROWS, rows))


def distinct_values(matrix: np.ndarray) -> np.ndarray:
    """``np.unique(matrix)``, found block by block (no flattened copy of the matrix).

    >>> distinct_values(np.array([[0.5, 0.0], [0.5, 1.0]])).tolist()
    [0.0, 0.5, 1.0]
    """
    parts = [np.unique(matrix[block]) for block in row_blocks(matrix.shape[0])]
    if len(parts) == 1:  # one block: its values are already distinct and sorted
        return parts[0]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=matrix.dtype)


def tie_epsilon(matrix: np.ndarray, distinct: np.ndarray | list[float] | None = None
                ) -> float:
    """A bonus small enough to break only exact ties of a matrix's entries.

    The smallest positive gap between distinct values of ``matrix`` divided by
    ``n*m + 1`` (``1/(n*m + 1)`` when all values are equal), so that bonuses summed
    over any matching stay below one gap. ``distinct``: the matrix's
    :func:`distinct_values`, when the caller has them (or their ``tolist()``: the
    same differences, as Python floats).

    >>> tie_epsilon(np.array([[0.0, 0.5], [0.5, 1.0]]))
    0.1
    """
    n, m = matrix.shape
    values = distinct_values(matrix) if distinct is None else distinct
    if isinstance(values, list):
        gap = min(b - a for a, b in itertools.pairwise(values)) if len(values) > 1 else 1.0
    else:
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
        # A zero pair was chosen: among assignments of the same total prefer the one
        # with more genuine matches, by a bonus per genuine pair. A bonus below every
        # gap between entries can still exceed a gap between totals ([[0.25, 0],
        # [1, 0.7]]: 1.0 + eps vs 0.95 + 2 eps), so the total is checked (exactly,
        # over the float entries) and the bonus shrunk below what it cost.
        best = math.fsum(objective[rows, cols].tolist())
        positive = (matrix > 0).astype(np.float64)
        eps = tie_epsilon(objective)
        for _ in range(BONUS_TRIES):
            more_rows, more_cols = linear_sum_assignment(objective + eps * positive,
                                                         maximize=True)
            lost = best - math.fsum(objective[more_rows, more_cols].tolist())
            if lost <= 0:
                pairs = [(int(i), int(j)) for i, j in zip(more_rows, more_cols, strict=True)
                         if matrix[i, j] > 0]
                break
            eps = lost / (min(n, m) + 1)
    return sorted(pairs)


def _intern_rows(rows: np.ndarray) -> np.ndarray:
    """The rank of each row among the distinct rows (lexicographic order).

    ``np.unique(rows, axis=0)``'s ranks, from an argsort of the rows' structured
    view, neighbours compared block by block (``np.unique`` copies the rows twice);
    up to ``_SMALL_CELLS`` cells, from the rows as sorted tuples.
    """
    n = rows.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    width = rows.shape[1]
    if width == 0:
        return np.zeros(n, dtype=np.int64)
    if n * width <= _SMALL_CELLS:  # tuples of Python ints sort as the fields do
        lines = list(map(tuple, rows.tolist()))
        rank = {line: k for k, line in enumerate(sorted(set(lines)))}
        return np.array([rank[line] for line in lines], dtype=np.int64)
    rows = np.ascontiguousarray(rows)
    view = rows.view([(f"f{k}", rows.dtype) for k in range(width)]).reshape(n)
    order = np.argsort(view, kind="quicksort")
    new = np.empty(n, dtype=bool)
    new[0] = True
    for block in row_blocks(n - 1):
        upper = order[block.start + 1:block.stop + 1]
        lower = order[block.start:block.stop]
        new[block.start + 1:block.stop + 1] = (rows[upper] != rows[lower]).any(axis=1)
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.cumsum(new) - 1
    return ranks


def _refined(cells: np.ndarray, base: int, other: np.ndarray, own: np.ndarray) -> np.ndarray:
    """One refinement step of the rows of ``cells``: the rank of (own colour, sorted
    ``cells * base + other``) among the rows.

    Signatures compare by their own colour first, so a row alone in its colour is
    told from every other by that colour: its rank is that of ``(own, 0)``. Only the
    rows that share their colour build and sort a signature (after WL most records
    have a colour of their own: the twins' rows are sorted, not a 10,000-record
    scope's 800 MB); each row's rank is then that of ``(own, rank among the rows
    sharing it)``, which orders the rows exactly as the whole signatures do.
    """
    n, m = cells.shape
    own = np.asarray(own, dtype=np.int64)
    by_colour = np.argsort(own, kind="stable")
    ordered = own[by_colour]
    starts = (np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if n
              else np.zeros(0, dtype=np.int64))
    sizes = np.diff(np.r_[starts, n])
    shared = np.sort(by_colour[np.repeat(sizes > 1, sizes)])
    key = np.zeros((n, 2), dtype=np.int64)
    key[:, 0] = own
    if shared.size:
        signature = np.empty((shared.size, m + 1), dtype=np.int64)
        for block in row_blocks(shared.size):
            body = signature[block, 1:]
            np.multiply(cells[shared[block]], base, out=body)
            body += other[None, :]
            body.sort(axis=1)
        signature[:, 0] = own[shared]
        key[shared, 1] = _intern_rows(signature)
    return _intern_rows(key)


def bipartite_colours(cells: np.ndarray | list[list[int]], row_seed: Sequence[int],
                      col_seed: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Colour refinement of a complete bipartite graph with labelled cells.

    A row's colour becomes (its colour, the sorted multiset of (cell label, column
    colour)), a column's likewise, until the number of colours stops growing. Colours
    depend only on the labels and seeds, never on positions, so sorting rows and
    columns by colour gives an order that is the same for any permutation of the input.

    Parameters
    ----------
    cells : ndarray of int64, shape (n, m), or its lines as lists of Python ints
        A label per cell (equal labels for equal cells). Lines (at least one cell,
        at most ``_SMALL_CELLS``) spare a small matrix's caller an array.
    row_seed, col_seed : sequence of int
        Initial colours.

    Returns
    -------
    row_colours, col_colours : ndarray of int64

    >>> rows, cols = bipartite_colours(np.array([[1, 0], [0, 0]]), [0, 0], [0, 0])
    >>> rows.tolist(), cols.tolist()
    ([1, 0], [1, 0])
    """
    if isinstance(cells, list):
        small = _colours_small(cells, row_seed, col_seed)
        if small is not None:
            return small
        cells = np.array(cells, dtype=np.int64)
    n, m = cells.shape
    if 0 < n * m <= _SMALL_CELLS and cells.dtype.kind in "iu":
        small = _colours_small(cells.tolist(), row_seed, col_seed)
        if small is not None:
            return small
    rows = _intern_rows(np.asarray(row_seed, dtype=np.int64).reshape(n, 1))
    cols = _intern_rows(np.asarray(col_seed, dtype=np.int64).reshape(m, 1))
    if n == 0 or m == 0:
        return rows, cols
    counts = (len(set(rows.tolist())), len(set(cols.tolist())))
    for _ in range(n + m):
        new_rows = _refined(cells, m + 1, cols, rows)
        new_cols = _refined(cells.T, n + 1, rows, cols)
        new_counts = (len(set(new_rows.tolist())), len(set(new_cols.tolist())))
        rows, cols = new_rows, new_cols
        if new_counts == counts:
            break
        counts = new_counts
    return rows, cols


def _ranks(keys: list[Any]) -> list[int]:
    """The rank of each key among the distinct keys (``_intern_rows`` of the rows
    the keys stand for)."""
    rank = {key: k for k, key in enumerate(sorted(set(keys)))}
    return [rank[key] for key in keys]


def _refined_small(lines: list[list[int]], base: int, other: list[int],
                   own: list[int]) -> list[int]:
    """:func:`_refined` in plain Python integers: the rank of (own colour, sorted
    ``cells * base + other``) among the lines, a line alone in its colour keyed by
    its colour only (as there: its signature is never compared)."""
    shared: dict[int, int] = {}
    for colour in own:
        shared[colour] = shared.get(colour, 0) + 1
    return _ranks([(colour, tuple(sorted(c * base + o for c, o in zip(line, other,
                                                                       strict=True)))
                    if shared[colour] > 1 else ())
                   for line, colour in zip(lines, own, strict=True)])


def _colours_small(lines: list[list[int]], row_seed: Sequence[int], col_seed: Sequence[int]
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`bipartite_colours` of a matrix of at most ``_SMALL_CELLS`` cells in
    plain Python: the same ranks (keys ordered as ``_refined`` orders the rows: by
    own colour, then by sorted signature where a colour is shared). None when a
    signature could leave int64 (numpy's products wrap, Python's do not)."""
    n, m = len(lines), len(lines[0])
    largest = max(max(abs(int(v)) for line in lines for v in line), 1)
    if largest * (max(n, m) + 1) + max(n, m) >= 2**62:
        return None
    columns = [list(column) for column in zip(*lines, strict=True)]
    rows = _ranks([int(v) for v in np.asarray(row_seed, dtype=np.int64).tolist()])
    cols = _ranks([int(v) for v in np.asarray(col_seed, dtype=np.int64).tolist()])
    counts = (len(set(rows)), len(set(cols)))
    for _ in range(n + m):
        new_rows = _refined_small(lines, m + 1, cols, rows)
        new_cols = _refined_small(columns, n + 1, rows, cols)
        new_counts = (len(set(new_rows)), len(set(new_cols)))
        rows, cols = new_rows, new_cols
        if new_counts == counts:
            break
        counts = new_counts
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)


def canonical_matching(matrix: np.ndarray, bonus: np.ndarray | None,
                       row_colours: np.ndarray, col_colours: np.ndarray, *,
                       bonus_scale: float = 1.0) -> Pairs:
    """:func:`max_weight_matching` of ``matrix`` (plus ``bonus_scale * bonus``) on
    rows and columns sorted by colour.

    Whatever order the records came in, the solver sees the same matrix, so it
    returns the same pairs (up to rows or columns of equal colour). The solver's
    input is built block by block in one buffer, negated (and transposed when there
    are more rows than columns) as SciPy's ``maximize=True`` would copy it: the
    same numbers without the permuted matrix, the whole bonus and the solver's copy.
    """
    n, m = matrix.shape
    if n == 0 or m == 0:
        return []
    row_order = np.argsort(row_colours, kind="stable")
    col_order = np.argsort(col_colours, kind="stable")
    transpose = m < n
    cost = np.empty((m, n) if transpose else (n, m), dtype=np.float64)
    for block in row_blocks(n):
        part = matrix[row_order[block]][:, col_order]
        if bonus is not None:
            part += bonus_scale * bonus[row_order[block]][:, col_order]
        np.negative(part, out=part)
        if transpose:
            cost[:, block] = part.T
        else:
            cost[block] = part
    first, second = linear_sum_assignment(cost)
    del cost
    rows, cols = (second, first) if transpose else (first, second)
    pairs = [(int(i), int(j)) for i, j in zip(rows, cols, strict=True)
             if matrix[row_order[i], col_order[j]] > 0]
    if len(pairs) < min(n, m) and np.count_nonzero(matrix) > len(pairs):
        # a zero pair was chosen: max_weight_matching's preference for more genuine
        # pairs, on the permuted matrices (rare: they are made whole only here)
        grid = np.ix_(row_order, col_order)
        pairs = max_weight_matching(
            matrix[grid], None if bonus is None else bonus_scale * bonus[grid])
    return sorted((int(row_order[i]), int(col_order[j])) for i, j in pairs)


Level = np.ndarray | Callable[[dict[int, int], list[int], list[int]], np.ndarray]


def repair_twins(pairs: Pairs, matrix: np.ndarray, levels: Sequence[Level],
                 row_colours: np.ndarray, col_colours: np.ndarray, *,
                 passes: int = 2) -> tuple[Pairs, dict[tuple[int, int], int]]:
    """Re-pair twins (identical rows, or identical columns, of ``matrix``) by ``levels``.

    Permuting twins among the partners they were given keeps the total of
    ``matrix`` and which pairs are genuine, so within each group the pairing is
    solved again, exactly (small integers), maximizing the ``levels``
    lexicographically (e.g. the paper's colour bonus, then the agreement depth).

    Parameters
    ----------
    pairs : list of (i, j)
        An optimal matching of ``matrix``.
    matrix : ndarray, shape (n, m)
    levels : sequence of ndarray of non-negative int64, shape (n, m), or callables
        A callable level ``level(pairing, rows, cols)`` gives the (rows x cols) values
        from the current pairing ``{i: j}`` (e.g. how many references agree through
        it); it is evaluated for each group as it is re-paired, so every group sees
        the groups re-paired before it.
    row_colours, col_colours : ndarray
        A canonical order for the remaining ties (see :func:`bipartite_colours`).
    passes : int
        Passes over the groups (a later pass sees the pairing the earlier one made);
        at most: a pass that changes no pair ends them (the next would repeat it).

    Returns
    -------
    pairs : list of (i, j)
        Sorted by i.
    decided : dict (i, j) -> int
        For pairs inside a twin group: the first level that tells the group's
        pairings apart (some pairing of the group scores higher on it than another),
        ``len(levels)`` when none does or when the pair was one of several equally
        good choices (the canonical order decided).
    """
    partner = dict(pairs)
    decided: dict[tuple[int, int], int] = {}
    # canonical group order: by the smallest colour of a member, never by position
    groups_of = [sorted(twin_groups(matrix, 0), key=lambda m: min(row_colours[k] for k in m)),
                 sorted(twin_groups(matrix, 1), key=lambda m: min(col_colours[k] for k in m))]
    for _ in range(passes if any(callable(level) for level in levels) else 1):
        start = dict(partner)
        # Within a pass a pair keeps the least decisive verdict of the groups that
        # chose it: a column group cannot undo that its row group chose arbitrarily.
        decided = {}
        taken = {j: i for i, j in partner.items()}  # kept up to date group by group
        # The rows and columns the group before re-paired: a group of the same ones
        # (twin rows paired with twin columns: the column group repeats the row group)
        # starts from the pairing that group started from (its own pairs taken out,
        # nothing else changed since), and the levels are functions of that pairing,
        # so it would make the same pairs with the same verdicts: it is skipped.
        last: tuple[list[int], list[int]] | None = None
        for axis, members in ((a, m) for a in (0, 1) for m in groups_of[a]):
            if axis == 0:
                rows = sorted(members, key=lambda i: row_colours[i])
                cols = sorted((partner[i] for i in members if i in partner),
                              key=lambda j: col_colours[j])
            else:
                cols = sorted(members, key=lambda j: col_colours[j])
                rows = sorted((taken[j] for j in members if j in taken),
                              key=lambda i: row_colours[i])
            if not rows or not cols or (rows, cols) == last:
                continue
            last = rows, cols
            for i in rows:
                old = partner.pop(i, None)
                if old is not None and taken.get(old) == i:
                    del taken[old]
            dynamic = [level for level in levels if callable(level)]
            arbitrary: set[tuple[int, int]] = set()
            if dynamic and len(rows) * len(cols) <= _SMALL_CELLS:
                # a small group: each level's cells as the Python floats of its
                # astype(float64) (read cell by cell: no index grid), its spread and
                # its greedy pairing from them
                cells = [level(partner, rows, cols).astype(np.float64).tolist()
                         if callable(level) else
                         [[float(level[i, j]) for j in cols] for i in rows]
                         for level in levels]
                deciding = next((k for k, sub in enumerate(cells) if _spread_of(sub) > 0),
                                len(cells))
                chosen, arbitrary = _greedy_small(rows, cols, cells[:len(levels) - len(dynamic)],
                                                  dynamic, partner)
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
            deciding = next((k for k, sub in enumerate(subs) if _spread(sub) > 0), len(subs))
            if dynamic and len(rows) * len(cols) <= _GREEDY_CELLS:
                chosen, arbitrary = _greedy(rows, cols, subs[:len(levels) - len(dynamic)],
                                            dynamic, partner)
            else:
                r, c = linear_sum_assignment(_lexicographic(subs, len(rows), len(cols)),
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


def twin_groups(matrix: np.ndarray, axis: int) -> list[list[int]]:
    """The groups of two or more identical rows (``axis`` 0) or columns (1) of
    ``matrix``, each increasing, in the order of their first line.

    Lines are bucketed by a fingerprint, the sum of their cells' bits (as 64-bit
    integers) times fixed odd multipliers modulo 2**64, made block by block (integer
    arithmetic: equal lines get equal fingerprints whatever order numpy adds in);
    the members of a bucket are then compared bit for bit. No line's bytes are held
    (but in a matrix of at most ``_SMALL_CELLS`` cells, whose lines' bits are grouped
    as they are).

    >>> twin_groups(np.array([[1.0, 0.0], [0.5, 0.5], [1.0, 0.0]]), 0)
    [[0, 2]]
    """
    bits = (np.ascontiguousarray(matrix) if matrix.dtype.itemsize == 8
            else matrix.astype(np.float64)).view(np.uint64)
    n, m = bits.shape
    if n * m <= _SMALL_CELLS:  # the lines' bits as tuples of Python ints, grouped
        same: dict[tuple[int, ...], list[int]] = {}
        for index, line in enumerate(bits.tolist() if axis == 0 else bits.T.tolist()):
            same.setdefault(tuple(line), []).append(index)
        return sorted(group for group in same.values() if len(group) > 1)
    multipliers = (np.arange(m if axis == 0 else n, dtype=np.uint64)
                   * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)) | np.uint64(1)
    prints = np.zeros(n if axis == 0 else m, dtype=np.uint64)
    for block in row_blocks(n):
        if axis == 0:
            prints[block] = (bits[block] * multipliers[None, :]).sum(axis=1, dtype=np.uint64)
        else:
            prints += (bits[block] * multipliers[block, None]).sum(axis=0, dtype=np.uint64)
    buckets: dict[int, list[int]] = {}
    for index, key in enumerate(prints.tolist()):
        buckets.setdefault(key, []).append(index)
    groups: list[list[int]] = []
    for members in buckets.values():
        found: list[list[int]] = []
        for index in members if len(members) > 1 else ():
            line = bits[index] if axis == 0 else bits[:, index]
            for group in found:
                if np.array_equal(bits[group[0]] if axis == 0 else bits[:, group[0]], line):
                    group.append(index)
                    break
            else:
                found.append([index])
        groups += [group for group in found if len(group) > 1]
    return sorted(groups)


# Groups up to this many cells are re-paired greedily with the dynamic levels
# recomputed after each pair; larger ones in one assignment (documented limit).
_GREEDY_CELLS = 250_000


def _lexicographic(subs: Sequence[np.ndarray], rows: int, cols: int) -> np.ndarray:
    """One objective ordering pairings by ``subs`` lexicographically (exact integers)."""
    objective = np.zeros((rows, cols), dtype=np.float64)
    for sub in subs:
        objective = objective * (float(sub.max(initial=0)) * min(rows, cols) + 1) + sub
    return objective


def _greedy(rows: list[int], cols: list[int], static: Sequence[np.ndarray],
            dynamic: Sequence[Callable[[dict[int, int], list[int], list[int]], np.ndarray]],
            partner: dict[int, int]) -> tuple[list[tuple[int, int]], set[tuple[int, int]]]:
    """Pair a group one pair at a time: the best remaining cell by the static levels,
    then the dynamic ones given every pair made so far (the most constrained first,
    as in individualization-refinement); ties go to the first row, then column, in
    the canonical order of ``rows`` and ``cols``.

    The static levels here are equivalences and their refinements (equal colours,
    rounds of agreement), for which taking the deepest agreement first is optimal.
    Returns the pairs and those chosen among several equally good cells (the
    canonical order decided them).
    """
    if len(rows) * len(cols) <= _SMALL_CELLS:
        return _greedy_small(rows, cols, static, dynamic, partner)
    free_rows, free_cols = list(range(len(rows))), list(range(len(cols)))
    base = _lexicographic(static, len(rows), len(cols)) if static else np.zeros(
        (len(rows), len(cols)))
    chosen: list[tuple[int, int]] = []
    arbitrary: set[tuple[int, int]] = set()
    while free_rows and free_cols:
        if len(free_rows) == 1 and len(free_cols) == 1:
            a = b = 0  # the last cell: forced, and tied with no other (nothing to score)
            tied = False
        else:
            sub_rows = [rows[a] for a in free_rows]
            sub_cols = [cols[b] for b in free_cols]
            values = [base[free_rows][:, free_cols]]
            values += [level(partner, sub_rows, sub_cols).astype(np.float64)
                       for level in dynamic]
            objective = values[0]
            for extra in values[1:]:
                objective = objective * (float(extra.max(initial=0)) + 1) + extra
            flat = int(np.argmax(objective))
            a, b = divmod(flat, len(free_cols))
            best = objective.flat[flat]  # another as good a partner for this row or column?
            tied = bool(np.count_nonzero(objective[a] == best) > 1
                        or np.count_nonzero(objective[:, b] == best) > 1)
        i, j = rows[free_rows.pop(a)], cols[free_cols.pop(b)]
        partner[i] = j
        chosen.append((i, j))
        if tied:
            arbitrary.add((i, j))
    return chosen, _forced_by(chosen, arbitrary, rows, cols, base, dynamic, partner)


def _max0(cells: Iterator[float]) -> float:
    """``float(np.max(cells, initial=0))`` of float cells: NaN if one is NaN (the
    first met), else the largest of them and 0.0."""
    top = 0.0
    for value in cells:
        if value != value:
            return value
        if value > top:
            top = value
    return top


def _greedy_small(rows: list[int], cols: list[int],
                  static: Sequence[np.ndarray | list[list[float]]],
                  dynamic: Sequence[Callable[[dict[int, int], list[int], list[int]],
                                             np.ndarray]],
                  partner: dict[int, int]) -> tuple[list[tuple[int, int]],
                                                    set[tuple[int, int]]]:
    """:func:`_greedy` of a group of at most ``_SMALL_CELLS`` cells, its objective
    in plain Python floats: the same products and sums cell by cell as numpy's
    (``objective * factor + extra``, each factor from the same maximum), the first
    largest cell in row-major order as ``np.argmax`` (a NaN first, as numpy), ties
    counted by ``==`` along its row and column. The same pairs and verdicts."""
    height, width = len(rows), len(cols)
    free_rows, free_cols = list(range(height)), list(range(width))
    base = [[0.0] * width for _ in range(height)]
    for sub in static:  # _lexicographic
        cells = sub if isinstance(sub, list) else sub.tolist()
        factor = _max0(v for line in cells for v in line) * min(height, width) + 1
        base = [[b * factor + v for b, v in zip(line, extra, strict=True)]
                for line, extra in zip(base, cells, strict=True)]
    chosen: list[tuple[int, int]] = []
    arbitrary: set[tuple[int, int]] = set()
    while free_rows and free_cols:
        if len(free_rows) == 1 and len(free_cols) == 1:
            a = b = 0  # the last cell: forced, and tied with no other (nothing to score)
            tied = False
        else:
            sub_rows = [rows[a] for a in free_rows]
            sub_cols = [cols[b] for b in free_cols]
            objective = [[base[a][b] for b in free_cols] for a in free_rows]
            for level in dynamic:
                cells = level(partner, sub_rows, sub_cols).astype(np.float64).tolist()
                factor = _max0(v for line in cells for v in line) + 1
                objective = [[o * factor + v for o, v in zip(line, extra, strict=True)]
                             for line, extra in zip(objective, cells, strict=True)]
            a = b = 0
            best = objective[0][0]
            if best == best:  # np.argmax: the first NaN, else the first largest
                for r, line in enumerate(objective):
                    for c, value in enumerate(line):
                        if value != value:
                            a, b, best = r, c, value
                            break
                        if value > best:
                            a, b, best = r, c, value
                    else:
                        continue
                    break
            tied = (sum(1 for value in objective[a] if value == best) > 1
                    or sum(1 for line in objective if line[b] == best) > 1)
        i, j = rows[free_rows.pop(a)], cols[free_cols.pop(b)]
        partner[i] = j
        chosen.append((i, j))
        if tied:
            arbitrary.add((i, j))
    return chosen, _forced_by(chosen, arbitrary, rows, cols,
                              np.array(base, dtype=np.float64).reshape(height, width),
                              dynamic, partner)


def _forced_by(chosen: list[tuple[int, int]], arbitrary: set[tuple[int, int]],
               rows: list[int], cols: list[int], base: np.ndarray,
               dynamic: Sequence[Callable[[dict[int, int], list[int], list[int]], np.ndarray]],
               partner: dict[int, int]) -> set[tuple[int, int]]:
    """``arbitrary`` grown by the pairs an arbitrary choice forced: a pair that can
    swap partners with an arbitrary one, every level's values staying the same
    multiset, was as good a choice (a tied choice leaves its twin no other option).

    A dynamic level's cell depends on its row, its column and the pairing only, so
    the four cells of a swap are read in one call of each level (2 x 2)."""
    row_at = {i: a for a, i in enumerate(rows)}
    col_at = {j: b for b, j in enumerate(cols)}

    def values(i: int, k: int, j: int, other: int,
               fixed: dict[int, int]) -> list[list[tuple[float, ...]]]:
        """The levels' values of rows (i, k) x columns (j, other)."""
        cells = [level(fixed, [i, k], [j, other]).tolist() for level in dynamic]
        return [[(float(base[row_at[r], col_at[c]]), *(float(cell[a][b]) for cell in cells))
                 for b, c in enumerate((j, other))] for a, r in enumerate((i, k))]

    arbitrary = set(arbitrary)
    grown = True
    while grown:
        grown = False
        for i, j in chosen:
            if (i, j) in arbitrary:
                continue
            for k, other in list(arbitrary):
                fixed = {a: b for a, b in partner.items() if a not in (i, k)}
                swap = values(i, k, j, other, fixed)
                before = sorted([swap[0][0], swap[1][1]])
                if sorted([swap[0][1], swap[1][0]]) == before:
                    arbitrary.add((i, j))
                    grown = True
                    break
    return arbitrary


# Groups with at most this many full pairings have their spread found by looking
# through them (two solver calls cost more)
_SPREAD_PAIRINGS = 120


def _spread(values: np.ndarray) -> float:
    """How much the best and the worst full pairing of ``values`` differ.

    Of a small matrix of integers (what the twin repair's levels hold: colour
    agreement, rounds, reference counts) every full pairing is summed: the sums are
    exact, and so are the solver's optimum and numpy's sum of it, so the difference
    is the same number."""
    height, width = values.shape
    if values.dtype == np.float64 and math.perm(max(height, width),
                                                min(height, width)) <= _SPREAD_PAIRINGS:
        found = _enumerated_spread(values.tolist(), height, width)
        if found is not None:
            return found
    r, c = linear_sum_assignment(values, maximize=True)
    best = values[r, c].sum()
    r, c = linear_sum_assignment(values)
    return float(best - values[r, c].sum())


def _enumerated_spread(lines: list[list[float]], height: int, width: int) -> float | None:
    """:func:`_spread` of float cells that are integers (None otherwise), from every
    full pairing: exact sums, as the solver's optimum and numpy's sum are exact."""
    if not all(v.is_integer() and abs(v) <= _EXACT_CELL for line in lines for v in line):
        return None
    cells = lines if height <= width else [list(c) for c in zip(*lines, strict=True)]
    sums = [_pairing_sum(cells, chosen)
            for chosen in itertools.permutations(range(max(height, width)),
                                                 min(height, width))]
    return float(max(sums) - min(sums))


def _spread_of(cells: list[list[float]]) -> float:
    """:func:`_spread` of a small group's cells given as Python floats."""
    height, width = len(cells), len(cells[0])
    if math.perm(max(height, width), min(height, width)) <= _SPREAD_PAIRINGS:
        found = _enumerated_spread(cells, height, width)
        if found is not None:
            return found
    return _spread(np.array(cells, dtype=np.float64).reshape(height, width))


# Integers up to this size summed over a few hundred cells stay exact in float64
_EXACT_CELL = 2.0**40


def _pairing_sum(cells: list[list[float]], chosen: tuple[int, ...]) -> float:
    total = 0.0
    for line, column in zip(cells, chosen, strict=True):
        total += line[column]
    return total


def monotone_matching(matrix: np.ndarray) -> Pairs:
    """Best order-preserving matching with insertions and deletions.

    Maximizes (total similarity, number of matches) lexicographically over
    matchings whose pairs increase in both indices; only pairs with positive
    similarity may match. Ties on the way back prefer a match, then skipping the
    gold element (a missing element), then skipping the candidate's.

    The dynamic program runs one gold row at a time, vectorized over the candidate
    columns: a cell is the best of the cell above, the diagonal plus a match, and
    the cell to its left, so a row is a running (lexicographic) maximum. A matrix of
    at most ``_SMALL_CELLS`` cells runs the same program cell by cell in plain Python.

    Returns
    -------
    list of (i, j)
        Increasing in i and j.
    """
    n, m = matrix.shape
    if n == 0 or m == 0:
        return []
    if n * m <= _SMALL_CELLS:
        return _monotone_backtrack(matrix.tolist(), *_monotone_small(matrix.tolist()))
    # total[i, j], count[i, j]: the best (similarity, matches) of gold[:i] vs candidate[:j]
    total = np.zeros((n + 1, m + 1), dtype=np.float64)
    count = np.zeros((n + 1, m + 1), dtype=np.int64)
    segment_base = np.int64(m + n + 2)
    for i in range(1, n + 1):
        sims = matrix[i - 1]
        above_t, above_c = total[i - 1, 1:], count[i - 1, 1:]
        match_t = total[i - 1, :-1] + sims
        match_c = count[i - 1, :-1] + 1
        take = (sims > 0) & ((match_t > above_t) | ((match_t == above_t) & (match_c > above_c)))
        best_t = np.where(take, match_t, above_t)
        best_c = np.where(take, match_c, above_c)
        # running lexicographic maximum from the left (column 0 holds (0, 0))
        run_t = np.maximum.accumulate(np.concatenate(([0.0], best_t)))
        cand_c = np.where(np.concatenate(([0.0], best_t)) == run_t,
                          np.concatenate(([0], best_c)), -1)
        segment = np.cumsum(np.concatenate(([True], run_t[1:] != run_t[:-1])))
        keyed = segment * segment_base + cand_c
        total[i] = run_t
        count[i] = np.maximum.accumulate(keyed) - segment * segment_base
    return _monotone_backtrack(matrix, total, count)


def _monotone_small(sims: list[list[float]]) -> tuple[list[list[float]], list[list[int]]]:
    """:func:`monotone_matching`'s tables of a small matrix in plain Python: the same
    choices (a match when it is lexicographically better than the cell above, then
    the running lexicographic maximum from the left) on the same float additions."""
    m = len(sims[0])
    total = [[0.0] * (m + 1)]
    count = [[0] * (m + 1)]
    for row in sims:
        above_t, above_c = total[-1], count[-1]
        run_t, run_c = 0.0, 0
        row_t, row_c = [0.0], [0]
        for j, sim in enumerate(row):
            best_t, best_c = above_t[j + 1], above_c[j + 1]
            match_t, match_c = above_t[j] + sim, above_c[j] + 1
            if sim > 0 and (match_t > best_t or (match_t == best_t and match_c > best_c)):
                best_t, best_c = match_t, match_c
            if best_t > run_t or (best_t == run_t and best_c > run_c):
                run_t, run_c = best_t, best_c
            row_t.append(run_t)
            row_c.append(run_c)
        total.append(row_t)
        count.append(row_c)
    return total, count


def _monotone_backtrack(matrix: Any, total: Any, count: Any) -> Pairs:
    """The pairs of :func:`monotone_matching`'s tables (arrays, or lists of rows): a
    match first, then skipping the gold element, then the candidate's."""
    pairs: Pairs = []
    i, j = len(total) - 1, len(total[0]) - 1
    while i > 0 and j > 0:
        sim = matrix[i - 1][j - 1]
        if sim > 0 and total[i][j] == total[i - 1][j - 1] + sim and (
                count[i][j] == count[i - 1][j - 1] + 1):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif total[i][j] == total[i - 1][j] and count[i][j] == count[i - 1][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs
