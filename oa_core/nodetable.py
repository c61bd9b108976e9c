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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._engine import NodeTable
from .comparators import id_key
from .kinds import NodeKind, Status
from .matchtree import MatchNode
from .schema import SchemaNode

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MatchRows", "child_values", "match_tree", "table_rows", "tree_rows"]

_KINDS = {kind.value: kind for kind in NodeKind}
_STATUSES = {status.value: status for status in Status}


def _expected(bijections: Mapping[str, Mapping[Any, Any]] | None, scope: str | None,
              gold: Any) -> Any:
    """The candidate id a gold reference maps to, as the bijection holds it (the table
    marks the references that map to one)."""
    if bijections is None or scope is None:
        raise ValueError("a reference maps to a candidate id, but no bijection was given")
    return bijections[scope][id_key(gold)][1]


def _matrix(rows: int, cols: int, buffer: bytearray) -> np.ndarray:
    # a bytearray is writable, so the matrix is too, as an array made in numpy would be
    import numpy as np  # here, not at the top: the CLI starts without numpy

    return np.frombuffer(buffer, dtype=np.float64).reshape(rows, cols)


def child_values(gold: Any, candidate: Any, gold_key: str | None, gold_index: int | None,
                 candidate_key: str | None, candidate_index: int | None) -> tuple[Any, Any]:
    """A row's values, from its parent's ``gold`` and ``candidate``: on each side under
    its map key, else at its list index, else ``None`` (the row is not on that side).
    Both sides in one call: a walk down the rows derives them together.

    >>> child_values({"a": [1, 2]}, [1, 2], "a", None, None, 1)
    ([1, 2], 2)
    >>> child_values([1, 2], [1], None, 1, None, None)
    (2, None)
    """
    return (gold[gold_key] if gold_key is not None
            else None if gold_index is None else gold[gold_index],
            candidate[candidate_key] if candidate_key is not None
            else None if candidate_index is None else candidate[candidate_index])


