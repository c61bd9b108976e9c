"""Overview: the score, the deficit, diagnostics and the aligned side-by-side diff."""

import time

import streamlit as st

from app import scoring, session, views
from app.diff_table import diff_html, diff_rows

started = time.perf_counter()
st.title("Overview")
scored = scoring.current()
if scored is None:
    st.stop()
alignment = scored.alignment
views.score_header(alignment)
views.diagnostics(alignment)
views.source_text(session.trio())
st.subheader("Gold and candidate, aligned")
hide = st.toggle("Hide perfect subtrees", **session.bind("oa.hide_perfect", False))
st.html(diff_html(diff_rows(alignment.tree, hide_perfect=hide)))
scoring.timing_caption(scored, started)
