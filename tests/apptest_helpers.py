"""Shared AppTest plumbing for the explorer's page tests (tests/test_app_*.py)."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd
from streamlit.testing.v1 import AppTest

MAIN = "../app/main.py"


def open_app(page: str | None = None, query: dict[str, str] | None = None,
             timeout: float = 30) -> AppTest:
    """Run the entry script (with ``query`` as the URL query string), then switch to ``page``.

    ``page`` is a script name under ``pages/`` such as ``"feedback.py"``; every step
    must finish without an exception.
    """
    at = AppTest.from_file(MAIN, default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    if page is not None:
        at.switch_page(f"../pages/{page}").run()
        assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    """The value of the ``st.metric`` labelled ``label``."""
    return next(m.value for m in at.metric if m.label == label)


def errors(at: AppTest) -> str:
    """Every ``st.error`` message of the last run, one per line."""
    return "\n".join(e.value for e in at.error)


class _TableParser(HTMLParser):
    """The header and cell texts of the first ``<table>`` of an HTML body."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "thead":
            self._in_head = True
        elif tag == "tr" and not self._in_head:
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._in_head = False
        elif tag in ("th", "td") and self._cell is not None:
            text = "".join(self._cell)
            (self.header if self._in_head else self.rows[-1]).append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_body(at: AppTest, name: str) -> str | None:
    """The ``st.html`` body of the table named ``name`` (``app.html_table.table_html``),
    or None when the page shows no such table."""
    marker = f'data-table="{name}"'
    return next((h.proto.body for h in at.get("html") if marker in h.proto.body), None)


def html_table(at: AppTest, name: str) -> pd.DataFrame:
    """The HTML table ``name`` as the browser shows it: one string per cell, as printed
    (numbers in their display format, — for none)."""
    body = html_body(at, name)
    assert body is not None, f"no HTML table {name!r} on the page"
    parser = _TableParser()
    parser.feed(body)
    return pd.DataFrame(parser.rows, columns=parser.header)


def as_numbers(column: pd.Series) -> pd.Series:
    """A printed column read back as floats (— as NaN)."""
    return pd.to_numeric(column.replace("—", None))
