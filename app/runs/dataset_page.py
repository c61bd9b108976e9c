"""Sections of the run-level pages drawn with Streamlit: headline metrics, bad lines,
the pairs table with its click-to-open, and the downloads (CSV, Parquet, HTML report).

The pages call these; the numbers and tables come from :mod:`oa_core.runs.runstats`, the
charts from :mod:`app.runs.dataset_views`.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import streamlit as st

from oa_core.runs import html_report, runstats
from oa_core.runs.dataset import Dataset, ScoredRun

from .. import session, views
from ..text import md_inline
from . import dataset_state, dataset_views

ROOT = Path(__file__).resolve().parents[2]  # the repository: pages/ is next to app/
VIEWS = {"overview": ("Overview", "overview.py"), "match-tree": ("Match tree", "match_tree.py"),
         "referential": ("Referential alignment", "referential.py"),
         "feedback": ("Feedback", "feedback.py")}
"""The single-pair views a dataset pair opens in: URL name -> (title, page file)."""
TABLE = "w.ds_table"
SHOWN = "oa.ds_shown"  # the ids of the table's rows as shown (for a click)
PENDING = "oa.ds_open"  # a row clicked: (row, id), opened on the next run


def summary_metrics(summary: dict[str, Any], bad: int) -> None:
    """n, the mean with its 95% bootstrap interval, the median and the failure counts
    (format failures: outputs cut off, refused, not JSON or empty)."""
    mean = summary["mean"]
    cells = st.columns(5)
    cells[0].metric("Pairs", f"{summary['n']:,}")
    cells[1].metric("Mean score", views.fmt_score(mean.estimate, headline=True),
                    help=f"{views.fmt_score(mean.estimate)}; 95% bootstrap interval "
                         f"[{views.fmt_score(mean.low)}, {views.fmt_score(mean.high)}] "
                         "(2,000 resamples, fixed seed)")
    cells[2].metric("Median", views.fmt_score(summary["p50"], headline=True))
    cells[3].metric("Format failures", summary["format_failures"],
                    help="Outputs cut off, refused, not JSON or empty: their score measures "
                         f"the format, not the content ({summary['unparsable']} had no JSON "
                         "at all and scored 0). Listed below, apart from content errors.")
    cells[4].metric("Bad lines", bad + summary["errors"],
                    help="Lines that could not be read or joined, or not scored.")
    st.caption(f"Mean {views.fmt_score(mean.estimate)}, 95% CI "
               f"[{views.fmt_score(mean.low)}, {views.fmt_score(mean.high)}] "
               "(percentile bootstrap over documents).")


def quantile_table(summary: dict[str, Any]) -> None:
    """The score quantiles as a small table."""
    names = ("p10", "p25", "p50", "p75", "p90")
    st.dataframe(pd.DataFrame({"quantile": ["10%", "25%", "50% (median)", "75%", "90%"],
                               "score": [summary[n] for n in names]}),
                 hide_index=True, column_config={"score": st.column_config.NumberColumn(
                     format="%.4f")}, key="quantiles")


def bad_lines(data: Dataset, scored: ScoredRun) -> None:
    """The lines that could not be used, with file, line, pointer and fix."""
    errors = scored.frame[scored.frame["status"] == "error"]
    rows = [bad.to_dict() for bad in data.bad_lines_of(scored.name)]
    rows += [{"file": data.runs[scored.name].file, "line": int(line), "pointer": "",
              "message": problem, "fix": "see the message"}
             for line, problem in zip(errors["line"], errors["problem"], strict=True)]
    if not rows:
        return
    with st.expander(f"{len(rows)} bad line{'s' * (len(rows) != 1)}: listed here, the "
                     "rest loaded", expanded=False, icon=":material/report:"):
        st.dataframe(pd.DataFrame(rows, columns=["file", "line", "pointer", "message", "fix"]),
                     hide_index=True, key="bad_lines",
                     column_config={"line": st.column_config.NumberColumn(
                         help="0: about the file as a whole")})


def format_failures(scored: ScoredRun) -> None:
    """The run's format failures as their own group: how many of each kind, a few ids,
    and a button listing them all in the pairs table (sorted apart from content errors,
    :func:`app.runs.dataset_views.sort_pairs`)."""
    found = runstats.format_failures(scored)
    if not found.count:
        return
    with st.expander(f"{found.render()}: apart from the content errors",
                     icon=":material/rule:", key="w.ds_failures_open"):
        st.caption("Their score measures the format, not the content: a cut-off output is "
                   "scored on the fragment that could be read, a refused or empty one is "
                   "scored 0. The table below sorts them after the content errors; open one "
                   "to see what the model wrote.")
        st.dataframe(pd.DataFrame({
            "kind": list(found.kinds), "pairs": list(found.kinds.values()),
            "examples": [", ".join(found.examples[k]) for k in found.kinds]}),
            hide_index=True, key="format_failures")
        st.button("List them in the table", key="w.ds_failures_show",
                  on_click=_filter_status, args=(runstats.FAILED,))


def _filter_status(status: str) -> None:
    state = st.session_state
    pending = state.get(session.URL_PENDING) or {}
    pending.pop(session.url_name("oa.ds_status"), None)
    state["oa.ds_status"] = status


def _on_click() -> None:
    """A row was clicked: open it on the next run (a callback cannot switch pages)."""
    selection = st.session_state.get(TABLE)
    rows = getattr(getattr(selection, "selection", None), "rows", None)
    if rows is None and isinstance(selection, dict):
        rows = selection.get("selection", {}).get("rows")
    shown = st.session_state.get(SHOWN) or []
    if rows and rows[0] < len(shown):
        st.session_state[PENDING] = shown[rows[0]]


OPEN_COLUMN = dataset_views.OPEN_COLUMN
OPEN_CLICK = "w.ds_open_click"


def _on_open_click() -> None:
    """The row's Open button was clicked: open that pair on the next run.

    A button cell reaches the server at once, while Streamlit sends a row selection
    150 ms after the click (it debounces selections): the button is the quick way."""
    click = st.session_state.get(OPEN_CLICK)
    row = click.get("row") if click is not None else None
    shown = st.session_state.get(SHOWN) or []
    if isinstance(row, int) and 0 <= row < len(shown):
        st.session_state[PENDING] = shown[row]


MAX_ROWS = 2000
"""Rows the pairs table sends to the browser (sort and filter reach the others)."""


@st.cache_resource(max_entries=16, show_spinner=False)
def _display(key: str, _scored: ScoredRun) -> pa.Table:
    """The run's pairs table as Arrow, made once per run (``key``: its content hash)."""
    return dataset_views.table_arrow(_scored.frame)


