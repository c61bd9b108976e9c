"""The scores of the Rust engine (``OA_ENGINE=rust``): the one dispatch point.

:func:`native_score` is the one place :func:`oa_core.score` picks an engine for
documents under a schema without scopes: under ``OA_ENGINE=rust`` the schema is
compiled once into a :class:`PreparedPlan` (kept beside the schema while it lives)
and scored in Rust, the documents checked as
:func:`~oa_core.validation.check_json` checks them while they are converted (a
score says they pass it); a custom comparator the schema names is called back from
Rust. Bad input is refused by Rust itself with the error the Python engine raises
(class, document, pointer, message, fix; ``crates/oa-python/src/errors.rs``): a
value that is no plain JSON or exceeds the limits, a list over the matrix limit, a
comparator that raised or broke its contract (at the pointer of its ``score`` or
``keyScore``). None is left only for a gold that violates the schema (the
validator words that) and for a schema the plan does not hold.

Documents with scopes are scored in Rust under a referential state
(:class:`ScopeState`): the documents' score (:func:`native_scoped_score`) and a
scope's C matrix (:func:`native_matrix`), as the scope resolution and its final pass
ask for them, with the same errors.

:func:`native_tree` is where :func:`oa_core.align` picks an engine for the match
tree: the Rust engine records it as a node table (:mod:`oa_core.nodetable` builds
the :class:`~oa_core.matchtree.MatchNode` tree from it), with the same errors.

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
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from jsonschema import Draft202012Validator

from ._engine import NativeGold, ScorePlan, match_table, prepare_resolved_gold, resolve_score
from .build import selected_engine
from .comparators import BUILTIN_COMPARATORS, RUST_COMPARATORS
from .matchtree import MatchNode, Paths
from .nodetable import match_tree
from .options import Limits
from .schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema, SchemaNode
from .scoreonly import score_objects

__all__ = ["PreparedPlan", "ScopeState", "native_matrix", "native_prepared_gold",
           "native_resolved_score",
           "native_scoped_score", "native_score", "native_tree", "native_validates",
           "prepared_plan",
           "score_scope_free"]


@dataclass(frozen=True, slots=True)
class ScopeState:
    """The referential state :class:`~oa_core.matchtree.Scorer` is given, in its
    forms (identifiers as ``id_key`` tuples).

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
        """The score, or None where the plan :attr:`validates` and the gold violates
        the schema (the validator describes it). Both documents are checked as
        :func:`~oa_core.validation.check_json` checks them under ``limits``; in
        ``strict`` mode the score is 0 for a candidate that violates the schema.

        Raises
        ------
        InputError, ComparatorError
            As the Python engine raises them: a document that is no plain JSON within
            ``limits``, a list over ``max_matrix_cells``, a comparator that failed.

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


# A scope-free schema's plan, or None when it is not planned (see _compiled):
# compiled once per Schema. A plan holds the schema's custom comparators, not the
# schema (a comparator function that refers to its schema keeps both alive).
_PLANS: weakref.WeakKeyDictionary[Schema, PreparedPlan | None] = weakref.WeakKeyDictionary()
_MISSING = object()
# The keywords jsonschema acts on (a schema using one the plan does not check is
# validated in Python).
_ASSERTING = frozenset(Draft202012Validator.VALIDATORS)


def prepared_plan(schema: Schema) -> PreparedPlan | None:
    """The schema's :class:`PreparedPlan` (None when the Rust engine cannot take it or
    the schema has scopes: see :func:`native_scoped_score`)."""
    found = _PLANS.get(schema, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[return-value]
    plan = None if schema.scopes else _compiled(schema)
    found = None if plan is None else PreparedPlan(plan)
    _PLANS[schema] = found
    return found


# A schema's plan with its scopes (None: not planned), compiled once per Schema.
_SCOPED: weakref.WeakKeyDictionary[Schema, ScorePlan | None] = weakref.WeakKeyDictionary()


def _compiled(schema: Schema) -> ScorePlan | None:
    """The schema compiled into a plan, or None when its nodes are not planned (a
    comparator that is not the built-in one of its name)."""
    try:
        # a custom comparator the schema names is called back from Rust
        plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw, _ASSERTING,
                         schema.scopes, comparators=schema.comparators)
    except ValueError:  # a construct the plan does not hold
        return None
    # the plan holds the built-in rules of the names it read (either engine's twin of
    # them); anything else under such a name is Python's to call
    if all(schema.comparators.get(name) in (BUILTIN_COMPARATORS[name], RUST_COMPARATORS[name])
           for name in plan.comparator_names):
        return plan
    return None


def _scoped_plan(schema: Schema) -> ScorePlan | None:
    """Under ``OA_ENGINE=rust``, the plan of a schema with scopes (None otherwise)."""
    if selected_engine() != "rust" or not schema.scopes:
        return None
    found = _SCOPED.get(schema, _MISSING)
    if found is _MISSING:
        found = _SCOPED[schema] = _compiled(schema)
    return found  # type: ignore[return-value]


def native_scoped_score(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                        state: ScopeState) -> float | None:
    """Under ``OA_ENGINE=rust``, ``Scorer(..., **state).node(gold, candidate,
    schema.root, "", "").score`` for checked documents under a schema with scopes,
    raising what it raises (a list over the limit, a comparator error); None under
    the Python engine, for a schema the plan does not hold, or for a paired records
    array reached without its pointers.

    ``state``: the scorer's ``bijections``, ``candidate_ids``, ``unresolved`` and
    ``record_pairs``.

    >>> import os
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "boss": {"type": "integer",
    ...     "ref": "p"}}}})
    >>> state = ScopeState({"p": {("number", 1): ("number", 7)}}, {"p": {("number", 7)}})
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> native_scoped_score([{"id": 1, "boss": 1}], [{"id": 7, "boss": 7}], schema,
    ...                     Limits(), state)
    1.0
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    plan = _scoped_plan(schema)
    if plan is None:
        return None
    return plan.score_scoped(gold, candidate, state.bijections, state.candidate_ids,
                             state.unresolved, state.record_pairs, limits)


