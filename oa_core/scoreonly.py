"""The score of objects, lists and leaves without building a match tree.

:func:`oa_core.score` wants one number. For documents under a schema without scopes
(a flat or nested record, lists of primitives or of objects: the commonest metric
targets), :func:`score_objects` computes it by the same recursion as
:meth:`oa_core.matchtree.Scorer.node`, with the same helpers (key pairing,
comparators, :func:`~oa_core.matchtree.map_score`, a list's pairs from
``Scorer._solve``) on the same operands in the same order, so the result has the
same bits, but builds no :class:`MatchNode` for the values it walks, no JSON Pointer
and no effective weights. Anything else (a scope, a comparator that raises, a list
over the limits) raises :class:`Unsupported`, and the caller
takes the full path, which also reports errors with their pointers.

Documents with scopes are scored the same way once their scopes are resolved
(:func:`score_with`, given the scorer that holds the bijections): identifiers and
references are scored by the scorer's own rule, and the JSON Pointers are followed
only where a scope's record arrays are paired by them.

Examples
--------
>>> from oa_core.schema import Schema
>>> schema = Schema.parse({"type": "object", "properties": {
...     "a": {"type": "string", "score": "exact"}, "b": {"type": "number"}}})
>>> score_objects({"a": "x", "b": 1}, {"a": "x", "b": 2}, schema)
0.75
>>> score_objects({"a": ["x", "y"]}, {"a": ["y"]}, Schema.parse({"type": "object"}),
...               Limits())
0.5
>>> try:  # a list over the limits: the full path names it
...     score_objects({"a": [1, 2]}, {"a": [2, 1]}, Schema.parse({"type": "object"}),
...                   Limits(max_matrix_cells=2))
... except Unsupported:
...     print("the full path")
the full path
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from typing import Any

from .comparators import BUILTIN_COMPARATORS, MEMO_LIMIT, value_kind
from .errors import ComparatorError, InputError
from .kinds import NodeKind, Status
from .matchtree import MatchNode, Scorer, key_denominator, map_score, power_of_two_scale
from .matchtree import _comparator_for as comparator_for
from .options import Limits
from .pointer import join
from .schema import ANY, Schema, SchemaNode, concrete

__all__ = ["Unsupported", "score_objects", "score_with"]


class Unsupported(Exception):
    """The documents need the full path (a scope, a comparator error, a limit)."""


# The scorer's limits when none were given (told apart by identity): a list then
# goes to the full path, which knows the caller's limits.
_NO_LIMITS = Limits()

# Where two values are: their gold and candidate JSON Pointers, the schema pointers
# of the nodes that hold a scope's record array (themselves or below) and the known
# scores of record pairs (score_with's record_scores), or None when no list below is
# paired by pointer (no scope's record pairs given, or no record array below), so
# none is built.
Where = tuple[str, str, frozenset[str], Mapping[str, Mapping[str, float]]] | None


def score_objects(gold: Any, candidate: Any, schema: Schema,
                  limits: Limits | None = None) -> float:
    """``Scorer(...).node(gold, candidate, schema.root, "", "").score`` for documents
    under a schema without scopes.

    Parameters
    ----------
    gold, candidate : JSON values
    schema : Schema
    limits : Limits, optional
        The limits the documents are aligned under. Lists are scored only when they
        are given (a list over them must fail as on the full path); without them a
        list raises :class:`Unsupported`.

    Raises
    ------
    Unsupported
        When the schema has an identifier or a reference, a comparator raised, a
        list needs more scores than ``limits`` allow (the full path then says
        where), or a list is met without ``limits``.
    """
    if schema.scopes:
        raise Unsupported("scopes")
    if limits is None and _declares_lists(schema):  # met sooner or later: do not start
        raise Unsupported("lists without limits")
    return _value(Scorer(schema.comparators, limits=_NO_LIMITS if limits is None else limits),
                  gold, candidate, schema.root, None)


def score_with(scorer: Scorer, gold: Any, candidate: Any, schema: Schema,
               record_scores: Mapping[str, Mapping[str, float]] | None = None) -> float:
    """``scorer.node(gold, candidate, schema.root, "", "").score`` for documents under
    any schema, scopes included, without building the match tree.

    Parameters
    ----------
    scorer : Scorer
        Given the scopes' state (bijections, candidate ids, unresolved scopes, record
        pairs) and the limits the documents are aligned under.
    gold, candidate : JSON values
    schema : Schema
    record_scores : mapping, optional
        ``{records pointer: {gold record pointer: score}}``: the score of a record
        and its partner in the scorer's record pairs, where it is known bit for bit
        (:func:`~oa_core.referential.resolve_for_score`); taken instead of scoring
        the pair again.

    Raises
    ------
    Unsupported
        When a comparator raised or a list needs more scores than the scorer's
        limits allow: ``scorer.node`` then says where.
    """
    return _value(scorer, gold, candidate, schema.root,
                  ("", "", _holding_records(schema), record_scores or {})
                  if scorer.record_pairs else None)


def _inside(where: Where, schema: SchemaNode, gold_token: str | int,
            candidate_token: str | int) -> Where:
    """The pointers of two values one level below ``where``, compared under
    ``schema``; None when no scope's record array is at or below ``schema``.

    The pointers are read only where a list's pairs are looked up in the scorer's
    record pairs (keyed by the schema pointer of a scope's record array), and a
    list's errors (which the full path reports with their own pointers): below a
    node that holds no record array none is looked up. A node replaced by
    ``concrete`` holds no more than it (``any`` nodes have no items)."""
    if where is None or schema.pointer not in where[2]:
        return None
    return join(where[0], gold_token), join(where[1], candidate_token), where[2], where[3]


_HOLDING: weakref.WeakKeyDictionary[Schema, frozenset[str]] = weakref.WeakKeyDictionary()


def _holding_records(schema: Schema) -> frozenset[str]:
    """The pointers of the schema's nodes with a scope's record array at or below
    them (``$ref`` cycles followed to a fixed point; a pointer names one node)."""
    found = _HOLDING.get(schema)
    if found is None:
        nodes = list(schema.root.walk())
        marked = {decl.records.pointer for decl in schema.scopes.values()}
        grown = True
        while grown:
            grown = False
            for node in nodes:
                if node.pointer in marked:
                    continue
                children = [*node.properties.values(), *node.prefix_items,
                            *(n for n in (node.additional, node.items) if n is not None)]
                if any(child.pointer in marked for child in children):
                    marked.add(node.pointer)
                    grown = True
        found = _HOLDING[schema] = frozenset(marked)
    return found


_LISTS: weakref.WeakKeyDictionary[Schema, bool] = weakref.WeakKeyDictionary()


def _declares_lists(schema: Schema) -> bool:
    """Whether some node of the schema is an array (``$ref`` cycles followed once)."""
    found = _LISTS.get(schema)
    if found is None:
        seen: set[int] = set()
        stack = [schema.root]
        found = False
        while stack and not found:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            found = node.type == "array"
            stack.extend(node.properties.values())
            stack.extend(n for n in (node.additional, node.items) if n is not None)
            stack.extend(node.prefix_items)
        _LISTS[schema] = found
    return found


def _value(scorer: Scorer, gold: Any, candidate: Any, schema: SchemaNode,
           where: Where) -> float:
    # Scorer.node, branch by branch (the node's default score is 0.0)
    schema = concrete(schema, gold, candidate)
    if schema.id_scope is not None:
        return 1.0
    if schema.ref is not None:
        return scorer.ref_score(gold, candidate, schema)[0]
    if gold is None or candidate is None:
        return 1.0 if gold is None and candidate is None else schema.null_score
    if schema.type == "object":
        if isinstance(gold, dict) and isinstance(candidate, dict):
            return _map(scorer, gold, candidate, schema, where)
        return 0.0  # a type mismatch
    if schema.type == "array":
        if isinstance(gold, list) and isinstance(candidate, list):
            if scorer.limits is _NO_LIMITS:
                raise Unsupported("lists without limits")
            return _sequence(scorer, gold, candidate, schema, where)
        return 0.0  # a type mismatch
    return _leaf(scorer, gold, candidate, schema)


def _sequence(scorer: Scorer, gold: list[Any], candidate: list[Any],
              schema: SchemaNode, where: Where) -> float:
    # Scorer._score_sequence: the prefix positions by weight, then the tail
    if not gold and not candidate:
        return 1.0
    arity = len(schema.prefix_items)
    has_tail = arity > 0 and schema.items is not None
    if arity == 0:
        return _tail(scorer, gold, candidate, schema, where, 0)
    positions = arity if has_tail else max(len(gold), len(candidate))
    scores: list[float] = []
    weights: list[float] = []
    for k in range(positions):
        if k >= len(gold) and k >= len(candidate):
            continue
        sub = schema.item_schema(k)
        weights.append(schema.prefix_weights[k] if k < arity else 1.0)
        if k < len(gold) and k < len(candidate):
            scores.append(_value(scorer, gold[k], candidate[k], sub,
                                 _inside(where, sub, k, k)))
        else:  # a position on one side only scores its schema's nullScore
            scores.append(sub.null_score)
    scaled = power_of_two_scale(weights)
    total = math.fsum(scaled)
    s_pre = math.fsum(w * c for c, w in zip(scores, scaled, strict=True)) / total if (
        total > 0) else 1.0
    if not has_tail:
        return s_pre
    prefix_importance, rest_importance = power_of_two_scale(
        [schema.prefix_importance, schema.rest_importance])
    s_rest = _tail(scorer, gold[arity:], candidate[arity:], schema, where, arity)
    return (prefix_importance * s_pre + rest_importance * s_rest) / (
        prefix_importance + rest_importance)


def _tail(scorer: Scorer, gold: list[Any], candidate: list[Any], schema: SchemaNode,
          where: Where, offset: int) -> float:
    # Scorer._score_tail: the list's pairs (Scorer._tail_pairs: a scope's records by
    # its pairing, else by the list's order, dense or sparse), a pair matched when its
    # score is positive, the rest missing or excess. The node handed to _tail_pairs
    # gives the list's pointers (an error's, and a scope's record pairs' keys).
    item = schema.items if schema.items is not None else ANY
    gold_path, cand_path = ("", "") if where is None else where[:2]
    known = None if where is None else where[3].get(schema.pointer)
    place = MatchNode(NodeKind.SEQUENCE, Status.MATCHED, "", gold_path, cand_path, "")
    try:
        pairs = scorer._tail_pairs(place, gold, candidate, schema, item, offset)
    except (InputError, ComparatorError):
        raise Unsupported("a limit or a comparator error (reported with its pointer)"
                          ) from None
    matched: list[float] = []
    used_c: set[int] = set()
    for i, j in pairs:
        # a record paired by its scope, scored already (items that are no records
        # are not in known)
        score = None if known is None else known.get(join(gold_path, offset + i))
        if score is None:
            score = _value(scorer, gold[i], candidate[j], item,
                           _inside(where, item, offset + i, offset + j))
        if score > 0:
            matched.append(score)
            used_c.add(j)
    slots = len(matched) + (0 if schema.ignore_missing else len(gold) - len(matched)) + (
        0 if schema.ignore_excess else len(candidate) - len(used_c))
    return math.fsum(matched) / slots if slots else 1.0


def _leaf(scorer: Scorer, gold: Any, candidate: Any, schema: SchemaNode) -> float:
    # Scorer._score_leaf
    gold_kind, cand_kind = value_kind(gold), value_kind(candidate)
    comparator = comparator_for(scorer.comparators, schema, gold_kind)
    if comparator is None or gold_kind != cand_kind:
        return 0.0
    try:
        similarity = comparator.scalar(gold, candidate)
    except ComparatorError:
        raise Unsupported("a comparator raised") from None
    return similarity if similarity >= schema.threshold else 0.0


# An object's plan, per (schema node, gold key order, candidate key order): the slots
# (gold key, candidate key, schema, scaled weight) and the parts of map_score that
# depend only on the key sets: the scaled weights and importances, s_key and
# ki * s_key. Kept in the schema's comparator registry (like key_slots' pairings)
# when the key comparator is a built-in one (pure), keyed by the node itself (held
# by the memo, so never confused with another); a custom one's slots are the
# scorer's own, so its objects take the general path.
_Plan = tuple[list[tuple[str | None, str | None, SchemaNode, float]], float, float, float,
              float]


def _plan(scorer: Scorer, gold: dict[str, Any], candidate: dict[str, Any],
          schema: SchemaNode) -> _Plan | None:
    """``_map``'s plan of two objects (None: there are no slots, the score is 1.0).

    map_score's operations on what does not depend on the values, in its order:
    ``power_of_two_scale`` of the weights and of (ki, vi), ``s_key =
    _accumulate(key_scores) / d``, ``total_weight = _accumulate(weights)`` and the
    product ``ki * s_key``; float operations give the same bits whenever they are
    made, so _map's result is map_score's."""
    key_slots = scorer.key_slots(list(gold), list(candidate), schema)
    if not key_slots:
        return None
    slots: list[tuple[str | None, str | None, SchemaNode, float]] = []
    weights: list[float] = []
    key_total = 0.0
    for gold_key, cand_key, key_similarity in key_slots:
        sub, weight = Scorer._slot_schema(schema, gold_key, cand_key)
        slots.append((gold_key, cand_key, sub, 0.0))
        weights.append(weight)
        key_total += key_similarity
    scaled = power_of_two_scale(weights)
    k_imp, v_imp = power_of_two_scale([schema.key_importance, schema.value_importance])
    s_key = key_total / key_denominator(len(gold), len(candidate))
    total_weight = 0.0
    for weight in scaled:
        total_weight += weight
    return ([(g, c, sub, w) for (g, c, sub, _), w in zip(slots, scaled, strict=True)],
            total_weight, k_imp * s_key, v_imp, k_imp + v_imp)


def _map(scorer: Scorer, gold: dict[str, Any], candidate: dict[str, Any],
         schema: SchemaNode, where: Where) -> float:
    # Scorer._score_map: the slots' key similarities, values (0 when unmatched) and
    # weights, then map_score (its value-independent part planned once per key sets)
    if schema.key_score not in BUILTIN_COMPARATORS:
        return _map_general(scorer, gold, candidate, schema, where)
    memo = scorer.comparators.memo
    memo_key = ("scoreonly-plan", schema, tuple(gold), tuple(candidate))
    plan = memo.get(memo_key, _NO_PLAN)
    if plan is _NO_PLAN:
        plan = _plan(scorer, gold, candidate, schema)
        if len(memo) >= MEMO_LIMIT:
            memo.clear()  # a bound on memory, as key_slots' entries
        memo[memo_key] = plan
    if plan is None:
        return 1.0  # map_score of no slot
    slots, total_weight, key_term, v_imp, importance = plan
    # every matched slot's value first (as _score_map: a comparator error raises
    # whatever the weights), then _accumulate(w * v) from 0.0 in slot order
    values = [_value(scorer, gold[gold_key], candidate[cand_key], sub,
                     _inside(where, sub, gold_key, cand_key))
              if gold_key is not None and cand_key is not None else 0.0
              for gold_key, cand_key, sub, _ in slots]
    if not total_weight > 0:
        return float((key_term + v_imp * 1.0) / importance)
    total = 0.0
    for (_, _, _, weight), value in zip(slots, values, strict=True):
        total += weight * value
    return float((key_term + v_imp * (total / total_weight)) / importance)


_NO_PLAN = object()


def _map_general(scorer: Scorer, gold: dict[str, Any], candidate: dict[str, Any],
                 schema: SchemaNode, where: Where) -> float:
    # Scorer._score_map: the slots' key similarities, values (0 when unmatched) and
    # weights, then map_score
    key_scores: list[float] = []
    values: list[float] = []
    weights: list[float] = []
    for gold_key, cand_key, key_similarity in scorer.key_slots(list(gold), list(candidate),
                                                               schema):
        sub, weight = Scorer._slot_schema(schema, gold_key, cand_key)
        if gold_key is not None and cand_key is not None:
            values.append(_value(scorer, gold[gold_key], candidate[cand_key], sub,
                                 _inside(where, sub, gold_key, cand_key)))
        else:
            values.append(0.0)  # an unmatched key scores 0, whatever it holds
        key_scores.append(key_similarity)
        weights.append(weight)
    d = key_denominator(len(gold), len(candidate))
    return float(map_score(key_scores, values, weights, schema.key_importance,
                           schema.value_importance, d))
