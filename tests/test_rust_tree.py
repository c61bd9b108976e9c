"""The match tree from the Rust engine's node table against Python's ``Scorer.node``.

``oa_core.native.native_tree`` (Rust's recursion recording a node table, turned into
``MatchNode``s by ``oa_core.nodetable``) must build the tree ``Scorer.node`` builds,
field by field: floats by ``float.hex``, score matrices by shape, dtype and bytes,
the schema node and the gold and candidate values by identity. Checked on the bits
corpus (without scopes, and with them under the final pass's state), on
hypothesis-drawn schemas and documents, and through ``align`` and ``feedback``
under both engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_rust_score import documents, schemas

import oa_core
from benchmarks import bits
from oa_core._engine import match_table
from oa_core.aligner import _final_scorer, _resolved, _set_effective_weights
from oa_core.errors import ComparatorError
from oa_core.matchtree import MatchNode, Scorer
from oa_core.native import ScopeState, native_tree, prepared_plan
from oa_core.options import AlignOptions, Limits
from oa_core.schema import Schema
from oa_core.validation import check_json

FIELDS = ("kind", "status", "label", "gold_path", "candidate_path", "schema_path", "score",
          "weight", "key_weight", "key_score", "effective_weight", "key_effective_weight",
          "comparator", "similarity", "threshold", "order", "scope", "expected", "gold_key",
          "candidate_key", "pairs")


def _rows(tree: MatchNode) -> list[tuple[Any, ...]]:
    """Every node's fields in preorder (floats as hex, matrices as their bytes, the
    schema node and the values by identity, then the number of children)."""
    rows = []
    for node in tree.iter_nodes():
        fields = [getattr(node, name) for name in FIELDS]
        row: list[Any] = [value.hex() if isinstance(value, float) else value
                          for value in fields]
        matrix = node.matrix
        row.append(None if matrix is None else (
            matrix.shape, matrix.dtype.str, matrix.flags.writeable,
            np.ascontiguousarray(matrix).tobytes()))
        row += [id(node.schema), id(node.gold), id(node.candidate), len(node.children)]
        rows.append(tuple(row))
    return rows


def _same_trees(expected: MatchNode, got: MatchNode, name: str = "") -> None:
    want, have = _rows(expected), _rows(got)
    for k, (a, b) in enumerate(zip(want, have, strict=False)):
        if a != b:
            names = (*FIELDS, "matrix", "schema", "gold", "candidate", "children")
            diff = {names[i]: (x, y) for i, (x, y) in enumerate(zip(a, b, strict=True))
                    if x != y}
            pytest.fail(f"{name}: node {k} ({a[3]!r}) differs: {diff}")
    assert len(want) == len(have), name


@pytest.fixture
def rust(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OA_ENGINE", "rust")


def _python_tree(gold: Any, candidate: Any, schema: Schema) -> MatchNode | str:
    """Scorer.node's tree of checked documents, or the name of the error raised."""
    try:
        check_json(gold, "gold", Limits())
        check_json(candidate, "candidate", Limits())
        tree = Scorer(schema.comparators, limits=Limits()).node(gold, candidate, schema.root,
                                                                "", "")
    except oa_core.OAError as error:
        return type(error).__name__
    _set_effective_weights(tree)  # the node table's tree has them set
    return tree


def _check(gold: Any, candidate: Any, schema: Schema, name: str = "") -> bool:
    """Python's tree against Rust's; whether Rust built one (it raises what Python
    raises)."""
    expected = _python_tree(gold, candidate, schema)
    try:
        got = native_tree(gold, candidate, schema, Limits())
    except oa_core.OAError as error:
        assert expected == type(error).__name__, name
        return False
    if got is None:
        return False
    assert isinstance(expected, MatchNode), f"{name}: Python raises {expected}"
    _same_trees(expected, got, name)
    return True


_CORPUS = [c for c in bits.corpus(hostile_count=200, org2graph_count=0, nested_count=0)
           if bits.family(c[0]) in ("samples", "flat", "lists", "hostile")]


def test_the_scope_free_corpus_gives_the_same_trees(rust):
    built = 0
    for name, raw, gold, candidate, comparators in _CORPUS:
        try:
            schema = Schema.parse(raw, comparators=comparators)
        except oa_core.OAError:
            continue
        if not schema.scopes:
            built += _check(gold, candidate, schema, name)
    assert built >= 100


_SCOPED = [c for c in bits.corpus(hostile_count=60, org2graph_count=5, nested_count=40)]


