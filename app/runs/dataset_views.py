"""Charts and tables of the run-level pages (Dataset, Error patterns, Field metrics,
Compare runs, Run tuning). No Streamlit here: each function returns a plotly figure or
a pandas table, so the pages stay thin and these are tested directly. The score
histogram is plain HTML, shared with the HTML report
(:func:`oa_core.runs.html_report.histogram_html`).

User text (ids, paths, kinds) reaches plotly through :func:`app.text.plotly_text`;
numbers use the explorer's one format (4 decimals, :mod:`app.views`).

Examples
--------
>>> sort_columns()[:2]
('score', 'deficit')
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pyarrow as pa

from oa_core.runs.output_format import FAILURES
from oa_core.runs.runstats import Comparison

from ..text import plotly_text

__all__ = [
    "SCATTER_RANGE",
    "SORTS",
    "compare_scatter",
    "field_bars",
    "pattern_map",
    "sort_columns",
    "sort_pairs",
    "table_arrow",
    "table_view",
]

SORTS: dict[str, str] = {"score": "score", "deficit": "deficit", "ops": "repair ops",
                         "id": "id", "row": "input order"}
"""Sortable columns of the pairs table -> their label."""
OPEN_COLUMN, OPEN_LABEL = "open", "Open"
"""The pairs table's column of Open buttons (one fixed label, no user text)."""
SCATTER_RANGE = (-0.03, 1.03)
"""Both axes of the Compare runs scatter: the scores' [0, 1] and a small margin."""
_SCORE_SCALE = [[0.0, "#b2182b"], [0.5, "#f7f7f7"], [1.0, "#2166ac"]]
_LOSS_SCALE = [[0.0, "#fff5eb"], [0.5, "#fd8d3c"], [1.0, "#7f2704"]]


def sort_columns() -> tuple[str, ...]:
    """The sort options, in the order the page offers them."""
    return tuple(SORTS)


def sort_pairs(frame: pd.DataFrame, column: str, descending: bool) -> pd.DataFrame:
    """The pairs sorted by ``column`` (stable; unscored pairs last; ties in input order).

    By score or deficit, the format failures (a cut-off, refused or empty output,
    :data:`oa_core.runs.output_format.FAILURES`) come after the content errors: their score
    measures the format, and 40 of them at 0 would hide the worst content.

    >>> frame = pd.DataFrame({"row": [0, 1, 2, 3], "id": ["a", "b", "c", "d"],
    ...                       "score": [0.5, float("nan"), 0.2, 0.0],
    ...                       "status": ["ok", "error", "prose", "cut off"]})
    >>> sort_pairs(frame, "score", False)["id"].tolist()
    ['c', 'a', 'd', 'b']
    >>> sort_pairs(frame, "score", True)["id"].tolist()
    ['a', 'c', 'd', 'b']
    """
    if column not in frame.columns:
        column = "row"
    if column in ("score", "deficit") and "status" in frame.columns:
        failed = frame["status"].isin(FAILURES) | frame[column].isna()
        return frame.assign(_failed=failed).sort_values(
            ["_failed", column, "row"], ascending=[True, not descending, True],
            na_position="last", kind="stable").drop(columns="_failed")
    return frame.sort_values([column, "row"], ascending=[not descending, True],
                             na_position="last", kind="stable")


