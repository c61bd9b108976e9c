"""Small page sections shared by several views, and the explorer's one number format.

Number format (every page uses these helpers, never its own ``:.3f``):

- **headline metrics** (``st.metric``: score, deficit): 2 decimals, ``0.77``, with the
  exact value in the metric's help; a glance, not a measurement;
- **everywhere else** (tables, chart labels and hovers, captions, deltas, the applied
  fix message): 4 decimals, ``0.7679``; deltas signed, ``+0.0625``.

The feedback text itself is ``oa_core``'s (what an optimizer receives) and keeps the
engine's own format.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import streamlit as st

import oa_core
from oa_core import Alignment, Diagnostic, RepairOp
from oa_core.errors import PREVIEW_LIMIT, preview_json

from . import html_table, session
from .examples import list_examples
from .session import Trio
from .text import md_escape, shorten

SCORE_DECIMALS = 4
HEADLINE_DECIMALS = 2
# Plotly charts: no mode bar (its buttons would come first in the Tab order), no logo.
PLOTLY_CONFIG: dict[str, Any] = {"displayModeBar": False, "displaylogo": False}


def fmt_score(value: float, *, headline: bool = False) -> str:
    """A score (or weight, contribution, deficit) in the explorer's one format.

    >>> fmt_score(0.7678571428571429), fmt_score(0.7678571428571429, headline=True)
    ('0.7679', '0.77')
    """
    return f"{value:.{HEADLINE_DECIMALS if headline else SCORE_DECIMALS}f}"


def fmt_delta(value: float) -> str:
    """A signed change of the score, 4 decimals; a change too small for them in
    scientific notation rather than rounded to a misleading ``+0.0000``.

    >>> fmt_delta(0.0625), fmt_delta(-0.01), fmt_delta(1e-9)
    ('+0.0625', '-0.0100', '+1.00e-09')
    """
    text = f"{value:+.{SCORE_DECIMALS}f}"
    if value != 0 and float(text) == 0:
        text = f"{value:+.2e}"
    return text


def content_key(*values: Any) -> str:
    """A short digest of JSON values (documents and options): the cache key of a view.

    >>> content_key({"a": 1}, "none") == content_key({"a": 1}, "none")
    True
    """
    text = json.dumps(values, ensure_ascii=False, sort_keys=False, separators=(",", ":"),
                      default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


NOTE_PREFIX = "tie-"  # the codes of the engine's notes on how it broke ties


def split_diagnostics(diagnostics: Sequence[Diagnostic]) -> tuple[list[Diagnostic],
                                                                   list[Diagnostic]]:
    """Warnings (something may be wrong) apart from notes (how the engine broke a tie:
    information, nothing to fix).

    >>> tie = Diagnostic("tie-content", "gold", "/people/3", "2 records tied")
    >>> bad = Diagnostic("unknown-keyword", "schema", "/itemz", "unknown keyword")
    >>> [[d.code for d in group] for group in split_diagnostics([tie, bad])]
    [['unknown-keyword'], ['tie-content']]
    """
    warnings = [d for d in diagnostics if not d.code.startswith(NOTE_PREFIX)]
    notes = [d for d in diagnostics if d.code.startswith(NOTE_PREFIX)]
    return warnings, notes


def score_header(alignment: Alignment) -> None:
    """Score, deficit and diagnostic counts as metrics (2 decimals, see the module);
    tie-breaking notes are counted apart from warnings."""
    warnings, notes = split_diagnostics(alignment.warnings)
    columns = st.columns(5)
    columns[0].metric("Score", fmt_score(alignment.score, headline=True),
                      help=f"exactly {alignment.score!r}")
    columns[1].metric("Deficit", fmt_score(1.0 - alignment.score, headline=True),
                      help=f"1 − score = {fmt_score(1.0 - alignment.score)}: what the "
                           "repair operations can recover")
    columns[2].metric("Warnings", len(warnings),
                      help="Something in the documents or the schema may be wrong")
    columns[3].metric("Notes", len(notes),
                      help="How ties between equally good pairings were broken: "
                           "information, nothing to fix")
    columns[4].metric("Schema violations", len(alignment.violations),
                      help="JSON Schema checks of the candidate (they do not change the score)")


def score_change(score: float, reference: float, versus: str = "") -> dict[str, Any]:
    """Keyword arguments for ``st.metric`` showing ``score - reference``.

    Equal scores (the same bits) read "same" in gray with no arrow, since a green
    "+0.0000" would suggest a gain; a change too small for four decimals is shown
    in scientific notation rather than rounded away.

    >>> score_change(0.75, 0.75, "tie_break")["delta"]
    'same as tie_break'
    >>> score_change(0.5, 0.75)["delta"]
    '-0.2500'
    >>> score_change(0.75 + 1e-9, 0.75)["delta"]
    '+1.00e-09'
    """
    difference = score - reference
    if difference == 0:
        return {"delta": f"same as {versus}" if versus else "same", "delta_color": "off",
                "delta_arrow": "off"}
    text = fmt_delta(difference)
    return {"delta": f"{text} vs {versus}" if versus else text, "delta_color": "normal"}


def table(frame: Any, name: str, *, formats: Mapping[str, str] | None = None,
          hints: Mapping[str, str] | None = None, pinned: Mapping[str, float] | None = None,
          wrap: Sequence[str] = (), key: str | None = None) -> None:
    """A table of a single-pair page: HTML when small (:func:`html_table.fits_html`:
    drawn with the page, where a data grid draws its cells 100-200 ms after it), else
    a data grid with the same number formats, header help and pinned columns.
    """
    formats, hints, pinned = formats or {}, hints or {}, pinned or {}
    if html_table.fits_html(frame):
        st.html(html_table.table_html(frame, name, formats=formats, hints=hints,
                                      pinned=pinned, wrap=wrap))
        return
    columns: dict[str, Any] = {}
    for column in dict.fromkeys([*formats, *hints, *pinned]):
        settings: dict[str, Any] = {"pinned": True} if column in pinned else {}
        if column in hints:
            settings["help"] = hints[column]
        columns[column] = (st.column_config.NumberColumn(format=formats[column], **settings)
                           if column in formats else st.column_config.TextColumn(**settings))
    st.dataframe(frame, hide_index=True, column_config=columns, placeholder=html_table.ABSENT,
                 key=key, height=min(35 * (len(frame) + 1) + 3, 720))


FULL_SHOWN = 200_000  # characters of a full value shown in the page (longer: a download)


def cut_values(values: Sequence[Any]) -> list[Any]:
    """The values a message showed cut (:func:`oa_core.errors.preview_json`): those to
    offer in full. Cheap for a huge value (both previews stop early).

    >>> [len(value) for value in cut_values([1, "x" * 500, {"a": 1}])]
    [500]
    """
    return [value for value in values
            if preview_json(value, PREVIEW_LIMIT) != preview_json(value, 2 * PREVIEW_LIMIT)]


def full_values(values: Sequence[Any], key: str) -> None:
    """The full values behind a message's cut ones, one click away: a lazy expander
    (nothing is sent until it is opened), each value as JSON, or a download when it
    is longer than :data:`FULL_SHOWN` characters."""
    cut = cut_values(values)
    if not cut:
        return
    title = "Show the full value" + "s" * (len(cut) != 1)
    with st.expander(title, key=f"w.full.{key}", on_change="rerun") as box:
        if not box.open:
            return
        for index, value in enumerate(cut):
            text = preview_json(value, None)
            if len(text) <= FULL_SHOWN:
                st.code(text, language="json", wrap_lines=True)
            else:
                st.caption(f"{len(text):,} characters of JSON: too long to show here.")
                st.download_button("Download it (JSON)", text, file_name="value.json",
                                   mime="application/json", on_click="ignore",
                                   key=f"w.full.{key}.{index}")


def _diagnostic_text(diagnostic: Diagnostic) -> str:
    where = md_escape(diagnostic.pointer or "(root)")
    return (f"**{md_escape(diagnostic.code)}** in the {md_escape(diagnostic.document)} at "
            f"{where}: {md_escape(diagnostic.message)}")


DIAGNOSTICS_SHOWN = 20  # alerts of one kind on a page; the rest are counted


def diagnostics(alignment: Alignment) -> None:
    """The alignment's warnings, its tie-breaking notes and the candidate's schema
    violations (at most :data:`DIAGNOSTICS_SHOWN` of each kind: a candidate with a
    wrong type in each of 20,000 records must not print 20,000 alerts)."""
    warnings, notes = split_diagnostics(alignment.warnings)
    for kind, found in (("warning", warnings), ("violation", alignment.violations),
                        ("note", notes)):
        for index, diagnostic in enumerate(found[:DIAGNOSTICS_SHOWN]):
            if kind == "warning":
                st.warning(_diagnostic_text(diagnostic), icon=":material/warning:")
            elif kind == "violation":
                st.error(_diagnostic_text(diagnostic), icon=":material/block:")
            else:
                st.info(_diagnostic_text(diagnostic), icon=":material/info:")
            full_values(diagnostic.values, f"{kind}.{index}")
        if len(found) > DIAGNOSTICS_SHOWN:
            left = len(found) - DIAGNOSTICS_SHOWN
            st.caption(f"… and {left:,} more {kind}{'s' * (left != 1)} like these.")
    if not warnings and not alignment.violations:
        st.success("No warnings; the candidate satisfies the schema.",
                   icon=":material/check_circle:")


def eligible_ops(ops: Sequence[RepairOp], min_delta: float = 0.0) -> list[RepairOp]:
    """The ops the feedback may show: a positive delta of at least ``min_delta``."""
    return [op for op in ops if op.delta > 0 and op.delta >= min_delta]


# Colors of the delta chart (Okabe-Ito: color-blind safe); text and axis take the
# page's text color, so the chart reads in the light and the dark theme.
SHOWN_COLOR, HIDDEN_COLOR, ALONE_COLOR = "#0072B2", "#bbbbbb", "#D55E00"
_DELTA_STYLE = """<style>
.oa-deltas {font-size: 0.85rem; margin: 0.25rem 0 0.5rem 0;}
.oa-deltas .legend {display: flex; gap: 1.5rem; margin: 0 0 0.4rem 0;}
.oa-deltas .legend span {display: inline-flex; align-items: center; gap: 0.4rem;}
.oa-deltas .plot {display: grid; grid-template-columns: fit-content(40%) 1fr;}
.oa-deltas .label {text-align: right; padding-right: 0.6rem; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; line-height: 30px;}
.oa-deltas .track {position: relative; height: 30px; margin-right: 4.5rem;}
.oa-deltas .track i.grid {position: absolute; top: 0; bottom: 0; border-left: 1px solid;
  opacity: 0.15;}
