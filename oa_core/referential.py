"""Referential alignment: identifier scopes, their bijections and the WL tie-break.

For every scope (``idScope``) the gold and candidate records are aligned as an
order-agnostic sequence whose cost ``C[i, j]`` is the full recursive score of
gold record i against candidate record j with the scope's id field masked (worth
1) and references into still-unresolved scopes counted as matching. Scopes are
resolved in dependency order (topological, ties by name); a scope in a reference
cycle (itself included) is aligned by its properties only, with a warning.

Structure breaks ties: a joint 1-WL refinement on the disjoint union of the gold
and candidate reference graphs (:mod:`oa_core.wl`) colours the records, and in
the default tie-break mode ``C + eps * [colours equal]`` is assigned, with
``eps`` below the smallest gap of ``C`` so that structure only decides exact ties.
Blend mode seeds the colours with each record's exact scalars and assigns
``(1 - lambda) * C + lambda * [colours equal]``.

Graph construction. A *carrier* is the nearest enclosing object that is an array
item (the root object for references outside any array). Its references into the
scope become: one directed edge when there are two with different roles
(``mentor -> mentee``, in schema order); a self-loop when there is one; a hub
vertex with an edge to each endpoint otherwise. Edge labels are the carrier's
exactly-compared scalars (``exact`` comparator, booleans, ``enum`` fields; never
ids) plus its references into already-resolved scopes, gold ones mapped through
their bijection.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from .assignment import max_weight_matching, tie_epsilon
from .comparators import id_key, value_kind
from .errors import Diagnostic
from .pointer import join
from .schema import Schema, SchemaNode, ScopeDecl, concrete
from .wl import WLEdge, WLTrace, WLVertex, refine

__all__ = [
    "DocumentIndex",
    "ScopeAlignment",
    "index_document",
    "resolution_order",
    "resolve_scopes",
]

_UNMATCHED = ["unmatched"]

MatrixFn = Callable[[list[Any], list[Any], SchemaNode, dict[str, dict[Any, Any]],
                     dict[str, set[Any]], frozenset[str]], np.ndarray]


@dataclass(slots=True)
class Record:
    pointer: str
    value: dict[str, Any]
    id: Any


@dataclass(slots=True)
class Carrier:
    pointer: str
    refs: list[tuple[str, str, Any]] = field(default_factory=list)  # (scope, role, value)
    scalars: list[tuple[str, Any]] = field(default_factory=list)  # (role, value)


@dataclass(slots=True)
class DocumentIndex:
    """The records of every scope and the reference carriers of one document."""

    records: dict[str, list[Record]]
    carriers: dict[str, Carrier]


@dataclass(slots=True)
class ScopeAlignment:
    """How one scope's records were paired (what the explorer draws)."""

    name: str
    matrix: np.ndarray  # C: gold records x candidate records, without the bonus
    gold_ids: list[Any]
    candidate_ids: list[Any]
    gold_paths: list[str]
    candidate_paths: list[str]
    pairs: list[tuple[int, int]]
    structural_pairs: list[tuple[int, int]]
    cyclic: bool
    mode: str


def _is_exact(node: SchemaNode) -> bool:
    return node.comparator == "exact" or node.type == "boolean" or node.enum is not None


def index_document(document: Any, schema: Schema) -> DocumentIndex:
    """Collect scope records and reference carriers of a document."""
    records_of = {id(decl.records): decl for decl in schema.scopes.values()}
    index = DocumentIndex({name: [] for name in schema.scopes}, {})
    root = Carrier("")
    if isinstance(document, dict):
        index.carriers[""] = root

    def walk(value: Any, node: SchemaNode, pointer: str, carrier: Carrier, role: str) -> None:
        node = concrete(node, value, value)
        if node.id_scope is not None or value is None:
            return
        if node.ref is not None:
            carrier.refs.append((node.ref, role, value))
        elif isinstance(value, dict) and node.type in ("object", "any"):
            declared = [k for k in node.properties if k in value]
            for key in declared + sorted(k for k in value if k not in node.properties):
                walk(value[key], node.property_schema(key), join(pointer, key), carrier,
                     f"{role}/{key}" if role else key)
        elif isinstance(value, list) and node.type in ("array", "any"):
            decl = records_of.get(id(node))
            for i, item in enumerate(value):
                item_pointer = join(pointer, i)
                if isinstance(item, dict):
                    if decl is not None:
                        index.records[decl.name].append(
                            Record(item_pointer, item, item.get(decl.id_field)))
                    inner = index.carriers.setdefault(item_pointer, Carrier(item_pointer))
                    walk(item, node.item_schema(i), item_pointer, inner, "")
                else:
                    walk(item, node.item_schema(i), item_pointer, carrier,
                         f"{role}/*" if role else "*")
        elif value_kind(value) in ("string", "number", "boolean") and _is_exact(node):
            carrier.scalars.append((role, value))

    walk(document, schema.root, "", root, "")
    return index


