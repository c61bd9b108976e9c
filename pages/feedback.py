"""Feedback: ranked repair operations, the optimizer text, and applying a fix.

The controls, chart, text and fix list are one fragment: K and the minimum delta redraw
only it. Next to each shown op is the paper's delta (its share of the deficit) and its
realised gain (how much applying it alone moves the score: rescored, cached). The page
ranks the fixes by realised gain (or by delta, on request); the feedback text keeps the
paper's order, which is what the metric gives an optimizer.
"""

import time
from typing import Any

import streamlit as st

import oa_core
from app import session, views
from app.pair import scoring
from app.text import md_escape
from oa_core.feedback import DEFAULT_TEMPLATES

EXPLAIN = ("**delta**: the op's share of the deficit, as in the paper (all deltas add up "
           "to 1 − score). **gain**: how much the score actually moves when only this op "
           "is applied and the candidate is aligned again. They differ when re-alignment "
           "pairs items differently once the fix is in.")
RANKS = {"gain": "realised gain", "delta": "the paper's delta"}
GAIN_LIMIT = 30  # ops rescored to rank by gain (the largest deltas): one alignment each
WHOLE_OUTPUT = ("replaces the whole output with the gold: this teaches nothing. The "
                "output has the wrong shape at its root; look at why (cut off, prose, not "
                "JSON) rather than apply it.")


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
    left, middle, right = st.columns([1.3, 1, 1])
    rank = left.radio("Rank the fixes by", list(RANKS), format_func=RANKS.get,
                      horizontal=True, help="realised gain: each op applied alone and "
                      "rescored; the paper's delta: the order of the feedback text",
                      **session.bind("oa.fb_rank", "gain", options=list(RANKS)))
    top_k = middle.slider("K (operations shown)", 1, count,
                          **session.bind("oa.fb_k", 5, bounds=(1, count)))
    min_delta = right.number_input("Minimum delta", min_value=0.0, max_value=1.0,
                                   step=0.005, format="%.4f",
                                   **session.bind("oa.fb_min_delta", 0.0))
    feedback = _feedback(key, top_k, float(min_delta), alignment)
    if not views.eligible_ops(feedback.ops):
        st.success("Nothing to repair: the candidate matches the gold.",
                   icon=":material/check_circle:")
        return
    if not feedback.shown:
        st.info(f"No operation recovers at least {views.fmt_score(min_delta)}: lower the "
                "minimum delta.", icon=":material/filter_alt:")
        return
    eligible = views.eligible_ops(every, min_delta)
    if rank == "gain":
        moved = views.alone_moves(alignment, every, eligible[:GAIN_LIMIT], inputs)
        ranked = views.rank_by_gain(eligible, moved)
        shown = ranked[:top_k]
    else:
        ranked, shown = list(feedback.ops), list(feedback.shown)
        moved = views.alone_moves(alignment, feedback.ops, shown, inputs)
    st.subheader(f"Repair operations by {RANKS[rank]}")
    hidden = len(views.eligible_ops(every)) - len(eligible)
    # static SVG, not plotly: the chart is redrawn on every K, filter and fix, and a
    # plotly chart was the largest part of that redraw in the browser
    st.html(views.delta_chart_html(ranked, shown, min_delta=min_delta, alone=moved))
    st.caption("Bars: each op's delta, blue for the K shown; diamonds: its realised gain "
               "(the score change when that op alone is applied)."
               + (" Ranked by realised gain; the feedback text below keeps the paper's "
                  "order (by delta)." if rank == "gain" else "")
               + (f" Only the {GAIN_LIMIT} largest deltas are rescored; the rest follow "
                  "by delta." if rank == "gain" and len(eligible) > GAIN_LIMIT else "")
               + (f" {hidden} op{'s' * (hidden != 1)} below the minimum delta "
                  "left out." if hidden else ""))
    st.subheader("Apply a fix")
    st.markdown(EXPLAIN)
    for position, op in enumerate(shown, start=1):
        text, numbers, button = st.columns([5, 2.4, 1.1], vertical_alignment="center")
        text.markdown(f"{position}. {md_escape(op.message)}")
        if views.replaces_whole_output(op):
            text.warning(f"This fix {WHOLE_OUTPUT}", icon=":material/school:")
        alone = moved.get(id(op))
        numbers.markdown(f"delta **{views.fmt_delta(op.delta)}** · gain **"
                         f"{'—' if alone is None else views.fmt_delta(alone)}**")
        numbers.caption(views.alone_note(op.delta, alone))
        button.button("Apply this fix", key=f"apply.{position}", on_click=_apply,
                      args=(op, alignment.score))
    st.subheader("Feedback text")
    st.caption("What an optimizer such as GEPA receives, in the paper's order (values "
               "written as JSON, deltas to 4 decimals as everywhere in the explorer).")
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
