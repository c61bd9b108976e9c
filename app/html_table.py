"""Small tables as plain HTML (``st.html``), the way the score matrices are drawn.

Streamlit's data grid (``st.dataframe``, a ``<canvas>``) draws a newly mounted table's
cells 100-200 ms after the page's DOM has settled (in a one-table app: DOM settled at
76 ms, cells drawn until 174 ms), which alone kept a single-pair page switch over
300 ms. An HTML table is drawn with the rest of the page. So the single-pair pages
show their small tables with :func:`table_html`, and keep the grid only for big ones
(:func:`fits_html` false), where its virtualised drawing, sorting and search pay for
the delay.

Every string is escaped with :func:`html.escape` (record ids, names, values and
pointers come from the uploaded documents).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import pandas as pd

# Above either limit a table stays a data grid. An HTML table of up to 60 rows and
# 2,400 cells (60 rows x 40 columns) is a few ms of the page's own layout and a few
# tens of kB in the message; the grid costs 100-200 ms more to show anything, but
# draws only the rows in view, so past some hundreds of rows (the match tree of a
# big document expanded deep, a big scope's bijection) it is the cheaper one, and
# its sorting and search become worth having. 60 rows is also about where a table
# stops being read row by row and starts being searched.
HTML_TABLE_ROWS = 60
HTML_TABLE_CELLS = 2400
MAX_HEIGHT = "30rem"  # taller tables scroll inside their box (the header stays in view)
CLIP = 48  # characters of a cell shown before an ellipsis (the full text on hover)
ABSENT = "—"  # what None and NaN show as

_STYLE = """<style>
.oa-table {overflow: auto; margin: 0.25rem 0 0.75rem 0; border: 1px solid #d5d9e0;
  border-radius: 0.4rem;}
.oa-table table {border-collapse: separate; border-spacing: 0; font-size: 0.85rem;
  width: max-content; min-width: 100%;}
.oa-table th, .oa-table td {padding: 3px 8px; border-bottom: 1px solid #e3e6eb;
  text-align: left; vertical-align: top; white-space: pre;}
.oa-table thead th {position: sticky; top: 0; z-index: 2; font-weight: 600;
  background: #f2f4f8; border-bottom: 1px solid #c9ced6;}
.oa-table td.num, .oa-table th.num {text-align: right; font-variant-numeric: tabular-nums;}
.oa-table td.wrap {white-space: normal; min-width: 16em; max-width: 40em;}
.oa-table .pin {position: sticky; z-index: 1; background: #ffffff; box-sizing: border-box;
  overflow: hidden; text-overflow: ellipsis;}
.oa-table thead th.pin {z-index: 3; background: #f2f4f8;}
.oa-table .pin.last {border-right: 1px solid #c9ced6;}
@media (prefers-color-scheme: dark) {
  .oa-table {border-color: #3a4150;}
  .oa-table th, .oa-table td {border-bottom-color: #2c3340;}
  .oa-table thead th, .oa-table thead th.pin {background: #1c212b;}
  .oa-table .pin {background: #0f1217;}
}
</style>"""


def fits_html(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` is small enough to draw as HTML (:data:`HTML_TABLE_ROWS`,
    :data:`HTML_TABLE_CELLS`).

    Examples
    --------
    >>> fits_html(pd.DataFrame({"a": range(60)})), fits_html(pd.DataFrame({"a": range(61)}))
    (True, False)
    """
    return len(frame) <= HTML_TABLE_ROWS and frame.size <= HTML_TABLE_CELLS


def cell_text(value: Any, fmt: str | None = None) -> str:
    """A cell as the grid showed it: ``fmt`` (printf style, ``"%.4f"``) for a number,
    :data:`ABSENT` for None and NaN, ✓ for True (nothing for False).

    Examples
    --------
    >>> cell_text(0.76785714, "%.4f"), cell_text(-0.01, "%+.4f"), cell_text(None, "%.3f")
    ('0.7679', '-0.0100', '—')
    >>> cell_text(float("nan")), cell_text(3), cell_text(2.0), cell_text(True), cell_text("x")
    ('—', '3', '2', '✓', 'x')
    """
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ABSENT
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "✓" if value else ""
    if isinstance(value, numbers.Integral):
        return fmt % value if fmt else str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if fmt:
            return fmt % number
        return str(int(number)) if number.is_integer() else f"{number:.4g}"
    return str(value)


def table_html(frame: pd.DataFrame, name: str, *, formats: Mapping[str, str] | None = None,
               hints: Mapping[str, str] | None = None,
               pinned: Mapping[str, float] | None = None, wrap: Sequence[str] = (),
               max_height: str = MAX_HEIGHT) -> str:
    """``frame`` as a compact HTML table (no index), for ``st.html``.

    Parameters
    ----------
    frame : pandas.DataFrame
    name : str
        Names the table (``data-table`` on its box), for tests and styling.
    formats : mapping column -> str, optional
        printf-style number formats (``"%.4f"``); None and NaN show as :data:`ABSENT`.
    hints : mapping column -> str, optional
        Hover text of a column's header.
    pinned : mapping column -> width in em, optional
        Leading columns that stay in view when the table scrolls sideways (each
        drawn at its fixed width, longer text cut with an ellipsis, in full on hover).
    wrap : sequence of str
        Columns whose text wraps (long sentences); others stay on one line, cut
        after :data:`CLIP` characters (in full on hover).
    max_height : str
        CSS height beyond which the table scrolls inside its box.

    Numbers (numeric columns and those of ``formats``) are right-aligned. Every text
    is escaped.

    Examples
    --------
    >>> frame = pd.DataFrame({"id": ["<b>"], "score": [0.5], "a": [None]})
    >>> body = table_html(frame, "demo", formats={"score": "%.3f"})
    >>> body[body.index("<tbody>"):]
    '<tbody><tr><td>&lt;b&gt;</td><td class="num">0.500</td><td>—</td></tr></tbody></table></div>'
    """
    formats = formats or {}
    hints = hints or {}
    pinned = pinned or {}
    columns = [str(c) for c in frame.columns]
    numeric = {c for c in columns if c in formats or (
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]))}
    pins: dict[str, str] = {}  # column -> its class and style attributes
    left = 0.0
    for index, column in enumerate(pinned):
        width = pinned[column]
        last = " last" if index == len(pinned) - 1 else ""
        pins[column] = (f' class="pin{last}{" num" * (column in numeric)}" style="left:'
                        f'{left:g}em;width:{width:g}em;min-width:{width:g}em;'
                        f'max-width:{width:g}em"')
        left += width
    classes = {c: pins.get(c) or (' class="num"' if c in numeric else
                                  ' class="wrap"' if c in wrap else "") for c in columns}
    out = [_STYLE, f'<div class="oa-table" data-table="{escape(name)}" '
           f'style="max-height:{escape(max_height)}"><table><thead><tr>']
    for column in columns:
        hint = f' title="{escape(hints[column])}"' if column in hints else ""
        out.append(f"<th{classes[column]}{hint}>{escape(column)}</th>")
    out.append("</tr></thead><tbody>")
    for row in frame.itertuples(index=False, name=None):
        out.append("<tr>")
        for column, value in zip(columns, row, strict=True):
            text = cell_text(value, formats.get(column))
            shown = text
            if column not in numeric and column not in wrap and (
                    len(text) > CLIP or column in pins):
                shown = text if column in pins else text[:CLIP - 1] + "…"
                out.append(f'<td{classes[column]} title="{escape(text)}">{escape(shown)}</td>')
            else:
                out.append(f"<td{classes[column]}>{escape(shown)}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)