def resolution_order(schema: Schema) -> tuple[list[str], set[str], list[Diagnostic]]:
    """Scopes in resolution order, the cyclic ones, and a warning per cycle."""
    graph = nx.DiGraph()
    graph.add_nodes_from(schema.scopes)
    for scope, targets in schema.dependencies.items():
        graph.add_edges_from((scope, t) for t in targets)
    cyclic: set[str] = set()
    warnings = []
    for component in sorted(nx.strongly_connected_components(graph), key=min):
        if len(component) > 1 or any(graph.has_edge(s, s) for s in component):
            cyclic |= component
            names = ", ".join(sorted(component))
            decl = schema.scopes[min(component)]
            warnings.append(Diagnostic(
                "reference-cycle", "schema", join(decl.id_node.pointer, "idScope"),
                f"scopes {{{names}}} reference each other (or themselves): their records "
                "are aligned by properties only and WL structure is not used"))
    condensed = nx.condensation(graph)
    members = condensed.graph["mapping"]
    order_of = {c: min(s for s, k in members.items() if k == c) for c in condensed.nodes}
    # Dependencies first: reverse the edges so B precedes A when A depends on B.
    ordered = nx.lexicographical_topological_sort(condensed.reverse(), key=order_of.get)
    order = [s for c in ordered for s in sorted(s for s, k in members.items() if k == c)]
    return order, cyclic, warnings


def _label(items: list[tuple[str, Any]]) -> str:
    if not items:
        return ""
    rows = sorted([role, value_kind(v), v] for role, v in items)
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"), default=str)


def _carrier_label(carrier: Carrier, scope: str, side: str, bijections: dict[str, Any],
                   resolved: set[str]) -> str:
    items = list(carrier.scalars)
    for target, role, value in carrier.refs:
        if target == scope or target not in resolved:
            continue
        if side == "gold":
            mapped = bijections[target].get(id_key(value))
            items.append((role, _UNMATCHED if mapped is None else mapped[1]))
        else:
            items.append((role, value))
    return _label([(r, json.dumps(v) if isinstance(v, list) else v) for r, v in items])


def _build_graph(index: DocumentIndex, side: str, scope: str, bijections: dict[str, Any],
                 resolved: set[str], vertices: list[WLVertex], edges: list[WLEdge],
                 seeds: list[str], blend: bool) -> None:
    first = len(vertices)
    vertex_of: dict[Any, int] = {}
    for i, record in enumerate(index.records[scope]):
        vertex_of.setdefault(id_key(record.id), first + i)
        short = json.dumps(record.value, ensure_ascii=False, default=str)
        vertices.append(WLVertex(side, record.pointer, i, record.id, "record",
                                 short if len(short) <= 80 else short[:77] + "..."))
        carrier = index.carriers.get(record.pointer, Carrier(record.pointer))
        seeds.append("record|" + (_carrier_label(carrier, scope, side, bijections, resolved)
                                  if blend else ""))
    for carrier in index.carriers.values():
        ends = [(role, vertex_of[id_key(v)]) for target, role, v in carrier.refs
                if target == scope and id_key(v) in vertex_of]
        if not ends:
            continue
        label = _carrier_label(carrier, scope, side, bijections, resolved)
        if len(ends) == 2 and ends[0][0] != ends[1][0]:
            edges.append(WLEdge(side, ends[0][1], ends[1][1], f"{ends[0][0]}->{ends[1][0]}",
                                label))
        elif len(ends) == 1:
            edges.append(WLEdge(side, ends[0][1], ends[0][1], ends[0][0], label))
        else:
            hub = len(vertices)
            vertices.append(WLVertex(side, carrier.pointer, None, None, "hub",
                                     f"{len(ends)}-way {carrier.pointer or '/'}"))
            seeds.append("hub|")
            edges.extend(WLEdge(side, hub, v, role, label) for role, v in ends)


