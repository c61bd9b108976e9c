"""Referential alignment: identifier scopes, their bijections and the WL tie-break.

For every scope (``idScope``) the gold and candidate records are aligned as an
order-agnostic sequence whose cost ``C[i, j]`` is the full recursive score of
gold record i against candidate record j with the scope's id field masked (worth
1) and references into still-unresolved scopes counted as matching. Scopes are
resolved in dependency order (topological, ties by name). Scopes in a reference
cycle (a scope referencing itself, or scopes referencing each other) are aligned
by their properties only, with a warning; WL still breaks their ties, on one
graph holding the records of every scope of the cycle (refinement never consults
a bijection, so there is no circularity).

Structure breaks ties, in this order (lexicographic, exact at any size):

1. ``C`` (the records' own attributes);
2. the paper's bonus ``b[i, j] = [stable colours equal]`` of a joint 1-WL
   refinement on the disjoint union of the gold and candidate reference graphs
   (:mod:`oa_core.wl`): ``C + eps * b`` is assigned, ``eps`` below the smallest gap
   of ``C``;
3. the agreement depth ``a[i, j]``, the share of refinement rounds in which i and j
   share a colour (how deep their neighbourhoods agree);
4. the content rule: rows and columns are put in a canonical order, the colour
   refinement of the weighted bipartite graph of ``C``, ``b`` and ``a``, which
   depends on the records' contents and structure, never on their positions.

Twins (identical rows or columns of ``C``) are re-paired by (b, a) exactly after the
assignment (:func:`oa_core.assignment.repair_twins`), so the order holds even where
``eps`` vanishes next to 1.0 in float64. Blend mode seeds the colours with each
record's exact scalars and assigns ``(1 - lambda) * C + lambda * b``. ``wl_mode="none"``
is the paper's ablation: plain assignment on ``C``, ties follow positions.

Graph construction. A *carrier* is the nearest enclosing object that is an array
item (the root object for references outside any array). Its references into the
scope become: one directed edge when there are two with different roles
(``mentor -> mentee``, in schema order); a self-loop when there is one; a hub
vertex with an edge to each endpoint otherwise. A carrier that is itself a record
of the graph (a self-referencing scope) is an endpoint: an edge from it to each
record it references, labelled by the role. Edge labels are the carrier's
exactly-compared scalars (``exact`` comparator, booleans, ``enum`` fields; never
ids) plus its references into already-resolved scopes, gold ones mapped through
their bijection, plus its position when it is an item of a fixed-order list (there
positions are scored); references that are items of a fixed-order list have their
position in their role. A reference to an id that several records share reaches all of them
in the graph (it is ambiguous; through a hub vertex). A scope whose record array sits
inside another array has a hub per occurrence of that array, linked to its records
(the scoring pass pairs records within paired occurrences only) by edges labelled with
the occurrence's place (its pointer, the indices of order-agnostic lists written
``*``); the content rule counts the records of an occurrence paired into another as
agreeing, like references.

Identifiers. Only strings and numbers are identifiers; a record whose id is null,
a boolean, an object or an array has none (a warning), and no reference can
reach it. When several candidate records share an id, only one of them is the
id's record: the one paired with the best (C, b, a) gold partner, then the first.
"""

from __future__ import annotations

import functools
import itertools
import json
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx
import numpy as np

from . import ties_native
from .assignment import (
    Level,
    bipartite_colours,
    canonical_matching,
    max_weight_matching,
    repair_twins,
    tie_epsilon,
    twin_groups,
)
from .blocking import Block, blocks
from .build import selected_engine
from .comparators import canonical_json, id_key, value_kind
from .errors import Diagnostic, InputError
from .kinds import TieRule, WLMode
from .options import Limits
from .pointer import join, split
from .refer_native import native_graph, native_groups, native_index
from .schema import Schema, SchemaNode, ScopeDecl, concrete
from .wl import WLEdge, WLTrace, WLVertex, refine

__all__ = [
    "DocumentIndex",
    "ScopeAlignment",
    "index_document",
    "resolution_order",
    "resolve_for_score",
    "resolve_scopes",
]

_UNMATCHED = ["unmatched"]
_DANGLING = ["dangling"]  # a reference to no record of a scope not resolved yet
_POSITION = "\x00position"  # the role of an item's position in a fixed-order list
_OCCURRENCE = "\x00occurrence"  # the role of a nested record in its array's occurrence
_LEVEL_RULES = (TieRule.COLOUR, TieRule.DEPTH, TieRule.CONTENT, TieRule.CONTENT)
_BY_LABELS = len(_LEVEL_RULES) - 1  # no level told them apart: canonical JSON did
_LISTED = 5  # records named per warning
# Label ties settled by the documents' score: at most this many pairings scored per
# alignment, all scopes and both passes together (a block of 4 tied pairs has 24), in
# scopes of at most this many records, so that the cost stays bounded (each pairing
# scored is one scoring of the whole documents).
_SCORED_TRIALS = 24
_SCORED_RECORDS = 500
# classes of pairings of a block looked through before any is scored (7!: every
# pairing of 7 tied pairs whose records all differ)
_ENUMERATED = 5040

ScopeResolution = tuple[dict[str, dict[Any, Any]], dict[str, set[Any]],
                        dict[str, "ScopeAlignment"], dict[str, WLTrace], list[Diagnostic]]
RecordPairs = dict[str, tuple[str, dict[str, str]]]  # records pointer -> (scope, pairs)
# records pointer -> {gold record pointer: C of the record and its partner}
RecordScores = dict[str, dict[str, float]]
EvaluateFn = Callable[[dict[str, dict[Any, Any]], dict[str, set[Any]], RecordPairs,
                       frozenset[str]], float]
# a pairing's bijection, the record each shared id designates on each side, and the
# designations only canonical JSON decided (see _mapping)
Pairing = tuple[dict[Any, Any], dict[Any, int], dict[Any, int], list[str]]
MatrixFn = Callable[[list[Any], list[Any], SchemaNode, dict[str, dict[Any, Any]],
                     dict[str, set[Any]], frozenset[str]], np.ndarray]


class _PairCells(dict[tuple[int, int], float]):
    """A matrix of a scope too big to keep whole, at its pairs' cells only (read as
    ``cells[i, j]``, like the matrix)."""


Cells = np.ndarray | _PairCells  # a matrix of C, b or a, whole or at the pairs


@dataclass(slots=True)
class Record:
    pointer: str
    value: dict[str, Any]
    id: Any
    key: tuple[str, Any] | None  # id_key(id): None when the id is no identifier
    # _record_key(self), computed on first use: pairings are scored again and again,
    # and the canonical JSON of a record does not change while it is aligned
    sort_key: tuple[str, str] | None = None


@dataclass(slots=True)
class Carrier:
    pointer: str
    refs: list[tuple[str, str, Any]] = field(default_factory=list)  # (scope, role, value)
    scalars: list[tuple[str, Any]] = field(default_factory=list)  # (role, value)
    record: tuple[str, int] | None = None  # (scope, index) when the carrier is a record


@dataclass(slots=True)
class DocumentIndex:
    """The records of every scope and the reference carriers of one document."""

    records: dict[str, list[Record]]
    carriers: dict[str, Carrier]
    # its gold-side reference graphs built before any scope was resolved (they depend
    # on this document alone), by (group, blend, describe): a prepared gold's are
    # built once
    graphs: dict[tuple[frozenset[str], bool, bool],
                 tuple[tuple[WLVertex, ...], tuple[WLEdge, ...], tuple[str, ...]]] = field(
        default_factory=dict)
    # the scopes whose record array sits inside another array (_nested_scopes)
    nested: frozenset[str] = frozenset()
    # each occurrence of a nested scope's record array: its pointer with the indices
    # of order-agnostic lists written "*" (the positions that are scored, and the keys)
    places: dict[str, str] = field(default_factory=dict)
    # the Rust engine's index of the document (oa_core.refer_native), which then
    # builds its graphs (the carriers and places are left empty)
    native: Any = None


@dataclass(slots=True)
class ScopeAlignment:
    """How one scope's records were paired (what the explorer draws).

    Attributes
    ----------
    matrix : ndarray
        C: gold records x candidate records, without any bonus.
    colour_agreement : ndarray or None
        b: 1.0 where the stable WL colours of the two records are equal.
    depth_agreement : ndarray or None
        a: the share of refinement rounds in which the two records share a colour.
    pairs : list of (i, j)
        The chosen pairs (genuine ones: ``C > 0``).
    rules : dict (i, j) -> TieRule
        What decided each pair: attributes, the colour bonus, the agreement depth or
        the content rule.
    label_ties : list of (i, j)
        Pairs of the content rule that nothing but the records' canonical JSON told
        apart (no structure, no reference through the pairing): interchangeable
        records, or 1-WL-ambiguous ones on a damaged candidate. Only there may the
        pairing (and so the score) follow the id labels.
    label_designations : list of str
        Pointers of records that an id shared by several records designates (the
        id's record for references) where only the records' canonical JSON chose
        among equally good ones: there too the score may follow the labels.
    structural_pairs : list of (i, j)
        Twins: the pairs whose gold row of ``C`` ties exactly with another paired gold
        row (what only structure, or the list order when WL is off, tells apart).
    """

    name: str
    matrix: np.ndarray
    gold_ids: list[Any]
    candidate_ids: list[Any]
    gold_paths: list[str]
    candidate_paths: list[str]
    pairs: list[tuple[int, int]]
    structural_pairs: list[tuple[int, int]]
    cyclic: bool
    mode: str
    colour_agreement: np.ndarray | None = None
    depth_agreement: np.ndarray | None = None
    rules: dict[tuple[int, int], TieRule] = field(default_factory=dict)
    label_ties: list[tuple[int, int]] = field(default_factory=list)
    label_designations: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """The notebook's view (:mod:`oa_core.notebook`)."""
        from .notebook.scopes import scope_html

        return scope_html(self)


def _is_exact(node: SchemaNode) -> bool:
    return node.comparator == "exact" or node.type == "boolean" or node.enum is not None


