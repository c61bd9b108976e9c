"""AppTest: the Match tree page (pinned and sorted table, icicle, score matrices)."""

from __future__ import annotations

import json
import re

import pytest
from apptest_helpers import open_app
from streamlit.testing.v1 import AppTest

SCORE = 0.7678571428571429


def figure(at: AppTest, key: str) -> dict:
    chart = next(el for el in at.get("plotly_chart") if el.key == key)
    return json.loads(chart.proto.spec)


def chart_config(at: AppTest, key: str) -> dict:
    chart = next(el for el in at.get("plotly_chart") if el.key == key)
    return json.loads(chart.proto.config)


def column_config(at: AppTest) -> dict:
    return json.loads(at.dataframe[0].proto.columns)


def test_table_has_weights_and_deficits() -> None:
    at = open_app("match_tree.py")
    frame = at.dataframe[0].value
    assert list(frame.columns)[:4] == ["path", "deficit", "status", "score"]
    for column in ("comparator", "similarity", "weight", "effective weight", "contribution",
                   "gold pointer", "candidate pointer"):
        assert column in frame.columns
    root = frame.iloc[0]
    assert root["score"] == pytest.approx(SCORE)
    assert root["deficit"] == pytest.approx(1 - SCORE)
    closin = frame[frame["gold pointer"] == "/agenda/2"].iloc[0]
    assert closin["comparator"] == "jaro" and closin["similarity"] == pytest.approx(0.952, 1e-3)
    top = frame[frame["gold pointer"].isin(["/agenda", "/mentorships", "/people", "/period"])]
    assert top["deficit"].sum() == pytest.approx(root["deficit"])


def test_path_and_deficit_are_pinned_numbers_have_4_decimals() -> None:
    at = open_app("match_tree.py")
    config = column_config(at)
    assert config["path"]["pinned"] is True and config["deficit"]["pinned"] is True
    assert not any(c.get("pinned") for name, c in config.items()
                   if name not in ("path", "deficit"))
    for name in ("deficit", "score", "weight", "effective weight", "contribution",
                 "similarity"):
        assert config[name]["type_config"]["format"] == "%.4f"


def test_sorted_by_deficit_by_default_or_as_a_tree() -> None:
    at = open_app("match_tree.py")
    frame = at.dataframe[0].value
    assert list(frame["deficit"]) == sorted(frame["deficit"], reverse=True)
    assert frame.iloc[1]["path"] == "/agenda"  # full paths when sorted
    at.radio(key="w.oa.tree_order").set_value("tree").run()
    tree = at.dataframe[0].value
    assert tree.iloc[0]["path"] == "(root)"
    assert tree.iloc[1]["path"] == "    people"  # indented; the gold's first key, not "agenda"
    assert set(tree["gold pointer"]) == set(frame["gold pointer"])


def test_no_none_cells_and_labelled_pointers() -> None:
    at = open_app("match_tree.py")
    frame = at.dataframe[0].value
    assert at.dataframe[0].proto.placeholder == "—"  # NaN shows as — in the grid
    text = frame.select_dtypes(exclude="number")
    assert not text.isin(["None", "nan", None]).any().any()
    missing = frame[frame["status"].str.contains("missing")].iloc[0]
    assert missing["candidate pointer"] == "—" and missing["gold pointer"].startswith("/")
    excess = frame[frame["status"].str.contains("excess")].iloc[0]
    assert excess["gold pointer"] == "—" and excess["candidate pointer"].startswith("/")
    moved = frame[frame["gold pointer"] == "/people/0"].iloc[0]
    assert moved["candidate pointer"] == "/people/1"  # Alice is the candidate's second


def test_depth_focus_and_imperfect_filter_change_the_table() -> None:
    at = open_app("match_tree.py")
    shallow = len(at.dataframe[0].value)
    at.slider(key="w.oa.tree_depth").set_value(3).run()
    deep = len(at.dataframe[0].value)
    assert deep > shallow
    at.toggle(key="w.oa.tree_imperfect").set_value(True).run()
    assert len(at.dataframe[0].value) < deep
    at.selectbox(key="w.oa.tree_focus").select("/agenda").run()
    frame = at.dataframe[0].value
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
