"""Small page sections shared by several views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from oa_core import Alignment, Diagnostic, RepairOp

from .examples import list_examples
from .session import Trio
from .text import md_escape, plotly_text


def score_header(alignment: Alignment) -> None:
    """Score, deficit and diagnostic counts as metrics."""
    columns = st.columns(4)
    columns[0].metric("Score", f"{alignment.score:.2f}", help=f"exactly {alignment.score!r}")
    columns[1].metric("Deficit", f"{1.0 - alignment.score:.2f}",
                      help="1 − score: what the repair operations can recover")
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
    text = f"{difference:+.4f}"
    if float(text) == 0:
        text = f"{difference:+.2e}"
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


def delta_bars(ops: Sequence[RepairOp], shown: Sequence[RepairOp]) -> go.Figure:
    """Horizontal bars of every ranked repair op's delta; the shown ones in color."""
    shown_ids = {id(op) for op in shown}
    labels = [f"{rank}. {plotly_text(op.kind)} {plotly_text(op.path or '/')}"
              for rank, op in enumerate(ops, start=1)]
    fig = go.Figure(go.Bar(
        x=[op.delta for op in ops], y=labels, orientation="h",
        marker={"color": ["#0072B2" if id(op) in shown_ids else "#bbbbbb" for op in ops]},
        text=[f"+{op.delta:.3f}" for op in ops], textposition="outside",
        customdata=[plotly_text(op.message) for op in ops],
        hovertemplate="%{customdata}<extra></extra>"))
    fig.update_layout(height=max(200, 70 + 30 * len(ops)), yaxis={"autorange": "reversed"},
                      xaxis={"title": {"text": "score recovered (delta)"}},
                      margin={"l": 10, "r": 40, "t": 10, "b": 40})
    return fig


def source_text(trio: Trio | None) -> None:
    """The bundled example's source text (what the candidate was extracted from)."""
    if trio is None:
        return
    example = next((e for e in list_examples() if e.name == trio.source), None)
    text = example.context_text() if example is not None else None
    if text:
        with st.expander("Source text of this example"):
            st.text(text)
