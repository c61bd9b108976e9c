"""How one identifier scope's records were paired: :class:`ScopeAlignment`.

Referential alignment (the paper's Section III.D: each ``idScope``'s records paired
on their cost matrix ``C``, ties broken by 1-WL colours, agreement depth and the
content rule) runs in the Rust engine (``crates/oa-engine/src/refer/``);
:func:`oa_core.align` reports each scope's outcome as one of these.

Examples
--------
>>> import oa_core
>>> schema = {"type": "array", "items": {"type": "object", "properties": {
...     "id": {"type": "string", "idScope": "p"}, "n": {"type": "string"}}}}
>>> found = oa_core.align([{"id": "a", "n": "x"}], [{"id": "b", "n": "x"}], schema)
>>> scope = found.scopes["p"]
>>> scope.pairs, scope.gold_ids, scope.candidate_ids, scope.matrix.tolist()
([(0, 0)], ['a'], ['b'], [[1.0]])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .kinds import TieRule

if TYPE_CHECKING:  # annotations only: importing oa_core does not import numpy
    import numpy as np

__all__ = ["ScopeAlignment"]


@dataclass(slots=True)
class ScopeAlignment:
    """How one scope's records were paired (what the explorer draws).

    Attributes
    ----------
    matrix : ndarray
        C: gold records x candidate records, without any bonus.
    colour_agreement : ndarray or None
        b: 1.0 where the stable WL colours of the two records are equal.
    depth_agreement : ndarray or None
        a: the share of refinement rounds in which the two records share a colour.
    pairs : list of (i, j)
        The chosen pairs (genuine ones: ``C > 0``).
    rules : dict (i, j) -> TieRule
        What decided each pair: attributes, the colour bonus, the agreement depth or
        the content rule.
    label_ties : list of (i, j)
        Pairs of the content rule that nothing but the records' canonical JSON told
        apart (no structure, no reference through the pairing): interchangeable
        records, or 1-WL-ambiguous ones on a damaged candidate. Only there may the
        pairing (and so the score) follow the id labels.
    label_designations : list of str
        Pointers of records that an id shared by several records designates (the
        id's record for references) where only the records' canonical JSON chose
        among equally good ones: there too the score may follow the labels.
    structural_pairs : list of (i, j)
        Twins: the pairs whose gold row of ``C`` ties exactly with another paired gold
        row (what only structure, or the list order when WL is off, tells apart).
    """

    name: str
    matrix: np.ndarray
    gold_ids: list[Any]
    candidate_ids: list[Any]
    gold_paths: list[str]
    candidate_paths: list[str]
    pairs: list[tuple[int, int]]
    structural_pairs: list[tuple[int, int]]
    cyclic: bool
    mode: str
    colour_agreement: np.ndarray | None = None
    depth_agreement: np.ndarray | None = None
    rules: dict[tuple[int, int], TieRule] = field(default_factory=dict)
    label_ties: list[tuple[int, int]] = field(default_factory=list)
    label_designations: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from .notebook.scopes import scope_html

        return scope_html(self)
