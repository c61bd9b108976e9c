"""A self-contained HTML report of a scored run (or two): ``oa report``.

One file, no scripts, no network: inline CSS and SVG only, so it opens from disk
anywhere and can be mailed or archived. It holds the summary (n, mean with a 95%
bootstrap interval, quantiles, failures), the score histogram, the error patterns
(path pattern x op kind), the field metrics, the format failures as their own group
(count, kinds, examples: a cut-off, refused or empty output scores by its format, not
its content), the worst documents by content with their aligned diff
(:func:`oa_core.report.explain_table`) and feedback, the bad lines, and with two runs
the paired comparison. Warnings about the schema (a misspelt keyword is ignored, and
changes the score) come first. Every piece of user text (ids, paths, values, file
names) is HTML-escaped. The output is deterministic: the same runs give the same bytes.

Examples
--------
>>> import json
>>> from oa_core.runs.dataset import from_files, score_run
>>> schema = {"type": "object", "properties": {"name": {"type": "string"}}}
>>> line = json.dumps({"id": "<script>", "gold": {"name": "Ann"},
...                    "candidate": {"name": "Anne"}})
>>> data = from_files({"schema.json": json.dumps(schema), "run.jsonl": line})
>>> page = build(data, [score_run(data, "run")], title="demo")
>>> "<script>" in page, "&lt;script&gt;" in page, "http" in page.replace("http-equiv", "")
(False, True, False)
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..aligner import align
from ..errors import OAError
from ..feedback import render_feedback
from ..jsonio import extract_json
from ..report import diagnostic_line, explain_table
from ..validation import schema_warnings
from . import runstats
from .dataset import Dataset, ScoredRun

__all__ = ["HISTOGRAM_COLORS", "build", "histogram_html"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;
max-width:1100px;padding:0 1rem;color:#1d1d1f;background:#fff}
h1{font-size:1.6rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f7f7f9;border:1px solid #e3e3e8;padding:.6rem;overflow-x:auto;font-size:12px}
.muted{color:#666}.doc{margin:1.2rem 0 2rem}.pill{display:inline-block;padding:0 .5rem;
border-radius:.6rem;background:#eef;margin-right:.4rem}
@media (prefers-color-scheme: dark){body{background:#111;color:#eee}th{background:#222}
pre{background:#1b1b1f;border-color:#333}th,td{border-color:#333}.muted{color:#aaa}
.pill{background:#234}}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _f(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.4f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]],
           numeric: Sequence[int] = (), shade: dict[int, list[float]] | None = None) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = []
    for r, row in enumerate(rows):
        cells = []
        for c, cell in enumerate(row):
            style = ""
            if shade and c in shade:
                level = shade[c][r]
                style = f' style="background:rgba(214,96,77,{0.08 + 0.6 * level:.3f})"'
            text = _f(cell) if isinstance(cell, float) else _e(cell)
            cells.append(f'<td{" class=n" if c in numeric else ""}{style}>{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


HISTOGRAM_COLORS = ("#2166ac", "#d6604d")
"""The colors of the first and the second run in :func:`histogram_html`."""

_HISTOGRAM_STYLE = """<style>
.oa-hist {font-size: 11px; max-width: 640px; margin: 0.25rem 0 0.75rem 0;}
.oa-hist .legend {display: flex; gap: 1.5rem; margin-bottom: 0.3rem; font-size: 12px;}
.oa-hist .legend i {display: inline-block; width: 12px; height: 12px; margin-right: 6px;
  vertical-align: -1px;}
