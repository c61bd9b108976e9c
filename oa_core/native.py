"""The score of scope-free documents by the Rust engine (``OA_ENGINE=rust``).

:func:`score_scope_free` is the one place :func:`oa_core.score` picks an engine
for documents under a schema without scopes: under ``OA_ENGINE=rust`` the schema
is compiled once into a :class:`PreparedPlan` (kept beside the schema while it
lives) and scored in Rust; whatever the plan does not take (a custom comparator,
``blockBy``, a value that is no plain JSON, a list over the limits, a comparator
error) falls back to :func:`oa_core.scoreonly.score_objects`, with the same bits.

Examples
--------
>>> from oa_core.schema import Schema
>>> from oa_core.options import Limits
>>> schema = Schema.parse({"type": "object", "properties": {
...     "a": {"type": "string", "score": "exact"}, "b": {"type": "number"}}})
>>> prepared_plan(schema).score({"a": "x", "b": 1}, {"a": "x", "b": 2}, Limits())
0.75
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from ._engine import ScorePlan
from .build import selected_engine
from .comparators import BUILTIN_COMPARATORS, RUST_COMPARATORS
from .options import Limits
from .schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema
from .scoreonly import score_objects

__all__ = ["PreparedPlan", "prepared_plan", "score_scope_free"]


@dataclass(frozen=True, slots=True)
class PreparedPlan:
    """A scope-free schema compiled into the Rust engine's plan.

    Attributes
    ----------
    plan : ScorePlan
        The compiled nodes (``len(plan)`` of them).
    """

    plan: ScorePlan

    def score(self, gold: Any, candidate: Any, limits: Limits) -> float | None:
        """The score, or None where Python must score the documents.

        >>> from oa_core.schema import Schema
        >>> plan = prepared_plan(Schema.parse({"type": "array", "order": "align"}))
        >>> plan.score([1, 2], [2, 1], Limits())
        1.0
        >>> plan.score([1, 2], [2, 1], Limits(max_matrix_cells=2)) is None
        True
        """
        return self.plan.score(gold, candidate, limits.max_depth, limits.max_matrix_cells)


# A schema's plan, or None when its nodes are not planned (scopes, blockBy, a
# comparator that is not the built-in one of its name): compiled once per Schema.
_PLANS: weakref.WeakKeyDictionary[Schema, PreparedPlan | None] = weakref.WeakKeyDictionary()


def prepared_plan(schema: Schema) -> PreparedPlan | None:
    """The schema's :class:`PreparedPlan` (None when the Rust engine cannot take it)."""
    if schema in _PLANS:
        return _PLANS[schema]
    found: PreparedPlan | None = None
    if not schema.scopes:
        try:
            plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY)
        except ValueError:  # a construct the plan does not hold
            plan = None
        # the plan holds the built-in rules of the names it read (either engine's
        # twin of them); anything else under such a name is Python's to call
        if plan is not None and all(
                schema.comparators.get(name) in (BUILTIN_COMPARATORS[name],
                                                 RUST_COMPARATORS[name])
                for name in plan.comparator_names):
            found = PreparedPlan(plan)
    _PLANS[schema] = found
    return found


def score_scope_free(gold: Any, candidate: Any, schema: Schema, limits: Limits) -> float:
    """:func:`~oa_core.scoreonly.score_objects` by the selected engine (see the module).

    Raises
    ------
    Unsupported
        As :func:`~oa_core.scoreonly.score_objects`: the full path must score them.
    """
    if selected_engine() == "rust":
        plan = prepared_plan(schema)
        if plan is not None:
            value = plan.score(gold, candidate, limits)
            if value is not None:
                return value
    return score_objects(gold, candidate, schema, limits)
