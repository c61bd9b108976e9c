"""The match tree from the Rust engine's node table.

``oa_core.native.native_tree`` (Rust's recursion recording a node table, turned into
``MatchNode``s by ``oa_core.nodetable``): the table's rows, and what it refuses.
The trees' fields on the corpus are frozen in ``tests/golden/`` (``to_dict``: the
golden bits; the other fields and matrices: ``tests/test_frozen_details.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import oa_core
from oa_core._engine import match_table
from oa_core.errors import ComparatorError
from oa_core.native import native_tree, prepared_plan
from oa_core.options import Limits
from oa_core.schema import Schema


def _raised(run: Any) -> tuple[str, str, str] | None:
    try:
        run()
    except oa_core.OAError as error:
        return type(error).__name__, error.pointer, str(error)
    return None


def test_what_the_tree_refuses_align_refuses_alike():
    # a custom comparator is called from Rust; one that fails raises its
    # ComparatorError with the pointer, through native_tree as through align
    custom = Schema.parse({"type": "string", "score": "mine"},
                          comparators={"mine": lambda g, p: 0.25})
    assert native_tree("a", "b", custom, Limits()).similarity == 0.25
    failing = Schema.parse({"type": "string", "score": "mine"},
                           comparators={"mine": lambda g, p: 1 / 0})
    with pytest.raises(ComparatorError):
        native_tree("a", "b", failing, Limits())
    failure = _raised(lambda: oa_core.align("a", "b", failing))
    assert failure is not None and failure[0] == "ComparatorError"
    lists = Schema.parse({"type": "array", "order": "align"})
    with pytest.raises(oa_core.InputError):
        native_tree([1, 2, 3], [3, 2, 1], lists, Limits(max_matrix_cells=8))
    error = _raised(lambda: oa_core.align([1, 2, 3], [3, 2, 1], lists,
                                          limits=Limits(max_matrix_cells=8)))
    assert error is not None and error[0] == "InputError" and "over the limit" in error[2]
    # an integer beyond a float is refused by the conversion
    with pytest.raises(oa_core.InputError):
        native_tree([2**2000], [1], lists, Limits())
    huge = _raised(lambda: oa_core.align([2**2000], [1], lists))
    assert huge is not None and huge[0] == "InputError"
    blocked = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"], "items": {
        "type": "object", "properties": {"k": {"type": "string"}}}})
    tree = native_tree([{"k": "a"}], [{"k": "b"}, {"k": "a"}], blocked, Limits())
    assert tree.pairs == [(0, 1)]


def test_the_table_holds_one_row_per_node_in_preorder():
    schema = Schema.parse({"type": "object", "properties": {"tags": {
        "type": "array", "order": "align", "items": {"type": "string", "score": "exact"}}}})
    plan = prepared_plan(schema)
    assert plan is not None
    gold, candidate = {"tags": ["a", "b"], "x": 1}, {"tags": ["b", "c"]}
    table = match_table(plan.plan, gold, candidate, Limits())
    assert table is not None and len(table) == 6
    assert table.parent == [None, 0, 1, 1, 1, 0]
    assert table.label == ["", "tags", "0", "1", "1", "x"]
    assert table.status == ["matched", "matched", "missing", "matched", "excess", "missing"]
    assert table.gold_path == ["", "/tags", "/tags/0", "/tags/1", None, "/x"]
    assert table.gold_index == [None, None, 0, 1, None, None]
    assert table.order == [None, "align", None, None, None, None]
    assert table.pairs[1] == [(1, 0)]
    rows, cols, buffer = table.matrix[1]
    assert (rows, cols) == (2, 2)
    assert np.frombuffer(buffer).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert table.schema[2] is schema.root.properties["tags"].items


def test_a_column_is_made_at_its_first_read_and_kept():
    # the columns are made as they are read (repairs read some, align() all): every
    # read gives the same list, whichever is read first and whichever never is
    schema = Schema.parse({"type": "array", "order": "align", "items": {"type": "number"}})
    plan = prepared_plan(schema)
    assert plan is not None
    table = match_table(plan.plan, [1, 2], [2, 5], Limits())
    assert table is not None
    rows, cols, buffer = table.matrix[0]  # read first, before the others
    assert (rows, cols, len(buffer)) == (2, 2, 32)
    assert table.matrix is table.matrix and table.score is table.score
    table.parent.append("kept")  # the same list, so a change to it stays
    assert table.parent == [None, 0, 0, "kept"]
    assert table.status == ["matched", "matched", "matched"]
