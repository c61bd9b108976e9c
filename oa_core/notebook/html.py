"""The building blocks of the notebook views: escaping, the theme's CSS, tables that
page, score cells and values written short (:func:`app.text.shorten`).

Every view is one ``<div class="oa-nb">`` holding its own ``<style>``: the notebook
needs no network, no script and no CSS file. Colours come from JupyterLab's
``--jp-*`` variables (so the views follow its light or dark theme); elsewhere the text
takes the page's colour, lines and shades are translucent grey (readable on light and
dark pages alike) and the accent follows ``prefers-color-scheme``. Every piece of
user text goes through :func:`esc`; the score colours are light, always with dark text
on them (the app's colour-blind-safe scale, :mod:`app.palette`).

Examples
--------
>>> esc('<script>alert("x")</script>')
'&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'
>>> value_text({"a": [1, 2]})
'{"a": [1, 2]}'
>>> "<details" in table(["n"], [[str(k)] for k in range(30)], first=10)
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from app.palette import class_color, score_color, text_color_on
from app.text import shorten

__all__ = ["PAGE", "THEME_CSS", "chip", "esc", "fmt", "page_note", "score_cell", "table",
           "value_text", "view"]

PAGE = 25
"""Rows a table shows before folding the rest into a ``<details>``."""

_SHORT = 60
_MAX_TEXT = 90

THEME_CSS = """
.oa-nb {--oa-line: var(--jp-border-color2, rgba(128, 128, 128, 0.35));
  --oa-head: var(--jp-layout-color2, rgba(128, 128, 128, 0.14));
  --oa-absent: var(--jp-layout-color3, rgba(128, 128, 128, 0.25));
  --oa-accent: var(--jp-brand-color1, #1f6feb);
  /* JupyterLab's text colour; elsewhere the variable is undefined, the declaration
     drops out and the text takes the page's own colour (a page that stays light on a
     dark system must not get light text) */
  color: var(--jp-ui-font-color1);
  font-family: var(--jp-ui-font-family, system-ui, sans-serif);
  font-size: var(--jp-ui-font-size1, 13px); line-height: 1.45; max-width: 100%;}
@media (prefers-color-scheme: dark) {
  .oa-nb {--oa-accent: var(--jp-brand-color1, #58a6ff);}}
.oa-nb h4 {margin: 0.9em 0 0.3em 0; font-size: 1.05em; color: inherit;}
.oa-nb p {margin: 0.3em 0;}
.oa-nb .muted {opacity: 0.72;}
.oa-nb .head {display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; align-items: baseline;}
.oa-nb .big {font-size: 1.5em; font-weight: 600; padding: 0 0.35em; border-radius: 4px;
  color: #000;}
.oa-nb table.oa {border-collapse: collapse; margin: 0.3em 0; width: auto; max-width: 100%;}
.oa-nb table.oa th {text-align: left; background: var(--oa-head); color: inherit;
  border-bottom: 1px solid var(--oa-line); padding: 3px 8px; font-weight: 600;}
.oa-nb table.oa td {text-align: left; color: inherit; padding: 2px 8px;
  border-bottom: 1px solid var(--oa-line); vertical-align: top; white-space: pre-wrap;
  word-break: break-word; max-width: 40em;}
.oa-nb table.oa td.num {text-align: right; white-space: nowrap;
  font-variant-numeric: tabular-nums;}
.oa-nb code, .oa-nb .mono {font-family: var(--jp-code-font-family, ui-monospace,
  SFMono-Regular, Menlo, monospace); font-size: 0.95em;}
.oa-nb .sc {color: #000; border-radius: 3px; padding: 0 4px;}
.oa-nb .chip {display: inline-block; min-width: 1.6em; text-align: center;
  border-radius: 3px; padding: 0 3px; font-size: 0.9em;}
.oa-nb details > summary {cursor: pointer; color: var(--oa-accent);}
.oa-nb details.more {margin: 0.2em 0;}
.oa-nb .bar {display: inline-block; height: 0.7em; background: #d6604d;
  vertical-align: middle; margin-right: 0.3em;}
.oa-nb .warn {border-left: 3px solid #e69f00; padding-left: 0.5em;}
"""


def esc(value: Any) -> str:
    """``str(value)`` HTML-escaped (quotes too: safe in attributes)."""
    return escape(str(value), quote=True)


def fmt(value: float | None, digits: int = 4) -> str:
    """A score or delta with ``digits`` decimals; "—" for None or NaN.

    >>> fmt(0.7678571428571429), fmt(None), fmt(float("nan"))
    ('0.7679', '—', '—')
    """
    if value is None or value != value:
        return "—"
    return f"{value:.{digits}f}"


def value_text(value: Any) -> str:
    """A one-line text of a JSON value: short containers as JSON, long ones by size.

    >>> value_text(list(range(40))), value_text("x" * 200)[-3:]
    ('[40 items]', 'xx…')
    """
    if isinstance(value, dict | list):
        compact = json.dumps(value, ensure_ascii=False, default=str)
        if len(compact) <= _SHORT:
            return compact
        noun = "key" if isinstance(value, dict) else "item"
        return f"{'{' if isinstance(value, dict) else '['}{len(value)} {noun}" \
               f"{'s' * (len(value) != 1)}{'}' if isinstance(value, dict) else ']'}"
    return shorten(json.dumps(value, ensure_ascii=False, default=str), _MAX_TEXT)


def score_cell(score: float | None, *, tag: str = "td", extra: str = "") -> str:
    """A score on its colour of the score scale (dark text: the colours are light).

    >>> score_cell(1.0)
    '<td class="num"><span class="sc" style="background:#abd9e9">1.0000</span></td>'
    """
    inner = (f'<span class="sc" style="background:{score_color(score)}">{fmt(score)}</span>'
             if score is not None and score == score else "—")
    return f'<{tag} class="num"{extra}>{inner}</{tag}>'


def chip(colour_class: int) -> str:
    """A WL colour class as a coloured chip with its number (colour never alone).

    >>> chip(0)
    '<span class="chip" style="background:#E69F00;color:#000000">0</span>'
    """
    background = class_color(colour_class)
    return (f'<span class="chip" style="background:{background};'
            f'color:{text_color_on(background)}">{colour_class}</span>')


def page_note(hidden: int, noun: str = "rows") -> str:
    """The summary line of a folded remainder."""
    return f"show {hidden} more {noun}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], *, first: int = PAGE,
          numeric: Sequence[int] = (), raw: bool = True, noun: str = "rows") -> str:
    """An HTML table whose rows past ``first`` fold into a ``<details>``.

    Parameters
    ----------
    header : sequence of str
        Column names (escaped).
    rows : sequence of sequence of str
        Cells: HTML (``raw``, already escaped by the caller, ``<td>`` added unless
        the cell starts with ``<td``), else plain text (escaped here).
    first : int
        Rows shown before the fold.
    numeric : sequence of int
        Columns aligned right.
    """
    head = "".join(f"<th>{esc(h)}</th>" for h in header)

    def row_html(row: Sequence[str]) -> str:
        cells = []
        for k, cell in enumerate(row):
            if raw and cell.startswith("<td"):
                cells.append(cell)
                continue
            text = cell if raw else esc(cell)
            cells.append(f'<td class="num">{text}</td>' if k in numeric else f"<td>{text}</td>")
        return "<tr>" + "".join(cells) + "</tr>"

    def block(part: Sequence[Sequence[str]]) -> str:
        return (f'<table class="oa"><thead><tr>{head}</tr></thead><tbody>'
                + "".join(row_html(r) for r in part) + "</tbody></table>")

    shown = block(rows[:first])
    if len(rows) <= first:
        return shown
    return (shown + f'<details class="more"><summary>{page_note(len(rows) - first, noun)}'
            f"</summary>{block(rows[first:])}</details>")


def view(body: str, *, label: str) -> str:
    """One whole view: the theme's CSS and ``body`` in an ``oa-nb`` block.

    ``label`` names the view for assistive technology (escaped).
    """
    return (f'<div class="oa-nb" role="group" aria-label="{esc(label)}">'
            f"<style>{THEME_CSS}</style>{body}</div>")