def pairs_table(shown: pd.DataFrame, total: int, *, key: str = "",
                scored: ScoredRun | None = None, openable: bool = True) -> None:
    """The filtered, sorted pairs (the first :data:`MAX_ROWS`); a row's Open button, or a
    click on the row, opens it.

    With the run's content hash ``key`` and the ``scored`` run, the rows are taken from
    the run's Arrow table (:func:`_display`) instead of converting ``shown`` again.
    Without ``openable`` (an ``oa batch`` results file: scores, no documents) the table
    has no Open buttons and no row selection.
    """
    cut = f" (the first {MAX_ROWS:,} shown: sort or filter to reach the others)" if len(
        shown) > MAX_ROWS else ""
    how = ("Open (or a click on a row) shows the pair in the view chosen below; the sidebar "
           "leads back to this table." if openable else
           "This run is an oa batch results file: it holds scores, not documents, so its "
           "pairs cannot be opened (load the pairs file it was scored from to open them).")
    st.caption(f"{len(shown):,} of {total:,} pairs match the filters{cut}. {how}")
    shown = shown.head(MAX_ROWS)
    st.session_state[SHOWN] = list(zip(shown["row"].tolist(), shown["id"].tolist(),
                                       strict=True))
    data = (_display(key, scored).take(pa.array(shown["row"].to_numpy(), pa.int64()))
            if key and scored is not None else dataset_views.table_view(shown))
    columns: dict[str, Any] = {
        "score": st.column_config.NumberColumn(format="%.4f"),
        "deficit": st.column_config.NumberColumn(format="%.4f"),
        "op count": st.column_config.NumberColumn(help="repair operations"),
        "problem": st.column_config.TextColumn(width="medium")}
    select: dict[str, Any] = {}
    if openable:
        columns[OPEN_COLUMN] = st.column_config.ButtonColumn(
            "", type="tertiary", on_click=_on_open_click, key=OPEN_CLICK, width="small",
            help="Open this pair in the view chosen below")
        select = {"on_select": _on_click, "selection_mode": "single-row"}
    else:
        data = (data.drop_columns([OPEN_COLUMN]) if isinstance(data, pa.Table)
                else data.drop(columns=[OPEN_COLUMN]))
    st.dataframe(data, key=TABLE, hide_index=True, column_config=columns,
                 height=min(420, 38 + 35 * max(len(shown), 1)), **select)


