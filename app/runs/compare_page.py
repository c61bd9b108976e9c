"""Sections of the Compare runs page: the headline numbers, one document's two outputs
side by side, and the tables of regressions, patterns and fields that moved."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from oa_core.runs import runstats
from oa_core.runs.dataset import Dataset, ScoredRun
from oa_core.runs.runstats import Comparison

from .. import views
from ..text import md_escape, md_inline
from . import dataset_page, dataset_state

CHART = "w.cmp_chart"
DOCUMENT = "oa.cmp_doc"
SHOWN_ROWS = 15


def headline(comparison: Comparison, a: ScoredRun, b: ScoredRun) -> None:
    """Means, the paired difference with its 95% CI, and wins/ties/losses."""
    diff = comparison.difference
    cells = st.columns(4)
    cells[0].metric(f"Mean of A ({md_inline(a.name)})",
                    views.fmt_score(float(comparison.pairs["score_a"].mean()), headline=True))
    cells[1].metric(f"Mean of B ({md_inline(b.name)})",
                    views.fmt_score(float(comparison.pairs["score_b"].mean()), headline=True))
    cells[2].metric("B − A", f"{diff.estimate:+.4f}",
                    help=f"paired bootstrap 95% CI [{diff.low:+.4f}, {diff.high:+.4f}]")
    cells[3].metric("Wins / ties / losses of B",
                    f"{comparison.wins} / {comparison.ties} / {comparison.losses}")
    verdict = ("B is better" if diff.low > 0 else "B is worse" if diff.high < 0 else
               "no significant difference")
    st.caption(f"Mean difference B − A {diff.estimate:+.4f}, paired bootstrap 95% CI "
               f"[{diff.low:+.4f}, {diff.high:+.4f}] over {len(comparison.pairs):,} documents "
               f"scored in both runs: {verdict} at this level."
               + (f" {len(comparison.only_a)} ids only in A, {len(comparison.only_b)} only "
                  "in B." if comparison.only_a or comparison.only_b else ""))


def on_click() -> None:
    """A scatter point was clicked: show that document side by side."""
    event = st.session_state.get(CHART)
    points = getattr(getattr(event, "selection", None), "points", None)
    if points is None and isinstance(event, dict):
        points = event.get("selection", {}).get("points")
    if points:
        st.session_state[DOCUMENT] = str(points[0]["customdata"])


def _candidate_text(data: Dataset, run: str, row: int) -> str:
    try:
        item = data.pair(run, row)
    except Exception:  # a bad line: nothing to show but its problem
        return ""
    if "candidate" in item:
        return json.dumps(item["candidate"], ensure_ascii=False, indent=1)
    return str(item.get("prediction", ""))


def _one_side(data: Dataset, name: str, run: ScoredRun, document: str, key: str) -> None:
    rows = run.frame.index[run.frame["id"] == document].tolist()
    if not rows:
        st.info(f"Run {md_inline(run.name)} has no document “{md_inline(document)}”.")
        return
    row = int(rows[0])
    record = run.frame.iloc[row]
    st.markdown(f"**Run {md_inline(run.name)}**: score **{views.fmt_score(record['score'])}** "
                f"(output {md_escape(str(record['status']))})")
    if record["problem"]:
        st.caption(md_escape(str(record["problem"])))
    ops = run.records[row].get("ops") or []
    if ops:
        st.dataframe(pd.DataFrame([{"op": o["kind"], "path": o["path"], "delta": o["delta"]}
                                   for o in ops]), hide_index=True, key=f"ops_{key}",
                     column_config={"delta": st.column_config.NumberColumn(format="%+.4f")})
    st.code(dataset_state.excerpt(_candidate_text(data, run.name, row), 4000) or "(nothing)",
            language="json", height=260, wrap_lines=True)  # outputs are often one line
    if st.button(f"Open run {run.name}'s pair in Overview", key=f"open_{key}"):
        if dataset_state.open_pair(data, name, run.name, row, document):
            st.switch_page(dataset_page.ROOT / "pages" / "overview.py")
        st.rerun()


def side_by_side(data: Dataset, name: str, document: str, a: ScoredRun, b: ScoredRun) -> None:
    """One document's output in each run, next to each other."""
    st.subheader(f"“{md_inline(document)}”: A and B side by side")
    left, right = st.columns(2)
    with left:
        _one_side(data, name, a, document, "a")
    with right:
        _one_side(data, name, b, document, "b")


def tables(comparison: Comparison, run_a: str, run_b: str) -> None:
    """The documents that regressed most, and the patterns and fields that moved."""
    number = st.column_config.NumberColumn(format="%.4f")
    signed = st.column_config.NumberColumn(format="%+.4f")
    st.subheader("Documents whose content regressed most")
    st.caption("Documents whose output is a format failure in either run (cut off, refused, "
               "not JSON, empty) are left out: their score measures the format. The new "
               "format failures of B are counted below.")
    worst = runstats.regressions(comparison, SHOWN_ROWS)
    if worst.empty:
        st.success("No document readable in both runs scores lower in B.",
                   icon=":material/check_circle:")
    else:
        st.dataframe(worst[["id", "score_a", "score_b", "diff"]].rename(columns={
            "score_a": f"A ({run_a})", "score_b": f"B ({run_b})", "diff": "change"}),
            hide_index=True, key="regressions", column_config={
                f"A ({run_a})": number, f"B ({run_b})": number, "change": signed})
    failed = runstats.new_failures(comparison)
    if len(failed):
        kinds = failed["status_b"].value_counts(sort=False)
        st.markdown(f"**{len(failed)} format failure{'s' * (len(failed) != 1)} new in B** ("
                    + ", ".join(f"{md_escape(str(k))} {int(n)}" for k, n in kinds.items())
                    + "): readable in A, not in B.")
        st.dataframe(failed[["id", "score_a", "score_b", "status_b"]].rename(columns={
            "score_a": f"A ({run_a})", "score_b": f"B ({run_b})", "status_b": "B's output"}),
            hide_index=True, key="new_failures", height=min(260, 38 + 35 * len(failed)),
            column_config={f"A ({run_a})": number, f"B ({run_b})": number})
    left, right = st.columns(2)
    with left:
        st.subheader("Error patterns that moved")
        st.caption("Mean loss per pair in each run; positive change: the pattern grew in B.")
        st.dataframe(comparison.patterns.head(SHOWN_ROWS * 2), hide_index=True,
                     key="pattern_changes", column_config={
                         "loss_a": number, "loss_b": number, "change": signed})
    with right:
        st.subheader("Field F1")
        st.caption("F1 per field in each run (Field metrics' counting rule); a dash: no "
                   "value of that field in the run.")
        st.dataframe(comparison.fields, hide_index=True, key="field_changes", column_config={
            "f1_a": number, "f1_b": number, "change": signed}, placeholder="—")


def report_button(data: Dataset, name: str, a: ScoredRun, b: ScoredRun) -> None:
    """The HTML report of both runs and their comparison (made when pressed)."""
    from oa_core.runs import html_report

    title = f"{data.title or name} · run {b.name} against run {a.name}"
    st.download_button("HTML report of both runs",
                       lambda: html_report.build(data, [a, b], title=title),
                       file_name=f"{name}-{a.name}-vs-{b.name}-report.html".replace("/", "_"),
                       mime="text/html", key="dl_compare_html", on_click="ignore")