.oa-deltas .track i.zero {opacity: 0.5;}
.oa-deltas .bar {position: absolute; top: 5px; bottom: 5px;}
.oa-deltas .value {position: absolute; top: 0; line-height: 30px; padding-left: 4px;
  white-space: nowrap;}
.oa-deltas .alone {position: absolute; top: 50%; width: 10px; height: 10px;
  transform: translate(-50%, -50%) rotate(45deg); border: 1px solid #000000;}
.oa-deltas .ticks {position: relative; height: 1.4rem; margin-right: 4.5rem;
  font-size: 0.75rem;}
.oa-deltas .ticks span {position: absolute; transform: translateX(-50%); top: 2px;}
.oa-deltas .title {grid-column: 2; text-align: center; margin-right: 4.5rem;}
</style>"""


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values inside [low, high] (about ``count`` of them).

    >>> _ticks(0.0, 0.07)
    [0.0, 0.02, 0.04, 0.06]
    """
    span = max(high - low, 1e-9)
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(power * f for f in (1, 2, 5, 10) if power * f >= raw)
    first = math.ceil(low / step - 1e-9)
    return [round(k * step, 12) for k in range(first, math.floor(high / step + 1e-9) + 1)]


def delta_chart_html(ops: Sequence[RepairOp], shown: Sequence[RepairOp], *,
                     min_delta: float = 0.0,
                     alone: Mapping[int, float | None] | None = None) -> str:
    """Horizontal bars of the ranked repair ops' deltas, as static HTML and CSS (for
    ``st.html``); the shown ones in color.

    Drawn as plain boxes rather than a plotly chart, which cost the browser far more
    to draw on every rerun and page switch; this chart needs no zoom (each row's hover
    text is the op's message). Bars carry ``data-delta`` and diamonds ``data-alone``
    (the exact values), for tests.

    Parameters
    ----------
    ops : sequence of RepairOp
        Every op, ranked; those below ``min_delta`` (or recovering nothing) are left
        out, so the chart follows the minimum-delta filter.
    shown : sequence of RepairOp
        The ops in the feedback text (drawn in color, the others gray).
    alone : mapping, optional
        ``id(op)`` -> the score change when that op alone is applied; drawn as a
        diamond on the op's bar.
    """
    drawn = eligible_ops(ops, min_delta)
    shown_ids = {id(op) for op in shown}
    moves = {id(op): move for op in drawn
             if alone is not None and (move := alone.get(id(op))) is not None}
    values = [op.delta for op in drawn] + list(moves.values())
    low, high = min([0.0, *values]) * 1.15, max([*values, 1e-9]) * 1.18

    def left(value: float) -> str:
        return f"{100 * (value - low) / (high - low):.3f}%"

    zero = 100 * (0.0 - low) / (high - low)
    parts = [_DELTA_STYLE, '<div class="oa-deltas" role="figure" '
             'aria-label="Repair operations by delta">']
    if moves:
        parts.append(f'<div class="legend"><span><i style="display:inline-block;width:12px;'
                     f'height:12px;background:{SHOWN_COLOR}"></i>delta (share of the '
                     'deficit)</span><span><i style="display:inline-block;width:9px;'
                     f'height:9px;background:{ALONE_COLOR};border:1px solid #000000;'
                     'transform:rotate(45deg)"></i>realised gain (applied alone, '
                     'rescored)</span></div>')
    ticks = _ticks(low, high)
    # the grid lines are drawn in every row (a row is 30 px: a few thin boxes each)
    grid = ("".join(f'<i class="grid" style="left:{left(t)}"></i>' for t in ticks)
            + f'<i class="grid zero" style="left:{zero:.3f}%"></i>')
    parts.append('<div class="plot">')
    for rank, op in enumerate(drawn, start=1):
        end = 100 * (op.delta - low) / (high - low)
        color = SHOWN_COLOR if id(op) in shown_ids else HIDDEN_COLOR
        hover = escape(f"{shorten(op.message, 200)} (delta {op.delta:+.4f})", quote=True)
        label = escape(f"{rank}. {op.kind} {shorten(op.path or '/', 60)}")
        row = [f'<div class="label" title="{hover}">{label}</div>'
               f'<div class="track" title="{hover}">{grid}'
               f'<div class="bar" style="left:{min(zero, end):.3f}%;'
               f'width:{abs(end - zero):.3f}%;background:{color}" '
               f'data-delta="{op.delta!r}"></div>'
               f'<span class="value" style="left:{max(zero, end):.3f}%">'
               f'{fmt_delta(op.delta)}</span>']
        move = moves.get(id(op))
        if move is not None:
            row.append(f'<i class="alone" style="left:{left(move)};background:{ALONE_COLOR}" '
                       f'title="realised gain (applied alone): {move:+.4f}" '
                       f'data-alone="{move!r}"></i>')
        parts.append("".join(row) + "</div>")
    parts.append('<div></div><div class="ticks">'
                 + "".join(f'<span style="left:{left(t)}">{t:.4f}</span>' for t in ticks)
                 + '</div><div></div><div class="title">score recovered</div></div></div>')
    return "".join(parts)


def current_inputs() -> tuple[Any, Any, Any, str, float] | None:
    """What the pages score: gold, candidate (fixes applied), schema (edits applied),
    WL mode and blend lambda (as :func:`app.pair.scoring.current` does)."""
    trio = session.trio()
    if trio is None:
        return None
    state = st.session_state
    return (trio.gold, session.current_candidate(), session.edited_schema(),
            str(state.get(session.WL_MODE, "tie_break")), float(state.get(session.WL_LAMBDA, 0.5)))


@st.cache_data(max_entries=2048, show_spinner=False)
def _alone_score(key: str, index: int, _inputs: tuple[Any, Any, Any, str, float],
                 _op: RepairOp) -> float | None:
    gold, candidate, schema, wl_mode, wl_lambda = _inputs
    try:
        fixed = oa_core.apply_ops(candidate, [_op])
        return oa_core.align(gold, fixed, schema, wl_mode=wl_mode,
                             wl_blend_lambda=wl_lambda).score
    except (oa_core.OAError, LookupError, TypeError, ValueError):
        return None


def alone_moves(alignment: Alignment, ops: Sequence[RepairOp], which: Sequence[RepairOp],
                inputs: tuple[Any, Any, Any, str, float]) -> dict[int, float | None]:
    """How much the score moves when each op of ``which`` alone is applied.

    Each op is applied to the candidate with ``oa_core.apply_ops`` and the result
    rescored against the gold with the same schema and options. Only the ops in
    ``which`` (the shown ones) are computed; results are cached on the documents'
    content and the op's rank in ``ops``.

    Returns
    -------
    dict
        ``id(op)`` -> score after minus score before (None if the op could not be
        applied or rescored).
    """
    key = content_key(*inputs)
    rank = {id(op): index for index, op in enumerate(ops)}
    out: dict[int, float | None] = {}
    for op in which:
        after = _alone_score(key, rank[id(op)], inputs, op)
        out[id(op)] = None if after is None else after - alignment.score
    return out


def rank_by_gain(ops: Sequence[RepairOp], gains: Mapping[int, float | None]
                 ) -> list[RepairOp]:
    """``ops`` by realised gain (``id(op)`` -> the score change when that op alone is
    applied, see :func:`alone_moves`), the largest first; ties, and the ops without a
    gain (not computed, or not applicable), keep their order (the paper's, by delta).

    >>> from oa_core import RepairOp
    >>> a, b, c = (RepairOp("missing", p, None, None, None, None, d)
    ...            for p, d in (("/a", 0.3), ("/b", 0.2), ("/c", 0.1)))
    >>> [op.path for op in rank_by_gain([a, b, c], {id(a): 0.05, id(b): 0.2})]
    ['/b', '/a', '/c']
    """
    known = [op for op in ops if gains.get(id(op)) is not None]
    known.sort(key=lambda op: -gains[id(op)])  # type: ignore[operator]  # stable
    return known + [op for op in ops if gains.get(id(op)) is None]


def replaces_whole_output(op: RepairOp) -> bool:
    """Whether applying ``op`` replaces the whole candidate (its patch writes at the
    root): the gold handed over whole, which teaches a model nothing.

    >>> from oa_core import RepairOp
    >>> replaces_whole_output(RepairOp("type-mismatch", "", "", "", {}, [], 1.0,
    ...     patch=[{"op": "replace", "path": "", "value": {}}]))
    True
    """
    return any(step.get("path") == "" for step in op.patch)


def alone_note(delta: float, moved: float | None) -> str:
    """One line on why applying an op alone moves the score by more or less than its delta.

    >>> alone_note(0.0625, 0.0625)
    'exactly its delta'
    >>> alone_note(0.0625, 0.0407)
    'less than its delta: the fixed candidate re-aligns, items re-pair'

    """
    if moved is None:
        return "could not be applied alone"
    if abs(moved - delta) < 0.5 * 10 ** -SCORE_DECIMALS:
        return "exactly its delta"
    if moved < delta:
        return "less than its delta: the fixed candidate re-aligns, items re-pair"
    return "more than its delta: the fixed candidate re-aligns, other items pair better"


def source_text(trio: Trio | None) -> None:
    """The bundled example's source text (what the candidate was extracted from)."""
    if trio is None:
        return
    example = next((e for e in list_examples() if e.name == trio.source), None)
    text = example.context_text() if example is not None else None
    if text:
        with st.expander("Source text of this example"):
            st.text(text)
