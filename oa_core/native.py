"""The score of scope-free documents by the Rust engine (``OA_ENGINE=rust``).

:func:`native_score` is the one place :func:`oa_core.score` picks an engine for
documents under a schema without scopes: under ``OA_ENGINE=rust`` the schema is
compiled once into a :class:`PreparedPlan` (kept beside the schema while it lives)
and scored in Rust, the documents checked as
:func:`~oa_core.validation.check_json` checks them while they are converted (a
score says they pass it). Whatever the plan does not take (a custom comparator,
``blockBy``, a value that is no plain JSON or exceeds the limits, a list over the
matrix limit, a comparator error) gives None: Python then checks and scores the
documents as under the Python engine (:func:`score_scope_free` falls back to
:func:`oa_core.scoreonly.score_objects`), with the same bits and errors.

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

from jsonschema import Draft202012Validator

from ._engine import ScorePlan
from .build import selected_engine
from .comparators import BUILTIN_COMPARATORS, RUST_COMPARATORS
from .options import Limits
from .schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema
from .scoreonly import score_objects

__all__ = ["PreparedPlan", "native_score", "prepared_plan", "score_scope_free"]


@dataclass(frozen=True, slots=True)
class PreparedPlan:
    """A scope-free schema compiled into the Rust engine's plan.

    Attributes
    ----------
    plan : ScorePlan
        The compiled nodes (``len(plan)`` of them).
    """

    plan: ScorePlan

    @property
    def validates(self) -> bool:
        """Whether :meth:`score` checks the schema's JSON Schema assertions too (all
        of them are ones ``crates/oa-engine/src/score/shape.rs`` checks: no
        ``pattern``, ``multipleOf``, ``$ref`` or combinator)."""
        return self.plan.validates

    def score(self, gold: Any, candidate: Any, limits: Limits,
              strict: bool = False) -> float | None:
        """The score, or None where Python must check and score the documents (a
        score: both pass :func:`~oa_core.validation.check_json` under ``limits``;
        when the plan :attr:`validates`, the gold satisfies the schema, and in
        ``strict`` mode the score is 0 for a candidate that does not).

        >>> from oa_core.schema import Schema
        >>> plan = prepared_plan(Schema.parse({"type": "array", "order": "align"}))
        >>> plan.score([1, 2], [2, 1], Limits())
        1.0
        >>> plan.score([1, 2], [2, 1], Limits(max_matrix_cells=2)) is None
        True
        >>> plan.score([1, float("nan")], [2, 1], Limits()) is None
        True
        """
        return self.plan.score(gold, candidate, limits, strict)


# A schema's plan, or None when its nodes are not planned (scopes, blockBy, a
# comparator that is not the built-in one of its name): compiled once per Schema.
_PLANS: weakref.WeakKeyDictionary[Schema, PreparedPlan | None] = weakref.WeakKeyDictionary()
_MISSING = object()
# The keywords jsonschema acts on (a schema using one the plan does not check is
# validated in Python).
_ASSERTING = frozenset(Draft202012Validator.VALIDATORS)


def prepared_plan(schema: Schema) -> PreparedPlan | None:
    """The schema's :class:`PreparedPlan` (None when the Rust engine cannot take it)."""
    found = _PLANS.get(schema, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[return-value]
    found = None
    if not schema.scopes:
        try:
            plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw,
                             _ASSERTING)
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


def native_score(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                 strict: bool = False) -> tuple[float, bool] | None:
    """Under ``OA_ENGINE=rust``, the score of documents under a schema the Rust engine
    plans (:meth:`PreparedPlan.score`) and whether the schema's assertions were
    checked with it (:attr:`PreparedPlan.validates`); None under the Python engine or
    for anything the plan does not take (see the module).

    >>> import os
    >>> from oa_core.schema import Schema
    >>> schema = Schema.parse({"type": "array", "order": "align"})
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> native_score([1, 2], [2, 1], schema, Limits()), native_score([[1]], [], schema,
    ...                                                              Limits(max_depth=1))
    ((1.0, True), None)
    >>> os.environ["OA_ENGINE"] = "python"
    >>> native_score([1, 2], [2, 1], schema, Limits()) is None
    True
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    if selected_engine() != "rust":
        return None
    plan = prepared_plan(schema)
    if plan is None:
        return None
    value = plan.score(gold, candidate, limits, strict)
    return None if value is None else (value, plan.validates)


def score_scope_free(gold: Any, candidate: Any, schema: Schema, limits: Limits) -> float:
    """:func:`~oa_core.scoreonly.score_objects` by the selected engine (see the module).

    Raises
    ------
    Unsupported
        As :func:`~oa_core.scoreonly.score_objects`: the full path must score them.
    """
    found = native_score(gold, candidate, schema, limits)
    return score_objects(gold, candidate, schema, limits) if found is None else found[0]