def test_the_final_pass_with_scopes_gives_the_same_trees(monkeypatch):
    built = 0
    for name, raw, gold, candidate, comparators in _SCOPED:
        try:
            schema = Schema.parse(raw, comparators=comparators)
        except oa_core.OAError:
            continue
        if not schema.scopes:
            continue
        opts = AlignOptions()
        monkeypatch.setenv("OA_ENGINE", "python")
        try:
            check_json(gold, "gold", opts.limits)
            check_json(candidate, "candidate", opts.limits)
            bijections, candidate_ids, scopes, _, _ = _resolved(gold, candidate, schema, opts)
            scorer = _final_scorer(schema, opts, bijections, candidate_ids, scopes)
            expected = scorer.node(gold, candidate, schema.root, "", "")
            _set_effective_weights(expected)
        except oa_core.OAError:
            continue
        monkeypatch.setenv("OA_ENGINE", "rust")
        state = ScopeState(bijections, candidate_ids, frozenset(), scorer.record_pairs)
        got = native_tree(gold, candidate, schema, opts.limits, state)
        if got is not None:
            _same_trees(expected, got, name)
            built += 1
    assert built >= 20


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, documents, documents)
def test_random_schemas_and_documents_give_the_same_trees(raw, gold, candidate):
    try:
        schema = Schema.parse(raw)
    except oa_core.OAError:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OA_ENGINE", "rust")
        _check(gold, candidate, schema)
        _check(gold, gold, schema)


def _engines(monkeypatch: pytest.MonkeyPatch, run: Any) -> tuple[Any, Any]:
    """``run()`` under the Python engine, then under the Rust one."""
    monkeypatch.setenv("OA_ENGINE", "python")
    before = run()
    monkeypatch.setenv("OA_ENGINE", "rust")
    return before, run()


def _feedback_view(result: Any) -> tuple[Any, ...]:
    return (result.text, [op.delta.hex() for op in result.ops],
            [op.to_dict() for op in result.ops])


def test_the_running_example_aligns_and_gives_feedback_alike(running, monkeypatch):
    gold, candidate, raw = running
    schema = Schema.parse(raw)  # one schema: its nodes are the trees' by identity
    before, after = _engines(monkeypatch, lambda: oa_core.align(gold, candidate, schema))
    assert after.score == 0.7678571428571429
    _same_trees(before.tree, after.tree, "running example")
    before, after = _engines(monkeypatch, lambda: oa_core.feedback(gold, candidate, schema))
    assert _feedback_view(before) == _feedback_view(after)


def test_feedback_ops_and_deltas_are_the_same_on_the_corpus(monkeypatch):
    compared = 0
    for name, raw, gold, candidate, comparators in _CORPUS[::4]:
        try:
            schema = Schema.parse(raw, comparators=comparators)
        except oa_core.OAError:
            continue

        def run(schema: Schema = schema, gold: Any = gold, candidate: Any = candidate) -> Any:
            try:
                return _feedback_view(oa_core.feedback(gold, candidate, schema))
            except oa_core.OAError as error:
                return type(error).__name__, error.pointer, str(error)

        before, after = _engines(monkeypatch, run)
        assert before == after, name
        compared += 1
    assert compared >= 50


def test_what_python_refuses_rust_refuses_alike(rust, monkeypatch):
    # a custom comparator is called from Rust; one that fails raises its
    # ComparatorError with the pointer, from Rust as from Python
    custom = Schema.parse({"type": "string", "score": "mine"},
                          comparators={"mine": lambda g, p: 0.25})
    assert getattr(native_tree("a", "b", custom, Limits()), "similarity", None) == 0.25
    failing = Schema.parse({"type": "string", "score": "mine"},
                           comparators={"mine": lambda g, p: 1 / 0})
    with pytest.raises(ComparatorError):
        native_tree("a", "b", failing, Limits())
    failures = _engines(monkeypatch, lambda: _raised(lambda: oa_core.align("a", "b", failing)))
    assert failures[0] == failures[1] and failures[0][0] == "ComparatorError"
    lists = Schema.parse({"type": "array", "order": "align"})
    with pytest.raises(oa_core.InputError):
        native_tree([1, 2, 3], [3, 2, 1], lists, Limits(max_matrix_cells=8))
    errors = _engines(monkeypatch, lambda: _raised(
        lambda: oa_core.align([1, 2, 3], [3, 2, 1], lists, limits=Limits(max_matrix_cells=8))))
    assert errors[0] == errors[1] and errors[0][0] == "InputError"
    # an integer beyond a float is refused by the conversion
    gold, candidate = [2**2000], [1]  # one pair of documents: its values by identity
    with pytest.raises(oa_core.InputError):
        native_tree(gold, candidate, lists, Limits())
    huge = _engines(monkeypatch, lambda: _view_or_error(
        lambda: oa_core.align(gold, candidate, lists)))
    assert huge[0] == huge[1]
    blocked = Schema.parse({"type": "array", "order": "align", "blockBy": ["k"], "items": {
        "type": "object", "properties": {"k": {"type": "string"}}}})
    assert _check([{"k": "a"}], [{"k": "b"}, {"k": "a"}], blocked)  # Rust's now
    monkeypatch.setenv("OA_ENGINE", "python")
    assert native_tree([1], [1], lists, Limits()) is None  # the Python engine's to build


def _view_or_error(run: Any) -> Any:
    """The alignment's score and tree, or the error ``run`` raises."""
    try:
        alignment = run()
    except oa_core.OAError as error:
        return type(error).__name__, error.pointer, str(error)
    return alignment.score.hex(), _rows(alignment.tree)


def _raised(run: Any) -> tuple[str, str, str] | None:
    try:
        run()
    except oa_core.OAError as error:
        return type(error).__name__, error.pointer, str(error)
    return None


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
