"""The score of objects and leaves without building a match tree.

:func:`oa_core.score` wants one number. For documents made of objects and
primitives under a schema without scopes (a flat or nested record, the commonest
metric target), :func:`score_objects` computes it by the same recursion as
:meth:`oa_core.matchtree.Scorer.node`, with the same helpers (key pairing,
comparators, :func:`~oa_core.matchtree.map_score`) on the same operands in the same
order, so the result has the same bits, but builds no :class:`MatchNode`, no JSON
Pointer and no effective weights. Anything else (a list, an identifier or a
reference, a comparator that raises) raises :class:`Unsupported`, and the caller
takes the full path, which also reports errors with their pointers.

Examples
--------
>>> from oa_core.schema import Schema
>>> schema = Schema.parse({"type": "object", "properties": {
...     "a": {"type": "string", "score": "exact"}, "b": {"type": "number"}}})
>>> score_objects({"a": "x", "b": 1}, {"a": "x", "b": 2}, schema)
0.75
>>> try:
...     score_objects({"a": ["x"]}, {"a": ["x"]}, Schema.parse({"type": "object"}))
... except Unsupported:
...     print("the full path")
the full path
"""

from __future__ import annotations

import weakref
from typing import Any

from .comparators import value_kind
from .errors import ComparatorError
from .matchtree import Scorer, key_denominator, map_score
from .matchtree import _comparator_for as comparator_for
from .schema import Schema, SchemaNode, concrete

__all__ = ["Unsupported", "score_objects"]


class Unsupported(Exception):
    """The documents need the full path (a list, a scope, a comparator error)."""


def score_objects(gold: Any, candidate: Any, schema: Schema) -> float:
    """``Scorer(...).node(gold, candidate, schema.root, "", "").score`` for documents
    of objects and primitives under a schema without scopes.

    Raises
    ------
    Unsupported
        When the documents hold a list, the schema an identifier or a reference, or
        a comparator raised (the full path then says where).
    """
    if schema.scopes:
        raise Unsupported("scopes")
    if _declares_lists(schema):  # they would be met sooner or later: do not start
        raise Unsupported("lists")
    return _value(Scorer(schema.comparators), gold, candidate, schema.root)


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


def _value(scorer: Scorer, gold: Any, candidate: Any, schema: SchemaNode) -> float:
    # Scorer.node, branch by branch (the node's default score is 0.0)
    schema = concrete(schema, gold, candidate)
    if schema.id_scope is not None or schema.ref is not None:
        raise Unsupported("identifiers and references")
    if gold is None or candidate is None:
        return 1.0 if gold is None and candidate is None else schema.null_score
    if schema.type == "object":
        if isinstance(gold, dict) and isinstance(candidate, dict):
            return _map(scorer, gold, candidate, schema)
        return 0.0  # a type mismatch
    if schema.type == "array":
        raise Unsupported("lists")
    return _leaf(scorer, gold, candidate, schema)


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


def _map(scorer: Scorer, gold: dict[str, Any], candidate: dict[str, Any],
         schema: SchemaNode) -> float:
    # Scorer._score_map: the slots' key similarities, values (0 when unmatched) and
    # weights, then map_score
    key_scores: list[float] = []
    values: list[float] = []
    weights: list[float] = []
    for gold_key, cand_key, key_similarity in scorer.key_slots(list(gold), list(candidate),
                                                               schema):
        sub, weight = Scorer._slot_schema(schema, gold_key, cand_key)
        if gold_key is not None and cand_key is not None:
            values.append(_value(scorer, gold[gold_key], candidate[cand_key], sub))
        else:
            values.append(0.0)  # an unmatched key scores 0, whatever it holds
        key_scores.append(key_similarity)
        weights.append(weight)
    d = key_denominator(len(gold), len(candidate))
    return float(map_score(key_scores, values, weights, schema.key_importance,
                           schema.value_importance, d))