# A scoped schema's resolution groups and each scope's record node pointer, or None
# when Rust does not order its scopes: made once per Schema.
_RESOLVING: weakref.WeakKeyDictionary[
    Schema, tuple[list[list[str]], dict[str, str]] | None] = weakref.WeakKeyDictionary()


def native_prepared_gold(gold: Any, schema: Schema, limits: Limits) -> NativeGold | None:
    """Under ``OA_ENGINE=rust``, a checked gold converted and indexed once for
    :func:`native_resolved_score` (``prepared``) under a schema with scopes; None
    under the Python engine or where Rust does not take the gold or the schema.

    >>> import os
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "n": {"type": "string"}}}})
    >>> gold = [{"id": 1, "n": "a"}]
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> prepared = native_prepared_gold(gold, schema, Limits())
    >>> native_resolved_score(gold, [{"id": 5, "n": "a"}], schema, Limits(), "tie_break",
    ...                       0.5, prepared=prepared)
    1.0
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    from .refer_native import refer_plan

    refer = refer_plan(schema) if schema.scopes else None
    return None if refer is None else prepare_resolved_gold(refer, gold, limits)


def native_resolved_score(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                          wl_mode: str, wl_lambda: float,
                          prepared: NativeGold | None = None) -> float | None:
    """Under ``OA_ENGINE=rust``, the score of checked documents under a schema with
    scopes, the scopes resolved as :func:`~oa_core.referential.resolve_for_score`
    resolves them and the final pass scored, all in one Rust call; None under the
    Python engine or for anything Rust leaves to Python (a construct the plan does not
    hold): Python then resolves and scores them. Errors as :func:`native_scoped_score`;
    a scope, or a ``blockBy`` block, over ``max_matrix_cells`` raises
    :class:`~oa_core.errors.InputError` here. ``prepared``: the gold's
    :func:`native_prepared_gold` under ``schema`` and ``limits`` (not converted and
    indexed again).

    >>> import os
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "boss": {"type": "integer",
    ...     "ref": "p"}, "n": {"type": "string"}}}})
    >>> gold = [{"id": 1, "n": "a"}, {"id": 2, "boss": 1, "n": "b"}]
    >>> candidate = [{"id": 8, "boss": 9, "n": "b"}, {"id": 9, "n": "a"}]
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> native_resolved_score(gold, candidate, schema, Limits(), "tie_break", 0.5)
    1.0
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    # refer_native builds its plans on this module's: imported once it is loaded
    from .refer_native import native_groups, refer_plan

    plan = _scoped_plan(schema)
    refer = None if plan is None else refer_plan(schema)
    if plan is None or refer is None:
        return None
    if schema not in _RESOLVING:
        ordered = native_groups(schema)
        _RESOLVING[schema] = None if ordered is None else (
            ordered[0], {name: decl.record.pointer for name, decl in schema.scopes.items()})
    resolving = _RESOLVING[schema]
    if resolving is None:
        return None
    groups, records = resolving
    return resolve_score(refer, plan, gold if prepared is None else prepared, candidate,
                         limits, groups, records, wl_mode, wl_lambda)


