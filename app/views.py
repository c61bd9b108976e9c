"""Small page sections shared by several views, and the explorer's one number format.

Number format (every page uses these helpers, never its own ``:.3f``):

- **headline metrics** (``st.metric``: score, deficit): 2 decimals, ``0.77``, with the
  exact value in the metric's help; a glance, not a measurement;
- **everywhere else** (tables, chart labels and hovers, captions, deltas, the applied
  fix message): 4 decimals, ``0.7679``; deltas signed, ``+0.0625``.

The feedback text itself is ``oa_core``'s (what an optimizer receives) and keeps the
engine's own format.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

import oa_core
from oa_core import Alignment, Diagnostic, RepairOp

from . import session
from .examples import list_examples
from .session import Trio
from .text import md_escape, plotly_text

SCORE_DECIMALS = 4
HEADLINE_DECIMALS = 2
# Plotly charts: no mode bar (its buttons would come first in the Tab order), no logo.
PLOTLY_CONFIG: dict[str, Any] = {"displayModeBar": False, "displaylogo": False}


def fmt_score(value: float, *, headline: bool = False) -> str:
    """A score (or weight, contribution, deficit) in the explorer's one format.

    >>> fmt_score(0.7678571428571429), fmt_score(0.7678571428571429, headline=True)
    ('0.7679', '0.77')
    """
    return f"{value:.{HEADLINE_DECIMALS if headline else SCORE_DECIMALS}f}"


def fmt_delta(value: float) -> str:
    """A signed change of the score, 4 decimals; a change too small for them in
    scientific notation rather than rounded to a misleading ``+0.0000``.

    >>> fmt_delta(0.0625), fmt_delta(-0.01), fmt_delta(1e-9)
    ('+0.0625', '-0.0100', '+1.00e-09')
    """
    text = f"{value:+.{SCORE_DECIMALS}f}"
    if value != 0 and float(text) == 0:
        text = f"{value:+.2e}"
    return text


def content_key(*values: Any) -> str:
    """A short digest of JSON values (documents and options): the cache key of a view.

    >>> content_key({"a": 1}, "none") == content_key({"a": 1}, "none")
    True
    """
    text = json.dumps(values, ensure_ascii=False, sort_keys=False, separators=(",", ":"),
                      default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def score_header(alignment: Alignment) -> None:
    """Score, deficit and diagnostic counts as metrics (2 decimals, see the module)."""
    columns = st.columns(4)
    columns[0].metric("Score", fmt_score(alignment.score, headline=True),
                      help=f"exactly {alignment.score!r}")
    columns[1].metric("Deficit", fmt_score(1.0 - alignment.score, headline=True),
                      help=f"1 − score = {fmt_score(1.0 - alignment.score)}: what the "
                           "repair operations can recover")
    columns[2].metric("Warnings", len(alignment.warnings))
    columns[3].metric("Schema violations", len(alignment.violations),
                      help="JSON Schema checks of the candidate (they do not change the score)")


def score_change(score: float, reference: float, versus: str = "") -> dict[str, Any]:
    """Keyword arguments for ``st.metric`` showing ``score - reference``.

    Equal scores (the same bits) read "same" in gray with no arrow, since a green
    "+0.0000" would suggest a gain; a change too small for four decimals is shown
    in scientific notation rather than rounded away.

    >>> score_change(0.75, 0.75, "tie_break")["delta"]
    'same as tie_break'
    >>> score_change(0.5, 0.75)["delta"]
    '-0.2500'
    >>> score_change(0.75 + 1e-9, 0.75)["delta"]
    '+1.00e-09'
    """
    difference = score - reference
    if difference == 0:
        return {"delta": f"same as {versus}" if versus else "same", "delta_color": "off",
                "delta_arrow": "off"}
    text = fmt_delta(difference)
    return {"delta": f"{text} vs {versus}" if versus else text, "delta_color": "normal"}


def _diagnostic_text(diagnostic: Diagnostic) -> str:
    where = md_escape(diagnostic.pointer or "(root)")
    return (f"**{md_escape(diagnostic.code)}** in the {md_escape(diagnostic.document)} at "
            f"{where}: {md_escape(diagnostic.message)}")


def diagnostics(alignment: Alignment) -> None:
    """The alignment's warnings and the candidate's schema violations."""
    for diagnostic in alignment.warnings:
        st.warning(_diagnostic_text(diagnostic), icon=":material/warning:")
    for diagnostic in alignment.violations:
        st.error(_diagnostic_text(diagnostic), icon=":material/block:")
    if not alignment.warnings and not alignment.violations:
        st.success("No warnings; the candidate satisfies the schema.",
                   icon=":material/check_circle:")


def eligible_ops(ops: Sequence[RepairOp], min_delta: float = 0.0) -> list[RepairOp]:
    """The ops the feedback may show: a positive delta of at least ``min_delta``."""
    return [op for op in ops if op.delta > 0 and op.delta >= min_delta]


def delta_bars(ops: Sequence[RepairOp], shown: Sequence[RepairOp], *,
               min_delta: float = 0.0,
               alone: Mapping[int, float | None] | None = None) -> go.Figure:
    """Horizontal bars of the ranked repair ops' deltas; the shown ones in color.

    Parameters
    ----------
    ops : sequence of RepairOp
        Every op, ranked; those below ``min_delta`` (or recovering nothing) are left
        out, so the chart follows the minimum-delta filter.
    shown : sequence of RepairOp
        The ops in the feedback text (drawn in color, the others gray).
    alone : mapping, optional
        ``id(op)`` -> the score change when that op alone is applied; drawn as a
        diamond on the op's bar.
    """
    drawn = eligible_ops(ops, min_delta)
    shown_ids = {id(op) for op in shown}
    labels = [f"{rank}. {plotly_text(op.kind)} {plotly_text(op.path or '/', 60)}"
              for rank, op in enumerate(drawn, start=1)]
    fig = go.Figure(go.Bar(
        x=[op.delta for op in drawn], y=labels, orientation="h",
        name="delta (share of the deficit)",
        marker={"color": ["#0072B2" if id(op) in shown_ids else "#bbbbbb" for op in drawn]},
        text=[fmt_delta(op.delta) for op in drawn], textposition="outside",
        customdata=[plotly_text(op.message, 200) for op in drawn],
        hovertemplate="%{customdata}<br>delta %{x:+.4f}<extra></extra>"))
    moves = [(label, alone[id(op)]) for label, op in zip(labels, drawn, strict=True)
             if alone is not None and alone.get(id(op)) is not None]
    if moves:
        fig.add_trace(go.Scatter(
            x=[move for _, move in moves], y=[label for label, _ in moves], mode="markers",
            name="applied alone (rescored)",
            hovertemplate="applied alone: %{x:+.4f}<extra></extra>",
            marker={"symbol": "diamond", "size": 12, "color": "#D55E00",
                    "line": {"width": 1, "color": "#000000"}}))
    top = max([op.delta for op in drawn] + [move for _, move in moves] + [1e-9])
    low = min([0.0] + [move for _, move in moves])
    fig.update_layout(height=max(200, 90 + 30 * len(drawn)), yaxis={"autorange": "reversed"},
                      xaxis={"title": {"text": "score recovered"}, "tickformat": ".4f",
                             "range": [low * 1.15, top * 1.18]},  # room for the labels
                      legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
                      showlegend=bool(moves), margin={"l": 10, "r": 60, "t": 30, "b": 40})
    return fig


def current_inputs() -> tuple[Any, Any, Any, str, float] | None:
    """What the pages score: gold, candidate (fixes applied), schema (edits applied),
    WL mode and blend lambda (as :func:`app.scoring.current` does)."""
    trio = session.trio()
    if trio is None:
        return None
    state = st.session_state
    return (trio.gold, session.current_candidate(), session.edited_schema(),
            str(state.get(session.WL_MODE, "tie_break")), float(state.get(session.WL_LAMBDA, 0.5)))


@st.cache_data(max_entries=2048, show_spinner=False)
def _alone_score(key: str, index: int, _inputs: tuple[Any, Any, Any, str, float],
                 _op: RepairOp) -> float | None:
    gold, candidate, schema, wl_mode, wl_lambda = _inputs
    try:
        fixed = oa_core.apply_ops(candidate, [_op])
        return oa_core.align(gold, fixed, schema, wl_mode=wl_mode,
                             wl_blend_lambda=wl_lambda).score
    except (oa_core.OAError, LookupError, TypeError, ValueError):
        return None


def alone_moves(alignment: Alignment, ops: Sequence[RepairOp], which: Sequence[RepairOp],
                inputs: tuple[Any, Any, Any, str, float]) -> dict[int, float | None]:
    """How much the score moves when each op of ``which`` alone is applied.

    Each op is applied to the candidate with ``oa_core.apply_ops`` and the result
    rescored against the gold with the same schema and options. Only the ops in
    ``which`` (the shown ones) are computed; results are cached on the documents'
    content and the op's rank in ``ops``.

    Returns
    -------
    dict
        ``id(op)`` -> score after minus score before (None if the op could not be
        applied or rescored).
    """
    key = content_key(*inputs)
    rank = {id(op): index for index, op in enumerate(ops)}
    out: dict[int, float | None] = {}
    for op in which:
        after = _alone_score(key, rank[id(op)], inputs, op)
        out[id(op)] = None if after is None else after - alignment.score
    return out


def alone_note(delta: float, moved: float | None) -> str:
    """One line on why applying an op alone moves the score by more or less than its delta.

    >>> alone_note(0.0625, 0.0625)
    'exactly its delta'
    >>> alone_note(0.0625, 0.0407)
    'less than its delta: the fixed candidate re-aligns, items re-pair'

    """
    if moved is None:
        return "could not be applied alone"
    if abs(moved - delta) < 0.5 * 10 ** -SCORE_DECIMALS:
        return "exactly its delta"
    if moved < delta:
        return "less than its delta: the fixed candidate re-aligns, items re-pair"
    return "more than its delta: the fixed candidate re-aligns, other items pair better"


def source_text(trio: Trio | None) -> None:
    """The bundled example's source text (what the candidate was extracted from)."""
    if trio is None:
        return
    example = next((e for e in list_examples() if e.name == trio.source), None)
    text = example.context_text() if example is not None else None
    if text:
        with st.expander("Source text of this example"):
            st.text(text)
