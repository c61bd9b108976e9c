"""Drawing a scope's Weisfeiler-Leman refinement: the gold|candidate reference graph.

The disjoint union is drawn side by side (gold left, candidate right), every vertex
at a fixed place while the rounds recolor it. A candidate record sits at the height
of the gold record the bijection pairs it with, so a teacher can point at pairs across
the divide. What both views draw (the round stepper, :mod:`app.pair.wl_stepper`, and the
drag & zoom view, :mod:`app.pair.pyvis_graph`) comes from the same functions:
:func:`layout`, :func:`drawn_vertices` (texts, class colors), :func:`drawn_edges`,
:func:`bijection_links` and :func:`side_titles`.

Class colors are kept stable across rounds: when a class splits, the part that
holds the class's first vertex keeps its color and the other parts get new ones,
so "a color change marks a refinement step" (as in the paper's WL figure).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import streamlit as st

from oa_core.wl import WLEdge, WLTrace, WLVertex

from ..palette import class_color, text_color_on

_GAP = 0.6  # horizontal gap between the two sides (layout units)
CAPTION_LIMIT = 60  # up to this many records: big labelled vertices; beyond: small dots
DIVIDER_X = 1.0 + _GAP / 2  # the dashed line between the gold and the candidate side


def label_words(label: str) -> str:
    r"""An edge's exact label (canonical JSON rows) in words: ``role :ARG1``.

    Examples
    --------
    >>> label_words('[["role","string","\\":ARG1\\""]]')
    'role :ARG1'
    >>> label_words('[["predicate","string","\\"USED-FOR\\""],["score","number","0.5"]]')
    'predicate USED-FOR, score 0.5'
    >>> label_words("")
    ''
    """
    if not label:
        return ""
    try:
        rows = json.loads(label)
        parts = []
        for role, _kind, text in rows:
            try:
                value = json.loads(text) if isinstance(text, str) else text
            except ValueError:
                value = text
            if value == ["unmatched"]:
                shown = "(a record with no partner)"
            elif isinstance(value, str):
                shown = value
            else:
                shown = json.dumps(value, ensure_ascii=False)
            parts.append(f"{role} {shown}")
        return ", ".join(parts)
    except (ValueError, TypeError):
        return label


def relation_words(relation: str, label: str = "") -> str:
    r"""A reference's relation (and exact label) in words: ``mentor → mentee (role x)``.

    Examples
    --------
    >>> relation_words("source->target", '[["role","string","\\":ARG0\\""]]')
    'source → target (role :ARG0)'
    >>> relation_words("boss")
    'boss'
    """
    text = relation.replace("->", " → ")
    words = label_words(label)
    return f"{text} ({words})" if words else text


def edge_role(edge: WLEdge, vertex: int) -> str:
    """What ``vertex`` is in ``edge``, in words: ``mentee`` (of the source), ``mentor``...

    A record carrying a single reference (``boss``) is the ``boss``-referrer; the
    target is its ``boss``.
    """
    if "->" in edge.relation:
        source_role, target_role = edge.relation.split("->", 1)
        return source_role if edge.source == vertex else target_role
    return f"referrer by {edge.relation}" if edge.source == vertex else edge.relation


class ScopedPairs(dict):  # type: ignore[type-arg]
    """Bijections of several scopes: ``(scope, gold id) -> candidate id``.

    A graph of a reference cycle holds the records of several scopes, whose ids may
    coincide (company 1, person 1): pass this instead of one scope's bijection.
    """


def scoped_pairs(trace: WLTrace, bijection: Mapping[Any, Any]) -> dict[tuple[str, Any], Any]:
    """``bijection`` keyed by ``(scope, gold id)``; a plain one is the trace's scope's."""
    if isinstance(bijection, ScopedPairs):
        return dict(bijection)
    return {(trace.scope, g): c for g, c in bijection.items()}


def _vertex_scope(trace: WLTrace, vertex: WLVertex) -> str:
    return vertex.scope or trace.scope


def record_vertices(trace: WLTrace, side: str) -> dict[tuple[str, Any], int]:
    """``(scope, record id) -> vertex`` of one side's records."""
    return {(_vertex_scope(trace, v), v.record_id): i for i, v in enumerate(trace.vertices)
            if v.side == side and v.kind == "record"}