def native_validates(schema: Schema) -> bool:
    """Whether :func:`native_resolved_score` checks the gold against the schema's
    assertions (it then declines a gold that violates them): under
    ``OA_ENGINE=rust``, a schema with scopes whose plan checks all of them.

    >>> import os
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "n": {"type": "string"}}}})
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> native_validates(schema)
    True
    >>> os.environ["OA_ENGINE"] = "python"
    >>> native_validates(schema)
    False
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    plan = _scoped_plan(schema)
    return plan is not None and plan.validates


def native_matrix(golds: Sequence[Any], candidates: Sequence[Any], node: SchemaNode,
                  schema: Schema, limits: Limits, state: ScopeState,
                  paths: Paths = None) -> np.ndarray | None:
    """Under ``OA_ENGINE=rust``, ``Scorer(..., **state).matrix(golds, candidates, node,
    paths)`` under a schema with scopes (a scope's C matrix), raising what it raises;
    None where Python must make it (as :func:`native_scoped_score`; a node the plan
    does not hold as its own, record pairs without ``paths``).

    >>> import os
    >>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
    ...     "id": {"type": "integer", "idScope": "p"}, "n": {"type": "string"}}}})
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> native_matrix([{"id": 1, "n": "ab"}], [{"id": 2, "n": "ab"}, {"id": 3, "n": "x"}],
    ...               schema.scopes["p"].record, schema, Limits(), ScopeState())
    array([[1. , 0.5]])
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    plan = _scoped_plan(schema)
    if plan is None or node in (ANY, ANY_OBJECT, ANY_ARRAY):
        return None
    found = plan.matrix(golds, candidates, node.pointer, state.bijections,
                        state.candidate_ids, state.unresolved, limits,
                        state.record_pairs or None,
                        None if paths is None else (list(paths[0]), list(paths[1])))
    if found is None:
        return None
    return np.frombuffer(found, dtype=np.float64).reshape(len(golds), len(candidates))


def native_tree(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                state: ScopeState | None = None) -> MatchNode | None:
    """Under ``OA_ENGINE=rust``, ``Scorer(..., **state).node(gold, candidate,
    schema.root, "", "")`` (the match tree, effective weights set) for checked
    documents, built from the Rust engine's node table, raising what it raises; None
    under the Python engine or where :func:`native_scoped_score` gives None.

    ``state``: the referential state of a schema with scopes (the final pass's);
    None for a schema without.

    >>> import os
    >>> schema = Schema.parse({"type": "array", "order": "align",
    ...                        "items": {"type": "string", "score": "exact"}})
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> tree = native_tree(["a", "b"], ["b", "c"], schema, Limits())
    >>> tree.score, [(c.label, c.status.value) for c in tree.children]
    (0.3333333333333333, [('0', 'missing'), ('1', 'matched'), ('1', 'excess')])
    >>> from oa_core.errors import InputError
    >>> try:
    ...     native_tree(["a", "b"], ["b", "c"], schema, Limits(max_matrix_cells=2))
    ... except InputError as err:
    ...     print(err.message)
    comparing 2 gold with 2 candidate elements needs 4 scores, over the limit of 2
    >>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
    ...     OA_ENGINE=engine)
    """
    if selected_engine() != "rust":
        return None
    if schema.scopes:
        plan = _scoped_plan(schema)
    else:
        prepared = prepared_plan(schema)
        plan = None if prepared is None else prepared.plan
    if plan is None:
        return None
    state = state or ScopeState()
    table = match_table(plan, gold, candidate, limits, state.bijections, state.candidate_ids,
                        state.unresolved, state.record_pairs)
    return None if table is None else match_tree(table, gold, candidate, state.bijections)


def native_score(gold: Any, candidate: Any, schema: Schema, limits: Limits,
                 strict: bool = False) -> tuple[float, bool] | None:
    """Under ``OA_ENGINE=rust``, the score of documents under a schema the Rust engine
    plans (:meth:`PreparedPlan.score`) and whether the schema's assertions were
    checked with it (:attr:`PreparedPlan.validates`), raising what
    :meth:`PreparedPlan.score` raises; None under the Python engine, for a schema
    the plan does not hold, or a gold the validator must describe.

    >>> import os
    >>> from oa_core.schema import Schema
    >>> schema = Schema.parse({"type": "array", "order": "align"})
    >>> engine = os.environ.get("OA_ENGINE")
    >>> os.environ["OA_ENGINE"] = "rust"
    >>> native_score([1, 2], [2, 1], schema, Limits())
    (1.0, True)
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
    InputError, ComparatorError
        Under ``OA_ENGINE=rust``, as :meth:`PreparedPlan.score`.
    Unsupported
        Under the Python engine (or a schema the plan does not hold), as
        :func:`~oa_core.scoreonly.score_objects`: the full path must score them.
    """
    found = native_score(gold, candidate, schema, limits)
    return score_objects(gold, candidate, schema, limits) if found is None else found[0]
