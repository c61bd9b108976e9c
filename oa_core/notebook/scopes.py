"""A scope's record pairing in a notebook: the bijection, the ties and what settled
them (:class:`~oa_core.scopes.ScopeAlignment`), and the reference graph by WL
round (:class:`~oa_core.wl.WLTrace`).

The graph is drawn as inline SVG (gold on the left, candidate on the right, each side
on a circle), every vertex filled with its colour class and labelled with its class
number; graphs over :data:`MAX_DRAWN` vertices are not drawn (the round table still
lists every vertex, paged).

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> alignment = oa_core.align(load("gold"), load("candidate"), load("schema"))
>>> page = scope_html(alignment.scopes["person"], alignment.wl["person"])
>>> "colour" in page and "<svg" in page
True
>>> [len(set(r)) for r in alignment.wl["person"].rounds]  # classes per round
[1, 4, 6]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from app.palette import class_color, text_color_on
from app.text import shorten

from ..kinds import TieRule
from .html import chip, esc, score_cell, table, view

if TYPE_CHECKING:
    from ..scopes import ScopeAlignment
    from ..wl import WLTrace

__all__ = ["MAX_DRAWN", "MAX_ROUNDS", "RULES", "graph_svg", "round_html", "scope_html",
           "shown_rounds", "splits", "wl_html"]

MAX_DRAWN = 80
"""Vertices of a reference graph drawn at most (past that, the table only)."""

_RADIUS = 13  # a vertex's circle in the drawing

MAX_ROUNDS = 8
"""Rounds a WL view shows one by one at most: the first ones and the last (a long
chain of records refines in as many rounds as half its length)."""

RULES = {
    TieRule.ATTRIBUTES: "the records' own score C decided (no tie)",
    TieRule.COLOUR: "a tie in C, settled by equal stable WL colours (the paper's bonus)",
    TieRule.DEPTH: "a tie in C and in the stable colours, settled by the share of WL "
                   "rounds in which the colours agreed",
    TieRule.CONTENT: "no structure told them apart: the documented content rule "
                     "(the records' canonical JSON) decided",
    TieRule.POSITION: "wl_mode 'none': twins paired by their list order",
}
"""What each tie rule means, in words."""


def _record(ids: list[object], paths: list[str], k: int) -> str:
    return f"{esc(shorten(str(ids[k]), 30))} <span class=\"muted\">{esc(paths[k])}</span>"


def _bijection(scope: ScopeAlignment) -> str:
    twins = set(scope.structural_pairs)
    label_ties = set(scope.label_ties)
    rows = []
    for i, j in scope.pairs:
        rule = scope.rules.get((i, j))
        notes = (["twin"] if (i, j) in twins else []) + (
            ["label tie"] if (i, j) in label_ties else [])
        rows.append([_record(scope.gold_ids, scope.gold_paths, i), "↔",
                     _record(scope.candidate_ids, scope.candidate_paths, j),
                     score_cell(float(scope.matrix[i, j])),
                     esc(rule.value if rule is not None else ""), esc(", ".join(notes))])
    paired_gold = {i for i, _ in scope.pairs}
    paired_cand = {j for _, j in scope.pairs}
    rows += [[_record(scope.gold_ids, scope.gold_paths, i), "−",
              '<span class="muted">(no partner: missing)</span>', "<td></td>", "", ""]
             for i in range(len(scope.gold_ids)) if i not in paired_gold]
    rows += [['<span class="muted">(no partner: excess)</span>', "+",
              _record(scope.candidate_ids, scope.candidate_paths, j), "<td></td>", "", ""]
             for j in range(len(scope.candidate_ids)) if j not in paired_cand]
    return table(["gold record", "", "candidate record", "C", "decided by", "note"], rows,
                 noun="records")


def _ties(scope: ScopeAlignment) -> str:
    counts: dict[TieRule, int] = {}
    for rule in scope.rules.values():
        counts[rule] = counts.get(rule, 0) + 1
    items = [f"<li><b>{esc(rule.value)}</b> ({count} pair{'s' * (count != 1)}): "
             f"{esc(RULES[rule])}</li>" for rule, count in sorted(counts.items())]
    twins = (f"<p>{len(scope.structural_pairs)} twin pair(s): their gold row of C ties "
             "exactly with another paired row, so only structure (or, with WL off, the "
             "list order) tells them apart.</p>" if scope.structural_pairs else
             "<p>No twins: every pair is told apart by the records' own content.</p>")
    labels = ""
    if scope.label_ties or scope.label_designations:
        labels = ('<p class="warn">Only the id labels told these apart (interchangeable '
                  "records, or a damaged candidate): there the score may follow the labels. "
                  + esc(", ".join([f"{scope.gold_paths[i]} ↔ {scope.candidate_paths[j]}"
                                   for i, j in scope.label_ties]
                                  + scope.label_designations)) + "</p>")
    return f"{twins}<ul>{''.join(items)}</ul>{labels}"


def scope_html(scope: ScopeAlignment, trace: WLTrace | None = None, *,
               inner: bool = False) -> str:
    """The bijection, the ties and (with its ``trace``) the WL rounds of one scope.

    ``inner``: the body only, to go inside another view.
    """
    head = (f"<p>Scope <b>{esc(scope.name)}</b>: {len(scope.gold_ids)} gold and "
            f"{len(scope.candidate_ids)} candidate records, {len(scope.pairs)} pairs; "
            f"wl_mode <code>{esc(scope.mode)}</code>"
            f"{' (in a reference cycle)' if scope.cyclic else ''}.</p>")
    body = (head + "<h4>Bijection</h4>" + _bijection(scope) + "<h4>Ties and how they "
            "were settled</h4>" + _ties(scope)
            + (wl_html(trace, inner=True) if trace is not None else ""))
    return body if inner else view(body, label=f"scope {scope.name}")


def splits(trace: WLTrace, round_index: int) -> list[tuple[int, list[int]]]:
    """The classes of round ``round_index - 1`` that round ``round_index`` split:
    ``(old class, [new classes])``, in class order.

    >>> from oa_core.wl import WLTrace
    >>> splits(WLTrace("s", "tie_break", [], [], [[0, 0, 1], [0, 1, 2]]), 1)
    [(0, [0, 1])]
    """
    if round_index <= 0:
        return []
    before, after = trace.rounds[round_index - 1], trace.rounds[round_index]
    into: dict[int, set[int]] = {}
    for old, new in zip(before, after, strict=True):
        into.setdefault(old, set()).add(new)
    return [(old, sorted(new)) for old, new in sorted(into.items()) if len(new) > 1]


def _layout(trace: WLTrace) -> list[tuple[float, float]]:
    """Each side's vertices on a circle (gold left, candidate right), in order."""
    sides = {"gold": [k for k, v in enumerate(trace.vertices) if v.side == "gold"],
             "candidate": [k for k, v in enumerate(trace.vertices) if v.side != "gold"]}
    where = [(0.0, 0.0)] * len(trace.vertices)
    for centre, members in ((170.0, sides["gold"]), (510.0, sides["candidate"])):
        radius = 40.0 + 11.0 * len(members)
        radius = min(radius, 140.0)
        for n, k in enumerate(members):
            angle = 2 * math.pi * n / max(len(members), 1) - math.pi / 2
            where[k] = (centre + radius * math.cos(angle), 170.0 + radius * math.sin(angle))
    return where


