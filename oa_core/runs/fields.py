"""Field-level outcomes of an alignment, and the counting rule of field metrics.

The Object Aligner's score is one number per document; evaluation runs also ask
*which fields* a model gets right. This module turns one alignment into a flat list
of **field observations**, one per primitive value (string, number, boolean, null,
id, reference) of either document, each with its path pattern (array indices as
``*``, see :func:`oa_core.runs.batch.path_pattern`) and its outcome:

``matched``
    both documents hold the value at aligned places; its similarity is the node's
    score (after the schema's threshold);
``missing``
    only the gold holds it (inside a missing record, key or list item too);
``excess``
    only the candidate holds it;
``mismatch``
    both hold something there, but of another type (or null against a value);
``wrong-shape``
    only the candidate holds it, inside a value of the wrong type (a list where the
    gold has an object, say): its pattern is that value's, since the paths inside it
    name no field of the gold (``/*/id`` for the gold's ``/people/*/id``).

**Counting rule** (:func:`count`), for a credit threshold ``t`` in [0, 1]:

* matched with similarity >= ``t``: one true positive (TP);
* matched below ``t``, and every mismatch: one *wrong value* (a false discovery, FD:
  a false positive) *and* one false negative (the right value not given);
* missing: one false negative (FN);
* excess and wrong-shape: one *spurious value* (a false alarm, FA: a false positive).

So FP = FD + FA, the split Stickler reports. Precision is TP / (TP + FP), recall
TP / (TP + FN) and F1 their harmonic mean; each is None when its denominator is 0. A
prediction with no usable JSON contributes its gold's values as missing
(:func:`gold_only`).

**Rows** (:func:`table`): one per field, that is per pattern some gold value has;
the values at patterns no gold has (wrong-shape values, keys no gold uses) are folded
into one :data:`WRONG_SHAPE` row, so that a few malformed outputs do not fill the table
with fields nobody asked for; the :data:`TOTAL` row sums all (micro average).

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
(FieldCounts(tp=1, fp=0, fn=0, fa=0), FieldCounts(tp=1, fp=2, fn=1, fa=2))
>>> count(observe(alignment), threshold=0.95)["/name"]
FieldCounts(tp=0, fp=1, fn=1, fa=0)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..kinds import NodeKind, Status
from ..pointer import join

if TYPE_CHECKING:
    import numpy as np

    from ..aligner import Alignment
    from ..matchtree import MatchNode

__all__ = ["OUTCOMES", "TOTAL", "WRONG_SHAPE", "FieldCounts", "Observation", "count",
           "count_arrays", "gold_only", "observe", "table"]

Observation = tuple[str, str, float]
"""``(path pattern, outcome, similarity)``; the similarity is 0.0 unless matched."""

OUTCOMES = ("matched", "missing", "excess", "mismatch", "wrong-shape")
WRONG_SHAPE = "(wrong shape)"
"""The row of the values at patterns no gold value has (see :func:`table`)."""
TOTAL = "(all fields)"
"""The row summing every field (micro average)."""
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


def _misshapen(node: MatchNode) -> Iterator[Observation]:
    pattern = _pattern(node.path)
    for _ in _leaves(node.candidate, node.candidate_path or ""):
        yield pattern, "wrong-shape", 0.0


def _node(node: MatchNode) -> Iterator[Observation]:
    if node.status == Status.MISSING:
        yield from _one_side(node.gold, node.gold_path or "", "missing")
    elif node.status == Status.EXCESS:
        yield from _one_side(node.candidate, node.candidate_path or "", "excess")
    elif node.status != Status.MATCHED:  # a type or null mismatch
        containers = (dict, list)
        if isinstance(node.gold, containers) or isinstance(node.candidate, containers):
            yield from _one_side(node.gold, node.gold_path or "", "missing")
            if isinstance(node.candidate, containers):
                yield from _misshapen(node)
            else:  # one value where the gold has a container: spurious where it stands
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
    """True positives, false positives (of which spurious) and false negatives of one
    field (or all).

    ``fp`` counts every false positive; ``fa`` those that are spurious values (false
    alarms: a value where the gold has none), so ``fd`` (``fp - fa``) the wrong values
    (false discoveries: a value where the gold has another).

    >>> counts = FieldCounts(tp=3, fp=1, fn=2)
    >>> counts.precision, counts.recall, round(counts.f1, 4), counts.fd
    (0.75, 0.6, 0.6667, 1)
    >>> FieldCounts().precision is None
    True
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0
    fa: int = 0

    @property
    def fd(self) -> int:
        """The wrong values (false discoveries): ``fp - fa``."""
        return self.fp - self.fa

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

    def __iadd__(self, other: FieldCounts) -> FieldCounts:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.fa += other.fa
        return self


