"""Field-level outcomes of an alignment, and the counting rule of field metrics.

The Object Aligner's score is one number per document; evaluation runs also ask
*which fields* a model gets right. This module turns one alignment into a flat list
of **field observations**, one per primitive value (string, number, boolean, null,
id, reference) of either document, each with its path pattern (array indices as
``*``, see :func:`oa_core.batch.path_pattern`) and its outcome:

``matched``
    both documents hold the value at aligned places; its similarity is the node's
    score (after the schema's threshold);
``missing``
    only the gold holds it (inside a missing record, key or list item too);
``excess``
    only the candidate holds it;
``mismatch``
    both hold something there, but of another type (or null against a value).

**Counting rule** (:func:`count`), for a credit threshold ``t`` in [0, 1]:

* matched with similarity >= ``t``: one true positive (TP);
* matched below ``t``, and every mismatch: one false positive (the wrong value given)
  *and* one false negative (the right value not given);
* missing: one false negative (FN); excess: one false positive (FP).

Precision is TP / (TP + FP), recall TP / (TP + FN) and F1 their harmonic mean; each
is None when its denominator is 0. A prediction with no usable JSON contributes its
gold's values as missing (:func:`gold_only`).

Examples
--------
>>> import oa_core
>>> schema = {"type": "object", "properties": {"tags": {"type": "array"}}}
>>> alignment = oa_core.align({"name": "Ann", "tags": ["a", "b"]},
...                           {"name": "Anne", "tags": ["a", "c", "d"]}, schema)
>>> for item in sorted(observe(alignment)):
...     print(item)
('/name', 'matched', 0.916...)
('/tags/*', 'excess', 0.0)
('/tags/*', 'excess', 0.0)
('/tags/*', 'matched', 1.0)
('/tags/*', 'missing', 0.0)
>>> counts = count(observe(alignment), threshold=0.5)
>>> counts["/name"], counts["/tags/*"]
(FieldCounts(tp=1, fp=0, fn=0), FieldCounts(tp=1, fp=2, fn=1))
>>> count(observe(alignment), threshold=0.95)["/name"]
FieldCounts(tp=0, fp=1, fn=1)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .kinds import NodeKind, Status
from .pointer import join

if TYPE_CHECKING:
    from .aligner import Alignment
    from .matchtree import MatchNode

__all__ = ["OUTCOMES", "FieldCounts", "Observation", "count", "gold_only", "observe"]

Observation = tuple[str, str, float]
"""``(path pattern, outcome, similarity)``; the similarity is 0.0 unless matched."""

OUTCOMES = ("matched", "missing", "excess", "mismatch")
_LEAF_KINDS = frozenset({NodeKind.LEAF, NodeKind.ID, NodeKind.REF, NodeKind.NULL})


@functools.lru_cache(maxsize=1 << 16)
def _pattern(pointer: str) -> str:
    # remembered: a run's documents repeat the same pointers (/people/3/name) thousands
    # of times, and a regex substitution per value is a visible share of observe()
    from .batch import path_pattern  # batch imports this module in its workers

    return path_pattern(pointer)


def _leaves(value: Any, pointer: str) -> Iterator[str]:
    """The pointers of every primitive inside ``value`` (containers are not fields)."""
    stack = [(value, pointer)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, join(where, k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, join(where, i)) for i, v in reversed(list(enumerate(item))))
        else:
            yield where


def _one_side(value: Any, pointer: str, outcome: str) -> Iterator[Observation]:
    for where in _leaves(value, pointer):
        yield _pattern(where), outcome, 0.0


def _node(node: MatchNode) -> Iterator[Observation]:
    if node.status == Status.MISSING:
        yield from _one_side(node.gold, node.gold_path or "", "missing")
    elif node.status == Status.EXCESS:
        yield from _one_side(node.candidate, node.candidate_path or "", "excess")
    elif node.status != Status.MATCHED:  # a type or null mismatch
        containers = (dict, list)
        if isinstance(node.gold, containers) or isinstance(node.candidate, containers):
            yield from _one_side(node.gold, node.gold_path or "", "missing")
            yield from _one_side(node.candidate, node.candidate_path or "", "excess")
        else:
            yield _pattern(node.path), "mismatch", 0.0
    elif node.kind in _LEAF_KINDS or (not node.children and not isinstance(
            node.gold, dict | list)):
        yield _pattern(node.path), "matched", float(node.score)
    else:
        for child in node.children:
            yield from _node(child)


def observe(alignment: Alignment) -> tuple[Observation, ...]:
    """Every field observation of one alignment, in document order.

    Parameters
    ----------
    alignment : Alignment
        What :func:`oa_core.align` returned.

    Returns
    -------
    tuple of (str, str, float)
        ``(path pattern, outcome, similarity)`` per primitive value; see the module
        notes for the outcomes.
    """
    return tuple(_node(alignment.tree))


def gold_only(gold: Any) -> tuple[Observation, ...]:
    """The observations of a prediction that gave nothing: every gold value missing.

    >>> gold_only({"a": [1, 2], "b": {"c": None}})
    (('/a/*', 'missing', 0.0), ('/a/*', 'missing', 0.0), ('/b/c', 'missing', 0.0))
    """
    return tuple(_one_side(gold, "", "missing"))


@dataclass(slots=True)
class FieldCounts:
    """True positives, false positives and false negatives of one field (or all).

    >>> counts = FieldCounts(tp=3, fp=1, fn=2)
    >>> counts.precision, counts.recall, round(counts.f1, 4)
    (0.75, 0.6, 0.6667)
    >>> FieldCounts().precision is None
    True
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        """TP / (TP + FP), or None without any predicted value."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """TP / (TP + FN), or None without any gold value."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        """2 TP / (2 TP + FP + FN), or None when all three are 0."""
        total = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / total if total else None

    def add(self, outcome: str, similarity: float, threshold: float) -> None:
        """Count one observation under the module's counting rule."""
        if outcome == "matched" and similarity >= threshold:
            self.tp += 1
        elif outcome in ("matched", "mismatch"):
            self.fp += 1
            self.fn += 1
        elif outcome == "missing":
            self.fn += 1
        elif outcome == "excess":
            self.fp += 1
        else:
            raise ValueError(f"unknown outcome {outcome!r}; expected one of {OUTCOMES}")


def count(observations: Iterable[Observation], threshold: float = 0.5,
          ) -> dict[str, FieldCounts]:
    """Counts per path pattern under the counting rule (patterns in first-seen order).

    Parameters
    ----------
    observations : iterable of (str, str, float)
    threshold : float
        The credit threshold: a matched value counts as correct from this similarity.
    """
    totals: dict[str, FieldCounts] = {}
    for pattern, outcome, similarity in observations:
        totals.setdefault(pattern, FieldCounts()).add(outcome, similarity, threshold)
    return totals
