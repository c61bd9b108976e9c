"""Joint 1-dimensional Weisfeiler-Leman colour refinement on a disjoint union.

The gold and candidate reference graphs of one scope are refined *together*:
one intern table (Algorithm "Relabel" of the paper) maps each round's sorted
signatures to integer colours, so equal colours are comparable across the sides.

A vertex's signature is ``(own colour, sorted multiset of (direction, relation,
label, neighbour colour))`` over its incident edges; a self-loop contributes one
``("loop", ...)`` descriptor. Refinement stops when the number of colours no longer
grows; every round is kept (round 0 first, the last one stable). The refinement is
Rust's (:func:`refine`); this module keeps the graph and trace types.

Examples
--------
>>> vertices = [WLVertex("gold", "g0", 0, 1), WLVertex("gold", "g1", 1, 2),
...             WLVertex("candidate", "c0", 0, 9), WLVertex("candidate", "c1", 1, 8)]
>>> edges = [WLEdge("gold", 0, 1, "mentor->mentee"), WLEdge("candidate", 3, 2, "mentor->mentee")]
>>> trace = refine(vertices, edges, ["record"] * 4)
>>> trace.rounds
[[0, 0, 0, 0], [1, 0, 0, 1]]
>>> trace.final[0] == trace.final[3]  # gold 1 and candidate 8 are both mentors
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _engine

__all__ = ["WLEdge", "WLTrace", "WLVertex", "refine"]


@dataclass(frozen=True, slots=True)
class WLVertex:
    """A vertex of the disjoint union: a record, or a hub (for a 3+-way reference, or
    for an occurrence of a nested scope's record array, linked to its records)."""

    side: str  # "gold" or "candidate"
    key: str  # JSON Pointer of the record (or of the hub's carrier)
    record_index: int | None  # index among the scope's records on its side
    record_id: Any = None
    kind: str = "record"  # "record" or "hub"
    label: str = ""  # a short text for display
    scope: str = ""  # the record's scope (one graph holds every scope of a reference cycle)


@dataclass(frozen=True, slots=True)
class WLEdge:
    """A directed edge ``source -> target`` (indices into the vertex list)."""

    side: str
    source: int
    target: int
    relation: str  # e.g. "mentor->mentee"; a hub edge carries the endpoint's role
    label: str = ""  # canonical JSON of the carrier's exact scalars ("" if none)


@dataclass(slots=True)
class WLTrace:
    """Every refinement round of one scope."""

    scope: str
    mode: str
    vertices: list[WLVertex]
    edges: list[WLEdge]
    rounds: list[list[int]] = field(default_factory=list)

    @property
    def final(self) -> list[int]:
        """The stable colouring (the last round)."""
        return self.rounds[-1]

    def colors(self, side: str, round_index: int = -1) -> list[int]:
        """Colours of the record vertices of one side, in record order."""
        colouring = self.rounds[round_index]
        return [c for v, c in zip(self.vertices, colouring, strict=True)
                if v.side == side and v.kind == "record"]

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "mode": self.mode,
                "vertices": [{"side": v.side, "key": v.key, "record_index": v.record_index,
                              "record_id": v.record_id, "kind": v.kind, "label": v.label,
                              "scope": v.scope}
                             for v in self.vertices],
                "edges": [{"side": e.side, "source": e.source, "target": e.target,
                           "relation": e.relation, "label": e.label} for e in self.edges],
                "rounds": self.rounds}

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from .notebook.scopes import wl_html

        return wl_html(self)


def refine(vertices: Sequence[WLVertex], edges: Sequence[WLEdge],
           initial: Sequence[str], *, scope: str = "", mode: str = "tie_break") -> WLTrace:
    """Refine colours on the union until the partition is stable (the rule:
    ``crates/oa-engine/src/align/``, through ``oa_core._engine.wl_refine``).

    Parameters
    ----------
    vertices, edges
        The disjoint union (edges never join the two sides).
    initial : sequence of str
        A seed per vertex (all equal in tie-break mode); seeds order as strings.
    scope, mode
        Recorded in the trace.

    Returns
    -------
    WLTrace
    """
    links = [(e.source, e.target, e.relation, e.label) for e in edges]
    seeds = list(initial)
    try:
        rounds = _engine.wl_refine(len(vertices), links, seeds)
    except UnicodeEncodeError:  # a lone surrogate (no UTF-8 form): refine the ranks
        rounds = _engine.wl_refine(len(vertices), *_ranked(links, seeds))
    return WLTrace(scope, mode, list(vertices), list(edges), rounds)


def _ranked(links: list[tuple[int, int, str, str]], seeds: list[str]
            ) -> tuple[list[tuple[int, int, str, str]], list[str]]:
    """The texts of a graph as their ranks among their kind (seeds, relations,
    labels), zero-padded: the same equalities and the same order (seeds and edge
    descriptors compare field by field), in ASCII.

    >>> _ranked([(0, 1, "b", "")], ["z", "a"])
    ([(0, 1, '0000000000', '0000000000')], ['0000000001', '0000000000'])
    """
    def ranks(texts: set[str]) -> dict[str, str]:
        return {text: f"{k:010d}" for k, text in enumerate(sorted(texts))}

    relation = ranks({r for _, _, r, _ in links})
    label = ranks({lab for *_, lab in links})
    seed = ranks(set(seeds))
    return ([(s, t, relation[r], label[lab]) for s, t, r, lab in links],
            [seed[text] for text in seeds])
