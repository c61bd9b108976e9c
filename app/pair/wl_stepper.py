"""The WL graph with every round in the browser: a step recolours, nothing reruns.

:func:`stepper_html` builds one self-contained page (SVG drawn by a small script,
no library, nothing fetched) holding the drawing of :mod:`app.pair.wl_graph` and, per
round, the vertices' classes and colours, the round's summary, its class key and its
signature table. The round controls (Back, Next, Play, a range input) only switch
what is shown, so a step costs a few dozen attribute changes instead of a script run
and a redrawn chart.

The round is kept in the page's URL (parameter :data:`URL_PARAM`, absent at the
stable round): the frame is same-origin (``st.iframe`` of an HTML string), so its
script rewrites the parent's address with ``history.replaceState`` on every step, and
writes it again should Streamlit rewrite the address from its own copy of the
parameters. A copied link therefore reopens at the round shown.

Escaping: every text (record ids, names, property names, captions) travels as JSON in
a ``<script type="application/json">`` whose ``<``, ``>`` and ``&`` are written as
``\\u003c``... escapes, and the script puts it in the page with ``textContent`` only.

Colours follow the Streamlit theme (:data:`THEMES`): the headings, the class numbers,
the edges and their labels use the theme's text colour on its background.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from oa_core.wl import WLTrace

from ..palette import class_color, text_color_on
from .wl_graph import (
    CHANGED_OUTLINE,
    DIVIDER_X,
    bijection_links,
    dense,
    drawn_edges,
    figure_height,
    relation_words,
    side_titles,
)

__all__ = ["THEMES", "URL_PARAM", "RoundView", "Story", "Theme", "frame_height", "payload",
           "read_payload", "stepper_html"]

URL_PARAM = "wl_round"
"""The URL parameter holding the round shown (absent at the stable round)."""

EDGE_LABEL_LIMIT = 80  # up to this many references: each is labelled with its property
_X_RANGE = (-0.15, 2.65 + (DIVIDER_X - 1.0) * 2)  # layout units shown (as wl_graph)
_Y_RANGE = (-0.12, 1.22)


@dataclass(frozen=True)
class Theme:
    """The colours of one Streamlit theme, as the graph uses them.

    Parameters
    ----------
    background, text, muted, edge, pair, outline : str
        Page background, headings and labels, class numbers and captions, reference
        lines and arrows, the bijection's dashed links, record outlines.
    highlight : str
        The ring around the records of the pair a story shows.
    """

    background: str
    text: str
    muted: str
    edge: str
    pair: str
    outline: str
    highlight: str


THEMES: dict[str, Theme] = {
    "light": Theme("#ffffff", "#1b1f24", "#444a55", "#555b66", "#b0b4bb", "#222222",
                   "#0b5cad"),
    "dark": Theme("#0f1217", "#e6e9ef", "#b8bfcc", "#aab2c0", "#5d6573", "#e6e9ef",
                  "#6cb4ff"),
}
"""The explorer's two themes (``.streamlit/config.toml``)."""


@dataclass(frozen=True)
class RoundView:
    """What the page shows for one round besides the colours.

    Parameters
    ----------
    summary : str
        ``Round 1 of 2: 4 classes (not yet stable). ...`` (plain text).
    changed : list of int
        Vertices the round recoloured (outlined).
    key : list of list of str
        The class key: class number, colour, gold members, candidate members, note.
    signature_columns : list of str
    signatures : list of list of str
        The round's signature table (see :func:`app.pair.scope_views.signature_frame`).
    note : str
        What the signature table means for this round.
    """

    summary: str
    changed: list[int]
    key: list[list[str]]
    signature_columns: list[str]
    signatures: list[list[str]]
    note: str


