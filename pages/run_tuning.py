"""Run tuning: the schema's weights, comparators and thresholds applied to a whole run;
the new mean, the rank correlation with the old ranking, the documents that moved."""

import json
import time

import streamlit as st

from app import session, views
from app.runs import dataset_state, run_tuning
from app.text import md_escape, md_inline
from oa_core import OAError, Schema
from oa_core.runs import runstats
from oa_core.runs.html_report import histogram_html

started = time.perf_counter()
st.title("Run tuning")
opened = dataset_state.opened_run()
data, name, run, before = opened.data, opened.name, opened.run, opened.scored
st.markdown(f"Change a scoring setting of the schema: every pair of run **{md_inline(run)}** "
            "is rescored with it (in worker processes, cached), and the verdict is compared "
            "with the original schema's. A • marks an edited setting; the edits are in the "
            "link.")
edits = run_tuning.edits()
try:
    schema = Schema.parse(data.schema)
    edited = session.apply_edits(data.schema, edits)
    Schema.parse(edited)
except (OAError, LookupError, TypeError, ValueError) as exc:
    message = exc.message if isinstance(exc, OAError) else str(exc)
    st.error(f"**These edits do not make a valid schema:** {md_escape(message)}",
             icon=":material/warning:")
    st.button("Reset the edits", on_click=run_tuning.reset)
    st.stop()
job = run_tuning.rescoring(data, run, edited) if edits else None
if job is not None and job.error is not None:
    dataset_state.show_error(job.error, f"rescore run {run}")
    st.button("Reset the edits", on_click=run_tuning.reset)
    st.stop()
after, ready = run_tuning.shown(job, before)
if job is not None and not ready:
    run_tuning.progress(job, run)
rho, moves = runstats.rank_change(before, after)
old, new = before.scores.mean(), after.scores.mean()
cells = st.columns(4)
cells[0].metric("Mean, original schema", views.fmt_score(old, headline=True))
cells[1].metric("Mean, edited schema" if ready else "Mean, previous edits",
                views.fmt_score(new, headline=True),
                delta=f"{new - old:+.4f}" if edits and after is not before else None)
cells[2].metric("Rank correlation (Spearman)", "—" if rho != rho else f"{rho:.4f}",
                help="Spearman's rho between the documents' scores under the two schemas: "
                     "1 means the ranking of the documents did not change.")
moved = int((moves["change"].abs() > runstats.TIE).sum())
cells[3].metric("Documents that moved", f"{moved:,} of {len(moves):,}")
if edits:
    st.caption(f"{len(edits)} edit{'s' * (len(edits) != 1)}: "
               + "; ".join(f"{md_inline(k)} = {md_inline(json.dumps(v))}"
                           for k, v in edits.items()))
    st.button("Reset the edits", on_click=run_tuning.reset)
    st.download_button("Edited schema (JSON)", json.dumps(edited, indent=2),
                       file_name=f"{name}-schema-tuned.json", mime="application/json",
                       on_click="ignore")
else:
    st.info("No edit yet: change a setting below to rescore the run.",
            icon=":material/tune:")
left, right = st.columns([3, 2])
with left:
    st.html(histogram_html([("original", before.scores), ("edited", after.scores)] if edits
                          else [("original", before.scores)]))
with right:
    st.markdown("**Documents that moved most**")
    st.dataframe(moves.head(15)[["id", "before", "after", "change"]], hide_index=True,
                 key="rt_moves", height=260, column_config={
                     "before": st.column_config.NumberColumn(format="%.4f"),
                     "after": st.column_config.NumberColumn(format="%.4f"),
                     "change": st.column_config.NumberColumn(format="%+.4f")})
st.subheader("Settings")
run_tuning.knobs(schema)
st.caption(f"this view rendered in {(time.perf_counter() - started) * 1000:.0f} ms.")
