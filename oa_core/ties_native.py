"""The tie policy of referential alignment in Rust (``OA_ENGINE=rust``).

:mod:`oa_core.referential` pairs one scope's records (``_pair_scope``) and settles
its label ties by the documents' score (``_settle_by_score``) through these two
functions under the Rust engine; they only convert its values to and from
``oa_core._engine`` (``crates/oa-python/src/ties.rs``), where the rules are
(``crates/oa-engine/src/align/{policy,structure,pairing,settle}.rs``).

The ordered rules themselves are data in Rust (:func:`tie_rules`);
:class:`oa_core.kinds.TieRule` lists the same names in the same order.

Examples
--------
>>> [name for name, _ in tie_rules()]
['attributes', 'colour', 'depth', 'content', 'position']
>>> import numpy as np
>>> pairs, rules, ties, rows, cols = pair_scope(np.ones((2, 2)), "none", 0.5, None,
...                                             [], [], str)
>>> pairs, [rule.value for rule in rules.values()], ties
([(0, 0), (1, 1)], ['position', 'position'], [])
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _engine
from .kinds import TieRule

if TYPE_CHECKING:
    from .referential import _Structure

__all__ = ["pair_scope", "settle_by_score", "tie_rules"]

Pair = tuple[int, int]


def tie_rules() -> list[tuple[str, str]]:
    """The tie policy's rules in the order they apply, as (name, description)."""
    return _engine.tie_rules()


def _incident_kinds(structure: _Structure) -> tuple[list[list[tuple[int, int]]],
                                                    list[list[tuple[int, int]]]]:
    """Both sides' incident edges as (kind, other end): one kind per (direction,
    role, label), shared by the two sides (Rust compares kinds, never the text)."""
    kinds: dict[tuple[str, str, str], int] = {}

    def lines(edges: list[list[tuple[str, str, str, int]]]) -> list[list[tuple[int, int]]]:
        return [[(kinds.setdefault((direction, role, label), len(kinds)), other)
                 for direction, role, label, other in line] for line in edges]

    return lines(structure.gold_edges), lines(structure.candidate_edges)


def pair_scope(matrix: np.ndarray, mode: str, wl_lambda: float,
               structure: _Structure | None, gold: Sequence[Any], candidate: Sequence[Any],
               key_of: Callable[[Any], tuple[str, str]]
               ) -> tuple[list[Pair], dict[Pair, TieRule], list[Pair], list[int], list[int]]:
    """One scope's pairs, the rule that decided each, its label ties and the canonical
    ranks of its rows and columns (``_pair_scope``); ``key_of(record)`` is a record's
    sort key, asked only for records that share a colour."""
    args = None
    if structure is not None:
        if structure.colour_rounds is None:
            raise ValueError("a scope's structure without its colour histories")
        gold_rounds, candidate_rounds = structure.colour_rounds
        gold_edges, candidate_edges = _incident_kinds(structure)
        args = (np.ascontiguousarray(gold_rounds, dtype=np.int64),
                np.ascontiguousarray(candidate_rounds, dtype=np.int64),
                gold_edges, candidate_edges, structure.gold_occurrences,
                structure.candidate_occurrences, structure.gold_records,
                structure.candidate_records)

    def keys(is_gold: bool, indices: list[int]) -> list[tuple[bytes, bytes]]:
        records = gold if is_gold else candidate
        # UTF-8 bytes order as the code points do; surrogates a JSON text may hold pass
        return [(first.encode("utf-8", "surrogatepass"), second.encode("utf-8", "surrogatepass"))
                for first, second in (key_of(records[k]) for k in indices)]

    pairs, names, ties, rows, cols = _engine.pair_scope(
        np.ascontiguousarray(matrix, dtype=np.float64), mode, wl_lambda, args, keys)
    return pairs, {p: TieRule(name) for p, name in zip(pairs, names, strict=True)}, ties, rows, cols


def settle_by_score(pairs: list[Pair], label_ties: list[Pair], levels: Sequence[Any],
                    score_of: Callable[[list[Pair]], float], trials: int,
                    rows: list[int], cols: list[int],
                    alike: Callable[[list[Pair]], Hashable]
                    ) -> tuple[list[Pair], list[Pair], int]:
    """``_settle_by_score``: the pairs, the label ties that remain and the trials left
    of the budget. ``levels``: C and b (kept by every pairing), then a (ranks them),
    whole matrices (a scope settled by score keeps them whole). Rust learns which
    pairings ``alike`` keys alike as one class number per pairing."""
    kept = [np.ascontiguousarray(level, dtype=np.float64) for level in levels[:2]]
    ranked = [np.ascontiguousarray(level, dtype=np.int64) for level in levels[2:]]

    def classes(found: list[list[Pair]]) -> list[int]:
        numbers: dict[Hashable, int] = {}
        return [numbers.setdefault(alike(trial), len(numbers)) for trial in found]

    return _engine.settle_by_score(pairs, label_ties, kept, ranked, score_of, classes, trials,
                                   rows, cols)
