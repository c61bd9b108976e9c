"""Compare runs: run B against run A on the same golds, document by document: the mean
difference with a paired bootstrap CI, wins/ties/losses, a scatter (a click shows both
outputs side by side), the worst regressions, and the patterns and fields that moved."""

import time

import streamlit as st

from app import session, views
from app.runs import compare_page, dataset_state, dataset_views
from app.text import md_inline
from oa_core.runs import runstats
from oa_core.runs.html_report import histogram_html

started = time.perf_counter()
st.title("Compare runs")
data, name = dataset_state.current()
if data is None:
    st.stop()
runs = dataset_state.run_names(data)
if len(runs) < 2:
    st.info("This dataset has one run: give a second run (another predictions or pairs file) "
            "to compare.", icon=":material/compare_arrows:")
    st.stop()
run_a = dataset_state.chosen_run(data)
others = [r for r in runs if r != run_a]
left, right = st.columns(2)
left.markdown(f"Run A: **{md_inline(run_a)}** (the sidebar's run)")
run_b = right.selectbox("Run B", others, **session.bind(dataset_state.RUN_B, others[0],
                                                         options=others))
a = dataset_state.scored(data, run_a)
b = dataset_state.scored(data, run_b)
if a is None or b is None:
    st.stop()
threshold = float(st.session_state.get("oa.fm_threshold", 0.5))
comparison = runstats.compare(a, b, threshold=threshold)
compare_page.headline(comparison, a, b)
st.html(histogram_html([(run_a, a.scores), (run_b, b.scores)]))
st.subheader("Document by document")
st.caption("Each point is one document: above the diagonal B scores higher. Click a point to "
           "see both outputs side by side.")
ids = comparison.pairs["id"].astype(str).tolist()
st.plotly_chart(dataset_views.compare_scatter(comparison, (run_a, run_b)), key=compare_page.CHART,
                on_select=compare_page.on_click, selection_mode="points",
                config=views.PLOTLY_CONFIG)
document = st.selectbox("Document", ["", *ids], format_func=lambda i: i or "(pick one)",
                        **session.bind(compare_page.DOCUMENT, "", options=["", *ids]))
if document:
    compare_page.side_by_side(data, name, document, a, b)
compare_page.tables(comparison, run_a, run_b)
compare_page.report_button(data, name, a, b)
st.caption(f"{len(comparison.pairs):,} documents in both runs; field F1 at the credit "
           f"threshold {threshold:g} (Field metrics page); this view rendered in "
           f"{(time.perf_counter() - started) * 1000:.0f} ms.")