def index_document(document: Any, schema: Schema) -> DocumentIndex:
    """Collect scope records and reference carriers of a document."""
    native = native_index(document, schema)
    if native is not None:
        handle, found = native
        return DocumentIndex({name: [Record(pointer, value, (record_id := value.get(
            schema.scopes[name].id_field)), id_key(record_id)) for pointer, value in records]
            for name, records in found.items()}, {}, nested=_nested_scopes(schema),
            native=handle)
    index = DocumentIndex({name: [] for name in schema.scopes}, {},
                          nested=_nested_scopes(schema))
    root = Carrier("")
    if isinstance(document, dict):
        index.carriers[""] = root

    def leaf(value: Any, node: SchemaNode, carrier: Carrier, role: str) -> None:
        """A scalar: a reference, or an exactly compared value of the carrier."""
        if value is None:
            return
        if node.inferred or node.type == "any":  # else concrete() gives node itself
            node = concrete(node, value, value)
        if node.id_scope is not None:
            return
        if node.ref is not None:
            carrier.refs.append((node.ref, role, value))
        elif _is_exact(node) and value_kind(value) in ("string", "number", "boolean"):
            carrier.scalars.append((role, value))

    # The pointer handed down is read only by containers (a scalar's is its parent's:
    # joining one per scalar would be wasted); so is the place (DocumentIndex.places).
    def walk(value: Any, node: SchemaNode, pointer: str, carrier: Carrier, role: str,
             place: str) -> None:
        if not isinstance(value, dict | list):
            leaf(value, node, carrier, role)
            return
        if node.inferred or node.type == "any":
            node = concrete(node, value, value)
        if node.id_scope is not None:
            return
        if node.ref is not None:
            carrier.refs.append((node.ref, role, value))
        elif isinstance(value, dict) and node.type in ("object", "any"):
            properties = node.properties
            declared = [k for k in properties if k in value]
            for key in (declared if len(declared) == len(value)  # no undeclared key
                        else declared + sorted(k for k in value if k not in properties)):
                child = value[key]
                child_role = f"{role}/{key}" if role else key
                if isinstance(child, dict | list):
                    walk(child, node.property_schema(key), join(pointer, key), carrier,
                         child_role, join(place, key))
                else:  # no walk() call per scalar field
                    leaf(child, node.property_schema(key), carrier, child_role)
        elif isinstance(value, list) and node.type in ("array", "any"):
            decl = schema.scope_of_records(node)
            # in a fixed-order list (a scope's records excepted) positions are scored,
            # so they are part of the structure: the item's position labels its edges
            positional = decl is None and node.order == "fixed"
            if decl is not None and decl.name in index.nested:
                index.places[pointer] = place
            for i, item in enumerate(value):
                item_place = join(place, i if positional else "*")
                if isinstance(item, dict):
                    item_pointer = join(pointer, i)
                    inner = index.carriers.setdefault(item_pointer, Carrier(item_pointer))
                    if positional:
                        inner.scalars.append((_POSITION, i))
                    if decl is not None:
                        records = index.records[decl.name]
                        inner.record = (decl.name, len(records))
                        record_id = item.get(decl.id_field)
                        records.append(Record(item_pointer, item, record_id, id_key(record_id)))
                    walk(item, node.item_schema(i), item_pointer, inner, "", item_place)
                else:
                    slot = str(i) if positional else "*"
                    walk(item, node.item_schema(i),
                         join(pointer, i) if isinstance(item, list) else pointer, carrier,
                         f"{role}/{slot}" if role else slot, item_place)

    walk(document, schema.root, "", root, "", "")
    return index


_NESTED: weakref.WeakKeyDictionary[Schema, frozenset[str]] = weakref.WeakKeyDictionary()


def _nested_scopes(schema: Schema) -> frozenset[str]:
    """The scopes whose record array is below the items of another array: their
    records come in several occurrences of the array (one per group of a
    ``groups[].members[]``), which the scoring pass keeps apart."""
    found = _NESTED.get(schema)
    if found is None:
        found = _NESTED[schema] = frozenset(
            name for name, decl in schema.scopes.items()
            if _below_another_array(schema, decl.records))
    return found


def _below_another_array(schema: Schema, records: SchemaNode) -> bool:
    """Whether ``records`` is reached through the items of an array other than itself."""
    for node in schema.root.walk():
        if node is records:
            continue
        inner = [*node.prefix_items, *(n for n in (node.items,) if n is not None)]
        if any(n is records for child in inner for n in child.walk()):
            return True
    return False


def _scope_graph(schema: Schema) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(schema.scopes)
    for scope, targets in schema.dependencies.items():
        graph.add_edges_from((scope, t) for t in targets)
    return graph


def resolution_order(schema: Schema) -> tuple[list[str], set[str], list[Diagnostic]]:
    """Scopes in resolution order, the cyclic ones, and a warning per cycle.

    The scopes of one cycle come one after the other (they are aligned together).
    """
    groups, cyclic, warnings = _resolution_groups(schema)
    return [s for group in groups for s in group], cyclic, warnings


# A schema's resolution groups, made once (networkx's condensation costs a small pair
# 5% of its time); callers get copies, since resolve_scopes appends to the warnings.
_GROUPS: weakref.WeakKeyDictionary[Schema, tuple[list[list[str]], set[str],
                                                 list[Diagnostic]]] = (
    weakref.WeakKeyDictionary())


def _resolution_groups(schema: Schema) -> tuple[list[list[str]], set[str], list[Diagnostic]]:
    found = _GROUPS.get(schema)
    if found is None:
        found = _GROUPS[schema] = _derive_groups(schema)
    groups, cyclic, warnings = found
    return [list(group) for group in groups], set(cyclic), list(warnings)


def _derive_groups(schema: Schema) -> tuple[list[list[str]], set[str], list[Diagnostic]]:
    native = native_groups(schema)
    if native is not None:
        return native
    graph = _scope_graph(schema)
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
                "are aligned by properties only (their references count as matching while "
                "the pairing is derived); WL structure still breaks ties"))
    condensed = nx.condensation(graph)
    members = condensed.graph["mapping"]
    order_of = {c: min(s for s, k in members.items() if k == c) for c in condensed.nodes}
    # Dependencies first: reverse the edges so B precedes A when A depends on B.
    ordered = nx.lexicographical_topological_sort(condensed.reverse(), key=order_of.get)
    groups = [sorted(s for s, k in members.items() if k == c) for c in ordered]
    return groups, cyclic, warnings


def _order_free(value: Any) -> Any:
    """``value`` with every list sorted by its elements' canonical text."""
    if isinstance(value, dict):
        return {k: _order_free(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_order_free(v) for v in value), key=canonical_json)
    return value


def _record_key(record: Record) -> tuple[str, str]:
    """The last, position-free tie-break between records: their canonical JSON with
    lists in a canonical order (so permuting a list inside a record changes nothing),
    then as written (records equal up to list order are interchangeable)."""
    if record.sort_key is None:
        text = canonical_json(record.value)
        # a list always writes a "[": without one there is no list to put in order
        record.sort_key = (canonical_json(_order_free(record.value)) if "[" in text
                           else text, text)
    return record.sort_key


# json.dumps with options builds an encoder per call: these are made once
_LABEL_ROWS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_encode_text: Callable[[str], str] = json.encoder.encode_basestring
_SHOWN = json.JSONEncoder(ensure_ascii=False, default=str)


def _label(items: list[tuple[str, Any]]) -> str:
    """``_LABEL_ROWS.encode`` of the sorted rows (role, kind, canonical JSON), written
    directly: every element is a string, which the encoder writes with
    ``encode_basestring`` (``ensure_ascii=False``), as ``canonical_json`` writes a
    string value (``JSONEncoder.encode``'s own shortcut): the same text."""
    if not items:
        return ""
    rows = sorted((role, value_kind(v), _encode_text(v) if type(v) is str
                   else canonical_json(v)) for role, v in items)
    return "[" + ",".join("[" + _encode_text(role) + "," + _encode_text(kind) + ","
                          + _encode_text(text) + "]" for role, kind, text in rows) + "]"


def _carrier_label(carrier: Carrier, group: frozenset[str], side: str,
                   bijections: dict[str, dict[Any, Any]], resolved: set[str],
                   ids: dict[str, set[Any]]) -> str:
    items = list(carrier.scalars)
    for target, role, value in carrier.refs:
        if target in group:
            continue
        if target not in resolved:
            # Which record it names is not known yet, but whether it names one is,
            # on each side alone (so relabelling changes nothing).
            if id_key(value) not in ids.get(target, ()):
                items.append((role, _DANGLING))
            continue
        if side == "gold":
            mapped = bijections[target].get(id_key(value))
            items.append((role, _UNMATCHED if mapped is None else mapped[1]))
        else:
            items.append((role, value))
    return _label(items)


def _record_vertex(side: str, scope: str, i: int, record: Record, describe: bool) -> WLVertex:
    """A record's vertex, labelled with its JSON for display when ``describe``."""
    short = _SHOWN.encode(record.value) if describe else ""
    return WLVertex(side, record.pointer, i, record.id, "record",
                    short if len(short) <= 80 else short[:77] + "...", scope)


def _build_graph(index: DocumentIndex, side: str, group: frozenset[str],
                 bijections: dict[str, dict[Any, Any]], resolved: set[str],
                 vertices: list[WLVertex], edges: list[WLEdge], seeds: list[str],
                 blend: bool, describe: bool = True) -> None:
    """The vertices, edges and seeds of one side's reference graph (appended).
    ``describe``: label each record vertex with its JSON for display (refinement
    never reads a vertex's label: without it the colours are the same)."""
    if index.native is not None:
        found, native_edges, native_seeds = native_graph(
            index.native, side, group, bijections, resolved, blend=blend,
            offset=len(vertices))
        vertices.extend(WLVertex(side, pointer, None, None, kind, label) if i is None
                        else _record_vertex(side, scope, i, index.records[scope][i], describe)
                        for kind, pointer, i, scope, label in found)
        edges.extend(native_edges)
        seeds.extend(native_seeds)
        return
    vertices_of: dict[tuple[str, Any], list[int]] = {}
    record_vertex: dict[tuple[str, int], int] = {}
    ids = {scope: {r.key for r in records if r.key is not None}
           for scope, records in index.records.items() if scope not in resolved}
    for scope in sorted(group):
        records = index.records[scope]
        for i, record in enumerate(records):
            vertex = len(vertices)
            record_vertex[scope, i] = vertex
            if record.key is not None:
                vertices_of.setdefault((scope, record.key), []).append(vertex)
            vertices.append(_record_vertex(side, scope, i, record, describe))
            carrier = index.carriers.get(record.pointer, Carrier(record.pointer))
            # one start colour for every vertex (hubs too), but for the scope when a
            # cycle's graph holds several, and the record's exact scalars in blend mode
            seeds.append((scope if len(group) > 1 else "") + "|" + (
                _carrier_label(carrier, group, side, bijections, resolved, ids) if blend else ""))
        if scope in index.nested:
            _occurrence_hubs(side, scope, records, index.places, record_vertex, vertices,
                             edges, seeds)
    for carrier in index.carriers.values():
        # a reference to an id that several records share reaches all of them
        ends = [(role, vertex) for target, role, v in carrier.refs
                if target in group and (key := id_key(v)) is not None
                for vertex in vertices_of.get((target, key), ())]
        if not ends:
            continue
        label = _carrier_label(carrier, group, side, bijections, resolved, ids)
        own = record_vertex.get(carrier.record) if carrier.record is not None else None
        if own is not None:
            edges.extend(WLEdge(side, own, v, role, label) for role, v in ends)
        elif len(ends) == 2 and ends[0][0] != ends[1][0]:
            edges.append(WLEdge(side, ends[0][1], ends[1][1], f"{ends[0][0]}->{ends[1][0]}",
                                label))
        elif len(ends) == 1:
            edges.append(WLEdge(side, ends[0][1], ends[0][1], ends[0][0], label))
        else:
            hub = len(vertices)
            vertices.append(WLVertex(side, carrier.pointer, None, None, "hub",
                                     f"{len(ends)}-way {carrier.pointer or '/'}"))
            seeds.append("|")
            edges.extend(WLEdge(side, hub, v, role, label) for role, v in ends)


