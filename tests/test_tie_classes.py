"""The content rule looks through a block's pairings by class of records.

``crates/oa-engine/src/align/settle.rs`` enumerates the classes of pairings (records
that no level and no ``alike`` key tell apart are exchangeable), each standing for its
first pairing. Wherever every pairing can be enumerated (at most 7! of them), the
result must be the one of enumerating every pairing, which :func:`every_pairing` does
here as the oracle (with the blocks and alternatives of the Python engine it replaced,
kept here as written).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from oa_core import _engine

Pair = tuple[int, int]
SCORED_TRIALS = 24  # the pairings one alignment may score (align/settle.rs)


@dataclass
class _Canonical:
    """Canonical ranks of a scope's gold rows and candidate columns."""

    rows: list[int]
    cols: list[int]


@dataclass
class _Budget:
    trials: int = SCORED_TRIALS


def _swappable(a: Pair, b: Pair, levels: list[Any]) -> bool:
    """Whether two pairs can exchange partners with every level's values kept."""
    (i, j), (k, m) = a, b
    return all(sorted((float(level[i, m]), float(level[k, j])))
               == sorted((float(level[i, j]), float(level[k, m]))) for level in levels)


def _tie_blocks(label_ties: list[Pair], levels: list[Any]) -> list[list[Pair]]:
    """The label ties in blocks of pairs that may exchange partners (connected by
    swaps that keep every level's values), in the order of their first pair."""
    parent = list(range(len(label_ties)))

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for a, b in itertools.combinations(range(len(label_ties)), 2):
        if _swappable(label_ties[a], label_ties[b], levels):
            parent[root(a)] = root(b)
    found: dict[int, list[Pair]] = {}
    for k, pair in enumerate(label_ties):
        found.setdefault(root(k), []).append(pair)
    return list(found.values())


def _alternatives(block: list[Pair], current: list[Pair], levels: list[Any],
                  order: _Canonical) -> tuple[list[int], list[int]]:
    """The rows and columns a block's pairs may take: its own, and the unpaired ones
    as good as a block pair's on every level (a record left out can replace it)."""
    rows = {i for i, _ in block}
    cols = {j for _, j in block}
    paired_rows = {i for i, _ in current}
    paired_cols = {j for _, j in current}
    shape = levels[0].shape
    for i, j in block:
        for other in range(shape[1]):
            if other not in paired_cols and all(level[i, other] == level[i, j]
                                                for level in levels):
                cols.add(other)
        for other in range(shape[0]):
            if other not in paired_rows and all(level[other, j] == level[i, j]
                                                for level in levels):
                rows.add(other)
    return sorted(rows, key=order.rows.__getitem__), sorted(cols, key=order.cols.__getitem__)


def settle_by_score(pairs: list[Pair], label_ties: list[Pair], levels: list[Any],
                    score_of: Callable[[list[Pair]], float], budget: _Budget,
                    order: _Canonical, alike: Callable[[list[Pair]], Hashable]
                    ) -> tuple[list[Pair], list[Pair]]:
    """The engine's settling (Rust): C and b kept by every pairing, a ranks them; Rust
    learns which pairings ``alike`` keys alike as one class number per pairing."""
    kept = [np.ascontiguousarray(level, dtype=np.float64) for level in levels[:2]]
    ranked = [np.ascontiguousarray(level, dtype=np.int64) for level in levels[2:]]

    def classes(found: list[list[Pair]]) -> list[int]:
        numbers: dict[Hashable, int] = {}
        return [numbers.setdefault(alike(trial), len(numbers)) for trial in found]

    current, left, budget.trials = _engine.settle_by_score(
        pairs, label_ties, kept, ranked, score_of, classes, budget.trials, order.rows,
        order.cols)
    return current, left


