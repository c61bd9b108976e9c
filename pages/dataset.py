"""Dataset: a whole run at a glance; a sortable, filterable table of its pairs; a click
on a row opens that pair in a single-pair view (the sidebar leads back here)."""

import time

import streamlit as st

from app import session
from app.runs import dataset_page, dataset_state, dataset_views
from app.text import md_inline
from oa_core.runs import runstats
from oa_core.runs.dataset import Dataset, ScoredRun
from oa_core.runs.html_report import histogram_html
from oa_core.runs.output_format import STATUSES

started = time.perf_counter()
st.title("Dataset")
opened = dataset_state.opened_run()
data, name, run, scored = opened.data, opened.name, opened.run, opened.scored
st.markdown((f"**{md_inline(data.title)}** · " if data.title else "")
            + f"run **{md_inline(run)}** ({md_inline(data.runs[run].file)})")
summary = dataset_state.summary(data, run, scored)
dataset_page.summary_metrics(summary, len(data.bad_lines_of(run)))
left, right = st.columns([3, 2])
with left:
    st.html(histogram_html([(run, scored.scores)]))
with right:
    dataset_page.quantile_table(summary)
dataset_page.bad_lines(data, scored)
dataset_page.format_failures(scored)


@st.fragment
def pairs(data: Dataset, name: str, run: str, scored: ScoredRun) -> None:
    """Filters, sort, table and open: one fragment, so a filter or a sort reruns only it
    (the summary and the histogram above stay as they are)."""
    dataset_page.open_clicked(data, name, run)
    st.subheader("Pairs")
    kinds = sorted(scored.ops["kind"].unique().tolist())
    patterns = sorted(scored.ops["pattern"].unique().tolist())
    filters = st.columns([1, 1, 2, 3, 2])
    low = filters[0].number_input("Score from", 0.0, 1.0, step=0.05, format="%.2f",
                                  **session.bind("oa.ds_low", 0.0))
    high = filters[1].number_input("to", 0.0, 1.0, step=0.05, format="%.2f",
                                   **session.bind("oa.ds_high", 1.0))
    kind = filters[2].selectbox("Op kind", ["", *kinds], format_func=lambda k: k or "(any)",
                                **session.bind("oa.ds_kind", "", options=["", *kinds]))
    pattern = filters[3].selectbox("Path pattern", ["", *patterns],
                                   format_func=lambda p: p or "(any)",
                                   **session.bind("oa.ds_pattern", "", options=["", *patterns]))
    statuses = ["", runstats.FAILED, *STATUSES]
    status = filters[4].selectbox("Status", statuses, format_func=lambda s: s or "(any)",
                                  **session.bind("oa.ds_status", "", options=statuses))
    search, sort, order = st.columns([3, 2, 1], vertical_alignment="bottom")
    text = search.text_input("Search id, top op or problem", **session.bind("oa.ds_text", ""))
    column = sort.selectbox("Sort by", dataset_views.sort_columns(),
                            format_func=dataset_views.SORTS.get,
                            **session.bind("oa.ds_sort", "score",
                                           options=dataset_views.sort_columns()))
    descending = order.checkbox("Descending", **session.bind("oa.ds_desc", False))
    shown = dataset_views.sort_pairs(
        runstats.filter_pairs(scored, low=low, high=high, kind=kind, pattern=pattern, text=text,
                              status=status), column, descending)
    dataset_page.pairs_table(shown, len(scored.frame), key=data.run_key(run), scored=scored,
                             openable=not data.runs[run].results)
    dataset_page.open_controls(data, name, run, scored.frame)


pairs(data, name, run, scored)
dataset_page.downloads(data, name, run, scored)
workers = dataset_state.WORKERS if len(scored.frame) >= dataset_state.SMALL_RUN else 1
how = (f"read from the run cache in {scored.seconds:.1f} s (scored before by this code)"
       if scored.stored else f"scored in {scored.seconds:.1f} s "
       + (f"with {workers} worker processes " if workers > 1 else "") + "(cached afterwards)")
st.caption(f"{len(scored.frame)} pairs {how}; this view rendered in "
           f"{(time.perf_counter() - started) * 1000:.0f} ms.")
