"""The match tree built from the Rust engine's node table.

The Rust engine scores a pair of documents and records the match tree as a table
(:class:`oa_core._engine.NodeTable`): one row per node in preorder, each naming its
parent, with every field of a :class:`~oa_core.matchtree.MatchNode`. This module
turns the table into the :class:`~oa_core.matchtree.MatchNode` tree: each node gets
the :class:`~oa_core.schema.SchemaNode` it was compared under, and its gold and
candidate values are taken from the documents (a child's value is its parent's
value at the row's key or index), never copied through Rust, and so is a
reference's ``expected`` candidate id (the image of its gold id in the scope's
bijection, as the scorer was given it). The effective weights are set as the nodes
are made (each a product of the shares from the root down, as
:func:`oa_core.align` sets them on any tree).

Examples
--------
>>> from oa_core._engine import ScorePlan, match_table
>>> from oa_core.options import Limits
>>> from oa_core.schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema
>>> schema = Schema.parse({"type": "object", "properties": {"tags": {
...     "type": "array", "order": "align", "items": {"type": "string"}}}})
>>> plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw, ())
>>> gold, candidate = {"tags": ["a", "b"]}, {"tags": ["b"]}
>>> table = match_table(plan, gold, candidate, Limits())
>>> tree = match_tree(table, gold, candidate)
>>> tree.score, [(c.label, c.status.value, c.gold) for c in tree.children[0].children]
(0.5, [('0', 'missing', 'a'), ('1', 'matched', 'b')])
>>> tree.children[0].matrix
array([[0.],
       [1.]])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._engine import NodeTable
from .comparators import id_key
from .kinds import NodeKind, Status
from .matchtree import MatchNode

__all__ = ["match_tree"]

_KINDS = {kind.value: kind for kind in NodeKind}
_STATUSES = {status.value: status for status in Status}
_MAP = NodeKind.MAP


def _expected(bijections: Mapping[str, Mapping[Any, Any]] | None, scope: str | None,
              gold: Any) -> Any:
    """The candidate id a gold reference maps to, as the bijection holds it (the table
    marks the references that map to one)."""
    if bijections is None or scope is None:
        raise ValueError("a reference maps to a candidate id, but no bijection was given")
    return bijections[scope][id_key(gold)][1]


def _matrix(rows: int, cols: int, buffer: bytearray) -> np.ndarray:
    # a bytearray is writable, so the matrix is too, as an array made in numpy would be
    return np.frombuffer(buffer, dtype=np.float64).reshape(rows, cols)


def match_tree(table: NodeTable, gold: Any, candidate: Any,
               bijections: Mapping[str, Mapping[Any, Any]] | None = None, *,
               perfect_leaves: bool = True) -> MatchNode:
    """The :class:`~oa_core.matchtree.MatchNode` tree of ``table``, the node table of
    ``candidate`` against ``gold`` (the documents it was made from), with its effective
    weights set (a parent's row comes before its children's).

    Parameters
    ----------
    table : NodeTable
        Made by :func:`oa_core._engine.match_table` from these documents.
    gold, candidate : JSON values
    bijections : dict scope -> {gold id key: candidate id key or None}, optional
        The state's bijections, as ``match_table`` was given them (documents with
        scopes).
    perfect_leaves : bool
        False: leave out the leaves that score 1 under the same key of a map that does
        not score 0 (the repairs of :mod:`oa_core.feedback` skip them, and making a
        node is most of this function's time).

    Returns
    -------
    MatchNode
        The root, effective weights set.
    """
    # one pass over the rows, the nodes made by positional calls (MatchNode's field
    # order), each child's values and effective weight read off its parent node: this
    # loop is most of align()'s Python time
    nodes: list[MatchNode | None] = []
    kinds, statuses = _KINDS, _STATUSES
    parents = table.parent
    last = len(parents) - 1
    for row, (parent, kind, status, label, gold_path, candidate_path, schema, gold_key,
              candidate_key, gold_index, candidate_index, score, weight, key_weight,
              key_score, comparator, similarity, threshold, scope, expected, order, pairs,
              matrix) in enumerate(zip(
                  parents, table.kind, table.status, table.label, table.gold_path,
                  table.candidate_path, table.schema, table.gold_key, table.candidate_key,
                  table.gold_index, table.candidate_index, table.score, table.weight,
                  table.key_weight, table.key_score, table.comparator, table.similarity,
                  table.threshold, table.scope, table.expected, table.order, table.pairs,
                  table.matrix, strict=True)):
        if parent is None:
            above = None
            gold_value, candidate_value = gold, candidate
            share, key_share = 1.0, 0.0
        else:  # the row's key (map slot) or index (list item) on each side it is on
            above = nodes[parent]
            assert above is not None  # only childless rows are left out
            if (not perfect_leaves and kind == "leaf" and status == "matched"
                    and score >= 1.0 and gold_key == candidate_key and above.kind == _MAP
                    and above.score != 0.0 and (row == last or parents[row + 1] != row)):
                nodes.append(None)
                continue
            gold_value = (above.gold[gold_key] if gold_key is not None
                          else None if gold_index is None else above.gold[gold_index])
            candidate_value = (
                above.candidate[candidate_key] if candidate_key is not None
                else None if candidate_index is None
                else above.candidate[candidate_index])
            share = above.effective_weight * weight
            key_share = above.effective_weight * key_weight
        node = MatchNode(
            kinds[kind], statuses[status], label, gold_path, candidate_path, schema.pointer,
            gold_value, candidate_value, score, weight, key_weight, key_score, share,
            key_share, comparator, similarity, threshold, order, scope,
            _expected(bijections, scope, gold_value) if expected else None, gold_key,
            candidate_key, [], schema, None if matrix is None else _matrix(*matrix), pairs)
        if above is not None:
            above.children.append(node)
        nodes.append(node)
    root = nodes[0]
    assert root is not None  # the root is never left out
    return root
