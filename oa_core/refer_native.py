"""Referential alignment's index, WL graphs and resolution order by the Rust engine.

Under ``OA_ENGINE=rust`` :func:`oa_core.referential.index_document` asks
:func:`native_index` first: the scorer's plan of the schema (:mod:`oa_core.native`)
is completed once (:func:`refer_plan`, kept beside the schema while it lives), the
document indexed in Rust, and Python gets
each record's pointer and value (its id and id key are read in Python, as
:class:`~oa_core.referential.Record` holds them). The Rust index stays beside
Python's records (``DocumentIndex.native``), and every WL graph of that document
is built from it (:func:`native_graph`): the same vertices, edges and seeds as
Python's ``_build_graph``. :func:`native_groups` orders the scopes. Whatever Rust
does not take (a custom comparator, a value that is no plain JSON or exceeds the
default limits) gives None, and Python does it as under the Python engine.

Examples
--------
>>> import os
>>> from oa_core.schema import Schema
>>> schema = Schema.parse({"type": "array", "items": {"type": "object", "properties": {
...     "id": {"type": "string", "idScope": "p"},
...     "boss": {"type": "string", "ref": "p"}}}})
>>> engine = os.environ.get("OA_ENGINE")
>>> os.environ["OA_ENGINE"] = "rust"
>>> handle, records = native_index([{"id": "a"}, {"id": "b", "boss": "a"}], schema)
>>> records["p"]
[('/0', {'id': 'a'}), ('/1', {'id': 'b', 'boss': 'a'})]
>>> vertices, edges, seeds = native_graph(handle, "gold", frozenset({"p"}), {}, set(),
...                                       blend=False, offset=0)
>>> [(e.source, e.target, e.relation) for e in edges], seeds
([(1, 0, 'boss')], ['|', '|'])
>>> native_groups(schema)[0]
[['p']]
>>> _ = os.environ.pop("OA_ENGINE") if engine is None else os.environ.update(
...     OA_ENGINE=engine)
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from ._engine import NativeIndex, ReferPlan, resolution_groups
from .build import selected_engine
from .errors import Diagnostic
from .native import _scoped_plan
from .options import Limits
from .schema import Schema
from .wl import WLEdge

__all__ = ["native_graph", "native_groups", "native_index", "refer_plan"]

# A vertex as Rust gives it: kind, pointer, record index (None for a hub), scope, hub label
NativeVertex = tuple[str, str, int | None, str, str]

_PLANS: weakref.WeakKeyDictionary[Schema, ReferPlan] = weakref.WeakKeyDictionary()
_LIMITS = Limits()  # index_document reads no limits: a document beyond these is Python's


def refer_plan(schema: Schema) -> ReferPlan | None:
    """Under ``OA_ENGINE=rust``, the :class:`~oa_core._engine.ReferPlan` of a schema
    with scopes, made from the scorer's plan of it (:mod:`oa_core.native`); None
    otherwise, or when Rust does not plan its nodes (a custom comparator).
    """
    plan = _scoped_plan(schema)
    if plan is None:
        return None
    found = _PLANS.get(schema)
    if found is None:
        # the plan keeps properties sorted; a carrier reads them in schema order
        order = {node.pointer: list(node.properties) for node in schema.root.walk()
                 if node.properties}
        found = _PLANS[schema] = ReferPlan(plan, order, {
            name: decl.id_field for name, decl in schema.scopes.items()})
    return found


def native_index(document: Any, schema: Schema
                 ) -> tuple[NativeIndex, dict[str, list[tuple[str, Any]]]] | None:
    """Under ``OA_ENGINE=rust``, the document's Rust index and each scope's records
    as (pointer, value); None under the Python engine or for what Rust does not take.
    """
    plan = refer_plan(schema)
    handle = None if plan is None else plan.index(document, _LIMITS)
    if handle is None:
        return None
    records: dict[str, list[tuple[str, Any]]] = {}
    for name in schema.scopes:
        found = records[name] = []
        for pointer, path in handle.records(name):
            value = document
            for step in path:
                value = value[step]
            found.append((pointer, value))
    return handle, records


def native_graph(handle: NativeIndex, side: str, group: frozenset[str],
                 bijections: Mapping[str, Mapping[Any, Any]], resolved: set[str], *,
                 blend: bool, offset: int
                 ) -> tuple[list[NativeVertex], list[WLEdge], list[str]]:
    """One side's vertices, edges and seeds of the WL graph of ``group`` (see
    ``_build_graph``), its vertices numbered from ``offset``; a record vertex is
    left to the caller to describe (its id and display label are Python's)."""
    vertices, edges, seeds = handle.graph(
        side, sorted(group), {name: bijections[name] for name in resolved}, blend, offset)
    return vertices, [WLEdge(side, source, target, relation, label)
                      for source, target, relation, label in edges], seeds


def native_groups(schema: Schema) -> tuple[list[list[str]], set[str], list[Diagnostic]] | None:
    """Under ``OA_ENGINE=rust``, the schema's resolution groups, cyclic scopes and
    ``reference-cycle`` warnings (see ``resolution_order``); None under the Python
    engine."""
    if selected_engine() != "rust":
        return None
    groups, cyclic, warnings = resolution_groups(
        {name: set(schema.dependencies[name]) for name in schema.scopes},
        {name: decl.id_node.pointer for name, decl in schema.scopes.items()})
    return groups, cyclic, [Diagnostic(code, "schema", pointer, message)
                            for code, pointer, message in warnings]