def neighbourhood_vertices(trace: WLTrace, centres: Collection[int], hops: int,
                           bijection: Mapping[Any, Any]) -> list[int]:
    """The vertices within ``hops`` references of ``centres``, on both sides.

    The bijection partners of every record reached are added (and their own
    neighbourhoods), so a pair is never cut in half.

    Returns
    -------
    list of int
        Sorted vertex indices.
    """
    adjacent: dict[int, set[int]] = {i: set() for i in range(len(trace.vertices))}
    for e in trace.edges:
        adjacent[e.source].add(e.target)
        adjacent[e.target].add(e.source)
    for g, c in bijection_links(trace, bijection):
        adjacent[g].add(c)
        adjacent[c].add(g)
    reached = set(centres)
    frontier = set(centres)
    for _ in range(max(0, hops)):
        frontier = {n for v in frontier for n in adjacent[v]} - reached
        reached |= frontier
        # hubs stand for one reference: go through them without spending a hop
        hubs = {v for v in frontier if trace.vertices[v].kind == "hub"}
        while hubs:
            beyond = {n for v in hubs for n in adjacent[v]} - reached
            reached |= beyond
            frontier |= beyond
            hubs = {v for v in beyond if trace.vertices[v].kind == "hub"}
    partners = {n for v in reached for n in adjacent[v]
                if trace.vertices[v].kind == "record"
                and trace.vertices[n].side != trace.vertices[v].side}
    return sorted(reached | partners)


def subgraph(trace: WLTrace, keep: Sequence[int]) -> WLTrace:
    """The induced subgraph on the vertices ``keep`` (in that order), rounds included.

    Vertex ``k`` of the result is vertex ``keep[k]`` of ``trace``; the colours are the
    full graph's (a record keeps the class it has in the whole refinement).
    """
    new = {old: k for k, old in enumerate(keep)}
    vertices = [trace.vertices[old] for old in keep]
    vertices = [v if v.scope else WLVertex(v.side, v.key, v.record_index, v.record_id, v.kind,
                                           v.label, trace.scope) for v in vertices]
    edges = [WLEdge(e.side, new[e.source], new[e.target], e.relation, e.label)
             for e in trace.edges if e.source in new and e.target in new]
    rounds = [[colours[old] for old in keep] for colours in trace.rounds]
    return WLTrace(trace.scope, trace.mode, vertices, edges, rounds)


def stable_classes(rounds: Sequence[Sequence[int]]) -> list[list[int]]:
    """Renumber each round's colors so a class keeps its number until it splits.

    Parameters
    ----------
    rounds : sequence of sequences of int
        The WL color of every vertex per round.

    Returns
    -------
    list of list of int
        Per round, a display class per vertex. A new class number appears only
        where a previous class split.

    Examples
    --------
    >>> stable_classes([[0, 0, 0, 0], [1, 0, 0, 1], [2, 0, 1, 2]])
    [[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 2, 0]]
    """
    result: list[list[int]] = []
    next_id = 0
    for r, colors in enumerate(rounds):
        mapping: dict[int, int] = {}
        kept: set[int] = set()
        display: list[int] = []
        for v, color in enumerate(colors):
            if color not in mapping:
                parent = result[r - 1][v] if r else None
                if parent is not None and parent not in kept:
                    mapping[color] = parent
                    kept.add(parent)
                else:
                    mapping[color] = next_id
                    next_id += 1
            display.append(mapping[color])
        result.append(display)
    return result


@dataclass(frozen=True)
class RoundSummary:
    """What one round did.

    Parameters
    ----------
    index : int
        The round number.
    classes : int
        How many classes the round has.
    split : list of int
        Vertices whose display class changed in this round.
    """

    index: int
    classes: int
    split: list[int]


def summarize_rounds(display: Sequence[Sequence[int]]) -> list[RoundSummary]:
    """Class counts and the vertices each round separated."""
    summaries = []
    for r, classes in enumerate(display):
        split = [] if r == 0 else [v for v, c in enumerate(classes) if c != display[r - 1][v]]
        summaries.append(RoundSummary(r, len(set(classes)), split))
    return summaries


def layout(trace: WLTrace, bijection: Mapping[Any, Any]) -> list[tuple[float, float]]:
    """Positions of the union's vertices: gold spring layout, candidates mirrored.

    Parameters
    ----------
    trace : WLTrace
        The scope's refinement (vertices and edges).
    bijection : mapping gold id -> candidate id or None, or ScopedPairs
        Paired candidate records are placed level with their gold partner.

    Returns
    -------
    list of (x, y)
        One position per vertex; gold x in [0, 1], candidate x in [1 + gap, 2 + gap].
        Cached on the graph and the bijection.
    """
    vertices = tuple((v.side, v.kind, (_vertex_scope(trace, v), v.record_id))
                     for v in trace.vertices)
    edges = tuple((e.side, e.source, e.target) for e in trace.edges)
    pairs = tuple((g, (g[0], c)) for g, c in scoped_pairs(trace, bijection).items()
                  if c is not None)
    return _layout(vertices, edges, pairs)


