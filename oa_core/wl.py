"""The traces of joint 1-dimensional Weisfeiler-Leman colour refinement.

The gold and candidate reference graphs of one scope are refined *together* by the
Rust engine (``crates/oa-engine/src/align/``, Algorithm "Relabel" of the paper): one
intern table maps each round's sorted signatures to integer colours, so equal colours
are comparable across the sides. A vertex's signature is ``(own colour, sorted
multiset of (direction, relation, label, neighbour colour))`` over its incident
edges; refinement stops when the number of colours no longer grows. Every round is
kept (round 0 first, the last one stable) in a :class:`WLTrace`, which
:func:`oa_core.align` returns per scope WL paired and the explorer draws.

Examples
--------
>>> import oa_core
>>> schema = {"type": "array", "items": {"type": "object", "properties": {
...     "id": {"type": "string", "idScope": "p"}, "boss": {"type": "string", "ref": "p"}}}}
>>> found = oa_core.align([{"id": "a"}, {"id": "b", "boss": "a"}],
...                       [{"id": "y", "boss": "x"}, {"id": "x"}], schema)
>>> trace = found.wl["p"]
>>> trace.rounds[-1]
[0, 1, 1, 0]
>>> trace.final[0] == trace.final[3]  # gold a and candidate x are both bosses
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["WLEdge", "WLTrace", "WLVertex"]


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