def _occurrence_hubs(side: str, scope: str, records: list[Record], places: dict[str, str],
                     record_vertex: dict[tuple[str, int], int], vertices: list[WLVertex],
                     edges: list[WLEdge], seeds: list[str]) -> None:
    """A hub per occurrence of a nested scope's record array, with an edge to each of
    its records: the scoring pass pairs records only within paired occurrences, so
    which records share an occurrence is structure (a record alone in its group is
    not a record among three), and a pooled pairing that ignored it could split a
    group that has a faithful counterpart. The edges are labelled by the occurrence's
    place: its positions in fixed-order lists are scored, so they are structure too
    (a record of the first group is not a record of the second)."""
    occurrences: dict[str, list[int]] = {}
    for i, record in enumerate(records):
        occurrences.setdefault(join("", *split(record.pointer)[:-1]), []).append(i)
    for pointer, members in occurrences.items():
        hub = len(vertices)
        vertices.append(WLVertex(side, pointer, None, None, "hub",
                                 f"{len(members)} in {pointer or '/'}"))
        seeds.append("|")
        edges.extend(WLEdge(side, hub, record_vertex[scope, i], _OCCURRENCE, places[pointer])
                     for i in members)


def _gold_graph(index: DocumentIndex, group: frozenset[str],
                bijections: dict[str, dict[Any, Any]], resolved: set[str],
                vertices: list[WLVertex], edges: list[WLEdge], seeds: list[str],
                blend: bool, describe: bool) -> None:
    """:func:`_build_graph` of the gold side, into empty lists. Before any scope is
    resolved it reads the gold's index alone (its labels name no bijection), so it is
    kept in the index (``DocumentIndex.graphs``) and read again from there."""
    if resolved:
        _build_graph(index, "gold", group, bijections, resolved, vertices, edges, seeds,
                     blend=blend, describe=describe)
        return
    key = (group, blend, describe)
    found = index.graphs.get(key)
    if found is None:
        _build_graph(index, "gold", group, bijections, resolved, vertices, edges, seeds,
                     blend=blend, describe=describe)
        index.graphs[key] = (tuple(vertices), tuple(edges), tuple(seeds))
        return
    vertices.extend(found[0])
    edges.extend(found[1])
    seeds.extend(found[2])


def _id_warnings(records: list[Record], decl: ScopeDecl, document: str,
                 targets: dict[tuple[str, Any], int], warnings: list[Diagnostic]) -> None:
    first: dict[tuple[str, Any], str] = {}
    for record in records:
        pointer = join(record.pointer, decl.id_field)
        if record.key is None:
            what = "no id" if record.id is None else (
                f"an id of kind {value_kind(record.id)} (only strings and numbers identify)")
            warnings.append(Diagnostic("missing-id", document, pointer,
                                       f"a {decl.name!r} record has {what}; references "
                                       "cannot point at it"))
            continue
        if record.key not in first:
            first[record.key] = record.pointer
            continue
        target = targets.get(record.key)
        where = records[target].pointer if target is not None else first[record.key]
        warnings.append(Diagnostic("duplicate-id", document, pointer,
                                   f"id {record.id!r} of scope {decl.name!r} repeats "
                                   f"{first[record.key]}; references to it resolve to "
                                   f"{where} only"))


def _targets(records: list[Record], priority: dict[int, tuple[float, ...]]
             ) -> tuple[dict[tuple[str, Any], int], list[int]]:
    """The record each id designates: among records sharing an id, the one with the
    highest ``priority``, then the smallest canonical JSON (never the list order,
    unless the records are equal). Also the designated records that only their
    canonical JSON chose (other records as good, with other JSON: ids and references
    in it are labels, so the choice may follow them)."""
    groups: dict[tuple[str, Any], list[int]] = {}
    for index, record in enumerate(records):
        if record.key is not None:
            groups.setdefault(record.key, []).append(index)
    chosen: dict[tuple[str, Any], int] = {}
    by_label: list[int] = []
    for key, members in groups.items():
        if len(members) == 1:  # an id of one record: it is designated, by no label
            chosen[key] = members[0]
            continue
        best = max(priority.get(k, ()) for k in members)
        top = [k for k in members if priority.get(k, ()) == best]
        chosen[key] = min(top, key=lambda k: (_record_key(records[k]), k))
        if len({_record_key(records[k]) for k in top}) > 1:
            by_label.append(chosen[key])
    return chosen, sorted(by_label)


# Rows per block of the block-by-block passes over big matrices: a block of a
# 10,000-column matrix is 20 MB, small next to the matrix, big enough for numpy.
_BLOCK_ROWS = 256
# Label matrices of at most this many cells are made in plain Python where numpy's
# cost per call (microseconds) exceeds the work.
_SMALL_CELLS = 1024


def row_blocks(rows: int) -> Iterator[slice]:
    """Slices of ``_BLOCK_ROWS`` rows covering ``range(rows)``: big matrices are
    worked on block by block, so that a temporary is one block, not one matrix."""
    for start in range(0, rows, _BLOCK_ROWS):
        yield slice(start, min(start + _BLOCK_ROWS, rows))


def distinct_values(matrix: np.ndarray) -> np.ndarray:
    """``np.unique(matrix)``, found block by block (no flattened copy of the matrix)."""
    parts = [np.unique(matrix[block]) for block in row_blocks(matrix.shape[0])]
    if len(parts) == 1:  # one block: its values are already distinct and sorted
        return parts[0]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=matrix.dtype)


def _check_size(gold: list[Record], candidate: list[Record], limits: Limits) -> None:
    cells = len(gold) * len(candidate)
    if cells > limits.max_matrix_cells:
        where = join("", *split(candidate[0].pointer)[:-1]) if candidate else ""
        raise InputError(where, f"aligning {len(gold):,} gold with "
                         f"{len(candidate):,} candidate records needs {cells:,} scores, over "
                         f"the limit of {limits.max_matrix_cells:,}", fix="raise "
                         "Limits.max_matrix_cells if the memory is there (8 bytes a score)")


def _cell_labels(matrix: np.ndarray, same: np.ndarray, depth: np.ndarray,
                 distinct: np.ndarray) -> np.ndarray:
    """One int64 label per cell, equal for cells equal in C, b and a (``distinct``:
    the distinct values of C, sorted)."""
    rounds = int(depth.max(initial=0)) + 1
    # (codes * 2 + same) * rounds + depth, codes the rank of each score among the
    # distinct scores, block by block into one n x m int64 matrix (no other temporary
    # of that size)
    labels = np.empty(matrix.shape, dtype=np.int64)
    for block in row_blocks(matrix.shape[0]):
        out = labels[block]
        out[...] = np.searchsorted(distinct, matrix[block])
        out *= 2
        out += same[block].astype(np.int64)
        out *= rounds
        out += depth[block]
    return labels


def _cell_labels_small(matrix: np.ndarray, same: np.ndarray, depth: np.ndarray
                       ) -> tuple[list[list[int]], list[float]] | None:
    """:func:`_cell_labels` of a matrix of at most ``_SMALL_CELLS`` cells as lines of
    Python ints, with the distinct values of C (sorted Python floats: what
    ``distinct_values(matrix).tolist()`` holds); None when C holds a NaN (numpy sorts
    and merges NaNs its own way).

    A value's rank among the sorted distinct values is ``np.searchsorted``'s (-0.0
    and 0.0 are one value to both); the labels are the same integer formula."""
    cells = matrix.tolist()
    if any(v != v for line in cells for v in line):
        return None
    distinct = sorted({v for line in cells for v in line})
    rank = {v: k for k, v in enumerate(distinct)}
    depths = depth.tolist()
    rounds = max(0, *(v for line in depths for v in line)) + 1
    labels = [[(rank[v] * 2 + int(b)) * rounds + d
               for v, b, d in zip(line, bonus, agree, strict=True)]
              for line, bonus, agree in zip(cells, same.tolist(), depths, strict=True)]
    return labels, distinct