FAILED = "oa.ds_failed"  # (row, id) of a pair that could not be opened: its raw text shows


def _open(data: Dataset, name: str, run: str, row: int, identifier: str) -> None:
    view = st.session_state.get("oa.ds_view") or "overview"
    if dataset_state.open_pair(data, name, run, row, identifier):
        st.switch_page(ROOT / "pages" / VIEWS.get(view, VIEWS["overview"])[1])
    st.session_state[FAILED] = (row, identifier)
    st.rerun()  # show why it could not open


PICK = "w.ds_pick"
_PICKED = "oa.ds_picked"  # an id typed and entered: opened on this run


def _on_pick() -> None:
    """Enter in the id box opens that pair, as the Open button does."""
    st.session_state[_PICKED] = True


def open_clicked(data: Dataset, name: str, run: str) -> None:
    """Open the row clicked in the table, if any (switches page: call it first, before
    the table is filtered, sorted and sent again for nothing)."""
    pending = st.session_state.pop(PENDING, None)
    if pending is not None:
        _open(data, name, run, int(pending[0]), str(pending[1]))


def open_controls(data: Dataset, name: str, run: str, pairs: pd.DataFrame) -> None:
    """Which view a click opens, and an id box + button to open a pair from the keyboard.

    The box takes any id of the run (``pairs``: the run's whole table). It is a text box,
    not a picker of the ids shown: a picker sends its up to 2,000 options to the browser
    on every sort and filter, which costs the browser more than the table does.
    """
    left, middle, right = st.columns([3, 3, 1], vertical_alignment="bottom")
    left.radio("Open pairs in", list(VIEWS), format_func=lambda v: VIEWS[v][0],
               horizontal=True, **session.bind("oa.ds_view", "overview", options=list(VIEWS)))
    middle.text_input("Open the pair with id", key=PICK, placeholder="an id (Enter opens it)",
                      on_change=_on_pick)
    picked = str(st.session_state.get(PICK) or "").strip()
    entered = st.session_state.pop(_PICKED, False)
    # never disabled: a typed id reaches the server only when the box loses the focus,
    # which a click on the button does
    if (right.button("Open", key="w.ds_open_button") or entered) and picked:
        found = pairs.index[pairs["id"] == picked]
        if len(found):
            _open(data, name, run, int(pairs.at[found[0], "row"]), picked)
        st.caption(f"Run {md_inline(run)} has no pair with the id “{md_inline(picked)}”.")
    failed = st.session_state.pop(FAILED, None)
    if failed is not None:
        text = dataset_state.raw_text(data, run, int(failed[0]))
        who, what = md_inline(run), md_inline(str(failed[1]))
        st.caption(f"What run {who} gave for “{what}” ({len(text):,} characters"
                   + (", the first 3,000 shown" if len(text) > 3000 else "") + "):"
                   if text else f"Run {who} gave nothing for “{what}”.")
        if text:
            st.code(text[:3000], language=None, wrap_lines=True)


@st.cache_resource(max_entries=8, show_spinner="Writing the report…")
def _report(key: str, title: str, _data: Dataset, _scored: ScoredRun) -> str:
    return html_report.build(_data, [_scored], title=title)


def export_frame(scored: ScoredRun) -> pd.DataFrame:
    """The per-pair table as exported (CSV, Parquet)."""
    return scored.frame.drop(columns=["row"])


