"""Feedback: ranked repair operations, the optimizer text, and applying a fix.

The controls, chart, text and fix list are one fragment: K and the minimum delta redraw
only it. Next to each shown op is the paper's delta (its share of the deficit) and what
applying it alone moves the score (rescored; cached; computed for the shown ops only).
"""

import time
from typing import Any

import streamlit as st

import oa_core
from app import scoring, session, views
from app.text import md_escape
from oa_core.feedback import DEFAULT_TEMPLATES

EXPLAIN = ("**delta**: the op's share of the deficit, as in the paper (all deltas add up "
           "to 1 − score). **alone**: how much the score actually moves when only this op "
           "is applied and the candidate is aligned again. They differ when re-alignment "
           "pairs items differently once the fix is in.")


# the explorer's number format (app/views.py): deltas to 4 decimals, the headline score 2
TEMPLATES = {name: text.replace("{delta:.3f}", "{delta:.4f}")
             for name, text in DEFAULT_TEMPLATES.items() if "{delta:.3f}" in text}


@st.cache_resource(max_entries=64, show_spinner=False)
def _feedback(key: str, top_k: int, min_delta: float, _alignment: Any) -> oa_core.Feedback:
    return oa_core.render_feedback(_alignment, top_k=top_k, min_delta=min_delta,
                                   values="json", templates=TEMPLATES)


def _apply(op: Any, score_before: float) -> None:
    session.apply_fix(op, score_before)
    session.changed()
    # A fix changes the score, the sidebar and every view: st.rerun() in a callback
    # makes the click rerun the whole page at once (not this fragment first).
    st.rerun()


def _undo() -> None:
    session.undo_fix()
    session.changed()


@st.fragment
def operations(key: str, alignment: Any, inputs: Any) -> None:
    every = _feedback(key, 10**6, 0.0, alignment).ops
    count = max(2, len(views.eligible_ops(every)))
    left, right = st.columns(2)
    top_k = left.slider("K (operations shown)", 1, count,
                        **session.bind("oa.fb_k", 5, bounds=(1, count)))
    min_delta = right.number_input("Minimum delta", min_value=0.0, max_value=1.0, step=0.005,
                                   format="%.4f", **session.bind("oa.fb_min_delta", 0.0))
    feedback = _feedback(key, top_k, float(min_delta), alignment)
    if not views.eligible_ops(feedback.ops):
        st.success("Nothing to repair: the candidate matches the gold.",
                   icon=":material/check_circle:")
        return
    if not feedback.shown:
        st.info(f"No operation recovers at least {views.fmt_score(min_delta)}: lower the "
                "minimum delta.", icon=":material/filter_alt:")
        return
    moved = views.alone_moves(alignment, feedback.ops, feedback.shown, inputs)
    st.subheader("Repair operations by delta")
    hidden = len(views.eligible_ops(feedback.ops)) - len(views.eligible_ops(feedback.ops,
                                                                            min_delta))
    # static SVG, not plotly: the chart is redrawn on every K, filter and fix, and a
    # plotly chart was the largest part of that redraw in the browser
    st.html(views.delta_chart_html(feedback.ops, feedback.shown, min_delta=min_delta, alone=moved))
    st.caption("Blue bars: the ops in the text; gray: ranked below K; diamonds: the score "
               "change when that op alone is applied."
               + (f" {hidden} op{'s' * (hidden != 1)} below the minimum delta "
                  "left out." if hidden else ""))
    st.subheader("Apply a fix")
    st.markdown(EXPLAIN)
    for rank, op in enumerate(feedback.shown, start=1):
        text, numbers, button = st.columns([5, 2.4, 1.1], vertical_alignment="center")
        text.markdown(f"{rank}. {md_escape(op.message)}")
        alone = moved.get(id(op))
        numbers.markdown(f"delta **{views.fmt_delta(op.delta)}** · alone **"
                         f"{'—' if alone is None else views.fmt_delta(alone)}**")
        numbers.caption(views.alone_note(op.delta, alone))
        button.button("Apply this fix", key=f"apply.{rank}", on_click=_apply,
                      args=(op, alignment.score))
    st.subheader("Feedback text")
    st.caption("What an optimizer such as GEPA receives (values written as JSON, deltas "
               "to 4 decimals as everywhere in the explorer).")
    st.code(feedback.text, language=None, wrap_lines=True)


started = time.perf_counter()
st.title("Feedback")
scored = scoring.current()
if scored is None:
    st.stop()
alignment = scored.alignment
st.markdown("Every imperfect node becomes a **repair operation** whose *delta* is its share "
            "of the deficit; together the deltas account for the whole deficit. The text "
            "below is what an optimizer such as GEPA receives.")
views.score_header(alignment)

fixes = st.session_state.get(session.FIXES, [])
if fixes:
    last = fixes[-1]
    st.success(
        f"Applied: {md_escape(last['message'])}  \nScore "
        f"{views.fmt_score(last['score_before'])} → **{views.fmt_score(alignment.score)}** "
        f"(moved {views.fmt_delta(alignment.score - last['score_before'])}; the operation's "
        f"delta was {views.fmt_delta(last['delta'])}).", icon=":material/check:")
    st.button("Undo this fix", on_click=_undo)

inputs = views.current_inputs()
operations(views.content_key(*inputs) if inputs else "", alignment, inputs)
scoring.timing_caption(scored, started)