def _vertex_name(trace: WLTrace, k: int) -> str:
    vertex = trace.vertices[k]
    if vertex.kind == "hub":
        return "hub"
    return shorten(str(vertex.record_id), 8) if vertex.record_id is not None else str(k)


def _edge(source: tuple[float, float], target: tuple[float, float]) -> str:
    """A line with its arrowhead drawn as a triangle whose tip touches the target's
    circle (an SVG marker would be shared by id across the page's graphs, and one in a
    closed ``<details>`` is not drawn); a self-loop as a small ring above the vertex."""
    (x1, y1), (x2, y2) = source, target
    length = math.hypot(x2 - x1, y2 - y1)
    if length < _RADIUS:
        return (f'<circle cx="{x1:.1f}" cy="{y1 - _RADIUS - 6:.1f}" r="7" fill="none" '
                f'stroke="#999" stroke-width="1.3"/>')
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    tip_x, tip_y = x2 - _RADIUS * ux, y2 - _RADIUS * uy
    base_x, base_y = tip_x - 9 * ux, tip_y - 9 * uy
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in (
        (tip_x, tip_y), (base_x - 4 * uy, base_y + 4 * ux), (base_x + 4 * uy, base_y - 4 * ux)))
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{base_x:.1f}" y2="{base_y:.1f}" '
            f'stroke="#999" stroke-width="1.3"/><polygon points="{corners}" fill="#999"/>')