@dataclass(frozen=True)
class Story:
    """Why one pair was chosen, step by step, and what to highlight on the graph.

    Parameters
    ----------
    title : str
        ``gold 4 (Dave, Engineer) → candidate 92 (Dave, Engineer)``.
    steps : list of (str, str)
        (step, what it found) in the order the rules apply: attributes (C), colours
        (b), depth (a), content rule; the last one decided.
    pair : list of int
        The pair's gold and candidate vertices (empty when not in the graph).
    rivals : list of int
        The vertices of the records it tied with and their partners.
    round : int or None
        The round to show with the story (the first where structure told it apart).
    """

    title: str
    steps: list[tuple[str, str]]
    pair: list[int]
    rivals: list[int]
    round: int | None


def graph_height(trace: WLTrace) -> int:
    """Height in pixels of the drawing: room for the edge labels between the records."""
    return figure_height(trace) + (0 if dense(trace) else 160)


def frame_height(trace: WLTrace, rounds: Sequence[RoundView], stories: int) -> int:
    """The frame's starting height in pixels (the script fits it to its content)."""
    classes = max((len(r.key) for r in rounds), default=1)
    return graph_height(trace) + 150 + 22 * min(classes, 12) + (40 if stories else 0)


def _x(x: float) -> float:
    """A layout x as a share of the drawing's width (the script scales it in pixels)."""
    return round((x - _X_RANGE[0]) / (_X_RANGE[1] - _X_RANGE[0]), 4)


def _y(y: float, height: float) -> float:
    return round((_Y_RANGE[1] - y) / (_Y_RANGE[1] - _Y_RANGE[0]) * height, 1)


def payload(trace: WLTrace, positions: Sequence[tuple[float, float]],
            display: Sequence[Sequence[int]], bijection: Mapping[Any, Any],
            names: Mapping[int, str], rounds: Sequence[RoundView], *,
            captions: Mapping[int, str] | None = None, show_pairs: bool = True,
            start: int | None = None, follow_url: bool = True, theme: str = "light",
            stories: Sequence[Story] = (), graph: str = "") -> dict[str, Any]:
    """Everything the page draws, as JSON-ready data (see :func:`stepper_html`).

    Parameters
    ----------
    trace : WLTrace
    positions : sequence of (x, y)
        From :func:`app.pair.wl_graph.layout`.
    display : sequence of sequences of int
        Display classes per round (:func:`app.pair.wl_graph.stable_classes`).
    bijection : mapping
        The pairs (see :func:`app.pair.wl_graph.bijection_links`).
    names : mapping vertex index -> str
        Display names (raw text).
    rounds : sequence of RoundView
        One per round, in order.
    captions : mapping vertex index -> str, optional
        Attribute summaries drawn under the records (not on a dense graph).
    show_pairs : bool
        Draw the bijection as dashed links.
    start : int, optional
        The round shown first (default the last, stable one).
    follow_url : bool
        Whether the round the browser last showed for this ``graph`` (or, in a new
        tab, the round in its URL) wins over ``start``; False right after the graph
        changed.
    theme : str
        ``"light"`` or ``"dark"`` (:data:`THEMES`).
    stories : sequence of Story
        The decided pairs' stories, listed under the graph.
    graph : str
        Names the refinement drawn: a frame redrawn for the same graph (another
        option changed) keeps the round the user stepped to.
    """
    height = float(graph_height(trace))
    small = dense(trace)
    last = len(display) - 1
    vertices = []
    for i, v in enumerate(trace.vertices):
        x, y = positions[i]
        record = v.kind == "record"
        vertices.append({
            "x": _x(x), "y": _y(y, height), "kind": v.kind, "side": v.side,
            "label": str(v.record_id) if record else "", "name": names.get(i, "?"),
            "caption": (captions or {}).get(i, "") if record and not small else ""})
    edges = [{"s": e.source, "t": e.target, "label": relation_words(edge.relation),
              "hover": e.hover} for e, edge in zip(drawn_edges(trace, names), trace.edges,
                                                   strict=True)]
    colours = []
    for classes in display:
        fills = [class_color(c) for c in classes]
        colours.append({"classes": list(classes), "fill": fills,
                        "ink": [text_color_on(f) for f in fills]})
    return {
        "param": URL_PARAM, "last": last, "follow_url": follow_url, "graph": graph,
        "start": last if start is None else min(max(int(start), 0), last),
        "height": height, "dense": small,
        "edge_labels": len(edges) <= EDGE_LABEL_LIMIT and not small,
        "theme": vars(THEMES.get(theme, THEMES["light"])), "changed_outline": CHANGED_OUTLINE,
        "vertices": vertices, "edges": edges,
        "links": [list(p) for p in bijection_links(trace, bijection)] if show_pairs else [],
        "titles": [[text, _x(x), _y(y, height)] for text, x, y in side_titles()],
        "divider": _x(DIVIDER_X),
        "colours": colours,
        "rounds": [vars(r) for r in rounds],
        "stories": [vars(s) for s in stories],
    }


