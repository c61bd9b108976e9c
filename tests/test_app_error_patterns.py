"""AppTest: the Error patterns page (path pattern x op kind, clicking a cell lists its
pairs in the Dataset table)."""

from __future__ import annotations

import json
from pathlib import Path

from apptest_helpers import open_app

from oa_core.runs import runstats
from oa_core.runs.dataset import load_folder, score_run

ORG = Path(__file__).resolve().parents[1] / "sample_data" / "datasets" / "org2graph_runs"
QUERY = {"dataset": "org2graph_runs", "run": "B"}


def values(array) -> list:
    """A plotly array of the figure JSON (plotly 7 writes numbers as typed base64)."""
    if isinstance(array, dict) and "bdata" in array:
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def chart(at) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart")
                           if c.key == "w.ep_chart").proto.spec)


def test_the_map_holds_every_pattern_and_kind_with_its_loss() -> None:
    at = open_app("error_patterns.py", QUERY, timeout=180)
    data = load_folder(ORG)
    patterns = runstats.error_patterns(score_run(data, "B"))
    trace = chart(at)["data"][0]
    cells = {tuple(c) for c in trace["customdata"]}
    assert cells == set(zip(patterns["pattern"], patterns["kind"], strict=True))
    assert max(values(trace["marker"]["color"])) == patterns["mean_loss"].max()
    table = next(d for d in at.dataframe if "mean loss" in d.value.columns).value
    assert table["mean loss"].sum() == patterns["mean_loss"].sum()


def test_colour_by_count_is_in_the_url() -> None:
    at = open_app("error_patterns.py", {**QUERY, "ep_value": "count"}, timeout=180)
    trace = chart(at)["data"][0]
    assert all(float(v).is_integer() for v in values(trace["marker"]["color"]))
    assert at.query_params["ep_value"] == "count"


def test_choosing_a_cell_filters_the_dataset_table() -> None:
    at = open_app("error_patterns.py", {**QUERY, "ds_text": "zzz"}, timeout=180)
    at.selectbox(key="w.ep_pick").set_value("/employment\tmissing-list-item").run()
    next(b for b in at.button if b.label == "Show these pairs").click().run()
    assert not at.exception
    assert at.title[0].value == "Dataset"
    assert at.query_params["ds_pattern"] == "/employment"
    assert at.query_params["ds_kind"] == "missing-list-item"
    assert "ds_text" not in at.query_params  # the other filters were cleared
    shown = next(d for d in at.dataframe if "top op" in d.value.columns).value
    data = load_folder(ORG)
    expected = runstats.filter_pairs(score_run(data, "B"), pattern="/employment",
                                     kind="missing-list-item")
    assert sorted(shown["id"]) == sorted(expected["id"]) and len(shown) > 0


def test_a_click_on_the_map_does_the_same() -> None:
    at = open_app("error_patterns.py", QUERY, timeout=180)
    # AppTest cannot click plotly: set the selection the chart would send
    from app.runs import dataset_page

    dataset_page.show_pattern("/companies", "missing-list-item")
    at.session_state["oa.ds_pattern"] = "/companies"
    at.session_state["oa.ds_kind"] = "missing-list-item"
    at.session_state["oa.ep_go"] = True
    at.run()
    assert at.title[0].value == "Dataset"
    assert at.query_params["ds_pattern"] == "/companies"


def test_format_failures_can_be_left_out_of_the_map() -> None:
    """Run B's 30 cut-off outputs, read as fragments, are one type mismatch at the root
    each: left out, the map holds the content errors only."""
    at = open_app("error_patterns.py", QUERY, timeout=180)
    assert ("(root)", "type-mismatch") in {tuple(c) for c in chart(at)["data"][0]["customdata"]}
    box = at.checkbox(key="w.oa.ep_content")
    assert box.label == "Leave out the 43 format failures: cut off 30, refused 12, empty 1"
    box.check().run()
    assert at.query_params["ep_content"] == "true"
    content = runstats.error_patterns(score_run(load_folder(ORG), "B"), content_only=True)
    cells = {tuple(c) for c in chart(at)["data"][0]["customdata"]}
    assert cells == set(zip(content["pattern"], content["kind"], strict=True))
    assert ("(root)", "type-mismatch") not in cells
    table = next(d for d in at.dataframe if "mean loss" in d.value.columns).value
    assert table["mean loss"].sum() == content["mean_loss"].sum()