@dataclass(slots=True)
class _Structure:
    """What WL found for one scope (or one block of it): the agreement matrices,
    colour histories and the records' incident edges (for the content rule)."""

    same: np.ndarray  # b, 0/1
    depth: np.ndarray  # rounds of agreement, integers
    rounds: int
    gold_colours: list[int]
    candidate_colours: list[int]
    gold_edges: list[list[tuple[str, str, str, int]]]  # per record: (dir, rel, label, other)
    candidate_edges: list[list[tuple[str, str, str, int]]]
    # per record (numbered as the rows and columns): the hub vertex of its occurrence
    # in a nested scope, -1 elsewhere
    gold_occurrences: list[int]
    candidate_occurrences: list[int]
    # a block's rows and columns in the scope (None: the whole scope); the edges'
    # other ends are numbered in the scope
    gold_records: list[int] | None = None
    candidate_records: list[int] | None = None
    local_rows: dict[int, int] | None = None  # scope row -> block row, made when needed
    # the colour histories (rounds x records) the agreements were made from, gold and
    # candidate: what the Rust engine makes them from (oa_core.ties_native)
    colour_rounds: tuple[np.ndarray, np.ndarray] | None = None

    def _local_rows(self) -> dict[int, int] | None:
        if self.gold_records is None:
            return None
        if self.local_rows is None:
            self.local_rows = {g: a for a, g in enumerate(self.gold_records)}
        return self.local_rows

    def reference_agreement(self, partner: dict[int, int], rows: list[int],
                            cols: list[int]) -> np.ndarray:
        """How many of gold record i's edges record j also has, through ``partner``
        (for i in ``rows``, j in ``cols``).

        An edge to another record agrees when the candidate record has the same edge
        (direction, role, label) to that record's partner; a self-loop when the
        candidate record has the same self-loop. This is the reference part of the
        tied records' final score through the pairing of everything else (the
        content rule); reference hubs are left to the colours. In a nested scope the
        records sharing i's occurrence count too: each one paired into j's occurrence
        agrees (the scoring pass compares an occurrence with its partners' only).
        """
        agreement = np.zeros((len(rows), len(cols)), dtype=np.int64)
        self._occurrence_agreement(agreement, partner, rows, cols)
        holders: dict[tuple[str, str, str, int], list[int]] = {}
        for b, j in enumerate(cols):
            for edge in self.candidate_edges[j]:
                holders.setdefault(edge, []).append(b)
        local = self._local_rows()
        for a, i in enumerate(rows):
            for direction, role, label, other in self.gold_edges[i]:
                # the edges' other ends are numbered in the scope, the partner in the
                # block: records outside the block have no partner here
                k = other if local is None else local.get(other, -1)
                if k == i:
                    key = (direction, role, label, -1)
                elif k in partner:
                    target = partner[k]
                    key = (direction, role, label, target if self.candidate_records is None
                           else self.candidate_records[target])
                else:
                    continue
                for b in holders.get(key, ()):
                    agreement[a, b] += 1
        return agreement

    def _occurrence_agreement(self, agreement: np.ndarray, partner: dict[int, int],
                              rows: list[int], cols: list[int]) -> None:
        """Add, for gold record i and candidate record j, how many other records of
        i's occurrence are paired into j's (nested scopes only)."""
        gold, cand = self.gold_occurrences, self.candidate_occurrences
        shared: dict[tuple[int, int], int] = {}
        for k, t in partner.items():
            if gold[k] >= 0 and cand[t] >= 0:
                shared[gold[k], cand[t]] = shared.get((gold[k], cand[t]), 0) + 1
        if not shared:
            return
        row_occ = np.array([gold[i] for i in rows], dtype=np.int64)
        col_occ = np.array([cand[j] for j in cols], dtype=np.int64)
        row_keys, row_at = np.unique(row_occ, return_inverse=True)
        col_keys, col_at = np.unique(col_occ, return_inverse=True)
        row_pos = {int(g): k for k, g in enumerate(row_keys)}
        col_pos = {int(c): k for k, c in enumerate(col_keys)}
        table = np.zeros((len(row_keys), len(col_keys)), dtype=np.int64)
        for (g, c), count in shared.items():
            if g in row_pos and c in col_pos:
                table[row_pos[g], col_pos[c]] = count
        agreement += table[np.ix_(row_at, col_at)]
        for a, i in enumerate(rows):
            own = partner.get(i)
            if own is not None and gold[i] >= 0 and cand[own] >= 0:
                # i's own pair is no other record of its occurrence
                agreement[a] -= col_occ == cand[own]


def _incident(trace: WLTrace, side: str, scope: str,
              index_of: dict[int, int]) -> list[list[tuple[str, str, str, int]]]:
    edges: list[list[tuple[str, str, str, int]]] = [[] for _ in index_of]
    for edge in trace.edges:
        if edge.side != side or edge.source not in index_of or edge.target not in index_of:
            continue
        source, target = index_of[edge.source], index_of[edge.target]
        if source == target:  # stored with -1 so that a loop agrees with a loop
            edges[source].append(("loop", edge.relation, edge.label, -1 if side ==
                                  "candidate" else source))
            continue
        edges[source].append(("out", edge.relation, edge.label, target))
        edges[target].append(("in", edge.relation, edge.label, source))
    return edges


def _occurrences(trace: WLTrace, side: str, index_of: dict[int, int]) -> list[int]:
    """The occurrence hub of each record (-1 outside nested scopes)."""
    hubs = [-1] * len(index_of)
    for edge in trace.edges:
        if edge.relation == _OCCURRENCE and edge.side == side and edge.target in index_of:
            hubs[index_of[edge.target]] = edge.source
    return hubs


@dataclass(slots=True)
class _Histories:
    """A scope's colour histories (rounds x records per side) and incident edges:
    what the agreement matrices of any of its rows and columns are made from."""

    gold: np.ndarray
    candidate: np.ndarray
    gold_edges: list[list[tuple[str, str, str, int]]]
    candidate_edges: list[list[tuple[str, str, str, int]]]
    gold_occurrences: list[int]
    candidate_occurrences: list[int]

    def structure(self, rows: list[int] | None = None,
                  cols: list[int] | None = None) -> _Structure:
        """The :class:`_Structure` of the gold records ``rows`` and candidate records
        ``cols`` (all of them when None)."""
        gold = self.gold if rows is None else self.gold[:, rows]
        cand = self.candidate if cols is None else self.candidate[:, cols]
        rounds, n, m = gold.shape[0], gold.shape[1], cand.shape[1]
        depth = np.empty((n, m), dtype=np.int64)
        same = np.zeros((n, m), dtype=np.float64)
        # counted in a block that stays in cache, written out once per block (no
        # rounds x n x m booleans)
        counter = np.int16 if rounds < 2**15 else np.int64
        for block in row_blocks(n):
            part = np.zeros((block.stop - block.start, m), dtype=counter)
            for r in range(rounds):
                part += gold[r, block, None] == cand[r, None, :]
            depth[block] = part
            if rounds:
                np.equal(gold[-1, block, None], cand[-1, None, :], out=same[block])
        if rows is None or cols is None:
            return _Structure(same, depth, rounds, gold[-1].tolist(), cand[-1].tolist(),
                              self.gold_edges, self.candidate_edges, self.gold_occurrences,
                              self.candidate_occurrences, colour_rounds=(gold, cand))
        return _Structure(same, depth, rounds, gold[-1].tolist(), cand[-1].tolist(),
                          [self.gold_edges[i] for i in rows],
                          [self.candidate_edges[j] for j in cols],
                          [self.gold_occurrences[i] for i in rows],
                          [self.candidate_occurrences[j] for j in cols], rows, cols,
                          colour_rounds=(gold, cand))


def _histories(trace: WLTrace, scope: str) -> _Histories:
    def records(side: str) -> list[int]:
        return [k for k, v in enumerate(trace.vertices)
                if v.side == side and v.kind == "record" and v.scope == scope]

    gold_vertices, cand_vertices = records("gold"), records("candidate")
    gold = np.asarray([[colours[k] for k in gold_vertices] for colours in trace.rounds],
                      dtype=np.int64).reshape(len(trace.rounds), -1)
    cand = np.asarray([[colours[k] for k in cand_vertices] for colours in trace.rounds],
                      dtype=np.int64).reshape(len(trace.rounds), -1)
    gold_index = {v: i for i, v in enumerate(gold_vertices)}
    cand_index = {v: j for j, v in enumerate(cand_vertices)}
    return _Histories(gold, cand, _incident(trace, "gold", scope, gold_index),
                      _incident(trace, "candidate", scope, cand_index),
                      _occurrences(trace, "gold", gold_index),
                      _occurrences(trace, "candidate", cand_index))


def _structure(trace: WLTrace, scope: str) -> _Structure:
    return _histories(trace, scope).structure()