@st.cache_data(max_entries=64, show_spinner=False)
def _layout(vertices: tuple[tuple[str, str, Any], ...], edges: tuple[tuple[str, int, int], ...],
            pairs: tuple[tuple[Any, Any], ...]) -> list[tuple[float, float]]:
    gold = [i for i, v in enumerate(vertices) if v[0] == "gold"]
    graph = nx.Graph()
    graph.add_nodes_from(gold)
    graph.add_edges_from((s, t) for side, s, t in edges if side == "gold" and s != t)
    positions: dict[int, tuple[float, float]] = {}
    # records without a reference in a row at the bottom: laid out with the rest, they
    # would stretch the drawing and squeeze the connected records together
    alone = [i for i in gold if graph.degree(i) == 0] if graph.number_of_edges() else []
    linked = [i for i in gold if i not in set(alone)]
    if linked:
        raw = nx.spring_layout(graph.subgraph(linked), seed=7,
                               k=1.6 / math.sqrt(len(linked)), iterations=60)
        xs = [float(raw[i][0]) for i in linked]
        ys = [float(raw[i][1]) for i in linked]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        low = 0.14 if alone else 0.0
        for i in linked:
            positions[i] = (_unit(float(raw[i][0]), x0, x1),
                            low + (1 - low) * _unit(float(raw[i][1]), y0, y1))
        if len(linked) <= CAPTION_LIMIT:
            _spread(positions, linked)
    for k, i in enumerate(alone):
        positions[i] = ((k + 0.5) / len(alone), 0.0)
    gold_by_id = {v[2]: i for i, v in enumerate(vertices) if v[0] == "gold" and v[1] == "record"}
    candidate_by_id = {v[2]: i for i, v in enumerate(vertices)
                       if v[0] == "candidate" and v[1] == "record"}
    offset = 1.0 + _GAP
    for gold_id, cand_id in pairs:
        if gold_id in gold_by_id and cand_id in candidate_by_id:
            gx, gy = positions[gold_by_id[gold_id]]
            positions[candidate_by_id[cand_id]] = (gx + offset, gy)
    loose = [i for i, v in enumerate(vertices)
             if v[0] == "candidate" and v[1] == "record" and i not in positions]
    for k, i in enumerate(loose):
        positions[i] = (offset + 1.15, 1.0 - (k + 0.5) / len(loose))
    neighbours: dict[int, list[int]] = {}
    for _, s, t in edges:
        neighbours.setdefault(s, []).append(t)
        neighbours.setdefault(t, []).append(s)
    hubs = [i for i, v in enumerate(vertices) if v[0] == "candidate" and v[1] == "hub"]
    for k, i in enumerate(hubs):
        placed = [positions[n] for n in neighbours.get(i, []) if n in positions]
        if placed:
            positions[i] = (sum(p[0] for p in placed) / len(placed) + 0.04,
                            sum(p[1] for p in placed) / len(placed) + 0.04)
        else:
            positions[i] = (offset + 1.3, 1.0 - (k + 0.5) / len(hubs))
    return [positions[i] for i in range(len(vertices))]


def _spread(positions: dict[int, tuple[float, float]], vertices: Sequence[int],
            gap: float = 0.13, rounds: int = 100) -> None:
    """Push apart records closer than ``gap`` (in drawn proportions: a side is about
    0.37 times as wide as tall), so labels and captions have room; stays in [0, 1]."""
    aspect = 0.37  # one layout unit across is drawn about 0.37 times as long as one down
    for _ in range(rounds):
        moved = False
        for a_index, a in enumerate(vertices):
            for b in vertices[a_index + 1:]:
                (ax, ay), (bx, by) = positions[a], positions[b]
                dx, dy = (bx - ax) * aspect, by - ay
                distance = math.hypot(dx, dy)
                if distance >= gap:
                    continue
                if distance < 1e-9:  # the same place: apart along a fixed direction
                    dx, dy, distance = 0.0, 1.0, 1.0
                push = (gap - distance) / 2 / distance
                positions[a] = (_clip(ax - dx * push / aspect), _clip(ay - dy * push))
                positions[b] = (_clip(bx + dx * push / aspect), _clip(by + dy * push))
                moved = True
        if not moved:
            return


