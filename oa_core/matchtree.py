"""The match tree: :class:`MatchNode`, one compared pair of gold and candidate.

The Rust engine descends gold, candidate and schema in lockstep (Algorithm 1 of the
paper) and records every compared pair as a row of a node table
(``crates/oa-engine/src/score/``); :mod:`oa_core.nodetable` builds the tree of
:class:`MatchNode` from it, which :func:`oa_core.align` returns, and
:mod:`oa_core.feedback`, :mod:`oa_core.report` and the explorer read.

Conventions (documented in ``docs/schema.md``):

* a map's key term averages key similarities over its slots (matched pairs,
  unmatched gold keys, unmatched candidate keys); an unmatched slot scores 0 and
  keeps its property's ``valueWeight`` (undeclared keys weigh 1);
* an identifier field is worth 1 whenever both records have it; a reference
  scores 1 iff the candidate value is the image of the gold value under the
  scope's bijection and exists among the candidate's ids (two nulls agree);
* ``align`` lists are matched on a canonical order of their elements (sorted by
  canonical JSON), so permuting a list never changes its score.

Examples
--------
>>> import oa_core
>>> schema = {"type": "object", "properties": {"a": {"type": "string", "score": "exact"},
...                                            "b": {"type": "string", "score": "exact"}}}
>>> tree = oa_core.align({"a": "x", "b": "y"}, {"a": "x", "b": "z"}, schema).tree
>>> tree.score, [(c.label, c.score, c.contribution) for c in tree.children]
(0.5, [('a', 1.0, 0.5), ('b', 0.0, 0.0)])
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .kinds import NodeKind, Status
from .schema import SchemaNode

if TYPE_CHECKING:  # annotations only: importing oa_core does not import numpy
    import numpy as np

__all__ = ["MatchNode", "deficit"]


def deficit(effective_weight: float, score: float, key_effective_weight: float,
            key_score: float | None) -> float:
    """What a node costs the root score: its value's and its key's shares times what
    each misses (:attr:`MatchNode.deficit`; also read off a node table's rows).

    >>> deficit(0.5, 0.8, 0.25, None)
    0.35
    """
    return effective_weight * (1.0 - score) + key_effective_weight * (
        1.0 - (key_score or 0.0))


@dataclass(eq=False, slots=True)
class MatchNode:
    """One compared pair (or one unmatched element) of the match tree.

    ``weight`` is the node's share in its parent's score and ``effective_weight``
    the product of shares up to the root; for map slots ``key_weight`` and
    ``key_score`` describe the key term. A parent's score is
    ``sum(c.weight * c.score + c.key_weight * (c.key_score or 0) for c in children)``.
    """

    kind: NodeKind
    status: Status
    label: str  # for display only: never parsed (see gold_key / candidate_key)
    gold_path: str | None
    candidate_path: str | None
    schema_path: str
    gold: Any = None
    candidate: Any = None
    score: float = 0.0
    weight: float = 0.0
    key_weight: float = 0.0
    key_score: float | None = None
    effective_weight: float = 0.0
    key_effective_weight: float = 0.0
    comparator: str | None = None
    similarity: float | None = None
    threshold: float | None = None
    order: str | None = None  # sequences: "align", "fixed", "scope"
    scope: str | None = None
    expected: Any = None  # refs: the candidate id the gold reference maps to
    gold_key: str | None = None  # map slots: the key on each side (None where absent)
    candidate_key: str | None = None
    children: list[MatchNode] = field(default_factory=list)
    schema: SchemaNode | None = field(default=None, repr=False)  # the node it was scored by
    matrix: np.ndarray | None = None
    pairs: list[tuple[int, int]] = field(default_factory=list)

    @property
    def contribution(self) -> float:
        """What this node adds to the root score."""
        return self.effective_weight * self.score + self.key_effective_weight * (
            self.key_score or 0.0)

    @property
    def deficit(self) -> float:
        """What this node costs the root score (its repair operations' deltas)."""
        return deficit(self.effective_weight, self.score, self.key_effective_weight,
                       self.key_score)

    @property
    def path(self) -> str:
        """The gold pointer if the node exists in gold, else the candidate pointer."""
        return self.gold_path if self.gold_path is not None else (self.candidate_path or "")

    def iter_nodes(self) -> Iterator[MatchNode]:
        """This node and all below it, depth first, parents first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def to_dict(self) -> dict[str, Any]:
        """The subtree as plain JSON-ready data (without matrices)."""
        return {
            "kind": self.kind, "status": self.status, "label": self.label,
            "gold_path": self.gold_path, "candidate_path": self.candidate_path,
            "schema_path": self.schema_path, "score": self.score, "weight": self.weight,
            "effective_weight": self.effective_weight, "key_score": self.key_score,
            "key_weight": self.key_weight, "comparator": self.comparator,
            "similarity": self.similarity, "deficit": self.deficit,
            "children": [c.to_dict() for c in self.children],
        }
