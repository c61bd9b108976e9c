"""Match-tree views: the expandable table, the deficit icicle, the score matrices."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from oa_core.matchtree import MatchNode

from ..palette import PLOTLY_SCORE_SCALE, SCORE_STOPS, score_color
from ..text import plotly_text, shorten
from ..views import fmt_score
from .diff_table import mark, row_label, value_text, walk

ICICLE_LIMIT = 4000  # nodes drawn in the icicle (the largest deficits first)
ANNOTATE_LIMIT = 400  # matrix cells printed with their value
TICK_LIMIT = 32  # characters of a record name on a matrix axis


def node_depths(tree: MatchNode) -> list[tuple[MatchNode, int]]:
    """Every node with its depth, depth first, children in document order."""
    return walk(tree)


def containers(tree: MatchNode) -> list[MatchNode]:
    """The nodes with children (candidates for focusing the table), in document order."""
    return [node for node, _ in walk(tree) if node.children]


def find(tree: MatchNode, path: str) -> MatchNode:
    """The first node whose :attr:`MatchNode.path` is ``path`` (the root if none)."""
    return next((node for node in tree.iter_nodes() if node.path == path), tree)


ORDERS = ("deficit", "tree")
COLUMNS = ("path", "deficit", "status", "score", "similarity", "key score", "weight",
           "effective weight", "contribution", "gold", "candidate", "gold pointer",
           "candidate pointer", "kind", "comparator")
NUMBER_COLUMNS = ("deficit", "score", "similarity", "key score", "weight",
                  "effective weight", "contribution")
ABSENT = "—"  # a pointer on a side the node does not exist on
COLUMN_HINTS = {  # hover texts of the table's headers
    "path": "Where the node is (the gold pointer, else the candidate's)",
    "deficit": "What fixing this node would recover (siblings add up to their parent)",
    "gold pointer": "JSON Pointer into the gold (— where the node is not in the gold)",
    "candidate pointer": "JSON Pointer into the candidate (— where the node is not in "
                         "the candidate)"}


def tree_frame(root: MatchNode, *, depth: int, imperfect_only: bool,
               order: str = "tree") -> pd.DataFrame:
    """The subtree of ``root`` as a table, expanded ``depth`` levels below it.

    Parameters
    ----------
    root : MatchNode
        Node the table starts from.
    depth : int
        How many levels below ``root`` to show.
    imperfect_only : bool
        Leave out nodes that cost nothing.
    order : {"tree", "deficit"}
        ``"tree"``: document order, the path indented by depth; ``"deficit"``: the
        largest deficit first (ties in document order), the path written in full.

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`COLUMNS`; numbers are floats, with NaN where a number
        does not apply (a container's similarity, a list item's key score: show them
        with a placeholder, never "None"); ``gold pointer`` and ``candidate pointer``
        say where the node is in each document (:data:`ABSENT` where it is not).
    """
    records: list[dict[str, Any]] = []
    for node, level in node_depths(root):
        if level > depth or (imperfect_only and level and node.deficit < 1e-12):
            continue
        more = f"  (+{len(node.children)})" if node.children and level == depth else ""
        if order == "deficit":
            path = (node.path or "/ (root)") + more
        else:
            path = "    " * level + (node.label or "(root)") + more
        records.append({
            "path": path,
            "deficit": node.deficit,
            "status": f"{mark(node)} {node.status}",
            "score": node.score,
            "similarity": math.nan if node.similarity is None else node.similarity,
            "key score": math.nan if node.key_score is None else node.key_score,
            "weight": node.weight,
            "effective weight": node.effective_weight,
            "contribution": node.contribution,
            "gold": value_text(node.gold) if node.gold_path is not None else "",
            "candidate": value_text(node.candidate) if node.candidate_path is not None else "",
            "gold pointer": _pointer(node.gold_path),
            "candidate pointer": _pointer(node.candidate_path),
            "kind": str(node.kind),
            "comparator": node.comparator or "",
        })
    frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    if order == "deficit":
        frame = frame.sort_values("deficit", ascending=False, kind="stable",
                                  ignore_index=True)
    return frame


def _pointer(path: str | None) -> str:
    if path is None:
        return ABSENT
    return path or "/ (root)"


def icicle(tree: MatchNode) -> go.Figure:
    """Plotly icicle of where the deficit lives (area = deficit, color = score).

    A node's own share (its key term, or what its children do not explain) is
    the remainder beyond its children's areas. Perfect subtrees have no area.
    Every tile prints its label, deficit and score (the explorer's 4-decimal
    format).
    """
    nodes = [n for n, _ in walk(tree) if n is tree or n.deficit > 1e-12]
    if len(nodes) > ICICLE_LIMIT:
        keep = {id(n) for n in sorted(nodes, key=lambda n: -n.deficit)[:ICICLE_LIMIT]}
        nodes = [n for n in nodes if id(n) in keep or n is tree]
    present = {id(n) for n in nodes}
    ids: list[str] = []
    parents: list[str] = []
    labels: list[str] = []
    values: list[float] = []
    colors: list[float] = []
    hover: list[str] = []
    texts: list[str] = []
    index = {id(n): f"n{k}" for k, n in enumerate(nodes)}
    parent_map = {id(c): node for node in nodes for c in node.children}
    for node in nodes:
        shown_children = [c for c in node.children if id(c) in present]
        own = max(0.0, node.deficit - sum(c.deficit for c in shown_children))
        parent = parent_map.get(id(node))
        ids.append(index[id(node)])
        parents.append(index[id(parent)] if parent is not None and id(parent) in present
                       else "")
        suffix = {"missing": " (missing)", "excess": " (excess)"}.get(node.status, "")
        labels.append(plotly_text(row_label(node)) + suffix)
        values.append(own)
        colors.append(node.score)
        texts.append(f"−{fmt_score(node.deficit)} · score {fmt_score(node.score)}")
        hover.append(f"{plotly_text(node.path or '/')}<br>{node.status}, score "
                     f"{fmt_score(node.score)}<br>deficit {fmt_score(node.deficit)}")
    fig = go.Figure(go.Icicle(
        ids=ids, parents=parents, labels=labels, values=values, branchvalues="remainder",
        text=texts, texttemplate="<b>%{label}</b><br>%{text}",
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        marker={"colors": colors, "colorscale": PLOTLY_SCORE_SCALE, "cmin": 0, "cmax": 1,
                "showscale": True, "colorbar": {"title": {"text": "score"}}},
        root={"color": "#d9d9d9"}, maxdepth=5, tiling={"orientation": "v"}))
    fig.update_layout(height=430, margin={"l": 0, "r": 0, "t": 10, "b": 0})
    return fig


@dataclass(frozen=True)
class MatrixView:
    """A score matrix with its axis labels and the chosen pairs.

    Parameters
    ----------
    title : str
        What the matrix is.
    matrix : np.ndarray
        Gold rows x candidate columns.
    rows, columns : list of str
        Axis labels.
    pairs : list of (int, int)
        The chosen (gold, candidate) pairs.
    """

    title: str
    matrix: np.ndarray
    rows: list[str]
    columns: list[str]
    pairs: list[tuple[int, int]]


def sequence_views(tree: MatchNode) -> list[MatrixView]:
    """Matrix views of every sequence node that kept its score matrix."""
    views = []
    for node in tree.iter_nodes():
        if node.kind != "sequence" or node.matrix is None or not np.size(node.matrix):
            continue
        matrix = np.asarray(node.matrix, dtype=float)
        n, m = matrix.shape
        offset = 0
        if isinstance(node.gold, list) and len(node.gold) > n:
            offset = len(node.gold) - n  # a prefix is aligned by position, not by matrix
        gold = node.gold if isinstance(node.gold, list) else []
        cand = node.candidate if isinstance(node.candidate, list) else []
        rows = [f"{i + offset}: {value_text(gold[i + offset])}" if i + offset < len(gold)
                else str(i) for i in range(n)]
        cand_offset = max(0, len(cand) - m)
        columns = [f"{j + cand_offset}: {value_text(cand[j + cand_offset])}"
                   if j + cand_offset < len(cand) else str(j) for j in range(m)]
        views.append(MatrixView(f"list {node.path or '/'} ({node.order or 'sequence'})",
                                matrix, rows, columns, [(i, j) for i, j in node.pairs]))
    return views


def heatmap(view: MatrixView) -> go.Figure:
    """The matrix as a heat map (values printed in the 4-decimal format when it is
    small) with the chosen pairs boxed."""
    # long names would squeeze the matrix: tick labels are shortened (hover too)
    rows = [plotly_text(r) for r in _unique([shorten(r, TICK_LIMIT) for r in view.rows])]
    columns = [plotly_text(c) for c in _unique([shorten(c, TICK_LIMIT) for c in view.columns])]
    annotate = view.matrix.size <= ANNOTATE_LIMIT
    fig = go.Figure(go.Heatmap(
        z=view.matrix, x=columns, y=rows, zmin=0, zmax=1, colorscale=PLOTLY_SCORE_SCALE,
        text=[[fmt_score(v) for v in row] for row in view.matrix] if annotate else None,
        texttemplate="%{text}" if annotate else None,
        hovertemplate="gold %{y}<br>candidate %{x}<br>%{z:.4f}<extra></extra>",
        colorbar={"title": {"text": "similarity"}}))
    if view.pairs:
        # small matrices: a box around each chosen cell (a shape scales with the cell,
        # a marker would cover its printed value); large ones: a small square marker
        fig.add_trace(go.Scatter(
            x=[columns[j] for _, j in view.pairs], y=[rows[i] for i, _ in view.pairs],
            mode="markers", name="chosen pair", hoverinfo="skip",
            marker={"symbol": "square-open", "size": 6, "color": "#000000",
                    "line": {"width": 1}, "opacity": 0 if annotate else 1}))
        if annotate:
            for i, j in view.pairs:
                fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5,
                              line={"color": "#000000", "width": 3})
    fig.update_layout(height=min(900, max(260, 60 + 42 * len(rows))), xaxis={"side": "top"},
                      yaxis={"autorange": "reversed"}, showlegend=False,
                      margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return fig


_MATRIX_STYLE = """<style>
.oa-matrix {overflow-x: auto; margin: 0.25rem 0 0.5rem 0;}
.oa-matrix table {border-collapse: separate; border-spacing: 2px; font-size: 0.85rem;}
.oa-matrix th {font-weight: normal; white-space: nowrap; padding: 2px 6px;}
.oa-matrix thead th {text-align: center; vertical-align: bottom; white-space: normal;
  max-width: 10em; overflow-wrap: break-word;}