.oa-hist .plot {position: relative; height: 170px; margin: 14px 8px 0 8px;
  border-bottom: 1px solid #999999;}
.oa-hist .plot i {position: absolute; bottom: 0;}
.oa-hist .plot span {position: absolute; transform: translateX(-50%); font-size: 10px;
  margin-bottom: 2px;}
.oa-hist .ticks {position: relative; height: 16px; margin: 0 8px;}
.oa-hist .ticks span {position: absolute; transform: translateX(-50%); top: 2px;}
.oa-hist .title {text-align: center;}
</style>"""


def histogram_html(runs: Sequence[tuple[str, Any]], bins: int = 20) -> str:
    """The score histogram on [0, 1] of one run, or two overlaid, as HTML and CSS.

    Plain boxes, so the report needs no script and the explorer draws it without
    plotly (whose 4.7 MB bundle the page would otherwise load and draw), through
    ``st.html``, which keeps HTML and styles but drops SVG. Each bar's tooltip gives
    its run, range and count, and bars carry ``data-count`` (tests read it). Text
    takes the page's color (light or dark theme).

    Parameters
    ----------
    runs : sequence of (name, scores)
        One or two runs; the names are escaped, and shown as a legend for two.
    bins : int

    >>> chart = histogram_html([("A", [0.0, 0.5, 0.5, 1.0])], bins=4)
    >>> [chart.count(f'data-count="{n}"') for n in range(3)]
    [1, 2, 1]
    """
    counted = [(name, np.histogram(np.asarray(scores, dtype=float), bins=bins,
                                   range=(0.0, 1.0))[0]) for name, scores in runs]
    top = max([int(c.max()) for _, c in counted if c.size] + [1])
    two = len(counted) > 1
    parts = [_HISTOGRAM_STYLE, '<div class="oa-hist" role="img" aria-label="score histogram">']
    if two:
        parts.append('<div class="legend">' + "".join(
            f'<span><i style="background:{HISTOGRAM_COLORS[k]}"></i>{_e(name)}</span>'
            for k, (name, _) in enumerate(counted)) + "</div>")
    parts.append('<div class="plot">')
    width = 100 / bins
    for run, (name, counts) in enumerate(counted):
        for k, count in enumerate(counts):
            height = 100 * int(count) / top
            where = f"{_e(name)}: " if two else ""
            parts.append(f'<i style="left:{k * width:.3f}%;width:calc({width:.3f}% - 2px);'
                         f'height:{height:.3f}%;background:{HISTOGRAM_COLORS[run]};'
                         f'opacity:{0.7 if two else 1}" data-count="{int(count)}" '
                         f'title="{where}score {k / bins:.2f}–{(k + 1) / bins:.2f}: '
                         f'{int(count)} documents"></i>')
            if count and not two:
                parts.append(f'<span style="left:{(k + 0.5) * width:.3f}%;'
                             f'bottom:{height:.3f}%">{int(count)}</span>')
    parts.append('</div><div class="ticks">' + "".join(
        f'<span style="left:{tick * 10}%">{tick / 10:.1f}</span>' for tick in range(0, 11, 2))
        + '</div><div class="title">score</div></div>')
    return "".join(parts)


def _summary(run: ScoredRun, bad: int) -> str:
    stats = runstats.summary(run)
    mean = stats["mean"]
    rows = [("pairs", f"{stats['n']:,}"), ("mean score (95% bootstrap CI)", mean.render()),
            ("quantiles 10 / 25 / 50 / 75 / 90 %", " / ".join(
                _f(stats[k]) for k in ("p10", "p25", "p50", "p75", "p90"))),
            ("format failures (cut off, refused, not JSON, empty)",
             stats["format_failures"]),
            ("no JSON read (scored 0)", stats["unparsable"]),
            ("bad lines (not read, joined or scored)", bad + stats["errors"])]
    return _table(("", "value"), rows)


def _patterns(run: ScoredRun, top: int = 25) -> str:
    table = runstats.error_patterns(run).head(top)
    if table.empty:
        return '<p class="muted">No repair operations: every scored pair is perfect.</p>'
    losses = table["mean_loss"].tolist()
    peak = max(losses) or 1.0
    rows = [(p, k, int(c), int(n), float(m)) for p, k, c, n, m in zip(
        table["pattern"], table["kind"], table["count"], table["pairs"], table["mean_loss"],
        strict=True)]
    return _table(("path pattern", "op kind", "ops", "pairs", "mean loss per pair"), rows,
                  numeric=(2, 3, 4), shade={4: [v / peak for v in losses]})


def _fields(run: ScoredRun, threshold: float) -> str:
    table = runstats.field_metrics(run, threshold)
    rows = [(f, int(tp), int(fp), int(fd), int(fa), int(fn), p, r, f1)
            for f, tp, fp, fd, fa, fn, p, r, f1 in zip(
                table["field"], table["tp"], table["fp"], table["fd"], table["fa"],
                table["fn"], table["precision"], table["recall"], table["f1"], strict=True)]
    rule = (f"A matched value with similarity ≥ {threshold:g} is a true positive; matched "
            "below it, or of another type, it is a wrong value (a false positive) and a "
            "false negative; a missing value is a false negative, an excess one a spurious "
            "value (a false positive). Values where no gold has a field (inside a value of "
            "the wrong type, or under keys no gold uses) are the “(wrong shape)” row.")
    return f'<p class="muted">{_e(rule)}</p>' + _table(
        ("field (path pattern)", "TP", "FP", "FP: wrong", "FP: spurious", "FN", "precision",
         "recall", "F1"), rows, numeric=(1, 2, 3, 4, 5, 6, 7, 8))


def _document(data: Dataset, run: ScoredRun, row: int) -> str:
    record = run.frame.iloc[row]
    head = (f'<h3><span class="pill">{_e(record["id"])}</span> score {_f(record["score"])}'
            f'</h3>')
    try:
        item = data.pair(run.name, row)
        if "candidate" in item:
            candidate = item["candidate"]
        else:
            candidate = extract_json(str(item.get("prediction", "")))
        alignment = align(item["gold"], candidate, data.schema)
    except (OAError, KeyError):
        problem = record["problem"] or "not scored"
        raw = ""
        with contextlib.suppress(OAError, KeyError):
            raw = str(data.pair(run.name, row).get("prediction", ""))[:600]
        shown = f"<pre>{_e(raw)}</pre>" if raw else ""
        return (f'<div class="doc">{head}<p>{_e(record["status"])}: {_e(problem)}</p>'
                f'{shown}</div>')
    table = explain_table(alignment, only_imperfect=True)
    text = render_feedback(alignment, top_k=5, values="json").text
    if record["problem"]:  # scored, but from a fragment of a cut-off output: say so
        head += f"<p>{_e(record['problem'])}</p>"
    return (f'<div class="doc">{head}<p class="muted">Aligned diff (imperfect nodes only)'
            f'</p><pre>{_e(table)}</pre><p class="muted">Feedback</p><pre>{_e(text)}</pre>'
            "</div>")


def _worst(data: Dataset, run: ScoredRun, count: int) -> str:
    rows = runstats.worst(run, count)["row"].tolist()
    if not rows:
        return '<p class="muted">No document was scored on its content.</p>'
    return "".join(_document(data, run, int(r)) for r in rows)


def _raw(data: Dataset, run: ScoredRun, row: int, width: int = 160) -> str:
    """The end of a pair's raw output (where a cut-off one stops), or ""."""
    text = ""
    with contextlib.suppress(OAError, KeyError):
        text = str(data.pair(run.name, row).get("prediction", ""))
    text = " ".join(text.split())
    return text if len(text) <= width else "…" + text[-(width - 1):]


def _failures(data: Dataset, run: ScoredRun, examples: int = 3) -> str:
    found = runstats.format_failures(run, examples)
    if not found.count:
        return ('<p class="muted">None: every output was read as JSON (any prose around '
                "it is noted in the status).</p>")
    first_row = dict(zip(run.frame["id"][::-1], run.frame["row"][::-1], strict=True))
    rows = []
    for kind, ids in found.examples.items():
        for position, identifier in enumerate(ids):
            what = _raw(data, run, int(first_row[identifier]))
            rows.append((kind if position == 0 else "", found.kinds[kind] if position == 0
                         else "", identifier, what or "(nothing)"))
    note = (f"{found.render()}. Their scores measure the format, not the content, so they "
            "are left out of the worst documents below (and of the content regressions).")
    return f"<p>{_e(note)}</p>" + _table(("kind", "pairs", "example id",
                                          "what the model wrote (its end)"), rows,
                                         numeric=(1,))


def _bad(data: Dataset, runs: Sequence[ScoredRun]) -> str:
    """The lines that could not be read or joined, and those that could not be scored."""
    rows = [(b.file, b.line, b.pointer or "(root)", b.message, b.fix) for b in data.bad_lines]
    for run in runs:
        errors = run.frame[run.frame["status"] == "error"]
        rows += [(data.runs[run.name].file, int(line), "", problem, "see the message")
                 for line, problem in zip(errors["line"], errors["problem"], strict=True)]
    if not rows:
        return ""
    return "<h2>Bad lines</h2>" + _table(("file", "line", "pointer", "problem", "fix"), rows,
                                         numeric=(1,))


def _compare(a: ScoredRun, b: ScoredRun, threshold: float, top: int = 15) -> str:
    result = runstats.compare(a, b, threshold=threshold)
    parts = [f"<h2>Run {_e(b.name)} against run {_e(a.name)}</h2>",
             _table(("", "value"), [
                 ("mean difference B − A (paired bootstrap 95% CI)",
                  result.difference.render()),
                 ("wins / ties / losses of B", f"{result.wins} / {result.ties} / "
                                               f"{result.losses}"),
                 ("documents compared", len(result.pairs))])]
    worst = runstats.regressions(result, top)
    parts.append("<h3>Documents whose content regressed most</h3>" + (_table(
        ("id", f"score {a.name}", f"score {b.name}", "change"),
        [(i, float(x), float(y), float(d)) for i, x, y, d in zip(
            worst["id"], worst["score_a"], worst["score_b"], worst["diff"], strict=True)],
        numeric=(1, 2, 3)) if len(worst) else
        '<p class="muted">No document readable in both runs scores lower in B.</p>'))
    failed = runstats.new_failures(result)
    if len(failed):
        kinds = failed["status_b"].value_counts(sort=False)
        parts.append(f"<h3>Format failures new in {_e(b.name)}: {len(failed)}</h3>" + _table(
            ("kind", "documents", "example ids"),
            [(kind, int(kinds[kind]), ", ".join(failed["id"][failed["status_b"] == kind]
                                                .head(5).astype(str)))
             for kind in sorted(kinds.index, key=str)], numeric=(1,)))
    moved = result.patterns.head(top)
    parts.append("<h3>Error patterns that grew or shrank (mean loss per pair)</h3>" + _table(
        ("path pattern", "op kind", a.name, b.name, "change"),
        [(p, k, float(x), float(y), float(c)) for p, k, x, y, c in zip(
            moved["pattern"], moved["kind"], moved["loss_a"], moved["loss_b"],
            moved["change"], strict=True)], numeric=(2, 3, 4)))
    fields = result.fields
    parts.append("<h3>Field F1</h3>" + _table(
        ("field", a.name, b.name, "change"),
        [(f, float(x), float(y), float(c)) for f, x, y, c in zip(
            fields["field"], fields["f1_a"], fields["f1_b"], fields["change"], strict=True)],
        numeric=(1, 2, 3)))
    return "".join(parts)


def _schema_warnings(data: Dataset) -> str:
    """The schema's warnings (a misspelt keyword...), as ``oa score`` prints them."""
    warnings = schema_warnings(data.schema)
    if not warnings:
        return ""
    items = "".join(f"<li>{_e(diagnostic_line(diag, 'schema'))}</li>" for diag in warnings)
    return (f"<h2>Schema warnings ({len(warnings)})</h2><p>The scores below were computed "
            f"with these parts of the schema ignored.</p><ul>{items}</ul>")


def build(data: Dataset, runs: Sequence[ScoredRun], *, title: str = "Object Aligner report",
          worst: int = 10, threshold: float = 0.5) -> str:
    """The report as one HTML document.

    Parameters
    ----------
    data : Dataset
        Where the pairs come from (for the worst documents' diffs).
    runs : sequence of ScoredRun
        One run, or two (the second is compared with the first).
    title : str
    worst : int
        Worst documents shown per run, with their diff and feedback.
    threshold : float
        The credit threshold of the field metrics.
    """
    parts = ["<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{_e(title)}</h1>"]
    if data.description:
        parts.append(f'<p class="muted">{_e(data.description)}</p>')
    parts.append(_schema_warnings(data))
    for run in runs:
        parts += [f"<h2>Run {_e(run.name)} <span class=muted>"
                  f"({_e(data.runs[run.name].file)})</span></h2>",
                  _summary(run, len(data.bad_lines_of(run.name))),
                  histogram_html([(run.name, run.scores)]),
                  "<h3>Error patterns</h3>", _patterns(run),
                  "<h3>Field metrics</h3>", _fields(run, threshold),
                  "<h3>Format failures</h3>", _failures(data, run),
                  f"<h3>The {worst} worst documents by content</h3>",
                  _worst(data, run, worst)]
    if len(runs) == 2:
        parts.append(_compare(runs[0], runs[1], threshold))
    parts += [_bad(data, runs), '<p class="muted">Written by <code>oa report</code> '
              "(Object Aligner Explorer).</p></body></html>"]
    return "\n".join(parts)
