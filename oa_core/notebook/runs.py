"""Run-level results in a notebook: a batch summary, a dataset, a scored run and a
run-vs-run comparison, each as its tables (pandas DataFrames) with the summary above.

pandas is imported only when a table is made. Tables show their first
:data:`~oa_core.notebook.html.PAGE` rows; the rest fold into a "show more" (at most
:data:`MAX_ROWS` rows are written out: the DataFrame holds them all).

Examples
--------
>>> from oa_core.runs.batch import iter_batch, summarize
>>> schema = {"type": "object", "properties": {"city": {"type": "string"}}}
>>> lines = ['{"gold": {"city": "Paris"}, "candidate": {"city": "Pari"}}']
>>> summary = summarize(list(iter_batch(lines, schema)))
>>> summary_frame(summary)[["path", "kind", "count"]].to_dict("records")
[{'path': '/city', 'kind': 'primitive-value', 'count': 1}]
>>> "1 scored" in batch_summary_html(summary)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .html import PAGE, esc, fmt, page_note, view

if TYPE_CHECKING:
    import pandas as pd

    from ..runs.batch import BatchSummary
    from ..runs.dataset import Dataset, ScoredRun
    from ..runs.runstats import Comparison

__all__ = ["MAX_ROWS", "batch_summary_html", "comparison_html", "dataset_html",
           "frame_html", "run_html", "summary_frame"]

MAX_ROWS = 500
"""Rows of a table written into the page at most."""


def frame_html(frame: pd.DataFrame, *, first: int = PAGE, noun: str = "rows") -> str:
    """A DataFrame as an escaped, themed table; rows past ``first`` folded.

    >>> import pandas as pd
    >>> html = frame_html(pd.DataFrame({"key": ["<b>x</b>"]}))
    >>> "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    True
    """
    def block(part: pd.DataFrame) -> str:
        return str(part.to_html(escape=True, index=False, border=0, classes="oa",
                                na_rep="—", float_format=lambda v: f"{v:.4f}"))

    shown = block(frame.head(first))
    rest = frame.iloc[first:MAX_ROWS]
    if rest.empty:
        return shown
    over = len(frame) - MAX_ROWS
    note = (f'<p class="muted">{over} more {noun} not written here: read them from the '
            "DataFrame.</p>" if over > 0 else "")
    return (shown + f'<details class="more"><summary>{page_note(len(rest), noun)}</summary>'
            f"{block(rest)}{note}</details>")


def summary_frame(summary: BatchSummary) -> pd.DataFrame:
    """The repair-operation patterns of a batch as a DataFrame (``path``, ``kind``,
    ``count``, ``loss``); ``attrs["summary"]`` holds the counts and quantiles."""
    import pandas as pd

    frame = pd.DataFrame(summary.patterns, columns=["path", "kind", "count", "loss"])
    frame.attrs["summary"] = {key: value for key, value in summary.to_dict().items()
                              if key != "patterns"}
    return frame


def _quantiles(stats: dict[str, Any]) -> str:
    return " · ".join(f"{esc(name)} {fmt(value)}" for name, value in stats.items()
                      if (name.startswith("p") or name == "mean")
                      and (value is None or isinstance(value, float)))


def batch_summary_html(summary: BatchSummary) -> str:
    """A batch summary: counts, score quantiles, the most frequent operations."""
    internal = f", {summary.internal} internal errors" if summary.internal else ""
    body = (f"<p><b>{summary.count} scored</b>, {summary.failed} failed, "
            f"{summary.unparsable} unparsable predictions{internal}</p>"
            f"<p>score: {_quantiles(summary.quantiles())}</p>")
    if summary.patterns:
        body += ("<h4>Repair operations by path pattern, most frequent first</h4>"
                 + frame_html(summary_frame(summary), noun="patterns"))
    return view(body, label="batch summary")


def dataset_html(data: Dataset) -> str:
    """A dataset: what it is, its runs and the lines that could not be used."""
    import pandas as pd

    runs = pd.DataFrame([{"run": run.name, "file": run.file, "pairs": len(run),
                          "kind": "scored records" if run.results else "documents"}
                         for run in data.runs.values()])
    body = (f"<h4>Dataset {esc(data.title or data.name)}</h4>"
            + (f"<p>{esc(data.description)}</p>" if data.description else "")
            + frame_html(runs, noun="runs"))
    if data.bad_lines:
        bad = pd.DataFrame([bad.to_dict() for bad in data.bad_lines])
        body += f"<h4>{len(data.bad_lines)} bad line(s)</h4>" + frame_html(bad, noun="lines")
    return view(body, label=f"dataset {data.name}")


def run_html(run: ScoredRun) -> str:
    """A scored run: the mean with its bootstrap interval, quantiles, the histogram,
    the error patterns and the pairs, worst first."""
    from ..runs.html_report import histogram_html
    from ..runs.runstats import error_patterns, summary

    stats = summary(run)
    mean = stats["mean"]
    body = (f"<h4>Run {esc(run.name)}</h4><p><b>mean {fmt(mean.estimate)}</b> "
            f"[{fmt(mean.low)}, {fmt(mean.high)}] (95% bootstrap) · {stats['n']} pairs, "
            f"{stats['scored']} scored, {stats['unparsable']} unparsable, "
            f"{stats['errors']} errors</p><p>{_quantiles(stats)}</p>"
            + histogram_html([(run.name, run.scores)])
            + "<h4>Error patterns, costliest first</h4>"
            + frame_html(error_patterns(run).head(MAX_ROWS), first=10, noun="patterns")
            + "<h4>Pairs, worst first</h4>"
            + frame_html(run.frame.sort_values(["score", "row"], na_position="first",
                                               kind="stable")
                         [["row", "id", "score", "status", "top_op", "problem"]],
                         first=10, noun="pairs"))
    return view(body, label=f"run {run.name}")


def comparison_html(comparison: Comparison) -> str:
    """Run B against run A: the paired difference with its interval, wins and losses,
    the patterns that moved most and the field F1 changes."""
    diff = comparison.difference
    verdict = ("B is better" if diff.low > 0 else "B is worse" if diff.high < 0 else
               "no clear difference (the interval holds 0)")
    body = (f"<h4>Run B − run A</h4><p><b>{fmt(diff.estimate)}</b> [{fmt(diff.low)}, "
            f"{fmt(diff.high)}] (paired bootstrap, {diff.level:.0%}): {esc(verdict)}</p>"
            f"<p>{comparison.wins} wins, {comparison.ties} ties, {comparison.losses} losses "
            f"over {len(comparison.pairs)} documents both runs scored</p>"
            "<h4>Patterns that moved most</h4>"
            + frame_html(comparison.patterns, first=10, noun="patterns")
            + "<h4>Field F1</h4>" + frame_html(comparison.fields, first=10, noun="fields"))
    return view(body, label="run comparison")