def parquet_bytes(scored: ScoredRun) -> bytes:
    """The per-pair table as Parquet."""
    buffer = io.BytesIO()
    export_frame(scored).to_parquet(buffer, index=False)
    return buffer.getvalue()


def downloads(data: Dataset, name: str, run: str, scored: ScoredRun) -> None:
    """Per-pair results as CSV and Parquet, and the self-contained HTML report (each made
    when its button is pressed, so a big run's page does not write them on every run)."""
    st.subheader("Download")
    stem = f"{name}-{run}".replace("/", "_")
    title = f"{data.title or name} · run {run}"
    key = data.run_key(run)
    cells = st.columns(3)
    cells[0].download_button("Per-pair results (CSV)",
                             lambda: export_frame(scored).to_csv(index=False),
                             file_name=f"{stem}.csv", mime="text/csv", key="dl_csv",
                             on_click="ignore")
    cells[1].download_button("Per-pair results (Parquet)", lambda: parquet_bytes(scored),
                             file_name=f"{stem}.parquet",
                             mime="application/vnd.apache.parquet", key="dl_parquet",
                             on_click="ignore")
    cells[2].download_button("HTML report", lambda: _report(key, title, data, scored),
                             file_name=f"{stem}-report.html", mime="text/html", key="dl_html",
                             on_click="ignore")
    st.caption("The report is one HTML file (no network needed): summary, histogram, error "
               "patterns, field metrics and the worst documents with their aligned diffs "
               "and feedback. `oa report` writes the same from the command line.")


# --------------------------------------------------------------------------- patterns

PATTERN_CHART = "w.ep_chart"
_PATTERN_GO = "oa.ep_go"


def show_pattern(pattern: str, kind: str) -> None:
    """Filter the Dataset table to the pairs with ``kind`` at ``pattern`` (other filters
    cleared), and go there on the next run."""
    state = st.session_state
    chosen = {"oa.ds_pattern": pattern, "oa.ds_kind": kind, "oa.ds_text": "",
              "oa.ds_status": "", "oa.ds_low": 0.0, "oa.ds_high": 1.0}
    pending = state.get(session.URL_PENDING) or {}
    for name in chosen:  # a value of the opening URL must not come back over this choice
        pending.pop(session.url_name(name), None)
    state.update(chosen)
    state[_PATTERN_GO] = True


def on_pattern_click() -> None:
    """A heat-map cell was clicked (its customdata is ``[pattern, kind]``)."""
    event = st.session_state.get(PATTERN_CHART)
    points = getattr(getattr(event, "selection", None), "points", None)
    if points is None and isinstance(event, dict):
        points = event.get("selection", {}).get("points")
    if points:
        pattern, kind = points[0]["customdata"][:2]
        show_pattern(str(pattern), str(kind))


def pattern_pending() -> bool:
    """Whether a pattern was chosen and the Dataset page should now show its pairs."""
    return bool(st.session_state.pop(_PATTERN_GO, False))


def pattern_table(patterns: pd.DataFrame) -> None:
    """The patterns as a table, and a picker + button doing what a cell click does."""
    st.dataframe(patterns.rename(columns={"mean_loss": "mean loss", "count": "ops"}),
                 hide_index=True, key="pattern_table", column_config={
                     "loss": st.column_config.NumberColumn("summed loss", format="%.4f"),
                     "mean loss": st.column_config.NumberColumn(format="%.4f")})
    cells = [f"{p}\t{k}" for p, k in zip(patterns["pattern"], patterns["kind"], strict=True)]
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    left.selectbox("List the pairs with", cells, index=None, key="w.ep_pick",
                   placeholder="a pattern and op kind",
                   format_func=lambda c: " · ".join(c.split("\t")))
    picked = st.session_state.get("w.ep_pick")
    if right.button("Show these pairs", disabled=picked is None, key="w.ep_show"):
        pattern, kind = str(picked).split("\t")
        show_pattern(pattern, kind)
        st.session_state.pop(_PATTERN_GO, None)
        st.switch_page(ROOT / "pages" / "dataset.py")