def count(observations: Iterable[Observation], threshold: float = 0.5,
          ) -> dict[str, FieldCounts]:
    """Counts per path pattern under the counting rule (patterns sorted).

    Parameters
    ----------
    observations : iterable of (str, str, float)
    threshold : float
        The credit threshold: a matched value counts as correct from this similarity.

    Raises
    ------
    ValueError
        For an outcome not in :data:`OUTCOMES`.
    """
    import numpy as np  # once a run, at its end: the command starts without numpy

    items = list(observations)
    return count_arrays(np.array([p for p, _, _ in items], dtype=object),
                        np.array([o for _, o, _ in items], dtype=object),
                        np.array([s for _, _, s in items], dtype=float), threshold)


def count_arrays(patterns: np.ndarray, outcomes: np.ndarray, similarities: np.ndarray,
                 threshold: float = 0.5) -> dict[str, FieldCounts]:
    """:func:`count` of observations given as three arrays (a run's field table).

    >>> import numpy as np
    >>> count_arrays(np.array(["/a", "/a"], dtype=object),
    ...              np.array(["matched", "excess"], dtype=object), np.array([0.9, 0.0]))
    {'/a': FieldCounts(tp=1, fp=1, fn=0, fa=1)}
    """
    unknown = sorted(set(outcomes.tolist()) - set(OUTCOMES))
    if unknown:
        raise ValueError(f"unknown outcome {unknown[0]!r}; expected one of {OUTCOMES}")
    if patterns.size == 0:
        return {}
    import numpy as np

    names, inverse = np.unique(patterns.astype(str), return_inverse=True)
    matched = outcomes == "matched"
    correct = matched & (similarities >= threshold)
    wrong = (matched & ~correct) | (outcomes == "mismatch")
    spurious = (outcomes == "excess") | (outcomes == "wrong-shape")

    def per_pattern(mask: np.ndarray) -> list[int]:
        return np.bincount(inverse, weights=mask, minlength=names.size).astype(int).tolist()

    tp, fd, fa = per_pattern(correct), per_pattern(wrong), per_pattern(spurious)
    fn = per_pattern(wrong | (outcomes == "missing"))
    return {str(name): FieldCounts(tp[k], fd[k] + fa[k], fn[k], fa[k])
            for k, name in enumerate(names.tolist())}


def table(counts: dict[str, FieldCounts]) -> list[tuple[str, FieldCounts]]:
    """The rows of a field metrics table: the fields in pattern order, then
    :data:`WRONG_SHAPE` (if any value went there), then :data:`TOTAL`.

    A pattern no gold value has (no TP and no FN in the whole run) is no field: its
    values, all spurious, are counted in the :data:`WRONG_SHAPE` row.

    >>> rows = table({"/a": FieldCounts(2, 0, 1), "/*/a": FieldCounts(0, 3, 0, 3)})
    >>> [(name, c.tp, c.fp, c.fn) for name, c in rows]
    [('/a', 2, 0, 1), ('(wrong shape)', 0, 3, 0), ('(all fields)', 2, 3, 1)]
    """
    fields: list[tuple[str, FieldCounts]] = []
    misshapen, total = FieldCounts(), FieldCounts()
    for name in sorted(counts):
        item = counts[name]
        total += item
        if item.tp + item.fn:
            fields.append((name, item))
        else:
            misshapen += item
    if misshapen.fp:
        fields.append((WRONG_SHAPE, misshapen))
    return [*fields, (TOTAL, total)]