def every_pairing(pairs: list[Pair], label_ties: list[Pair], levels: list[Any],
                  score_of: Any, budget: _Budget, order: _Canonical, alike: Any
                  ) -> tuple[list[Pair], list[Pair]]:
    """The rule over every pairing of each block (blocks of at most 7! pairings)."""
    remaining: list[Pair] = []
    current = sorted(pairs)
    tied = sorted(label_ties, key=lambda p: (order.rows[p[0]], order.cols[p[1]]))
    kept, ranked = levels[:2], levels[2:]
    for block in _tie_blocks(tied, kept):
        rows, cols = _alternatives(block, current, kept, order)
        size = len(block)
        assert len(rows) ** size * len(cols) ** size <= 10**6  # drawn small
        wanted = [sorted(float(level[i, j]) for i, j in block) for level in kept]
        trials = [block] + [
            trial for chosen in itertools.combinations(rows, size)
            for arranged in itertools.permutations(cols, size)
            if (trial := list(zip(chosen, arranged, strict=True))) != block
            and [sorted(float(level[i, j]) for i, j in trial) for level in kept] == wanted]
        depths = [tuple(int(sum(int(level[i, j]) for i, j in trial)) for level in ranked)
                  for trial in trials]
        trials = [t for t, d in zip(trials, depths, strict=True) if d == max(depths)]
        fixed = [p for p in current if p not in set(block)]
        distinct: dict[Any, list[int]] = {}
        for k, trial in enumerate(trials):
            distinct.setdefault(alike(trial), []).append(k)
        if len(distinct) == 1:
            current = sorted(fixed + trials[0])
            if len(trials) > 1:
                remaining += trials[0]
            continue
        if len(distinct) > budget.trials:
            remaining += block
            continue
        budget.trials -= len(distinct)
        scored = [(score_of(sorted(fixed + trials[same[0]])), same)
                  for same in distinct.values()]
        best = max(value for value, _ in scored)
        winners = [k for value, same in scored if value == best for k in same]
        current = sorted(fixed + trials[min(winners)])
        if len(winners) > 1:
            remaining += trials[min(winners)]
    return current, sorted(remaining)


@st.composite
def blocks(draw: st.DrawFn) -> tuple[Any, ...]:
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    cells = st.sampled_from([0.5, 1.0]) if draw(st.booleans()) else st.just(1.0)
    c = np.array(draw(st.lists(cells, min_size=n * m, max_size=n * m))).reshape(n, m)
    b = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 1.0]), min_size=n * m,
                               max_size=n * m))).reshape(n, m)
    a = np.array(draw(st.lists(st.sampled_from([0, 1, 1]), min_size=n * m,
                               max_size=n * m)), dtype=np.int64).reshape(n, m)
    levels = [c, b, a][:draw(st.integers(1, 3))]
    rows = draw(st.permutations(range(n)))
    cols = draw(st.permutations(range(m)))
    pairs = sorted(zip(rows, cols, strict=False))  # min(n, m) pairs
    ties = sorted(draw(st.sets(st.sampled_from(pairs), min_size=1)))
    order = _Canonical(draw(st.permutations(range(n))), draw(st.permutations(range(m))))
    # records alike by a few groups of each side (a pairing's key: its pairs' groups)
    gold_groups = draw(st.integers(1, 3))
    candidate_groups = draw(st.integers(1, 3))
    return (pairs, ties, levels, order, gold_groups, candidate_groups,
            draw(st.integers(0, 30)), draw(st.integers(0, 2**16)))


@settings(deadline=None, max_examples=80, derandomize=True)
@given(case=blocks())
def test_classes_of_pairings_settle_as_every_pairing_does(case):
    pairs, ties, levels, order, gold_groups, candidate_groups, trials, salt = case

    def alike(trial: list[Pair]) -> Any:
        return tuple(sorted((i % gold_groups, j % candidate_groups) for i, j in trial))

    def score_of(trial: list[Pair]) -> float:  # one score per alike key
        return float(hash((salt, alike(trial))) % 4) / 3

    results = []
    for settle in (every_pairing, settle_by_score):
        log: list[Any] = []
        budget = _Budget(trials)

        def logged(trial: list[Pair], log: list[Any] = log) -> float:
            log.append(alike(trial))
            return score_of(trial)

        results.append((settle(pairs, ties, levels, logged, budget, order, alike),
                        budget.trials, log))
    assert results[1] == results[0]


def test_look_alike_records_past_every_pairing_settle_by_class():
    # 8 records a side in two arrays of 4: 8! pairings, 5 classes; the score prefers
    # each array's records with the other side's like array (seed 10001006, nested)
    levels = [np.ones((8, 8)), np.ones((8, 8)), np.ones((8, 8), dtype=np.int64)]
    crossed = [(i, (i + 4) % 8) for i in range(8)]

    def alike(trial: list[Pair]) -> Any:
        return tuple(sorted((i // 4, j // 4) for i, j in trial))

    scored: list[Any] = []

    def score_of(trial: list[Pair]) -> float:
        scored.append(trial)
        return sum(i // 4 == j // 4 for i, j in trial) / 8

    budget = _Budget()
    pairs, left = settle_by_score(crossed, crossed, levels, score_of, budget,
                                  _Canonical(list(range(8)), list(range(8))), alike)
    assert pairs == [(i, i) for i in range(8)]
    assert (len(scored), budget.trials, left) == (5, 24 - 5, pairs)
