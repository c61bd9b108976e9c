"""AppTest: the Match tree page (pinned and sorted table, icicle, score matrices)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from apptest_helpers import as_numbers, html_body, html_table, open_app
from streamlit.testing.v1 import AppTest

from app.html_table import HTML_TABLE_ROWS

SCORE = 0.7678571428571429


def figure(at: AppTest, key: str) -> dict:
    chart = next(el for el in at.get("plotly_chart") if el.key == key)
    return json.loads(chart.proto.spec)


def chart_config(at: AppTest, key: str) -> dict:
    chart = next(el for el in at.get("plotly_chart") if el.key == key)
    return json.loads(chart.proto.config)


def tree_table(at: AppTest) -> pd.DataFrame:
    """The tree table as printed (a small one is HTML: no data grid on the page)."""
    assert not at.dataframe
    return html_table(at, "tree")


def test_table_has_weights_and_deficits() -> None:
    at = open_app("match_tree.py")
    frame = tree_table(at)
    assert list(frame.columns)[:4] == ["path", "deficit", "status", "score"]
    for column in ("comparator", "similarity", "weight", "effective weight", "contribution",
                   "gold pointer", "candidate pointer"):
        assert column in frame.columns
    root = frame.iloc[0]
    assert root["score"] == f"{SCORE:.4f}"
    assert root["deficit"] == f"{1 - SCORE:.4f}"
    closin = frame[frame["gold pointer"] == "/agenda/2"].iloc[0]
    assert closin["comparator"] == "jaro" and closin["similarity"] == "0.9524"
    top = frame[frame["gold pointer"].isin(["/agenda", "/mentorships", "/people", "/period"])]
    assert as_numbers(top["deficit"]).sum() == pytest.approx(1 - SCORE, abs=5e-4)


def test_path_and_deficit_are_pinned_numbers_have_4_decimals() -> None:
    at = open_app("match_tree.py")
    body = html_body(at, "tree")
    assert body is not None
    head = body.split("<tbody>")[0]
    pinned = re.findall(r'<th class="pin[^"]*"[^>]*>([^<]*)</th>', head)
    assert pinned == ["path", "deficit"]  # sticky: they stay in view scrolling sideways
    assert 'title="What fixing this node would recover' in head  # the header's help
    frame = tree_table(at)
    for name in ("deficit", "score", "weight", "effective weight", "contribution",
                 "similarity"):
        printed = frame[name][frame[name] != "—"]
        assert len(printed) and printed.str.fullmatch(r"-?\d\.\d{4}").all(), name
    assert '<td class="num">' in body  # numbers are right-aligned


def test_a_big_table_stays_a_data_grid_with_path_and_deficit_pinned() -> None:
    at = open_app("match_tree.py", query={"example": "scierc"}, timeout=60)
    assert html_body(at, "tree") is not None and not at.dataframe  # 2 levels: small
    at.slider(key="w.oa.tree_depth").set_value(8).run()
    assert html_body(at, "tree") is None
    frame = at.dataframe[0].value
    assert len(frame) > HTML_TABLE_ROWS
    assert at.dataframe[0].proto.placeholder == "—"  # NaN shows as — in the grid
    config = json.loads(at.dataframe[0].proto.columns)
    assert config["path"]["pinned"] is True and config["deficit"]["pinned"] is True
    assert not any(c.get("pinned") for name, c in config.items()
                   if name not in ("path", "deficit"))
    for name in ("deficit", "score", "weight", "effective weight", "contribution",
                 "similarity"):
        assert config[name]["type_config"]["format"] == "%.4f"


def test_sorted_by_deficit_by_default_or_as_a_tree() -> None:
    at = open_app("match_tree.py")
    frame = tree_table(at)
    deficits = list(as_numbers(frame["deficit"]))
    assert deficits == sorted(deficits, reverse=True)
    assert frame.iloc[1]["path"] == "/agenda"  # full paths when sorted
    at.radio(key="w.oa.tree_order").set_value("tree").run()
    tree = tree_table(at)
    assert tree.iloc[0]["path"] == "(root)"
    assert tree.iloc[1]["path"] == "    people"  # indented; the gold's first key, not "agenda"
    assert set(tree["gold pointer"]) == set(frame["gold pointer"])


def test_no_none_cells_and_labelled_pointers() -> None:
    at = open_app("match_tree.py")
    frame = tree_table(at)
    assert not frame.isin(["None", "nan", "NaN", None]).any().any()
    assert (frame["similarity"] == "—").any()  # a container has no similarity: —
    missing = frame[frame["status"].str.contains("missing")].iloc[0]
    assert missing["candidate pointer"] == "—" and missing["gold pointer"].startswith("/")
    excess = frame[frame["status"].str.contains("excess")].iloc[0]
    assert excess["gold pointer"] == "—" and excess["candidate pointer"].startswith("/")
    moved = frame[frame["gold pointer"] == "/people/0"].iloc[0]
    assert moved["candidate pointer"] == "/people/1"  # Alice is the candidate's second


def test_depth_focus_and_imperfect_filter_change_the_table() -> None:
    at = open_app("match_tree.py")
    shallow = len(tree_table(at))
    at.slider(key="w.oa.tree_depth").set_value(3).run()
    deep = len(tree_table(at))
    assert deep > shallow
    at.toggle(key="w.oa.tree_imperfect").set_value(True).run()
    assert len(tree_table(at)) < deep
    at.selectbox(key="w.oa.tree_focus").select("/agenda").run()
    frame = tree_table(at)
    pointers = set(frame["gold pointer"]) | set(frame["candidate pointer"])
    assert pointers - {"—"} and all(p.startswith("/agenda") for p in pointers - {"—"})


def test_icicle_shows_where_the_deficit_lives_with_numbers() -> None:
    at = open_app("match_tree.py")
    trace = figure(at, "icicle")["data"][0]
    assert trace["type"] == "icicle"
    assert trace["root"]["color"]
    assert sum(trace["values"]) == pytest.approx(1 - SCORE)
    assert "agenda" in trace["labels"] and "mentorships" not in trace["labels"]
    assert "%{text}" in trace["texttemplate"]
    root = trace["text"][trace["parents"].index("")]
    assert root == "−0.2321 · score 0.7679"


def test_chart_toolbars_are_off() -> None:
    at = open_app("match_tree.py")
    assert chart_config(at, "icicle")["displayModeBar"] is False


def matrix(at: AppTest) -> tuple[list[list[str]], int, str]:
    """The score matrix table: its printed cells by row, the boxed pairs, the HTML."""
    body = next(h.proto.body for h in at.get("html") if 'class="oa-matrix"' in h.proto.body)
    rows = re.findall(r"<tr><th[^>]*>.*?</tr>", body.split("<tbody>")[1], re.S)
    cells = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in rows]
    return cells, body.count('<td class="pair"'), body


def test_matrices_for_scopes_and_lists() -> None:
    at = open_app("match_tree.py")
    cells, pairs, _ = matrix(at)
    assert (len(cells), len(cells[0])) == (6, 5)  # 6 gold people, 5 candidate people
    assert pairs == 5
    assert not [c for c in at.get("plotly_chart") if c.key == "matrix"]  # a table
    options = at.selectbox(key="w.oa.tree_matrix").options
    agenda = next(o for o in options if "/agenda" in o)
    at.selectbox(key="w.oa.tree_matrix").select(agenda).run()
    cells, pairs, body = matrix(at)
    assert (len(cells), len(cells[0])) == (3, 3) and pairs == 2  # intro, closing/closin
    assert "0.9524" in cells[2]  # cells in the 4-decimal format
    assert 'title="gold 2: &quot;closing&quot;' in body  # a cell's hover names both items
