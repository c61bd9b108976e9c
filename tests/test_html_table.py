"""app.html_table: the single-pair pages' small tables as plain, escaped HTML."""

from __future__ import annotations

import math

import pandas as pd
from apptest_helpers import html_body, html_table, open_app

from app.html_table import HTML_TABLE_CELLS, HTML_TABLE_ROWS, fits_html, table_html
from app.pair.scope_views import bijection_frame
from oa_core import align

HOSTILE = "<img src=x onerror=alert(1)>"


def test_a_hostile_record_id_shows_escaped() -> None:
    frame = pd.DataFrame({"gold record": [f"{HOSTILE} (Dave)"], "C (attributes)": [1.0],
                          "with none": ['"><script>alert(2)</script>']})
    body = table_html(frame, "bijection", formats={"C (attributes)": "%.3f"},
                      hints={"gold record": HOSTILE})
    assert "<img" not in body and "<script" not in body
    assert "&lt;img src=x onerror=alert(1)&gt; (Dave)" in body
    assert 'title="&lt;img src=x onerror=alert(1)&gt;"' in body  # a header's hover text
    assert "&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in body


def test_a_hostile_header_pinned_cell_and_long_cell_are_escaped() -> None:
    long = HOSTILE * 10  # clipped: the full text goes into a title attribute
    frame = pd.DataFrame({HOSTILE: [HOSTILE], "value": [long]})
    body = table_html(frame, 't" onload="x', pinned={HOSTILE: 10})
    assert "<img" not in body and 'onload="x"' not in body
    assert f'title="{long.replace("<", "&lt;").replace(">", "&gt;")}"' in body
    assert body.count("&lt;img src=x onerror=alert(1)&gt;") >= 3  # header, pinned, clipped


def test_numbers_formatted_absent_as_dash_numbers_right_aligned() -> None:
    frame = pd.DataFrame({"path": ["/a", "/b"], "deficit": [0.123456, math.nan],
                          "moved": [0.5, -0.25], "class": [1, 2], "changed": [True, False],
                          "note": [None, "x"]})
    body = table_html(frame, "t", formats={"deficit": "%.4f", "moved": "%+.3f"})
    assert '<td class="num">0.1235</td><td class="num">+0.500</td><td class="num">1</td>' \
        '<td>✓</td><td>—</td>' in body
    assert '<td class="num">—</td><td class="num">-0.250</td><td class="num">2</td>' \
        '<td></td><td>x</td>' in body
    assert '<th class="num">deficit</th>' in body
    assert "max-height:30rem" in body  # a long table scrolls inside its box
    assert "None" not in body and "nan" not in body


def test_pinned_columns_are_sticky_at_their_offsets() -> None:
    frame = pd.DataFrame({"path": ["    people"], "deficit": [0.25], "score": [0.75]})
    body = table_html(frame, "tree", formats={"deficit": "%.4f", "score": "%.4f"},
                      pinned={"path": 16, "deficit": 5.5})
    assert '<th class="pin" style="left:0em;width:16em;' in body
    assert '<th class="pin last num" style="left:16em;width:5.5em;' in body
    assert '<td class="pin" style="left:0em;width:16em;min-width:16em;max-width:16em" ' \
        'title="    people">    people</td>' in body  # indentation kept (white-space: pre)


def test_the_threshold_between_a_table_and_a_data_grid() -> None:
    assert fits_html(pd.DataFrame({"a": range(HTML_TABLE_ROWS)}))
    assert not fits_html(pd.DataFrame({"a": range(HTML_TABLE_ROWS + 1)}))
    wide = pd.DataFrame({f"c{i}": range(10) for i in range(HTML_TABLE_CELLS // 10 + 1)})
    assert not fits_html(wide)


def test_a_hostile_id_in_uploaded_documents_shows_escaped_on_the_referential_page() -> None:
    from app import session

    schema = {"type": "object", "properties": {"people": {
        "type": "array", "order": "align", "items": {"type": "object", "properties": {
            "id": {"type": "string", "idScope": "person"}, "name": {"type": "string"}}}}}}
    gold = {"people": [{"id": HOSTILE, "name": "Dave"}, {"id": "b", "name": "Eve"}]}
    candidate = {"people": [{"id": "x", "name": "Dave"}, {"id": HOSTILE, "name": "Eve"}]}
    assert not bijection_frame({"tie_break": align(gold, candidate, schema)}, "person",
                               "tie_break").empty
    at = open_app("referential.py", timeout=60)
    at.session_state[session.TRIO] = session.Trio("custom", gold, candidate, schema)
    at.session_state[session.SCHEMA_EDITS] = {}
    at.session_state[session.FIXES] = []
    at.run()
    assert not at.exception, at.exception
    body = html_body(at, "bijection")
    assert body is not None and "<img" not in body
    assert "&lt;img src=x onerror=alert(1)&gt;" in body
    frame = html_table(at, "bijection")  # as the browser shows it: the text, literally
    assert any(HOSTILE in name for name in frame["gold record"])
    assert any(HOSTILE in name for name in frame["with none"]) or \
        any(HOSTILE in name for name in frame["candidate record"])