_SCRIPT_TEXT = re.compile(r"[<>&\u2028\u2029]")


def _json_for_script(data: Any) -> str:
    """JSON that cannot end its ``<script>`` element (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return _SCRIPT_TEXT.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


_DATA = re.compile(r'<script type="application/json" id="oa-wl-data">(.*?)</script>',
                   re.DOTALL)


def read_payload(html: str) -> dict[str, Any]:
    """The data a page from :func:`stepper_html` draws (for tests and checks).

    Examples
    --------
    >>> read_payload(stepper_html({"names": ["</script><b>x</b>"]}))
    {'names': ['</script><b>x</b>']}
    """
    found = _DATA.search(html)
    if found is None:
        raise ValueError("not a WL stepper page")
    return json.loads(found[1])  # type: ignore[no-any-return]


def stepper_html(data: Mapping[str, Any]) -> str:
    """The self-contained page drawing ``data`` (from :func:`payload`).

    Examples
    --------
    >>> page = stepper_html({"names": ["<img src=x onerror=alert(1)>"]})
    >>> "<img" in page, "://" in page
    (False, False)
    """
    head = _PAGE_HEAD.replace("{script_hash}", _script_hash())
    return (head + '<script type="application/json" id="oa-wl-data">'
            + _json_for_script(dict(data)) + "</script><script>" + _SCRIPT + "</script>"
            "</body></html>")


@functools.cache
def _script_hash() -> str:
    """The CSP source of the page's one script: nothing else may run in the frame."""
    digest = hashlib.sha256(_SCRIPT.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


_PAGE_HEAD = """<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none';
 script-src {script_hash}; style-src 'unsafe-inline'">
<style>
html,body{margin:0;padding:0;font-family:"Source Sans Pro",sans-serif;font-size:14px}
body{background:var(--bg);color:var(--fg)}
#controls{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:2px 0 6px 0}
#controls button{font:inherit;padding:4px 10px;border-radius:6px;cursor:pointer;
 background:var(--bg);color:var(--fg);border:1px solid var(--muted)}
#controls button:disabled{opacity:0.4;cursor:default}
#controls input[type=range]{flex:1;min-width:160px;accent-color:var(--hl)}
#graph svg{display:block}
#stories{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:8px}
#stories>h4,#stories>p{grid-column:1/-1;margin-bottom:0}
.story{border:1px solid var(--pair);border-radius:8px;padding:6px 8px}
.story.on{border-color:var(--hl);box-shadow:0 0 0 2px var(--hl) inset}
.story button{font:inherit;font-weight:600;text-align:left;background:none;border:none;
 color:var(--fg);cursor:pointer;padding:0;width:100%}
.story ol{margin:4px 0 0 0;padding-left:18px}
.story li b{font-weight:600}
.story li.decided{color:var(--hl)}
#summary{margin:6px 0}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;border-bottom:1px solid var(--muted)}
td{border-top:1px solid var(--pair);padding:2px 4px;vertical-align:top}
.swatch{display:inline-block;width:13px;height:13px;border-radius:7px;
 border:1px solid var(--outline);vertical-align:-2px;margin-right:4px}
details{margin-top:8px} summary{cursor:pointer;font-weight:600}
h4{margin:10px 0 4px 0;font-size:15px}
.note{color:var(--muted);font-size:13px;margin:4px 0}
tr.fresh td{font-weight:600}
</style></head><body>
<div id="controls">
 <button id="back" type="button" title="the round before">◀ Back</button>
 <button id="next" type="button" title="the next round">Next ▶</button>
 <button id="play" type="button" title="every round from round 0, one a second">▶ Play</button>
 <input id="round" type="range" min="0" step="1" aria-label="WL round">
 <span id="round-label"></span>
</div>
<div id="graph"></div><div id="stories"></div>
<div id="summary" role="status"></div>
<h4>Key: the classes of this round</h4><div id="key"></div>
<details id="sig"><summary>How this round was computed (signatures)</summary>
<p class="note" id="sig-note"></p><div id="sig-table"></div></details>
"""

_SCRIPT = r"""
(() => {
"use strict";
const D = JSON.parse(document.getElementById("oa-wl-data").textContent);
if (!D.vertices) return;
const T = D.theme, SVG = "http\u003a//www.w3.org/2000/svg";
const root = document.documentElement.style;
[["--bg", T.background], ["--fg", T.text], ["--muted", T.muted], ["--pair", T.pair],
 ["--outline", T.outline], ["--hl", T.highlight], ["--graph-h", D.height + "px"]]
  .forEach(([k, v]) => root.setProperty(k, v));
const el = (tag, attrs, parent) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
};
const html = (tag, text, parent) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
};
// x comes as a share of the width: drawn at the frame's width, texts keep their size
const WIDTH = Math.max(document.getElementById("graph").clientWidth, 320);
const PAD = Math.min(150, WIDTH / 6);  // room for the captions beside the outer records
const sx = share => PAD + share * (WIDTH - 2 * PAD);
D.vertices.forEach(v => { v.x = sx(v.x); });
D.titles.forEach(t => { t[1] = sx(t[1]); });
D.divider = sx(D.divider);
const svg = el("svg", {width: WIDTH, height: D.height, role: "img",
  "aria-label": "WL reference graph, gold left, candidate right"});
document.getElementById("graph").appendChild(svg);
if (!D.stories.length) document.getElementById("stories").style.display = "none";
const defs = el("defs", {}, svg);
const arrow = el("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
  markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse"}, defs);
el("path", {d: "M0,0 L10,5 L0,10 z", fill: T.edge}, arrow);
const R = D.dense ? 5 : 17, HUB = D.dense ? 3 : 6;
const V = D.vertices;
const radius = i => V[i].kind === "hub" ? HUB : R;
const gLinks = el("g", {}, svg), gEdges = el("g", {}, svg), gLabels = el("g", {}, svg);
const gNodes = el("g", {}, svg), gText = el("g", {}, svg);
el("line", {x1: D.divider, x2: D.divider, y1: 0, y2: D.height, stroke: T.pair,
  "stroke-dasharray": "6 5"}, svg);
for (const [text, x, y] of D.titles) {
  const t = el("text", {x, y: Math.max(y, 18), "text-anchor": "middle", "font-size": 17,
    "font-weight": 700, fill: T.text, class: "heading"}, svg);
  t.textContent = text;
}
for (const [g, c] of D.links) {
  el("line", {x1: V[g].x, y1: V[g].y, x2: V[c].x, y2: V[c].y, stroke: T.pair,
    "stroke-width": 1.2, "stroke-dasharray": "3 4"}, gLinks);
}
// Labels are kept off the arrowheads (near the target) and off each other: each is
// tried at the middle of its edge, then moved along the edge and to either side.
const placed = [];
const free = (b) => placed.every(p => b.x + b.w < p.x || p.x + p.w < b.x
                                   || b.y + b.h < p.y || p.y + p.h < b.y);
// a record's caption sits beside it, on the outer side (left of gold, right of candidate)
const outward = v => v.side === "gold" ? -1 : 1;
V.forEach((v, i) => {
  const r = radius(i);
  placed.push({x: v.x - r - (outward(v) < 0 ? 0 : 44), y: v.y - r, w: 2 * r + 44, h: 2 * r});
  if (v.caption && !D.dense) {
    const w = 5.8 * v.caption.length;
    placed.push({x: outward(v) < 0 ? v.x - r - 4 - w : v.x + r + 4, y: v.y - 7, w, h: 14});
  }
});
const label = (text, hover, points, nx, ny) => {
  const t = el("text", {"font-size": 11, fill: T.text, "text-anchor": "middle",
    "paint-order": "stroke", stroke: T.background, "stroke-width": 3, class: "edge-label"},
    gLabels);
  t.textContent = text;
  const title = el("title", {}, t); title.textContent = hover;
  const w = 6 * text.length + 4, h = 13;
  // along the edge, then beside it: the first place that covers no record, caption,
  // class number or other label; else the middle
  const side = Math.abs(nx) * (w / 2 + 8) + Math.abs(ny) * (h / 2 + 6);
  const tries = [];
  for (const [cx, cy] of points)
    for (const off of [0, side, -side, side + 14, -side - 14])
      tries.push([cx + nx * off, cy + ny * off]);
  const box = ([x, y]) => ({x: x - w / 2, y: y - h / 2, w, h});
  const at = tries.find(p => free(box(p)));
  if (!at) {  // no room: the label would cover a record or a label; hovering tells it
    t.remove();
    hidden += 1;
    return;
  }
  t.setAttribute("x", at[0].toFixed(1)); t.setAttribute("y", (at[1] + 4).toFixed(1));
  placed.push(box(at));
};
let hidden = 0;
const loops = {};
for (const e of D.edges) {
  const a = V[e.s], b = V[e.t];
  let line;
  if (e.s === e.t) {  // a self-loop to the upper right, clear of the class number above
    const k = (loops[e.s] = (loops[e.s] || 0) + 1), r = radius(e.s);
    const s = (1 + 0.45 * (k - 1)) * Math.max(r, 8) / 17;  // the loop's size follows the record's
    const x0 = a.x + r * 0.7, y0 = a.y - r * 0.7, x1 = a.x + r, y1 = a.y;
    line = el("path", {d: `M${x0},${y0} C${x0 + 30 * s},${y0 - 30 * s} ${x1 + 38 * s},${y1 - 6}`
      + ` ${x1},${y1}`, fill: "none", stroke: T.edge, "stroke-width": 1.4,
      "marker-end": "url(#arrow)"}, gEdges);
    if (D.edge_labels) label(e.label, e.hover, [[x1 + 30 * s, y0 - 14 * s]], 0, -1);
  } else {
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len, ra = radius(e.s), rb = radius(e.t) + 2;
    line = el("line", {x1: a.x + ux * ra, y1: a.y + uy * ra, x2: b.x - ux * rb,
      y2: b.y - uy * rb, stroke: T.edge, "stroke-width": 1.4, "marker-end": "url(#arrow)"},
      gEdges);
    if (D.edge_labels) {
      let nx = -uy, ny = ux;
      if (ny > 0) { nx = -nx; ny = -ny; }  // first try above the line
      // the arrowhead is at the target end: labels stay in the first two thirds
      label(e.label, e.hover, [0.45, 0.32, 0.6].map(f => [a.x + dx * f, a.y + dy * f]), nx, ny);
    }
  }
  const title = el("title", {}, line); title.textContent = e.hover;
}
if (hidden) {
  const note = el("text", {x: 4, y: D.height - 6, "font-size": 11, fill: T.muted}, svg);
  note.textContent = `${hidden} edge label${hidden > 1 ? "s" : ""} left out where `
    + "there is no room: hover an edge for its property";
}
const shapes = [], ids = [], classTexts = [], rings = [];
V.forEach((v, i) => {
  const ring = el("circle", {cx: v.x, cy: v.y, r: radius(i) + 7, fill: "none",
    stroke: T.highlight, "stroke-width": 0, class: "ring"}, gNodes);
  rings.push(ring);
  const shape = v.kind === "hub"
    ? el("rect", {x: v.x - HUB, y: v.y - HUB, width: 2 * HUB, height: 2 * HUB}, gNodes)
    : el("circle", {cx: v.x, cy: v.y, r: R}, gNodes);
  shape.setAttribute("class", "vertex");
  shape.dataset.vertex = i;
  const title = el("title", {}, shape); shape._title = title;
  shapes.push(shape);
  if (v.kind === "record" && !D.dense) {
    const t = el("text", {x: v.x, y: v.y + 4, "text-anchor": "middle", "font-size": 12,
      "pointer-events": "none"}, gText);
    t.textContent = v.label.length > 6 ? v.label.slice(0, 5) + "…" : v.label;
    ids.push(t);
    // the class number beside the record, on the inner side: above and below it stay
    // free for the arrows
    const c = el("text", {x: v.x - outward(v) * (R + 3), y: v.y - R + 4, "font-size": 11,
      "text-anchor": outward(v) < 0 ? "start" : "end",
      class: "class-number", "paint-order": "stroke", stroke: T.background,
      "stroke-width": 3}, gText);
    classTexts.push(c);
    if (v.caption) {
      const cap = el("text", {x: v.x + outward(v) * (R + 4), y: v.y + 4,
        "text-anchor": outward(v) < 0 ? "end" : "start",
        "font-size": 11, fill: T.muted, "paint-order": "stroke", stroke: T.background,
        "stroke-width": 3}, gText);
      cap.textContent = v.caption;
    }
  } else { ids.push(null); classTexts.push(null); }
});

const range = document.getElementById("round");
const back = document.getElementById("back"), next = document.getElementById("next");
const play = document.getElementById("play");
range.max = D.last;
range.disabled = D.last === 0;
let current = -1, timer = null, story = -1;

const keyTable = (rows, fresh) => {
  const table = html("table");
  const head = html("tr", undefined, html("thead", undefined, table));
  ["class", "gold", "candidate"].forEach(h => html("th", h, head));
  const body = html("tbody", undefined, table);
  for (const [cls, colour, gold, cand, note] of rows) {
    const tr = html("tr", undefined, body);
    if (note.includes("new")) tr.className = "fresh";
    const td = html("td", undefined, tr);
    const sw = html("span", undefined, td); sw.className = "swatch";
    sw.style.background = colour;
    td.appendChild(document.createTextNode(cls + (note ? " " + note : "")));
    html("td", gold, tr); html("td", cand, tr);
  }
  return table;
};
const plainTable = (columns, rows) => {
  const table = html("table");
  const head = html("tr", undefined, html("thead", undefined, table));
  columns.forEach(h => html("th", h, head));
  const body = html("tbody", undefined, table);
  for (const row of rows) {
    const tr = html("tr", undefined, body);
    row.forEach(cell => html("td", cell, tr));
  }
  return table;
};
const sig = document.getElementById("sig");
const drawSignatures = () => {
  const target = document.getElementById("sig-table");
  target.replaceChildren();
  if (!sig.open || current < 0) return;
  const r = D.rounds[current];
  document.getElementById("sig-note").textContent = r.note;
  target.appendChild(plainTable(r.signature_columns, r.signatures));
};
sig.addEventListener("toggle", () => { drawSignatures(); fit(); });

const writeUrl = () => {
  try {
    const w = window.parent, url = new URL(w.location.href);
    if (current === D.last) url.searchParams.delete(D.param);
    else url.searchParams.set(D.param, String(current));
    if (url.href !== w.location.href) w.history.replaceState(w.history.state, "", url.href);
  } catch (err) { /* not same-origin (a saved page): the round stays local */ }
};
// The frame takes its content's height (a round's key, opened signatures), and so
// does Streamlit's element around it, which otherwise keeps the height first given.
const fit = () => {
  try {
    const frame = window.frameElement;
    if (!frame) return;
    const height = Math.ceil(document.body.getBoundingClientRect().height) + 16 + "px";
    frame.style.height = height;
    if (frame.parentElement) frame.parentElement.style.height = height;
  } catch (err) { /* not same-origin */ }
};

const show = (r) => {
  r = Math.min(Math.max(r, 0), D.last);
  if (r === current) return;
  current = r;
  const c = D.colours[r], info = D.rounds[r], changed = new Set(info.changed);
  V.forEach((v, i) => {
    const s = shapes[i], fresh = changed.has(i);
    s.setAttribute("fill", c.fill[i]);
    s.setAttribute("stroke", fresh ? D.changed_outline : T.outline);
    s.setAttribute("stroke-width", fresh ? 4 : 1);
    s._title.textContent = `${v.side} ${v.name}\nclass ${c.classes[i]}`
      + (fresh ? " (new in this round)" : "") + (v.caption ? "\n" + v.caption : "");
    if (ids[i]) ids[i].setAttribute("fill", c.ink[i]);
    const ct = classTexts[i];
    if (ct) {
      ct.textContent = "class " + c.classes[i];
      ct.setAttribute("font-weight", fresh ? 700 : 400);
      ct.setAttribute("fill", fresh ? D.changed_outline : T.muted);
    }
  });
  range.value = r;
  document.getElementById("round-label").textContent = `${r} / ${D.last}`;
  back.disabled = r <= 0;
  next.disabled = r >= D.last;
  document.getElementById("summary").textContent = info.summary;
  const key = document.getElementById("key");
  key.replaceChildren(keyTable(info.key));
  drawSignatures();
  writeUrl();
  try { window.parent.__oaWlRound = {graph: D.graph, round: r}; } catch (err) { /* */ }
  fit();
};
const stop = () => {
  if (timer !== null) clearInterval(timer);
  timer = null;
  play.textContent = "▶ Play";
};
back.addEventListener("click", () => { stop(); show(current - 1); });
next.addEventListener("click", () => { stop(); show(current + 1); });
range.addEventListener("input", () => { stop(); show(Number(range.value)); });
play.addEventListener("click", () => {
  if (timer !== null) { stop(); return; }
  show(0);
  play.textContent = "⏸ Pause";
  timer = setInterval(() => { if (current >= D.last) stop(); else show(current + 1); }, 1000);
});

const storyBox = document.getElementById("stories");
const highlight = (k) => {
  story = story === k ? -1 : k;
  rings.forEach(ring => ring.setAttribute("stroke-width", 0));
  [...storyBox.querySelectorAll(".story")].forEach((box, j) =>
    box.classList.toggle("on", j === story));
  if (story < 0) return;
  const s = D.stories[story];
  s.pair.forEach(v => rings[v].setAttribute("stroke-width", 4));
  s.rivals.forEach(v => { rings[v].setAttribute("stroke-width", 2);
                          rings[v].setAttribute("stroke-dasharray", "4 3"); });
  if (s.round !== null) { stop(); show(s.round); }
};
if (D.stories.length) {
  html("h4", "Why each tied pair was paired", storyBox).style.marginTop = "0";
  html("p", "Click a pair to ring it on the graph (its rivals dashed) and see the round "
    + "that told it apart.", storyBox).className = "note";
}
D.stories.forEach((s, k) => {
  const box = html("div", undefined, storyBox); box.className = "story";
  const button = html("button", s.title, box); button.type = "button";
  button.addEventListener("click", () => highlight(k));
  const list = html("ol", undefined, box);
  s.steps.forEach(([step, text], j) => {
    const li = html("li", undefined, list);
    html("b", step + ": ", li);
    li.appendChild(document.createTextNode(text));
    if (j === s.steps.length - 1) li.className = "decided";
  });
});

// A frame redrawn by a script run (another option) keeps the round stepped to; a new
// tab takes the round of its URL (a copied link); a new graph starts where told.
let start = D.start;
if (D.follow_url) {
  try {
    const kept = window.parent.__oaWlRound;
    const asked = new URL(window.parent.location.href).searchParams.get(D.param);
    if (kept && kept.graph === D.graph) start = Math.min(kept.round, D.last);
    else if (asked !== null && /^\d+$/.test(asked)) start = Math.min(Number(asked), D.last);
  } catch (err) { /* not same-origin */ }
}
show(start);
// Streamlit may write the address from its own copy of the parameters: put it back.
setInterval(writeUrl, 700);
window.addEventListener("load", fit);
})();
"""