def match_tree(table: NodeTable, gold: Any, candidate: Any,
               bijections: Mapping[str, Mapping[Any, Any]] | None = None) -> MatchNode:
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

    Returns
    -------
    MatchNode
        The root, effective weights set.
    """
    # one pass over the rows, the nodes made by positional calls (MatchNode's field
    # order), each child's values and effective weight read off its parent node: this
    # loop is most of align()'s Python time
    nodes: list[MatchNode] = []
    kinds, statuses = _KINDS, _STATUSES
    for (parent, kind, status, label, gold_path, candidate_path, schema, gold_key,
         candidate_key, gold_index, candidate_index, score, weight, key_weight, key_score,
         comparator, similarity, threshold, scope, expected, order, pairs,
         matrix) in zip(table.parent, table.kind, table.status, table.label,
                        table.gold_path, table.candidate_path, table.schema, table.gold_key,
                        table.candidate_key, table.gold_index, table.candidate_index,
                        table.score, table.weight, table.key_weight, table.key_score,
                        table.comparator, table.similarity, table.threshold, table.scope,
                        table.expected, table.order, table.pairs, table.matrix,
                        strict=True):
        if parent is None:
            above = None
            gold_value, candidate_value = gold, candidate
            share, key_share = 1.0, 0.0
        else:  # the row's key (map slot) or index (list item) on each side it is on
            above = nodes[parent]
            gold_value, candidate_value = child_values(above.gold, above.candidate, gold_key,
                                                       gold_index, candidate_key,
                                                       candidate_index)
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
    return nodes[0]


@dataclass(slots=True)
class MatchRows:
    """A match tree as columns, one row per node in preorder (a parent before its
    children, which follow in their order): what the repair operations of
    :mod:`oa_core.feedback` read, without a :class:`~oa_core.matchtree.MatchNode` per
    node. The columns are :class:`~oa_core.matchtree.MatchNode`'s fields of the same
    names (kinds and statuses as their strings), and ``childless``: whether a node has
    no children (in its whole tree, where rows were left out).

    Rows of a node table (:func:`table_rows`) hold ``steps``, each row's step from
    its parent (gold key or index, candidate key or index, weight, key weight), and
    only the root's ``gold``, ``candidate`` and effective weights: a reader derives a
    row's from its parent's as :func:`match_tree` does (the rows it never reads, a
    perfect leaf or the inside of a subtree it replaces whole, then cost nothing).
    Rows of a tree (:func:`tree_rows`) hold every node's own, and no ``steps``.
    (Slots, not a named tuple: the repair walk reads a column at every step, and a
    slot is read several times faster than a named tuple's field.)
    """

    parent: list[int | None]
    kind: list[str]
    status: list[str]
    label: list[str]
    gold_path: list[str | None]
    candidate_path: list[str | None]
    schema: list[SchemaNode | None]
    gold_key: list[str | None]
    candidate_key: list[str | None]
    score: list[float]
    key_score: list[float | None]
    scope: list[str | None]
    order: list[str | None]
    pairs: list[list[tuple[int, int]]]
    gold: list[Any]
    candidate: list[Any]
    effective_weight: list[float]
    key_effective_weight: list[float]
    childless: list[bool]
    steps: tuple[list[int | None], list[int | None], list[float], list[float]] | None


def table_rows(table: NodeTable, gold: Any, candidate: Any) -> MatchRows:
    """The rows of ``table``, the node table of ``candidate`` against ``gold``, with
    the steps to derive every row's values and effective weights from its parent's.

    >>> from oa_core._engine import ScorePlan, match_table
    >>> from oa_core.options import Limits
    >>> from oa_core.schema import ANY, ANY_ARRAY, ANY_OBJECT, Schema
    >>> schema = Schema.parse({"type": "object", "properties": {"a": {"type": "string"}}})
    >>> plan = ScorePlan(schema.root, ANY, ANY_OBJECT, ANY_ARRAY, schema.raw, ())
    >>> rows = table_rows(match_table(plan, {"a": "x"}, {"a": "y"}, Limits()), {"a": "x"},
    ...                   {"a": "y"})
    >>> rows.kind, rows.gold_key, rows.gold, rows.effective_weight
    (['map', 'leaf'], [None, 'a'], [{'a': 'x'}, None], [1.0, 0.0])
    """
    size = len(table)
    values, weights = [None] * size, [0.0] * size
    gold_values, candidate_values = values.copy(), values
    effective, key_effective = weights.copy(), weights
    gold_values[0], candidate_values[0], effective[0] = gold, candidate, 1.0
    return MatchRows(table.parent, table.kind, table.status, table.label, table.gold_path,
                     table.candidate_path, table.schema, table.gold_key, table.candidate_key,
                     table.score, table.key_score, table.scope, table.order, table.pairs,
                     gold_values, candidate_values, effective, key_effective, table.childless,
                     (table.gold_index, table.candidate_index, table.weight,
                      table.key_weight))


def tree_rows(root: MatchNode) -> MatchRows:
    """The rows of the tree under ``root`` (every node's values and effective weights
    its own).

    >>> import oa_core
    >>> schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    >>> rows = tree_rows(oa_core.align({"a": "x"}, {"a": "y"}, schema).tree)
    >>> rows.parent, rows.gold_key, rows.gold, rows.steps
    ([None, 0], [None, 'a'], [{'a': 'x'}, 'x'], None)
    """
    nodes: list[MatchNode] = []
    parents: list[int | None] = []
    stack: list[tuple[MatchNode, int | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        row = len(nodes)
        nodes.append(node)
        parents.append(parent)
        stack.extend((child, row) for child in reversed(node.children))
    return MatchRows(
        parents, [n.kind for n in nodes], [n.status for n in nodes],
        [n.label for n in nodes], [n.gold_path for n in nodes],
        [n.candidate_path for n in nodes], [n.schema for n in nodes],
        [n.gold_key for n in nodes], [n.candidate_key for n in nodes],
        [n.score for n in nodes], [n.key_score for n in nodes], [n.scope for n in nodes],
        [n.order for n in nodes], [n.pairs for n in nodes], [n.gold for n in nodes],
        [n.candidate for n in nodes], [n.effective_weight for n in nodes],
        [n.key_effective_weight for n in nodes], [not n.children for n in nodes], None)
