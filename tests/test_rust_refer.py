"""Referential indexing, WL graphs and resolution order: Rust (``OA_ENGINE=rust``,
:mod:`oa_core.refer_native`) against Python, on the golden corpus's scoped cases and
on hostile documents drawn by hypothesis: the same records (pointer, id, key,
canonical record key), the same vertices, edges and seeds of every group's graph,
in both WL seedings, before any scope is resolved and under drawn bijections, and the
same resolution groups and cycle warnings."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oa_core
from benchmarks import bits
from oa_core.comparators import id_key
from oa_core.errors import OAError
from oa_core.referential import (
    DocumentIndex,
    Record,
    _build_graph,
    _derive_groups,
    _record_key,
    index_document,
)
from oa_core.schema import Schema
from oa_core.wl import WLEdge, WLVertex
from synthetic import hostile

Graph = tuple[list[WLVertex], list[WLEdge], list[str]]


def _parsed(schema: Any, comparators: Any) -> Schema | None:
    try:
        parsed = Schema.parse(schema, comparators=comparators)
    except OAError:
        return None
    return parsed if parsed.scopes else None


def _both(monkeypatch: pytest.MonkeyPatch, document: Any,
          schema: Schema) -> tuple[DocumentIndex, DocumentIndex]:
    monkeypatch.setenv("OA_ENGINE", "python")
    python = index_document(document, schema)
    monkeypatch.setenv("OA_ENGINE", "rust")
    rust = index_document(document, schema)
    return python, rust


def _records(index: DocumentIndex) -> dict[str, list[tuple[str, Any, Any]]]:
    return {name: [(r.pointer, r.id, r.key) for r in records]
            for name, records in index.records.items()}


def _bijections(gold: DocumentIndex, candidate: DocumentIndex, scopes: list[str],
                seed: int) -> dict[str, dict[Any, Any]]:
    """A drawn bijection per scope: gold ids onto candidate ids (as written), some
    unpaired, some keys no identifier at all."""
    rng = random.Random(seed)
    found: dict[str, dict[Any, Any]] = {}
    for name in scopes:
        images = [r.key for r in candidate.records[name] if r.key is not None]
        rng.shuffle(images)
        found[name] = {r.key: (images.pop() if images and rng.random() < 0.8 else None)
                       for r in gold.records[name] if r.key is not None}
    return found


def _graph(index: DocumentIndex, side: str, group: frozenset[str],
           bijections: dict[str, dict[Any, Any]], resolved: set[str], blend: bool,
           start: Graph) -> Graph:
    vertices, edges, seeds = list(start[0]), list(start[1]), list(start[2])
    _build_graph(index, side, group, bijections, resolved, vertices, edges, seeds,
                 blend=blend, describe=True)
    return vertices, edges, seeds


def _check(monkeypatch: pytest.MonkeyPatch, schema: Schema, gold: Any, candidate: Any,
           seed: int) -> bool:
    """Rust against Python on one scoped case; whether Rust indexed both documents."""
    monkeypatch.setenv("OA_ENGINE", "python")
    groups, cyclic, warnings = _derive_groups(schema)
    monkeypatch.setenv("OA_ENGINE", "rust")
    assert _derive_groups(schema) == (groups, cyclic, warnings)
    py_gold, rust_gold = _both(monkeypatch, gold, schema)
    py_cand, rust_cand = _both(monkeypatch, candidate, schema)
    assert py_gold.native is None and py_cand.native is None
    for python, rust, document in ((py_gold, rust_gold, gold), (py_cand, rust_cand, candidate)):
        assert _records(rust) == _records(python)
        assert rust.nested == python.nested
        if rust.native is not None:
            assert sorted(rust.nested) == sorted(python.nested)
            for name, records in python.records.items():
                fresh = [_record_key(Record(r.pointer, r.value, r.id, r.key)) for r in records]
                assert rust.native.record_keys(name) == fresh, name
                assert all(r.value is p.value for r, p in zip(
                    rust.records[name], records, strict=True)) or document is None
    if rust_gold.native is None or rust_cand.native is None:
        return False
    resolved: list[str] = []
    for group in groups:
        members = frozenset(group)
        bijections = _bijections(py_gold, py_cand, resolved, seed)
        for blend in (False, True):
            python: Graph = ([], [], [])
            rust: Graph = ([], [], [])
            for side, py_index, rust_index in (("gold", py_gold, rust_gold),
                                               ("candidate", py_cand, rust_cand)):
                python = _graph(py_index, side, members, bijections, set(resolved), blend,
                                python)
                rust = _graph(rust_index, side, members, bijections, set(resolved), blend,
                              rust)
            assert rust[0] == python[0], (group, blend)
            assert rust[1] == python[1], (group, blend)
            assert rust[2] == python[2], (group, blend)
        resolved += group
    return True


def _scoped_golden_cases() -> list[tuple[str, Schema, Any, Any]]:
    found = []
    for name, schema, gold, candidate, comparators in bits.corpus(**bits.GOLDEN_CORPUS):
        parsed = _parsed(schema, comparators)
        if parsed is not None:
            found.append((name, parsed, gold, candidate))
    return found


def test_every_scoped_golden_case_indexes_and_graphs_alike(monkeypatch):
    cases = _scoped_golden_cases()
    taken = sum(_check(monkeypatch, schema, gold, candidate, seed)
                for seed, (_, schema, gold, candidate) in enumerate(cases))
    # custom comparators and non-JSON values are Python's; the rest is Rust's
    assert len(cases) > 200 and taken > len(cases) // 3, (taken, len(cases))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(10_000, 10**6), nested=st.booleans())
def test_hostile_documents_index_and_graph_alike(monkeypatch, seed, nested):
    triple = hostile.generate(seed, nested=nested)
    schema, gold, candidate = triple.materialize()
    parsed = _parsed(schema, hostile.COMPARATORS)
    if parsed is not None:
        _check(monkeypatch, parsed, gold, candidate, seed)


_CYCLE = {"type": "object", "properties": {
    "people": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "string", "idScope": "person"},
        "team": {"type": "string", "ref": "team"},
        "score": {"type": "number", "score": "exact"},
        "tags": {"type": "array", "order": "fixed", "items": {"type": "string",
                                                              "ref": "person"}}}}},
    "teams": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string", "idScope": "team"},
        "lead": {"type": "string", "ref": "person"},
        "flag": {"type": "boolean"}}}}}}


def test_a_cycle_with_fixed_lists_and_shared_ids(monkeypatch):
    schema = Schema.parse(_CYCLE)
    gold = {"teams": [{"name": "t", "lead": "a", "flag": True}, {"name": "t", "lead": "z"}],
            "people": [{"id": "a", "team": "t", "score": 1.0, "tags": ["b", "a", "b"]},
                       {"id": "b", "team": "u", "score": 2, "tags": ["a"], "x": [3, 1]},
                       {"id": "b", "team": None, "tags": []}, {"id": 1.0, "team": "t"},
                       {"id": {"no": "id"}}]}
    candidate = {"people": [{"id": 1, "team": "t\u00e9"}, {"id": "a", "tags": ["a", 1]}],
                 "teams": [{"name": "t\u00e9", "lead": 1}]}
    assert _check(monkeypatch, schema, gold, candidate, 7)
    monkeypatch.setenv("OA_ENGINE", "rust")
    groups, cyclic, warnings = _derive_groups(schema)
    assert groups == [["person", "team"]] and cyclic == {"person", "team"}
    assert [w.code for w in warnings] == ["reference-cycle"]


def test_what_rust_does_not_take_is_indexed_by_python(monkeypatch):
    schema = Schema.parse(_CYCLE)
    document = {"people": [{"id": "a", "score": float("nan")}], "teams": []}
    python, rust = _both(monkeypatch, document, schema)
    assert rust.native is None and _records(rust) == _records(python)
    assert rust.carriers.keys() == python.carriers.keys()


def test_a_prepared_gold_with_a_rust_index_copies(monkeypatch):
    monkeypatch.setenv("OA_ENGINE", "rust")
    gold = {"people": [{"id": "a", "team": "t"}], "teams": [{"name": "t", "lead": "a"}]}
    candidate = {"people": [{"id": "b", "team": "u"}], "teams": [{"name": "u", "lead": "b"}]}
    prepared = oa_core.prepare_gold(gold, _CYCLE)
    copied = copy.deepcopy(prepared)
    assert copied._index is not None and copied._index.native is prepared._index.native
    assert oa_core.score(copied, candidate, _CYCLE) == oa_core.score(gold, candidate, _CYCLE)


def test_ids_key_as_python_keys_them(monkeypatch):
    schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "number", "idScope": "n"}, "to": {"type": "number", "ref": "n"}}}})
    ids = [1, 1.0, -0.0, 0, 2**64, float(2**64), 2**64 + 1, 0.5, 10**30, 1e30, True, "1"]
    document = [{"id": value, "to": value} for value in ids]
    python, rust = _both(monkeypatch, document, schema)
    assert rust.native is not None
    assert [r.key for r in rust.records["n"]] == [id_key(v) for v in ids]
    python_graph = _graph(python, "gold", frozenset({"n"}), {}, set(), False, ([], [], []))
    rust_graph = _graph(rust, "gold", frozenset({"n"}), {}, set(), False, ([], [], []))
    assert rust_graph == python_graph
    # the records of 1 and 1.0 (and of 0 and -0.0, 2**64 and its float) reach each
    # other: more edges than records
    assert len(rust_graph[1]) > len(ids)


def test_images_of_any_size_label_the_gold_graph(monkeypatch):
    # the candidate may be Python's to index (an integer beyond the float range, a
    # value beyond the limits): its ids still label the gold's resolved references
    schema = Schema.parse({"type": "object", "properties": {
        "teams": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "integer", "idScope": "team"}}}},
        "people": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "person"},
            "boss": {"type": "string", "ref": "person"},
            "team": {"type": "integer", "ref": "team"}}}}}})
    gold = {"teams": [{"name": 1}, {"name": 2}, {"name": 3}],
            "people": [{"id": "a", "boss": "a", "team": 1}, {"id": "b", "boss": "a", "team": 2},
                       {"id": "c", "boss": "c", "team": 3}]}
    python, rust = _both(monkeypatch, gold, schema)
    assert rust.native is not None
    bijections = {"team": {("number", 1): ("number", 2**2000), ("number", 2): None,
                           ("number", 3): ("string", "t\udc80")}}
    for blend in (False, True):
        found = _graph(rust, "gold", frozenset({"person"}), bijections, {"team"}, blend,
                       ([], [], []))
        assert found == _graph(python, "gold", frozenset({"person"}), bijections, {"team"},
                               blend, ([], [], []))
    assert str(2**2000) in found[1][0].label and "unmatched" in found[1][1].label