def _ids_with_warnings(records: list[Record], decl: ScopeDecl, document: str,
                       warnings: list[Diagnostic]) -> None:
    seen: dict[Any, str] = {}
    for record in records:
        pointer = join(record.pointer, decl.id_field)
        if record.id is None:
            warnings.append(Diagnostic("missing-id", document, pointer,
                                       f"a {decl.name!r} record has no id; references "
                                       "cannot point at it"))
            continue
        key = id_key(record.id)
        if key in seen:
            warnings.append(Diagnostic("duplicate-id", document, pointer,
                                       f"id {record.id!r} of scope {decl.name!r} repeats "
                                       f"{seen[key]}; references resolve to the first"))
        else:
            seen[key] = pointer


def resolve_scopes(gold: DocumentIndex, candidate: DocumentIndex, schema: Schema,
                   score_matrix: MatrixFn, *, wl_mode: str = "tie_break",
                   wl_lambda: float = 0.5) -> tuple[dict[str, dict[Any, Any]],
                                                    dict[str, set[Any]],
                                                    dict[str, ScopeAlignment],
                                                    dict[str, WLTrace], list[Diagnostic]]:
    """Derive every scope's bijection.

    Returns
    -------
    bijections : {scope: {id_key(gold id): id_key(candidate id) or None}}
    candidate_ids : {scope: set of id_key}
    alignments : {scope: ScopeAlignment}
    traces : {scope: WLTrace} (scopes where WL ran)
    warnings : list of Diagnostic
    """
    order, cyclic, warnings = resolution_order(schema)
    bijections: dict[str, dict[Any, Any]] = {}
    candidate_ids: dict[str, set[Any]] = {}
    alignments: dict[str, ScopeAlignment] = {}
    traces: dict[str, WLTrace] = {}
    resolved: set[str] = set()
    for name in order:
        decl = schema.scopes[name]
        g_records, c_records = gold.records[name], candidate.records[name]
        _ids_with_warnings(g_records, decl, "gold", warnings)
        _ids_with_warnings(c_records, decl, "candidate", warnings)
        candidate_ids[name] = {id_key(r.id) for r in c_records if r.id is not None}
        unresolved = frozenset(set(schema.scopes) - resolved)
        matrix = score_matrix([r.value for r in g_records], [r.value for r in c_records],
                              decl.record, bijections, candidate_ids, unresolved)
        mode = "none" if name in cyclic else wl_mode
        bonus = None
        if mode != "none" and matrix.size:
            vertices: list[WLVertex] = []
            edges: list[WLEdge] = []
            seeds: list[str] = []
            for side, index in (("gold", gold), ("candidate", candidate)):
                _build_graph(index, side, name, bijections, resolved, vertices, edges, seeds,
                             blend=mode == "blend")
            trace = refine(vertices, edges, seeds, scope=name, mode=mode)
            traces[name] = trace
            same = (np.asarray(trace.colors("gold"))[:, None]
                    == np.asarray(trace.colors("candidate"))[None, :]).astype(np.float64)
            if mode == "blend":
                bonus = wl_lambda * same - wl_lambda * matrix
            else:
                bonus = tie_epsilon(matrix) * same
        pairs = max_weight_matching(matrix, bonus)
        mapping: dict[Any, Any] = {}
        for record in g_records:
            if record.id is not None:
                mapping.setdefault(id_key(record.id), None)
        for i, j in pairs:
            g_id, c_id = g_records[i].id, c_records[j].id
            if g_id is not None and mapping.get(id_key(g_id)) is None:
                mapping[id_key(g_id)] = None if c_id is None else id_key(c_id)
        bijections[name] = mapping
        resolved.add(name)
        alignments[name] = ScopeAlignment(
            name, matrix, [r.id for r in g_records], [r.id for r in c_records],
            [r.pointer for r in g_records], [r.pointer for r in c_records], pairs,
            _structural_pairs(matrix, pairs), name in cyclic, mode)
    return bijections, candidate_ids, alignments, traces, warnings


def _structural_pairs(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs whose gold row ties exactly with another paired gold row (twins)."""
    rows: dict[bytes, int] = {}
    for i, _ in pairs:
        key = matrix[i].tobytes()
        rows[key] = rows.get(key, 0) + 1
    return [(i, j) for i, j in pairs if rows[matrix[i].tobytes()] > 1]
