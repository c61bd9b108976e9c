"""The calls into the Rust engine (``oa_core._engine``) that score and align.

A parsed :class:`~oa_core.schema.Schema` is compiled once into the engine's plan
(:func:`prepared_plan`, kept beside the schema while it lives; a custom comparator the
schema names is called back from Rust). Then:

- :func:`native_score` scores documents under a schema without scopes;
- :func:`native_resolved_score` resolves every scope and scores, in one call
  (:func:`native_prepared_gold`: a gold converted and indexed once for it);
- :func:`native_tree` records the match tree as a node table
  (:mod:`oa_core.nodetable` builds the :class:`~oa_core.matchtree.MatchNode` tree).

The documents are checked while they are converted (what
:func:`~oa_core.validation.check_json` checks): bad input is refused by Rust with the
typed :class:`~oa_core.errors.OAError` (``crates/oa-python/src/errors.rs``). The
engine answers None only where the gold violates the schema (the validator of
:mod:`oa_core.validation` words that); any other refusal is an engine bug, raised as
the :class:`RuntimeError` of :func:`declined`, never a silent wrong score.

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

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator

from ._engine import (
    NativeGold,
    NodeTable,
    ReferPlan,
    ScorePlan,
    match_table,
    prepare_resolved_gold,
    resolve_score,
)
from .matchtree import MatchNode
from .nodetable import match_tree
from .options import Limits
from .schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema

if TYPE_CHECKING:
    from .refer_native import Resolution

__all__ = ["PreparedPlan", "ScopeState", "declined", "native_prepared_gold",
           "native_resolved_score", "native_score", "native_table", "native_tree",
           "native_validates",
           "prepared_plan"]


def declined(what: str) -> RuntimeError:
    """The error of an engine call that gave no answer where it must give one (a bug
    of the engine, not of the input: bad input is refused with an ``OAError``).

    >>> str(declined("to score"))
    'the engine declined to score (a bug: please report it with the schema and documents)'
    """
    return RuntimeError(f"the engine declined {what} (a bug: please report it with the "
                        "schema and documents)")


@dataclass(frozen=True, slots=True)
class ScopeState:
    """The referential state of a final scoring pass (identifiers as ``id_key``
    tuples).

    Attributes
    ----------
    bijections : dict scope -> {gold id key: candidate id key or None}
    candidate_ids : dict scope -> set of candidate id keys
    unresolved : frozenset of scope names
    record_pairs : dict records-array pointer -> (scope, {gold record pointer:
        candidate record pointer})
    """

    bijections: Mapping[str, Mapping[Any, Any]] = field(default_factory=dict)
    candidate_ids: Mapping[str, Collection[Any]] = field(default_factory=dict)
    unresolved: frozenset[str] = frozenset()
    record_pairs: Mapping[str, tuple[str, Mapping[str, str]]] = field(default_factory=dict)


@dataclass(slots=True, eq=False)
class PreparedPlan:
    """A schema compiled into the Rust engine's plan, kept on the schema
    (:func:`prepared_plan`).

    Attributes
    ----------
    plan : ScorePlan
        The compiled nodes (``len(plan)`` of them).
    validates : bool
        Whether :meth:`score` checks the schema's JSON Schema assertions too (all
        of them are ones ``crates/oa-engine/src/score/shape.rs`` checks: no
        ``pattern``, ``multipleOf``, ``$ref`` or combinator); read from the plan
        once (a metric asks at every score).
    refer : ReferPlan or None
        The scope resolution's plan (:func:`oa_core.refer_native.refer_plan`),
        made at its first use.
    resolution : Resolution or None
        The scopes' order (:func:`oa_core.refer_native.resolution`), made at its
        first use.
    """

    plan: ScorePlan
    validates: bool = field(init=False)
    refer: ReferPlan | None = field(default=None, init=False, repr=False)
    resolution: Resolution | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.validates = self.plan.validates

    def __deepcopy__(self, memo: dict[int, Any]) -> None:
        """None: a deep copy of a schema plans itself again at its first score (the
        engine's plan cannot be copied, and holds the original's comparators).

        >>> import copy
        >>> schema = Schema.parse({"type": "array", "order": "align"})
        >>> plan = prepared_plan(schema)
        >>> prepared_plan(copy.deepcopy(schema)) is plan
        False
        """
        return None

    def score(self, gold: Any, candidate: Any, limits: Limits,
              strict: bool = False) -> float | None:
        """The score of documents under a schema without scopes, or None where the
        plan :attr:`validates` and the gold violates the schema (the validator
        describes it). Both documents are checked as
        :func:`~oa_core.validation.check_json` checks them under ``limits``; in
        ``strict`` mode the score is 0 for a candidate that violates the schema.

        Raises
        ------
        InputError, ComparatorError
            A document that is no plain JSON within ``limits``, a list over
            ``max_matrix_cells``, a comparator that failed.

        >>> from oa_core.errors import InputError
        >>> from oa_core.schema import Schema
        >>> plan = prepared_plan(Schema.parse({"type": "array", "order": "align"}))
        >>> plan.score([1, 2], [2, 1], Limits())
        1.0
        >>> try:
        ...     plan.score([1, float("nan")], [2, 1], Limits())
        ... except InputError as err:
        ...     print(err)
        gold /1: numbers must be finite, got NaN (fix: replace it with a finite number or null)
        """
        return self.plan.score(gold, candidate, limits, strict)


# The keywords jsonschema acts on (a schema using one the plan does not check is
# validated in Python).
_ASSERTING = frozenset(Draft202012Validator.VALIDATORS)


def prepared_plan(schema: Schema) -> PreparedPlan:
    """The schema's :class:`PreparedPlan`, compiled at the first call and kept on the
    schema while it lives (a metric asks at every score: one attribute read).

    Raises
    ------
    RuntimeError
        When the engine does not plan the schema (:func:`declined`: every parsed
        schema is planned).
    """
    found = schema._plan
    if found is not None:
        return found
    try:
        plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw, _ASSERTING,
                         schema.scopes, comparators=schema.comparators)
    except ValueError as err:
        raise declined(f"to plan the schema ({err})") from err
    found = schema._plan = PreparedPlan(plan)
    return found


def native_prepared_gold(gold: Any, schema: Schema, limits: Limits) -> NativeGold:
    """A checked gold converted and indexed once for :func:`native_resolved_score`
    (``prepared``) under a schema with scopes.

    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "n": {"type": "string"}}}})
    >>> gold = [{"id": 1, "n": "a"}]
    >>> prepared = native_prepared_gold(gold, schema, Limits())
    >>> native_resolved_score(gold, [{"id": 5, "n": "a"}], schema, Limits(), "tie_break",
    ...                       0.5, prepared=prepared)
    1.0
    """
    # refer_native builds its plans on this module's: imported once it is loaded
    from .refer_native import refer_plan

    found = prepare_resolved_gold(refer_plan(schema), gold, limits)
    if found is None:
        raise declined("to index the gold")
    return found


def native_resolved_score(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                          wl_mode: str, wl_lambda: float,
                          prepared: NativeGold | None = None) -> float | None:
    """The score of documents under a schema with scopes, the scopes resolved (the
    pairs :func:`oa_core.align` finds) and the final pass scored, in one Rust call;
    None where the plan :func:`validates <native_validates>` and the gold (not
    ``prepared``) violates the schema. ``prepared``: the gold's
    :func:`native_prepared_gold` under ``schema`` and ``limits``.

    Raises
    ------
    InputError, ComparatorError
        Bad documents, a scope (or a ``blockBy`` block) over ``max_matrix_cells``, a
        comparator that failed.

    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "boss": {"type": "integer",
    ...     "ref": "p"}, "n": {"type": "string"}}}})
    >>> gold = [{"id": 1, "n": "a"}, {"id": 2, "boss": 1, "n": "b"}]
    >>> candidate = [{"id": 8, "boss": 9, "n": "b"}, {"id": 9, "n": "a"}]
    >>> native_resolved_score(gold, candidate, schema, Limits(), "tie_break", 0.5)
    1.0
    """
    found = prepared_plan(schema)
    refer, resolved = found.refer, found.resolution
    if refer is None or resolved is None:  # the schema's first resolution
        # refer_native builds its plans on this module's: imported once it is loaded
        from .refer_native import refer_plan, resolution

        refer, resolved = refer_plan(schema), resolution(schema)
    groups, _, _, records = resolved
    return resolve_score(refer, found.plan, gold if prepared is None else prepared,
                         candidate, limits, groups, records, wl_mode, wl_lambda)


def native_validates(schema: Schema) -> bool:
    """Whether the engine checks the gold against all of the schema's assertions (it
    then answers None for a gold that violates them).

    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "n": {"type": "string"}}}})
    >>> native_validates(schema)
    True
    """
    return prepared_plan(schema).validates


def native_tree(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                state: ScopeState | None = None) -> MatchNode:
    """The match tree of checked documents (effective weights set), built from the
    Rust engine's node table.

    ``state``: the referential state of a schema with scopes (the final pass's);
    None for a schema without.

    >>> schema = Schema.parse({"type": "array", "order": "align",
    ...                        "items": {"type": "string", "score": "exact"}})
    >>> tree = native_tree(["a", "b"], ["b", "c"], schema, Limits())
    >>> tree.score, [(c.label, c.status.value) for c in tree.children]
    (0.3333333333333333, [('0', 'missing'), ('1', 'matched'), ('1', 'excess')])
    >>> from oa_core.errors import InputError
    >>> try:
    ...     native_tree(["a", "b"], ["b", "c"], schema, Limits(max_matrix_cells=2))
    ... except InputError as err:
    ...     print(err.message)
    comparing 2 gold with 2 candidate elements needs 4 scores, over the limit of 2
    """
    state = state or ScopeState()
    return match_tree(native_table(gold, candidate, schema, limits, state), gold, candidate,
                      state.bijections)


def native_table(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                 state: ScopeState | None = None) -> NodeTable:
    """The node table :func:`native_tree` builds its tree from (arguments as its)."""
    state = state or ScopeState()
    table = match_table(prepared_plan(schema).plan, gold, candidate, limits,
                        state.bijections, state.candidate_ids, state.unresolved,
                        state.record_pairs)
    if table is None:
        raise declined("to build the match tree")
    return table


def native_score(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                 strict: bool = False) -> tuple[float, bool] | None:
    """The score of documents under a schema without scopes
    (:meth:`PreparedPlan.score`) and whether the schema's assertions were checked
    with it (:attr:`PreparedPlan.validates`); None for a gold the validator must
    describe.

    >>> from oa_core.schema import Schema
    >>> native_score([1, 2], [2, 1], Schema.parse({"type": "array", "order": "align"}),
    ...              Limits())
    (1.0, True)
    """
    plan = prepared_plan(schema)
    value = plan.plan.score(gold, candidate, limits, strict)
    return None if value is None else (value, plan.validates)