def graph_svg(trace: WLTrace, round_index: int = -1) -> str:
    """The reference graph at one round as inline SVG ("" over :data:`MAX_DRAWN`)."""
    if len(trace.vertices) > MAX_DRAWN:
        return ""
    colours = trace.rounds[round_index]
    where = _layout(trace)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 680 350" width="680" '
             'height="350" role="img" aria-label="reference graph">'
             '<text x="170" y="16" text-anchor="middle" fill="currentColor">gold</text>'
             '<text x="510" y="16" text-anchor="middle" fill="currentColor">candidate</text>']
    for edge in trace.edges:
        parts.append(f"<g><title>{esc(edge.relation)} {esc(edge.label)}</title>"
                     f"{_edge(where[edge.source], where[edge.target])}</g>")
    for k, (x, y) in enumerate(where):
        fill = class_color(colours[k])
        vertex = trace.vertices[k]
        parts.append(f'<g><title>{esc(vertex.side)} {esc(vertex.key)}: '
                     f"{esc(shorten(vertex.label, 120))} (class {colours[k]})</title>"
                     f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_RADIUS}" fill="{fill}" '
                     f'stroke="#444"/><text x="{x:.1f}" y="{y + 4:.1f}" font-size="11" '
                     f'text-anchor="middle" fill="{text_color_on(fill)}">{colours[k]}</text>'
                     f'<text x="{x:.1f}" y="{y + 27:.1f}" font-size="10" text-anchor="middle" '
                     f'fill="currentColor">{esc(_vertex_name(trace, k))}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def round_html(trace: WLTrace, round_index: int) -> str:
    """One WL round: its classes, the classes it split and the graph coloured by it."""
    count = len(trace.rounds)
    index = round_index % count
    classes = len(set(trace.rounds[index]))
    what = ("every vertex starts in one class (the attributes are not used in "
            "tie-break mode)" if index == 0 and classes == 1 else
            "the starting colours" if index == 0 else
            "split: " + "; ".join(f"{old} → {', '.join(map(str, new))}"
                                  for old, new in splits(trace, index)))
    stable = " — stable (the last round)" if index == count - 1 else ""
    svg = graph_svg(trace, index)
    drawn = svg or (f'<p class="muted">{len(trace.vertices)} vertices: over {MAX_DRAWN}, '
                    "the graph is not drawn (the table lists every vertex).</p>")
    return (f"<p><b>Round {index}</b> of {count - 1}: {classes} classes{stable}. "
            f"{esc(what)}.</p>{drawn}")


def shown_rounds(trace: WLTrace) -> list[int]:
    """The rounds a view shows: all of them up to :data:`MAX_ROUNDS`, else the first
    ``MAX_ROUNDS - 1`` and the last (stable) one.

    >>> from oa_core.wl import WLTrace
    >>> shown_rounds(WLTrace("s", "tie_break", [], [], [[0]] * 20))
    [0, 1, 2, 3, 4, 5, 6, 19]
    """
    count = len(trace.rounds)
    if count <= MAX_ROUNDS:
        return list(range(count))
    return [*range(MAX_ROUNDS - 1), count - 1]


def wl_html(trace: WLTrace, *, inner: bool = False) -> str:
    """The rounds of a WL trace: classes per round, the graph by round, and each
    vertex's colour class round by round (paged; past :data:`MAX_ROUNDS` rounds, the
    first ones and the last)."""
    counts = " → ".join(str(len(set(r))) for r in trace.rounds)
    chosen = shown_rounds(trace)
    left_out = len(trace.rounds) - len(chosen)
    head = (f"<h4>WL refinement of <code>{esc(trace.scope)}</code> "
            f"({esc(trace.mode)})</h4><p>{len(trace.vertices)} vertices, "
            f"{len(trace.edges)} edges; classes by round: {counts}. Gold and candidate are "
            "refined together, so equal classes are comparable across the sides.</p>")
    rounds = [round_html(trace, chosen[-1])]
    rounds += [f"<details><summary>round {index}</summary>{round_html(trace, index)}"
               "</details>" for index in chosen[:-1]]
    if left_out:
        rounds.append(f'<p class="muted">Rounds {chosen[-2] + 1} to {chosen[-1] - 1} are '
                      "not shown one by one: read them from <code>trace.rounds</code>.</p>")
    rows = [[esc(v.side), f"<code>{esc(v.key)}</code>", esc(shorten(v.label, 60)),
             *(chip(trace.rounds[r][k]) for r in chosen)] for k, v in enumerate(trace.vertices)]
    header = ["side", "record", "content", *(f"round {r}" for r in chosen)]
    body = head + "".join(rounds) + "<h4>Colour classes by round</h4>" + table(
        header, rows, noun="vertices")
    return body if inner else view(body, label=f"WL trace {trace.scope}")
