"""Field metrics: TP, FP, FN, precision, recall and F1 per path pattern over the run,
with the counting rule spelled out and its credit threshold as a control."""

import time

import streamlit as st

from app import session, views
from app.runs import dataset_state, dataset_views
from app.text import md_inline
from oa_core.runs import runstats

RULE = ("**Counting rule.** Every primitive value (string, number, boolean, null, id, "
        "reference) of gold and candidate is one observation at its path pattern. A value "
        "aligned with its gold counterpart at a similarity of at least the **credit "
        "threshold** is a true positive (TP); aligned below it, or of another type, it is a "
        "**wrong value** (a false positive, FD) *and* a false negative (FN, the right one "
        "not given); a gold value with no counterpart (inside a missing record, key or item "
        "too) is an FN, a candidate value with none a **spurious value** (a false positive, "
        "FA). FP = wrong + spurious, as Stickler splits them. An output with no JSON gives "
        "its gold's values as FNs. Values where no gold has a field (inside a value of the "
        "wrong type, such as a list where the gold has an object, or under keys no gold "
        "uses) are one **(wrong shape)** row, not rows of their own. Precision = TP / "
        "(TP + FP), recall = TP / (TP + FN), F1 their harmonic mean; a dash: no value to "
        "divide by. The last row sums every field (micro average). Also from `oa batch "
        "--field-metrics`.")

started = time.perf_counter()
st.title("Field metrics")
opened = dataset_state.opened_run()
data, name, run, scored = opened.data, opened.name, opened.run, opened.scored
if data.runs[run].results:
    st.info("This run is an `oa batch` output: it holds scores, not documents, so there are "
            "no field observations. Load the pairs file it was scored from (or run "
            "`oa batch --field-metrics`).", icon=":material/info:")
    st.stop()
st.markdown(f"Run **{md_inline(run)}**, {len(scored.frame):,} pairs.")
st.markdown(RULE)
threshold = st.slider("Credit threshold", 0.0, 1.0, step=0.05,
                      **session.bind("oa.fm_threshold", 0.5))
metrics = runstats.field_metrics(scored, threshold)
total = metrics.iloc[-1]
cells = st.columns(3)
for cell, column in zip(cells, ("precision", "recall", "f1"), strict=True):
    value = total[column]
    cell.metric(f"{'F1' if column == 'f1' else column.capitalize()} (all fields)",
                "—" if value != value else views.fmt_score(value, headline=True),
                help=None if value != value else views.fmt_score(value))
columns = {
    "field": st.column_config.TextColumn("field (path pattern)", width="large"),
    "tp": st.column_config.NumberColumn("TP"),
    "fp": st.column_config.NumberColumn("FP", help="false positives: wrong + spurious"),
    "fd": st.column_config.NumberColumn("FP: wrong", help="a value where the gold has "
                                        "another (false discovery)"),
    "fa": st.column_config.NumberColumn("FP: spurious", help="a value where the gold has "
                                        "none (false alarm)"),
    "fn": st.column_config.NumberColumn("FN"),
    **{c: st.column_config.NumberColumn(format="%.4f") for c in ("precision", "recall", "f1")}}
st.dataframe(metrics, hide_index=True, key="field_table", placeholder="—", column_config=columns,
             height=min(38 + 35 * len(metrics), 760))  # every field in view, up to ~20
st.plotly_chart(dataset_views.field_bars(metrics), key="field_bars", config=views.PLOTLY_CONFIG)
st.download_button("Field metrics (CSV)", metrics.to_csv(index=False),
                   file_name=f"{name}-{run}-fields.csv".replace("/", "_"), mime="text/csv",
                   on_click="ignore")
st.caption(f"{len(scored.fields):,} field observations; this view rendered in "
           f"{(time.perf_counter() - started) * 1000:.0f} ms.")