def _clip(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def _unit(value: float, low: float, high: float) -> float:
    return 0.5 if high - low < 1e-12 else (value - low) / (high - low)


@dataclass(frozen=True)
class DrawnVertex:
    """A vertex of the union graph as every renderer draws it.

    The texts are raw (not escaped): each renderer escapes them for its medium.

    Parameters
    ----------
    index : int
        The vertex's index in ``trace.vertices``.
    side : str
        ``"gold"`` or ``"candidate"``.
    kind : str
        ``"record"`` or ``"hub"``.
    x, y : float
        Position from :func:`layout` (y grows upwards).
    label : str
        The record id drawn on the vertex (``""`` for hubs).
    name : str
        Display name (for hovering).
    caption : str
        Attribute summary shown under a record (``""`` when none).
    display_class : int
        Display class in the round shown.
    color : str
        The class's color (``#rrggbb``).
    text_color : str
        Black or white, whichever reads on ``color``.
    changed : bool
        Whether the round shown gave the vertex a new class (it is outlined).
    """

    index: int
    side: str
    kind: str
    x: float
    y: float
    label: str
    name: str
    caption: str
    display_class: int
    color: str
    text_color: str
    changed: bool = False


CHANGED_OUTLINE = "#d62728"  # the outline of a vertex the round shown recoloured


@dataclass(frozen=True)
class DrawnEdge:
    """A reference ``source -> target`` as every renderer draws it (raw texts).

    Parameters
    ----------
    source, target : int
        Vertex indices (equal for a self-reference).
    relation : str
        The relation in words, with the exact edge label in words (see
        :func:`relation_words`).
    hover : str
        ``source name → target name: relation``.
    """

    source: int
    target: int
    relation: str
    hover: str


def dense(trace: WLTrace) -> bool:
    """Whether the scope has more than :data:`CAPTION_LIMIT` records (drawn as small dots)."""
    return sum(1 for v in trace.vertices if v.kind == "record") > CAPTION_LIMIT


def figure_height(trace: WLTrace) -> int:
    """Height in pixels of the drawing of ``trace`` (taller when :func:`dense`)."""
    return 900 if dense(trace) else 540


def side_titles() -> list[tuple[str, float, float]]:
    """(text, x, y) of the side headings, in layout units."""
    return [("gold", 0.5, 1.14), ("candidate", 1.5 + _GAP, 1.14)]


def drawn_vertices(trace: WLTrace, positions: Sequence[tuple[float, float]],
                   classes: Sequence[int], names: Mapping[int, str],
                   captions: Mapping[int, str] | None = None,
                   changed: Collection[int] = ()) -> list[DrawnVertex]:
    """Every vertex with its place, texts and class color for one round.

    Parameters
    ----------
    trace : WLTrace
    positions : sequence of (x, y)
        From :func:`layout`.
    classes : sequence of int
        Display class per vertex for the round shown.
    names : mapping vertex index -> str
        Display names.
    captions : mapping vertex index -> str, optional
        Attribute summaries of the record vertices.
    changed : collection of int
        The vertices the round shown recoloured (drawn outlined).

    Returns
    -------
    list of DrawnVertex
        In vertex order.
    """
    changed = set(changed)
    out = []
    for i, v in enumerate(trace.vertices):
        color = class_color(classes[i])
        record = v.kind == "record"
        out.append(DrawnVertex(
            index=i, side=v.side, kind=v.kind, x=positions[i][0], y=positions[i][1],
            label=str(v.record_id) if record else "", name=names.get(i, "?"),
            caption=(captions or {}).get(i, "") if record else "",
            display_class=classes[i], color=color, text_color=text_color_on(color),
            changed=i in changed))
    return out


def drawn_edges(trace: WLTrace, names: Mapping[int, str]) -> list[DrawnEdge]:
    """Every reference edge with its (raw) relation and hover text, in trace order."""
    out = []
    for e in trace.edges:
        relation = relation_words(e.relation, e.label)
        out.append(DrawnEdge(e.source, e.target, relation,
                             f"{names.get(e.source, '?')} → {names.get(e.target, '?')}: "
                             f"{relation}"))
    return out


def bijection_links(trace: WLTrace, bijection: Mapping[Any, Any]) -> list[tuple[int, int]]:
    """(gold vertex, candidate vertex) of every pair of the bijection present in the graph.

    ``bijection`` is one scope's (gold id -> candidate id, for the trace's scope) or a
    :class:`ScopedPairs` covering every scope of a reference cycle's graph.
    """
    gold_at = record_vertices(trace, "gold")
    cand_at = record_vertices(trace, "candidate")
    return [(gold_at[key], cand_at[key[0], cand_id])
            for key, cand_id in scoped_pairs(trace, bijection).items()
            if key in gold_at and (key[0], cand_id) in cand_at]
