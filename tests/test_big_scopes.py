"""Big scopes, same bits (issue 14).

* the scope pairing's solver input: twin groups and the canonical matching (Rust,
  ``oa_core._engine``) against their plain whole-matrix formulas;
* graphs are paired as before they were made lean (pinned pairs, rules, twins and
  label ties), and their WL agreement levels are read from the WL trace's rounds.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from oa_helpers import scope_matrices

import oa_core
from benchmarks import alignment_speed
from oa_core import _engine


def plain_groups(matrix: np.ndarray, axis: int) -> list[list[int]]:
    lines = matrix if axis == 0 else matrix.T
    groups: dict[bytes, list[int]] = {}
    for index in range(lines.shape[0]):
        groups.setdefault(lines[index].tobytes(), []).append(index)
    return [g for g in groups.values() if len(g) > 1]


@settings(max_examples=200, deadline=None)
@given(scope_matrices())
def test_twin_groups_are_the_equal_lines(case: tuple[Any, ...]) -> None:
    matrix = np.ascontiguousarray(case[0], dtype=np.float64)
    for axis in (0, 1):
        assert _engine.twin_groups(matrix, axis) == plain_groups(matrix, axis)


@settings(max_examples=200, deadline=None)
@given(scope_matrices())
def test_canonical_matching_solves_the_permuted_objective(case: tuple[Any, ...]) -> None:
    matrix, same, _, row_seed, col_seed = case
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    rows = [int(r) for r in row_seed]
    cols = [int(c) for c in col_seed]
    row_order = np.argsort(np.asarray(rows, dtype=np.int64), kind="stable")
    col_order = np.argsort(np.asarray(cols, dtype=np.int64), kind="stable")
    grid = np.ix_(row_order, col_order)
    eps = _engine.tie_epsilon(matrix) if matrix.size else 0.0
    for bonus, scale in ((None, 1.0), (same, eps), (same, 1.0)):
        whole = None if bonus is None else np.ascontiguousarray(scale * bonus)
        expected = sorted((int(row_order[i]), int(col_order[j])) for i, j in
                          _engine.max_weight_matching(
                              np.ascontiguousarray(matrix[grid]),
                              None if whole is None else np.ascontiguousarray(whole[grid])))
        got = _engine.canonical_matching(
            matrix, None if bonus is None else np.ascontiguousarray(bonus, dtype=np.float64),
            rows, cols, bonus_scale=scale)
        assert got == expected


def _pinned(result: oa_core.Alignment) -> list[str]:
    scope = result.scopes["person"]
    blob = json.dumps([sorted(scope.pairs),
                       sorted((list(k), v.value) for k, v in scope.rules.items()),
                       sorted(scope.structural_pairs), sorted(scope.label_ties)])
    return [result.score.hex(), hashlib.sha256(blob.encode()).hexdigest()[:16]]


# Pairs, rules, twins and label ties of alignment_speed's graphs as the scope pairing
# gave them with whole-matrix temporaries (commit 95d214f), every WL mode.
PINNED = json.loads(Path(__file__).with_name("big_scopes_pinned.json").read_text("utf-8"))


@pytest.mark.parametrize("seed", range(4))
def test_graphs_are_paired_as_with_whole_matrices(seed: int) -> None:
    gold, candidate = alignment_speed.make_pair(24 + 20 * seed, seed=seed)
    schema = oa_core.Schema.parse(alignment_speed.SCHEMA)
    for mode in ("tie_break", "blend", "none"):
        result = oa_core.align(gold, candidate, schema, wl_mode=mode)
        assert _pinned(result) == PINNED[f"{seed}-{mode}"]
        if mode == "none":
            continue
        trace, scope = result.wl["person"], result.scopes["person"]
        gold_vertices = [k for k, v in enumerate(trace.vertices) if v.side == "gold"
                         and v.kind == "record" and v.scope == "person"]
        cand_vertices = [k for k, v in enumerate(trace.vertices) if v.side == "candidate"
                         and v.kind == "record" and v.scope == "person"]
        g = np.array([[c[k] for k in gold_vertices] for c in trace.rounds])
        c = np.array([[c[k] for k in cand_vertices] for c in trace.rounds])
        equal = g[:, :, None] == c[:, None, :]
        assert scope.colour_agreement is not None and scope.depth_agreement is not None
        assert (scope.colour_agreement == equal[-1].astype(np.float64)).all()
        assert (scope.depth_agreement == equal.sum(axis=0) / len(trace.rounds)).all()