def _with_texts(colours: np.ndarray, records: list[Record]) -> np.ndarray:
    """Colours refined by the records' canonical JSON: the last, position-free order.

    The text of a record alone in its colour is never compared (a sort key's second
    element is read only between equal first elements), so only records sharing a
    colour get theirs; the others hold a placeholder. The same order."""
    values = colours.tolist()
    counts: dict[int, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    texts = [_record_key(r) if counts[value] > 1 else ("", "")
             for r, value in zip(records, values, strict=True)]
    order = sorted(range(len(records)), key=lambda k: (values[k], texts[k]))
    keys = np.empty(len(records), dtype=np.int64)
    keys[order] = np.arange(len(records))
    return keys


@dataclass(slots=True)
class _Canonical:
    """Canonical ranks of a scope's gold rows and candidate columns."""

    rows: list[int]
    cols: list[int]


def _pair_scope(matrix: np.ndarray, mode: WLMode, wl_lambda: float,
                structure: _Structure | None, gold: list[Record],
                candidate: list[Record]) -> tuple[list[tuple[int, int]],
                                                  dict[tuple[int, int], TieRule],
                                                  list[tuple[int, int]], _Canonical]:
    """The scope's pairs (lexicographic: C, b, a, content), what decided each, the
    pairs only the records' canonical JSON told apart, and the canonical order of the
    rows and columns."""
    if selected_engine() == "rust":
        pairs, rules, ties, ranks, colour_ranks = ties_native.pair_scope(
            matrix, mode.value, wl_lambda, structure, gold, candidate, _record_key)
        return pairs, rules, ties, _Canonical(ranks, colour_ranks)
    if structure is None or not matrix.size:
        pairs = max_weight_matching(matrix)
        twins = set(_twin_pairs(matrix, pairs))
        # WL off: the paper's ablation, positions decide
        return pairs, {p: TieRule.POSITION if p in twins else TieRule.ATTRIBUTES
                       for p in pairs}, [], _Canonical(list(range(len(gold))),
                                                       list(range(len(candidate))))
    same = structure.same
    small = (_cell_labels_small(matrix, same, structure.depth)
             if matrix.size <= _SMALL_CELLS else None)
    labels: np.ndarray | list[list[int]]
    distinct: np.ndarray | list[float]
    if small is None:
        distinct = distinct_values(matrix)
        labels = _cell_labels(matrix, same, structure.depth, distinct)
    else:
        labels, distinct = small
    rows, cols = bipartite_colours(labels, structure.gold_colours, structure.candidate_colours)
    rows, cols = _with_texts(rows, gold), _with_texts(cols, candidate)
    if mode == WLMode.BLEND:
        objective = (1.0 - wl_lambda) * matrix + wl_lambda * same
        pairs = canonical_matching(objective, None, rows, cols)
    else:  # the bonus eps * b is added block by block, never made whole
        objective = matrix
        pairs = canonical_matching(matrix, same, rows, cols, bonus_scale=tie_epsilon(matrix))
    pairs = [(i, j) for i, j in pairs if matrix[i, j] > 0]
    levels: list[Level] = [same, structure.depth, structure.reference_agreement]
    pairs, decided = repair_twins(pairs, objective if mode == WLMode.BLEND else matrix,
                                  levels, rows, cols)
    rules = {p: (_LEVEL_RULES[decided[p]] if p in decided else TieRule.ATTRIBUTES)
             for p in pairs}
    label_ties = {p for p in pairs if decided.get(p) == _BY_LABELS}
    if len(gold) <= _SCORED_RECORDS:
        twins_of = objective if mode == WLMode.BLEND else matrix
        for pair in _open_choices(pairs, matrix, same, twins_of):
            rules[pair] = TieRule.CONTENT
            label_ties.add(pair)
    return pairs, rules, sorted(label_ties), _Canonical(rows.tolist(), cols.tolist())


def _line_ids(matrix: np.ndarray, axis: int) -> np.ndarray:
    """An id per row (``axis`` 0) or column, equal for lines equal bit for bit."""
    lines = np.ascontiguousarray(matrix if axis == 0 else matrix.T)
    seen: dict[bytes, int] = {}
    return np.array([seen.setdefault(line.tobytes(), len(seen)) for line in lines],
                    dtype=np.int64)


def _open_choices(pairs: list[tuple[int, int]], matrix: np.ndarray, same: np.ndarray,
                  twins_of: np.ndarray) -> set[tuple[int, int]]:
    """The pairs the solver chose among equally good ones outside twin groups.

    A pair is open when an unpaired column (or row) is as good a partner for its row
    (column), or when it can exchange partners with another pair, with the values of
    C and of the colour bonus b kept (as multisets): the pairing is then as good
    either way, and only the canonical order, whose ties fall to the records'
    canonical JSON (ids included), picked one. Twins (identical lines of
    ``twins_of``) are left to :func:`repair_twins`, which re-paired them by structure.
    """
    if not pairs:
        return set()
    if matrix.size <= _SMALL_CELLS:
        return _open_choices_small(pairs, matrix, same, twins_of)
    rows, cols = np.array(pairs, dtype=np.int64).T
    value = matrix[rows, cols]
    # Every open choice repeats a pair's value of C elsewhere in its row or column (an
    # exchange {C[i,l], C[k,j]} = {C[i,j], C[k,l]} does too): the common case, where
    # none does, costs two comparisons.
    if (np.count_nonzero(matrix[rows] == value[:, None]) == len(pairs)
            and np.count_nonzero(matrix[:, cols] == value[None, :]) == len(pairs)):
        return set()
    free_rows = np.ones(matrix.shape[0], dtype=bool)
    free_rows[rows] = False
    free_cols = np.ones(matrix.shape[1], dtype=bool)
    free_cols[cols] = False
    bonus = same[rows, cols]
    # pair x unpaired column, unpaired row x pair, pair x pair: as good a choice?
    by_col = ((matrix[rows][:, free_cols] == value[:, None])
              & (same[rows][:, free_cols] == bonus[:, None]))
    by_row = ((matrix[free_rows][:, cols] == value[None, :])
              & (same[free_rows][:, cols] == bonus[None, :]))
    swap = np.ones((len(pairs), len(pairs)), dtype=bool)
    for level, kept in ((matrix, value), (same, bonus)):
        cross = level[rows][:, cols]  # cross[a, b]: row of pair a, column of pair b
        low = np.minimum(kept[:, None], kept[None, :])
        high = np.maximum(kept[:, None], kept[None, :])
        swap &= (np.minimum(cross, cross.T) == low) & (np.maximum(cross, cross.T) == high)
    np.fill_diagonal(swap, False)
    if not (by_col.any() or by_row.any() or swap.any()):
        return set()  # the common case: every choice was the only one as good
    row_twin, col_twin = _line_ids(twins_of, 0), _line_ids(twins_of, 1)
    by_col &= col_twin[cols][:, None] != col_twin[free_cols][None, :]
    by_row &= row_twin[rows][None, :] != row_twin[free_rows][:, None]
    swap &= row_twin[rows][:, None] != row_twin[rows][None, :]
    swap &= col_twin[cols][:, None] != col_twin[cols][None, :]
    open_ = by_col.any(axis=1) | by_row.any(axis=0) | swap.any(axis=1)
    return {pairs[k] for k in np.flatnonzero(open_)}


def _open_choices_small(pairs: list[tuple[int, int]], matrix: np.ndarray,
                        same: np.ndarray, twins_of: np.ndarray) -> set[tuple[int, int]]:
    """:func:`_open_choices` of a matrix of at most ``_SMALL_CELLS`` cells, cell by
    cell in Python floats (the same comparisons; lines keyed by their bits)."""
    cells, bonus = matrix.tolist(), same.tolist()
    value = [cells[i][j] for i, j in pairs]
    if (all(sum(x == v for x in cells[i]) == 1 for (i, _), v in zip(pairs, value, strict=True))
            and all(sum(row[j] == v for row in cells) == 1
                    for (_, j), v in zip(pairs, value, strict=True))):
        return set()
    bits = np.ascontiguousarray(twins_of, dtype=np.float64).view(np.uint64).tolist()
    row_key = [tuple(line) for line in bits]
    col_key = list(zip(*bits, strict=True)) if bits else []
    paired_rows, paired_cols = {i for i, _ in pairs}, {j for _, j in pairs}
    free_rows = [r for r in range(len(cells)) if r not in paired_rows]
    free_cols = [c for c in range(matrix.shape[1]) if c not in paired_cols]
    found: set[tuple[int, int]] = set()
    for (i, j), v in zip(pairs, value, strict=True):
        b = bonus[i][j]
        if (any(cells[i][c] == v and bonus[i][c] == b and col_key[c] != col_key[j]
                for c in free_cols)
                or any(cells[r][j] == v and bonus[r][j] == b and row_key[r] != row_key[i]
                       for r in free_rows)):
            found.add((i, j))
    for a, (i, j) in enumerate(pairs):
        for k, m in pairs[a + 1:]:
            if row_key[i] == row_key[k] or col_key[j] == col_key[m]:
                continue
            if all(min(level[i][m], level[k][j]) == min(level[i][j], level[k][m])
                   and max(level[i][m], level[k][j]) == max(level[i][j], level[k][m])
                   for level in (cells, bonus)):
                found.update(((i, j), (k, m)))
    return found


def _tie_warnings(name: str, gold: list[Record], candidate: list[Record],
                  rules: dict[tuple[int, int], TieRule], warnings: list[Diagnostic]) -> None:
    for rule, how in ((TieRule.DEPTH, "by the depth of their WL agreement (the paper's "
                       "colour bonus left them tied)"),
                      (TieRule.CONTENT, "by the content rule (no structure tells them "
                       "apart: they are interchangeable)")):
        settled = sorted(p for p, r in rules.items() if r == rule)
        if not settled:
            continue
        listed = ", ".join(f"{gold[i].pointer} -> {candidate[j].pointer}"
                           for i, j in settled[:_LISTED])
        more = f" and {len(settled) - _LISTED} more" if len(settled) > _LISTED else ""
        warnings.append(Diagnostic(f"tie-{rule.value}", "gold", gold[settled[0][0]].pointer,
                                   f"{len(settled)} {name!r} record(s) tied on attributes "
                                   f"were paired {how}: {listed}{more}"))


def _mapping(g_records: list[Record], c_records: list[Record], pairs: list[tuple[int, int]],
             quality: dict[tuple[int, int], tuple[float, ...]]) -> Pairing:
    """The bijection of a pairing, with the record each shared id designates on each
    side (gold targets first; a shared candidate id goes to the partner of one) and
    the pointers of the designations only canonical JSON decided."""
    gold_targets, gold_by_label = _targets(g_records, {i: quality[i, j] for i, j in pairs})
    chosen = set(gold_targets.values())
    targets, by_label = _targets(c_records, {j: (float(i in chosen), *quality[i, j])
                                             for i, j in pairs})
    mapping: dict[Any, Any] = {r.key: None for r in g_records if r.key is not None}
    for i, j in pairs:
        g_key, c_key = g_records[i].key, c_records[j].key
        if g_key is None or gold_targets.get(g_key) != i:
            continue
        mapping[g_key] = c_key if c_key is not None and targets.get(c_key) == j else None
    return mapping, gold_targets, targets, (
        [g_records[i].pointer for i in gold_by_label]
        + [c_records[j].pointer for j in by_label])


def _quality(levels: list[Cells], pairs: list[tuple[int, int]]
             ) -> dict[tuple[int, int], tuple[float, ...]]:
    return {(i, j): (1.0, *(float(level[i, j]) for level in levels)) for i, j in pairs}


def _pointer_pairs(scope: str, gold: list[Record], candidate: list[Record],
                   pairs: list[tuple[int, int]]) -> tuple[str, dict[str, str]]:
    return scope, {gold[i].pointer: candidate[j].pointer for i, j in pairs}


def _document_score(pairs: list[tuple[int, int]], *, evaluate: EvaluateFn, scope: ScopeDecl,
                    gold: list[Record], candidate: list[Record], levels: list[Cells],
                    bijections: dict[str, dict[Any, Any]], candidate_ids: dict[str, set[Any]],
                    record_pairs: RecordPairs, unresolved: frozenset[str]) -> float:
    """The documents' score if ``scope``'s records were paired by ``pairs``."""
    trial = _mapping(gold, candidate, pairs, _quality(levels, pairs))[0]
    return evaluate({**bijections, scope.name: trial}, candidate_ids,
                    {**record_pairs, scope.records.pointer: _pointer_pairs(
                        scope.name, gold, candidate, pairs)}, unresolved)


def _swappable(a: tuple[int, int], b: tuple[int, int], levels: list[Cells]) -> bool:
    """Whether two pairs can exchange partners with every level's values kept."""
    (i, j), (k, m) = a, b
    return all(sorted((float(level[i, m]), float(level[k, j])))
               == sorted((float(level[i, j]), float(level[k, m]))) for level in levels)


def _tie_blocks(label_ties: list[tuple[int, int]], levels: list[Cells]
                ) -> list[list[tuple[int, int]]]:
    """The label ties (given in canonical order) in blocks of pairs that may exchange
    partners (connected by swaps that keep every level's values), in canonical order."""
    parent = list(range(len(label_ties)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in itertools.combinations(range(len(label_ties)), 2):
        if _swappable(label_ties[a], label_ties[b], levels):
            parent[root(a)] = root(b)
    blocks: dict[int, list[tuple[int, int]]] = {}
    for k, pair in enumerate(label_ties):
        blocks.setdefault(root(k), []).append(pair)
    return list(blocks.values())  # in the order of their first pair


@dataclass(slots=True)
class _Budget:
    """The pairings left to score in one alignment (see ``_SCORED_TRIALS``)."""

    trials: int = _SCORED_TRIALS


def _alternatives(block: list[tuple[int, int]], current: list[tuple[int, int]],
                  levels: list[Cells], order: _Canonical
                  ) -> tuple[list[int], list[int]]:
    """The rows and columns a block's pairs may take: its own, and the unpaired ones
    as good as a block pair's on every level (a record left out can replace it)."""
    rows = {i for i, _ in block}
    cols = {j for _, j in block}
    paired_rows = {i for i, _ in current}
    paired_cols = {j for _, j in current}
    assert isinstance(levels[0], np.ndarray)  # a scope settled by score is kept whole
    shape = levels[0].shape
    for i, j in block:
        for other in range(shape[1]):
            if other not in paired_cols and all(level[i, other] == level[i, j]
                                                for level in levels):
                cols.add(other)
        for other in range(shape[0]):
            if other not in paired_rows and all(level[other, j] == level[i, j]
                                                for level in levels):
                rows.add(other)
    return sorted(rows, key=order.rows.__getitem__), sorted(cols, key=order.cols.__getitem__)


def _alike(scope: ScopeDecl, gold: DocumentIndex, candidate: DocumentIndex
           ) -> Callable[[list[tuple[int, int]]], tuple[Any, ...]]:
    """A pairing's records as their array and their JSON up to list order, the id left
    out where no reference of its document names it: two pairings with the same key
    exchange records that nothing scored tells apart (an id scores 1 and matters
    only to references), so they give the documents the same score."""
    def sides(index: DocumentIndex) -> Callable[[int], tuple[str, str]]:
        records = index.records[scope.name]
        if index.native is not None:  # Rust holds the references (no carriers here)
            named = set(index.native.named_records(scope.name))
        else:
            ids = {id_key(value) for carrier in index.carriers.values()
                   for target, _, value in carrier.refs if target == scope.name}
            named = {k for k, record in enumerate(records)
                     if record.key is not None and record.key in ids}
        keys: dict[int, tuple[str, str]] = {}

        def side(k: int) -> tuple[str, str]:
            found = keys.get(k)
            if found is None:
                record = records[k]
                value: Any = record.value
                if k not in named:
                    value = {f: v for f, v in value.items() if f != scope.id_field}
                found = keys[k] = (record.pointer[:record.pointer.rfind("/")],
                                   canonical_json(_order_free(value)))
            return found

        return side

    gold_side, candidate_side = sides(gold), sides(candidate)

    def key(trial: list[tuple[int, int]]) -> tuple[Any, ...]:
        return tuple(sorted((gold_side(i), candidate_side(j)) for i, j in trial))

    return key


def _record_classes(rows: list[int], cols: list[int], levels: list[Cells],
                    alike: Callable[[list[tuple[int, int]]], tuple[Any, ...]]
                    ) -> tuple[list[int], list[int]]:
    """The class of each of a block's rows and columns (numbered as first met, in the
    given order): records of one class have the same values on every level (against
    the other side's records) and ``alike`` keys them alike (asked of one-pair
    pairings with the other side's first record). Exchanging two records of one class
    in a pairing keeps the values of every level, its depth and its ``alike`` key."""
    whole = [np.ascontiguousarray(np.asarray(level)[np.ix_(rows, cols)],
                                  dtype=np.float64 if k < 2 else np.int64)
             for k, level in enumerate(levels)]

    def numbered(keys: list[tuple[Any, ...]]) -> list[int]:
        seen: dict[tuple[Any, ...], int] = {}
        return [seen.setdefault(key, len(seen)) for key in keys]

    return (numbered([(alike([(i, cols[0])]), *(level[k].tobytes() for level in whole))
                      for k, i in enumerate(rows)]),
            numbered([(alike([(rows[0], j)]), *(level[:, k].tobytes() for level in whole))
                      for k, j in enumerate(cols)]))


def _class_tables(row_sizes: list[int], col_sizes: list[int], size: int, limit: int
                  ) -> list[tuple[tuple[int, int, int], ...]] | None:
    """Every way to pair ``size`` records of row classes of ``row_sizes`` members with
    as many of column classes of ``col_sizes`` members, as its cells ``(row class,
    column class, pairs)`` with pairs > 0 in row-major order; None when there are more
    than ``limit``. Each partial table kept can be completed (so the work follows the
    tables found): a row class takes at least what the classes after it cannot, and
    the columns always have room for what is left (as many as the rows)."""
    rows_from = [0] * (len(row_sizes) + 1)  # members of row classes a and after
    for a in range(len(row_sizes) - 1, -1, -1):
        rows_from[a] = rows_from[a + 1] + row_sizes[a]
    found: list[tuple[tuple[int, int, int], ...]] = []
    # (row class, next column class, taken by the row, left, row's least, row's most,
    # cells, room left per column class, its sums from each column class on)
    State = tuple[int, int, int, int, int, int, tuple[tuple[int, int, int], ...],
                  tuple[int, ...], tuple[int, ...]]
    stack: list[State] = []

    def start_rows(after: int, left: int, cells: tuple[tuple[int, int, int], ...],
                   room: tuple[int, ...]) -> None:
        suffix = (*tuple(itertools.accumulate(reversed(room)))[::-1], 0)
        for a in range(after, len(row_sizes)):
            if left > rows_from[a]:
                break  # classes a and after cannot take them all
            stack.append((a, 0, 0, left, max(1, left - rows_from[a + 1]),
                          min(row_sizes[a], left), cells, room, suffix))

    start_rows(0, size, (), tuple(col_sizes))
    while stack:
        a, b, taken, left, least, most, cells, room, suffix = stack.pop()
        if taken >= least:  # the row class may take no more
            if left == 0:
                found.append(cells)
                if len(found) > limit:
                    return None
            else:
                start_rows(a + 1, left, cells, room)
        for column in range(b, len(col_sizes)):
            if suffix[column] < least - taken:
                break
            for count in range(max(1, least - taken - suffix[column + 1]),
                               min(room[column], most - taken) + 1):
                stack.append((a, column + 1, taken + count, left - count, least, most,
                              (*cells, (a, column, count)),
                              (*room[:column], room[column] - count, *room[column + 1:]),
                              suffix))
    return found


def _first_pairing(table: tuple[tuple[int, int, int], ...], row_class: list[int],
                   col_class: list[int]) -> tuple[list[int], list[int]]:
    """The first pairing (in the order of ``itertools.combinations`` of the rows, then
    ``itertools.permutations`` of the columns) with the counts of ``table``, as row
    and column positions: each row class's first members, each paired with the first
    free column of a column class it still needs."""
    need: dict[int, dict[int, int]] = {}
    for a, b, count in table:
        need.setdefault(a, {})[b] = count
    wanted = {a: sum(by_col.values()) for a, by_col in need.items()}
    chosen = []
    for position, a in enumerate(row_class):
        if wanted.get(a, 0):
            wanted[a] -= 1
            chosen.append(position)
    members: dict[int, list[int]] = {}
    for position, b in enumerate(col_class):
        members.setdefault(b, []).append(position)
    taken = dict.fromkeys(members, 0)
    arranged = []
    for position in chosen:
        by_col = need[row_class[position]]
        b = min((b for b, count in by_col.items() if count),
                key=lambda b: members[b][taken[b]])
        by_col[b] -= 1
        arranged.append(members[b][taken[b]])
        taken[b] += 1
    return chosen, arranged


def _settle_by_score(pairs: list[tuple[int, int]], label_ties: list[tuple[int, int]],
                     levels: list[Cells], score_of: Callable[[list[tuple[int, int]]],
                                                                   float],
                     budget: _Budget, order: _Canonical,
                     alike: Callable[[list[tuple[int, int]]], tuple[Any, ...]]
                     ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The content rule's first step: within each block of label-tied pairs, among the
    pairings that keep the values of C and b (as multisets), the one with the deepest
    agreement a in total, then the highest document score.

    A block's pairings pair as many of its rows, and of the unpaired rows as good,
    with as many of its columns and of the unpaired columns as good (on C and b). A block whose
    best pairing is unique is settled (its pairs are no longer label ties); when
    several pairings share the best score the first of them is kept (the given pairing
    first) and the block stays label-tied. Records that no level and no ``alike`` key
    tell apart are one class (:func:`_record_classes`), and the pairings are looked
    through by class: those that differ only by exchanging records of one class keep
    every level's values and the ``alike`` key, and stand for each other (the first,
    in the order of every pairing, :func:`_first_pairing`). A block with more classes
    of pairings than ``_ENUMERATED`` to look through, or more to score than ``budget``
    has left, is left as it is. Returns the pairs and the label ties that remain.
    Pairings ``alike`` gives one key are scored once (the first; they score the same)
    and counted once in the budget.
    """
    if selected_engine() == "rust":
        current, left, budget.trials = ties_native.settle_by_score(
            pairs, label_ties, levels, score_of, budget.trials, order.rows, order.cols, alike)
        return current, left
    remaining: list[tuple[int, int]] = []
    current = sorted(pairs)
    # Everything in the canonical order of the records (WL colour, then canonical
    # JSON), never their positions: which blocks fit the budget, which pairing comes
    # first among equals.
    tied = sorted(label_ties, key=lambda p: (order.rows[p[0]], order.cols[p[1]]))
    kept, ranked = levels[:2], levels[2:]  # (C, b) kept; a ranks the pairings
    for block in _tie_blocks(tied, kept):
        rows, cols = _alternatives(block, current, kept, order)
        row_class, col_class = _record_classes(rows, cols, levels, alike)
        row_sizes = [row_class.count(a) for a in range(max(row_class) + 1)]
        col_sizes = [col_class.count(b) for b in range(max(col_class) + 1)]
        tables = _class_tables(row_sizes, col_sizes, len(block), _ENUMERATED)
        if tables is None:
            remaining += block
            continue
        row_at = {i: k for k, i in enumerate(rows)}
        col_at = {j: k for k, j in enumerate(cols)}
        counts: dict[tuple[int, int], int] = {}
        for i, j in block:
            cell = (row_class[row_at[i]], col_class[col_at[j]])
            counts[cell] = counts.get(cell, 0) + 1
        own = tuple((a, b, counts[a, b]) for a, b in sorted(counts))
        # (pairing, its class's table): the block's class first, with
        # the block itself, then the other classes by their first pairing
        others = sorted((_first_pairing(table, row_class, col_class), table)
                        for table in tables if table != own)
        trials = [(block, own)] + [
            ([(rows[k], cols[m]) for k, m in zip(chosen, arranged, strict=True)], table)
            for (chosen, arranged), table in others]
        many = [any(row_sizes[a] > 1 or col_sizes[b] > 1 for a, b, _ in table)
                for _, table in trials]
        wanted = [sorted(float(level[i, j]) for i, j in block) for level in kept]
        good = [k for k, (trial, _) in enumerate(trials)
                if k == 0 or [sorted(float(level[i, j]) for i, j in trial)
                              for level in kept] == wanted]
        depths = {k: tuple(int(sum(int(level[i, j]) for i, j in trials[k][0]))
                           for level in ranked) for k in good}
        deepest = max(depths.values())
        good = [k for k in good if depths[k] == deepest]
        fixed = [p for p in current if p not in set(block)]
        distinct: dict[tuple[Any, ...], list[int]] = {}
        for k in good:
            distinct.setdefault(alike(trials[k][0]), []).append(k)
        if len(distinct) == 1:  # the agreement depth decided: no score tells them apart
            current = sorted(fixed + trials[good[0]][0])
            if len(good) > 1 or many[good[0]]:
                remaining += trials[good[0]][0]
            continue
        if len(distinct) > budget.trials:
            remaining += block
            continue
        budget.trials -= len(distinct)
        scored = [(score_of(sorted(fixed + trials[same[0]][0])), same)
                  for same in distinct.values()]
        best = max(value for value, _ in scored)
        winners = [k for value, same in scored if value == best for k in same]
        first = trials[min(winners)][0]
        current = sorted(fixed + first)
        if len(winners) > 1 or many[min(winners)]:
            remaining += first
    return current, sorted(remaining)


@dataclass(slots=True)
class _Paired:
    """One scope's pairing while the scopes are resolved (warnings wait for the end)."""

    decl: ScopeDecl
    gold: list[Record]
    candidate: list[Record]
    matrix: Cells
    structure: _Structure | None
    levels: list[Cells]
    pairs: list[tuple[int, int]]
    rules: dict[tuple[int, int], TieRule]
    label_ties: list[tuple[int, int]]
    order: _Canonical  # the canonical order the pairs were chosen in
    provisional: bool  # label ties scored while some other scope was unresolved
    # (pairs, _mapping of them) when adopted: the final alignment reads it again
    adopted: tuple[list[tuple[int, int]], Pairing] | None = None

    @property
    def settleable(self) -> bool:
        """Whether label ties may be settled by the documents' score: in scopes of at
        most ``_SCORED_RECORDS`` records whose matrices are kept whole (a blocked
        scope's are not past ``Limits.max_matrix_cells``)."""
        return len(self.gold) <= _SCORED_RECORDS and isinstance(self.matrix, np.ndarray)

    def mapping(self) -> Pairing:
        """:func:`_mapping` of the pairs (as adopted, when they have not changed since)."""
        if self.adopted is not None and self.adopted[0] == self.pairs:
            return self.adopted[1]
        return _mapping(self.gold, self.candidate, self.pairs,
                        _quality(self.levels, self.pairs))


def _settle(paired: _Paired, evaluate: EvaluateFn, state: _State,
            unresolved: frozenset[str], budget: _Budget,
            alike: Callable[[list[tuple[int, int]]], tuple[Any, ...]]) -> None:
    """Settle ``paired``'s label ties by the documents' score (in place)."""
    if not paired.label_ties or not paired.settleable:
        return
    score_of = functools.partial(
        _document_score, evaluate=evaluate, scope=paired.decl, gold=paired.gold,
        candidate=paired.candidate, levels=paired.levels, bijections=state.bijections,
        candidate_ids=state.candidate_ids, record_pairs=state.record_pairs,
        unresolved=unresolved)
    paired.pairs, remaining = _settle_by_score(paired.pairs, paired.label_ties,
                                               paired.levels, score_of, budget, paired.order,
                                               alike)
    paired.rules = {p: paired.rules.get(p, TieRule.CONTENT) for p in paired.pairs}
    paired.label_ties = remaining
    paired.provisional = bool(unresolved)


@dataclass(slots=True)
class _State:
    """A resolution in progress: what the scopes paired so far give."""

    bijections: dict[str, dict[Any, Any]] = field(default_factory=dict)
    candidate_ids: dict[str, set[Any]] = field(default_factory=dict)
    record_pairs: RecordPairs = field(default_factory=dict)
    traces: dict[str, WLTrace] = field(default_factory=dict)
    paired: dict[str, _Paired] = field(default_factory=dict)
    resolved: set[str] = field(default_factory=set)

    def copy(self) -> _State:
        """A copy to resolve further without touching this one (scopes already
        paired are shared: a scope paired again gets a new ``_Paired``)."""
        return _State(dict(self.bijections), dict(self.candidate_ids),
                      dict(self.record_pairs), dict(self.traces), dict(self.paired),
                      set(self.resolved))

    def adopt(self, scope: _Paired) -> None:
        """Make ``scope``'s pairs its bijection and its record pairs."""
        name = scope.decl.name
        self.paired[name] = scope
        mapping = _mapping(scope.gold, scope.candidate, scope.pairs,
                           _quality(scope.levels, scope.pairs))
        scope.adopted = (list(scope.pairs), mapping)
        self.bijections[name] = mapping[0]
        self.record_pairs[scope.decl.records.pointer] = _pointer_pairs(
            name, scope.gold, scope.candidate, scope.pairs)
        self.resolved.add(name)


@dataclass(slots=True)
class _Resolver:
    """Resolves a schema's scopes group after group (dependencies first)."""

    gold: DocumentIndex
    candidate: DocumentIndex
    schema: Schema
    score_matrix: MatrixFn
    mode: WLMode
    wl_lambda: float
    limits: Limits
    evaluate: EvaluateFn | None
    budget: _Budget = field(default_factory=_Budget)
    describe: bool = True  # vertex labels for display (align's traces)

    def group(self, state: _State, group: list[str], *, settle: bool) -> None:
        """Pair the scopes of one group (a cycle, or one scope) into ``state``.

        With ``settle``, label ties are settled by the documents' score right away
        (provisionally while other scopes are unresolved); without it they keep the
        canonical order and wait for :meth:`settle_provisional`.
        """
        members = frozenset(group)
        unresolved = frozenset(set(self.schema.scopes) - state.resolved)
        blocked: dict[str, list[Block]] = {}
        for name in group:  # the ids that exist do not depend on the pairing
            state.candidate_ids[name] = {r.key for r in self.candidate.records[name]
                                         if r.key is not None}
            g_records, c_records = self.gold.records[name], self.candidate.records[name]
            block_by = self.schema.scopes[name].records.block_by
            if block_by:
                blocked[name] = blocks([r.value for r in g_records],
                                       [r.value for r in c_records], block_by)
            if block_by and not self.describe:  # nothing whole is kept (_pair_blocks)
                for block in blocked[name]:
                    _check_size([g_records[i] for i in block.gold],
                                [c_records[j] for j in block.candidate], self.limits)
            else:
                _check_size(g_records, c_records, self.limits)
        # the scopes of a group are scored under the pairing before any of them: a
        # blocked scope's matrices are made after the scopes before it were adopted
        context = ((dict(state.bijections), dict(state.candidate_ids), unresolved)
                   if blocked else (state.bijections, state.candidate_ids, unresolved))
        matrices = {name: self.score_matrix(
            [r.value for r in self.gold.records[name]],
            [r.value for r in self.candidate.records[name]], self.schema.scopes[name].record,
            *context) for name in group if name not in blocked}
        compared = any(m.size for m in matrices.values()) or any(
            block.gold and block.candidate for name in blocked for block in blocked[name])
        trace = None
        if self.mode != WLMode.NONE and compared:
            vertices: list[WLVertex] = []
            edges: list[WLEdge] = []
            seeds: list[str] = []
            blend = self.mode == WLMode.BLEND
            _gold_graph(self.gold, members, state.bijections, state.resolved, vertices,
                        edges, seeds, blend, self.describe)
            _build_graph(self.candidate, "candidate", members, state.bijections,
                         state.resolved, vertices, edges, seeds, blend=blend,
                         describe=self.describe)
            trace = refine(vertices, edges, seeds, scope=", ".join(group),
                           mode=self.mode.value)
        for name in group:
            g_records, c_records = self.gold.records[name], self.candidate.records[name]
            if name in blocked:
                if trace is not None and len(g_records) * len(c_records):
                    state.traces[name] = trace
                scope = self._pair_blocks(name, blocked[name], trace, context,
                                          self.evaluate is not None and not settle)
            else:
                matrix = matrices[name]
                structure = None
                if trace is not None and matrix.size:
                    state.traces[name] = trace
                    structure = _structure(trace, name)
                pairs, rules, label_ties, order = _pair_scope(
                    matrix, self.mode, self.wl_lambda, structure, g_records, c_records)
                # every use of a level reads a cell as a float or compares cells: the
                # int64 depth is shared, not copied
                levels: list[Cells] = ([matrix] if structure is None else
                                       [matrix, structure.same, structure.depth])
                scope = _Paired(self.schema.scopes[name], g_records, c_records, matrix,
                                structure, levels, pairs, rules, label_ties, order,
                                self.evaluate is not None and not settle)
            if settle and self.evaluate is not None:
                _settle(scope, self.evaluate, state,
                        frozenset(set(self.schema.scopes) - state.resolved - {name}),
                        self.budget, self.alike(scope.decl))
            state.adopt(scope)

    def alike(self, scope: ScopeDecl) -> Callable[[list[tuple[int, int]]], tuple[Any, ...]]:
        """:func:`_alike` of one of the scopes."""
        return _alike(scope, self.gold, self.candidate)

    def _pair_blocks(self, name: str, found: list[Block], trace: WLTrace | None,
                     context: tuple[dict[str, dict[Any, Any]], dict[str, set[Any]],
                                    frozenset[str]], provisional: bool) -> _Paired:
        """Pair a scope with ``blockBy`` block by block (:mod:`oa_core.blocking`).

        Each block is paired as a scope of its own (its C, its rows and columns of b
        and a, the content rule among its pairs). For :func:`oa_core.align`, and for
        scopes of at most ``_SCORED_RECORDS`` records within ``max_matrix_cells``,
        the scope's matrices are then kept whole, zero across blocks (no pair across
        blocks can tie with a pair inside one, as C > 0 there); otherwise only the
        cells of the pairs are kept, all the scoring reads of a scope whose ties are
        not settled by score (:attr:`_Paired.settleable`).
        """
        decl = self.schema.scopes[name]
        gold, candidate = self.gold.records[name], self.candidate.records[name]
        n, m = len(gold), len(candidate)
        whole = self.describe or (n <= _SCORED_RECORDS
                                  and n * m <= self.limits.max_matrix_cells)
        histories = _histories(trace, name) if trace is not None and n and m else None
        # C, b and a: whole (zero across blocks), or at the pairs only
        matrices = ((np.zeros((n, m)), np.zeros((n, m)), np.zeros((n, m), dtype=np.int64))
                    if whole else None)
        cells = _PairCells(), _PairCells(), _PairCells()
        pairs: list[tuple[int, int]] = []
        rules: dict[tuple[int, int], TieRule] = {}
        label_ties: list[tuple[int, int]] = []
        ranks = [0] * n, [0] * m
        offsets = [0, 0]
        for block in found:
            rows, cols = block.gold, block.candidate
            if not (rows and cols):  # unpaired records: one rank for the block
                for side, members in enumerate((rows, cols)):
                    for k in members:
                        ranks[side][k] = offsets[side]
                    offsets[side] += 1
                continue
            sub = self.score_matrix([gold[i].value for i in rows],
                                    [candidate[j].value for j in cols], decl.record, *context)
            structure = None if histories is None else histories.structure(rows, cols)
            local, local_rules, local_ties, order = _pair_scope(
                sub, self.mode, self.wl_lambda, structure, [gold[i] for i in rows],
                [candidate[j] for j in cols])
            parts = [sub] if structure is None else [sub, structure.same, structure.depth]
            for a, b in local:
                pair = rows[a], cols[b]
                pairs.append(pair)
                rules[pair] = local_rules[a, b]
                if matrices is None:
                    for kept_cells, part in zip(cells, parts, strict=False):
                        kept_cells[pair] = float(part[a, b])
            label_ties += [(rows[a], cols[b]) for a, b in local_ties]
            if matrices is not None:
                for whole_matrix, part in zip(matrices, parts, strict=False):
                    whole_matrix[np.ix_(rows, cols)] = part
            # the block's canonical order, after the blocks before it (ties kept)
            for side, (members, local_order) in enumerate(((rows, order.rows),
                                                          (cols, order.cols))):
                dense = {v: k for k, v in enumerate(sorted(set(local_order)))}
                for k, value in zip(members, local_order, strict=True):
                    ranks[side][k] = offsets[side] + dense[value]
                offsets[side] += len(dense)
        # what align() shows of the structure (the pairs were made with each block's own)
        kept = None
        if histories is not None and matrices is not None:
            kept = _Structure(matrices[1], matrices[2], histories.gold.shape[0], [], [],
                              [], [], [], [])
        levels: list[Cells] = list(matrices if matrices is not None else cells)
        return _Paired(decl, gold, candidate, levels[0], kept,
                       levels[:1] if histories is None else levels, sorted(pairs), rules,
                       sorted(label_ties), _Canonical(*ranks), provisional)

    def settle_provisional(self, state: _State, groups: list[list[str]]) -> _State:
        """Settle again, by the documents' score, the label ties scored while some
        scope was unresolved, now that every scope is; in resolution order.

        A tied scope with groups resolved after it is settled with those groups
        resolved again for every pairing tried (their pairing may follow from its:
        twins told apart only through a scope resolved later); the pairing wins only
        if it beats the current resolution, and the groups resolved again then wait
        for their own turn here. A scope resolved last is settled with the others
        kept as they are.
        """
        if self.evaluate is None:
            return state
        evaluate = self.evaluate
        for k, group in enumerate(groups):
            later = groups[k + 1:]
            for name in group:
                scope = state.paired[name]
                if not (scope.provisional and scope.label_ties):
                    continue
                if not later:
                    _settle(scope, evaluate, state, frozenset(), self.budget,
                            self.alike(scope.decl))
                    state.adopt(scope)
                    continue
                state = self._settle_with_later(state, scope, later, evaluate)
        return state

    def _settle_with_later(self, state: _State, scope: _Paired,
                           later: list[list[str]], evaluate: EvaluateFn) -> _State:
        scope.provisional = False
        if not scope.settleable:
            return state
        outcomes: dict[tuple[tuple[int, int], ...], tuple[float, _State]] = {}

        def score_of(pairs: list[tuple[int, int]]) -> float:
            trial = state.copy()
            trial.adopt(replace(scope, pairs=pairs))
            for group in later:
                self.group(trial, group, settle=False)
            value = evaluate(trial.bijections, trial.candidate_ids, trial.record_pairs,
                             frozenset())
            outcomes[tuple(pairs)] = value, trial
            return value

        pairs, remaining = _settle_by_score(scope.pairs, scope.label_ties, scope.levels,
                                            score_of, self.budget, scope.order,
                                            self.alike(scope.decl))
        chosen = outcomes.get(tuple(pairs))
        if chosen is None:
            return state  # no block fitted the budget
        settled = replace(scope, pairs=pairs, label_ties=remaining,
                          rules={p: scope.rules.get(p, TieRule.CONTENT) for p in pairs})
        if chosen[0] > evaluate(state.bijections, state.candidate_ids, state.record_pairs,
                                frozenset()):
            chosen[1].adopt(settled)
            return chosen[1]
        if sorted(pairs) == sorted(scope.pairs):  # it won: keep what followed from it
            state.adopt(replace(settled, pairs=scope.pairs))
        return state


def resolve_scopes(gold: DocumentIndex, candidate: DocumentIndex, schema: Schema,
                   score_matrix: MatrixFn, *, wl_mode: WLMode | str = WLMode.TIE_BREAK,
                   wl_lambda: float = 0.5, limits: Limits | None = None,
                   evaluate: EvaluateFn | None = None) -> ScopeResolution:
    """Derive every scope's bijection.

    ``evaluate(bijections, candidate_ids, record_pairs, unresolved)`` scores the whole
    documents under a partial resolution; when given, records that only their JSON
    told apart (label ties) are paired by the best document score instead: first as
    the scope is resolved (the references into scopes resolved later counted as
    matching), and once more when every scope is, with the scopes resolved after it
    resolved again for each pairing tried.

    Returns
    -------
    bijections : {scope: {id_key(gold id): id_key(candidate id) or None}}
    candidate_ids : {scope: set of id_key} (the ids that name a candidate record)
    alignments : {scope: ScopeAlignment}
    traces : {scope: WLTrace} (scopes where WL ran)
    warnings : list of Diagnostic
    """
    groups, cyclic, warnings = _resolution_groups(schema)
    resolver = _Resolver(gold, candidate, schema, score_matrix, WLMode(wl_mode), wl_lambda,
                         limits or Limits(), evaluate)
    state = _resolve(resolver, groups)
    alignments: dict[str, ScopeAlignment] = {}
    for name in (name for group in groups for name in group):
        scope = state.paired[name]
        _, gold_targets, targets, designated = scope.mapping()
        _id_warnings(scope.gold, scope.decl, "gold", gold_targets, warnings)
        _id_warnings(scope.candidate, scope.decl, "candidate", targets, warnings)
        _tie_warnings(name, scope.gold, scope.candidate, scope.rules, warnings)
        structure = scope.structure
        assert isinstance(scope.matrix, np.ndarray)  # align() keeps matrices whole
        alignments[name] = ScopeAlignment(
            name, scope.matrix, [r.id for r in scope.gold], [r.id for r in scope.candidate],
            [r.pointer for r in scope.gold], [r.pointer for r in scope.candidate],
            scope.pairs, _twin_pairs(scope.matrix, scope.pairs), name in cyclic,
            resolver.mode.value, None if structure is None else structure.same,
            None if structure is None else structure.depth / structure.rounds,
            scope.rules, scope.label_ties, designated)
    return state.bijections, state.candidate_ids, alignments, state.traces, warnings


def _resolve(resolver: _Resolver, groups: list[list[str]]) -> _State:
    """Every group paired, then the provisional label ties settled again."""
    state = _State()
    for group in groups:
        resolver.group(state, group, settle=True)
    return resolver.settle_provisional(state, groups)


def resolve_for_score(gold: DocumentIndex, candidate: DocumentIndex, schema: Schema,
                      score_matrix: MatrixFn, *, wl_mode: WLMode | str = WLMode.TIE_BREAK,
                      wl_lambda: float = 0.5, limits: Limits | None = None,
                      evaluate: EvaluateFn | None = None
                      ) -> tuple[dict[str, dict[Any, Any]], dict[str, set[Any]], RecordPairs,
                                 RecordScores]:
    """What the final scoring pass reads of :func:`resolve_scopes`: the bijections,
    the candidate ids and each scope's record pairs by pointer.

    The same resolution (the same pairs, settled the same way), without what only
    :func:`oa_core.align` shows: no warnings, no :class:`ScopeAlignment` (twin
    pairs, agreement shares) and no display labels on the WL vertices (refinement
    never reads them). The record pairs are those each scope's pairs were last
    adopted with (``_State.adopt``), i.e. its final pairs, as ``resolve_scopes``'
    alignments give them.

    Also, for each scope whose records hold no reference and no other scope's
    records (:func:`_self_contained`), the cell of ``C`` of each of those pairs by
    the gold record's pointer: ``score_matrix`` is bit for bit the score of a pair,
    and such a record's score does not depend on any scope's pairing, so the final
    pass scores it the same.
    """
    groups, _, _ = _resolution_groups(schema)
    resolver = _Resolver(gold, candidate, schema, score_matrix, WLMode(wl_mode), wl_lambda,
                         limits or Limits(), evaluate, describe=False)
    state = _resolve(resolver, groups)
    scores: RecordScores = {}
    for name in _self_contained(schema):
        scope = state.paired[name]
        assert scope.adopted is not None  # every paired scope is adopted (_State.adopt)
        scores[scope.decl.records.pointer] = {  # the pairs its record pairs hold
            scope.gold[i].pointer: float(scope.matrix[i, j]) for i, j in scope.adopted[0]}
    return state.bijections, state.candidate_ids, state.record_pairs, scores


_CONTAINED: weakref.WeakKeyDictionary[Schema, tuple[str, ...]] = weakref.WeakKeyDictionary()


def _self_contained(schema: Schema) -> tuple[str, ...]:
    """The scopes whose record schema holds no reference, no identifier but the
    records' own ids and no scope's record array (through ``$ref`` included): their
    records score the same under any pairing of any scope."""
    found = _CONTAINED.get(schema)
    if found is None:
        arrays = {decl.records.pointer for decl in schema.scopes.values()}
        found = _CONTAINED[schema] = tuple(
            name for name, decl in sorted(schema.scopes.items())
            if not schema.dependencies[name] and all(
                (node.id_scope is None or node is decl.id_node) and node.pointer not in arrays
                for node in decl.record.walk()))
    return found


def _twin_pairs(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs whose gold row ties exactly with another paired gold row (twins)."""
    paired = {i for i, _ in pairs}
    twins: set[int] = set()
    for group in twin_groups(matrix, 0):
        members = [i for i in group if i in paired]
        if len(members) > 1:
            twins.update(members)
    return [(i, j) for i, j in pairs if i in twins]
