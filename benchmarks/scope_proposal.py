"""A memory-lean scope pairing, measured before it is moved into the library.

Big scopes (10,000 records) spend their memory in ``oa_core.referential`` and
``oa_core.assignment``: several ``n x m`` float64/int64 temporaries at once in the
WL agreement matrices, the cell labels, the colour refinement, the bonus and the
solver. This module holds drop-in replacements of some of their functions, with the
same signatures and the same results to the bit (``tests/test_big_scopes.py``
compares them with the originals), and :func:`patched` installs them for a
measurement. They are a proposal for the owners of those modules, not a code
path of the library: nothing imports this module.

What each replacement saves (``n x m`` matrices of 8 bytes, "M"; figures and the
exactness argument of each in ``docs/performance.md``):

* ``_structure``: the agreement depth counted in a cache-sized block and written
  once into one int64 matrix, ``b`` written by ``np.equal`` into float64 (no
  ``rounds x n x m`` booleans, no int64 copy): 2 M instead of 3 M + rounds/8 M;
* ``tie_epsilon`` and ``_cell_labels``: the distinct scores of ``C`` found once, by
  row blocks (no flattened copy, no second sort), the labels written block by
  block into one int64 matrix (no ``same.astype(int64)`` copy): 1 M instead of 3 M;
* ``bipartite_colours``: only the rows (columns) that share their colour get a
  sorted signature (``refined``), ranked by an argsort of the rows' structured view
  (``intern_rows``) instead of ``np.unique(axis=0)``'s copies: after WL nearly every
  record has a colour of its own, so the refinement is a hundred times faster and
  its signature holds the twins only;
* ``canonical_matching``: the permuted objective built block by block into one
  buffer, negated (and transposed when there are more rows than columns) so that
  SciPy's ``linear_sum_assignment`` solves it as given instead of copying it: 1 M
  instead of 4 M (``matrix[grid]``, ``bonus[grid]``, their sum, the solver's copy);
* ``repair_twins`` and ``_twin_pairs``: lines grouped by a fingerprint (members
  compared bit for bit) instead of dict keys holding every line's bytes (1 M), and
  the pairing's inverse kept up to date instead of rebuilt for every column group;
* with ``patched(True)``, ``_pair_scope`` restructured (:func:`pair_scope`: no whole
  bonus matrix, labels dropped after the refinement, ``b`` itself as a level: 3 M);
* with ``patched(True, True)``, ``resolve_scopes``' ``levels`` share the depth
  matrix instead of a float64 copy (:class:`SharedDepth`: 1 M).

Run ``python benchmarks/scope_proposal.py --sizes 2000 5000 [--levels 0 1 2 3]``:
each size in a fresh process as is (0), with the drop-in replacements (1), with the
restructured pairing (2) and with shared levels (3): CPU seconds, peak RSS, and
whether all give the same score and pairs.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import resource
import subprocess
import sys
import time
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from oa_core import assignment, referential

# Rows per block of the block-by-block passes: a block of a 10,000-column matrix is
# 20 MB, small next to the matrices and big enough for numpy to run at full speed.
BLOCK_ROWS = 256


def _blocks(rows: int) -> Iterator[slice]:
    for start in range(0, rows, BLOCK_ROWS):
        yield slice(start, min(start + BLOCK_ROWS, rows))


# -- the distinct scores of C, found once ---------------------------------------------

# the last matrix asked about (weakly: it is not kept alive) and its distinct values;
# tie_epsilon and _cell_labels ask about the same C one after the other
_DISTINCT: list[Any] = [None, None]


def distinct_values(matrix: np.ndarray) -> np.ndarray:
    """``np.unique(matrix)`` by row blocks (no flattened copy), remembered per matrix.

    The same values in the same order: the union of the blocks' distinct values,
    made unique. (-0.0 and 0.0 are one value either way; which of the two stands for
    it may differ, which no comparison or difference can tell.)
    """
    held, found = _DISTINCT
    if held is not None and held() is matrix:
        return found
    parts = [np.unique(matrix[block]) for block in _blocks(matrix.shape[0])]
    found = np.unique(np.concatenate(parts)) if parts else np.zeros(0)
    _DISTINCT[:] = [weakref.ref(matrix), found]
    return found


def tie_epsilon(matrix: np.ndarray) -> float:
    """:func:`oa_core.assignment.tie_epsilon` from :func:`distinct_values`."""
    n, m = matrix.shape
    values = distinct_values(matrix)
    gap = float(np.min(np.diff(values))) if values.size > 1 else 1.0
    return gap / (n * m + 1)


def cell_labels(matrix: np.ndarray, same: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """``referential._cell_labels`` block by block into one int64 matrix."""
    rounds = int(depth.max(initial=0)) + 1
    distinct = distinct_values(matrix)
    labels = np.empty(matrix.shape, dtype=np.int64)
    for block in _blocks(matrix.shape[0]):
        out = labels[block]
        out[...] = np.searchsorted(distinct, matrix[block])
        out *= 2
        out += same[block].astype(np.int64)
        out *= rounds
        out += np.asarray(depth[block], dtype=np.int64)  # no copy when it is int64
    return labels


# -- the WL agreement matrices --------------------------------------------------------

def structure(trace: Any, scope: str) -> Any:
    """``referential._structure`` without the ``rounds x n x m`` booleans."""
    def records(side: str) -> list[int]:
        return [k for k, v in enumerate(trace.vertices)
                if v.side == side and v.kind == "record" and v.scope == scope]

    gold_vertices, cand_vertices = records("gold"), records("candidate")
    gold = np.asarray([[colours[k] for k in gold_vertices] for colours in trace.rounds],
                      dtype=np.int64).reshape(len(trace.rounds), -1)
    cand = np.asarray([[colours[k] for k in cand_vertices] for colours in trace.rounds],
                      dtype=np.int64).reshape(len(trace.rounds), -1)
    n, m = gold.shape[1], cand.shape[1]
    depth = np.empty((n, m), dtype=np.int64)
    same = np.zeros((n, m), dtype=np.float64)
    rounds = len(trace.rounds)
    # counted in a small block that stays in cache, written out once per block
    count = np.zeros((min(BLOCK_ROWS, n), m), dtype=np.int16 if rounds < 2**15 else np.int64)
    for block in _blocks(n):
        part = count[:block.stop - block.start]
        part[...] = 0
        for r in range(rounds):
            part += gold[r, block, None] == cand[r, None, :]
        depth[block] = part
        if rounds:
            np.equal(gold[-1, block, None], cand[-1, None, :], out=same[block])
    gold_index = {v: i for i, v in enumerate(gold_vertices)}
    cand_index = {v: j for j, v in enumerate(cand_vertices)}
    return referential._Structure(
        same, depth, len(trace.rounds), gold[-1].tolist(), cand[-1].tolist(),
        referential._incident(trace, "gold", scope, gold_index),
        referential._incident(trace, "candidate", scope, cand_index))


class SharedDepth(np.ndarray):
    """The agreement depth as float64 (whole numbers) whose ``astype(float64)`` is
    itself: with it, ``resolve_scopes``'s ``levels`` share the matrix instead of
    copying it, which measures the proposed ``levels = [matrix, structure.same,
    structure.depth]`` without editing ``oa_core.referential`` (every use of a level
    reads cells as floats or compares them: the same values)."""

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> np.ndarray:
        if np.dtype(dtype) == np.float64 and not args and not kwargs:
            return self
        return np.asarray(self).astype(dtype, *args, **kwargs)


def structure_shared_levels(trace: Any, scope: str) -> Any:
    """:func:`structure` with the depth as a :class:`SharedDepth` (measurement only:
    its dtype differs from the library's int64)."""
    found = structure(trace, scope)
    depth = np.empty(found.depth.shape, dtype=np.float64)
    for block in _blocks(depth.shape[0]):
        depth[block] = found.depth[block]
    found.depth = depth.view(SharedDepth)
    return found


# -- colour refinement ----------------------------------------------------------------

def intern_rows(rows: np.ndarray) -> np.ndarray:
    """``assignment._intern_rows`` (ranks of the distinct rows, lexicographic) without
    copying the rows: argsort of a structured view, neighbours compared by blocks."""
    n = rows.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    rows = np.ascontiguousarray(rows)
    width = rows.shape[1]
    if width == 0:
        return np.zeros(n, dtype=np.int64)
    view = rows.view([(f"f{i}", rows.dtype) for i in range(width)]).reshape(n)
    perm = np.argsort(view, kind="quicksort")
    new = np.empty(n, dtype=bool)
    new[0] = True
    for block in _blocks(n - 1):
        upper = perm[block.start + 1:block.stop + 1]
        lower = perm[block.start:block.stop]
        new[block.start + 1:block.stop + 1] = (rows[upper] != rows[lower]).any(axis=1)
    inverse = np.empty(n, dtype=np.int64)
    inverse[perm] = np.cumsum(new) - 1
    return inverse


def refined(cells: np.ndarray, base: int, other: np.ndarray, own: np.ndarray) -> np.ndarray:
    """``assignment._refined`` (the rank of each row's signature: its own colour, then
    its sorted ``cells * base + other``), building and sorting the signatures of the
    rows that share their own colour with another row only.

    Signatures are compared by their own colour first, so a row alone in its colour
    is told from every other by that colour: its rank is that of ``(own, 0)``. Rows
    sharing a colour are ranked among themselves by their whole signature; then
    every row's rank is that of ``(own, rank among the sharing rows)``, which orders
    the rows exactly as the signatures do. After WL most records have a colour of
    their own: only twins' rows are sorted.
    """
    n, m = cells.shape
    own = np.asarray(own, dtype=np.int64)
    order = np.argsort(own, kind="stable")
    ordered = own[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if n else np.zeros(
        0, dtype=np.int64)
    sizes = np.diff(np.r_[starts, n])
    shared = np.sort(order[np.repeat(sizes > 1, sizes)])
    key = np.zeros((n, 2), dtype=np.int64)
    key[:, 0] = own
    if shared.size:
        signature = np.empty((shared.size, m + 1), dtype=np.int64)
        for block in _blocks(shared.size):
            body = signature[block, 1:]
            np.multiply(cells[shared[block]], base, out=body)
            body += other[None, :]
            body.sort(axis=1)
        signature[:, 0] = own[shared]
        key[shared, 1] = intern_rows(signature)
    return intern_rows(key)


def bipartite_colours(cells: np.ndarray, row_seed: Sequence[int],
                      col_seed: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``assignment.bipartite_colours`` (its loop, as is) with :func:`refined`."""
    original = assignment._refined
    assignment._refined = refined
    try:
        return _ORIGINALS["bipartite_colours"](cells, row_seed, col_seed)
    finally:
        assignment._refined = original


# -- the assignment ---------------------------------------------------------------------

def canonical_matching(matrix: np.ndarray, bonus: np.ndarray | None,
                       row_colours: np.ndarray, col_colours: np.ndarray
                       ) -> list[tuple[int, int]]:
    """``assignment.canonical_matching`` with the solver's input built in one buffer.

    ``max_weight_matching(matrix[grid], bonus[grid])`` hands SciPy ``matrix[grid] +
    bonus[grid]`` with ``maximize=True``; SciPy then copies it, negated, and
    transposed when it has more rows than columns. Here that copy is made directly,
    block by block, and solved as given: the solver sees the same numbers. The rare
    second pass (a zero pair chosen) is left to the original.
    """
    return _canonical(matrix, bonus, None, row_colours, col_colours)


def _canonical(matrix: np.ndarray, bonus: np.ndarray | None,
               scaled: tuple[float, np.ndarray] | None, row_colours: np.ndarray,
               col_colours: np.ndarray) -> list[tuple[int, int]]:
    """:func:`canonical_matching` with the bonus given as a matrix, or as
    ``(eps, same)`` for ``eps * same`` (made block by block, never whole)."""
    n, m = matrix.shape
    if n == 0 or m == 0:
        return []
    row_order = np.argsort(row_colours, kind="stable")
    col_order = np.argsort(col_colours, kind="stable")
    transpose = m < n
    cost = np.empty((m, n) if transpose else (n, m), dtype=np.float64)
    for block in _blocks(n):
        part = matrix[row_order[block]][:, col_order]
        if bonus is not None:
            part += bonus[row_order[block]][:, col_order]
        elif scaled is not None:
            part += scaled[0] * scaled[1][row_order[block]][:, col_order]
        np.negative(part, out=part)
        if transpose:
            cost[:, block] = part.T
        else:
            cost[block] = part
    a, b = linear_sum_assignment(cost)
    del cost
    rows, cols = (b, a) if transpose else (a, b)
    pairs = [(int(i), int(j)) for i, j in zip(rows, cols, strict=True)
             if matrix[row_order[i], col_order[j]] > 0]
    if len(pairs) < min(n, m) and np.count_nonzero(matrix) > len(pairs):
        if scaled is not None:
            bonus = scaled[0] * scaled[1]
        return _ORIGINALS["canonical_matching"](
            matrix, bonus, row_colours, col_colours)
    return sorted((int(row_order[i]), int(col_order[j])) for i, j in pairs)


def pair_scope(matrix: np.ndarray, mode: Any, wl_lambda: float, structure: Any,
               gold: list[Any], candidate: list[Any]) -> Any:
    """``referential._pair_scope`` restructured (not a drop-in of its parts: it is
    that function's body with three changes, all the same values):

    * the tie-break bonus ``eps * b`` is never made whole: the solver's buffer adds
      it block by block (1 M);
    * the cell labels are dropped once the colours are refined (1 M, alive until
      the function returned);
    * the twin repair's first level is ``b`` itself (0.0/1.0, which the repair
      turns into float64 anyway) instead of an int64 copy (1 M).
    """
    if structure is None or not matrix.size:
        return _ORIGINALS["_pair_scope"](matrix, mode, wl_lambda, structure, gold, candidate)
    same = structure.same
    scaled: tuple[float, np.ndarray] | None = None
    if mode == referential.WLMode.BLEND:
        objective = (1.0 - wl_lambda) * matrix + wl_lambda * same
    else:
        objective, scaled = matrix, (referential.tie_epsilon(matrix), same)
    rows, cols = referential.bipartite_colours(
        referential._cell_labels(matrix, same, structure.depth), structure.gold_colours,
        structure.candidate_colours)
    rows = referential._with_texts(rows, gold)
    cols = referential._with_texts(cols, candidate)
    pairs = _canonical(objective, None, scaled, rows, cols)
    pairs = [(i, j) for i, j in pairs if matrix[i, j] > 0]
    levels = [same, structure.depth, structure.reference_agreement]
    pairs, decided = referential.repair_twins(
        pairs, objective if mode == referential.WLMode.BLEND else matrix, levels, rows, cols)
    rules = {p: (referential._LEVEL_RULES[decided[p]] if p in decided
                 else referential.TieRule.ATTRIBUTES) for p in pairs}
    return (pairs, rules, [p for p in pairs if decided.get(p) == referential._BY_LABELS],
            referential._Canonical(rows.tolist(), cols.tolist()))


def twin_pairs(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``referential._twin_pairs`` with rows grouped by a digest, checked for equality
    (a digest never stands for a row's bytes unchecked)."""
    groups: dict[bytes, list[list[int]]] = {}
    count: dict[int, int] = {}
    for i, _ in pairs:
        digest = hashlib.blake2b(matrix[i].tobytes(), digest_size=16).digest()
        for group in groups.setdefault(digest, []):
            if np.array_equal(matrix[group[0]], matrix[i]) and matrix[group[0]].tobytes() == (
                    matrix[i].tobytes()):
                group.append(i)
                break
        else:
            groups[digest].append([i])
    for members in (g for gs in groups.values() for g in gs):
        for i in members:
            count[i] = len(members)
    return [(i, j) for i, j in pairs if count[i] > 1]


def line_groups(matrix: np.ndarray, axis: int) -> list[list[int]]:
    """The groups of identical rows (``axis`` 0) or columns (1) of ``matrix``, of two
    lines or more, each in increasing order, as ``repair_twins`` groups them by each
    line's bytes, but keyed by a fingerprint (members of one fingerprint are then
    compared bit for bit), so no line's bytes are held.

    The fingerprint of a line is the sum of its cells' bits (as int64) times fixed
    odd multipliers, modulo 2**64: integer arithmetic, so equal lines get equal
    fingerprints whatever order numpy adds in, made block by block in one pass.
    """
    bits = matrix.view(np.int64) if matrix.dtype.itemsize == 8 else matrix.astype(np.int64)
    n, m = bits.shape
    multipliers = (np.arange(m if axis == 0 else n, dtype=np.uint64)
                   * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)) | np.uint64(1)
    prints = np.zeros(n if axis == 0 else m, dtype=np.uint64)
    for block in _blocks(n):
        part = bits[block].view(np.uint64)
        if axis == 0:
            prints[block] = (part * multipliers[None, :]).sum(axis=1, dtype=np.uint64)
        else:
            prints += (part * multipliers[block, None]).sum(axis=0, dtype=np.uint64)
    buckets: dict[int, list[list[int]]] = {}
    for index, key in enumerate(prints.tolist()):
        buckets.setdefault(key, []).append([index])
    groups: list[list[int]] = []
    for candidates in buckets.values():
        if len(candidates) == 1:
            continue
        found: list[list[int]] = []
        for (index,) in candidates:  # in increasing order
            line = bits[index] if axis == 0 else bits[:, index]
            for group in found:
                first = bits[group[0]] if axis == 0 else bits[:, group[0]]
                if np.array_equal(first, line):
                    group.append(index)
                    break
            else:
                found.append([index])
        groups += [g for g in found if len(g) > 1]
    # in the order of their first line, as repair_twins' dict of bytes has them (its
    # sort by colour keeps that order among groups of equal colour)
    return sorted(groups)


def repair_twins(pairs: list[tuple[int, int]], matrix: np.ndarray, levels: Sequence[Any],
                 row_colours: np.ndarray, col_colours: np.ndarray, *,
                 passes: int = 2) -> tuple[list[tuple[int, int]], dict[tuple[int, int], int]]:
    """``assignment.repair_twins`` with two changes, the rest as is: twin groups from
    :func:`line_groups` (no row bytes held as dict keys: 1 M), and the candidate ->
    gold inverse of the pairing kept up to date group by group instead of rebuilt
    for every column group (``n`` entries per group: 5,000 groups x 10,000 entries
    at N = 10,000)."""
    partner = dict(pairs)
    decided: dict[tuple[int, int], int] = {}
    groups_of = []
    for axis in (0, 1):
        colours = row_colours if axis == 0 else col_colours
        groups_of.append(sorted(line_groups(matrix, axis),
                                key=lambda m: min(colours[k] for k in m)))
    for _ in range(passes if any(callable(level) for level in levels) else 1):
        decided = {}
        taken = {j: i for i, j in partner.items()}
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
            grid = np.ix_(rows, cols)
            subs = [(level(partner, rows, cols) if callable(level) else level[grid]).astype(
                np.float64) for level in levels]
            deciding = next((k for k, sub in enumerate(subs)
                             if assignment._spread(sub) > 0), len(subs))
            dynamic = [level for level in levels if callable(level)]
            arbitrary: set[tuple[int, int]] = set()
            if dynamic and len(rows) * len(cols) <= assignment._GREEDY_CELLS:
                chosen, arbitrary = assignment._greedy(
                    rows, cols, subs[:len(levels) - len(dynamic)], dynamic, partner)
            else:
                r, c = linear_sum_assignment(
                    assignment._lexicographic(subs, len(rows), len(cols)), maximize=True)
                chosen = [(rows[a], cols[b]) for a, b in zip(r, c, strict=True)]
            for i, j in chosen:
                partner[i] = j
                verdict = len(levels) if (i, j) in arbitrary else deciding
                decided[i, j] = max(verdict, decided.get((i, j), verdict))
            for i in rows:  # _greedy pairs them too: the inverse follows
                if i in partner:
                    taken[partner[i]] = i
    result = sorted(partner.items())
    return result, {p: decided[p] for p in result if p in decided}


_ORIGINALS: dict[str, Any] = {
    "bipartite_colours": assignment.bipartite_colours,
    "canonical_matching": assignment.canonical_matching,
    "_pair_scope": referential._pair_scope,
}

# (module, name, replacement): referential imported the assignment functions by name
REPLACEMENTS = (
    (referential, "_structure", structure),
    (referential, "_cell_labels", cell_labels),
    (referential, "tie_epsilon", tie_epsilon),
    (referential, "bipartite_colours", bipartite_colours),
    (referential, "canonical_matching", canonical_matching),
    (referential, "_twin_pairs", twin_pairs),
    (referential, "repair_twins", repair_twins),
)
# the scope pairing itself, restructured (see pair_scope): with ``patched(True)``
RESTRUCTURED = ((referential, "_pair_scope", pair_scope),)
# levels sharing the depth matrix (see SharedDepth): with ``patched(True, True)``
SHARED_LEVELS = ((referential, "_structure", structure_shared_levels),)


@contextlib.contextmanager
def patched(restructured: bool = False, shared_levels: bool = False) -> Iterator[None]:
    """The replacements installed in ``oa_core.referential`` for the ``with`` block
    (and the restructured ``_pair_scope``, and levels sharing the depth, if asked)."""
    chosen = (REPLACEMENTS + (RESTRUCTURED if restructured else ())
              + (SHARED_LEVELS if shared_levels else ()))
    saved = [(module, name, getattr(module, name)) for module, name, _ in chosen]
    for module, name, replacement in chosen:
        setattr(module, name, replacement)
    try:
        yield
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


LEVELS = ("as is", "drop-in", "+pairing", "+levels")


def run_one(n: int, level: int) -> dict[str, Any]:
    """One ``align`` of the N-person pair in this process: CPU s, RSS, score, pairs;
    ``level`` 0 as is, 1 with the drop-in replacements, 2 with the restructured
    ``_pair_scope`` too, 3 also with levels sharing the depth matrix."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import alignment_speed

    import oa_core

    gold, cand = alignment_speed.make_pair(n)
    schema = oa_core.Schema.parse(alignment_speed.SCHEMA)
    limits = oa_core.Limits(max_matrix_cells=max(n * n, 10**7))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with patched(level >= 2, level >= 3) if level else contextlib.nullcontext():
        start = time.process_time()
        result = oa_core.align(gold, cand, schema, limits=limits)
        cpu = time.process_time() - start
    pairs = json.dumps(sorted(result.scopes["person"].pairs))
    return {"n": n, "level": level, "cpu_s": cpu,
            "rss_before_mib": before / 1024,
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "score": result.score.hex(),
            "pairs": hashlib.sha256(pairs.encode()).hexdigest()[:16]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000])
    parser.add_argument("--levels", type=int, nargs="+", default=[0, 1, 2, 3],
                        help="0 as is, 1 drop-in replacements, 2 and restructured "
                        "pairing, 3 and levels sharing the depth matrix")
    parser.add_argument("--child", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child[0], args.child[1])))
        return
    print(f"{'N':>6} {'pairing':>9} {'CPU s':>8} {'RSS MiB':>9} {'score':>22} {'pairs':>17}")
    for n in args.sizes:
        rows = []
        for level in args.levels:
            out = subprocess.run([sys.executable, __file__, "--child", str(n), str(level)],
                                 check=True, capture_output=True, text=True).stdout
            row = json.loads(out.strip().splitlines()[-1])
            rows.append(row)
            print(f"{n:>6} {LEVELS[level]:>9} {row['cpu_s']:>8.2f} {row['rss_mib']:>9.0f} "
                  f"{row['score']:>22} {row['pairs']:>17}", flush=True)
        same = all((r["score"], r["pairs"]) == (rows[0]["score"], rows[0]["pairs"])
                   for r in rows)
        print(f"       same score and pairs: {same}")


if __name__ == "__main__":
    main()
