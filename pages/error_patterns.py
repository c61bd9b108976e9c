"""Error patterns: where a run loses score, as path pattern x op kind; a click on a cell
filters the Dataset table to the pairs with that pattern."""

import time

import streamlit as st

from app import session, views
from app.runs import dataset_page, dataset_state, dataset_views
from app.text import md_inline
from oa_core.runs import runstats

started = time.perf_counter()
st.title("Error patterns")
opened = dataset_state.opened_run()
data, name, run, scored = opened.data, opened.name, opened.run, opened.scored
if dataset_page.pattern_pending():  # a cell was clicked: show its pairs
    st.switch_page(dataset_page.ROOT / "pages" / "dataset.py")
st.markdown(f"Run **{md_inline(run)}**: every repair operation of every pair, grouped by "
            "where it is (the path with list indices as `*`) and what it is. **Mean loss** "
            "is the score the pattern costs the run's mean (its deltas summed over the pairs, "
            "divided by the pairs scored): the cells add up to 1 − mean score. Click a cell "
            "to list its pairs.")
failures = runstats.format_failures(scored)
content_only = bool(failures.count) and st.checkbox(
    f"Leave out the {failures.render()}",
    help="Their score measures the format, not the content: a cut-off output read as a "
         "fragment is one type mismatch at the root. Left out, the map shows the content "
         "errors, per pair scored on its content.",
    **session.bind("oa.ep_content", False))
patterns = runstats.error_patterns(scored, content_only=content_only)
if patterns.empty:
    st.success("No repair operations: every scored pair is perfect.",
               icon=":material/check_circle:")
    st.stop()
value = st.radio("Colour by", ["loss", "count"], horizontal=True,
                 format_func={"loss": "mean loss", "count": "operation count"}.get,
                 **session.bind("oa.ep_value", "loss", options=["loss", "count"]))
st.plotly_chart(dataset_views.pattern_map(patterns, value), key=dataset_page.PATTERN_CHART,
                on_select=dataset_page.on_pattern_click, selection_mode="points",
                config=views.PLOTLY_CONFIG)
dataset_page.pattern_table(patterns)
st.caption(f"{len(patterns)} (pattern, kind) cells from {len(scored.ops):,} operations; "
           f"this view rendered in {(time.perf_counter() - started) * 1000:.0f} ms.")
