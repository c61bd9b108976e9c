"""AppTest: the Match tree page (table, icicle, score matrices)."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import open_app
from streamlit.testing.v1 import AppTest


def figure(at: AppTest, key: str) -> dict:
    chart = next(el for el in at.get("plotly_chart") if el.key == key)
    return json.loads(chart.proto.spec)


def shape(z: dict | list) -> tuple[int, int]:
    """Rows x columns of a plotly matrix (binary-encoded or nested lists)."""
    if isinstance(z, dict):
        rows, columns = (int(n) for n in z["shape"].split(","))
        return rows, columns
    return len(z), len(z[0])


def test_table_has_weights_and_deficits() -> None:
    at = open_app("match_tree.py")
    frame = at.dataframe[0].value
    assert list(frame.columns)[:4] == ["path", "pointer", "kind", "status"]
    for column in ("comparator", "similarity", "weight", "effective weight", "contribution",
                   "deficit"):
        assert column in frame.columns
    root = frame.iloc[0]
    assert root["score"] == pytest.approx(0.7678571428571429)
    assert root["deficit"] == pytest.approx(1 - 0.7678571428571429)
    closin = frame[frame["pointer"] == "/agenda/2"].iloc[0]
    assert closin["comparator"] == "jaro" and closin["similarity"] == pytest.approx(0.952, 1e-3)
    top = frame[frame["pointer"].isin(["/agenda", "/mentorships", "/people", "/period"])]
    assert top["deficit"].sum() == pytest.approx(root["deficit"])


def test_depth_focus_and_imperfect_filter_change_the_table() -> None:
    at = open_app("match_tree.py")
    shallow = len(at.dataframe[0].value)
    at.slider(key="w.oa.tree_depth").set_value(3).run()
    deep = len(at.dataframe[0].value)
    assert deep > shallow
    at.toggle(key="w.oa.tree_imperfect").set_value(True).run()
    assert len(at.dataframe[0].value) < deep
    at.selectbox(key="w.oa.tree_focus").select("/agenda").run()
    pointers = set(at.dataframe[0].value["pointer"])
    assert pointers and all(p.startswith("/agenda") for p in pointers)


def test_icicle_shows_where_the_deficit_lives() -> None:
    at = open_app("match_tree.py")
    trace = figure(at, "icicle")["data"][0]
    assert trace["type"] == "icicle"
    assert trace["root"]["color"]
    assert sum(trace["values"]) == pytest.approx(1 - 0.7678571428571429)
    assert "agenda" in trace["labels"] and "mentorships" not in trace["labels"]


def test_matrices_for_scopes_and_lists() -> None:
    at = open_app("match_tree.py")
    spec = figure(at, "matrix")
    heat, pairs = spec["data"]
    assert shape(heat["z"]) == (6, 5)  # 6 gold people, 5 candidate people
    assert len(pairs["x"]) == 5
    options = at.selectbox(key="w.oa.tree_matrix").options
    agenda = next(o for o in options if "/agenda" in o)
    at.selectbox(key="w.oa.tree_matrix").select(agenda).run()
    heat, pairs = figure(at, "matrix")["data"]
    assert shape(heat["z"]) == (3, 3) and len(pairs["x"]) == 2  # intro, closing/closin