def table_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The pairs table as the Dataset page shows it (id, score, deficit, top op, ...).

    >>> frame = pd.DataFrame({"row": [0], "id": ["<b>x</b>"], "score": [0.5],
    ...     "deficit": [0.5], "ops": [2], "top_op": ["primitive-value at /a"],
    ...     "status": ["ok"], "problem": [""], "line": [0]})
    >>> table_view(frame).columns.tolist()
    ['open', 'id', 'score', 'deficit', 'top op', 'op count', 'status', 'problem']
    """
    return pd.DataFrame({OPEN_COLUMN: OPEN_LABEL, "id": frame["id"].astype(str),
                         "score": frame["score"],
                         "deficit": frame["deficit"], "top op": frame["top_op"],
                         "op count": frame["ops"], "status": frame["status"],
                         "problem": frame["problem"]}).reset_index(drop=True)


def table_arrow(frame: pd.DataFrame) -> pa.Table:
    """:func:`table_view` of every pair as an Arrow table, row ``k`` being pair ``k``.

    Made once per run: the pairs table then sends ``take(rows)`` of it, so a sort or a
    filter converts no pandas data (Streamlit's conversion of 1,000 rows costs tens of
    milliseconds per rerun; taking rows of an Arrow table, well under one).

    >>> frame = pd.DataFrame({"row": [0, 1], "id": ["a", "b"], "score": [0.5, 1.0],
    ...     "deficit": [0.5, 0.0], "ops": [2, 0], "top_op": ["x at /a", ""],
    ...     "status": ["ok", "ok"], "problem": ["", ""], "line": [0, 0]})
    >>> table_arrow(frame).take([1]).column("id").to_pylist()
    ['b']
    """
    return pa.Table.from_pandas(table_view(frame.sort_values("row")), preserve_index=False)


def pattern_map(patterns: pd.DataFrame, value: str = "loss", *, limit: int = 40) -> go.Figure:
    """Path pattern x op kind as a heat map of ``value`` (``loss`` or ``count``).

    Drawn as square markers on a grid, so a click selects one cell (its ``customdata``
    is ``[pattern, kind]``); the ``limit`` costliest patterns are shown.

    >>> table = pd.DataFrame({"pattern": ["/a", "/b"], "kind": ["x", "y"],
    ...                       "count": [3, 1], "pairs": [2, 1], "loss": [0.3, 0.1],
    ...                       "mean_loss": [0.1, 0.03]})
    >>> figure = pattern_map(table)
    >>> figure.data[0].customdata.tolist()
    [['/a', 'x'], ['/b', 'y']]
    """
    if patterns.empty:
        return go.Figure()
    order = (patterns.groupby("pattern")["loss"].sum().sort_values(ascending=False,
                                                                   kind="stable"))
    shown = list(order.index[:limit])
    table = patterns[patterns["pattern"].isin(shown)]
    kinds = sorted(table["kind"].unique())
    column = "mean_loss" if value == "loss" else "count"
    values = table[column].to_numpy(dtype=float)
    top = float(values.max()) or 1.0
    labels = [plotly_text(p, 60) for p in shown]
    label_of = dict(zip(shown, labels, strict=True))
    figure = go.Figure(go.Scatter(
        x=[plotly_text(k) for k in table["kind"]], y=[label_of[p] for p in table["pattern"]],
        mode="markers+text", customdata=table[["pattern", "kind"]].to_numpy(dtype=object),
        marker={"symbol": "square", "size": 34, "color": values, "colorscale": _LOSS_SCALE,
                "cmin": 0.0, "cmax": top, "showscale": True, "line": {"width": 0},
                "colorbar": {"title": "mean loss" if value == "loss" else "ops"}},
        text=[f"{v:.4f}" if value == "loss" else f"{int(v)}" for v in values],
        textfont={"size": 10, "color": ["white" if v > 0.6 * top else "#222" for v in values]},
        hovertext=[f"{plotly_text(p)} · {plotly_text(k)}<br>mean loss {loss:.4f} · "
                   f"{int(n)} ops in {int(pairs)} pairs"
                   for p, k, loss, n, pairs in zip(table["pattern"], table["kind"],
                                                   table["mean_loss"], table["count"],
                                                   table["pairs"], strict=True)],
        hoverinfo="text"))
    figure.update_layout(
        height=max(260, 38 * len(shown) + 120), margin={"l": 10, "r": 10, "t": 10, "b": 10},
        xaxis={"categoryorder": "array", "categoryarray": [plotly_text(k) for k in kinds],
               "side": "top", "tickangle": -30},
        yaxis={"categoryorder": "array", "categoryarray": labels[::-1], "automargin": True},
        clickmode="event+select", dragmode=False, plot_bgcolor="rgba(0,0,0,0)")
    return figure


def field_bars(metrics: pd.DataFrame) -> go.Figure:
    """Precision, recall and F1 per field (the total last)."""
    fields = [plotly_text(f, 60) for f in metrics["field"]]
    figure = go.Figure()
    for column, color in (("precision", "#4393c3"), ("recall", "#92c5de"), ("f1", "#053061")):
        figure.add_trace(go.Bar(y=fields, x=metrics[column].fillna(0.0), name=column,
                                orientation="h", marker={"color": color},
                                hovertemplate=f"%{{y}}<br>{column} %{{x:.4f}}<extra></extra>"))
    figure.update_layout(barmode="group", height=max(260, 26 * len(fields) * 1.6 + 80),
                         margin={"l": 10, "r": 10, "t": 30, "b": 30},
                         xaxis={"range": [0, 1]},
                         yaxis={"autorange": "reversed", "automargin": True},
                         legend={"orientation": "h", "y": 1.05})
    return figure


def compare_scatter(comparison: Comparison, names: tuple[str, str]) -> go.Figure:
    """Per-document score of run A (x) against run B (y); a click selects a document
    (``customdata`` is its id). Points above the diagonal improved in B."""
    pairs = comparison.pairs
    diff = pairs["diff"].to_numpy(dtype=float)
    color = np.where(diff > 1e-9, "#2166ac", np.where(diff < -1e-9, "#b2182b", "#888888"))
    ids: list[Any] = pairs["id"].astype(str).tolist()
    figure = go.Figure(go.Scatter(
        x=pairs["score_a"], y=pairs["score_b"], mode="markers", customdata=ids,
        marker={"color": color.tolist(), "size": 8, "opacity": 0.75},
        hovertext=[f"{plotly_text(i, 40)}<br>{plotly_text(names[0], 20)} {a:.4f} → "
                   f"{plotly_text(names[1], 20)} {b:.4f} ({d:+.4f})"
                   for i, a, b, d in zip(ids, pairs["score_a"], pairs["score_b"], diff,
                                         strict=True)],
        hoverinfo="text"))
    figure.add_shape(type="line", x0=0, y0=0, x1=1, y1=1,
                     line={"color": "#999999", "dash": "dot", "width": 1})
    # "constrain": the square plot shrinks its area to stay square; without it plotly
    # widens the range of the longer axis instead (to -0.5..1.5 on a wide page)
    axis = {"range": list(SCATTER_RANGE), "constrain": "domain", "zeroline": False}
    figure.update_layout(height=420, margin={"l": 50, "r": 10, "t": 10, "b": 50},
                         xaxis={**axis, "title": f"run {plotly_text(names[0], 30)}"},
                         yaxis={**axis, "title": f"run {plotly_text(names[1], 30)}",
                                "scaleanchor": "x", "scaleratio": 1},
                         clickmode="event+select", dragmode=False)
    return figure