.oa-matrix tbody th {text-align: right;}
.oa-matrix td {text-align: center; padding: 6px 8px; color: #000000; min-width: 4.2em;}
.oa-matrix td.pair {outline: 3px solid #000000; outline-offset: -3px;}
.oa-matrix .scale {display: flex; align-items: center; gap: 0.5rem; margin-top: 0.4rem;
  font-size: 0.8rem;}
.oa-matrix .scale i {display: inline-block; width: 10rem; height: 0.7rem;}
</style>"""


def matrix_html(view: MatrixView) -> str | None:
    """A small matrix as an HTML table (None when it has more than ``ANNOTATE_LIMIT``
    cells: those stay a plotly heat map, whose hover finds a cell among thousands).

    Every cell prints its value in the 4-decimal format on the score scale's color;
    the chosen pairs are boxed (``class="pair"``); hovering a cell or a name shows
    it in full. A table costs the browser a fraction of a plotly chart to draw, and
    this view is redrawn on every page switch.
    """
    if view.matrix.size > ANNOTATE_LIMIT:
        return None
    pairs = set(view.pairs)
    rows = [shorten(r, TICK_LIMIT) for r in view.rows]
    columns = [shorten(c, TICK_LIMIT) for c in view.columns]
    gradient = ", ".join(f"{color} {100 * stop:.0f}%" for stop, color in SCORE_STOPS)
    out = [_MATRIX_STYLE, f'<div class="oa-matrix" role="figure" '
           f'aria-label="{escape(view.title)}"><table><thead><tr>'
           '<th>gold ↓ · candidate →</th>']
    out += [f'<th title="{escape(full)}">{escape(short)}</th>'
            for short, full in zip(columns, view.columns, strict=True)]
    out.append("</tr></thead><tbody>")
    for i, (short, full) in enumerate(zip(rows, view.rows, strict=True)):
        out.append(f'<tr><th title="{escape(full)}">{escape(short)}</th>')
        for j, value in enumerate(view.matrix[i]):
            chosen = (i, j) in pairs
            hover = escape(f"gold {full}\ncandidate {view.columns[j]}\n{fmt_score(value)}"
                           + ("\nchosen pair" if chosen else ""))
            boxed = ' class="pair"' if chosen else ""
            out.append(f'<td{boxed} '
                       f'style="background:{score_color(float(value))}" title="{hover}" '
                       f'data-score="{float(value)!r}">{fmt_score(value)}</td>')
        out.append("</tr>")
    out.append(f'</tbody></table><div class="scale">similarity 0<i style="background:'
               f'linear-gradient(to right, {gradient})"></i>1 · boxed: the chosen pairs'
               "</div></div>")
    return "".join(out)


def _unique(labels: Sequence[str]) -> list[str]:
    # plotly merges equal category labels; make every label distinct
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out
