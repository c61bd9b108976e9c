"""Where a candidate is wrong: the imperfect nodes of a match tree, costliest first.

A node is *perfect* when it is matched and it and its key term score 1. A *mismatch*
is an imperfect node none of whose children is imperfect: a wrong value, a missing
or excess item or key, a type or null mismatch, a key matched to a differently
spelled one. Every deficit of the tree sits at or under a mismatch. Each node also
has a one-character status mark, so that a view never relies on colour alone.

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> tree = oa_core.align(load("gold"), load("candidate"), load("schema")).tree
>>> [(node.path, mark(node)) for node in mismatches(tree)][:3]
[('/agenda/0', '+'), ('/agenda/1', '−'), ('/period/1', '≈')]
"""

from __future__ import annotations

from .kinds import Status
from .matchtree import MatchNode

__all__ = ["MARKS", "PERFECT", "is_perfect", "mark", "mismatches"]

PERFECT = 1.0 - 1e-12
"""A score from which a node counts as perfect (rounding of weighted sums aside)."""

MARKS = {"✓": "equal", "≈": "partly equal", "−": "missing in candidate",
         "+": "excess in candidate", "≠": "type mismatch", "∅": "null on one side"}
"""The status marks and what each means."""

_STATUS_MARKS = {Status.MISSING: "−", Status.EXCESS: "+", Status.TYPE_MISMATCH: "≠",
                 Status.NULL_MISMATCH: "∅"}


def is_perfect(node: MatchNode) -> bool:
    """Whether ``node`` is matched and it and its key term score 1."""
    return (node.status == Status.MATCHED and node.score >= PERFECT
            and (node.key_score is None or node.key_score >= PERFECT))


def mark(node: MatchNode) -> str:
    """The status mark of ``node`` (a key of :data:`MARKS`)."""
    return _STATUS_MARKS.get(node.status, "✓" if is_perfect(node) else "≈")


def mismatches(tree: MatchNode) -> list[MatchNode]:
    """The mismatches of ``tree``, the costliest first (ties by pointer).

    The order is fixed by the tree alone: equal deficits (to 12 decimals) are ordered
    by pointer (the gold's, or the candidate's for a candidate-only node), as the
    feedback ranks its operations.

    >>> import oa_core
    >>> tree = oa_core.align({"a": 1, "b": [1, 2]}, {"a": 2, "b": [1]},
    ...                      {"type": "object"}).tree
    >>> [(node.path, node.status.value, round(node.deficit, 3)) for node in mismatches(tree)]
    [('/a', 'matched', 0.25), ('/b/1', 'missing', 0.25)]
    """
    found = [node for node in tree.iter_nodes() if not is_perfect(node)
             and all(is_perfect(child) for child in node.children)]
    # deficits equal but for rounding (0.0625 reached by two sums) tie, settled by place
    return sorted(found, key=lambda node: (-round(node.deficit, 12), node.path,
                                           node.gold_path is None))
