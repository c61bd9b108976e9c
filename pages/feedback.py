"""Feedback: ranked repair operations, the optimizer text, and applying a fix."""

import time

import streamlit as st

import oa_core
from app import scoring, session, views
from app.text import md_escape

started = time.perf_counter()
st.title("Feedback")
scored = scoring.current()
if scored is None:
    st.stop()
alignment = scored.alignment
st.markdown("Every imperfect node becomes a **repair operation** whose *delta* is the score "
            "that fixing it alone recovers; together the deltas account for the whole "
            "deficit. The text below is what an optimizer such as GEPA receives.")
every = oa_core.render_feedback(alignment, top_k=10**6).ops
left, right = st.columns(2)
top_k = left.slider("K (operations shown)", 1, max(2, len(every)),
                    **session.bind("oa.fb_k", 5, bounds=(1, max(2, len(every)))))
min_delta = right.number_input("Minimum delta", min_value=0.0, max_value=1.0, step=0.005,
                               format="%.3f", **session.bind("oa.fb_min_delta", 0.0))
feedback = oa_core.render_feedback(alignment, top_k=top_k, min_delta=min_delta)
views.score_header(alignment)

fixes = st.session_state.get(session.FIXES, [])
if fixes:
    last = fixes[-1]
    st.success(
        f"Applied: {md_escape(last['message'])}  \nScore {last['score_before']:.4f} → "
        f"**{alignment.score:.4f}** (moved {alignment.score - last['score_before']:+.4f}; "
        f"the operation's delta was +{last['delta']:.4f}).", icon=":material/check:")
    st.button("Undo this fix", on_click=session.undo_fix)

if not feedback.ops:
    st.success("Nothing to repair: the candidate matches the gold.",
               icon=":material/check_circle:")
else:
    st.subheader("Repair operations by delta")
    st.plotly_chart(views.delta_bars(feedback.ops, feedback.shown), key="deltas")
    st.subheader("Feedback text")
    st.code(feedback.text, language=None, wrap_lines=True)
    st.subheader("Apply a fix")
    for rank, op in enumerate(feedback.shown, start=1):
        text, button = st.columns([6, 1], vertical_alignment="center")
        text.markdown(f"{rank}. {md_escape(op.message)}")
        button.button("Apply this fix", key=f"apply.{rank}", on_click=session.apply_fix,
                      args=(op, alignment.score))
scoring.timing_caption(scored, started)
